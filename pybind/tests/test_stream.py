"""ms.read_micro: the microscopic model built while reading, equal to
read(...).micro(...) cell by cell."""

import os
import pathlib

import pandas as pd
import pytest

import macroscope as ms

from conftest import ONE_HOST, REPO, SHARED, check_interrupt_cancels, shared

OPTIONS = [
    {},
    {"slices": 7, "depth": 0},
    {"slices": 30, "metric": "state_average_duration"},
    {"slices": 20, "metric": "event_count"},
    {"slices": 20, "metric": "variable_average"},
]


def pajé_corpus():
    if not SHARED.exists():
        return []
    out = []
    for p in sorted(SHARED.rglob("*.trace")):
        with open(p, "rb") as f:
            if b"EventDef" in f.read(4096):
                out.append(p)
    return out


def same(a: ms.MicroModel, b: ms.MicroModel):
    pd.testing.assert_frame_equal(a.to_pandas(), b.to_pandas(), check_exact=True)
    assert (a.slices, a.start, a.end, a.states, a.resources, a.metric) == \
        (b.slices, b.start, b.end, b.states, b.resources, b.metric)


def outcome(fn):
    """The model fn builds, or the error it raises (type and message)."""
    try:
        return fn(), None
    except ms.MacroscopeError as exc:
        return None, (type(exc), str(exc))


@pytest.mark.parametrize("path", pajé_corpus(), ids=lambda p: p.name)
def test_equal_to_the_model_of_the_trace_on_the_pajé_corpus(path):
    trace, read_error = outcome(lambda: ms.read(path))
    for opts in OPTIONS:
        got, error = outcome(lambda: ms.read_micro(path, progress=False, **opts))
        if read_error is not None:
            assert error == read_error
            continue
        want, want_error = outcome(lambda: trace.micro(**opts))
        assert error == want_error, opts
        if want is not None:
            same(got, want)
            info = got.trace_info
            assert info["passes"] == 1 and not info["in_memory"]
            s = trace._summary
            assert {k: info[k] for k in ("containers", "states", "variables", "links", "events", "start", "end")} == \
                {k: s[k] for k in ("containers", "states", "variables", "links", "events", "start", "end")}


@pytest.mark.parametrize("rel", [
    ("tracer-stencil4d", "stencil4d-otf", "traces-32"),
    ("hta", "tests", "data", "trace_diff", "control", "control.json.gz"),
    ("paraver", "test", "cutter", "qsort_beo3.prv"),
    ("pajeng", "oracles", "032_pj_dump_simu_mardi_trace.out"),
])
def test_equal_on_other_formats(rel):
    path = shared(*rel)
    fmt = "pjdump" if rel[-1].endswith(".out") else None
    trace = ms.read(path, format=fmt)
    for opts in OPTIONS[:3]:
        want, want_error = outcome(lambda: trace.micro(**opts))
        got, error = outcome(lambda: ms.read_micro(path, format=fmt, progress=False, **opts))
        assert error == want_error
        if want is not None:
            same(got, want)
            info = got.trace_info
            if "json" in rel[-1]:  # parsed whole by its reader: kept in memory
                assert info["passes"] == 1 and info["in_memory"]
            elif rel[0] == "tracer-stencil4d":  # OTF2: its timestamps alone give the window
                assert info["passes"] == 1 and not info["in_memory"]
            else:  # the window is found by a first read (pj_dump's tables:
                # states in the order they start, nested ones after)
                assert info["passes"] == 2 and not info["in_memory"]


def test_windows_types_and_aggregation(jacobi, bundled_trace):
    cases = [dict(start=1.0, end=5.5), dict(start=2.0), dict(end=3.0), dict(start=-1.0, end=20.0),
             dict(state_types=["MPI_STATE"], slices=50), dict(types="MIGRATE_STATE"), dict(depth=1),
             dict(metric="event_count", end=4.0)]
    for opts in cases:
        got, error = outcome(lambda: ms.read_micro(bundled_trace, progress=False, **opts))
        want, want_error = outcome(lambda: jacobi.micro(**opts))
        assert error == want_error, opts
        if want is not None:
            same(got, want)
    model, reference = ms.read_micro(bundled_trace), jacobi.micro()
    assert model.trace_info["files"] == [str(bundled_trace)] and model.trace_info["format"] == "paje"
    assert reference.trace_info is None
    pd.testing.assert_frame_equal(model.significant_p(), reference.significant_p(), check_exact=True)
    pd.testing.assert_frame_equal(model.aggregate(0.6).to_pandas(), reference.aggregate(0.6).to_pandas(),
                                  check_exact=True)
    assert repr(model) == repr(reference)
    # The moments of aggregates need the trace's states, which were not kept.
    with pytest.raises(ms.InvalidArgumentError, match="not built from a trace"):
        model.aggregate(0.6).moments()


def test_several_pajé_files(tmp_path, bundled_trace):
    text = bundled_trace.read_text().splitlines(keepends=True)
    cut = max(i for i, line in enumerate(text) if line.startswith("%")) + 10
    head, tail = tmp_path / "head.trace", tmp_path / "events.trace"
    head.write_text("".join(text[:cut]))
    tail.write_text("".join(text[cut:]))
    model = ms.read_micro([head, tail], slices=40)
    same(model, ms.read_paje([head, tail]).micro(slices=40))
    assert model.trace_info["passes"] == 1
    with pytest.raises(ms.InvalidArgumentError):
        ms.read_micro([head, tail], format="otf2")
    with pytest.raises(ms.InvalidArgumentError):
        ms.read_micro([])


def test_wrong_guess_of_the_window_means_a_second_read(tmp_path, bundled_trace):
    # The file destroys the root container before its last dated line: the
    # trace ends there, not at the date of the last line, which is the
    # guess. The read notices and reads again with the right window.
    path = tmp_path / "root-destroyed.trace"
    path.write_text(bundled_trace.read_text() + "7 9.0 0 0\n11 9.5 2 1 compute\n")
    trace = ms.read(path)
    assert trace.end == 9.0
    model = ms.read_micro(path, slices=25)
    same(model, trace.micro(slices=25))
    assert model.trace_info["passes"] == 2
    assert model.end == 9.0


def test_progress_callback(big_trace):
    calls = []
    model = ms.read_micro(big_trace, slices=10, progress=lambda done, total: calls.append((done, total)))
    size = os.path.getsize(big_trace)
    assert calls[-1] == (size, size)  # one read: the window comes from the file's ends
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)
    assert model.trace_info["states"] == 1_000_000
    # Each state lasts 1 ms, values in turn: a third of every slice each.
    df = model.to_pandas()
    assert df.groupby("state", observed=True).proportion.sum().tolist() == pytest.approx([10 / 3] * 3)


def test_progress_of_two_reads():
    # A Paraver file is read twice (a first read finds the window): the
    # bytes count twice.
    archive = shared("paraver", "test", "cutter", "qsort_beo3.prv")
    calls = []
    model = ms.read_micro(archive, progress=lambda done, total: calls.append((done, total)))
    done, total = calls[-1]
    assert done == total > 0 and model.trace_info["passes"] == 2
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)


def test_progress_bar(capfd, bundled_trace):
    pytest.importorskip("tqdm")
    ms.read_micro(bundled_trace, progress=True)
    err = capfd.readouterr().err
    assert "jacobi32.trace" in err and "100%" in err
    ms.read_micro(bundled_trace, progress=False)
    assert capfd.readouterr().err == ""


@pytest.fixture(scope="module")
def huge_trace(tmp_path_factory):
    """A Pajé trace of about 100 MB, which takes the reader some time."""
    path = tmp_path_factory.mktemp("huge") / "huge.trace"
    with open(path, "w") as f:
        f.write(ONE_HOST)
        for block in range(400):
            f.write("".join(f"3 {block}.{i:06d} S h1 s{i % 3}\n" for i in range(10_000)))
    return path


def test_interrupt_cancels_the_read(monkeypatch, huge_trace):
    check_interrupt_cancels(monkeypatch, ms.read_micro, "StartReadMicro", "Model", huge_trace)


def test_errors(tmp_path, bundled_trace):
    bad = tmp_path / "bad.trace"
    bad.write_text(ONE_HOST + "3 1.0 S h1 a\n" * 3 + "9 2.0 S h1 x\n")
    with pytest.raises(ms.TraceFormatError) as info:
        ms.read_micro(bad, progress=False)
    assert info.value.line == 30 and info.value.file == str(bad)
    broken = tmp_path / "broken.trace"
    broken.write_text(ONE_HOST + "3 1.0 S h1 a\n3 zero S h1 b\n")
    with pytest.raises(ms.TraceFormatError) as info:
        ms.read_micro(broken, progress=False)
    assert info.value.line == 28 and "zero" in str(info.value)
    with pytest.raises(ms.TraceNotFoundError):
        ms.read_micro(tmp_path / "missing.trace")
    with pytest.raises(ms.InvalidArgumentError, match="slices"):
        ms.read_micro(bundled_trace, slices=0)
    with pytest.raises(ms.InvalidArgumentError, match="metric"):
        ms.read_micro(bundled_trace, metric="speed")
    with pytest.raises(ms.InvalidArgumentError, match="window"):
        ms.read_micro(bundled_trace, start=5.0, end=1.0)
    with pytest.raises(ms.InvalidArgumentError, match="start"):
        ms.read_micro(bundled_trace, start=float("nan"))
    with pytest.raises(ms.InvalidArgumentError, match="not an option of the paje reader"):
        ms.read_micro(bundled_trace, view="cpu")
    with pytest.raises(ms.InvalidArgumentError, match="format"):
        ms.read_micro(bundled_trace, format="xml")
    with pytest.raises(TypeError, match="bogus"):
        ms.read_micro(bundled_trace, bogus=1)
    with pytest.raises(ms.InvalidArgumentError, match="no state type"):
        ms.read_micro(bundled_trace, state_types=["nope"])


def test_strict_reading(mardi_path, mardi):
    same(ms.read_micro(mardi_path, strict=True, metric="variable_average"),
         ms.read_paje(mardi_path, strict=True).micro(metric="variable_average"))


def test_overview_command(tmp_path, bundled_trace, jacobi, capfd):
    # The command line writes to the process's standard output.
    from macroscope.__main__ import main

    assert main(["overview", str(bundled_trace), "--out", str(tmp_path), "--slices", "40"]) == 0
    out = capfd.readouterr().out
    assert (f"trace      {bundled_trace}: {len(jacobi.containers)} containers, {len(jacobi.states)} states, "
            f"{len(jacobi.variables)} variables, {len(jacobi.links)} links, {len(jacobi.events)} events, "
            f"{jacobi.start:g}-{jacobi.end:g} s\n") in out
    assert pathlib.Path(tmp_path, "overview.png").stat().st_size > 0


def test_starvz_directory():
    # pj_dump's tables give the states in the order they start, nested ones
    # after their enclosing state: streamed too (two reads, nothing kept).
    # StarPU's dates are milliseconds: the run lasts 2.36 s.
    path = shared("starvz", "inst", "extdata", "lu_trace")
    with pytest.warns(UserWarning, match="skipped 3 row"):
        trace = ms.read(path, skip_inverted=True)
    for opts in ({}, {"metric": "state_average_duration", "slices": 37}, {"start": 0.1, "depth": 1}):
        with pytest.warns(UserWarning, match="skipped 3 row"):
            model = ms.read_micro(path, skip_inverted=True, progress=False, **opts)
        same(model, trace.micro(**opts))
        assert model.trace_info["passes"] == 2 and not model.trace_info["in_memory"]


RUNS = [REPO / "testdata" / "compare" / f"jacobi32-{name}.trace.gz" for name in ("base", "slowhost", "slowlink")]


def _runs_equal(a, b):
    assert a.states == b.states and a.resources == b.resources and (a.start, a.end) == (b.start, b.end)
    pd.testing.assert_frame_equal(a.to_pandas(), b.to_pandas(), check_exact=True)


def test_runs_read_a_file_at_a_time_give_the_one_stream_model():
    # The files of runs are the parts of the read: each read into its
    # partial model, the trace never held whole, the model the one
    # stream's bit for bit.
    by_parts = ms.read_micro(RUNS, runs=True, slices=40)
    stream = ms.read_micro(RUNS, runs=True, slices=40, parallel=False)
    assert by_parts.trace_info["parallel"] == 3 and not by_parts.trace_info["in_memory"]
    assert "parallel" not in stream.trace_info
    _runs_equal(by_parts, stream)
    assert by_parts.trace_info["states"] == stream.trace_info["states"]
    with pytest.raises(ms.InvalidArgumentError, match="parallel"):
        ms.read_micro(RUNS, runs=True, parallel="no")


def test_kineto_runs_read_a_file_at_a_time_give_the_one_stream_model():
    data = ("hta", "tests", "data", "trace_diff")
    files = [shared(*data, "control", "control.json.gz"), shared(*data, "test", "test.json.gz")]
    by_parts = ms.read_micro(files, slices=50)
    stream = ms.read_micro(files, slices=50, parallel=False)
    assert by_parts.trace_info["parallel"] == 2 and not by_parts.trace_info["in_memory"]
    assert stream.trace_info["in_memory"]  # a JSON file has no window to read beforehand
    _runs_equal(by_parts, stream)
