"""Long computations show progress and stop on Ctrl-C: the significant-p
search runs in Go on a goroutine of its own, polled from Python."""

import numpy as np
import pandas as pd
import pytest

import macroscope as ms
from macroscope import _bridge


@pytest.fixture(scope="module")
def large_model():
    """1,000 resources (10 x 10 x 10) x 100 slices x 4 states of random
    intervals: every search of its levels takes hundreds of solves."""
    rng = np.random.default_rng(7)
    rows = []
    for i in range(1000):
        t = 0.0
        while t < 1.0:
            d = float(rng.exponential(0.02))
            rows.append((f"a{i // 100}/b{i // 10 % 10}/c{i % 10}", f"s{rng.integers(4)}", t, min(t + d, 1.0)))
            t += d
    trace = ms.from_pandas(pd.DataFrame(rows, columns=["resource", "state", "start", "end"]))
    return trace.micro(slices=100)


def test_interrupt_stops_significant_p(monkeypatch, large_model):
    started = []
    native = large_model._h.StartSignificant

    class Spy:
        def __getattr__(self, name):
            return getattr(large_model._h, name)

        def StartSignificant(self, opts):
            started.append(native(opts))
            return started[-1]

    monkeypatch.setattr(large_model, "_h", Spy())
    reports = []

    def interrupt(done, total):
        reports.append((done, total))
        raise KeyboardInterrupt  # what Ctrl-C raises in the polling loop

    with pytest.raises(KeyboardInterrupt):
        large_model.significant_p(threshold=0, progress=interrupt)
    work = started[0]
    assert work.Wait(0)  # the Go search has stopped...
    with pytest.raises(ms.MacroscopeError, match="canceled"):
        _bridge.call(work.Err)  # ...because it was canceled
    assert len(reports) == 1 and reports[0][0] < reports[0][1] == 1000
    monkeypatch.undo()
    # Nothing partial was kept: asking again searches anew (a kept result
    # would come back at once, at 100%), and stops again on Ctrl-C.
    reports.clear()
    with pytest.raises(KeyboardInterrupt):
        large_model.significant_p(threshold=0, progress=interrupt)
    assert len(reports) == 1 and reports[0][0] < 1000


def test_progress_of_a_search(capfd, jacobi):
    model = jacobi.micro(slices=30)
    calls = []
    levels = model.significant_p(threshold=0, progress=lambda d, t: calls.append((d, t)))
    assert calls[-1] == (1000, 1000)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)
    assert levels.p_low.iloc[0] == 0 and levels.p_high.iloc[-1] == 1
    # Kept: asking again is immediate, and says it is done.
    calls.clear()
    model.significant_p(threshold=0, progress=lambda d, t: calls.append((d, t)))
    assert calls == [(1000, 1000)]
    pytest.importorskip("tqdm")
    model.significant_p(threshold=1e-2, method="dichotomy", progress=True)
    err = capfd.readouterr().err
    assert "significant p" in err and "100%" in err


def test_interrupt_stops_the_topology_layout():
    # A long layout of Grid'5000's 4,732 nodes (20,000 iterations that
    # never converge: the default layout ends in about 3 s, which a loaded
    # machine could finish before the first report): Ctrl-C (raised by the
    # progress callback at its first report) stops the Go layout at once,
    # which keeps valid positions.
    import time

    from conftest import shared

    topo = ms.read(shared("pajeng", "traces", "g5k.trace")).topology()
    reports = []

    def interrupt(done, total):
        reports.append(done)
        raise KeyboardInterrupt

    began = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        topo.layout(iterations=20_000, tolerance=1e-300, progress=interrupt)
    assert time.monotonic() - began < 10
    assert len(reports) == 1 and reports[0] < 1000
    xy = topo.nodes[["x", "y"]].to_numpy()
    assert len(xy) == 4732 and np.isfinite(xy).all()
