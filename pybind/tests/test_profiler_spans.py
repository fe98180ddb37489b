"""The first view of a PyTorch profiler trace shows the program's work:
the default model leaves out the spans the profiler draws around it (its
recording, the steps, Kineto's copies of annotations on the GPU streams),
says so, and loses none of their time (docs/aggregation.md)."""
from __future__ import annotations

import gzip
import json
import subprocess
import sys
import warnings

import pytest

import macroscope as ms

from conftest import shared

NCCL = ("hta", "tests", "data", "nccl_parser_config", "nccl_data.json.gz")


def _union(intervals):
    """The length of the union of (start, end) intervals."""
    total, end = 0.0, float("-inf")
    for a, b in sorted(intervals):
        if a > end:
            total, end = total + b - a, b
        elif b > end:
            total, end = total + b - end, b
    return total


def _json_spans(path):
    """From the JSON, parsed here apart from the reader: the recording
    spans' time and the copies of annotations' (the union of their
    intervals on each thread), in seconds."""
    with gzip.open(path, "rt") as f:
        events = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
    out = {}
    for cat, role in (("Trace", "recording"), ("gpu_user_annotation", "device annotation")):
        by_thread = {}
        for e in events:
            if e.get("cat") == cat:
                by_thread.setdefault((str(e["pid"]), str(e["tid"])), []).append((e["ts"], e["ts"] + e["dur"]))
        out[role] = sum(_union(iv) for iv in by_thread.values()) * 1e-6
    return out


def _time(model):
    df = model.to_pandas()
    return float(df["duration"].sum())


def test_default_model_leaves_the_profiler_spans_out():
    path = shared(*NCCL)
    trace = ms.read(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # more states than a figure colours apart
        model = trace.micro(slices=20)
        every = trace.micro(slices=20, profiler_spans=True)
        streamed = ms.read_micro(path, slices=20)
    assert not any(s.startswith(("ProfilerStep", "PyTorch Profiler")) for s in model.states)
    assert "ProfilerStep" in every.states and "PyTorch Profiler (0)" in every.states
    assert (model.resources, every.resources) == (5, 8)
    left = model.left_out
    assert list(left.role) == ["recording", "step", "device annotation"]
    assert left.attrs["resources"] == 3
    assert left.names[0] == ["PyTorch Profiler (0)"]
    oracle = _json_spans(path)
    seconds = dict(zip(left.role, left.seconds))
    for role, want in oracle.items():
        assert seconds[role] == pytest.approx(want, abs=1e-7), role  # µs in the JSON, ns in the trace
    # No time lost: the model's and what it left out make the model of every span.
    assert _time(model) + left.seconds.sum() == pytest.approx(_time(every), rel=1e-12)
    assert every.left_out.empty
    # Said once, with the keyword that keeps them.
    assert "of profiler spans left out (profiler_spans=True keeps them)" in repr(model)
    assert "profiler_spans=True keeps them" in model._repr_html_()
    assert "left out" not in repr(every)
    # Read while modelling, the same model.
    assert streamed.states == model.states
    assert streamed.left_out.equals(left)


def test_cli_says_what_it_left_out(tmp_path):
    path = shared(*NCCL)
    run = subprocess.run([sys.executable, "-m", "macroscope", "overview", "--slices", "20", "--figure", "",
                          "--table", "", str(path)], capture_output=True, text=True, check=True)
    lines = [line for line in (run.stdout + run.stderr).splitlines() if line.startswith("left out")]
    assert len(lines) == 1 and lines[0].endswith("--profiler-spans keeps them"), lines


def test_profiler_spans_is_checked():
    path = shared(*NCCL)
    with pytest.raises(ms.InvalidArgumentError, match="profiler_spans"):
        ms.read_micro(path, profiler_spans="yes")


def test_compare_models_leave_the_spans_out():
    path = shared(*NCCL)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        states = ms.compare([path, path], slices=10, progress=False).model.states
        every = ms.compare([path, path], slices=10, progress=False, profiler_spans=True).model.states
    assert "ProfilerStep" not in states and "PyTorch Profiler (0)" not in states
    assert "ProfilerStep" in every and "PyTorch Profiler (0)" in every


def test_only_profiler_spans_names_the_keyword(tmp_path):
    path = tmp_path / "only.json"
    path.write_text(json.dumps({"traceEvents": [
        {"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": "PyTorch Profiler",
         "ts": 0, "dur": 100, "args": {"Op count": 0}},
        {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 10, "dur": 50}]}))
    with pytest.raises(ms.InvalidArgumentError, match="every state of the trace is a span") as e:
        ms.read_micro(path)
    assert e.value.param == "profiler_spans"
    assert ms.read_micro(path, profiler_spans=True).resources == 2


def test_another_producers_trace_category_is_work(tmp_path):
    """Only Kineto's own spans are its recording: category Trace, process
    "Spans", a thread named after the span. Another producer's iterations
    in category Trace are states of the model, whether or not Kineto's
    span is in the file; their time is all kept (by hand: 3 x 20 µs)."""
    path = tmp_path / "iterations.json"
    iterations = [{"ph": "X", "cat": "Trace", "name": f"Iteration ({i})", "pid": 1, "tid": 1,
                   "ts": 30 * i, "dur": 20} for i in range(3)]
    kineto = {"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": "PyTorch Profiler",
              "ts": 0, "dur": 100, "args": {"Op count": 0}}
    path.write_text(json.dumps({"traceEvents": iterations + [kineto]}))
    trace = ms.read(str(path))
    model = trace.micro(slices=1)
    assert sorted(model.states) == ["Iteration (0)", "Iteration (1)", "Iteration (2)"]
    assert abs(_time(model) - 60e-6) < 1e-12
    lo = model.left_out
    assert list(lo["role"]) == ["recording"] and list(lo["names"]) == [["PyTorch Profiler (0)"]]
    assert abs(lo["seconds"].sum() - 100e-6) < 1e-12
    assert sorted(trace.micro(slices=1, profiler_spans=True).states) == [
        "Iteration (0)", "Iteration (1)", "Iteration (2)", "PyTorch Profiler (0)"]
    # Without Kineto's span: the iterations alone, nothing left out.
    path.write_text(json.dumps({"traceEvents": iterations}))
    model = ms.read_micro(str(path), slices=1)
    assert sorted(model.states) == ["Iteration (0)", "Iteration (1)", "Iteration (2)"]
    assert abs(_time(model) - 60e-6) < 1e-12
    assert model.left_out.empty


def test_compare_says_once_what_its_runs_left_out(tmp_path):
    """A comparison says once, for all its runs, what their models left
    out (each kind's time summed over the runs; by hand from the events:
    the recording's thread holds nothing else, a step's own time is its
    length less its operator's) and the keyword that keeps them."""
    def run(name, rec, step, op):
        path = tmp_path / name
        path.write_text(json.dumps({"traceEvents": [
            {"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": "PyTorch Profiler",
             "ts": 0, "dur": rec, "args": {"Op count": 0}},
            {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 10, "dur": step},
            {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 20, "dur": op}]}))
        return path

    runs = [run("a.json", 100, 80, 50), run("b.json", 200, 180, 100)]
    cmp = ms.compare(runs, slices=10, progress=False)
    assert cmp.left_out == (
        "2 of the 2 runs, their times summed: left out of the model, as spans around the program's work rather than "
        "work: the profiler's recording (\"PyTorch Profiler (0)\"), 0.0003 s; the steps (\"ProfilerStep\"), 0.00011 s; "
        "2 resources that held only them are not rows; profiler_spans=True keeps them")
    assert repr(cmp).endswith(", profiler spans left out (profiler_spans=True keeps them)>")
    every = ms.compare(runs, slices=10, progress=False, profiler_spans=True)
    assert every.left_out == "" and "profiler spans" not in repr(every)
