"""Moments of utilization (Godin, Quinn and Pancake): four numbers per resource that sketch
when and how evenly it was busy, computed exactly while a trace streams by.

For a resource's busy function g(t) (1 while in a busy state, else 0):

    m0 = integral of g                norm: total busy time
    m1 = (1/m0) integral of t g       mean: when the work happened
    m2 = sqrt(3 mu2)                  scaled deviation: one unbroken busy
                                      bar has m2 = m0 / 2, gaps make it larger
    m3 = 3 cbrt(mu3)                  scaled skew: > 0 when the bulk of the
                                      work comes before m1, < 0 after

with mu_k = (1/m0) integral of (t - m1)^k g. Everything is in seconds.

Which states make a resource busy:

    busy=None                every state (the default)
    busy=["compute"]         only these state values
    idle=["MPI_Wait"]        every state but these
                             (also spelled busy={"all_but": ["MPI_Wait"]})
    gaps=True                also the time a resource spends in no state
                             (busy=[], gaps=True: only that time)

Nested states (Pajé's PushState, OTF2 regions) count with the state on top
of the stack (``nesting="innermost"``), or the resource is busy while any
busy state is open (``nesting="union"``).

A busy function is 0 or 1, never a count. A container holding states of
several state types (a SimGrid host's SERVICE and PM states, a thread's MPI
and user states) is, with ``nesting="innermost"``, one resource per state
type, named "name [type]" as in the microscopic model; with
``nesting="union"``, one resource busy while any busy state of any type is
open. ``state_types=`` picks the types.
"""

from __future__ import annotations

import json
import math
import numbers
import os
import warnings

from . import _bridge, _figure
from ._errors import InvalidArgumentError
from ._tables import TableResult, incomplete_suffix

# Figures are sized in pixels at 96 dpi; the Go side works in points.
_POINTS_PER_PIXEL = 72 / 96


Figure = _figure.Figure  # the figure type every plot() returns


class Moments(TableResult):
    """Moments of utilization, one row per resource, state of a resource,
    hierarchy node or aggregate, and their moment display.

    ``to_pandas()`` has the columns

    - ``resource`` (path of the resource, by resource or state) or ``node``
      (path of the hierarchy node or aggregate; the root's path is empty
      for a trace, the model's root name for an aggregation);
    - ``aggregate_id`` (row of ``agg.to_pandas()``), ``start``, ``end``
      (its time range, s) for aggregates; ``resources`` (how many resources
      the row adds up) for nodes and aggregates; ``state`` and ``type``
      (state value and state type; ``(no state)`` for gaps) by state;
    - ``m0``, ``m1``, ``m2``, ``m3``: the moments in seconds, m1 on the
      trace clock; m1..m3 are NaN for a row without busy time;
    - ``busy_ns``: m0 exactly, in integer nanoseconds;
    - ``P0``..``P3``: the raw power sums, integral of (t - origin)^k g(t)
      dt in s^(k+1), and their ``origin`` (s; exactly: ``origin_ns``).

    Power sums add up: the moments of any set of rows are those of their
    summed power sums, once brought to a common origin (P_k about o' =
    sum over j of C(k,j) (o - o')^(k-j) P_j about o). A node's row adds its
    resources' busy functions, so its m0 is their total busy time.

    Displaying the object in Jupyter shows :meth:`plot`.
    """

    @property
    def by(self) -> str:
        """What a row stands for: resource, state, node or aggregate."""
        return self._info["by"]

    @property
    def start(self) -> float:
        """Start of the analysed window, in seconds."""
        return self._info["start"]

    @property
    def end(self) -> float:
        """End of the analysed window, in seconds."""
        return self._info["end"]

    @property
    def warnings(self) -> list[str]:
        """For moments computed while reading a file (:func:`macroscope.moments`),
        what the reader skipped, tolerated or found missing; empty otherwise."""
        return list(self._info.get("warnings") or ())

    @property
    def busy(self) -> str:
        """Which states counted as busy, in words."""
        return self._info["busy"]

    def __len__(self) -> int:
        return self._info["rows"]

    def plot(self, path: str | os.PathLike | None = None, width: int = 960, height: int | None = None,
             format: str | None = None, title: str | None = None, *, colors: dict | None = None):
        """Draw the moment display of Godin, Quinn and Pancake (Fig. 3, and Fig. 6 for many
        rows): per row, a grey bar of length m0 centred at m1 with a tick at
        m1, black bars out to m1 - m2 and m1 + m2, and a thin line from m1
        to m1 + m3. Rows follow the hierarchy top to bottom; with many rows
        each gets a pixel and neighbours merge into areas. A node's or an
        aggregate's bar shows the mean busy time of its resources (m0
        divided by their number). By state, each state has its colour.

        Sizes are in pixels; the default height gives each row 12 pixels
        when there are few and one pixel each when there are many. With
        ``path`` the image is written there (the format follows the
        extension, .png or .svg) and the path returned; otherwise the image
        bytes are returned (as a bytes object that Jupyter displays).
        """
        for name, v in (("width", width), ("height", height)):
            if v is not None and (not isinstance(v, numbers.Real) or isinstance(v, bool) or not v > 0
                                  or not math.isfinite(v)):
                raise InvalidArgumentError(f"{name}: must be a positive number of pixels, got {v!r}", param=name)
        return _figure.plot(lambda fmt: _bridge.call(self._h.Plot, _bridge.options(
            width=width * _POINTS_PER_PIXEL, height=None if height is None else height * _POINTS_PER_PIXEL,
            format=fmt, title=title, colors=_figure.color_options(colors))), path, format, title or "moments")

    def _repr_png_(self):
        return self.plot().to_bytes("png") if len(self) else None

    def explore(self, width: int = 900, height: int | None = None):
        """The moment display in a notebook, drawn by the browser (needs
        ``anywidget``; see docs/widgets.md): hovering a row shows its
        resource and m0..m3. Returns the widget."""
        from .widgets import MomentsExplorer

        return MomentsExplorer(self, width=width, height=height)

    def __repr__(self) -> str:
        i = self._info
        return (f"<macroscope.Moments by {i['by']}: {i['rows']} rows, busy = {i['busy']}, "
                f"window {i['start']:g}-{i['end']:g} s{incomplete_suffix(i)}>")


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


def _options(busy, idle, by, state_types, nesting, gaps, start=None, end=None) -> str:
    if not isinstance(by, str):
        raise InvalidArgumentError(f"by: must be a string, got {by!r}", param="by")
    if not isinstance(nesting, str):
        raise InvalidArgumentError(f"nesting: must be innermost or union, got {nesting!r}", param="nesting")
    if not isinstance(gaps, bool):
        raise InvalidArgumentError(f"gaps: must be True or False, got {gaps!r}", param="gaps")
    return _bridge.options(**_busy(busy, idle), by=by, state_types=_names("state_types", state_types),
                           nesting=nesting, gaps=gaps, start=_instant("start", start), end=_instant("end", end))


def trace_moments(trace, busy=None, by="resource", start=None, end=None, idle=None, state_types=None,
                  nesting="innermost", gaps=False) -> Moments:
    """The moments of a trace in memory: see :meth:`macroscope.Trace.moments`."""
    opts = _options(busy, idle, by, state_types, nesting, gaps, start, end)
    return Moments(_bridge.call(trace._h.Moments, opts))


def moments(path, format: str | None = None, busy=None, by: str = "resource",
            start=None, end=None, idle=None, state_types=None, nesting: str = "innermost",
            gaps: bool = False, *, client=None, progress=None, **options) -> Moments:
    """Moments of utilization of every resource of the trace file at
    ``path``, computed while reading it: the states are not kept, so
    memory grows with the number of resources, not of events.

    ``format`` names the reader (see :func:`macroscope.formats`); by
    default it is chosen by extension or content. ``options`` are the
    reader's, as :func:`macroscope.read` takes them (``sort=True`` for a
    Pajé trace not sorted by time, ``strict``, ``view``...). The other
    arguments are those of :meth:`macroscope.Trace.moments`. What the reader
    skipped or found missing is warned about, and in ``warnings``; with
    ``strict=True`` an incomplete trace raises :class:`TraceFormatError`.

    A list of paths is several traces read as one, each under a container
    of its own (as :func:`macroscope.read_micro` reads them). ``client``,
    a ``dask.distributed.Client``, computes the power sums of the parts
    (location groups of an OTF2 archive, trace lines of an HPCToolkit
    database, files of a list) on its workers
    and adds them up: the same table, bit for bit, by resource or node
    (see ``docs/distributed.md``). ``progress`` shows Dask's progress bar
    then (by default in a notebook only).
    """
    from ._readers import _OPTIONS

    known = {name for names in _OPTIONS.values() for name in names}
    for name in options:
        if name not in known:
            raise TypeError(f"moments() got an unexpected keyword argument {name!r}")
    opts = _options(busy, idle, by, state_types, nesting, gaps, start, end)
    if format is not None and not isinstance(format, str):
        raise InvalidArgumentError(f"format: must be a format name, got {format!r}", param="format")
    paths = [path] if isinstance(path, (str, os.PathLike)) else list(path)
    if not paths:
        raise InvalidArgumentError("path: no file given", param="path")
    if client is not None:
        if gaps:
            raise InvalidArgumentError("gaps: time in no state is not computed across a cluster (a part does not "
                                       "see the other parts' states)", param="gaps")
        from . import _distributed
        return _distributed.moments(paths, client, opts, start=start, end=end, format=format, options=options,
                                    runs=len(paths) > 1, progress=progress)
    if format is not None:
        options = dict(options, format=format)
    if len(paths) > 1:
        names = json.dumps([os.fspath(p) for p in paths])
        m = Moments(_bridge.call(_bridge.native.MomentsFromRuns, names, json.dumps(options), opts))
    else:
        m = Moments(_bridge.call(_bridge.native.MomentsFromFile, os.fspath(paths[0]), json.dumps(options), opts))
    # What the reader skipped or found missing, as read() says it.
    for message in m._info.get("warnings") or ():
        warnings.warn(message, UserWarning, stacklevel=2)
    return m


def aggregation_moments(agg, busy=None, by="aggregate", idle=None, state_types=None, nesting="innermost",
                        gaps=False) -> Moments:
    """The moments of the aggregates of an aggregation: see
    :meth:`macroscope.Aggregation.moments`."""
    opts = _options(busy, idle, by, state_types, nesting, gaps)
    return Moments(_bridge.call(agg._h.Moments, opts))
