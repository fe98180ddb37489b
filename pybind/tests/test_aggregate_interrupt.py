"""A single optimum of a large model shows progress and stops on Ctrl-C:
the solve runs in Go on a goroutine of its own, polled from Python, and
checks the cancel flag at every node of the hierarchy."""

import numpy as np
import pandas as pd
import pytest

import macroscope as ms
from macroscope import _bridge


@pytest.fixture(scope="module")
def model():
    """2,000 resources (20 x 10 x 10) x 200 slices x 4 states of random
    intervals: one spatiotemporal optimum takes seconds (2,221 nodes, 20,100
    intervals each)."""
    rng = np.random.default_rng(11)
    rows = []
    for i in range(2000):
        t = 0.0
        while t < 1.0:
            d = float(rng.exponential(0.01))
            rows.append((f"a{i // 100}/b{i // 10 % 10}/c{i % 10}", f"s{rng.integers(4)}", t, min(t + d, 1.0)))
            t += d
    trace = ms.from_pandas(pd.DataFrame(rows, columns=["resource", "state", "start", "end"]))
    return trace.micro(slices=200)


def test_interrupt_stops_aggregate(monkeypatch, model):
    from macroscope import _reading

    # Poll every millisecond, so that the first report comes mid-solve
    # however fast the machine solves.
    monkeypatch.setattr(_reading, "_POLL_MS", 1)
    started = []
    native = model._h.StartAggregate

    class Spy:
        def __getattr__(self, name):
            return getattr(model._h, name)

        def StartAggregate(self, p, opts):
            started.append(native(p, opts))
            return started[-1]

    monkeypatch.setattr(model, "_h", Spy())
    reports = []

    def interrupt(done, total):
        reports.append((done, total))
        raise KeyboardInterrupt  # what Ctrl-C raises in the polling loop

    with pytest.raises(KeyboardInterrupt):
        model.aggregate(0.5, progress=interrupt)
    work = started[0]
    assert work.Wait(0)  # the Go solve has stopped...
    with pytest.raises(ms.MacroscopeError, match="canceled"):
        _bridge.call(work.Err)  # ...because it was canceled
    with pytest.raises(ms.MacroscopeError, match="canceled"):
        _bridge.call(work.Aggregation)
    assert len(reports) == 1 and reports[0][0] < reports[0][1] == 1000
    monkeypatch.undo()

    # The same optimum, solved to the end afterwards, with its progress up
    # to 1000/1000 (the interrupted one stopped short of it, above).
    calls = []
    agg = model.aggregate(0.5, progress=lambda d, t: calls.append((d, t)))
    assert calls[-1] == (1000, 1000)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)
    # Identical to the synchronous solve (no progress, no polling).
    import json

    from macroscope._options import engine_options

    sync = json.loads(_bridge.call(model._h.Aggregate, 0.5, engine_options("spatiotemporal", True, None, None)).Info())
    assert (len(agg), agg.gain, agg.loss, agg.pic) == (sync["aggregates"], sync["gain"], sync["loss"], sync["pic"])
