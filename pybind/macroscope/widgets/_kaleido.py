"""The kaleidoscope explorer (``Kaleidoscope.explore()``): the radial call
tree drawn in the browser, zoomed with the wheel and panned by dragging,
each node named on hover (procedure, PE, start time), painted by PE,
procedure or start time at the click of a button, and centred on a
subtree by double-clicking a node.

The Python side sends the laid-out nodes as an Arrow table with, for every
view, each node's colour (the static figure's, from
:meth:`Kaleidoscope.legend`: the trace's colours of procedures, then the
palette, PEs in the tree's order and procedures ranked by their number of
nodes; ``colors=`` overrides; the time spectrum over the view's start
times).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import traitlets

from .._errors import InvalidArgumentError
from . import _colours, _wire
from .. import _figure
from ._base import ArrowWidget, arrow_trait

_VIEWS = ("pe", "procedure", "time")
# Nodes without a PE or procedure (plots.KaleidoNone).
_NONE = 0xAAAAAA


class KaleidoscopeExplorer(ArrowWidget):
    """Explore a :class:`Kaleidoscope` (see docs/widgets.md).

    Synchronised state: ``view`` ("pe", "procedure" or "time", among
    ``views``), ``root`` (the id, as text, of the node at the centre; ""
    for the layout given), ``table`` (Arrow IPC, see :meth:`view_table`)
    and ``legend`` (per view, the labels of its categories, their short
    names as the static figure writes them and their colours, or the time
    range of the spectrum). The page scales the view so that the outermost
    node reaches the canvas's edge and names the largest nodes.
    """

    _renderer = traitlets.Unicode("kaleidoscope").tag(sync=True)

    view = traitlets.Unicode("pe").tag(sync=True)
    views = traitlets.List().tag(sync=True)
    root = traitlets.Unicode("").tag(sync=True)
    table = arrow_trait()
    legend = traitlets.Dict().tag(sync=True)
    width = traitlets.Float(600).tag(sync=True)
    error = traitlets.Unicode("").tag(sync=True)

    def __init__(self, kal, view=None, colors=None):
        self._kal0 = self._kal = kal
        tree = kal._tree
        views = tree.views if tree is not None else [v for v in _VIEWS]
        if view is None:
            view = views[0] if views else "pe"
        if view not in views:
            raise InvalidArgumentError(f"view: must be one of {', '.join(views)}, got {view!r}", param="view")
        self._legends = _category_legends(kal, views, colors)
        super().__init__(view=view, views=list(views), width=float(kal.width))
        self._push()
        self.observe(lambda _: self._recentre(), names=["root"])
        self.on_msg(self._on_msg)

    @property
    def kaleidoscope(self):
        """The layout shown (the given one, or that of the subtree at ``root``)."""
        return self._kal

    def view_table(self) -> pa.Table:
        """The nodes drawn from: the layout's table (:meth:`Kaleidoscope.to_arrow`,
        ids as text, weight as float32) plus ``row_parent`` (the row of
        ``shown_parent``, -1 for the centre) and ``rgb_pe``,
        ``rgb_procedure``, ``rgb_time`` (0xRRGGBB in each view; absent for a
        view the tree lacks)."""
        tbl = self._kal.to_arrow()
        df = tbl.select([c for c in ("id", "shown_parent") if c in tbl.column_names]).to_pandas()
        ids = df["id"].astype(str)
        row = pd.Series(np.arange(len(df), dtype=np.int32), index=ids.to_numpy())
        parent = df["shown_parent"]
        row_parent = np.full(len(df), -1, dtype=np.int32)
        has = parent.notna().to_numpy()
        row_parent[has] = row.reindex(parent[has].astype("int64").astype(str) if parent.dtype.kind == "f"
                                      else parent[has].astype(str)).fillna(-1).to_numpy(dtype=np.int32)
        out = {"id": pa.array(ids.to_numpy(dtype=object), type=pa.string()), "row_parent": pa.array(row_parent)}
        keep = ("procedure", "pe", "start", "level", "weight", "x", "y", "drawn", "collapsed", "kept", "sector_start",
                "sector_extent")
        for name in keep:
            if name in tbl.column_names:
                out[name] = tbl.column(name)
        # The page ranks nodes by weight to name the largest: float32 is
        # plenty (and JavaScript reads it as numbers, not BigInts).
        if "weight" in out:
            out["weight"] = out["weight"].cast(pa.float32())
        for view, colours in self._view_colours(tbl).items():
            out[f"rgb_{view}"] = pa.array(colours, type=pa.uint32())
        return pa.table(out)

    def _view_colours(self, tbl: pa.Table) -> dict:
        """Each view's node colours (0xRRGGBB), and the legend as a side
        effect: the static figure's colours of PEs and procedures (see
        :func:`_category_legends`), the time spectrum over the view's start
        times."""
        legend, out = {}, {}
        for view in ("pe", "procedure"):
            if view not in self.views:
                continue
            labels, palette = self._legends[view]["labels"], self._legends[view]["colours"]
            packed = {name: _colours.unpack_css(c) for name, c in zip(labels, palette)}
            out[view] = np.array([_NONE if v is None else packed.get(v, _NONE)
                                  for v in tbl.column(view).to_pylist()], dtype=np.uint32)
            legend[view] = {"labels": labels, "short": self._legends[view]["short"], "colours": palette}
        if "time" in self.views:
            start = tbl.column("start").to_numpy(zero_copy_only=False).astype(float)
            t0, t1 = (float(start.min()), float(start.max())) if len(start) else (0.0, 0.0)
            f = (start - t0) / (t1 - t0) if t1 > t0 else np.zeros_like(start)
            out["time"] = np.array([_colours.packed(_colours.spectrum(x)) for x in f], dtype=np.uint32)
            # Seconds from the trace's start (one clock), which the
            # widget's clock trait places on the trace's clock.
            origin = float(self._kal._info.get("origin", 0.0))
            legend["time"] = {"start": t0 - origin, "end": t1 - origin,
                              "colours": [_colours.css(_colours.spectrum(i / 10)) for i in range(11)]}
        self.legend = legend
        return out

    # -- actions -----------------------------------------------------------

    def centre(self, node) -> "KaleidoscopeExplorer":
        """Centre the view on the subtree of ``node`` (an id); None goes
        back to the layout given."""
        self.root = "" if node is None else str(node)
        return self

    def _recentre(self):
        if not self.root:
            self._kal = self._kal0
        else:
            tree = self._kal0._tree
            try:
                self._kal = tree.layout(width=self._kal0.width, subtree=tree._key(self.root))
            except Exception as exc:  # an id that is not in the tree
                self.error = str(exc)
                return
        self._push()

    def _push(self):
        tbl = self.view_table()
        self.set_clock(self._kal._info)
        self.send_tables(table=_browser(tbl, self._kal._info.get("origin_ns", 0)), error="")

    def _on_msg(self, _widget, msg, _buffers):
        if msg.get("type") == "centre":
            self.root = str(msg.get("id") or "")

    def __repr__(self) -> str:
        return (f"<macroscope.KaleidoscopeExplorer view {self.view}, {len(self._kal)} nodes"
                + (f", centred on {self.root}" if self.root else "") + ">")


def _browser(tbl: pa.Table, origin_ns: int = 0) -> pa.Table:
    """The nodes' table as the page receives it: it places the nodes by x
    and y (float32 is plenty), does not read their sectors, and shows
    start times in seconds from the trace's start (the table keeps the
    trace's clock)."""
    if origin_ns and "start" in tbl.column_names:
        start = tbl.column("start").to_numpy(zero_copy_only=False).astype(float)
        tbl = tbl.set_column(tbl.column_names.index("start"), "start", pa.array(start - origin_ns / 1e9, pa.float64()))
    return _wire.narrow(tbl, floats=["x", "y"], drop=["sector_start", "sector_extent"])


def _category_legends(kal, views, colors) -> dict:
    """The PE and procedure views' legends (:meth:`Kaleidoscope.legend`),
    ``colors`` shared between them by name: a name that is neither a PE
    nor a procedure is an error, as a typo would otherwise go unnoticed."""
    cats = [v for v in ("pe", "procedure") if v in views]
    plain = {v: kal.legend(v) for v in cats}
    colors = _figure.color_options(colors) or {}
    known = {name for v in cats for name in plain[v]["labels"]}
    unknown = sorted(set(colors) - known)
    if unknown:
        raise InvalidArgumentError(f"colors: no PE or procedure named {', '.join(map(repr, unknown))} in the tree",
                                   param="colors")
    out = {}
    for v in cats:
        labels = set(plain[v]["labels"])
        mine = {name: c for name, c in colors.items() if name in labels}
        out[v] = kal.legend(v, colors=mine) if mine else plain[v]
    return out
