"""The README's Python examples run on the bundled traces, statement by
statement, as a newcomer would paste them from a clone (files they write
go to a temporary directory). Examples that need a file the repository
does not hold (an Nsight export, a Go execution trace, PyTorch runs, a
Dask cluster) are listed below with the reason; the test fails when one of
them leaves the README, so the list does not outlive what it excuses."""

from __future__ import annotations

import os
import pathlib

import pytest
from markdown_examples import python_statements

ROOT = pathlib.Path(__file__).resolve().parents[2]

# Statements that cannot run from a clone, by a fragment of their text.
NOT_BUNDLED = {
    'ms.read("report.sqlite")': "an Nsight Systems export, not in the repository",
    'ms.read("fib.gotrace")': "a Go execution trace, not in the repository",
    "ms.compare(paths,": "eight repetitions of two runs, not in the repository",
    "cmp.ops(": "PyTorch (Kineto) runs, not in the repository",
    "ms.compare_series(": "a series of runs and a Dask client",
    'stragglers(iteration="ProfilerStep*")': "a PyTorch (Kineto) trace's steps; the bundled trace has none",
}

# Files the examples name that the repository holds under another name.
STAND_INS = {
    '["run-4.prv", "run-8.prv", "run-16.prv"]':
        '["testdata/epoch/epoch_1proc.prv.zst", "testdata/epoch/epoch_2proc.prv.zst", '
        '"testdata/epoch/epoch_4proc.prv.zst"]',
    '"big.otf2"': '"testdata/jacobi32.trace"',
}


def readme_statements() -> list[str]:
    out = python_statements(ROOT / "README.md")
    assert len(out) >= 3, "the README's Python examples were not found"
    return out


def test_the_list_of_examples_not_run_is_current():
    statements = readme_statements()
    for fragment in list(NOT_BUNDLED) + list(STAND_INS):
        assert any(fragment in s for s in statements), f"{fragment!r} is no longer in the README: drop it here"


def test_readme_examples_run(tmp_path, monkeypatch):
    pytest.importorskip("anywidget")  # the README's explore() lines
    (tmp_path / "testdata").symlink_to(ROOT / "testdata")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    ran = 0
    for statement in readme_statements():
        if any(fragment in statement for fragment in NOT_BUNDLED):
            continue
        for name, stand_in in STAND_INS.items():
            statement = statement.replace(name, stand_in)
        try:
            exec(compile(statement, "README.md", "exec"), namespace)
        except Exception as exc:  # name the example that failed
            raise AssertionError(f"README example failed: {statement}\n{type(exc).__name__}: {exc}") from exc
        ran += 1
    assert ran >= 40
    # What the examples wrote, from the bundled traces.
    for name in ("overview.pdf", "treemap.png", "moments.png", "kaleido.png", "topology.png", "compare.png"):
        assert (tmp_path / name).stat().st_size > 1000, name
    assert os.path.getsize(tmp_path / "overview.pdf") > 0


def test_bundled_overview_shows_what_its_caption_says(jacobi):
    """The README's figure (`make demo`, docs/jacobi32-overview.png) at the
    recommended level: reductions (aggregates mostly PMPI_Allreduce) before
    the checkpoint and at the end; from 4.5 to 8.4 s one aggregate of every
    rank, 78% computation and 11% reductions; the next finer level draws
    the five reductions there (iterations 34, 39, ..., 54 end at 5.05 ...
    7.70 s, as rank 0's PMPI_Allreduce states say)."""
    caption = (ROOT / "README.md").read_text().split("![Overview of the bundled trace]")[1].split("## ")[0]
    for claim in ("p = 0.558, 577 aggregates", "up to 2.7 s and at the end", "78% computation, 11% reductions",
                  "p = 0.555, 804 aggregates", "five reductions"):
        assert claim in " ".join(caption.split()), claim
    model = jacobi.micro(slices=100)
    levels = model.significant_p()
    rec = levels[levels.recommended].iloc[0]
    assert rec.aggregates == 577 and round((rec.p_low + rec.p_high) / 2, 3) == 0.558
    agg = model.aggregate((rec.p_low + rec.p_high) / 2).to_pandas()
    reductions = agg[agg["mode"] == "PMPI_Allreduce"]
    before = sorted({round(s, 1) for s in reductions.start[reductions.end < 2.7]})
    assert len(before) >= 4 and (reductions.start > 8.3).any()
    after = agg[(agg.end > 5.0) & (agg.start < 7.8)]
    assert len(after) == 1 and after.leaves.iloc[0] == 32
    row = after.iloc[0]
    assert (round(row.start, 1), round(row.end, 1)) == (4.5, 8.4)
    assert (round(row["prop:Compute"], 2), round(row["prop:PMPI_Allreduce"], 2)) == (0.78, 0.11)
    finer = levels[levels.p_high <= rec.p_low].sort_values("p_high").iloc[-1]
    assert finer.aggregates == 804 and round((finer.p_low + finer.p_high) / 2, 3) == 0.555
    fine = model.aggregate((finer.p_low + finer.p_high) / 2).to_pandas()
    shown = fine[(fine["mode"] == "PMPI_Allreduce") & (fine.end > 4.6) & (fine.start < 8.3)]
    s = jacobi.states
    ends = s[(s.value == "PMPI_Allreduce") & (s.container.astype(str).str.endswith("/rank-0"))].end
    late = [e for e in ends if 4.6 < e < 8.3]
    assert len(late) == 5
    for e in late:  # each reduction lies in an aggregate drawn as one
        assert ((shown.start <= e) & (shown.end >= e - 0.09)).any(), e
