"""The topology explorer (``Topology.explore()``): Viva's interaction in the
browser. Click an aggregate node to expand its group, a resource to collapse
the group it belongs to; the layout moves smoothly (nodes that appear start
at the position of the node they came from); a time-window slider sets the
window over which sizes and fills are integrated, and animates between
windows; nodes can be dragged.

The Python side holds the :class:`Topology` (collapsed groups, window, the
Go force layout); after each action it sends the nodes and edges as Arrow
tables. The browser runs a force simulation pulled towards the Go layout's
positions, so that it settles where the static figure puts the nodes, and
lets a dragged node pull its neighbours.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import traitlets

from .._errors import MacroscopeError
from . import _wire
from .._clock import relative
from ._base import ArrowWidget, arrow_trait

# The columns the browser draws from.
_NODE_COLUMNS = ("path", "name", "kind", "group", "aggregated", "members", "capacity", "usage", "ratio", "size",
                 "shape", "x", "y")


class TopologyExplorer(ArrowWidget):
    """Explore a :class:`Topology` (see docs/widgets.md).

    Synchronised state: ``nodes`` and ``edges`` (Arrow IPC, see
    :meth:`view_tables`), ``window`` ([start, end] in seconds from the
    trace's start), ``span`` (the bounds of the time slider, likewise),
    ``clock`` (where the trace starts on its clock), ``collapsed`` (paths
    of the collapsed
    groups). :meth:`expand`, :meth:`collapse` and :meth:`set_window` act as
    the browser's clicks and slider do: each replaces :attr:`topology` by
    the changed view (a new Topology; the one given is not changed, but
    for its positions, which the explorer's layouts move).
    """

    _renderer = traitlets.Unicode("topology").tag(sync=True)

    nodes = arrow_trait()
    edges = arrow_trait()
    window = traitlets.List([0.0, 0.0]).tag(sync=True)
    span = traitlets.List([0.0, 0.0]).tag(sync=True)
    collapsed = traitlets.List().tag(sync=True)
    # The colour of each kind of node in the figure ("#rrggbb" by kind).
    kind_colours = traitlets.Dict().tag(sync=True)
    height = traitlets.Int(560).tag(sync=True)
    labels = traitlets.Bool(False).tag(sync=True)
    error = traitlets.Unicode("").tag(sync=True)
    # Bumped at every change of the graph, so the browser can tell a new
    # graph from a new window of the same one.
    version = traitlets.Int(0).tag(sync=True)

    def __init__(self, topo, height=560, labels=None, span=None, iterations=None):
        self._topo = topo
        self._iterations = iterations
        if span is None:  # the trace's bounds, else the current window
            span = getattr(topo, "_span", None) or relative(topo._info)
        span = [float(span[0]), float(span[1])]
        if labels is None:
            labels = len(topo) <= 60
        super().__init__(height=int(height), labels=bool(labels), span=span)
        self.set_clock(topo._info)
        self._push()
        self.on_msg(self._on_msg)

    @property
    def topology(self):
        """The Topology shown now (the one given, changed by the clicks,
        the slider and the methods)."""
        return self._topo

    def view_tables(self) -> tuple[pa.Table, pa.Table]:
        """The nodes and edges sent to the browser: the Topology's nodes
        (path, name, kind, group, aggregated, members, capacity, usage,
        ratio, size, shape, x, y) and its edges with ``source`` and
        ``target``, the rows of their ends in the nodes."""
        nodes = self._topo.to_arrow("nodes").select(list(_NODE_COLUMNS))
        edges = self._topo.to_arrow("edges")
        paths = nodes.column("path").to_pylist()
        row = {p: i for i, p in enumerate(paths)}
        source = np.array([row[p] for p in edges.column("from").to_pylist()], dtype=np.int32)
        target = np.array([row[p] for p in edges.column("to").to_pylist()], dtype=np.int32)
        edges = edges.append_column("source", pa.array(source)).append_column("target", pa.array(target))
        return nodes, edges

    # -- actions -----------------------------------------------------------

    def expand(self, path: str) -> "TopologyExplorer":
        """Expand the collapsed group at ``path``."""
        return self._act(lambda: self._topo.expand(path))

    def collapse(self, path: str) -> "TopologyExplorer":
        """Collapse the group at ``path``."""
        return self._act(lambda: self._topo.collapse(path))

    def collapse_depth(self, depth: int) -> "TopologyExplorer":
        """Show the graph at a level of the hierarchy (see :meth:`Topology.collapse_depth`)."""
        return self._act(lambda: self._topo.collapse_depth(depth))

    def expand_all(self) -> "TopologyExplorer":
        return self._act(lambda: self._topo.expand_all())

    def set_window(self, start, end) -> "TopologyExplorer":
        """Integrate over [start, end] (seconds from the trace's start):
        sizes and fills change, the positions stay."""
        self._topo = self._topo.set_window(start, end)
        self._push(graph=False)
        return self

    def _act(self, action):
        try:
            self._topo = action()
        except MacroscopeError as exc:
            self.error = str(exc)
            return self
        self._push()
        return self

    def _push(self, graph=True):
        if graph:
            # The Go layout continues from the current positions; nodes shown
            # for the first time start next to the node they came from.
            self._topo.layout(iterations=self._iterations)
        nodes, edges = self.view_tables()
        info = self._topo._info
        start, end = relative(info)
        self.send_tables(kind_colours=dict(info.get("kind_colours") or {}),
                         nodes=_wire.browser_table(nodes), edges=_wire.browser_table(edges), error="",
                         window=[float(start), float(end)], collapsed=self._topo.collapsed,
                         version=self.version + 1 if graph else self.version)

    def _on_msg(self, _widget, msg, _buffers):
        kind = msg.get("type")
        if kind == "expand":
            self.expand(str(msg["path"]))
        elif kind == "collapse":
            self.collapse(str(msg["path"]))
        elif kind == "window":
            self.set_window(float(msg["start"]), float(msg["end"]))
        elif kind == "expand_all":
            self.expand_all()

    def __repr__(self) -> str:
        start, end = relative(self._topo._info)
        return (f"<macroscope.TopologyExplorer {len(self._topo)} nodes, {len(self.collapsed)} groups collapsed, "
                f"window {start:g}-{end:g} s>")
