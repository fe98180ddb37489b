"""Writing a trace as a hive-partitioned Parquet dataset
(:func:`to_parquet_dataset`), in the layout of :mod:`macroscope._dataset`.

Each table is partitioned by rank: the container each row's container lies
in, so that a tool reading the dataset lazily reads one process's rows
without the others', and a Dask cluster models a part per file.
"""

from __future__ import annotations

import json
import os

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from ._dataset import MARKER, SCHEMAS, VERSION
from ._errors import InvalidArgumentError
from ._readers import read
from ._trace import Trace

# The container types that are a rank (a process of a parallel run), in
# the order they are looked for: the runs of several files, Paraver's
# tasks, OTF2's and Chrome's processes, MPI ranks.
_RANK_TYPES = ("Run", "Task", "process", "Process", "MPI Rank", "MPI rank", "Rank", "rank")


def _rank_of(containers, partition_by):
    """Map each container path to the path of its partition's container:
    its ancestor (or itself) of the rank type, or the top-level container."""
    types = dict(zip(containers["path"], containers["type"]))
    parents = dict(zip(containers["path"], containers["parent"]))
    if partition_by == "rank":
        present = set(types.values())
        wanted = next((t for t in _RANK_TYPES if t in present), None)
    else:
        wanted = partition_by
        if wanted not in set(types.values()):
            raise InvalidArgumentError(f"partition_by: the trace has no container type {partition_by!r} "
                                       f"(it has {', '.join(sorted(set(types.values())))})", param="partition_by")
    out = {}
    for path in types:
        node, top = path, path
        found = None
        while node:
            if types.get(node) == wanted:
                found = node
            parent = parents.get(node)
            if not parent:
                top = node
            node = parent
        out[path] = found if found is not None else top
    return out


def to_parquet_dataset(trace, directory, partition_by: str | None = "rank", *, format=None, **options) -> str:
    """Write a trace (a :class:`Trace`, or the path of a trace file, read
    with ``format`` and the reader's ``options``) as a hive-partitioned
    Parquet dataset in ``directory``: tables ``states``, ``links``,
    ``variables`` and ``events``, each partitioned by the column ``rank``,
    the container each row's container lies in (the innermost of the rank
    types: Run, Task, process, MPI rank; or of the container type
    ``partition_by`` names; the top-level container when none is found).
    ``partition_by=None`` writes each table in one partition (rank is the
    root "/"). Returns the directory.

    The schema is fixed (see docs/distributed.md); times are integer
    nanoseconds. ``macroscope.read(directory)`` reads the states back.

    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     directory = ms.to_parquet_dataset("testdata/jacobi32.trace", os.path.join(tmp, "jacobi"))
    ...     print(sorted(os.listdir(os.path.join(directory, "states"))))
    ...     print(ms.read(directory))
    ['rank=alpha', 'rank=beta']
    <macroscope.Trace jacobi: 66 containers, 10272 states, 0 variables, 0 links, 0 events, 0-8.5038 s>
    """
    if not isinstance(trace, Trace):
        trace = read(trace, format, progress=False, **options)
    directory = os.fspath(directory)
    if os.path.exists(directory) and os.listdir(directory):
        raise InvalidArgumentError(f"directory: {directory} exists and is not empty", param="directory")
    os.makedirs(directory, exist_ok=True)
    containers = trace.containers
    rank = _rank_of(containers, partition_by) if partition_by else {p: "/" for p in containers["path"]}
    tables = {
        "states": (trace.states, ["container", "type", "value", "category", "start_ns", "end_ns", "depth"]),
        "links": (trace.links, ["container", "type", "value", "source", "destination", "start_ns", "end_ns",
                                "key", "size"]),
        "variables": (trace.variables, ["container", "type", "start_ns", "end_ns", "value"]),
        "events": (trace.events, ["container", "type", "value", "category", "time_ns"]),
    }
    counts = {}
    for name, (frame, columns) in tables.items():
        frame = frame.reindex(columns=columns).copy()
        # The link's rank is its source's: a message belongs to the sender.
        where = frame["source"] if name == "links" else frame["container"]
        frame["rank"] = where.map(rank).fillna("/").astype(str)
        schema = SCHEMAS[name]
        table = pa.Table.from_pandas(frame, schema=schema, preserve_index=False)
        counts[name] = table.num_rows
        ds.write_dataset(table, os.path.join(directory, name), format="parquet",
                         partitioning=ds.partitioning(pa.schema([("rank", pa.string())]), flavor="hive"),
                         existing_data_behavior="overwrite_or_ignore", basename_template="part-{i}.parquet")
    frame = containers.reindex(columns=SCHEMAS["containers"].names).copy()
    os.makedirs(os.path.join(directory, "containers"), exist_ok=True)
    pq.write_table(pa.Table.from_pandas(frame, schema=SCHEMAS["containers"], preserve_index=False),
                   os.path.join(directory, "containers", "part-0.parquet"))
    with open(os.path.join(directory, MARKER), "w") as f:
        json.dump({"macroscope_dataset": VERSION, "time_unit": "ns", "partition_by": partition_by,
                   "source": trace.files, "format": trace.format, "rows": counts,
                   "start_ns": int(round(trace.start * 1e9)), "end_ns": int(round(trace.end * 1e9))}, f, indent=1)
    return directory
