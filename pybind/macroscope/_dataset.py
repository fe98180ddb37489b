"""A trace as a hive-partitioned Parquet dataset, for the tools that read
such datasets lazily (Dask, DuckDB, polars, Spark, R's arrow), and back.

The layout and the schema are fixed (docs/distributed.md):

    DIR/_macroscope_dataset.json   what the dataset holds (version, source)
    DIR/containers/part-0.parquet  the hierarchy
    DIR/states/rank=NAME/part-0.parquet
    DIR/links/rank=NAME/...
    DIR/variables/rank=NAME/...
    DIR/events/rank=NAME/...

Times are integer nanoseconds; containers are named by their paths.
"""

from __future__ import annotations

import json
import os

import pyarrow as pa

from ._errors import InvalidArgumentError

VERSION = 1
MARKER = "_macroscope_dataset.json"

# The container types that are a rank (a process of a parallel run), in
# the order they are looked for: the runs of several files, Paraver's
# tasks, OTF2's and Chrome's processes, MPI ranks.
_RANK_TYPES = ("Run", "Task", "process", "Process", "MPI Rank", "MPI rank", "Rank", "rank")

_STRING = pa.string()
SCHEMAS = {
    "containers": pa.schema([("path", _STRING), ("name", _STRING), ("type", _STRING), ("parent", _STRING),
                             ("depth", pa.int32()), ("start_ns", pa.int64()), ("end_ns", pa.int64())]),
    "states": pa.schema([("container", _STRING), ("type", _STRING), ("value", _STRING), ("category", _STRING),
                         ("start_ns", pa.int64()), ("end_ns", pa.int64()), ("depth", pa.int32()),
                         ("rank", _STRING)]),
    "links": pa.schema([("container", _STRING), ("type", _STRING), ("value", _STRING), ("source", _STRING),
                        ("destination", _STRING), ("start_ns", pa.int64()), ("end_ns", pa.int64()),
                        ("key", _STRING), ("size", pa.float64()), ("rank", _STRING)]),
    "variables": pa.schema([("container", _STRING), ("type", _STRING), ("start_ns", pa.int64()),
                            ("end_ns", pa.int64()), ("value", pa.float64()), ("rank", _STRING)]),
    "events": pa.schema([("container", _STRING), ("type", _STRING), ("value", _STRING), ("category", _STRING),
                         ("time_ns", pa.int64()), ("rank", _STRING)]),
}


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
    """
    import pyarrow.dataset as ds

    from ._readers import read
    from ._trace import Trace

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
                         partitioning=ds.partitioning(pa.schema([("rank", _STRING)]), flavor="hive"),
                         existing_data_behavior="overwrite_or_ignore", basename_template="part-{i}.parquet")
    frame = containers.reindex(columns=SCHEMAS["containers"].names).copy()
    import pyarrow.parquet as pq
    os.makedirs(os.path.join(directory, "containers"), exist_ok=True)
    pq.write_table(pa.Table.from_pandas(frame, schema=SCHEMAS["containers"], preserve_index=False),
                   os.path.join(directory, "containers", "part-0.parquet"))
    with open(os.path.join(directory, MARKER), "w") as f:
        json.dump({"macroscope_dataset": VERSION, "time_unit": "ns", "partition_by": partition_by,
                   "source": trace.files, "format": trace.format, "rows": counts,
                   "start_ns": int(round(trace.start * 1e9)), "end_ns": int(round(trace.end * 1e9))}, f, indent=1)
    return directory


def is_dataset(path) -> bool:
    """Whether path is a directory written by :func:`to_parquet_dataset`."""
    return os.path.isdir(path) and os.path.exists(os.path.join(path, MARKER))


def _states(directory):
    """The states dataset of a dataset directory, checked."""
    import pyarrow.dataset as ds

    with open(os.path.join(directory, MARKER)) as f:
        meta = json.load(f)
    if meta.get("macroscope_dataset") != VERSION:
        raise InvalidArgumentError(f"path: {directory} is a dataset of version {meta.get('macroscope_dataset')}, "
                                   f"this macroscope reads version {VERSION}", param="path")
    return ds.dataset(os.path.join(directory, "states"), format="parquet", partitioning="hive",
                      schema=SCHEMAS["states"])


def state_files(directory) -> list[str]:
    """The files of the states of a dataset, in the order the dataset reads
    them: the parts of a distributed model."""
    return list(_states(directory).files)


_COLUMNS = ["container", "type", "value", "start_ns", "end_ns"]


def _trace(table, name):
    from ._from_table import from_pandas

    return from_pandas(table, resource="container", start="start_ns", end="end_ns", state="value", type="type",
                       time_unit="ns", name=name)


def read_dataset(directory):
    """The trace of a dataset written by :func:`to_parquet_dataset`: its
    states, on its containers (see :func:`macroscope.from_pandas`)."""
    return _trace(_states(directory).to_table(columns=_COLUMNS), os.path.basename(os.path.normpath(directory)))


def read_part(file):
    """The trace of one file of a dataset's states."""
    import pyarrow.parquet as pq

    return _trace(pq.read_table(file, columns=_COLUMNS, partitioning=None), os.fspath(file))


def extent_of(file) -> tuple[int, int]:
    """The first start and last end (ns) of the states of one file."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    table = pq.read_table(file, columns=["start_ns", "end_ns"], partitioning=None)
    return int(pc.min(table["start_ns"]).as_py()), int(pc.max(table["end_ns"]).as_py())
