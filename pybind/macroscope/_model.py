"""The microscopic model and its optimal aggregations."""

from __future__ import annotations

import base64
import json
import math
import os
import warnings

import pandas as pd

from . import _bridge, _figure, _work
from ._errors import InvalidArgumentError
from ._figure import Figure
from ._moments import Moments, aggregation_moments
from ._options import engine_options, significant_options
from ._clock import span
from ._tables import TableResult, html_summary, incomplete_suffix, state_list
from ._treemap import Treemap, plot_treemap, treemap



def warn_notes(model: "MicroModel", stacklevel: int = 3) -> "MicroModel":
    """Warn about the model's notes (too many states for a figure, and the
    key that fits), once, where the model is built."""
    for note in model.notes:
        warnings.warn(note, UserWarning, stacklevel=stacklevel)
    return model


class MicroModel(TableResult):
    """The microscopic model of Dosimont et al. 2014: resources x time slices x states.

    ``to_pandas()`` gives the long table: resource (path), slice,
    slice_start, slice_end (s), state, duration (s spent in the state
    during the slice) and proportion (of the slice). Models of the other
    metrics (see :meth:`macroscope.Trace.micro`) have a column named after
    their categories ("state", "event" or "variable") and a "value" column
    instead of the last three.

    Three kinds of optimal partitions aggregate the model (``kind=``):

    * ``"spatiotemporal"``: any partition consistent with the hierarchy and
      the order of time (Dosimont et al. 2014, Algorithm 1, solved exactly);
    * ``"spatial"``: a cut of the hierarchy, each aggregate a node over the
      whole time window (Lamarche-Perrin et al., Algorithm 1); ``window=(first, last)``
      restricts it to a range of slices;
    * ``"temporal"``: one set of time cuts shared by every resource,
      resources never merged (lpaggreg's OLP).

    The spatiotemporal and temporal kinds measure their aggregates over
    the cells (resource x slice) they cover, with the entropy gain. The
    spatial kind measures them as Lamarche-Perrin et al. do: each resource
    once, by its shares of the window, and the gain as the number of values
    saved, |A| - 1 (``entities="cells", gain="entropy"`` measure it as the
    other kinds, so that the kinds compare).
    """

    @property
    def slices(self) -> int:
        return self._info["slices"]

    @property
    def start(self) -> float:
        """The window's start, in seconds on the trace's clock."""
        return self._info["start"]

    @property
    def end(self) -> float:
        """The window's end, in seconds on the trace's clock."""
        return self._info["end"]

    @property
    def origin(self) -> float:
        """The trace's first instant on its clock (seconds): reprs,
        figures and explorers count time from it (0 for a model made by
        hand)."""
        return self._info.get("origin", 0.0)

    @property
    def states(self) -> list[str]:
        return list(self._info["states"])

    @property
    def resources(self) -> int:
        return self._info["resources"]

    @property
    def notes(self) -> list[str]:
        """What a person should know before reading the model's figures:
        more states than a figure colours apart (figures then draw the
        smallest as "other"), with the coarser ``key=`` that fits. Each
        note is also warned about when the model is built."""
        return list(self._info.get("notes") or ())

    @property
    def left_out(self) -> pd.DataFrame:
        """What the model left out of the spans a profiler draws around the
        program's work (see :meth:`macroscope.Trace.micro`'s
        ``profiler_spans``): a row per kind of span, ``role`` ("recording",
        "step", "device annotation"), ``names`` (their grouped names) and
        ``seconds`` (their time in the window: their own, not that of the
        states nested in them, for the innermost states; events for the
        event metric). Empty when nothing was left out. The model's time
        and this add up to the time of the model that keeps them;
        ``left_out.attrs["resources"]`` counts the resources dropped for
        holding nothing else."""
        info = self._info.get("left_out") or {}
        rows = info.get("spans") or []
        df = pd.DataFrame({"role": [r["role"] for r in rows], "names": [list(r["names"]) for r in rows],
                           "seconds": pd.Series([float(r["total"]) for r in rows], dtype="float64")})
        df.attrs["resources"] = int(info.get("resources") or 0)
        return df

    @property
    def steps(self) -> pd.DataFrame:
        """The program's steps in the model's window, as its profiler marks
        them (PyTorch's ``ProfilerStep#N``, their NVTX or roctx ranges, an
        XSpace profile's steps), whether the model leaves their time out or
        not: a row per step, ``step`` (N), ``label`` ("step N"), ``start``
        and ``end`` (seconds from the trace's start), the earliest start
        and the latest end of that step over the resources, in order of
        start. The overview and the explorer mark where each starts. Empty
        for a trace without steps."""
        rows = (self._info.get("steps") or {}).get("steps") or []
        return pd.DataFrame({"step": pd.Series([int(r["step"]) for r in rows], dtype="int64"),
                             "label": [r["label"] for r in rows],
                             "start": pd.Series([float(r["start"]) for r in rows], dtype="float64"),
                             "end": pd.Series([float(r["end"]) for r in rows], dtype="float64")})

    @property
    def nbytes(self) -> int:
        """The memory the model's values take: 8 bytes a value, or, for a
        model of many states of which a cell holds a few (it is then kept
        sparse, see docs/aggregation.md), 12 bytes a value that is not zero
        and 8 a cell."""
        return self._info["nbytes"]

    @property
    def trace_info(self) -> dict | None:
        """For a model built by :func:`macroscope.read_micro`, what was read:
        files, format, containers, states, variables, links and events
        (counts), start and end (the trace's, s), passes (reads of the input)
        and in_memory (whether the last read had to keep the trace; see
        docs/ingestion.md). None for a model built from a :class:`Trace`."""
        return self._info.get("trace")

    @property
    def metric(self) -> str:
        """What each cell measures: "state_duration", "state_average_duration",
        "event_count" or "variable_average"."""
        return self._info.get("metric", "state_duration")

    def aggregate(self, p: float, normalize: bool = True, *, kind: str = "spatiotemporal", gain: str | None = None,
                  window: tuple[int, int] | None = None, ties: str = "finest",
                  entities: str | None = None, progress=None) -> "Aggregation":
        """The optimal partition of the given ``kind`` (see the class) for
        the trade-off ``p`` in [0, 1]: it maximises p * gain - (1 - p) * loss
        over the partitions of its kind. 0 keeps every cell (the microscopic
        view), 1 merges everything.

        At p = 0 every partition that merges only identical cells loses
        nothing and ties with keeping every cell: ``ties="finest"`` (the
        default) returns every cell apart there (every resource over the
        window for the spatial kind), ``ties="lpaggreg"`` follows lpaggreg,
        whose tie rule (the larger gain) merges those cells already at
        p = 0. Above 0 both give the same partitions.

        ``entities`` says what the spatial kind measures its aggregates
        over: "resources" (its default, Lamarche-Perrin et al.: each
        resource once, by its mean over the window, so that p, raw or
        normalised, does not depend on the number of slices) or "cells"
        (resource x slice, as the other kinds, so that the kinds compare).

        ``gain`` is "size" (the number of values saved, |A| - 1 per
        aggregate, Lamarche-Perrin et al.: the spatial kind's default) or
        "entropy" (the reduction of entropy, Dosimont et al. 2014: the
        other kinds' default); None means the kind's default. The loss is
        the Kullback-Leibler divergence of the entities to their mean.
        With ``normalize`` (the default) gain and loss are divided by those
        of the coarsest partition of the kind (the one optimal at p = 1), so
        both run from 0 to 1 and p reads the same on any model: p / (1 - p)
        is the share of the total loss one accepts to pay for each share of
        the total gain. The coarsest partition becomes optimal a little
        above p = 0.5 on most models. With the spatial kind's defaults this
        is the scale of p of Lamarche-Perrin et al. (their p = 10% details
        exactly the heterogeneous groups of their million processes).

        ``window=(first, last)`` (slices, inclusive) restricts the spatial
        kind to part of the model's time.

        The optimum of a million resources takes seconds: ``progress``
        shows it as :meth:`significant_p` does (the part of the hierarchy
        solved), and Ctrl-C or Jupyter's stop button stops the Go solve
        with KeyboardInterrupt.
        """
        _check_p(p)
        engine = engine_options(kind, normalize, gain, window, ties, entities)
        work = _bridge.call(self._h.StartAggregate, float(p), engine)
        _work.run(work, "aggregate", progress)
        agg = Aggregation(_bridge.call(work.Aggregation))
        agg._source = (self, engine)  # for explorers that move p (explore_treemap)
        return agg

    def significant_p(self, threshold: float = 1e-3, method: str = "exact", normalize: bool = True,
                      recommend: str = "knee", kind: str = "spatiotemporal", gain: str | None = None,
                      window: tuple[int, int] | None = None, ties: str = "finest", entities: str | None = None, *,
                      progress=None) -> pd.DataFrame:
        """DataFrame of the distinct optimal partitions of ``kind`` as p goes
        from 0 to 1: the range [p_low, p_high] over which each is optimal,
        its gain, loss and number of aggregates, and which one is
        ``recommended``.

        ``method="exact"`` asks the solver where the lines p*(gain+loss) -
        loss of two known optima cross, so breakpoints are exact; with
        ``threshold=0`` it lists every distinct optimal partition, and with
        ``threshold > 0`` it does not look between optima found less than
        ``threshold`` apart in p (partitions optimal only on such narrow
        ranges are skipped). ``method="dichotomy"`` is Ocelotl's search:
        bisect while the two ends differ and are more than ``threshold``
        apart. Raw measures (``normalize=False``) put the interesting
        levels of large models at tiny p: use ``threshold=0`` there.

        ``recommend`` picks the level to show first: ``"knee"`` (closest to
        full gain at no loss, on normalised measures; lpaggreg's p_opt) or
        ``"ocelotl"`` (after the largest jump of | |dGain| - |dLoss| |,
        Ocelotl's default). ``kind``, ``normalize``, ``gain``, ``window``,
        ``ties`` and ``entities`` are those of :meth:`aggregate`: by default the first level
        is the microscopic view, optimal at p = 0 only (p_low = p_high = 0).
        Results are kept: asking again is free.

        The search of a large model takes a while: ``progress`` shows it
        (None: a tqdm bar when it lasts over a second; True, False, or a
        callable ``f(done, total)`` in thousandths of [0, 1] settled), and
        Ctrl-C or Jupyter's stop button stops it (the Go search stops
        before its next solve and keeps nothing) with KeyboardInterrupt.
        """
        opts = significant_options(threshold, method, normalize, recommend, kind, gain, window, ties, entities)
        self._sweep(opts, progress)
        return _bridge.to_pandas(_bridge.table(self._h.SignificantP, opts))

    def _sweep(self, opts: str, progress=None):
        """Run the significant-p search of ``opts`` with progress and Ctrl-C
        (see :meth:`significant_p`); the native side keeps its levels."""
        _work.run(_bridge.call(self._h.StartSignificant, opts), "significant p", progress)

    def recommended_p(self, threshold: float = 1e-3, method: str = "exact", normalize: bool = True,
                      recommend: str = "knee", kind: str = "spatiotemporal", gain: str | None = None,
                      window: tuple[int, int] | None = None, ties: str = "finest", entities: str | None = None, *,
                      progress=None) -> float:
        """The p to look at first: the middle of the range of the level
        :meth:`significant_p` recommends (same keyword arguments).

        The knee (the default) is found without listing every level: a
        handful of solves where the sweep of a large model needs one per
        level (seconds instead of a minute for 1,000 resources), and the
        same level, bit for bit."""
        level = self._recommended_level(significant_options(threshold, method, normalize, recommend, kind, gain,
                                                             window, ties, entities), progress)
        return float((level["p_low"] + level["p_high"]) / 2)

    def _recommended_level(self, opts: str, progress=None) -> dict:
        """The recommended level of the search ``opts`` (see
        :meth:`recommended_p`): p_low, p_high, gain, loss, aggregates."""
        _work.run(_bridge.call(self._h.StartRecommended, opts), "recommended p", progress)
        return json.loads(_bridge.call(self._h.Recommended, opts))

    def quality_curve(self, kind: str = "spatiotemporal", threshold: float = 1e-3, method: str = "exact",
                      normalize: bool = True, gain: str | None = None, window: tuple[int, int] | None = None,
                      ties: str = "finest", entities: str | None = None, *, progress=None) -> pd.DataFrame:
        """DataFrame of the quality curves: the gain and loss of the optimal
        partition (and its number of aggregates) against p, a step function
        given by its vertices: two rows per level, at p_low and p_high, so
        that plotting ``p`` against ``gain`` and ``loss`` draws the steps.
        Arguments are those of :meth:`significant_p`."""
        levels = self.significant_p(threshold=threshold, method=method, normalize=normalize, kind=kind, gain=gain,
                                    window=window, ties=ties, entities=entities, progress=progress)
        rows = []
        for lv in levels.itertuples():
            for p in (lv.p_low, lv.p_high):
                rows.append((p, lv.gain, lv.loss, lv.aggregates))
        return pd.DataFrame(rows, columns=["p", "gain", "loss", "aggregates"])

    def plot_quality(self, path: str | os.PathLike | None = None, kind: str = "spatiotemporal",
                     threshold: float = 1e-3, method: str = "exact", normalize: bool = True, gain: str | None = None,
                     window: tuple[int, int] | None = None, recommend: str = "knee", log_p: bool = False,
                     width: int = 768, height: int = 576, format: str | None = None, title: str | None = None,
                     ties: str = "finest", entities: str | None = None) -> Figure:
        """Draw the quality curves (Ocelotl's): gain (green) and loss (red) of
        the optimal partition of ``kind`` against p, as fractions of those of
        the coarsest partition, the number of aggregates below, and the
        recommended p dashed. ``log_p`` puts p on a logarithmic axis.

        Sizes are in pixels. With ``path`` the image is written there (the
        format follows the extension, .png or .svg) and the path returned;
        otherwise the image bytes are returned.
        """
        w, h = _figure.points(width, height)  # before the sweep: a bad size fails at once
        opts = json.loads(significant_options(threshold, method, normalize, recommend, kind, gain, window, ties,
                                               entities))
        self._sweep(json.dumps(opts))  # progress and Ctrl-C for the search; the figure reuses it
        opts.update(width=w, height=h, log_p=bool(log_p))
        if title is not None:
            opts["title"] = title
        return _figure.plot(lambda fmt: _bridge.call(self._h.PlotQuality, json.dumps({**opts, "format": fmt})),
                            path, format, title or "quality curves")

    def window(self, first: int, last: int) -> "MicroModel":
        """The model of slices ``first`` to ``last`` (inclusive): the same
        resources and cells over that part of the time. A model of a
        window with more slices comes from the trace instead
        (``trace.micro(start=, end=)``)."""
        return MicroModel(_bridge.call(self._h.Window, int(first), int(last)))

    def explore(self, p: float | None = None, width: int = 900, height: int = 420, threshold: float = 1e-3, *,
                colors: dict | None = None):
        """The interactive overview in a notebook (needs ``anywidget``; see
        docs/widgets.md): the aggregates at a level of p chosen with a
        slider beside the quality curves (the recommended level first, or
        the level of ``p``), brushing a time range zooms, hovering names an
        aggregate, clicking opens its cells, back and forward. Returns the
        widget: ``widget.selection``, ``widget.view_table()`` and
        ``widget.figure()`` give what it shows. States take the colours of
        the overview figure (:meth:`Aggregation.plot`), ``colors``
        overriding them as there."""
        # Imported when asked: the widgets need anywidget, an optional
        # dependency, and take time to import.
        from .widgets import ModelExplorer

        return ModelExplorer(self, p=p, width=width, height=height, threshold=threshold, colors=colors)

    def _repr_html_(self) -> str:
        i = self._info
        return html_summary("macroscope.MicroModel", [
            ("cells", f"{i['resources']} resources x {i['slices']} slices x {len(i['states'])} states ({i['metric']})"),
            ("time", span(i)),
            ("states", state_list(list(i["states"]))),
            ("left out", i.get("left_out_note") or ""),
            ("notes", "; ".join(i.get("notes") or ())),
            ("incomplete", "; ".join(i.get("incomplete") or ())),
        ])

    def __repr__(self) -> str:
        i = self._info
        return (f"<macroscope.MicroModel {i['resources']} resources x {i['slices']} slices x "
                f"{len(i['states'])} states, {span(i)}{_left_out_suffix(i)}{incomplete_suffix(i)}>")


def _left_out_suffix(info) -> str:
    """The repr's word on the profiler's spans left out: their time, and
    the keyword that keeps them (the whole sentence is the summary's)."""
    rows = (info.get("left_out") or {}).get("spans") or []
    if not rows:
        return ""
    total = sum(float(r["total"]) for r in rows)
    unit = " events" if info.get("metric") == "event_count" else " s"
    return f", {total:.4g}{unit} of profiler spans left out (profiler_spans=True keeps them)"


def _check_p(p):
    if not isinstance(p, (int, float)) or not (0 <= p <= 1) or math.isnan(p):
        raise InvalidArgumentError(f"p: must be a number in [0, 1], got {p!r}", param="p")


class Aggregation(TableResult):
    """An optimal partition of a microscopic model.

    ``to_pandas()`` lists the aggregates: node (hierarchy path), depth,
    first_slice, last_slice, start, end (s), leaves (resources covered),
    mode (the state with the largest mean proportion), mode_proportion,
    ``prop:<state>`` for every state, gain and loss. Spatial aggregates
    span the whole window (their first and last slices are the window's);
    temporal aggregates are single resources.
    """

    @property
    def p(self) -> float:
        return self._info["p"]

    @property
    def kind(self) -> str:
        """The kind of partition: "spatiotemporal", "spatial" or "temporal"."""
        return self._info.get("kind", "spatiotemporal")

    @property
    def gain(self) -> float:
        """Total gain of the partition (sum over aggregates)."""
        return self._info["gain"]

    @property
    def loss(self) -> float:
        """Total information loss of the partition."""
        return self._info["loss"]

    @property
    def pic(self) -> float:
        """p * gain - (1 - p) * loss: what the partition maximises."""
        return self._info["pic"]

    def __len__(self) -> int:
        return self._info["aggregates"]

    def plot(self, path: str | os.PathLike | None = None, width: int = 960, height: int = 576,
             format: str | None = None, title: str | None = None, *, colors: dict | None = None) -> Figure:
        """Draw the overview figure of Dosimont et al. 2014: one row per resource grouped
        by the hierarchy, one rectangle per aggregate in the colour of its
        mode state, more opaque as the mode dominates.

        States take the colours the trace defines (Pajé's entity values,
        Paraver's .pcf), the others the palette's; ``colors`` (a dict from
        state name to colour: ``"#rrggbb"``, a colour name, ``"tab:blue"``
        or an (r, g, b) tuple in [0, 1]) overrides them. The aggregate
        table's ``row_first`` and ``row_last`` are the rows (0 at the top)
        each aggregate covers, to redraw the figure with another library.

        Sizes are in pixels. With ``path`` the image is written there (the
        format follows the extension, .png or .svg) and the path returned;
        otherwise the image bytes are returned.
        """
        w, h = _figure.points(width, height)
        return _figure.plot(lambda fmt: _work.compute(self._h.StartPlot, _bridge.options(
            width=w, height=h, format=fmt, title=title,
            colors=_figure.color_options(colors)), result="Image"),
            path, format, title or "overview")

    def _repr_png_(self):
        return self.plot().to_bytes("png")

    def _repr_html_(self) -> str:
        """What a notebook shows: the summary a person reads first, then
        the overview figure (the PNG of :meth:`_repr_png_`, inline), since
        a front end that takes the HTML shows no other form."""
        i = self._info
        source = getattr(self, "_source", None)
        model = source[0]._info if source is not None else None
        rows = [
            ("aggregates", f"{i['aggregates']} ({i.get('kind', 'spatiotemporal')}, p = {i['p']:g})"),
            ("gain, loss", f"{i['gain']:.6g}, {i['loss']:.6g}"),
            ("model", f"{model['resources']} resources x {model['slices']} slices x {len(model['states'])} states"
             if model is not None else ""),
            ("time", span(model) if model is not None else ""),
            ("left out", (model.get("left_out_note") or "") if model is not None else ""),
            ("incomplete", "; ".join(i.get("incomplete") or ())),
        ]
        png = base64.b64encode(self._repr_png_()).decode("ascii")
        return (html_summary("macroscope.Aggregation", rows)
                + f"<img alt='overview' style='max-width:100%' src='data:image/png;base64,{png}'/>")

    def moments(self, busy=None, by: str = "aggregate", *, idle=None, state_types=None, nesting: str = "innermost",
                gaps: bool = False) -> Moments:
        """Moments of utilization of every aggregate: the busy functions of
        the resources under its node, added, over its time range. ``by`` is
        "aggregate" or "state"; the other arguments are those of
        :meth:`macroscope.Trace.moments` (state types default to the
        model's)."""
        return aggregation_moments(self, busy=busy, by=by, idle=idle, state_types=state_types, nesting=nesting,
                                   gaps=gaps)

    def treemap(self, value: str = "leaves", width: float = 1.0, height: float = 1.0, *, padding: float = 0.0,
                header: float = 0.0, root: str | None = None) -> Treemap:
        """The squarified treemap of the aggregation (Lamarche-Perrin et al. 2014):
        every aggregate a rectangle of area proportional to its number of
        resources (``value="leaves"``) or its activity (``"activity"``: the
        seconds spent in states over the window), nested inside the
        rectangles of its ancestors, laid out in a ``width`` x ``height``
        rectangle. ``padding`` and ``header`` leave room inside each group
        (same units); ``root`` (a node path) lays out that subtree only.
        Returns a :class:`macroscope.Treemap` (a table of rectangles; shown
        as the figure in Jupyter). See docs/treemap.md."""
        return treemap(self, value, width, height, padding, header, root)

    def explore_treemap(self, value: str = "leaves", root: str | None = None, *, threshold: float = 0.0,
                        height: int = 560, colors: dict | None = None):
        """An interactive treemap in Jupyter (a widget): click a group to
        zoom into it, move p over the model's significant levels of this
        aggregation's kind (``threshold`` as in
        :meth:`MicroModel.significant_p`), hover a rectangle for its node
        and values. ``height`` is in pixels; states take the colours of
        :meth:`plot_treemap`, ``colors`` overriding them as there. See
        docs/widgets.md."""
        # Imported when asked, as for explore() above.
        from .widgets._treemap import TreemapExplorer

        return TreemapExplorer(self, value=value, root=root, threshold=threshold, height=height, colors=colors)

    def plot_treemap(self, path: str | os.PathLike | None = None, width: int = 960, height: int = 720, *,
                     value: str = "leaves", root: str | None = None, proportions: bool = True, zooms: int = 3,
                     format: str | None = None, title: str | None = None, colors: dict | None = None) -> Figure:
        """Draw the treemap figure: aggregates divided into a strip per
        state as wide as its share (the default), or with
        ``proportions=False`` in the colour of their mode state (opacity
        from its share, as in :meth:`plot`), framed and named groups,
        a legend, and up to ``zooms`` enlarged views of detailed groups too
        small to read (circled on the map). Sizes are in pixels. With
        ``path`` the image is written there (PNG or SVG by the extension)
        and the path returned; otherwise the image bytes are returned.
        ``colors`` overrides the states' colours, as in :meth:`plot`."""
        return plot_treemap(self, path, width, height, value=value, root=root, proportions=proportions, zooms=zooms,
                            format=format, title=title, colors=colors)

    def __repr__(self) -> str:
        i = self._info
        return (f"<macroscope.Aggregation {i.get('kind', 'spatiotemporal')} p={i['p']:g}: {i['aggregates']} aggregates, "
                f"gain {i['gain']:.6g}, loss {i['loss']:.6g}{incomplete_suffix(i)}>")
