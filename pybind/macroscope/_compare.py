"""What changed between two or many runs, where and when, in bits
(docs/compare.md).

:func:`compare` reads the runs one after the other, each into its own
microscopic model on a common time axis, and lays them out as one model
whose hierarchy has the run as a level. Its optimal aggregation keeps the
runs apart where they differ enough; :meth:`Comparison.differences` ranks
those places by divergence times size, tells each run's proportions and
tests them against the noise between repetitions. :func:`compare_series`
summarises a series of runs (a scaling study, nightly runs) in one table,
a row per run, on one machine or a Dask cluster.
"""

from __future__ import annotations

import json
import os
import pathlib
import warnings
from collections.abc import Sequence

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from . import _bridge, _distributed, _figure, _work
from ._errors import EmptyTraceError, InvalidArgumentError
from ._figure import Figure
from ._formats import check_options
from ._model import MicroModel
from ._pop import pop
from ._stream import read_micro
from ._tables import TableResult
from ._trace import Trace

_ALIGN = ("stretch", "start", "absolute", "markers", "auto")
_ROWS = ("nodes", "aggregates", "hierarchy")
_COMPRESSED = (".gz", ".bz2", ".zst", ".xz")


def _stem_and_folders(path) -> list[str]:
    """A file's name without its extensions (base.json.gz: base), then the
    folders above it, upward."""
    p = pathlib.PurePath(os.path.normpath(os.fspath(path)))
    name = p.name
    for ext in _COMPRESSED:
        if name.endswith(ext):
            name = name[: -len(ext)]
    parts = [pathlib.PurePath(name).stem or name]
    parts += [d for d in reversed(p.parent.parts) if d not in (os.sep, ".", "")]
    return parts


def _default_names(runs) -> list[str]:
    """The runs' default names: a file's name without its extensions,
    with the folders that tell apart files named alike
    ("traces-32/traces", "traces-64/traces": a Score-P archive is always
    traces.otf2); "run i" for a run in memory; "name (2)" for the same
    file twice. The rule of compare.RunNames, which the command line
    uses."""
    parts = [_stem_and_folders(r) if isinstance(r, (str, os.PathLike)) else None for r in runs]
    depth = [1] * len(runs)

    def name(i):
        return "/".join(reversed(parts[i][: depth[i]]))

    while True:
        groups: dict[str, list[int]] = {}
        for i, p in enumerate(parts):
            if p is not None:
                groups.setdefault(name(i), []).append(i)
        grew = False
        for same in groups.values():
            if len(same) < 2 or len({"/".join(parts[i]) for i in same}) < 2:
                continue
            for i in same:
                if depth[i] < len(parts[i]):
                    depth[i] += 1
                    grew = True
        if not grew:
            break
    out: list[str] = []
    for i, p in enumerate(parts):
        base = n = name(i) if p is not None else f"run {i}"
        k = 2
        while n in out:
            n = f"{base} ({k})"
            k += 1
        out.append(n)
    return out


def _names(runs, names) -> list[str]:
    if names is not None:
        names = [str(n) for n in names]
        if len(names) != len(runs):
            raise InvalidArgumentError(f"names: {len(names)} names for {len(runs)} runs", param="names")
        if len(set(names)) != len(names):
            raise InvalidArgumentError(f"names: run names must differ, got {names}", param="names")
        return names
    return _default_names(runs)


def _labels(runs, labels) -> list[str | None]:
    if labels is None:
        return [None] * len(runs)
    labels = list(labels)
    if len(labels) != len(runs):
        raise InvalidArgumentError(f"labels: {len(labels)} labels for {len(runs)} runs", param="labels")
    return [str(x) for x in labels]


def _metadata(runs, metadata) -> list[dict[str, str]]:
    """The runs' metadata: a list of dicts or a DataFrame of a row per run."""
    if metadata is None:
        return [{} for _ in runs]
    if isinstance(metadata, pd.DataFrame):
        metadata = metadata.to_dict("records")
    metadata = list(metadata)
    if len(metadata) != len(runs):
        raise InvalidArgumentError(f"metadata: {len(metadata)} entries for {len(runs)} runs", param="metadata")
    out = []
    for m in metadata:
        if not isinstance(m, dict):
            raise InvalidArgumentError(f"metadata: each run's must be a dict, got {m!r}", param="metadata")
        out.append({str(k): str(v) for k, v in m.items()})
    return out


def _markers(markers):
    if markers is None or isinstance(markers, str):
        return {"name": markers or ""}
    if isinstance(markers, dict):
        unknown = set(markers) - {"name", "by", "resource"}
        if unknown:
            raise InvalidArgumentError(f"markers: unknown keys {sorted(unknown)} (use name, by, resource)",
                                       param="markers")
        return {k: str(v) for k, v in markers.items()}
    raise InvalidArgumentError(f"markers: None (the steps), a name (\"ProfilerStep*\") or a dict of name, by, resource; "
                               f"got {markers!r}",
                               param="markers")


def compare(runs: Sequence, labels: Sequence | None = None, *, names: Sequence[str] | None = None,
            reference: int = 0, slices: int | None = None, align: str = "stretch", markers=None, length="max",
            start: float | None = None, end: float | None = None,
            run_level: str = "resource", match: str = "auto", state_types: list[str] | None = None,
            depth: int | None = None, key: str = "group", metadata=None, format: str | None = None,
            memory_budget: int | None = None, profiler_spans: bool = False, progress=None,
            **options) -> "Comparison":
    """Compare runs: one microscopic model of all of them, whose hierarchy
    has the run as a level, and what differs between them, where and when.

    ``runs`` are trace files (paths: each is read while it is modelled,
    one run after the other, never all in memory), :class:`Trace` objects,
    or :class:`MicroModel` objects built alike (the same slices; only
    ``align="stretch"`` applies to them). ``labels`` groups them: runs
    sharing a label are repetitions of one configuration, and the noise
    between them is the floor a difference must clear (see
    :meth:`Comparison.differences`); by default each run is its own.
    ``slices`` cuts the common axis (default 100, or the models' own).
    ``names`` name the runs (default: the files' names); ``metadata`` is a
    dict per run, or a DataFrame with a row per run, kept with them.

    ``align`` puts the runs' times on one axis: ``"stretch"`` (each run's
    own extent cut into ``slices``: slice k is the same fraction of every
    run), ``"start"`` (seconds from each run's start, over ``length``:
    "max", "min" or seconds; past a run's end its cells are absent),
    ``"absolute"`` (the times as recorded: ranks of one job on one clock)
    or ``"markers"`` (each run warped piecewise linearly between markers it
    carries: by default the steps of its main loop as its reader marks
    them, numbered, whatever the producer (PyTorch profiler's
    ProfilerStep#N in Kineto, Nsight Systems and rocprof traces, JAX's
    StepTraceAnnotation in XSpace files); or
    ``markers="iteration*"``, the states or events so named; or a dict
    with ``name``, ``by`` ("number" or "ordinal") and ``resource``), or
    ``"auto"``: ``"start"`` when the runs' durations are within 5% of
    each other (repetitions: a change local in time stays local), else
    ``"stretch"`` (runs of different lengths, as a scaling study's), and
    ``"start"`` whatever the durations when ``end`` is given (every run
    over the same seconds); it uses ``length`` when it chooses ``"start"``
    and refuses runs given as models; :attr:`Comparison.align` says which
    was used and
    :attr:`Comparison.align_reason` why. docs/compare.md tells each
    one's limits.

    ``start`` and ``end`` (seconds from each run's start, as
    :meth:`Trace.micro` counts them; with ``align="absolute"`` from the
    earliest run's start) restrict the comparison to a window; they give
    a run without duration the window it needs. Not with ``"markers"``,
    nor with runs given as models (build them on the window).

    ``run_level="resource"`` puts a leaf per run under every resource (the
    aggregation keeps runs apart resource by resource where they differ);
    ``"top"`` puts the runs above a copy of the whole hierarchy each.
    Resources are matched by path and, where names differ only by their
    numbers (process and thread ids, the GPU of each rank's profile) and
    no name of that pattern is in both runs, in order (``match="auto"``,
    the default; :attr:`Comparison.warnings` and the runs'
    ``matched_by_pattern`` say which), by path alone (``"path"``) or by
    position among their siblings (``"position"``); a resource a run
    lacks is ``(absent)``, time in no state ``(idle)``. ``state_types``, ``depth``, ``key`` and ``profiler_spans`` are those of
    :meth:`Trace.micro`; ``format`` and ``options`` those of
    :func:`macroscope.read`. ``progress`` shows the runs read.

    >>> cmp = ms.compare(["testdata/jacobi32.trace", "testdata/jacobi32.trace"], names=["a", "b"], slices=10,
    ...                  progress=False)
    >>> cmp
    <macroscope.Comparison 2 runs (a, b), 32 resources x 10 slices, stretch, run under each resource>
    >>> diff = cmp.differences(p=0.5)     # a run against itself: nothing differs
    >>> float(diff.to_pandas().divergence.max()), diff.test["reported"]
    (0.0, 0)
    """
    if isinstance(runs, (str, os.PathLike, Trace, MicroModel)):
        raise InvalidArgumentError("runs: give a list of runs (paths, traces or models), at least two",
                                   param="runs")
    runs = list(runs)
    if len(runs) < 2:
        raise InvalidArgumentError(f"runs: a comparison needs at least two runs, got {len(runs)}", param="runs")
    if slices is None:
        given = [r.slices for r in runs if isinstance(r, MicroModel)]
        slices = given[0] if given else 100
    if align not in _ALIGN:
        raise InvalidArgumentError(f"align: must be one of {', '.join(_ALIGN)}, got {align!r}", param="align")
    check_options("compare", options, format)
    if isinstance(state_types, str):
        state_types = [state_types]
    if not isinstance(reference, int) or not 0 <= reference < len(runs):
        raise InvalidArgumentError(f"reference: must be a run index from 0 to {len(runs) - 1}, got {reference!r}",
                                   param="reference")
    opts = _bridge.options(slices=int(slices), align=align, length=str(length), run_level=run_level, match=match,
                           reference=reference, state_types=state_types, depth=depth, key=key,
                           start=None if start is None else float(start), end=None if end is None else float(end),
                           markers=_markers(markers) if align == "markers" else None,
                           memory_budget=_bridge.memory_budget(memory_budget), profiler_spans=bool(profiler_spans))
    builder = _bridge.call(_bridge.native.NewCompareBuilder, opts)
    read_options = dict(options)
    if format is not None:
        read_options["format"] = format
    for run, name, label, meta in zip(runs, _names(runs, names), _labels(runs, labels), _metadata(runs, metadata)):
        info = json.dumps({"name": name, "label": label, "meta": meta})
        if isinstance(run, (str, os.PathLike)):
            _bridge.call(builder.AddPath, os.fspath(run), json.dumps(read_options), info)
        elif isinstance(run, Trace):
            _bridge.call(builder.AddTrace, run._h, info)
        elif isinstance(run, MicroModel):
            _bridge.call(builder.AddModel, run._h, info)
        else:
            raise InvalidArgumentError(f"runs: each run must be a path, a Trace or a MicroModel, got {run!r}",
                                       param="runs")
    work = _bridge.call(builder.Start)
    _work.run(work, "compare", progress)
    cmp = Comparison(_bridge.call(work.Comparison))
    for w in cmp.warnings:  # a run read only in part: say which, as read_micro does
        name, _, rest = w.partition(": ")
        if rest.startswith("incomplete:"):
            warnings.warn(f"run {name!r} is {rest}", UserWarning, stacklevel=2)
    return cmp


class Comparison:
    """The model of several runs (:func:`compare`) and what differs
    between them.

    ``model`` is the microscopic model with the run as a level: every
    method of :class:`MicroModel` works on it (``significant_p``,
    ``aggregate``, ``plot``...). :meth:`differences` is the table of
    differences at a level of detail p; :meth:`plot` the runs' aligned
    overviews one above the other; :meth:`explore` the explorers of the
    runs side by side; :meth:`ops` HTA TraceDiff's table of operations.
    """

    def __init__(self, handle):
        self._h = handle
        self._info = _bridge.call_json(handle.Info)
        self._model = None

    @property
    def names(self) -> list[str]:
        return [r["name"] for r in self._info["runs"]]

    @property
    def labels(self) -> list[str]:
        return [r["label"] for r in self._info["runs"]]

    @property
    def reference(self) -> int:
        """The index of the run the deltas and outlier scores refer to."""
        return self._info["reference"]

    @property
    def states(self) -> list[str]:
        return list(self._info["states"])

    @property
    def slices(self) -> int:
        return self._info["slices"]

    @property
    def warnings(self) -> list[str]:
        """What the readers skipped or found missing, by run: a run read
        in part, resources matched by the pattern of their names, and the
        resources of other runs a run lacks (a smaller run of a scaling
        study), whose cells are ``(absent)``."""
        return list(self._info.get("warnings") or ())

    @property
    def left_out(self) -> str:
        """What the runs' models left out of the spans a profiler draws
        around the program's work (its recording, the steps, the copies of
        the host's annotations on the GPU streams), each kind's time summed
        over the runs, and how to keep them: a sentence, "" when nothing
        was (``profiler_spans=True``, or traces without such spans)."""
        return self._info.get("left_out") or ""

    @property
    def align(self) -> str:
        """The alignment used ("stretch", "start", "absolute" or
        "markers"; ``align="auto"`` resolved)."""
        return self._info["align"]

    @property
    def align_reason(self) -> str:
        """Why ``align="auto"`` chose :attr:`align` ("" when it was
        given)."""
        return self._info.get("align_reason") or ""

    @property
    def runs(self) -> pd.DataFrame:
        """The runs: name, label, reference, files, start, duration (s),
        the window modelled, resources (and those of the union missing),
        states read, markers used and dropped, and ``meta:<key>``."""
        return _bridge.to_pandas(_bridge.table(self._h.Runs))

    @property
    def model(self) -> MicroModel:
        """The model with the run as a level (its leaves are (resource,
        run) or, with ``run_level="top"``, the runs' resources)."""
        if self._model is None:
            self._model = MicroModel(_bridge.call(self._h.Model))
        return self._model

    def run_model(self, run: int | str) -> MicroModel:
        """Run ``run``'s cells (index or name) on the union of the
        hierarchies and the common axis, as a model of its own."""
        return MicroModel(_bridge.call(self._h.RunModel, self._index(run)))

    def _index(self, run) -> int:
        if isinstance(run, str):
            if run not in self.names:
                raise InvalidArgumentError(f"run: no run named {run!r} (runs: {', '.join(self.names)})", param="run")
            return self.names.index(run)
        if not isinstance(run, int) or not 0 <= run < len(self.names):
            raise InvalidArgumentError(f"run: no run {run!r} among {len(self.names)}", param="run")
        return run

    def significant_p(self, threshold: float = 1e-2, **kwargs) -> pd.DataFrame:
        """The significant levels of the model (:meth:`MicroModel.significant_p`;
        the default resolution is 0.01: a comparison's model is large)."""
        return self.model.significant_p(threshold=threshold, **kwargs)

    def recommended_p(self, threshold: float = 1e-2, progress=None) -> float:
        """The p of the recommended level of the model (the knee of its
        significant levels, found to ``threshold``).

        The knee is searched for alone (:meth:`MicroModel.recommended_p`):
        a handful of solves where listing every level needs one per level
        (20 s of CPU instead of minutes for 2 runs of 10,000 resources), and
        the same level, bit for bit. The native side keeps it: asking again
        is free."""
        return self.model.recommended_p(threshold=threshold, progress=progress)

    def differences(self, p: float | None = None, rows: str = "nodes", *, phases=None, rank: str = "score",
                    top: int | None = None, permutations: int = 999, alpha: float = 0.05, block: int = 1,
                    seed: int = 0, threshold: float = 1e-2, progress=None) -> "Differences":
        """The table of differences at the level of detail ``p`` (default:
        the recommended level, :meth:`recommended_p`).

        ``rows`` chooses the footprints: ``"nodes"`` (the level's nodes,
        each over the time ranges the level shows it, time cuts within a
        node merged), ``"aggregates"`` (the level's aggregates where the
        runs' parts meet) or ``"hierarchy"`` (every node of the hierarchy
        over ``phases``: None for the whole window, a number of equal
        phases, "level" for the time cuts of the level at ``p``, or a list
        of (first, last) slices).

        Each row has its divergence in bits (the Jensen-Shannon divergence
        of the runs' state distributions over it), its ``score`` (divergence
        times size, in bit-cells: what the aggregation's loss charges for
        merging the runs there), the ``outlier`` score (how much more the
        footprint departs from its parent in a run than in the reference:
        it names the cause of a change that spreads), each run's
        proportions (``prop:<run>:<state>`` for up to 8 runs; all in
        :meth:`Differences.proportions`) and the test against the noise:
        with repetitions (``labels``) the runs' labels are permuted, else
        the runs' cells are swapped ``block`` slices at a time (all the
        row's resources together) within the row; ``floor`` is the 95%
        quantile of the statistic under ``permutations`` permutations at
        most, ``p_value`` the test's, ``p_adjusted`` corrected for the
        number of tests (Holm, both tests of every row), and ``reported``
        tells rows below ``alpha``. ``rank`` orders the rows by
        "score", "outlier", "divergence" or "present" (``present_score``:
        what differs where every run has the footprint, leaving out that a
        run lacks a resource or a time: runs of 32 and 64 ranks, runs of
        different lengths aligned from their starts); ``top`` keeps the
        first.
        """
        if rows not in _ROWS:
            raise InvalidArgumentError(f"rows: must be one of {', '.join(_ROWS)}, got {rows!r}", param="rows")
        if p is None and (rows != "hierarchy" or phases == "level"):
            p = self.recommended_p(threshold=threshold, progress=progress)
        if phases is not None and not isinstance(phases, (int, str)):
            phases = [[int(a), int(b)] for a, b in phases]
        opts = _bridge.options(p=None if p is None else float(p), rows=rows, phases=phases, rank=rank, top=top,
                               permutations=int(permutations), alpha=float(alpha), block=int(block), seed=int(seed))
        work = _bridge.call(self._h.StartDifferences, opts)
        _work.run(work, "differences", progress)
        return Differences(_bridge.call(work.Differences), self)

    def to_pandas(self) -> pd.DataFrame:
        """The differences table at the recommended level (:meth:`differences`)."""
        return self.differences().to_pandas()

    def plot(self, path: str | os.PathLike | None = None, p: float | None = None, *, rows: str = "nodes",
             top: int = 10, runs: Sequence[int | str] | None = None, width: int = 960, height: int | None = None,
             title: str | None = None, colors: dict | None = None) -> Figure:
        """The runs' aligned overviews one above the other, with the same
        partition, rows and colours, the rows reported by
        :meth:`differences` (or the first ``top``) outlined in a colour of
        their divergence; under them, the divergence of the runs' cells
        slice by slice. See :meth:`Differences.plot`."""
        return self.differences(p, rows).plot(path, top=top, runs=runs, width=width, height=height, title=title,
                                              colors=colors)

    def _repr_png_(self):
        return self.plot().to_bytes("png")

    def explore(self, p: float | None = None, width: int = 900, height: int = 260, threshold: float = 1e-2, *,
                rank: str = "score", layout: str = "stacked"):
        """The explorers of the runs side by side in a notebook (needs
        ``anywidget``; docs/widgets.md): one overview per run, the same
        partition at a level chosen with one p slider, zoom (drag a time
        range) and hover coupled across the runs; hovering shows each
        run's proportions and their deltas; the level's differences
        (ranked by ``rank``, as :meth:`differences`) outlined and listed
        under them. ``layout="side"`` puts the runs side by side rather than
        one above the other; ``height`` is a run's."""
        from .widgets import CompareExplorer

        return CompareExplorer(self, p=p, width=width, height=height, threshold=threshold, rank=rank, layout=layout)

    def ops(self, control: int | str | None = None, test: int | str | None = None, *, device: str = "ALL",
            iteration=None, short_names: bool = False) -> pd.DataFrame:
        """HTA TraceDiff's table of operations (``compare_traces``) of two
        runs of PyTorch profiler (Kineto) traces, equal to HTA's: the
        counts and total durations (microseconds) of each operator and
        kernel name in the ``control`` run (default the reference) and the
        ``test`` run (default the next), their differences and
        ``counts_change_categories`` (+, -, =). ``iteration`` is None (each
        run's first, HTA's default), "all", an iteration number or a list;
        ``device`` "ALL", "CPU" or "GPU"; ``short_names`` groups by HTA's
        short names. Each run's trace file is read again, once.

        A run without operations (a trace of another producer: its reader
        gives no categories) raises :class:`EmptyTraceError`, and one
        without iterations :class:`InvalidArgumentError` for
        ``iteration=None`` (no first one to take), naming its file; where a
        run lacks the iterations asked for, or any operation of ``device``
        in them, its counts are zeros and a ``UserWarning`` says why."""
        opts = _bridge.options(control=None if control is None else self._index(control),
                               test=None if test is None else self._index(test), device=device, iteration=iteration,
                               short_names=bool(short_names))
        work = _bridge.call(self._h.StartOps, opts)
        _work.run(work, "", progress=False)
        for w in json.loads(_bridge.call(work.Warnings)):
            warnings.warn(w, UserWarning, stacklevel=2)
        df = _bridge.to_pandas(_bridge.table(work.Export))
        return df.set_index(df.columns[0])

    def __repr__(self) -> str:
        i = self._info
        placement = "run under each resource" if i["run_level"] == "resource" else "runs at the top"
        names = ", ".join(self.names[:4]) + (", ..." if len(self.names) > 4 else "")
        return (f"<macroscope.Comparison {len(i['runs'])} runs ({names}), {i['resources']} resources x "
                f"{i['slices']} slices, {i['align']}{' (auto)' if i.get('align_reason') else ''}, {placement}"
                f"{', profiler spans left out (profiler_spans=True keeps them)' if i.get('left_out') else ''}>")


class Differences(TableResult):
    """A table of differences between runs (:meth:`Comparison.differences`).

    ``to_pandas()`` has a row per footprint, ranked: rank, node, depth,
    first_slice, last_slice, start and end (seconds on the common axis;
    with ``align="stretch"`` the reference run's clock), from and to (the
    same from the axis's origin: the reference's first instant), row_first
    and row_last (the overview's rows), leaves, cells (of one run),
    runs_present, split (the optimum keeps the runs apart there), mass,
    divergence (bits), divergence_cells, mass_divergence,
    presence_divergence, present_share and divergence_present (divergence
    = presence_divergence + present_share x divergence_present: where some
    run lacks a resource or a time, the part of the divergence that is
    presence and that of the states where present), present_score, score
    and score_share (bit-cells),
    outlier, outlier_score, outlier_run, divergence_between and
    divergence_within (with repetitions), the test (statistic, floor,
    excess, p_value, p_min, permutations, outlier_p, outlier_floor,
    p_adjusted, outlier_p_adjusted, reported), top_state and top_delta
    (the state that moved most and by how much), and
    ``prop:<run>:<state>`` for up to 8 runs.
    """

    def __init__(self, handle, comparison: Comparison):
        super().__init__(handle)
        self._cmp = comparison

    @property
    def p(self) -> float | None:
        return self._info.get("p")

    @property
    def test(self) -> dict:
        """The test: method ("labels": the runs' labels permuted; "blocks":
        no repetitions, the runs' cells permuted by slices within each row,
        all the row's resources together), exact (every relabelling
        enumerated), p_min, permutations, alpha, the number of rows
        reported, and a note on what limits it."""
        return dict(self._info["test"])

    @property
    def reported(self) -> pd.DataFrame:
        """The rows reported above the noise floor."""
        df = self.to_pandas()
        return df[df.reported]

    def proportions(self) -> pd.DataFrame:
        """The long table of the rows' proportions: rank, node, run, label,
        state, proportion, delta (run minus the reference) and seconds (the
        run's own time in the state over the footprint)."""
        return _bridge.to_pandas(_bridge.table(self._h.Proportions))

    def plot(self, path: str | os.PathLike | None = None, *, top: int = 10, runs: Sequence[int | str] | None = None,
             width: int = 960, height: int | None = None, format: str | None = None, title: str | None = None,
             colors: dict | None = None) -> Figure:
        """The runs' aligned overviews one above the other (at most 8;
        ``runs`` chooses them): the same rows (the union of the runs'
        hierarchies), time axis, partition (the table's footprints, each
        drawn in the mode of each run's cells there) and colours; the rows
        reported (or, when none is, the first ``top``) outlined in every
        run in a colour of their divergence (logarithmic scale, its bar at
        the bottom), and under the panels the divergence of the runs'
        cells slice by slice. Sizes in pixels (height: 250 per run)."""
        if runs is not None:
            runs = [self._cmp._index(r) for r in runs]
        n = len(runs) if runs is not None else min(len(self._cmp.names), 8)
        height = height if height is not None else 250 * n + 96
        return _figure.plot(lambda fmt: _work.compute(self._h.StartPlot, _bridge.options(
            width=width * _figure.POINTS_PER_PIXEL, height=height * _figure.POINTS_PER_PIXEL, format=fmt, title=title,
            colors=_figure.color_options(colors), top=int(top), runs=runs), result="Image"), path, format,
            title or "comparison")

    def _repr_png_(self):
        return self.plot().to_bytes("png")

    def __len__(self) -> int:
        return self._info["count"]

    def __repr__(self) -> str:
        i = self._info
        p = "" if i.get("p") is None else f" at p={i['p']:.4g}"
        t = i["test"]
        return (f"<macroscope.Differences {i['count']} {i['rows']} rows{p}, total score {i['total_score']:.4g} "
                f"bit-cells, {t['reported']} reported ({t['method']} test)>")


def _read_run(run, slices, model_kwargs, read_options):
    """A run's model for a series: read while streaming, or built."""
    if isinstance(run, MicroModel):
        return run
    if isinstance(run, Trace):
        return run.micro(slices=slices, **model_kwargs)
    return read_micro(run, slices=slices, progress=False, **model_kwargs, **read_options)


def _run_pop(run, read_options):
    """The POP analysis of a run given as a path or a trace, for its row's
    ``pop:<factor>`` columns; None for a model (no trace to replay) or a
    run without MPI calls (the analysis does not apply)."""
    if isinstance(run, MicroModel):
        return None
    try:
        return run.pop() if isinstance(run, Trace) else pop(run, progress=False, **read_options)
    except EmptyTraceError:  # no MPI calls: POP does not apply to this run
        return None


def _series_row(run, name, label, meta, ref_bytes, slices, model_kwargs, read_options, series_opts,
                analyses=True, keep_pop=False):
    """One run's row of a series (on a Dask worker, or here); with
    ``keep_pop``, the row and the run's POP run encoded (None without
    one), for the study's factors."""
    _distributed._prepare_worker()
    ref = MicroModel(_bridge.call(_bridge.native.DecodeMicroModel, _bridge.go.Slice_byte.from_bytes(ref_bytes)))
    series = _bridge.call(_bridge.native.NewCompareSeries, ref._h, series_opts)
    model = _read_run(run, slices, model_kwargs, read_options)
    _bridge.call(series.AddModel, model._h, json.dumps({"name": name, "label": label, "meta": meta}))
    encoded = None
    if analyses and (factors := _run_pop(run, read_options)) is not None:
        _bridge.call(series.AddPOP, factors._h)
        if keep_pop:
            encoded = bytes(_bridge.call(factors._h.EncodePOPRun))
    table = _bridge.table(series.Table)
    return (table, encoded) if keep_pop else table


def _pop_series_columns(names, results):
    """The study-wide POP columns (scalabilities, speed-up) of the runs
    that have a POP run (results in row order, each encoded by
    ``EncodePOPRun``; None: no MPI calls, or a model), as
    :func:`macroscope.pop` computes them over those runs:
    {column: values by row, NaN for a run without}; empty when fewer than
    two runs have one."""
    have = [i for i, r in enumerate(results) if r is not None]
    if len(have) < 2:
        return {}
    series = _bridge.call(_bridge.native.NewPOPSeries)
    for i in have:
        _bridge.call(series.AddEncoded, _bridge.go.Slice_byte.from_bytes(results[i]))
    study = json.loads(_bridge.call(series.StudySummary, _bridge.options(scaling="auto")))
    cols = {"pop:" + k: [float("nan")] * len(names) for k in study["keys"]}
    for i, values in zip(have, study["values"]):
        for k, v in zip(study["keys"], values):
            cols["pop:" + k][i] = float("nan") if v is None else float(v)
    return cols


def compare_series(runs: Sequence, *, reference=0, names: Sequence[str] | None = None,
                   labels: Sequence | None = None, metadata=None, slices: int = 100,
                   start: float | None = None, end: float | None = None,
                   state_types: list[str] | None = None, depth: int | None = None, key: str = "group",
                   profiler_spans: bool = False, match: str = "auto", permutations: int = 199, analyses: bool = True, client=None,
                   to_parquet=None, progress=None, **options) -> pd.DataFrame:
    """A table of a series of runs, one row each, against a reference
    run: the run's name, label, files and ``meta:<key>`` (``metadata``: a
    dict per run or a DataFrame), start, duration, resources (missing from
    and extra to the reference's), ``seconds:<state>`` and
    ``share:<state>`` (of the run's resource-time), and the whole window's
    divergence, cell divergence and score against the reference (stretch
    alignment), the test's p-value, and the node of the largest outlier
    score. The joint model of all the runs is never built: each run is read
    and compared with the reference alone, then let go.

    ``analyses`` (default True) adds the POP factors of each run that has
    MPI calls (``pop:parallel_efficiency``, ``pop:load_balance``,
    ``pop:communication_efficiency``, ``pop:serialisation_efficiency``,
    ``pop:transfer_efficiency``; multiplicative form, as
    :func:`macroscope.pop` computes them): a second streamed read of each
    run given as a path; empty for runs given as models or without MPI
    calls. Where two runs or more have them, the study's factors too, as
    :func:`macroscope.pop` computes them over those runs
    (``pop:global_efficiency``, ``pop:computation_scalability``,
    ``pop:speedup``, and the IPC, instruction and frequency scalabilities,
    NaN without hardware counters): their reference is POP's, the run
    with the fewest processes, not ``reference``.

    ``start`` and ``end`` (seconds from each run's start, as
    :func:`compare` takes them with its default stretch alignment)
    restrict every run, the reference's too, to a window. Not with runs
    given as models (build them on the window).

    ``profiler_spans=True`` keeps in every run's model, the reference's
    too, the spans a profiler draws around the program's work (its
    recording, the steps, the copies of the host's annotations on the GPU
    streams), which the models leave out by default, as
    :meth:`Trace.micro`'s do; runs given as models keep what they were
    built with. What each run's model left out is in the columns
    ``left_out:<role>`` (seconds; "recording", "step", "device
    annotation"; 0 for a run that left none out), and said once for all
    the runs in ``attrs["left_out"]`` ("" when nothing was).

    ``reference`` is the index of a run, or a path, trace or model of its
    own. ``client``, a ``dask.distributed.Client``, summarises the runs on
    its workers (hundreds of runs): the reference's model is shipped to
    them once. ``to_parquet`` writes the table there as Parquet (for
    pandas, R, DuckDB). Other arguments are those of :func:`compare`.
    """
    runs = list(runs)
    if not runs:
        raise InvalidArgumentError("runs: no run given", param="runs")
    check_options("compare_series", options)
    names_ = _names(runs, names)
    labels_ = _labels(runs, labels)
    metas = _metadata(runs, metadata)
    # The window is the model's: each run's from its own start, as
    # Trace.micro and read_micro count it.
    window = dict(start=None if start is None else float(start), end=None if end is None else float(end))
    model_kwargs = {k: v for k, v in dict(state_types=state_types, depth=depth, key=key, **window).items()
                    if v is not None}
    if profiler_spans:
        model_kwargs["profiler_spans"] = True
    ref_run = runs[reference] if isinstance(reference, int) else reference
    if isinstance(reference, int) and not 0 <= reference < len(runs):
        raise InvalidArgumentError(f"reference: no run {reference} among {len(runs)}", param="reference")
    if start is not None or end is not None:
        for name, run in [*zip(names_, runs), ("reference", ref_run)]:
            if isinstance(run, MicroModel):
                # compare()'s rule: a model's window was chosen when it was built.
                raise InvalidArgumentError(f"window: run {name!r} is a model already built on its window: build it "
                                           "on the window wanted (micro's start, end)", param="window")
    ref = _read_run(ref_run, slices, model_kwargs, options)
    # A work: Ctrl-C stops the encoding of a large reference between chunks.
    ref_bytes = bytes(_work.compute(ref._h.StartEncode, result="Data"))
    series_opts = _bridge.options(match=match, permutations=int(permutations))
    if client is not None:
        if any(isinstance(r, (Trace, MicroModel)) for r in runs):
            raise InvalidArgumentError("runs: on a cluster, give the runs as paths (traces and models stay in this "
                                       "process)", param="runs")
        ref_future = client.scatter(ref_bytes, broadcast=True)
        futures = [client.submit(_series_row, os.fspath(r), n, lb, m, ref_future, slices, model_kwargs, options,
                                 series_opts, bool(analyses), True, pure=False)
                   for r, n, lb, m in zip(runs, names_, labels_, metas)]
        _distributed._check_client(client)
        _distributed._show_progress(progress, futures)
        rows = client.gather(futures)
        tables = [t for t, _ in rows]
        scal = _pop_series_columns(names_, [e for _, e in rows])
    else:
        tables, results = [], []
        for r, n, lb, m in zip(runs, names_, labels_, metas):
            t, f = _series_row(r, n, lb, m, ref_bytes, slices, model_kwargs, options, series_opts, bool(analyses),
                               keep_pop=True)
            tables.append(t)
            results.append(f)
        scal = _pop_series_columns(names_, results)
    table = pa.concat_tables(tables, promote_options="default")
    for col, values in scal.items():
        table = table.append_column(col, pa.array(values, type=pa.float64()))
    # States a run lacks, spans it did not leave out: no time in them.
    filled = [table.column(i).fill_null(0.0)
              if table.schema.field(i).name.startswith(("seconds:", "share:", "left_out:"))
              else table.column(i) for i in range(table.num_columns)]
    table = pa.table(filled, names=table.column_names)
    if to_parquet is not None:
        pq.write_table(table, os.fspath(to_parquet))
    df = table.to_pandas()
    df.attrs["left_out"] = _series_left_out(df)
    return df


def _series_left_out(df: pd.DataFrame) -> str:
    """What the runs' models of a series left out of the profiler's spans
    (its ``left_out:<role>`` columns), said once for all the runs as
    :attr:`Comparison.left_out` says it; "" when nothing was."""
    what = {"recording": "the profiler's recording", "step": "the steps",
            "device annotation": "the copies of the host's annotations on the GPU streams"}
    cols = [c for c in df.columns if c.startswith("left_out:")]
    if not cols:
        return ""
    runs = int((df[cols].sum(axis=1) > 0).sum())
    parts = [f"{what.get(c[len('left_out:'):], c[len('left_out:'):])}, {float(df[c].sum()):.4g} s" for c in cols]
    return (f"{runs} of the {len(df)} runs, their times summed: left out of the models, as spans around the "
            f"program's work rather than work: {'; '.join(parts)}; profiler_spans=True keeps them")

