"""The first view of an ML profile says where the steps are: a model
carries the program's steps (PyTorch's ProfilerStep#N and their NVTX,
roctx and XSpace kin) whether it leaves their time out or not, the
overview and the explorer mark where each starts; a series says what its
runs' models left out; a model that keeps the profiler's spans colours
every state as the default model does."""
from __future__ import annotations

import gzip
import json
import pickle
import re

import pytest

import macroscope as ms

from conftest import shared

DF_INDEX = ("hta", "tests", "data", "df_index_resolver", "df_index_resolver.json.gz")


def _json_steps(path):
    """ProfilerStep#N on the host, from the JSON parsed here apart from the
    reader: {N: (first ts, last ts + dur)} in µs on the trace's clock
    (the GPU streams' copies, category gpu_user_annotation, are not
    steps)."""
    with gzip.open(path, "rt") as f:
        events = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
    out = {}
    for e in events:
        m = re.fullmatch(r"ProfilerStep#(\d+)", e["name"])
        if m and e.get("cat") != "gpu_user_annotation":
            n, a, b = int(m[1]), float(e["ts"]), float(e["ts"]) + float(e.get("dur", 0))
            lo, hi = out.get(n, (a, b))
            out[n] = (min(lo, a), max(hi, b))
    return out


def _check_steps(model, want):
    """The model's steps are the JSON's, to the µs (a float64 of an epoch's
    µs keeps a quarter of one), in order of start."""
    origin_us = int(model._info["origin_ns"]) / 1e3
    steps = model.steps
    assert list(steps.columns) == ["step", "label", "start", "end"]
    assert sorted(steps.step) == sorted(want)
    assert list(steps.start) == sorted(steps.start)
    for row in steps.itertuples():
        a, b = want[row.step]
        assert row.label == f"step {row.step}"
        assert abs(row.start * 1e6 + origin_us - a) < 1 and abs(row.end * 1e6 + origin_us - b) < 1


def test_steps_of_a_kineto_trace_on_every_path(tmp_path):
    path = shared(*DF_INDEX)
    want = _json_steps(path)
    assert len(want) >= 2
    tr = ms.read(path)
    default = tr.micro(slices=40)
    kept = tr.micro(slices=40, profiler_spans=True)
    streamed = ms.read_micro(path, slices=40, progress=False)
    ms.to_parquet_dataset(path, tmp_path / "ds")
    dataset = ms.read_micro(tmp_path / "ds", slices=40, progress=False)
    for m in (default, kept, streamed, dataset, pickle.loads(pickle.dumps(default))):
        _check_steps(m, want)
    # A window keeps the steps it overlaps, a zoom (Model.Window) too.
    first = default.steps.iloc[1]
    sub = tr.micro(slices=10, start=float(first.start), end=float(first.end))
    assert list(sub.steps.step) == [s for s in default.steps.step
                                    if default.steps.set_index("step").loc[s, "end"] > first.start
                                    and default.steps.set_index("step").loc[s, "start"] < first.end]
    dt = (default._info["end_ns"] - default._info["start_ns"]) / 1e9 / 40
    k = int(first.start // dt)
    z = default.window(k, k)
    assert first.step in set(z.steps.step)
    assert len(z.steps) < len(default.steps)


def test_a_trace_without_steps_has_none():
    m = ms.read(shared("pajeng", "traces", "simu-mardi.trace")).micro(slices=10)
    assert m.steps.empty and list(m.steps.columns) == ["step", "label", "start", "end"]


def test_explorer_gets_the_figures_marks():
    """The explorer draws the static figure's marks (plots.StepMarks): the
    start of each step, the end of the last, in seconds from the trace's
    start."""
    pytest.importorskip("anywidget")
    from macroscope.widgets import ModelExplorer

    m = ms.read(shared(*DF_INDEX)).micro(slices=40)
    w = ModelExplorer(m)
    marks = w.view["steps"]
    starts = list(m.steps.start)
    assert [mk["t"] for mk in marks] == starts + [max(m.steps.end)]
    assert [mk["label"] for mk in marks] == list(m.steps.label) + [""]


def test_series_says_what_it_left_out():
    """compare_series reports what each run's model left out, as compare
    does: a column of seconds per kind of span, the same as the run's own
    model's left_out, and one sentence for all the runs."""
    path = shared(*DF_INDEX)
    own = ms.read_micro(path, slices=20, progress=False).left_out.set_index("role").seconds
    df = ms.compare_series([path, path], slices=20, analyses=False, permutations=0, progress=False)
    for role, seconds in own.items():
        assert list(df[f"left_out:{role}"]) == pytest.approx([seconds, seconds], rel=1e-12)
    assert df.attrs["left_out"].startswith("2 of the 2 runs")
    assert "profiler_spans=True keeps them" in df.attrs["left_out"]
    kept = ms.compare_series([path, path], slices=20, analyses=False, permutations=0, progress=False,
                             profiler_spans=True)
    assert not [c for c in kept.columns if c.startswith("left_out:")] and kept.attrs["left_out"] == ""


def test_run_model_carries_left_out():
    path = shared(*DF_INDEX)
    cmp = ms.compare([path, path], slices=20, progress=False)
    own = ms.read_micro(path, slices=20, progress=False).left_out
    for r in (0, 1):
        lo = cmp.run_model(r).left_out
        assert list(lo.role) == list(own.role)
        assert list(lo.seconds) == pytest.approx(list(own.seconds), rel=1e-12)


def test_kept_spans_take_the_default_models_colours():
    """profiler_spans=True lists the spans after the work: every state of
    the default model has the same colour in both models' explorers, and
    the spans colours of their own."""
    pytest.importorskip("anywidget")
    from macroscope.widgets import ModelExplorer

    tr = ms.read(shared(*DF_INDEX))
    for key in ("group", "category"):
        default, kept = tr.micro(slices=20, key=key), tr.micro(slices=20, key=key, profiler_spans=True)
        assert kept.states[:len(default.states)] == default.states
        assert len(kept.states) > len(default.states)
        a = dict(zip(ModelExplorer(default).states, ModelExplorer(default).palette))
        b = dict(zip(ModelExplorer(kept).states, ModelExplorer(kept).palette))
        # With more states than a figure colours apart, the smallest are
        # "other" (grey) by time share, which the spans' time changes.
        both = [s for s in a if s in b and "#969696" not in (a[s].lower(), b[s].lower())]
        assert len(both) >= 5
        assert {s: b[s] for s in both} == {s: a[s] for s in both}
