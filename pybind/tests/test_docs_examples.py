"""The Python examples of the docs' pages run on the bundled traces, as a
reader pastes them from a clone (test_readme.py does the README's). A page's
blocks share one namespace, in order; pages whose examples continue a
session (an aggregation `agg`, a trace `trace`) start from the bundled
trace's. File names the examples use for a trace of the reader's are
replaced by a bundled trace of the same kind; statements that need a file
or a cluster the repository does not have are listed with the reason, and
the test fails when one leaves its page, so the list does not outlive what
it excuses. Files the examples write go to a temporary directory."""

from __future__ import annotations

import importlib.util
import pathlib

import pytest
from markdown_examples import python_statements

ROOT = pathlib.Path(__file__).resolve().parents[2]
JACOBI = '"testdata/jacobi32.trace"'
BASE = '"testdata/compare/jacobi32-base.trace.gz"'
SLOW = '"testdata/compare/jacobi32-slowhost.trace.gz"'

# The pages run, each with the names its examples use for the reader's files.
PAGES = {
    "moments.md": {'"run.trace"': JACOBI},
    "figures.md": {},
    "treemap.md": {},
    "kaleidoscope.md": {'"run.trace"': JACOBI},
    "topology.md": {},
    "widgets.md": {'"base.trace"': BASE, '"slowhost.trace"': SLOW},
    "compare.md": {'"before.trace"': BASE, '"after.trace"': SLOW},
    "readers/xplane.md": {'"logs/plugins/profile/2026_12_01_07_58_29/vm.xplane.pb"':
                          repr(str(ROOT / "core" / "readers" / "xplane" / "testdata" / "jax_cpu.xplane.pb"))},
}

# Statements that cannot run from a clone, by page and a fragment of their text.
NOT_BUNDLED = {
    ("compare.md", "ms.compare(paths,"): "eight repetitions of two runs, not in the repository",
    ("compare.md", "cmp.ops("): "PyTorch (Kineto) runs, not in the repository",
    ("compare.md", "ms.compare_series(paths,"): "a series of runs and a Dask client",
    ("kaleidoscope.md", "ms.CallTree.from_pandas(df,"): "a table of the reader's spawn tree",
    ("kaleidoscope.md", 'pd.read_csv("atree.csv")'): "StarVZ's atree.csv, in the corpus, not in the repository",
    ("topology.md", 'ms.read("g5k.trace")'): "Grid'5000's platform trace, in the corpus, not in the repository",
    ("topology.md", "topo = trace.topology()"): "of the Grid'5000 trace",
    ("topology.md", "topo.nodes"): "of the Grid'5000 trace",
    ("topology.md", "topo.edges"): "of the Grid'5000 trace",
    ("topology.md", 'topo.plot("full.png")'): "of the Grid'5000 trace",
    ("topology.md", "topo.collapse_depth(1)"): "of the Grid'5000 trace",
    ("topology.md", "AS_lyon"): "Grid'5000's Lyon site",
    ("topology.md", "lyon."): "Grid'5000's Lyon site",
    ("topology.md", "topo.collapse_optimal(0.5)"): "of the Grid'5000 trace",
    ("readers/xplane.md", 'ms.read("logs")'): "a profiler's log directory, which a run writes",
}
if importlib.util.find_spec("plotly") is None:  # not a dependency: the page says to install it
    NOT_BUNDLED[("figures.md", "plotly")] = "plotly is not installed"
    NOT_BUNDLED[("figures.md", "go.Figure(")] = "plotly is not installed"
    NOT_BUNDLED[("figures.md", "fig.update_yaxes(")] = "plotly is not installed"

# What the pages that continue a session start from.
SESSION = """
import macroscope as ms
trace = ms.read_paje("testdata/jacobi32.trace")
model = trace.micro(slices=100)
p = 0.1
agg = model.aggregate(0.56)
"""


def statements(page: str) -> list[str]:
    out = python_statements(ROOT / "docs" / page)
    assert out, f"docs/{page} has no Python example"
    return out


def test_the_list_of_examples_not_run_is_current():
    for page, fragment in NOT_BUNDLED:
        assert any(fragment in s for s in statements(page)), f"{fragment!r} is no longer in docs/{page}: drop it here"
    for page, names in PAGES.items():
        for name in names:
            assert any(name in s for s in statements(page)), f"{name} is no longer in docs/{page}: drop it here"


@pytest.mark.parametrize("page", list(PAGES))
def test_docs_examples_run(page, tmp_path, monkeypatch):
    pytest.importorskip("anywidget")  # the pages' explore() lines
    (tmp_path / "testdata").symlink_to(ROOT / "testdata")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(SESSION, "session", "exec"), namespace)
    ran = 0
    for statement in statements(page):
        if any(p == page and fragment in statement for p, fragment in NOT_BUNDLED):
            continue
        for name, stand_in in PAGES[page].items():
            statement = statement.replace(name, stand_in)
        try:
            exec(compile(statement, f"docs/{page}", "exec"), namespace)
        except Exception as exc:  # name the example that failed
            raise AssertionError(f"docs/{page} example failed: {statement}\n{type(exc).__name__}: {exc}") from exc
        ran += 1
    assert ran >= 3
    for png in tmp_path.glob("*.png"):  # the figures the examples wrote
        assert png.read_bytes().startswith(b"\x89PNG") and png.stat().st_size > 1000, png.name
