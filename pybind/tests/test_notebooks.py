"""The notebooks run from top to bottom without error."""

import base64
import pathlib
import shutil

import nbformat
import pytest
from nbclient import NotebookClient

from conftest import SHARED

REPO = pathlib.Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((REPO / "notebooks").rglob("*.ipynb"))
# Every figure a notebook shows is written here so that it can be looked at after the run.
FIGURES = REPO / "build" / "test-output" / "notebooks"


def save_figures(path, outputs):
    """Write each PNG output of an executed notebook to FIGURES/<stem>/NN.png; return the paths."""
    out = FIGURES / path.stem
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.png"):
        old.unlink()
    pngs = [o["data"]["image/png"] for o in outputs if "image/png" in o.get("data", {})]
    written = []
    for i, data in enumerate(pngs):
        target = out / f"{i:02d}.png"
        target.write_bytes(base64.b64decode(data))
        written.append(target)
    return written


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path):
    nb = nbformat.read(path, as_version=4)
    # A notebook that shows the shared corpus says so in its metadata; it
    # runs without the corpus too, the cells that read it skipped
    # (test_notebook_runs_without_the_corpus).
    meta = nb.metadata.get("macroscope", {})
    needs = meta.get("needs_corpus")
    if needs and not SHARED.exists():
        pytest.skip(f"{path.name} reads {needs}, which is not at {SHARED}: run without it below")
    # A notebook that generates its trace with SimGrid says so too, and
    # where the trace is kept once generated.
    simgrid = meta.get("needs_simgrid")
    cache = meta.get("simgrid_cache")
    if simgrid and not shutil.which("smpicc") and not (cache and list(REPO.glob(cache))):
        pytest.skip(f"{path.name}: {simgrid}, and SimGrid's smpicc is not installed")
    NotebookClient(nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    saved = save_figures(path, outputs)
    assert not [o for o in outputs if o.output_type == "error"]
    assert saved, "the notebook shows no figure"
    assert all(p.read_bytes().startswith(b"\x89PNG") for p in saved)


CORPUS_NOTEBOOKS = [p for p in NOTEBOOKS if nbformat.read(p, as_version=4).metadata.get("macroscope", {}).get("needs_corpus")]


@pytest.mark.parametrize("path", CORPUS_NOTEBOOKS, ids=[p.name for p in CORPUS_NOTEBOOKS])
def test_notebook_runs_without_the_corpus(path, tmp_path):
    """As from a clone with no corpus beside it: the notebook, copied into a
    tree where ../../shared is absent, runs to the end; each cell that reads
    the corpus prints that it is skipped and why, and every other cell runs."""
    (tmp_path / "repo" / "notebooks").mkdir(parents=True)
    (tmp_path / "repo" / "testdata").symlink_to(REPO / "testdata")
    (tmp_path / "repo" / "core").symlink_to(REPO / "core")  # the HTA oracle table compare.ipynb reads
    nb = nbformat.read(path, as_version=4)
    marked = [c for c in nb.cells if c.cell_type == "code" and c.source.startswith("# reads the corpus")]
    assert marked, f"{path.name} needs the corpus but marks none of its cells"
    cwd = tmp_path / "repo" / "notebooks"
    NotebookClient(nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}).execute()
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        assert not [o for o in cell.outputs if o.output_type == "error"], cell.source
        text = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
        if cell.source.startswith("# reads the corpus"):
            assert text == "skipped: this cell reads the trace corpus, which is not at ../../shared/traces\n", cell.source
        else:
            assert "skipped: this cell" not in text, cell.source
    said = ["".join(o.get("text", "") for o in c.outputs) for c in nb.cells if c.cell_type == "code"]
    assert "The trace corpus is not at ../../shared/traces: the cells that read it are skipped.\n" in said
