"""Traces as their producers write them, which a reader once refused or
emptied, open through the door and give a model, an aggregation and a
figure: SMPI with tracing/smpi/group and with display-sizes (Pajé), a Go
execution trace cut short after whole generations, an OTF2 archive
written by python3-otf2 with threads, RMA and metrics. Counts are those of
the files (see the Go tests next to each fixture)."""

import shutil
import subprocess
import warnings

import pytest

import macroscope as ms
from conftest import REPO


def _through_the_door(path, states, links, notes):
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        trace = ms.read(path)
        model = ms.read_micro(path, slices=20)
    assert len(trace.states) == states and len(trace.links) == links
    assert len(trace.warnings) == notes
    for m in (trace.micro(slices=20), model):
        agg = m.aggregate(0.5)
        assert len(agg) > 0
        assert agg.plot().to_bytes("png")[:4] == b"\x89PNG"
    return trace


def test_smpi_grouped_ranks():
    trace = _through_the_door(REPO / "core" / "readers" / "paje" / "testdata" / "smpi-group.trace", 116, 64, 1)
    assert "tracing/smpi/group" in trace.warnings[0]


def test_smpi_display_sizes():
    trace = _through_the_door(REPO / "core" / "readers" / "paje" / "testdata" / "smpi-sizes.trace", 116, 64, 2)
    assert trace.warnings[0].startswith("46 event lines lack trailing user fields")


def test_go_trace_cut_after_whole_generations(tmp_path):
    data = (REPO / "core" / "readers" / "gotrace" / "testdata" / "threegen.trace").read_bytes()
    cut = tmp_path / "killed.gotrace"
    cut.write_bytes(data[:15000])
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        trace = ms.read(cut)
    assert trace.format == "gotrace" and not trace.complete
    assert len(trace.links) == 101  # goroutine creations, as go tool trace -d=parsed
    _through_the_door(cut, len(trace.states), 101, 1)


def test_otf2_written_by_python3_otf2(tmp_path):
    python = shutil.which("python3", path="/usr/bin")
    if python is None or subprocess.run([python, "-c", "import otf2"], capture_output=True).returncode:
        pytest.skip("no /usr/bin/python3 with the otf2 module (Debian: python3-otf2)")
    archive = tmp_path / "arch"
    subprocess.run([python, str(REPO / "core" / "readers" / "otf2" / "testdata" / "gen" / "features.py"), str(archive)], check=True)
    trace = _through_the_door(archive / "traces.otf2", 160, 12, 0)
    assert len(trace.events) == 180


def test_devtools_cpu_profile():
    """A Chrome 141 DevTools recording whose only timeline is V8's CPU
    profile (Profile and ProfileChunk events): was "no duration", now its
    samples are the stacks of the renderer's main thread; (program) lasts
    what the samples give it (53,210 us, an independent reading of the
    samples in count_model.py's way)."""
    path = REPO / "core" / "readers" / "chrome" / "testdata" / "producers" / "speedscope" / "chrome141_no_arg_data.json"
    trace = _through_the_door(path, 63, 0, 1)
    prof = trace.states[trace.states.container.astype(str) == "Renderer/CrRendererMain (CPU profile)"]
    assert len(prof) == 63
    program = prof[prof.value == "(program)"]
    assert (program.end_ns - program.start_ns).sum() == 53_210_000


def test_v8_cpuprofile_file():
    """A V8 CPU profile file (.cpuprofile, Chrome 65's JavaScript profiler;
    Node's --cpu-prof writes the same): found by its extension, its frames
    last as speedscope's snapshot of the file has them."""
    path = REPO / "core" / "readers" / "chrome" / "testdata" / "producers" / "speedscope" / "simple.cpuprofile"
    trace = _through_the_door(path, 6, 0, 0)
    assert trace.format == "chrome"
    us = {(r.value, r.depth): (r.end_ns - r.start_ns) // 1000 for r in trace.states.itertuples()}
    assert us[("(anonymous)", 0)] == 34345 and us[("a", 1)] == 33285
    assert us[("b", 2)] == 17002 and us[("c", 2)] == 16283
