"""The notebooks run from top to bottom without error."""

import pathlib

import nbformat
import pytest
from nbclient import NotebookClient

from conftest import SHARED

NOTEBOOKS = sorted((pathlib.Path(__file__).resolve().parents[2] / "notebooks").rglob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path):
    nb = nbformat.read(path, as_version=4)
    # A notebook that shows the shared corpus says so in its metadata.
    needs = nb.metadata.get("macroscope", {}).get("needs_corpus")
    if needs and not SHARED.exists():
        pytest.skip(f"{path.name} reads {needs}, which is not at {SHARED}")
    NotebookClient(nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs), "the notebook shows no figure"
