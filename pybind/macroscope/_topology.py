"""The topology-based view of Schnorr, Legrand and Vincent 2012 (Viva).

:meth:`Trace.topology` builds a :class:`Topology`: a graph whose nodes are
the monitored resources of a trace (the hosts, links and routers of a
SimGrid platform, or the processes of a run) and whose edges are their
relations (the platform's topology, or the communications). Each node's
size shows its capacity and its fill its utilization over a time window;
groups of the resource hierarchy collapse into one node per kind and
expand back, and a force-directed layout places the nodes, continuing from
their positions so that the drawing evolves smoothly.
"""

from __future__ import annotations

import json
import math
import os

import pandas as pd
import pyarrow as pa

from . import _bridge, _figure, _work
from ._clock import span
from ._errors import InvalidArgumentError
from ._figure import Figure
from ._tables import incomplete_suffix


_TABLES = ("nodes", "edges")


def _seconds(name, value):
    """A time bound for the core: a number of seconds, or a decimal string
    for exact nanoseconds."""
    if value is None or isinstance(value, str):
        return value
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"{name}: must be a number of seconds, got {value!r}", param=name) from None
    if not math.isfinite(value):
        raise InvalidArgumentError(f"{name}: must be a finite number of seconds, got {value}", param=name)
    return value


def _names(name, value):
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, dict):
        return {str(k): str(v) for k, v in value.items()}
    try:
        return [str(v) for v in value]
    except TypeError:
        raise InvalidArgumentError(f"{name}: must be a name, a list of names or a dict, got {value!r}",
                                   param=name) from None


class Topology:
    """A topology-based view of a trace, held by the Go core, and the state
    of its exploration (collapsed groups, time window, positions).

    ``nodes`` and ``edges`` are DataFrames of the graph as currently shown
    (see their docstrings); ``to_pandas()``, ``to_arrow()`` and the Arrow
    PyCapsule protocol give the nodes. :meth:`collapse`, :meth:`expand`,
    :meth:`collapse_depth`, :meth:`collapse_optimal`, :meth:`expand_all`
    and :meth:`set_window` return a new Topology (from this one's
    positions, window and collapsed groups) and leave this one as it was,
    so calls chain (``t.collapse_depth(1).set_window(0, 2)``) and a view
    can be kept while another is explored; :meth:`layout` moves this
    view's nodes (it returns their positions); :meth:`plot` draws the view
    (laying it out first if needed).
    """

    def __init__(self, handle):
        self._h = handle

    def _changed(self, change) -> "Topology":
        """A copy of this view changed by ``change`` (given the copy's
        handle); this one stays as it was, even when the change fails."""
        new = Topology(_bridge.call(self._h.Clone))
        span = getattr(self, "_span", None)
        if span is not None:
            new._span = span
        change(new._h)
        return new

    @staticmethod
    def _as_work(op: str, arg=None):
        """A change of the copy as a Go work (Topology.StartChange), which
        rebuilds the view: Ctrl-C stops it on a large graph, and the copy,
        half changed, is dropped with the interruption."""
        return lambda h: _work.compute(h.StartChange, op, json.dumps(arg), result="JSON")

    @classmethod
    def _of_trace(cls, trace_handle, size=None, fill=None, edges=None, start=None, end=None, kinds=None,
                  charge=None):
        if kinds is not None and isinstance(kinds, str):
            kinds = [kinds]
        opts = _bridge.options(size=_names("size", size), fill=_names("fill", fill), edges=_names("edges", edges),
                               start=_seconds("start", start), end=_seconds("end", end),
                               kinds=None if kinds is None else [str(k) for k in kinds], charge=charge)
        # A work of its own: Ctrl-C stops the construction on a large trace.
        return cls(_work.compute(trace_handle.StartTopology, opts, result="Topology"))

    # -- tables ------------------------------------------------------------

    def _arrow(self, name: str) -> pa.Table:
        if name not in _TABLES:
            raise InvalidArgumentError(f"table: must be one of {', '.join(_TABLES)}, got {name!r}", param="table")
        return _bridge.table(self._h.Table, name)

    def to_arrow(self, table: str = "nodes") -> pa.Table:
        """The nodes (or ``table="edges"``) as a pyarrow Table."""
        return self._arrow(table)

    def to_pandas(self, table: str = "nodes") -> pd.DataFrame:
        """The nodes (or ``table="edges"``) as a pandas DataFrame."""
        return _bridge.to_pandas(self._arrow(table))

    def __arrow_c_stream__(self, requested_schema=None):
        """Arrow PyCapsule stream protocol, over the nodes."""
        return self._arrow("nodes").__arrow_c_stream__(requested_schema)

    @property
    def nodes(self) -> pd.DataFrame:
        """The nodes shown, one row each: path (the container's; "group
        [kind]" for an aggregate), name, kind, group (an aggregate's group,
        a resource's parent), aggregated, members, capacity and usage (time
        averages over the window, summed over the members; NaN where the
        kind has no such variable), capacity_integral and usage_integral
        (value x seconds), ratio (usage / capacity), size (capacity over the
        largest of the kind, in [0, 1]), shape (square, diamond, circle), x,
        y (NaN before the first layout) and charge (in the layout)."""
        return self.to_pandas("nodes")

    @property
    def edges(self) -> pd.DataFrame:
        """The edges shown, one row each: from, to (node paths), kind (the
        kinds of the ends, "HOST-LINK") and count (the trace links it stands
        for: merged duplicates, inherited by collapsed groups)."""
        return self.to_pandas("edges")

    @property
    def _info(self) -> dict:
        return _bridge.call_json(self._h.Info)

    def __len__(self) -> int:
        return self._info["nodes"]

    @property
    def kinds(self) -> dict:
        """Each kind of node and the names of its capacity and utilization
        variables (None where it has none): {kind: (size, fill)}."""
        i = self._info
        return {k: (s or None, f or None) for k, s, f in zip(i["kinds"], i["size"], i["fill"])}

    @property
    def window(self) -> tuple[float, float]:
        """The time window (start, end) in seconds on the trace's clock
        (``set_window`` and ``start=``, ``end=`` take seconds from the
        trace's start)."""
        i = self._info
        return i["start"], i["end"]

    @property
    def collapsed(self) -> list[str]:
        """Paths of the collapsed groups."""
        return list(self._info["collapsed"] or [])

    @property
    def groups(self) -> pd.DataFrame:
        """The groups that can be collapsed: path, depth (1 = a child of
        the root) and whether it is collapsed, depth first."""
        g = _bridge.call_json(self._h.Groups)
        collapsed = set(self.collapsed)
        return pd.DataFrame({"path": g["paths"] or [], "depth": g["depths"] or [],
                             "collapsed": [p in collapsed for p in g["paths"] or []]})

    @property
    def layout_stats(self) -> dict | None:
        """Iterations, convergence and final energy of the last layout."""
        return self._info.get("layout")

    # -- changes -----------------------------------------------------------

    def collapse(self, path) -> "Topology":
        """Collapse the group at ``path`` (a container path such as
        "AS_lyon", or a list of them; "" for the whole graph): its nodes
        become one node per kind whose capacity and usage are the sums over
        them, placed at the centroid of the nodes it replaces. Edges go to
        the new nodes; edges inside the group disappear. Returns the new
        view (this one is unchanged)."""
        paths = [path] if isinstance(path, str) else list(path)

        def change(h):
            for p in paths:
                self._as_work("collapse", str(p))(h)
        return self._changed(change)

    def expand(self, path) -> "Topology":
        """Undo :meth:`collapse` for the group at ``path`` (or a list): its
        nodes come back where they were last shown (moved along with the
        group since), or next to the group's node the first time. Returns
        the new view (this one is unchanged)."""
        paths = [path] if isinstance(path, str) else list(path)

        def change(h):
            for p in paths:
                self._as_work("expand", str(p))(h)
        return self._changed(change)

    def collapse_depth(self, depth: int) -> "Topology":
        """Show the graph at a level of the hierarchy: collapse every group
        at ``depth`` (1 = the children of the root, the sites of a grid) and
        expand those above it. Returns the new view (this one is
        unchanged)."""
        if isinstance(depth, bool) or not isinstance(depth, int):
            raise InvalidArgumentError(f"depth: must be an integer, got {depth!r}", param="depth")
        return self._changed(self._as_work("collapse_depth", depth))

    def collapse_optimal(self, p: float = 0.5) -> "Topology":
        """Choose the groups to collapse automatically: the optimal spatial
        aggregation of Lamarche-Perrin et al. 2014 over the window, the cut
        of the hierarchy that best trades the simplicity an aggregate
        brings for the information it hides, at p in [0, 1] (gain and loss
        normalised). Each resource contributes its used and unused capacity
        (its capacity alone for kinds without utilization), as a share of
        its kind's total: p = 0 collapses only groups whose members are
        alike, p = 1 the whole graph. The new view returned shows exactly
        those groups collapsed (:attr:`collapsed` lists them); this one is
        unchanged."""
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1:
            raise InvalidArgumentError(f"p: must be a number in [0, 1], got {p!r}", param="p")
        return self._changed(self._as_work("collapse_optimal", float(p)))

    def expand_all(self) -> "Topology":
        """A new view with every group expanded (this one is unchanged)."""
        return self._changed(self._as_work("expand_all"))

    def set_window(self, start=None, end=None) -> "Topology":
        """A new view integrating the metrics over [start, end] (seconds
        from the trace's start; None: the trace's bounds), with this one's
        positions and collapsed groups, as the time slider of Viva does;
        this one is unchanged."""
        opts = _bridge.options(start=_seconds("start", start), end=_seconds("end", end))
        return self._changed(lambda h: _work.compute(h.StartChange, "set_window", opts, result="JSON"))

    def layout(self, iterations: int | None = None, seed: int = 0, theta: float | None = None,
               exact: bool = False, *, progress=None, **forces) -> pd.DataFrame:
        """Run the force-directed layout (Viva's forces, Barnes-Hut repulsion)
        from the current positions and return them (path, x, y).

        ``iterations`` caps the run (default 500; it stops earlier when the
        energy stops changing). ``seed`` seeds the positions of nodes placed
        for the first time; a first layout goes coarse to fine through the
        levels of the hierarchy. ``theta`` is the Barnes-Hut opening angle
        (0.7; 0 for exact forces through the tree); ``exact=True`` sums the
        repulsion over every pair. ``rest_length`` (1), ``attraction``
        (0.06), ``repulsion`` (0.024) and ``tolerance`` (0.01) may be given
        as keywords.

        A large graph takes a while: ``progress`` shows the iterations (as
        :meth:`MicroModel.significant_p` does) and Ctrl-C stops the layout
        (KeyboardInterrupt), which keeps the positions it reached.
        """
        allowed = {"rest_length", "attraction", "repulsion", "tolerance"}
        for k, v in forces.items():
            if k not in allowed:
                raise InvalidArgumentError(f"{k}: unknown layout parameter (known: {', '.join(sorted(allowed))})",
                                           param=k)
            if not isinstance(v, (int, float)) or not v > 0 or not math.isfinite(v):
                raise InvalidArgumentError(f"{k}: must be a positive number, got {v!r}", param=k)
        if iterations is not None and (isinstance(iterations, bool) or not isinstance(iterations, int)
                                       or iterations < 1):
            raise InvalidArgumentError(f"iterations: must be a positive integer, got {iterations!r}",
                                       param="iterations")
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise InvalidArgumentError(f"seed: must be a non-negative integer, got {seed!r}", param="seed")
        opts = _bridge.options(iterations=iterations, seed=seed, theta=theta, exact=bool(exact),
                               **{k: float(v) for k, v in forces.items()})
        self._layout(opts, progress)
        return self.nodes[["path", "x", "y"]]

    def _layout(self, opts: str, progress=None):
        _work.run(_bridge.call(self._h.StartLayout, opts), "layout", progress)

    # -- figures -----------------------------------------------------------

    def explore(self, height: int = 560, labels: bool | None = None, span=None, iterations: int | None = None):
        """An interactive view in Jupyter (a widget), Viva's interaction:
        click an aggregate to expand its group, a resource to collapse its
        group, the layout moving smoothly; a time-window slider (over
        ``span``, the trace's bounds by default) that animates between
        windows; drag a node. The widget acts on this Topology: its
        collapsed groups, window and positions are the widget's.
        ``iterations`` caps each layout run (see :meth:`layout`).
        See docs/widgets.md."""
        # Imported when asked: the widgets need anywidget, an optional
        # dependency, and take time to import.
        from .widgets._topology import TopologyExplorer

        return TopologyExplorer(self, height=height, labels=labels, span=span, iterations=iterations)

    def plot(self, path: str | os.PathLike | None = None, width: int = 960, height: int = 820,
             format: str | None = None, title: str | None = None, labels: bool = False,
             max_node: float | None = None) -> Figure:
        """Draw the view: squares for hosts, diamonds for links, circles
        otherwise, sized by capacity (the largest of each kind at full
        size) and filled from the bottom in proportion to utilization over
        capacity; aggregates outlined thicker and named. The graph is laid
        out first if it changed since the last layout.

        ``width`` and ``height`` are in pixels; ``labels=True`` also names
        the nodes of a small graph; ``max_node`` sets the side of the
        largest node in pixels. With ``path`` the image is written there
        (PNG or SVG by the extension) and the path returned; otherwise its
        bytes are returned (as a bytes object that Jupyter displays).
        """
        _figure.points(width, height)
        if not _bridge.call(self._h.LaidOut):
            self._layout("{}")  # with progress and Ctrl-C, before drawing
        # Other formats are drawn when asked, from the view as it is then:
        # draw them all before collapsing or expanding if they must agree.
        return _figure.plot(lambda fmt: _work.compute(self._h.StartPlot, _bridge.options(
            width=float(width), height=float(height), format=fmt, title=title, labels=bool(labels),
            max_node=None if max_node is None else float(max_node)), result="Image"), path, format,
            title or "topology")

    def _repr_png_(self):
        return self.plot().to_bytes("png")

    def __repr__(self) -> str:
        i = self._info
        kinds = ", ".join(i["kinds"])
        state = f", {len(i['collapsed'])} groups collapsed" if i["collapsed"] else ""
        return (f"<macroscope.Topology {i['nodes']} nodes ({kinds}), {i['edges']} edges{state}, "
                f"window {span(i)}{incomplete_suffix(i)}>")
