"""The treemap explorer (``Aggregation.explore_treemap()``): the squarified
treemap of an aggregation drawn in the browser, with a slider over the
model's significant levels, zoom into a group by clicking it, and hover.

The Python side holds the state (level, zoom root, value) and computes each
view with :meth:`Aggregation.treemap`; the browser receives the rectangles
as an Arrow table and draws them on a canvas. After each view, the browser
asks for the neighbouring levels' tables (same root and value), which
Python computes and sends ahead: a slider step to one of them is drawn by
the page at once, and Python, which knows what it sent, does not send it
again.
"""

from __future__ import annotations

import json
import time

import pyarrow as pa
import traitlets

from .. import _bridge
from .._errors import InvalidArgumentError, MacroscopeError
from . import _wire
from ._base import ArrowWidget, arrow_trait, ipc, model_colours

# Levels on each side of the one shown whose tables are sent ahead, and
# how long one request for them may keep the kernel busy (seconds).
PREFETCH_LEVELS = 2
PREFETCH_SECONDS = 0.3


class TreemapExplorer(ArrowWidget):
    """Explore the treemap of an aggregation (see docs/widgets.md).

    Synchronised state: ``level`` (index into ``levels``, the significant
    levels of the model for the aggregation's kind, each with p_low,
    p_high, p (the one used) and aggregates), ``root`` (the node path at the
    top, "" for the whole hierarchy), ``value`` ("leaves" or "activity").
    Changing any of them, from Python or by the browser (slider, click,
    back), recomputes ``table``: :meth:`view_table`.
    """

    _renderer = traitlets.Unicode("treemap").tag(sync=True)

    levels = traitlets.List().tag(sync=True)
    level = traitlets.Int(0).tag(sync=True)
    root = traitlets.Unicode("").tag(sync=True)
    value = traitlets.Unicode("leaves").tag(sync=True)
    table = arrow_trait()
    height = traitlets.Int(560).tag(sync=True)
    error = traitlets.Unicode("").tag(sync=True)

    def __init__(self, agg, value="leaves", root=None, threshold=0.0, height=560, colors=None):
        source = getattr(agg, "_source", None)
        if source is None:
            raise InvalidArgumentError("explore_treemap: the aggregation must come from MicroModel.aggregate",
                                       param="agg")
        if value not in ("leaves", "activity"):
            raise InvalidArgumentError(f"value: must be leaves or activity, got {value!r}", param="value")
        self._model, self._engine = source
        opts = json.loads(self._engine)
        opts.update(method="exact", threshold=float(threshold), recommend="knee")
        levels = _bridge.to_pandas(_bridge.table(self._model._h.SignificantP, json.dumps(opts)))
        rows = [{"p_low": float(lv.p_low), "p_high": float(lv.p_high), "p": float((lv.p_low + lv.p_high) / 2),
                 "aggregates": int(lv.aggregates), "recommended": bool(lv.recommended)}
                for lv in levels.itertuples()]
        # The level of the aggregation given: the one whose range holds its p,
        # which is then the p used for that level.
        p = agg.p
        level = next((i for i, r in enumerate(rows) if r["p_low"] <= p <= r["p_high"]), 0)
        rows[level]["p"] = float(p)
        self._aggs = {level: agg}
        self._shipped = set()  # (level, root, value) whose table the browser holds
        super().__init__(levels=rows, level=level, root=root or "", value=value, height=int(height))
        self.set_states(self._model.states, model_colours(self._model, colors))  # the treemap figure's
        self._refresh()
        self.observe(lambda _: self._refresh(), names=["level", "root", "value"])
        self.on_msg(self._on_msg)

    # -- the state ---------------------------------------------------------

    @property
    def p(self) -> float:
        """The p of the level shown."""
        return self.levels[self.level]["p"]

    @property
    def aggregation(self):
        """The aggregation of the level shown."""
        if self.level not in self._aggs:
            self._aggs[self.level] = self._model.aggregate(self.p, **_engine_kwargs(self._engine))
        return self._aggs[self.level]

    def view_table(self) -> pa.Table:
        """The rectangles shown, as :meth:`Aggregation.treemap` gives them
        (unit square, y up), for the current level, root and value."""
        return self.aggregation.treemap(self.value, root=self.root or None).to_arrow()

    def zoom(self, path: str) -> "TreemapExplorer":
        """Show the group at ``path`` ("" for the whole hierarchy)."""
        self.root = path
        return self

    def up(self) -> "TreemapExplorer":
        """Zoom out one level of the hierarchy."""
        self.root = self.root.rsplit("/", 1)[0] if "/" in self.root else ""
        return self

    def _refresh(self):
        key = (self.level, self.root, self.value)
        if key in self._shipped:
            # The browser holds this view's table and draws it itself.
            self.error = ""
            return
        try:
            tbl = self.view_table()
        except MacroscopeError as exc:
            self.error = str(exc)
            return
        if self.root and len(tbl) == 1:
            # The root is an aggregate of this level, or lies inside one:
            # show the nearest ancestor that the level still divides.
            self.up()
            return
        self.send_tables(table=_browser(tbl), error="")
        self._shipped.add(key)  # the browser keeps what it drew

    def _prefetch(self):
        """Send the browser the tables of the levels next to the one shown
        (same root and value), nearest first, for PREFETCH_SECONDS at most."""
        t0 = time.perf_counter()
        for d in range(1, PREFETCH_LEVELS + 1):
            for j in (self.level + d, self.level - d):
                key = (j, self.root, self.value)
                if not 0 <= j < len(self.levels) or key in self._shipped:
                    continue
                if time.perf_counter() - t0 > PREFETCH_SECONDS:
                    return
                if j not in self._aggs:
                    self._aggs[j] = self._model.aggregate(self.levels[j]["p"], **_engine_kwargs(self._engine))
                try:
                    tbl = self._aggs[j].treemap(self.value, root=self.root or None).to_arrow()
                except MacroscopeError:
                    continue
                if self.root and len(tbl) == 1:
                    continue  # that level shows an ancestor: Python decides it when asked
                self.send({"kind": "table", "level": j, "root": self.root, "value": self.value},
                          [ipc(_browser(tbl))])
                self._shipped.add(key)

    def _on_msg(self, _widget, msg, _buffers):
        kind = msg.get("type")
        if kind == "zoom":
            self.zoom(str(msg.get("path", "")))
        elif kind == "up":
            self.up()
        elif kind == "prefetch":
            self._prefetch()
        elif kind == "reset":
            # A page that holds no tables (a new view of the widget).
            self._shipped.clear()

    def __repr__(self) -> str:
        return (f"<macroscope.TreemapExplorer p={self.p:g} (level {self.level + 1} of {len(self.levels)}), "
                f"root {self.root or '(all)'!r}, by {self.value}>")


def _browser(tbl: pa.Table) -> pa.Table:
    """The treemap table as the page receives it: the rectangles' places
    and the states' shares (the strips) as float32 (_wire.narrow)."""
    shares = [c for c in tbl.column_names if c.startswith("prop:")]
    return _wire.narrow(tbl, floats=["x", "y", "w", "h", "mode_proportion", *shares])


def _engine_kwargs(engine: str) -> dict:
    """MicroModel.aggregate's keywords from its JSON engine options."""
    o = json.loads(engine)
    kw = {k: o[k] for k in ("kind", "normalize", "gain", "ties", "entities") if k in o}
    if o.get("window") is not None:
        kw["window"] = tuple(o["window"])
    return kw
