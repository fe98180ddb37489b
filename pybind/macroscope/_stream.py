"""The microscopic model built while reading a trace file."""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence

from . import _bridge, _reading
from ._errors import InvalidArgumentError
from ._model import MicroModel, model_options
from ._readers import _OPTIONS


def read_micro(path: str | os.PathLike | Sequence[str | os.PathLike], slices: int = 100,
               start: float | None = None, end: float | None = None, format: str | None = None, *,
               progress=None, state_types: list[str] | None = None, depth: int | None = None,
               metric: str = "state_duration", types: list[str] | None = None, key: str = "name",
               memory_budget: int | None = None, **options) -> MicroModel:
    """Build the microscopic model of the trace file at ``path`` while
    reading it: the same :class:`MicroModel`, cell for cell, as
    ``read(path, format, **options).micro(slices, start, end, ...)``, without
    keeping the trace's events, so memory grows with the model (resources x
    slices x states), not with the length of the trace.

    ``slices``, ``start``, ``end`` (seconds; default the trace's first and
    last instants), ``state_types``, ``depth``, ``metric``, ``types`` and ``key`` are
    those of :meth:`macroscope.Trace.micro`; ``format`` and ``options``
    (``strict``, ``view``, ``skip_inverted``...) those of
    :func:`macroscope.read`. A list of paths is read as one Pajé trace, as
    :func:`macroscope.read_paje` does.

    The slices depend on the window: when ``start`` or ``end`` is left to
    the trace, a Pajé file is read once (its first and last dates are read
    from its two ends beforehand, and checked by the read), other formats
    twice (a first read finds the window). ``model.trace_info`` tells the
    counts of what was read and the number of reads.

    ``progress`` is that of :func:`macroscope.read` (a tqdm bar for long
    reads, ``False`` for none, or a callable ``f(done, total)`` in bytes;
    a file read twice counts twice). Ctrl-C or Jupyter's stop button stops
    the reader cleanly.

    ``memory_budget`` bounds the model's cells, as for
    :meth:`macroscope.Trace.micro`; ``strict=True`` raises on an incomplete
    trace instead of warning (see :func:`macroscope.read`).

    Raises :class:`TraceFormatError` (with ``file`` and ``line``) on
    malformed input, :class:`TraceNotFoundError` for a missing file and
    :class:`InvalidArgumentError` for bad options.
    """
    known = {name for names in _OPTIONS.values() for name in names}
    for name in options:
        if name not in known:
            raise TypeError(f"read_micro() got an unexpected keyword argument {name!r}")
    options = dict(options)
    if isinstance(path, (str, os.PathLike)):
        paths = [path]
    else:
        paths = list(path)
        if not paths:
            raise InvalidArgumentError("path: no file given", param="path")
        if format not in (None, "paje"):
            raise InvalidArgumentError(f"path: a list of files is read as one Pajé trace, not as {format}",
                                       param="path")
        format = "paje"
        if len(paths) > 1:
            options["paths"] = [os.fspath(p) for p in paths[1:]]
    if format is not None:
        if not isinstance(format, str):
            raise InvalidArgumentError(f"format: must be a format name, got {format!r}", param="format")
        options["format"] = format
    handle = _reading.run(paths[0], options, progress, start=_bridge.native.StartReadMicro,
                          args=(model_options(slices, start, end, state_types, depth, metric, types, key, memory_budget),),
                          result="Model")
    model = MicroModel(handle)
    for message in (model.trace_info or {}).get("warnings") or ():
        warnings.warn(message, UserWarning, stacklevel=2)
    return model
