"""Traces: reading files and looking at their content."""

from __future__ import annotations

import functools
import math
import os

from . import _bridge
from ._errors import InvalidArgumentError
from ._model import MicroModel


class Trace:
    """An execution trace held in memory by the Go core.

    Obtain one with :func:`read_paje`. Tables of its content are available
    as pandas DataFrames (``containers``, ``states``) and the microscopic
    model of seed 000 with :meth:`micro`.
    """

    def __init__(self, handle):
        self._h = handle

    @functools.cached_property
    def _summary(self) -> dict:
        return _bridge.call_json(self._h.Summary)

    @property
    def start(self) -> float:
        """First instant of the trace, in seconds."""
        return self._summary["start"]

    @property
    def end(self) -> float:
        """Last instant of the trace, in seconds."""
        return self._summary["end"]

    @property
    def files(self) -> list[str]:
        return list(self._summary["files"])

    def _frame(self, name):
        return _bridge.to_pandas(_bridge.table(self._h.Table, name))

    @functools.cached_property
    def containers(self):
        """DataFrame of the containers (the resource hierarchy), depth first:
        path, name, type, parent, depth, start, end (s), start_ns, end_ns."""
        return self._frame("containers")

    @functools.cached_property
    def states(self):
        """DataFrame of the state intervals: container (path), type, value,
        start, end, duration (s), depth (nesting level) and the exact
        start_ns, end_ns."""
        return self._frame("states")

    def micro(self, slices: int = 100, start: float | None = None, end: float | None = None,
              state_types: list[str] | None = None, depth: int | None = None) -> MicroModel:
        """Build the microscopic model: for every resource, each of
        ``slices`` equal time slices of [start, end] (seconds; default the
        whole trace) and every state, the proportion of the slice spent in
        the state.

        ``state_types`` restricts the model to these state types (default
        all); resources are the containers that can hold them. ``depth``
        selects how nested states count: None (innermost: the top of the
        stack, so a resource is in one state at a time) or a nesting level
        (0 = the outermost states only).
        """
        for name, v in (("start", start), ("end", end)):
            if v is not None and not math.isfinite(v):
                raise InvalidArgumentError(f"{name}: must be a finite number of seconds, got {v}", param=name)
        if isinstance(state_types, str):
            state_types = [state_types]
        opts = _bridge.options(slices=int(slices), start=start, end=end, state_types=state_types, depth=depth)
        return MicroModel(_bridge.call(self._h.Micro, opts))

    def __repr__(self) -> str:
        s = self._summary
        return (f"<macroscope.Trace {', '.join(os.path.basename(f) for f in s['files'])}: "
                f"{s['containers']} containers, {s['states']} states, {s['variables']} variables, "
                f"{s['links']} links, {s['events']} events, {s['start']:g}-{s['end']:g} s>")


def read_paje(path: str | os.PathLike) -> Trace:
    """Read a Pajé trace file (SimGrid, StarPU, PajeNG...)."""
    return Trace(_bridge.call(_bridge.native.ReadPaje, os.fspath(path)))
