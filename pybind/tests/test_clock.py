"""One clock: every time a person reads counts from the trace's start,
every window argument too; the tables keep the trace's own instants."""

import json

import numpy as np
import pytest

import macroscope as ms

# A Kineto-like trace on Unix time (microseconds): 1661203462.584767 s.
T0_US = 1661203462584767


@pytest.fixture
def kineto(tmp_path):
    """Two threads busy in "a" and "b" for 8 ms from T0: a on [0, 4) ms,
    b on [4, 8) ms of thread 1, a on [2, 6) ms of thread 2."""
    events = [
        {"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": T0_US, "dur": 4000},
        {"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": T0_US + 4000, "dur": 4000},
        {"ph": "X", "name": "a", "pid": 1, "tid": 2, "ts": T0_US + 2000, "dur": 4000},
    ]
    path = tmp_path / "kineto.json"
    path.write_text(json.dumps({"traceEvents": events}))
    return path


def test_reprs_read_from_the_start(kineto):
    t = ms.read(kineto)
    assert t.origin == pytest.approx(1661203462.584767)
    assert t.duration == pytest.approx(0.008)
    assert repr(t).endswith("0-0.008 s (from 1661203462.584767 s)>")
    m = t.micro(slices=4)
    assert repr(m).endswith("4 slices x 2 states, 0-0.008 s (from 1661203462.584767 s)>")
    # The tables keep the trace's clock.
    assert t.states.start_ns.min() == T0_US * 1000
    assert m.start == t.start and m.origin == t.start


def test_window_from_the_start(kineto):
    t = ms.read(kineto)
    m = t.micro(slices=2, start=0.002, end=0.006)
    assert repr(m).endswith("0.002-0.006 s (from 1661203462.584767 s)>")
    assert m._info["start_ns"] == (T0_US + 2000) * 1000
    assert m._info["end_ns"] == (T0_US + 6000) * 1000
    # The same window given on the trace's own clock (it cannot be taken
    # for seconds from the start: those would lie far past the end), to
    # the float's precision (a few hundred ns at 1.6e9 s).
    same = t.micro(slices=2, start=1661203462.586767, end=1661203462.590767)
    assert abs(same._info["start_ns"] - m._info["start_ns"]) < 1000
    assert abs(same._info["end_ns"] - m._info["end_ns"]) < 1000
    # (The tables list the values that are not zero.)
    key = ["resource", "slice", "state"]
    both = same.to_pandas()[key + ["proportion"]].merge(m.to_pandas()[key + ["proportion"]], on=key,
                                                        how="outer").fillna(0)
    np.testing.assert_allclose(both.proportion_x, both.proportion_y, atol=1e-3)
    # Thread 1 is in a over [2, 4) ms and in b over [4, 6) ms.
    df = m.to_pandas()
    one = df[df.resource == "1/1"].set_index(["slice", "state"]).proportion
    assert one[(0, "a")] == 1 and one[(1, "b")] == 1


@pytest.mark.parametrize("call", [
    lambda t: t.micro(slices=2, start=5, end=6),
    lambda t: t.micro(slices=2, start=0.006, end=0.002),
    lambda t: t.moments(start=5, end=6),
    lambda t: t.topology(start=1, end=2),
    lambda t: t.plot_gantt(start=1661203400, end=1661203401),
])
def test_window_outside_is_an_error(kineto, call):
    t = ms.read(kineto)
    # An empty window is refused before the trace is looked at (below).
    with pytest.raises(ms.InvalidArgumentError, match=r"window .* s( \(from the trace's start\))? is (outside|empty)"):
        call(t)


def test_stream_window_outside_is_an_error(kineto):
    with pytest.raises(ms.InvalidArgumentError, match="outside the trace, which lasts 0.008 s"):
        ms.read_micro(kineto, slices=2, start=1, end=2)
    m = ms.read_micro(kineto, slices=2, start=0.002, end=0.006)
    assert m._info["start_ns"] == (T0_US + 2000) * 1000


def test_moments_m1_shown_from_the_start(kineto):
    mo = ms.read(kineto).moments()
    assert mo.origin == pytest.approx(1661203462.584767)
    assert repr(mo).endswith("window 0-0.008 s (from 1661203462.584767 s)>")
    # m1 stays on the trace's clock in the table: thread 1 is busy over
    # [0, 8) ms, its mean instant 4 ms after the start.
    row = mo.to_pandas().set_index("resource").m1
    one = row[[r for r in row.index if r.endswith("1")][0]]
    assert one - mo.origin == pytest.approx(0.004, abs=1e-6)


def test_html_reprs_read_from_the_start(kineto):
    t = ms.read(kineto)
    h = t._repr_html_()
    assert "<strong>macroscope.Trace kineto.json</strong>" in h
    assert "<th style='text-align:left;padding-right:1em'>time</th><td style='text-align:left'>0-0.008 s (from 1661203462.584767 s)</td>" in h
    assert "3 containers, 3 states, 0 variables, 0 links, 0 events" in h
    m = t.micro(slices=4, start=0.002)
    h = m._repr_html_()
    assert "2 resources x 4 slices x 2 states (state_duration)" in h and "0.002-0.008 s (from 1661203462.584767 s)" in h
    assert "<td style='text-align:left'>a, b</td>" in h


def test_moments_of_a_file_window_from_the_start(kineto):
    """ms.moments(path) reads its window from the trace's start too; a
    window outside the trace is an argument error, not the file's."""
    mo = ms.moments(kineto, start=0.002, end=0.006)
    assert (mo._info["start_ns"], mo._info["end_ns"]) == ((T0_US + 2000) * 1000, (T0_US + 6000) * 1000)
    # Thread 1 is busy over the whole window: 4 ms.
    m0 = mo.to_pandas().set_index("resource").m0
    assert m0["1/1"] == pytest.approx(0.004, abs=1e-12)
    with pytest.raises(ms.InvalidArgumentError, match="outside the trace, which lasts 0.008 s"):
        ms.moments(kineto, start=1, end=2)


def test_moments_of_a_file_gaps_only(kineto):
    """The options are checked whole before the read (busy=[] with gaps:
    the time in no state counts)."""
    mo = ms.moments(kineto, busy=[], gaps=True, start=0.002)
    m0 = mo.to_pandas().set_index("resource").m0
    # Thread 2 is in no state over [6, 8) ms of the window [2, 8) ms.
    assert m0["1/2"] == pytest.approx(0.002, abs=1e-12) and m0["1/1"] == 0


def test_html_repr_of_an_aggregation(kineto):
    """An aggregation shows its summary, its model's window from the
    trace's start, and its overview figure inline."""
    import base64

    agg = ms.read(kineto).micro(slices=4, start=0.002).aggregate(0.5)
    h = agg._repr_html_()
    assert "<strong>macroscope.Aggregation</strong>" in h
    assert f"<td style='text-align:left'>{len(agg)} (spatiotemporal, p = 0.5)</td>" in h
    assert "2 resources x 4 slices x 2 states" in h and "0.002-0.008 s (from 1661203462.584767 s)" in h
    png = base64.b64decode(h.split("data:image/png;base64,")[1].split("'")[0])
    assert png == agg._repr_png_()


@pytest.mark.parametrize("start, end", [(3, 1), (2, 2), (1661203462.59, 1661203462.589)])
def test_an_empty_window_is_refused_before_any_read(kineto, start, end):
    """Both bounds count the same way (from the start, or both on the
    trace's clock), so a window whose end does not come after its start is
    empty whatever the trace: every door says so before reading a byte."""
    read = []
    for call in (lambda: ms.read_micro(kineto, slices=4, start=start, end=end, progress=lambda d, t: read.append(d)),
                 lambda: ms.moments(kineto, start=start, end=end, progress=lambda d, t: read.append(d)),
                 lambda: ms.read(kineto).micro(slices=4, start=start, end=end),
                 lambda: ms.read(kineto).moments(start=start, end=end)):
        with pytest.raises(ms.InvalidArgumentError, match=f"window: the window {start}-{end} s is empty") as e:
            call()
        assert e.value.param == "window"  # as the Go side names it
    assert read == []
