"""What is computed while a trace file is read, without keeping the trace:
the microscopic model (:func:`read_micro`) and the moments of utilization
(:func:`moments`).

Memory grows with the result (resources x slices x states for a model, the
resources for moments), not with the length of the trace. With a Dask
client both are computed on a cluster, a part of the input per task
(:mod:`macroscope._distributed`).
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Sequence

from . import _bridge, _dataset, _distributed, _reading
from ._errors import InvalidArgumentError
from ._formats import check_options
from ._model import MicroModel, warn_notes
from ._moments import Moments
from ._options import model_options, moments_options
from ._reading import Progress


def read_micro(path: str | os.PathLike | Sequence[str | os.PathLike], slices: int = 100,
               start: float | None = None, end: float | None = None, format: str | None = None, *,
               progress: Progress = None, state_types: list[str] | None = None, depth: int | None = None,
               metric: str = "state_duration", types: list[str] | None = None, key: str = "group",
               memory_budget: int | None = None, profiler_spans: bool = False, client=None, runs: bool | None = None,
               partitions: int | None = None, parallel: bool | None = None, **options) -> MicroModel:
    """Build the microscopic model of the trace file at ``path`` while
    reading it: the same :class:`MicroModel`, cell for cell, as
    ``read(path, format, **options).micro(slices, start, end, ...)``, without
    keeping the trace's events, so memory grows with the model (resources x
    slices x states), not with the length of the trace.

    ``slices``, ``start``, ``end`` (seconds from the trace's start; default
    the trace's first and last instants), ``state_types``, ``depth``, ``metric``, ``types``, ``key`` and
    ``profiler_spans`` are
    those of :meth:`macroscope.Trace.micro`; ``format`` and ``options``
    (``strict``, ``view``, ``skip_inverted``...) those of
    :func:`macroscope.read`.

    A list of paths is several traces read as one (``runs``: the runs to
    compare, the files of the ranks of a PyTorch job): one model with a
    container of type "Run" per file, named after it, at the top of the
    hierarchy; a state type of every file is one type. A list of Pajé
    files (``format="paje"``, or detected) is read as one Pajé trace, as
    :func:`macroscope.read_paje` does, unless ``runs=True``.

    ``client``, a ``dask.distributed.Client``, builds the model on its
    cluster (see ``docs/distributed.md``): the parts of the input (the
    files of a list, the location groups of an OTF2 archive, up to
    ``partitions`` byte ranges of a Paraver file or of pj_dump output,
    or groups of trace lines of an HPCToolkit database; default twice the
    cluster's threads) are read and modelled by the workers, and their
    partial models added up exactly (the messages between an OTF2
    archive's location groups matched at the end, as on one machine): the
    model is the same, bit for bit, as without a client. ``progress`` then shows Dask's progress bar
    (by default in a notebook only). Without a client nothing of Dask is
    imported.

    The slices depend on the window: when ``start`` or ``end`` is left to
    the trace, a Pajé file is read once (its first and last dates are read
    from its two ends beforehand, and checked by the read), an OTF2 archive
    once (its clock properties give them beforehand, or else its
    timestamps alone; a wrong guess is found and read again), other formats twice
    (a first read finds the window). ``model.trace_info`` tells the
    counts of what was read and the number of reads.

    An OTF2 archive of several location groups is read on all cores
    (``parallel``, default None: when its groups add up, which they do
    unless two groups feed one metric series): each group's locations are
    decoded and modelled on their own, the partial models added up and
    the messages between groups matched afterwards, with no merge of all
    the records by time; the model, bit for bit, and ``trace_info`` are
    those of the single stream, which ``parallel=False`` forces
    (``parallel=True`` forces the parts even when a metric series is cut
    by them). ``model.trace_info["parallel"]`` counts the parts. The
    files of ``runs`` are such parts too: read one at a time per core,
    each into its partial model, so that the memory is that of the
    largest file's read, not of all of them (each file is read once more
    beforehand to find the window, unless ``start`` and ``end`` are
    given); ``parallel=False`` reads them as one stream, each file once
    but the whole trace kept in memory.

    ``progress`` is that of :func:`macroscope.read` (a tqdm bar for long
    reads, ``False`` for none, or a callable ``f(done, total)`` in bytes;
    a file read twice counts twice). Ctrl-C or Jupyter's stop button stops
    the reader cleanly.

    ``memory_budget`` bounds the model's cells, as for
    :meth:`macroscope.Trace.micro`; ``strict=True`` raises on an incomplete
    trace instead of warning (see :func:`macroscope.read`).

    Raises :class:`TraceFormatError` (with ``file`` and ``line``) on
    malformed input, :class:`TraceNotFoundError` for a missing file and
    :class:`InvalidArgumentError` for bad options.

    >>> model = ms.read_micro("testdata/jacobi32.trace", slices=20)
    >>> model
    <macroscope.MicroModel 32 resources x 20 slices x 10 states, 0-8.5038 s>
    >>> model.trace_info["states"], model.trace_info["passes"]
    (10272, 1)
    """
    check_options("read_micro", options)
    options = dict(options)
    model_opts = model_options(slices, start, end, state_types, depth, metric, types, key, memory_budget,
                               profiler_spans)
    if isinstance(path, (str, os.PathLike)):
        paths = [path]
    else:
        paths = list(path)
        if not paths:
            raise InvalidArgumentError("path: no file given", param="path")
        if runs is None:
            runs = _reading.is_runs(paths, format)
    if len(paths) == 1 and format is None and not options and _dataset.is_dataset(paths[0]):
        # A Parquet dataset (to_parquet_dataset): its states, a part per file.
        if client is not None:
            return _distributed.read_micro_dataset(paths[0], client, model_opts, start=start, end=end,
                                                   progress=progress)
        return _dataset.read_dataset(paths[0]).micro(slices, start, end, state_types=state_types, depth=depth,
                                                     metric=metric, types=types, key=key,
                                                     profiler_spans=profiler_spans)
    if client is not None:
        return _distributed.read_micro(paths, client, model_opts, start=start, end=end, format=format,
                                       options=options, runs=bool(runs), partitions=partitions, progress=progress)
    if runs:
        if parallel is not None:
            options["parallel"] = _parallel(parallel)
        return _read_runs(paths, format, options, progress, model_opts)
    if len(paths) > 1:
        if format not in (None, "paje"):
            raise InvalidArgumentError(f"path: a list of files is read as one Pajé trace, not as {format}",
                                       param="path")
        format = "paje"
        if len(paths) > 1:
            options["paths"] = [os.fspath(p) for p in paths[1:]]
    if format is not None:
        if not isinstance(format, str):
            raise InvalidArgumentError(f"format: must be a format name, got {format!r}", param="format")
        options["format"] = format
    if parallel is not None:
        options["parallel"] = _parallel(parallel)
    handle = _reading.run(paths[0], options, progress, start=_bridge.native.StartReadMicro,
                          args=(model_opts,), result="Model")
    return _warn(MicroModel(handle))


def _parallel(parallel) -> bool:
    if not isinstance(parallel, bool):
        raise InvalidArgumentError(f"parallel: must be True, False or None, got {parallel!r}", param="parallel")
    return parallel


def _read_runs(paths, format, options, progress, model_opts) -> MicroModel:
    """The model of several traces read as one, a run container each."""
    names = json.dumps([os.fspath(p) for p in paths])
    if format is not None:
        options["format"] = format
    handle = _reading.run(paths[0], options, progress,
                          start=lambda _p, opts: _bridge.native.StartReadMicroRuns(names, opts, model_opts),
                          result="Model")
    return _warn(MicroModel(handle))


def _warn(model: MicroModel) -> MicroModel:
    for message in (model.trace_info or {}).get("warnings") or ():
        warnings.warn(message, UserWarning, stacklevel=3)
    return warn_notes(model, stacklevel=4)


def moments(path, format: str | None = None, busy=None, by: str = "resource",
            start=None, end=None, idle=None, state_types=None, nesting: str = "innermost",
            gaps: bool = False, *, client=None, progress: Progress = None, **options) -> Moments:
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

    >>> m = ms.moments("testdata/jacobi32.trace", idle=["PMPI_Waitall"])
    >>> m
    <macroscope.Moments by resource: 32 rows, busy = all states but PMPI_Waitall, window 0-8.5038 s>
    >>> m.to_pandas()[["resource", "m0", "m1"]].head(2)
                   resource        m0        m1
    0  alpha/alpha-0/rank-0  6.388477  4.247813
    1  alpha/alpha-1/rank-1  7.106542  4.218305
    """
    check_options("moments", options)
    opts = moments_options(busy, idle, by, state_types, nesting, gaps, start, end)
    if format is not None and not isinstance(format, str):
        raise InvalidArgumentError(f"format: must be a format name, got {format!r}", param="format")
    paths = [path] if isinstance(path, (str, os.PathLike)) else list(path)
    if not paths:
        raise InvalidArgumentError("path: no file given", param="path")
    if client is not None:
        if gaps:
            raise InvalidArgumentError("gaps: time in no state is not computed across a cluster (a part does not "
                                       "see the other parts' states)", param="gaps")
        return _distributed.moments(paths, client, opts, start=start, end=end, format=format, options=options,
                                    runs=len(paths) > 1, progress=progress)
    if format is not None:
        options = dict(options, format=format)
    if len(paths) > 1:
        names = json.dumps([os.fspath(p) for p in paths])
        m = Moments(_bridge.call(_bridge.native.MomentsFromRuns, names, json.dumps(options), opts))
    else:
        # Read on a goroutine of its own: Ctrl-C stops it, with nothing left running.
        m = Moments(_reading.run(paths[0], options, progress, start=_bridge.native.StartMomentsFromFile, args=(opts,),
                                 result="Moments"))
    # What the reader skipped or found missing, as read() says it.
    for message in m._info.get("warnings") or ():
        warnings.warn(message, UserWarning, stacklevel=2)
    return m
