"""Reading a trace while Python stays responsive.

The Go core reads on a goroutine of its own; Python polls it every tenth of
a second (each poll waits in Go with the GIL released), shows the progress
and, when the user interrupts (Ctrl-C, Jupyter's stop button), asks the
reader to stop before letting the interruption through.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from collections.abc import Callable

from . import _bridge, _parquet
from ._errors import InvalidArgumentError

_POLL_MS = 100

#: What ``progress=`` takes (see :func:`macroscope.read`): None (a tqdm bar
#: for reads over a second, in a notebook or on a terminal), True, False, or
#: a callable ``f(done, total)``.
Progress = bool | Callable[[int, int], object] | None


def run(path, options: dict, progress=None, *, start=None, args=(), result="Trace"):
    """Read the trace at ``path`` with the native reader options and return
    its native handle, reporting progress as :func:`macroscope.read`
    documents. ``start`` (default ``StartRead``) starts the native reading
    with ``path``, the options and ``args``; the handle is its ``result``
    method's."""
    report = _reporter(progress, os.path.basename(os.fspath(path)))
    start = start or _bridge.native.StartRead
    reading = _bridge.call(start, os.fspath(path), json.dumps(options), *args)
    return wait(reading, report, lambda: _bridge.call(getattr(reading, result)))


def wait(task, report, outcome):
    """Wait for the native ``task`` (a reading or another long Go work:
    Wait, Cancel, Progress), updating ``report`` (None: nothing) as it
    goes, and return ``outcome()``, its result or its error.

    Between polls, the Parquet files the task writes are written (see
    :mod:`macroscope._parquet`).

    On KeyboardInterrupt, or an exception from a progress callback, the
    task is canceled (the Go loop looks at least every megabyte or every
    solve) and waited for, so that no goroutine goes on behind the user's
    back; then the interruption goes through."""
    try:
        while not _bridge.call(task.Wait, _POLL_MS):
            _parquet.serve()
            if report is not None:
                report.update(*_progress(task))
    except BaseException:
        _bridge.call(task.Cancel)
        while not _bridge.call(task.Wait, _POLL_MS):
            _parquet.serve()
        if report is not None:
            report.close()
        raise
    try:
        out = outcome()
    except BaseException:
        if report is not None:
            report.close()
        raise
    if report is not None:
        try:
            report.finish(*_progress(task))
        except BaseException:
            # Interrupted at the very end: the task is canceled all the
            # same, so that its result reads as canceled, not as complete.
            _bridge.call(task.Cancel)
            raise
    return out


def _progress(reading) -> tuple[int, int]:
    p = _bridge.call_json(reading.Progress)
    return p["done"], p["total"]


def _reporter(progress, desc):
    """The progress display ``progress`` asks for: None (a tqdm bar if tqdm
    is installed, shown when the read lasts over a second in a notebook or on
    a terminal), True (a tqdm
    bar), False (nothing) or a callable ``f(done, total)``."""
    if progress is False:
        return None
    if callable(progress):
        return _Callback(progress)
    if progress is None or progress is True:
        # tqdm is an optional dependency: looked for only when a bar may be
        # drawn.
        try:
            import tqdm  # noqa: F401 - only checks that it is there
        except ImportError:
            if progress is None:
                return None
            raise InvalidArgumentError(
                "progress: progress=True draws a tqdm progress bar, but tqdm is not installed "
                "(pip install tqdm, or pass progress=False or a callable)", param="progress") from None
        if progress is None and not _watched():
            return None
        return _Bar(desc, delay=1.0 if progress is None else 0.0)
    raise InvalidArgumentError(f"progress: must be None, True, False or a callable, got {progress!r}",
                               param="progress")


def _watched() -> bool:
    """Whether a person watches the default bar: a notebook's kernel, or a
    standard error that is a terminal. A script whose standard error goes
    to a pipe or a log gets no bar by default: tqdm's carriage returns would
    fill the log (progress=True still draws one there)."""
    try:
        if sys.stderr is not None and sys.stderr.isatty():
            return True
    except (AttributeError, ValueError):  # a replaced or closed stream
        pass
    # In a Jupyter kernel standard error is the kernel's stream, never a
    # terminal, and tqdm.auto draws the notebook's widget.
    return "ipykernel" in sys.modules


class _Callback:
    def __init__(self, fn):
        self._fn = fn

    def update(self, done, total):
        self._fn(done, total)

    def finish(self, done, total):
        self._fn(done, total)

    def close(self):
        pass


class _Bar:
    """A tqdm bar counting input bytes: the notebook widget when available,
    text otherwise."""

    def __init__(self, desc, delay):
        self._desc, self._delay, self._bar = desc, delay, None

    def _make(self, total):
        kwargs = dict(total=total or None, desc=self._desc, unit="B", unit_scale=True, unit_divisor=1024,
                      delay=self._delay)
        # tqdm (optional, checked by _reporter) is imported when the bar is
        # drawn. tqdm.auto picks the notebook widget in Jupyter, which needs
        # ipywidgets (without it tqdm warns, then fails); text otherwise.
        if importlib.util.find_spec("ipywidgets") is not None:
            try:
                from tqdm.auto import tqdm

                return tqdm(**kwargs)
            except Exception:
                pass
        from tqdm import tqdm

        return tqdm(**kwargs)

    def update(self, done, total):
        if self._bar is None:
            self._bar = self._make(total)
        elif total and self._bar.total != total:
            self._bar.total = total
        self._bar.update(done - self._bar.n)

    def finish(self, done, total):
        self.update(done, total)
        self.close()

    def close(self):
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def is_runs(paths: list, format) -> bool:
    """Whether a list of several paths is several traces read as one, a
    run container each, rather than one Pajé trace split in files (a
    Pajé list, given as such or detected from its first file)."""
    if format is not None:
        return format != "paje"
    return _bridge.call(_bridge.native.DetectFormat, os.fspath(paths[0])) != "paje"


def inputs(path, options: dict):
    """The path to read, with ``options`` completed for a list of paths:
    several traces read as one, each under a container of its own named
    after its file (the "run_paths" option of the native reading; a
    directory of trace files of one format is read so by the Go core),
    but a list of Pajé files, which is one Pajé trace split in files (as
    :func:`macroscope.read_paje` reads it). Returns the first path, which
    names the reading."""
    if isinstance(path, (str, os.PathLike)):
        return path
    if not isinstance(path, (list, tuple)):
        raise InvalidArgumentError(f"path: must be a path or a list of paths, got {path!r}", param="path")
    paths = [os.fspath(p) if isinstance(p, (str, os.PathLike)) else p for p in path]
    if not paths or not all(isinstance(p, str) for p in paths):
        raise InvalidArgumentError(f"path: must be a path or a non-empty list of paths, got {path!r}",
                                   param="path")
    if len(paths) == 1:
        return paths[0]
    if not is_runs(paths, options.get("format")):
        options["format"] = "paje"
        options["paths"] = paths[1:]
    else:
        options["run_paths"] = paths
    return paths[0]
