"""``cmp.explore()``: the runs of a comparison explored side by side.

One overview per run, of the same rows (the union of the runs'
hierarchies), on the same time axis and with the same partition: the
footprints of the differences table at a level of p, each drawn in every
run in the colour of that run's mode there. One slider moves p over the
levels of the comparison's model; dragging a time range in any run zooms
all of them (the page redraws them from the rows it holds); hovering a
footprint outlines it in every run and shows each run's proportions and
their deltas to the reference. The rows reported above the noise floor
(or the first by score) are outlined in a colour of their divergence, and
listed under the panels.

A large comparison (two runs of 10,000 resources: minutes of CPU to list
every level) opens at its recommended level alone, the knee, found with a
handful of solves, or at the p asked for; the other levels are swept on a
thread when the slider is first grabbed, and the slider gets them when
they are known (:meth:`CompareExplorer.wait_levels` asks and waits), as
the model explorer does.
"""

from __future__ import annotations

import threading
import weakref

import numpy as np
import pandas as pd
import pyarrow as pa
import traitlets

from .. import _bridge
from . import _levels, _overview
from ._base import ArrowWidget, arrow_trait

# The most runs drawn (as the static figure).
MAX_PANELS = 8
# The rows outlined when none is reported.
TOP = 10


def _alpha(v):
    return np.floor(30 + 225 * np.minimum(v, 1.0)).astype(np.uint8)


class CompareExplorer(ArrowWidget):
    """The explorers of a :class:`macroscope.Comparison`'s runs side by
    side (made by :meth:`macroscope.Comparison.explore`).

    Python side: :attr:`differences` (the table shown, a
    :class:`macroscope.Differences`), :meth:`view_table` (its DataFrame),
    :meth:`figure` (the static figure of the level), :meth:`set_level` and
    :meth:`zoom` do what the slider and the mouse do; :attr:`selection`
    is the footprint hovered last, with each run's proportions.
    """

    _renderer = traitlets.Unicode("compare").tag(sync=True)

    hierarchy = arrow_trait()  # the union hierarchy: id, parent, depth, name, path, row_lo, row_hi
    rows = arrow_trait()  # the level's aggregates (where the runs' parts meet) and, per run, mode and opacity
    marks = arrow_trait()  # the differences outlined: the level's nodes reported (or the first by score)
    levels = arrow_trait()  # significant_p of the comparison's model (the knee's alone until swept, if large)
    level = traitlets.Int(0).tag(sync=True)
    runs = traitlets.List(traitlets.Unicode()).tag(sync=True)
    reference = traitlets.Int(0).tag(sync=True)
    view = traitlets.Dict().tag(sync=True)  # p, slices, start, end, count, reported, note
    window = traitlets.List(traitlets.Int(), default_value=[0, 0]).tag(sync=True)  # slices shown (the page zooms)
    hovered = traitlets.Int(-1).tag(sync=True)  # a row of rows (the page sets it)
    hover_info = traitlets.Dict().tag(sync=True)
    width = traitlets.Int(900).tag(sync=True)
    height = traitlets.Int(260).tag(sync=True)  # of one run's panel
    layout = traitlets.Unicode("stacked").tag(sync=True)  # "stacked" (one above the other) or "side"

    def __init__(self, comparison, *, p: float | None = None, width: int = 900, height: int = 260,
                 threshold: float = 1e-2, layout: str = "stacked", permutations: int = 199, rank: str = "score",
                 **kwargs):
        if layout not in ("stacked", "side"):
            raise ValueError(f"layout: must be 'stacked' or 'side', got {layout!r}")
        names = comparison.names
        self._cmp = comparison
        self._panels = list(range(min(len(names), MAX_PANELS)))
        self._permutations = permutations
        self._rank = rank
        super().__init__(width=int(width), height=int(height), layout=layout, **kwargs)
        # The comparison figure's colours (one set of colours).
        self.set_states(comparison.states, _bridge.call_json(comparison._h.StateColors))
        self._threshold = threshold
        # Held while the levels swept on a thread replace the knee's.
        self._swap = threading.RLock()
        model = comparison.model
        large = model.resources * float(model.slices) ** 3 > _overview.BACKGROUND_SWEEP_COST
        self._sweep = None
        if large and p is None:
            # On this thread: Ctrl-C stops the knee's search.
            self._levels, i = _overview._knee_levels(model, threshold), 0
        elif large:
            # The level of p alone (its range not yet known): the
            # differences at p are the only solves before the first frame.
            self._levels, i = pd.DataFrame({"p_low": [float(p)], "p_high": [float(p)],
                                            "aggregates": np.array([0], dtype=np.int64),
                                            "recommended": [False]}), 0
        elif p is None:
            self._levels = comparison.significant_p(threshold=threshold)
            i = int(np.flatnonzero(self._levels.recommended.to_numpy())[0])
        else:
            self._levels = comparison.significant_p(threshold=threshold)
            i = _overview._level_of(self._levels, p)
        self._diff = None
        self._df = None
        self._parts = None
        self._selection = None
        hierarchy = _bridge.table(comparison._h.ResourceHierarchy)
        self.send_tables(hierarchy=hierarchy, runs=[names[r] for r in self._panels], reference=comparison.reference,
                         window=[0, comparison.slices - 1],
                         levels=self._levels_table())
        if large:
            self._sweep_in_background()
        self._show(i)
        if large and p is not None:  # the aggregates drawn at p
            self._levels.loc[0, "aggregates"] = len(self._parts)
            self.send_tables(levels=self._levels_table())
        self.observe(self._on_level, names="level")
        self.observe(self._on_hover, names="hovered")
        self.on_msg(self._on_msg)

    # --- the levels swept after the first frame ---------------------------

    def _sweep_in_background(self) -> None:
        """Make the sweep of every significant level, run on a thread when
        first asked (the page's slider grabbed, or :meth:`wait_levels`);
        then the slider holds them all, at the level holding the p shown:
        for the knee the same level, bit for bit (MicroModel.recommended_p),
        so nothing is computed again. The thread holds the widget weakly."""
        me, cmp, threshold = weakref.ref(self), self._cmp, self._threshold

        def done(levels):
            w = me()
            if w is None:
                return
            with w._swap:
                at = w._levels.iloc[w.level]
                # The level shown: the knee's, p's, or one the slider could not leave.
                i = _overview._level_of(levels, float((at.p_low + at.p_high) / 2))
                w._levels = levels
                w._sweep = None
                # The view before the level: a new level redraws (_on_level),
                # with a view of its own, sent after this one.
                w.send_tables(levels=w._levels_table(), view={**w.view, "partial": False, "asked": False}, level=i)

        self._sweep = _levels.LevelsOnDemand(
            lambda progress: cmp.significant_p(threshold=threshold, progress=progress), done,
            "macroscope comparison levels")
        self._sweep.watch(self)
        self._sweeps = [self._sweep]

    def close(self) -> None:
        """Close the widget, and stop the sweep of its levels, running or
        not yet asked for."""
        for sweep in getattr(self, "_sweeps", ()):
            sweep.stop()
        super().close()

    def wait_levels(self, timeout: float | None = None) -> bool:
        """The levels of a large comparison (it opens at one level, the
        recommended one or that of ``p``, and sweeps the others when the
        slider is first grabbed), swept if they are not yet, and waited
        for: True once the slider has them all (at once for smaller
        comparisons), False if ``timeout`` seconds passed first. Raises
        what stopped the sweep."""
        sweeps = getattr(self, "_sweeps", ())
        return True if not sweeps else sweeps[0].wait(timeout)

    def _on_msg(self, _widget, content, _buffers) -> None:
        if not (isinstance(content, dict) and content.get("action") == "levels"):
            return
        # Under the lock the sweep's thread takes to put its levels in: it
        # may end between a look at self._sweep and its use, and its
        # finished view must not be overwritten by this one.
        with self._swap:
            sweep = self._sweep
            if sweep is None:
                return
            # The slider grabbed: the other levels.
            sweep.ask()
            self.view = {**self.view, "asked": True}

    def _levels_table(self) -> pa.Table:
        return pa.Table.from_pandas(self._levels[["p_low", "p_high", "aggregates", "recommended"]],
                                    preserve_index=False)

    # --- the level --------------------------------------------------------

    def _p(self, i: int) -> float:
        row = self._levels.iloc[i]
        return float((row.p_low + row.p_high) / 2)

    def _show(self, i: int) -> None:
        p = self._p(i)
        # Drawn: the level's aggregates; outlined and listed: the level's
        # nodes (time cuts within a node merged), tested.
        self._parts = self._cmp.differences(p=p, rows="aggregates", permutations=-1, progress=False).to_pandas()
        self._diff = self._cmp.differences(p=p, permutations=self._permutations, rank=self._rank, progress=False)
        self._df = self._diff.to_pandas()
        info = self._cmp._info
        test = self._diff.test
        # One clock: the axis and the tooltips read from the comparison's
        # origin, as its figure and models do (the reference run's first
        # instant, not its first marker: Set.Origin), said once where it is
        # not the clock's zero.
        origin = float(info["origin"])
        self.clock = f"{origin:.9f}".rstrip("0").rstrip(".") if origin else ""
        self.send_tables(rows=self._draw_table(self._parts), marks=self._marks_table(self._df), level=i, view={
            "p": p, "slices": info["slices"], "start": info["start"], "end": info["end"], "origin": origin,
            "count": len(self._df),
            "aggregates": len(self._parts),
            "reported": int(test["reported"]), "test": test["method"], "note": test.get("note", ""),
            "align": info["align"],
            # One level of many, the others swept when the slider is grabbed.
            "partial": self._sweep is not None, "asked": self._sweep is not None and self._sweep.asked})

    def _draw_table(self, df) -> pa.Table:
        """The columns the page draws: the rows (leaves) and slices of
        each aggregate, its divergence and score, and for each run drawn
        the mode among the states (time in no state is the background, as
        in the static figure) and its opacity."""
        states = self.states
        real = [x for x, s in enumerate(states) if s != "(idle)"]
        cols = {
            "row_first": df.row_first.to_numpy(np.int32), "row_last": df.row_last.to_numpy(np.int32),
            "first_slice": df.first_slice.to_numpy(np.int32), "last_slice": df.last_slice.to_numpy(np.int32),
            "divergence": df.divergence.to_numpy(np.float64), "score": df.score.to_numpy(np.float64),
        }
        names = self._cmp.names
        for k, r in enumerate(self._panels):
            if real:
                props = np.stack([df[f"prop:{names[r]}:{states[x]}"].to_numpy() for x in real], axis=1)
                arg = props.argmax(axis=1)
                top = props[np.arange(len(df)), arg]
                mode = np.where(top > 0, np.array(real)[arg], -1).astype(np.int16)
            else:
                mode, top = np.full(len(df), -1, np.int16), np.zeros(len(df))
            cols[f"mode_{k}"] = mode
            cols[f"alpha_{k}"] = _alpha(top)
        return pa.table(cols)

    def _marks_table(self, df) -> pa.Table:
        """The differences outlined and listed: the rows reported, else
        the first TOP (ranked by score), with their node's path."""
        reported = df.reported.to_numpy()
        keep = reported if reported.any() else np.arange(len(df)) < TOP
        d = df[keep]
        return pa.table({
            "row": np.flatnonzero(keep).astype(np.int32), "node": d.node.astype(str).to_numpy(),
            "row_first": d.row_first.to_numpy(np.int32), "row_last": d.row_last.to_numpy(np.int32),
            "first_slice": d.first_slice.to_numpy(np.int32), "last_slice": d.last_slice.to_numpy(np.int32),
            "divergence": d.divergence.to_numpy(np.float64), "score": d.score.to_numpy(np.float64),
            "outlier_score": d.outlier_score.fillna(0).to_numpy(np.float64),
            "reported": d.reported.to_numpy().astype(np.uint8)})

    def _on_level(self, change) -> None:
        i = int(change["new"])
        with self._swap:
            if 0 <= i < len(self._levels) and (self._diff is None or abs(self._diff.p - self._p(i)) > 0):
                self._show(i)

    def set_level(self, i: int) -> None:
        """Show level ``i`` of the comparison's significant levels."""
        self.level = int(i)

    def zoom(self, first: int, last: int) -> None:
        """Show slices ``first`` to ``last`` in every run (as a drag does)."""
        first, last = max(0, int(first)), min(self._cmp.slices - 1, int(last))
        if last < first:
            raise ValueError(f"zoom: empty range {first}..{last}")
        self.send_tables(window=[first, last])

    # --- what the page asks -----------------------------------------------

    def _on_hover(self, change) -> None:
        i = int(change["new"])
        if self._parts is None or not 0 <= i < len(self._parts):
            self.hover_info = {}
            return
        r = self._parts.iloc[i]
        names, states = self._cmp.names, self.states
        ref = self._cmp.reference
        runs = []
        for k in self._panels:
            props = {s: float(r[f"prop:{names[k]}:{s}"]) for s in states}
            deltas = {s: props[s] - float(r[f"prop:{names[ref]}:{s}"]) for s in states}
            top = sorted(states, key=lambda s: -props[s])[:3]
            runs.append({"run": names[k], "props": {s: props[s] for s in top}, "deltas": {s: deltas[s] for s in top}})
        self._selection = {
            "row": i, "node": str(r.node), "first_slice": int(r.first_slice), "last_slice": int(r.last_slice),
            "start": float(r.start), "end": float(r.end), "divergence": float(r.divergence), "score": float(r.score),
            "outlier_score": None if np.isnan(r.outlier_score) else float(r.outlier_score), "runs": runs}
        self.hover_info = self._selection

    @property
    def selection(self) -> dict | None:
        """The aggregate hovered last: node, slices, times, divergence,
        score, outlier score, and each run's largest proportions and their
        deltas to the reference."""
        return self._selection

    @property
    def differences(self):
        """The differences table of the level shown."""
        return self._diff

    def view_table(self):
        """The level's differences table as a DataFrame (its nodes)."""
        return self._df

    def aggregates_table(self):
        """The level's aggregates as drawn, with their measures (a
        differences table of rows="aggregates", untested)."""
        return self._parts

    def figure(self):
        """The level as a static figure (:meth:`macroscope.Differences.plot`)."""
        return self._diff.plot(runs=self._panels)
