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

import itertools
import math
import threading
import weakref
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa
import traitlets

from .. import _bridge, _work
from .._clock import relative
from .._options import significant_options
from . import _cells, _levels
from ._base import ArrowWidget, arrow_trait, ipc, model_drawing


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
    cols: object = None  # agg's draw columns (_levels.draw_columns), made when first asked
    uid: int = 0  # names the view to the browser (its level pack)
    pack: object = None  # the levels the browser holds (_levels.LevelPack), overview only
    # A large model's overview opens at one level (the knee's, or p's);
    # its other levels are swept when first asked (_levels.LevelsOnDemand).
    sweep: object = None

    def set_agg(self, agg) -> None:
        self.agg, self.df, self.parts, self.cols = agg, None, None, None

    def aggregation(self):
        """The Aggregation of the level shown, computed when first asked
        (a slider step drawn from the browser's levels does not need it)."""
        if self.agg is None:
            self.agg = self.model.aggregate(_level_p(self.levels, self.level))
        return self.agg


def _level_p(levels, i: int) -> float:
    """The p shown for level i: the middle of its range (as recommended_p)."""
    row = levels.iloc[i]
    return float((row.p_low + row.p_high) / 2)


_uids = itertools.count(1)


# A model whose sweep of the significant levels costs more than this
# (resources x slices^3, the dynamic program's work per solve, which the
# sweep repeats for every level) opens at its recommended level, found with
# a handful of solves, while the sweep runs on a thread: 1,000 resources x
# 100 slices open in about a second instead of a minute. Smaller models
# (the bundled trace: 32 x 100) sweep before the first frame, as fast.
BACKGROUND_SWEEP_COST = 1e8


def _knee_levels(model, threshold: float) -> pd.DataFrame:
    """The recommended level alone, as a one-row significant_p table (the
    same level the sweep recommends, see MicroModel.recommended_p)."""
    lv = model._recommended_level(significant_options(threshold, "exact", True, "knee", "spatiotemporal", None,
                                                        None))
    return pd.DataFrame({"p_low": [float(lv["p_low"])], "p_high": [float(lv["p_high"])],
                         "gain": [float(lv["gain"])], "loss": [float(lv["loss"])],
                         "aggregates": np.array([lv["aggregates"]], dtype=np.int64), "recommended": [True]})


def _p_levels(agg) -> pd.DataFrame:
    """The level of the p asked for alone, as a one-row significant_p
    table, before the sweep: its partition ``agg`` (one solve), its range
    of p not yet known (p_low = p_high = p), not said to be recommended."""
    return pd.DataFrame({"p_low": [float(agg.p)], "p_high": [float(agg.p)], "gain": [float(agg.gain)],
                         "loss": [float(agg.loss)], "aggregates": np.array([len(agg)], dtype=np.int64),
                         "recommended": [False]})


def _level_of(levels, p: float) -> int:
    """The index of the level whose range holds p (the first, at a
    breakpoint), else the nearest."""
    lo, hi = levels.p_low.to_numpy(), levels.p_high.to_numpy()
    inside = np.flatnonzero((lo <= p) & (p <= hi))
    return int(inside[0]) if len(inside) else int(np.argmin(np.abs(lo - p)))


class ModelExplorer(ArrowWidget):
    """The interactive overview of a :class:`macroscope.MicroModel`
    (made by :meth:`macroscope.MicroModel.explore`).

    After the first frame of an overview, the browser receives the cells
    of its model (see ``_cells.py``) and the significant levels a chunk at
    a time (see ``_levels.py``). It draws a slider step to a level it
    holds, the detail of a clicked aggregate whose cells it holds, and
    back or forward to a view it can draw so, without waiting for Python;
    Python follows (the ``level`` trait, the page's messages), computes
    what is asked (selection, view_table) and confirms the view.

    Python side: :attr:`selection` (the clicked aggregate, a dict),
    :meth:`view_table` (the current view as a DataFrame), :meth:`figure`
    (the current view as a static :class:`macroscope.Figure`),
    :meth:`set_level`, :meth:`zoom`, :meth:`click`, :meth:`open_detail`, :meth:`back` and
    :meth:`forward` do what the mouse does.
    """

    _renderer = traitlets.Unicode("overview").tag(sync=True)

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
                 threshold: float = 1e-3, colors: dict | None = None, **kwargs):
        super().__init__(width=int(width), height=int(height), **kwargs)
        self._threshold = threshold
        self._history: list[View] = []
        self._at = -1
        # Held while the levels swept in the background replace a view.
        self._swap = threading.RLock()
        self._sweeps = []  # the sweeps of large models' levels (_sweep_later)
        self._selection = None
        self._model_tables = {}  # (id(model), name) -> (model, IPC bytes)
        self._mids = {}  # id(model) -> (model, the number naming it to the browser)
        self._cells_held: set[int] = set()  # models whose cells the page holds (_cells.py)
        # The page numbers the actions it draws ahead (seq); the views
        # Python sends say the last one handled, so that the page keeps
        # its own picture until Python has caught up.
        self._seq = 0
        self._shown_seq = 0
        # The overview figure's colours (one set of colours), and its
        # "other": with more states than a figure colours apart, the
        # smallest are drawn together, modes taken among the states drawn.
        drawing = model_drawing(model, colors)
        self._drawn = None
        if any(drawing["grouped"]):
            n = len(model.states)
            self._drawn = np.array([n if g else i for i, g in enumerate(drawing["grouped"])], dtype=np.int32)
            self.set_states(list(model.states) + ["other"], drawing["colors"] + [drawing["other"]])
        else:
            self.set_states(model.states, drawing["colors"])
        self.set_clock(model._info)
        self._push(self._overview(model, p=p))
        self.observe(self._on_level, names="level")
        self.observe(self._on_hover, names="hovered")
        self.on_msg(self._on_msg)

    # --- views -------------------------------------------------------------

    def _overview(self, model, p=None, title="") -> View:
        rows, slices, title = (0, model.resources), (0, model.slices - 1), title or _window_title(model)
        if model.resources * float(model.slices) ** 3 > BACKGROUND_SWEEP_COST:
            # One level first: the knee (a few solves), or p's (one solve).
            if p is None:
                v = self._level_view(model, _knee_levels(model, self._threshold), 0, rows, slices, title)
            else:
                agg = model.aggregate(p)
                v = self._level_view(model, _p_levels(agg), 0, rows, slices, title, agg=agg)
            self._sweep_later(v, knee=p is None)
            return v
        levels = model.significant_p(threshold=self._threshold)
        i = int(np.flatnonzero(levels.recommended.to_numpy())[0]) if p is None else _level_of(levels, p)
        return self._level_view(model, levels, i, rows, slices, title)

    def _level_view(self, model, levels, i, rows, slices, title, agg=None) -> View:
        """The overview of ``model`` at level ``i`` of ``levels`` (its
        aggregation ``agg`` when already at hand), and its level pack."""
        v = View("overview", model, levels=levels, level=i, rows=rows, slices=slices, title=title, uid=next(_uids))
        v.set_agg(agg if agg is not None else model.aggregate(_level_p(levels, i)))
        v.pack = _levels.LevelPack(model, levels, self.states, self._types(model), _level_p, self._drawn)
        return v

    def _sweep_later(self, v: View, knee: bool) -> None:
        """Make the sweep of the significant levels of overview ``v`` (shown
        at one level: the knee's, or the level of the p asked for), run on
        a thread when first asked: the page asks when its slider or quality
        curves are grabbed, Python with :meth:`wait_levels`. When the levels
        are known, ``v`` gives way, wherever it is in the history, to the
        same view with every level (the slider's), at the level that holds
        its p, redrawn if shown. The native side keeps the levels, so the
        sweep runs once per model. The thread holds the widget weakly."""
        me, model, threshold = weakref.ref(self), v.model, self._threshold

        def done(levels):
            w = me()
            if w is None:
                return
            if knee:  # the same level: the same partition, bit for bit
                i = int(np.flatnonzero(levels.recommended.to_numpy())[0])
                full = w._level_view(model, levels, i, v.rows, v.slices, v.title, agg=v.agg)
            else:  # the level holding p, as a small model's explorer opens
                full = w._level_view(model, levels, _level_of(levels, _level_p(v.levels, 0)), v.rows, v.slices,
                                     v.title)
            with w._swap:
                w._model_tables.pop((id(model), "levels"), None)
                shown = False
                for k, h in enumerate(w._history):
                    if h is v:
                        w._history[k] = full
                        shown = shown or k == w._at
                if shown:
                    w._show()

        v.sweep = _levels.LevelsOnDemand(
            lambda progress: model.significant_p(threshold=threshold, progress=progress), done,
            "macroscope significant levels")
        v.sweep.watch(self)
        self._sweeps.append(v.sweep)

    def close(self) -> None:
        """Close the widget, and stop the sweeps of its levels, running or
        not yet asked for (a large model's takes minutes of the kernel's
        cores)."""
        for sweep in getattr(self, "_sweeps", ()):
            sweep.stop()
        super().close()

    def wait_levels(self, timeout: float | None = None) -> bool:
        """The significant levels of the overview shown, swept if they are
        not yet (a large model's overview opens at one level, the
        recommended one or that of ``p``, and sweeps the others when the
        slider is first grabbed), and waited for: True once they are there
        (at once for smaller models), False if ``timeout`` seconds passed
        first. Raises what stopped the sweep, if anything did."""
        v = self.current
        return True if v.sweep is None else v.sweep.wait(timeout)

    @property
    def current(self) -> View:
        """The view shown."""
        return self._history[self._at]

    def _push(self, v: View) -> None:
        with self._swap:
            del self._history[self._at + 1:]
            self._history.append(v)
            self._at = len(self._history) - 1
            self._show()

    def _mid(self, model) -> int:
        """The number that names ``model`` to the browser (its cells)."""
        got = self._mids.get(id(model))
        if got is None or got[0] is not model:
            got = self._mids[id(model)] = (model, next(_uids))
        return got[1]

    def _held(self, v: View) -> bool:
        """Whether the page holds the data of view ``v`` (the level of an
        overview, the cells of a detail's model) and draws it itself."""
        if v.kind == "overview":
            return v.pack.shipped(v.level)
        return self._mid(v.model) in self._cells_held

    def _info(self, v: View, at: int | None = None) -> dict:
        """What the browser needs to place the view (the ``view`` trait):
        view ``v`` at position ``at`` of the history (None: the current
        one, with its neighbours, which the page draws ahead on back and
        forward when it holds their data)."""
        m = v.model
        # Times read from the trace's start (one clock: the title says
        # where it is on the trace's clock).
        start, end = relative(m._info)
        info = {"kind": v.kind, "title": v.title, "start": start, "end": end, "slices": m.slices,
                "first": v.slices[0], "last": v.slices[1], "row_lo": v.rows[0], "row_hi": v.rows[1],
                "step": self._at if at is None else at, "uid": v.uid, "model": self._mid(m),
                "held": self._held(v), "seq": self._seq,
                # Where the static overview marks the program's steps.
                "steps": list((m._info.get("steps") or {}).get("marks") or ())}
        if at is None:
            info["back"] = self._info(self._history[self._at - 1], self._at - 1) if self._at > 0 else None
            info["forward"] = (self._info(self._history[self._at + 1], self._at + 1)
                               if self._at < len(self._history) - 1 else None)
        if v.kind == "overview":
            lv = v.levels.iloc[v.level]
            info.update(level=v.level, p=_level_p(v.levels, v.level), n=int(lv.aggregates), gain=float(lv.gain),
                        loss=float(lv.loss),
                        # One level of many, the others swept when asked
                        # (the page says so, and asks when the slider is grabbed).
                        partial=v.sweep is not None, asked=v.sweep is not None and v.sweep.asked)
        else:
            # The cells of a detail view travel as a grid: row after row
            # (resources row_lo to row_hi), slice after slice.
            info.update(origin=v.origin, grid=True)
        return info

    def _show(self) -> None:
        """Send the current view to the browser."""
        v = self.current
        self._shown_seq = self._seq
        # What the page holds it draws itself: the aggregates trait keeps
        # its old bytes (the page draws from it only when not held).
        tables = {} if self._held(v) else {"aggregates": self._draw_table(v)}
        if v.kind == "overview":
            tables["levels"] = self._model_table(v.model, "levels", lambda: pa.Table.from_pandas(
                v.levels, preserve_index=False))
        tables["hierarchy"] = self._model_table(v.model, "hierarchy", lambda: pa.table(
            _bridge.table(v.model._h.Hierarchy).select(["id", "parent", "depth", "name", "path", "row_lo",
                                                        "row_hi"])))
        self.send_tables(**tables, view=self._info(v), hover_info={}, hovered=-1, selected=-1,
                         level=v.level if v.kind == "overview" else self.level,
                         can_back=self._at > 0, can_forward=self._at < len(self._history) - 1)

    def _model_table(self, model, name: str, make) -> bytes:
        """A table that depends on the model alone, encoded once."""
        key = (id(model), name)
        if key not in self._model_tables or self._model_tables[key][0] is not model:
            self._model_tables[key] = (model, ipc(make()))
        return self._model_tables[key][1]

    def _types(self, model) -> dict:
        return _levels.narrow_types(int(_bridge.table(model._h.Hierarchy).num_rows), int(model.slices),
                                    len(self.states))

    def _cols(self, v: View) -> dict:
        if v.cols is None:
            v.cols = _levels.draw_columns(v.aggregation(), self._part_rows(v), self.states, self._drawn)
        return v.cols

    def _positions(self, v: View) -> np.ndarray | None:
        """Row of view_table of each rectangle the browser numbers (None:
        the same numbers, as in a detail view)."""
        return _levels.positions(self._cols(v)) if v.kind == "overview" else None

    def _row_of(self, v: View, i: int) -> int:
        """The row of view_table of the browser's rectangle i."""
        pos = self._positions(v)
        return int(pos[i]) if pos is not None and 0 <= i < len(pos) else i

    def _draw_table(self, v: View) -> pa.Table:
        """What the browser draws: per rectangle its node, slices, mode
        (-1: no activity, not drawn), the mode's opacity and, for the
        tooltip, proportion, gain and loss, in the browser's order (see
        _levels.positions); a detail view's cells as a grid."""
        if v.kind == "detail":
            return self._cells(v)[0]
        cols = self._cols(v)
        return _levels.compact(cols, v.pack.types, take=_levels.positions(cols))

    @staticmethod
    def _part_rows(v: View) -> pa.Table:
        if v.parts is None:
            v.parts = _work.table(v.aggregation()._h.StartRows)
        return v.parts

    def _cells(self, v: View):
        """The cells of the detail view: every resource of the aggregate's
        node and slice of its time range, in the colour of its mode state.
        Returns the draw table (a grid: row after row, slice after slice;
        the browser knows their nodes and slices from the view) and the
        DataFrame of the cells."""
        m = v.model
        lo, hi = v.rows
        first, last = v.slices
        values = _values(m)[lo:hi, first:last + 1, :]
        mode, prop = _cells.modes(values, self._drawn)  # as the page's cells (_cells.message)
        nrows, nslices = mode.shape
        leaf = np.repeat(np.arange(lo, hi, dtype=np.int32), nslices)
        sl = np.tile(np.arange(first, last + 1, dtype=np.int32), nrows)
        leaves = _leaf_nodes(self.current_hierarchy(m))
        types = self._types(m)
        draw = pa.table({"mode": pa.array(mode.ravel()).cast(types["mode"]),
                         "alpha": pa.array(_levels.alpha(prop.ravel())),
                         "mode_proportion": pa.array(prop.ravel()).cast(pa.float32())})
        bounds = np.linspace(m.start, m.end, m.slices + 1)
        paths = self.current_hierarchy(m).column("path").to_numpy(zero_copy_only=False)
        states = np.array(self.states + [None], dtype=object)
        df = pd.DataFrame({
            "resource": paths[leaves[leaf]], "row": leaf, "slice": sl, "slice_start": bounds[sl],
            "slice_end": bounds[sl + 1], "mode": states[mode.ravel()], "mode_proportion": prop.ravel(),
        })
        flat = values.reshape(nrows * nslices, -1)
        for x, s in enumerate(m.states):
            df["prop:" + s] = flat[:, x]
        return draw, df

    def current_hierarchy(self, model) -> pa.Table:
        return _bridge.table(model._h.Hierarchy)

    # --- what the mouse does, from Python ----------------------------------

    def set_level(self, i: int) -> None:
        """Show level i of the significant levels (the slider)."""
        self.level = int(i)

    def _on_level(self, change) -> None:
        with self._swap:
            self._follow_level(change)

    def _follow_level(self, change) -> None:
        v = self.current
        if v.kind != "overview" or change["new"] == v.level:
            return
        i = max(0, min(int(change["new"]), len(v.levels) - 1))
        v.level = i
        v.set_agg(None)  # computed when asked (view_table, hover, click)
        if v.pack.shipped(i) and i == change["new"]:
            # The browser holds this level and draws it itself (a slider
            # step, or set_level from Python): only the view's numbers
            # change, with no new data (_sent_at) for the browser to draw.
            with self.hold_sync():
                self.view = self._info(v)
                self.hover_info, self.hovered, self.selected = {}, -1, -1
        else:
            self._show()

    def _prefetch(self, uid: int) -> None:
        """Ship the browser the next chunk of the levels of view ``uid``
        (when it is still the one shown), nearest the level shown first."""
        v = self.current
        if v.kind != "overview" or v.uid != uid:
            return
        mid = self._mid(v.model)
        if mid not in self._cells_held and v.model.resources * v.model.slices <= _cells.MAX_CELLS:
            # The cells first: 6 bytes a cell, computed in one pass.
            self._cells_held.add(mid)
            self.send(*_cells.message(v.model, _values(v.model), mid, v.pack.types, uid, self._drawn))
            return
        if v.pack.done:
            return
        content, buffers = v.pack.chunk(v.level, first=(v.level, v.agg) if v.agg is not None else None)
        self.send({**content, "view": uid}, buffers)

    def zoom(self, start: float, end: float) -> None:
        """Zoom on [start, end] (seconds from the trace's start, as the
        explorer shows them): the model of that window, rebuilt from the
        trace when the model has one, else the model's slices that the
        window covers, shown at its recommended level."""
        v = self.current
        m = v.model
        if v.kind != "overview":
            raise ValueError("zoom: only an overview zooms; go back to it first")
        lo, hi = relative(m._info)
        start, end = max(float(start), lo), min(float(end), hi)
        if not end > start:
            raise ValueError(f"zoom: the window {start:g}-{end:g} s is empty")
        source = getattr(m, "_source", None)
        if source is not None:
            trace, opts = source
            sub = trace.micro(**{**opts, "start": start, "end": end})
        else:
            dt = (hi - lo) / m.slices
            first = max(0, min(m.slices - 1, int(math.floor((start - lo) / dt + 1e-9))))
            last = max(first, min(m.slices - 1, int(math.ceil((end - lo) / dt - 1e-9)) - 1))
            sub = m.window(first, last)
        self._push(self._overview(sub, title=_window_title(sub)))

    def open_detail(self, index: int) -> None:
        """Open the detail of aggregate ``index`` (a row of
        :meth:`view_table`): the cells of its resources over its time range."""
        v = self.current
        if v.kind != "overview":
            raise ValueError("open_detail: only the aggregates of an overview open")
        row = self._row(v, int(index))
        rows = self._part_rows(v)
        lo, hi = rows.column("row_lo")[index].as_py(), rows.column("row_hi")[index].as_py()
        first, last = int(row["first_slice"]), int(row["last_slice"])
        # Seconds from the trace's start, as the page writes the title it
        # draws ahead (overview.js).
        t0, t1 = relative(v.model._info)
        dt = (t1 - t0) / v.model.slices
        d = View("detail", v.model, rows=(lo, hi), slices=(first, last),
                 title=f"{row['node']} {t0 + first * dt:g}-{t0 + (last + 1) * dt:g} s", origin=_plain(row))
        self._push(d)

    def back(self) -> None:
        """The previous view."""
        with self._swap:
            if self._at > 0:
                self._at -= 1
                self._show()

    def forward(self) -> None:
        """The next view (after :meth:`back`)."""
        with self._swap:
            if self._at < len(self._history) - 1:
                self._at += 1
                self._show()

    def _on_msg(self, _widget, content, _buffers) -> None:
        if not isinstance(content, dict):
            return
        with self._swap:
            self._handle(content)

    def _handle(self, content: dict) -> None:
        if "seq" in content:
            self._seq = int(content["seq"])
        try:
            self._act(content)
        finally:
            # An action the page drew ahead is confirmed, whatever came of
            # it (the view shown, perhaps unchanged).
            if "seq" in content and self._shown_seq != self._seq:
                self._show()

    def _act(self, content: dict) -> None:
        action = content.get("action")
        if action == "zoom":
            self.zoom(content["start"], content["end"])
        elif action == "levels":
            # The slider or the quality curves grabbed: the other levels.
            v = self.current
            if v.kind == "overview" and v.sweep is not None and not v.sweep.asked:
                v.sweep.ask()
                self.view = self._info(v)
        elif action == "prefetch":
            self._prefetch(int(content["view"]))
        elif action == "reset":
            # A page that holds no levels (a new view of the widget, a
            # reloaded page): ship its cells and every overview's levels afresh.
            stale = self._held(self.current)
            self._cells_held.clear()
            for v in self._history:
                if v.kind == "overview":
                    v.pack = _levels.LevelPack(v.model, v.levels, self.states, v.pack.types, _level_p, self._drawn)
            if stale:  # the aggregates trait may hold another view's data
                self._show()
        elif action == "open":
            self.open_detail(self._row_of(self.current, int(content["index"])))
        elif action == "back":
            self.back()
        elif action == "forward":
            self.forward()
        elif action == "click":
            self.click(self._row_of(self.current, int(content["index"])))

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
        row = table.iloc[self._row_of(v, i)]
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
            df = v.aggregation().to_pandas()
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
        return v.aggregation() if v.kind == "overview" else None

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
            return v.aggregation().plot(width=width, height=height, title=v.title)
        sub = v.model.window(v.slices[0], v.slices[1])
        return sub.aggregate(0).plot(width=width, height=height, title=v.title)


def _window_title(model) -> str:
    """A model's window in seconds from the trace's start (the time axis
    says where that is on the trace's clock)."""
    a, b = relative(model._info)
    return f"{a:g}-{b:g} s"


def _values(model) -> np.ndarray:
    """The model's cells as an array resources x slices x states, from its
    values that are not zero (the model's table lists those only)."""
    tbl = _work.table(model._h.StartCells)
    out = np.zeros((model.resources, model.slices, len(model.states)))
    cols = [tbl.column(name).combine_chunks().to_numpy() for name in ("row", "slice", "state", "value")]
    out[cols[0], cols[1], cols[2]] = cols[3]
    return out


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
