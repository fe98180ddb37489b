"""Ctrl-C stops the long computations on a trace in memory: the model,
the Gantt figure, the call tree and its radial layout each run in Go on a
goroutine of their own, polled from Python; KeyboardInterrupt cancels the
Go work, waits for it to stop and goes through, and the next call works.

The interruption is raised at the first poll (what Ctrl-C raises in the
polling loop), so that no timing decides the test: the Go work is large
enough (640,000 states) to be running then on any machine."""

import numpy as np
import pandas as pd
import pytest

import macroscope as ms
from macroscope import _bridge, _reading, _work

RESOURCES, CALLS = 64, 5_000


@pytest.fixture(scope="module")
def nested():
    """64 resources, each with 5,000 calls in a row, each call holding one
    callee for its middle half: 640,000 states, 320,000 of them nested."""
    start = np.tile(np.arange(CALLS, dtype=float), RESOURCES)
    resource = np.repeat([f"node{r // 8}/rank{r}" for r in range(RESOURCES)], CALLS)
    outer = pd.DataFrame({"resource": resource, "state": "compute", "start": start, "end": start + 1})
    inner = pd.DataFrame({"resource": resource, "state": "send", "start": start + 0.25, "end": start + 0.75})
    return ms.from_pandas(pd.concat([outer, inner], ignore_index=True))


class Interrupter:
    """Ctrl-C at the first poll of every long computation while armed;
    ``works`` are the native works started meanwhile."""

    def __init__(self, monkeypatch):
        self._mp, self.works = monkeypatch, []

    def arm(self):
        wait = _work.run

        def interrupt(done, total):
            raise KeyboardInterrupt  # what Ctrl-C raises in the polling loop

        def run(work, desc, progress=None):
            self.works.append(work)
            wait(work, desc, interrupt)

        self._mp.setattr(_reading, "_POLL_MS", 0)
        self._mp.setattr(_work, "run", run)

    def disarm(self):
        self._mp.undo()

    def assert_stopped(self):
        """The one Go work started has ended, canceled."""
        assert len(self.works) == 1
        assert self.works[0].Wait(0)
        with pytest.raises(ms.MacroscopeError, match="canceled"):
            _bridge.call(self.works[0].Err)


@pytest.fixture
def ctrl_c(monkeypatch):
    return Interrupter(monkeypatch)


def test_interrupt_stops_the_model(nested, ctrl_c):
    ctrl_c.arm()
    with pytest.raises(KeyboardInterrupt):
        nested.micro(slices=200)
    ctrl_c.assert_stopped()
    ctrl_c.disarm()
    model = nested.micro(slices=200)
    assert (model.resources, model.slices, sorted(model.states)) == (RESOURCES, 200, ["compute", "send"])


def test_interrupt_stops_the_gantt_figure(nested, ctrl_c):
    ctrl_c.arm()
    with pytest.raises(KeyboardInterrupt):
        nested.plot_gantt(width=400, height=300)  # drawn when made
    ctrl_c.assert_stopped()
    ctrl_c.disarm()
    fig = nested.plot_gantt(width=400, height=300)
    assert fig.size == (400, 300)
    # Another format is drawn when asked, and stops the same way.
    ctrl_c.works.clear()
    ctrl_c.arm()
    with pytest.raises(KeyboardInterrupt):
        fig.to_bytes("svg")
    ctrl_c.assert_stopped()
    ctrl_c.disarm()
    assert fig.to_bytes("svg").lstrip().startswith(b"<?xml")


def test_interrupt_stops_the_call_tree(nested, ctrl_c):
    ctrl_c.arm()
    with pytest.raises(KeyboardInterrupt):
        nested.call_tree()
    ctrl_c.assert_stopped()
    ctrl_c.disarm()
    tree = nested.call_tree()
    # The root, a node per call and a node per callee.
    assert (len(tree), tree.height) == (1 + RESOURCES * CALLS * 2, 3)


def test_interrupt_stops_the_layout(nested, ctrl_c):
    tree = nested.call_tree()
    ctrl_c.arm()
    with pytest.raises(KeyboardInterrupt):
        tree.layout(width=800)
    ctrl_c.assert_stopped()
    ctrl_c.disarm()
    kal = tree.layout(width=800)
    assert len(kal) > 0
    pd.testing.assert_frame_equal(kal.to_pandas(), tree.layout(width=800).to_pandas())
