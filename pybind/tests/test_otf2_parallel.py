"""ms.read_micro on an OTF2 archive read on all cores (parallel=True, the
default for an archive of several location groups): the same model, cell
for cell, as the single stream (parallel=False) and as the trace in
memory, and the same summary, the messages between location groups
included."""

import os
import pathlib
import subprocess
import sys

import pandas as pd
import pytest

import macroscope as ms

from conftest import shared

REPO = pathlib.Path(__file__).resolve().parents[2]

OPTIONS = [
    {},
    {"slices": 7, "depth": 0},
    {"slices": 30, "metric": "state_average_duration"},
    {"slices": 20, "metric": "event_count"},
    {"slices": 20, "metric": "variable_average"},
]

ARCHIVES = [
    ("tracer-stencil4d", "stencil4d-otf", "traces-64", "traces.otf2"),  # 64 location groups
    ("pipit", "tests", "data", "ping-pong-otf2", "traces.otf2"),  # MPI messages between 2 groups
    ("pipit", "tests", "data", "ping-pong-otf2-papi", "traces.otf2"),  # metrics
    ("fastotf2", "sample-traces", "simple-mi300-example-run", "traces.otf2"),  # GPU streams
]


def outcome(fn):
    try:
        return fn(), None
    except ms.MacroscopeError as exc:
        return None, (type(exc), str(exc))


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    """A 64-rank archive written by the OTF2 library's Python bindings
    (bench/otf2_synth.py; python3-otf2, for the system's Python)."""
    for python in (sys.executable, "/usr/bin/python3"):
        if os.path.exists(python) and subprocess.run([python, "-c", "import otf2"], capture_output=True).returncode == 0:
            break
    else:
        pytest.skip("the otf2 Python package (python3-otf2) is not installed")
    out = tmp_path_factory.mktemp("otf2") / "archive"
    subprocess.run([python, os.fspath(REPO / "bench" / "otf2_synth.py"), "40000", os.fspath(out), "--ranks", "64"],
                   check=True, capture_output=True)
    return out / "traces.otf2"


def test_synthetic(synthetic):
    check(synthetic)


@pytest.mark.parametrize("rel", ARCHIVES, ids=lambda r: r[0] + "/" + r[-2])
def test_parallel_equals_the_stream(rel):
    check(shared(*rel))


def check(path):
    trace = ms.read(path)
    for opts in OPTIONS:
        par, par_error = outcome(lambda: ms.read_micro(path, progress=False, parallel=True, **opts))
        seq, seq_error = outcome(lambda: ms.read_micro(path, progress=False, parallel=False, **opts))
        mem, mem_error = outcome(lambda: trace.micro(**opts))
        assert par_error == seq_error == mem_error, opts
        if seq is None:
            continue
        for want in (seq, mem):
            pd.testing.assert_frame_equal(par.to_pandas(), want.to_pandas(), check_exact=True)
            assert (par.slices, par.start, par.end, par.states, par.resources, par.metric) == \
                (want.slices, want.start, want.end, want.states, want.resources, want.metric)
        p, s = par.trace_info, seq.trace_info
        assert p["parallel"] > 1 and "parallel" not in s
        assert p["passes"] == s["passes"] == 1  # the window from the clock properties
        for k in ("containers", "states", "variables", "links", "events", "start", "end", "files", "format",
                  "skipped", "warnings"):
            assert p[k] == s[k], k
        default = ms.read_micro(path, progress=False, **opts)
        assert default.trace_info == p
        pd.testing.assert_frame_equal(default.to_pandas(), par.to_pandas(), check_exact=True)


def test_default_and_bad_option():
    path = shared(*ARCHIVES[0])
    model = ms.read_micro(path, progress=False)
    assert model.trace_info["parallel"] == 64  # a part per location group by default
    assert model.trace_info["links"] == 1024  # otf2-print: 1,024 MPI_SEND, all matched
    assert ms.read_micro(path, progress=False, parallel=False).trace_info.get("parallel") is None
    with pytest.raises(ms.InvalidArgumentError, match="parallel"):
        ms.read_micro(path, progress=False, parallel="yes")


def test_progress_counts_every_group():
    # The bytes of every location's event file, read once (the window
    # comes from the timestamps).
    anchor = shared(*ARCHIVES[0])
    size = sum(f.stat().st_size for f in (anchor.parent / "traces").glob("*.evt"))
    calls = []
    model = ms.read_micro(anchor, parallel=True, progress=lambda done, total: calls.append((done, total)))
    assert model.trace_info["parallel"] == 64
    assert calls[-1] == (size, size)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)
