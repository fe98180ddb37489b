"""Long computations while Python stays responsive.

A sweep of the significant levels of a large model runs for minutes. The
Go core runs it on a goroutine of its own; Python polls it (each poll
waits in Go with the GIL released), shows a progress bar (the part of
[0, 1] in p already settled) and, when the user interrupts (Ctrl-C,
Jupyter's stop button), raises the cancel flag the Go loop checks before
every solve, waits for it to stop, and lets the interruption through. A
canceled computation keeps nothing.
"""

from __future__ import annotations

import importlib.util

from . import _bridge, _reading


def run(work, desc: str, progress=None):
    """Wait for the native ``work`` (a ``Work``), reporting its progress as
    ``progress`` asks (as :func:`macroscope.read` takes it: None for a
    tqdm bar when it lasts over a second, True, False, or a callable
    ``f(done, total)`` in thousandths), and raise its error if it failed."""
    _reading.wait(work, _reporter(progress, desc), lambda: _bridge.call(work.Err))


def compute(start, *args, result: str):
    """Start the native work ``start(*args)``, wait for it as :func:`run`
    does (no progress shown), and return its ``result`` (the name of the
    Work's method that gives it: "MicroModel", "Image"...). Ctrl-C cancels
    the Go computation, waits for it to stop, and goes through as
    KeyboardInterrupt."""
    work = _bridge.call(start, *args)
    run(work, "", progress=False)
    return _bridge.call(getattr(work, result))


def table(start, *args):
    """Start the native work ``start(*args)`` that converts a table
    (``StartTable``, ``StartCells``...), wait for it as :func:`compute`
    does, and import the table it made (zero-copy). Ctrl-C stops the
    conversion of millions of rows as KeyboardInterrupt."""
    work = _bridge.call(start, *args)
    run(work, "", progress=False)
    return _bridge.table(work.Export)


class _Bar(_reading._Bar):
    """A tqdm bar of the part of the work done, in percent."""

    def _make(self, total):
        kwargs = dict(total=total, desc=self._desc, delay=self._delay,
                      bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}<{remaining}")
        # As for reads: tqdm (optional) imported when the bar is drawn, the
        # notebook widget when ipywidgets is there, text otherwise.
        if importlib.util.find_spec("ipywidgets") is not None:
            try:
                from tqdm.auto import tqdm

                return tqdm(**kwargs)
            except Exception:
                pass
        from tqdm import tqdm

        return tqdm(**kwargs)


def _reporter(progress, desc):
    report = _reading._reporter(progress, desc)
    if isinstance(report, _reading._Bar):
        return _Bar(desc, report._delay)
    return report
