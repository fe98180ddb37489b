"""The microscopic model of traces too big for one machine, on a Dask
cluster.

The client plans the parts of the input (the location groups of an OTF2
archive, byte ranges of a Paraver file or of pj_dump output, trace lines of
an HPCToolkit database, the files of a run), fixes the
window from their extents, and maps the parts to the workers, which read
and model them in Go into partial models (integer sums per cell, shipped
as bytes). The partials are added in a tree reduction on the workers; the
client turns the one left into the model, identical bit for bit to the one
a single process builds.

The messages between the location groups of an OTF2 archive have their
ends in two parts: each worker ships the ends its part could not match
with its partial (about 10 bytes an end), the ends add up along the same
tree, and a worker matches them at the root, as the read of the whole
archive does, into a partial merged last. Matching needs both ends of a
message, which lie in two parts, so it happens once, with all of them.

Nothing here imports Dask unless a client is given: Dask is an optional
dependency, and a heavy one, so each function that needs it imports it.
The functions the workers run are pure (the same part gives
the same bytes), so Dask may run them again when a worker dies.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import warnings

from . import _bridge, _dataset, _reading, _work
from ._errors import InvalidArgumentError
from ._model import MicroModel, warn_notes
from ._moments import Moments

# The plan's orders (micro.Order): how the parts' definitions interleave.
_BY_PART, _BY_TIME = 0, 1

_maxprocs_set = False


def _prepare_worker():
    """Make this worker process fit to run Go: not forked from a process
    where Go ran, and Go's threads (GOMAXPROCS) matched to the worker's."""
    global _maxprocs_set
    _bridge.check_not_forked()
    if _maxprocs_set:
        return
    try:
        from distributed import get_worker  # Dask: optional, imported only on its workers
        nthreads = get_worker().state.nthreads
    except (ImportError, ValueError, AttributeError):
        nthreads = 0  # not on a worker (a local scheduler): leave Go's
    if nthreads > 0:
        _bridge.call(_bridge.native.SetMaxProcs, int(nthreads))
    _maxprocs_set = True


def _extent(part: str, guess: bool) -> tuple[int, int]:
    """The first and last instants (ns) of a part's records (guessed when
    guess is set and the reader can)."""
    _prepare_worker()
    path = json.loads(part)["path"]
    reading = _reading.run(path, {}, False,
                           start=lambda p, _o: _bridge.call(_bridge.native.StartPartitionExtent, p, part, guess),
                           result="Extent")
    start, end = json.loads(reading)
    return start, end


def _build(part: str, model_options: str, start: int, end: int) -> tuple[bytes, bytes]:
    """The partial model of a part on the window [start, end] ns, and the
    message ends it left unmatched (b"" for none), as bytes."""
    _prepare_worker()
    path = json.loads(part)["path"]
    readings = []

    def begin(p, _o):
        readings.append(_bridge.call(_bridge.native.StartPartitionBuild, p, part, model_options, start, end))
        return readings[0]

    data = _reading.run(path, {}, False, start=begin, result="Partial")
    msgs = _bridge.call(readings[0].Messages)
    # Empty for parts that are not location groups or kept no end (and
    # gopy cannot make bytes of an empty slice).
    return bytes(data), bytes(msgs) if len(msgs) else b""


def _dataset_extent(file: str) -> tuple[int, int]:
    return _dataset.extent_of(file)


def _dataset_build(file: str, model_options: str, start: int, end: int, layout: dict | None = None) -> bytes:
    """The partial model of one file of a Parquet dataset's states, its
    containers declared in the dataset's order (layout)."""
    _prepare_worker()
    trace = _dataset.read_part(file, layout)
    return bytes(_work.compute(trace._h.StartPartial, model_options, start, end, result="Data"))


def read_micro_dataset(directory, client, model_options: str, *, start, end, progress) -> MicroModel:
    """The model of a Parquet dataset (macroscope.to_parquet_dataset), a
    part per file of its states, as the files follow in the dataset."""
    _check_client(client)
    files = _dataset.state_files(directory)
    # The workers read each file's roles; the note on a dataset without
    # them is said here, once.
    note = _dataset.roles_note(directory)
    if note:
        warnings.warn(note, UserWarning, stacklevel=3)
    if not files:
        raise InvalidArgumentError(f"path: the dataset {directory} holds no states", param="path")
    # The extent of the states: the window's edges where it leaves them,
    # and its origin (start= and end= count from the trace's start).
    extents = client.gather(client.map(_dataset_extent, files, pure=True))
    lo, hi = min(e[0] for e in extents), max(e[1] for e in extents)
    # The trace written spans at least its states: its extent, which the
    # marker keeps, is the window of its model (read_dataset's too).
    layout = _dataset.layout(directory)
    if "extent_ns" in layout:
        lo, hi = min(lo, layout["extent_ns"][0]), max(hi, layout["extent_ns"][1])
    partials = client.map(_dataset_build, files, model_options=model_options, start=lo, end=hi, layout=layout,
                          pure=True,
                          key=[f"macroscope-partial-{i}-{_token(f, model_options, lo, hi)}" for i, f in enumerate(files)])
    total = _reduce(client, functools.partial(_merge, _BY_PART), partials)
    _show_progress(progress, partials + [total])
    data = total.result()
    model = MicroModel(_bridge.call(_bridge.native.PartitionModel, _bridge.go.Slice_byte.from_bytes(data),
                                    json.dumps([os.fspath(directory)]), "parquet-dataset"))
    model._partitions = len(files)
    return warn_notes(model, stacklevel=4)


def _moments(part: str, options: str, start: int, end: int) -> bytes:
    """The power sums of a part's resources on the window [start, end] ns."""
    _prepare_worker()
    path = json.loads(part)["path"]
    data = _reading.run(path, {}, False,
                        start=lambda p, _o: _bridge.call(_bridge.native.StartPartitionMoments, p, part, options,
                                                         start, end),
                        result="Partial")
    return bytes(data)


def _merge_moments(a: bytes, b: bytes) -> bytes:
    """The power sums of two consecutive parts (a's before b's)."""
    _prepare_worker()
    go = _bridge.go
    return bytes(_bridge.call(_bridge.native.PartitionMomentsMerge, go.Slice_byte.from_bytes(a),
                              go.Slice_byte.from_bytes(b)))


def _merge(order: int, a: bytes, b: bytes) -> bytes:
    """The partial model of two consecutive parts (a's before b's)."""
    _prepare_worker()
    go = _bridge.go
    return bytes(_bridge.call(_bridge.native.PartitionMerge, order, go.Slice_byte.from_bytes(a),
                              go.Slice_byte.from_bytes(b)))


def _merge_kept(order: int, a: tuple[bytes, bytes], b: tuple[bytes, bytes]) -> tuple[bytes, bytes]:
    """The partial model of two consecutive parts (a's before b's) and the
    message ends they left unmatched, added up."""
    msgs = a[1] or b[1]
    if a[1] and b[1]:
        go = _bridge.go
        msgs = bytes(_bridge.call(_bridge.native.PartitionMergeMessages, go.Slice_byte.from_bytes(a[1]),
                                  go.Slice_byte.from_bytes(b[1])))
    return _merge(order, a[0], b[0]), msgs


def _match(order: int, part: str, model_options: str, start: int, end: int, root: tuple[bytes, bytes]) -> bytes:
    """The partial model of all the parts with that of the message ends
    they left unmatched, matched and merged last."""
    partial, msgs = root
    if not msgs:
        return partial
    _prepare_worker()
    go = _bridge.go
    return bytes(_bridge.call(_bridge.native.PartitionMatchMessages, order, part, model_options, start, end,
                              go.Slice_byte.from_bytes(partial), go.Slice_byte.from_bytes(msgs)))


def _reduce(client, merge, futures):
    """Add the partials up with merge(a, b), neighbours in pairs, level
    after level, so that the parts keep their order and no worker receives
    more than two."""
    level = 0
    while len(futures) > 1:
        nxt = []
        for i in range(0, len(futures) - 1, 2):
            nxt.append(client.submit(merge, futures[i], futures[i + 1], pure=True,
                                     key=f"macroscope-merge-{level}-{i // 2}-{futures[i].key}"))
        if len(futures) % 2:
            nxt.append(futures[-1])
        futures, level = nxt, level + 1
    return futures[0]


def _show_progress(progress, futures):
    """Dask's own progress bar (a widget in a notebook, text otherwise)
    when progress is True, or None in a notebook."""
    if progress is False:
        return
    # Dask: optional, imported only when a client is given.
    from distributed import progress as dask_progress
    from distributed.utils import is_kernel
    if progress is True or (progress is None and is_kernel()):
        dask_progress(futures, notebook=is_kernel() or None)


def _check_client(client):
    try:
        from distributed import Client  # Dask: optional, imported only when a client is given
    except ImportError:
        raise InvalidArgumentError("client: a Dask client needs dask.distributed "
                                   "(pip install 'macroscope-hpc[dask]')", param="client") from None
    if not isinstance(client, Client):
        raise InvalidArgumentError(f"client: must be a dask.distributed.Client, got {client!r}", param="client")


def _plan(client, paths, format, options, runs, partitions, start, end, progress, guess=False):
    """The parts of the input, and the extent of the parts' records
    (guessed, to be checked, when guess is set): the window's edges where
    the options leave them, and its origin (start= and end= count from the
    trace's start; Go resolves them on the extent)."""
    _check_client(client)
    if partitions is None:
        partitions = 2 * max(1, sum(client.nthreads().values()))
    paths = [os.fspath(p) for p in paths]
    if len(paths) > 1 and not runs:
        raise InvalidArgumentError("path: several Pajé files read as one trace cannot be split across a cluster; "
                                   "runs=True reads them as runs, each under a container of its own", param="path")
    plan = _bridge.call_json(_bridge.native.PartitionPlan, json.dumps(paths), format or "", json.dumps(options),
                             int(partitions), bool(runs))
    parts = [json.dumps(p, sort_keys=True) for p in plan["parts"]]
    order = int(plan["order"])
    extents = client.map(_extent, parts, guess=guess, pure=True,
                         key=[f"macroscope-extent-{i}-{_token(p, guess)}" for i, p in enumerate(parts)])
    _show_progress(progress, extents)
    found = client.gather(extents)
    lo, hi = min(e[0] for e in found), max(e[1] for e in found)
    return parts, order, lo, hi


def read_micro(paths, client, model_options: str, *, start, end, format, options: dict, runs: bool,
               partitions: int | None, progress) -> MicroModel:
    """The distributed read_micro (see macroscope.read_micro)."""
    parts, order, lo, hi = _plan(client, paths, format, options, runs, partitions, start, end, progress, guess=True)
    while True:
        partials = client.map(_build, parts, model_options=model_options, start=lo, end=hi, pure=True,
                              key=[f"macroscope-partial-{i}-{_token(p, model_options, lo, hi)}"
                                   for i, p in enumerate(parts)])
        root = _reduce(client, functools.partial(_merge_kept, order), partials)
        total = client.submit(_match, order, parts[0], model_options, lo, hi, root, pure=True,
                              key=f"macroscope-match-{_token(root.key)}")
        _show_progress(progress, partials + [total])
        data = total.result()
        # The extent may have been guessed (an OTF2 archive's clock
        # properties): check it against the records, as one process does.
        found = json.loads(_bridge.call(_bridge.native.PartitionExtentOf, _bridge.go.Slice_byte.from_bytes(data)))
        if (found[0], found[1]) == (lo, hi) or (start is not None and end is not None and found[0] == lo):
            break
        lo, hi = found[0], found[1]
    handle = _bridge.call(_bridge.native.PartitionModel, _bridge.go.Slice_byte.from_bytes(data),
                          json.dumps([os.fspath(p) for p in paths]), format or "")
    model = MicroModel(handle)
    model._partitions = len(parts)
    for message in (model.trace_info or {}).get("warnings") or ():
        warnings.warn(message, UserWarning, stacklevel=3)
    return warn_notes(model, stacklevel=4)


def moments(paths, client, opts: str, *, start, end, format, options: dict, runs: bool, progress):
    """The distributed moments (see macroscope.moments): by location group
    or by file, where each resource lies in one part."""
    # Byte ranges split a resource's states: its sums would add up to
    # rounding only. A Paraver file or a pj_dump one is one part.
    fmt = format or (_bridge.call(_bridge.native.DetectFormat, os.fspath(paths[0])) if len(paths) == 1 else "")
    parts, _, lo, hi = _plan(client, paths, format, options, runs, 1 if fmt in ("paraver", "pjdump") else None,
                             start, end, progress)
    sums = client.map(_moments, parts, options=opts, start=lo, end=hi, pure=True,
                      key=[f"macroscope-moments-{i}-{_token(p, opts, lo, hi)}" for i, p in enumerate(parts)])
    total = _reduce(client, _merge_moments, sums)
    _show_progress(progress, sums + [total])
    data = total.result()
    return Moments(_bridge.call(_bridge.native.PartitionMoments, _bridge.go.Slice_byte.from_bytes(data), opts,
                                os.fspath(paths[0])))


def _profile(part: str, options: str) -> bytes:
    """The partial profile of a part (the sums of its states by name and
    process)."""
    _prepare_worker()
    path = json.loads(part)["path"]
    data = _reading.run(path, {}, False,
                        start=lambda p, _o: _bridge.call(_bridge.native.StartPartitionProfile, p, part, options),
                        result="Partial")
    return bytes(data)


def _merge_profiles(a: bytes, b: bytes) -> bytes:
    """The profile of two consecutive parts (a's before b's)."""
    _prepare_worker()
    go = _bridge.go
    return bytes(_bridge.call(_bridge.native.PartitionProfileMerge, go.Slice_byte.from_bytes(a),
                              go.Slice_byte.from_bytes(b)))


def profile(paths, client, kind: str, opts: str, *, format, options: dict, partitions, progress):
    """The flat profile or load imbalance (kind) computed on a cluster,
    a part per task: the location groups of an OTF2 archive, the trace
    lines of an HPCToolkit database, byte ranges of a Paraver file (whose
    states do not nest), the files of a list; a pj_dump file, whose nested
    states byte ranges would cut from their parents, is one part. The sums
    are integers: the result is the single process's, exactly."""
    fmt = format or (_bridge.call(_bridge.native.DetectFormat, os.fspath(paths[0])) if len(paths) == 1 else "")
    parts, _, _, _ = _plan(client, paths, format, options, len(paths) > 1, 1 if fmt == "pjdump" else partitions,
                           0, 0, progress)
    sums = client.map(_profile, parts, options=opts, pure=True,
                      key=[f"macroscope-profile-{i}-{_token(p, opts)}" for i, p in enumerate(parts)])
    total = _reduce(client, _merge_profiles, sums)
    _show_progress(progress, sums + [total])
    data = total.result()
    return _bridge.call(_bridge.native.PartitionProfile, _bridge.go.Slice_byte.from_bytes(data), kind, opts,
                        os.fspath(paths[0]))


def _token(*args) -> str:
    """A digest of the arguments, the same in every process."""
    return hashlib.sha1(json.dumps(args, sort_keys=True).encode()).hexdigest()[:16]
