"""``model.explore()``: the overview of a microscopic model, explored.

The browser draws the aggregates (hierarchy x time rectangles in the colour
of their mode, as the static overview) from an Arrow table; Python computes
the aggregations. A slider runs over the significant levels of p beside
the quality curves; brushing a time range zooms (the model of the window is
rebuilt from the trace when the model has one, else cut from the model's
slices); clicking an aggregate opens its cells (the detail of its resources
over its time range); back and forward walk the views.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import traitlets

from .. import _bridge
from ._base import ArrowWidget, arrow_trait, bundle


@dataclass
class View:
    """One view of the explorer: an overview of a model at a level of p,
    or the detail (cells) of one aggregate."""

    kind: str  # "overview" or "detail"
    model: object  # the MicroModel drawn
    levels: object = None  # significant_p DataFrame (overview)
    level: int = 0  # index into levels (overview)
    agg: object = None  # the Aggregation shown (overview)
    rows: tuple[int, int] = (0, 0)  # resources shown, row_lo to row_hi (exclusive)
    slices: tuple[int, int] = (0, 0)  # slices shown, first to last (inclusive)
    title: str = ""
    origin: dict = field(default_factory=dict)  # the aggregate a detail view opens
    df: object = None  # the view's table, made when first asked
    parts: object = None  # the rows of agg's aggregates (Aggregation.Rows), made when first asked

    def set_agg(self, agg) -> None:
        self.agg, self.df, self.parts = agg, None, None


def _level_p(levels, i: int) -> float:
    """The p shown for level i: the middle of its range (as recommended_p)."""
    row = levels.iloc[i]
    return float((row.p_low + row.p_high) / 2)


def _alpha(v):
    """Opacity (0..255) of an aggregate whose mode has proportion v: the
    static overview's 30 + 225 min(v, 1), truncated as Go's uint8()."""
    return np.floor(30 + 225 * np.minimum(v, 1.0)).astype(np.int32)


class ModelExplorer(ArrowWidget):
    """The interactive overview of a :class:`macroscope.MicroModel`
    (made by :meth:`macroscope.MicroModel.explore`).

    Python side: :attr:`selection` (the clicked aggregate, a dict),
    :meth:`view_table` (the current view as a DataFrame), :meth:`figure`
    (the current view as a static :class:`macroscope.Figure`),
    :meth:`set_level`, :meth:`zoom`, :meth:`click`, :meth:`open_detail`, :meth:`back` and
    :meth:`forward` do what the mouse does.
    """

    _esm = bundle("overview")

    # The current view, drawn by the browser.
    aggregates = arrow_trait()  # one row per rectangle (see _draw_table)
    hierarchy = arrow_trait()  # the model's nodes and their rows
    levels = arrow_trait()  # significant_p of the current model
    level = traitlets.Int(0).tag(sync=True)  # index into levels; the slider
    view = traitlets.Dict().tag(sync=True)  # kind, title, time, slices, rows, p...
    can_back = traitlets.Bool(False).tag(sync=True)
    can_forward = traitlets.Bool(False).tag(sync=True)
    # What the pointer is on: the browser sets hovered (a row of
    # aggregates), Python answers with the state proportions in hover_info.
    hovered = traitlets.Int(-1).tag(sync=True)
    hover_info = traitlets.Dict().tag(sync=True)
    selected = traitlets.Int(-1).tag(sync=True)
    width = traitlets.Int(900).tag(sync=True)  # pixels: the overview and the quality curves
    height = traitlets.Int(420).tag(sync=True)

    def __init__(self, model, *, p: float | None = None, width: int = 900, height: int = 420,
                 threshold: float = 1e-3, **kwargs):
        super().__init__(width=int(width), height=int(height), **kwargs)
        self._threshold = threshold
        self._history: list[View] = []
        self._at = -1
        self._selection = None
        self.set_states(model.states)
        self._push(self._overview(model, p=p))
        self.observe(self._on_level, names="level")
        self.observe(self._on_hover, names="hovered")
        self.on_msg(self._on_msg)

    # --- views -------------------------------------------------------------

    def _overview(self, model, p=None, title="") -> View:
        levels = model.significant_p(threshold=self._threshold)
        if p is None:
            i = int(np.flatnonzero(levels.recommended.to_numpy())[0])
        else:
            inside = np.flatnonzero((levels.p_low.to_numpy() <= p) & (p <= levels.p_high.to_numpy()))
            i = int(inside[0]) if len(inside) else int(np.argmin(np.abs(levels.p_low.to_numpy() - p)))
        v = View("overview", model, levels=levels, level=i, rows=(0, model.resources),
                 slices=(0, model.slices - 1), title=title or f"{model.start:g}-{model.end:g} s")
        v.set_agg(model.aggregate(_level_p(levels, i)))
        return v

    @property
    def current(self) -> View:
        """The view shown."""
        return self._history[self._at]

    def _push(self, v: View) -> None:
        del self._history[self._at + 1:]
        self._history.append(v)
        self._at = len(self._history) - 1
        self._show()

    def _show(self) -> None:
        """Send the current view to the browser."""
        v = self.current
        m = v.model
        info = {"kind": v.kind, "title": v.title, "start": m.start, "end": m.end, "slices": m.slices,
                "first": v.slices[0], "last": v.slices[1], "row_lo": v.rows[0], "row_hi": v.rows[1],
                "step": self._at}
        tables = {"aggregates": self._draw_table(v)}
        if v.kind == "overview":
            info.update(p=_level_p(v.levels, v.level), n=len(v.agg), gain=v.agg.gain, loss=v.agg.loss)
            tables["levels"] = pa.Table.from_pandas(v.levels, preserve_index=False)
        else:
            info.update(origin=v.origin)
        tables["hierarchy"] = pa.table(_bridge.table(m._h.Hierarchy).select(
            ["id", "parent", "depth", "name", "path", "row_lo", "row_hi"]))
        self.send_tables(**tables, view=info, hover_info={}, hovered=-1, selected=-1,
                         level=v.level if v.kind == "overview" else self.level,
                         can_back=self._at > 0, can_forward=self._at < len(self._history) - 1)

    def _draw_table(self, v: View) -> pa.Table:
        """What the browser draws: per rectangle its node, slices, rows,
        mode (-1: no activity, not drawn), the mode's proportion and
        opacity, gain and loss."""
        if v.kind == "detail":
            return self._cells(v)[0]
        tbl = v.agg.to_arrow()
        rows = self._part_rows(v)
        mode = tbl.column("mode").combine_chunks()
        codes = mode.indices.fill_null(-1) if isinstance(mode.type, pa.DictionaryType) else mode.fill_null(-1)
        codes = self._state_codes(mode, codes)
        prop = tbl.column("mode_proportion").to_numpy()
        return _compact({
            "node_id": rows.column("node_id"), "first_slice": tbl.column("first_slice"),
            "last_slice": tbl.column("last_slice"), "row_lo": rows.column("row_lo"),
            "row_hi": rows.column("row_hi"), "mode": codes, "mode_proportion": prop,
            "alpha": _alpha(prop), "gain": tbl.column("gain"), "loss": tbl.column("loss"),
        })

    def _state_codes(self, mode, codes) -> pa.Array:
        """Mode codes as indices into the model's states (the dictionary of
        the mode column may list them in another order or merged)."""
        codes = np.asarray(codes.to_numpy(zero_copy_only=False), dtype=np.int32)
        if isinstance(mode.type, pa.DictionaryType):
            index = {s: i for i, s in enumerate(self.states)}
            remap = np.array([index.get(s, -1) for s in mode.dictionary.to_pylist()] + [-1], dtype=np.int32)
            codes = remap[np.where(codes < 0, len(remap) - 1, codes)]
        return pa.array(codes, pa.int32())

    @staticmethod
    def _part_rows(v: View) -> pa.Table:
        if v.parts is None:
            v.parts = _bridge.table(v.agg._h.Rows)
        return v.parts

    def _cells(self, v: View):
        """The cells of the detail view: every resource of the aggregate's
        node and slice of its time range, in the colour of its mode state.
        Returns the draw table and the DataFrame of the cells."""
        import pandas as pd

        m = v.model
        lo, hi = v.rows
        first, last = v.slices
        values = _values(m)[lo:hi, first:last + 1, :]
        mode = values.argmax(axis=2).astype(np.int32)
        prop = values.max(axis=2)
        mode[prop <= 0] = -1
        nrows, nslices = mode.shape
        leaf = np.repeat(np.arange(lo, hi, dtype=np.int32), nslices)
        sl = np.tile(np.arange(first, last + 1, dtype=np.int32), nrows)
        leaves = _leaf_nodes(self.current_hierarchy(m))
        draw = _compact({
            "node_id": leaves[leaf], "first_slice": sl, "last_slice": sl,
            "row_lo": leaf, "row_hi": leaf + 1, "mode": mode.ravel(), "mode_proportion": prop.ravel(),
            "alpha": _alpha(prop.ravel()), "gain": np.zeros(len(sl)), "loss": np.zeros(len(sl)),
        })
        bounds = np.linspace(m.start, m.end, m.slices + 1)
        paths = self.current_hierarchy(m).column("path").to_numpy(zero_copy_only=False)
        states = np.array(self.states + [None], dtype=object)
        df = pd.DataFrame({
            "resource": paths[leaves[leaf]], "row": leaf, "slice": sl, "slice_start": bounds[sl],
            "slice_end": bounds[sl + 1], "mode": states[mode.ravel()], "mode_proportion": prop.ravel(),
        })
        flat = values.reshape(nrows * nslices, -1)
        for x, s in enumerate(self.states):
            df["prop:" + s] = flat[:, x]
        return draw, df

    def current_hierarchy(self, model) -> pa.Table:
        return _bridge.table(model._h.Hierarchy)

    # --- what the mouse does, from Python ----------------------------------

    def set_level(self, i: int) -> None:
        """Show level i of the significant levels (the slider)."""
        self.level = int(i)

    def _on_level(self, change) -> None:
        v = self.current
        if v.kind != "overview" or change["new"] == v.level:
            return
        i = max(0, min(int(change["new"]), len(v.levels) - 1))
        v.level = i
        v.set_agg(v.model.aggregate(_level_p(v.levels, i)))
        self._show()

    def zoom(self, start: float, end: float) -> None:
        """Zoom on [start, end] (seconds): the model of that window, rebuilt
        from the trace when the model has one, else the model's slices
        that the window covers, shown at its recommended level."""
        v = self.current
        m = v.model
        if v.kind != "overview":
            raise ValueError("zoom: only an overview zooms; go back to it first")
        start, end = max(float(start), m.start), min(float(end), m.end)
        if not end > start:
            raise ValueError(f"zoom: the window {start:g}-{end:g} s is empty")
        source = getattr(m, "_source", None)
        if source is not None:
            trace, opts = source
            sub = trace.micro(**{**opts, "start": start, "end": end})
        else:
            dt = (m.end - m.start) / m.slices
            first = max(0, min(m.slices - 1, int(math.floor((start - m.start) / dt + 1e-9))))
            last = max(first, min(m.slices - 1, int(math.ceil((end - m.start) / dt - 1e-9)) - 1))
            sub = m.window(first, last)
        self._push(self._overview(sub, title=f"{sub.start:g}-{sub.end:g} s"))

    def open_detail(self, index: int) -> None:
        """Open the detail of aggregate ``index`` (a row of
        :meth:`view_table`): the cells of its resources over its time range."""
        v = self.current
        if v.kind != "overview":
            raise ValueError("open_detail: only the aggregates of an overview open")
        row = self._row(v, int(index))
        rows = self._part_rows(v)
        lo, hi = rows.column("row_lo")[index].as_py(), rows.column("row_hi")[index].as_py()
        d = View("detail", v.model, rows=(lo, hi), slices=(int(row["first_slice"]), int(row["last_slice"])),
                 title=f"{row['node']} {row['start']:g}-{row['end']:g} s", origin=_plain(row))
        self._push(d)

    def back(self) -> None:
        """The previous view."""
        if self._at > 0:
            self._at -= 1
            self._show()

    def forward(self) -> None:
        """The next view (after :meth:`back`)."""
        if self._at < len(self._history) - 1:
            self._at += 1
            self._show()

    def _on_msg(self, _widget, content, _buffers) -> None:
        action = content.get("action") if isinstance(content, dict) else None
        if action == "zoom":
            self.zoom(content["start"], content["end"])
        elif action == "open":
            self.open_detail(int(content["index"]))
        elif action == "back":
            self.back()
        elif action == "forward":
            self.forward()
        elif action == "click":
            self.click(int(content["index"]))

    def click(self, index: int) -> None:
        """What a click on rectangle ``index`` does: it becomes the
        :attr:`selection`, and an aggregate of the overview opens its detail."""
        v = self.current
        self._selection = self._row(v, index)
        if v.kind == "overview":
            self.open_detail(index)
        else:
            self.selected = index

    def _on_hover(self, change) -> None:
        i = change["new"]
        if i < 0:
            return
        v = self.current
        table = self._table(v)
        if i >= len(table):
            return
        row = table.iloc[i]
        props = sorted(((s, float(row["prop:" + s])) for s in self.states if row.get("prop:" + s, 0) > 0),
                       key=lambda sv: -sv[1])
        self.hover_info = {"index": i, "proportions": props[:8], "more": max(0, len(props) - 8)}

    # --- the current view, as data -----------------------------------------

    def _row(self, v: View, i: int) -> dict:
        t = self._table(v)
        if not 0 <= i < len(t):
            raise IndexError(f"no aggregate {i} in this view of {len(t)}")
        return t.iloc[i].to_dict()

    def _table(self, v: View):
        if v.kind == "detail":
            if v.df is None:
                v.df = self._cells(v)[1]
            return v.df
        if v.df is None:
            df = v.agg.to_pandas()
            rows = self._part_rows(v)
            df["row_lo"] = rows.column("row_lo").to_numpy()
            df["row_hi"] = rows.column("row_hi").to_numpy()
            v.df = df
        return v.df

    def view_table(self):
        """The current view as a DataFrame: the aggregates of the overview
        (the columns of ``Aggregation.to_pandas()`` and the rows each
        covers, row_lo to row_hi exclusive) or the cells of the detail
        (resource, row, slice, its time, the mode state and every state's
        proportion). Row i is the rectangle the browser calls i."""
        return self._table(self.current).copy()

    @property
    def selection(self) -> dict | None:
        """The aggregate (or, in a detail view, the cell) clicked last: its
        row of :meth:`view_table` as a dict, or None."""
        return self._selection

    @property
    def aggregation(self):
        """The :class:`macroscope.Aggregation` of the current overview."""
        v = self.current
        return v.agg if v.kind == "overview" else None

    @property
    def model(self):
        """The :class:`macroscope.MicroModel` of the current view (the
        window's model after a zoom)."""
        return self.current.model

    def figure(self, width: int = 960, height: int = 576):
        """The current view as a static :class:`macroscope.Figure`: the
        overview figure of the aggregation shown, or, for a detail view,
        the cells of the window (every resource of the model, at p = 0)."""
        v = self.current
        if v.kind == "overview":
            return v.agg.plot(width=width, height=height, title=v.title)
        sub = v.model.window(v.slices[0], v.slices[1])
        return sub.aggregate(0).plot(width=width, height=height, title=v.title)


# The draw table's column types: as small as the values allow, since the
# table crosses to the browser at every redraw (100,000 aggregates take
# 3.2 MB so, against 5.2 MB in 32- and 64-bit columns).
_DRAW_TYPES = {"node_id": pa.int32(), "first_slice": pa.int32(), "last_slice": pa.int32(), "row_lo": pa.int32(),
               "row_hi": pa.int32(), "mode": pa.int16(), "mode_proportion": pa.float32(), "alpha": pa.uint8(),
               "gain": pa.float32(), "loss": pa.float32()}


def _compact(columns: dict) -> pa.Table:
    """The draw table of ``columns`` in the types of _DRAW_TYPES."""
    return pa.table({name: pa.array(np.asarray(columns[name]) if not isinstance(columns[name], (pa.Array,
                                                                                                 pa.ChunkedArray))
                                    else columns[name]).cast(t) for name, t in _DRAW_TYPES.items()})


def _values(model) -> np.ndarray:
    """The model's cells as an array resources x slices x states (a view
    of the Arrow buffer, no copy)."""
    tbl = model.to_arrow()
    name = "proportion" if "proportion" in tbl.column_names else "value"
    col = tbl.column(name).combine_chunks()
    return col.to_numpy().reshape(model.resources, model.slices, len(model.states))


def _leaf_nodes(hierarchy: pa.Table) -> np.ndarray:
    """The node id of each row (leaf), in row order."""
    ids = hierarchy.column("id").to_numpy()
    parents = set(hierarchy.column("parent").to_numpy().tolist())
    lo = hierarchy.column("row_lo").to_numpy()
    leaf = np.array([i not in parents for i in ids.tolist()])
    out = np.empty(int(hierarchy.column("row_hi").to_numpy().max(initial=0)), dtype=np.int32)
    out[lo[leaf]] = ids[leaf]
    return out


def _plain(row: dict) -> dict:
    """A row with plain Python values (for JSON)."""
    out = {}
    for k, v in row.items():
        if isinstance(v, (np.generic,)):
            v = v.item()
        if isinstance(v, float) and not math.isfinite(v):
            v = None
        out[k] = v
    return out
