"""The options of the computations that several doors share, checked and
encoded for the Go core.

A microscopic model is built from a trace in memory (:meth:`Trace.micro`)
or while reading a file (:func:`macroscope.read_micro`); moments are
computed for a trace, an aggregation or while reading a file
(:func:`macroscope.moments`). Each is checked here, once, so that every
door says the same about the same mistake.
"""

from __future__ import annotations

import decimal
import json
import math
import numbers

from . import _bridge
from ._errors import InvalidArgumentError


def model_options(slices, start, end, state_types, depth, metric, types, key=None, memory_budget=None,
                  profiler_spans=False) -> str:
    """The JSON options of a microscopic model, checked (Trace.micro and
    read_micro take the same)."""
    for name, v in (("start", start), ("end", end)):
        if v is not None and not math.isfinite(v):
            raise InvalidArgumentError(f"{name}: must be a finite number of seconds, got {v}", param=name)
    _check_window(start, end)
    if not isinstance(profiler_spans, bool):
        raise InvalidArgumentError(f"profiler_spans: must be True or False, got {profiler_spans!r}",
                                   param="profiler_spans")
    if isinstance(state_types, str):
        state_types = [state_types]
    if isinstance(types, str):
        types = [types]
    return _bridge.options(slices=int(slices), start=start, end=end, state_types=state_types, depth=depth,
                           metric=metric, types=types, key=key, memory_budget=_bridge.memory_budget(memory_budget),
                           profiler_spans=profiler_spans)


def moments_options(busy, idle, by, state_types, nesting, gaps, start=None, end=None) -> str:
    """The JSON options of moments of utilization, checked (see the
    spellings of the busy states in :mod:`macroscope._moments`)."""
    if not isinstance(by, str):
        raise InvalidArgumentError(f"by: must be a string, got {by!r}", param="by")
    if not isinstance(nesting, str):
        raise InvalidArgumentError(f"nesting: must be innermost or union, got {nesting!r}", param="nesting")
    if not isinstance(gaps, bool):
        raise InvalidArgumentError(f"gaps: must be True or False, got {gaps!r}", param="gaps")
    start, end = _instant("start", start), _instant("end", end)
    _check_window(start, end)
    return _bridge.options(**_busy(busy, idle), by=by, state_types=_names("state_types", state_types),
                           nesting=nesting, gaps=gaps, start=start, end=end)


def _check_window(start, end):
    """An empty window is an error before any read: both bounds count the
    same way (from the trace's start, or both on its clock), so end must
    come after start whatever the trace."""
    if start is None or end is None:
        return
    try:
        empty = decimal.Decimal(str(end)) <= decimal.Decimal(str(start))
    except decimal.InvalidOperation:
        return  # a bad decimal string: the Go side names it
    if empty:
        raise InvalidArgumentError(f"window: the window {start}-{end} s is empty: end must come after start",
                                   param="window")


def _names(param, v) -> list[str] | None:
    """A list of state (or state type) names: None, a name, or a list."""
    if v is None:
        return None
    if isinstance(v, str):
        return [v]
    if isinstance(v, (list, tuple, set, frozenset)) and all(isinstance(x, str) for x in v):
        return sorted(v) if isinstance(v, (set, frozenset)) else list(v)
    raise InvalidArgumentError(f"{param}: must be a state name or a list of names, got {v!r}", param=param)


def _busy(busy, idle) -> dict:
    """Translate the spellings of the busy states into busy=[...] (only
    these count) or idle=[...] (all but these count)."""
    if isinstance(busy, dict):
        if set(busy) != {"all_but"}:
            raise InvalidArgumentError(f'busy: a dict must be {{"all_but": [names]}}, got {busy!r}', param="busy")
        if idle is not None:
            raise InvalidArgumentError("busy: give the busy states or the idle ones (idle=...), not both",
                                       param="busy")
        return {"idle": _names("busy", busy["all_but"])}
    busy, idle = _names("busy", busy), _names("idle", idle)
    if busy is not None and idle is not None:
        raise InvalidArgumentError("busy: give the busy states or the idle ones (idle=...), not both", param="busy")
    return {"busy": busy, "idle": idle}


def _instant(param, v):
    """A time in seconds for the Go side: a number, or a decimal string
    read exactly (for nanoseconds on a clock near 1e9 s)."""
    if v is None or isinstance(v, str):
        return v
    if isinstance(v, numbers.Integral) and not isinstance(v, bool):
        return int(v)
    if isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(v):
        return float(v)
    raise InvalidArgumentError(f"{param}: must be a finite number of seconds or a decimal string, got {v!r}",
                               param=param)


_KINDS = ("spatiotemporal", "spatial", "temporal")


def engine_options(kind, normalize, gain, window, ties="finest", entities=None) -> str:
    """The JSON options of an aggregation engine (MicroModel.aggregate and
    every search over p take the same), checked."""
    if kind not in _KINDS:
        raise InvalidArgumentError(f"kind: must be one of {', '.join(_KINDS)}, got {kind!r}", param="kind")
    if window is not None:
        try:
            first, last = (int(x) for x in window)
        except (TypeError, ValueError):
            raise InvalidArgumentError(f"window: must be a pair of slice indices, got {window!r}",
                                       param="window") from None
        window = [first, last]
    return _bridge.options(kind=kind, normalize=bool(normalize), gain=gain, window=window, ties=ties,
                           entities=entities)


def significant_options(threshold, method, normalize, recommend, kind, gain, window, ties="finest",
                        entities=None) -> str:
    """The engine's options and those of the search for significant values
    of p (MicroModel.significant, the knee, the overview explorer)."""
    opts = json.loads(engine_options(kind, normalize, gain, window, ties, entities))
    opts.update(method=method, threshold=float(threshold), recommend=recommend)
    return json.dumps(opts)
