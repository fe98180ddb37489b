"""The hive-partitioned Parquet dataset of a trace, for the tools that read
such datasets lazily (Dask, DuckDB, polars, Spark, R's arrow): its layout
and schema, and reading it back as a trace.

:func:`macroscope.to_parquet_dataset` writes it; :func:`macroscope.read`
and :func:`macroscope.read_micro` read it back from its states, whole or a
part per file on a Dask cluster. The layout and the schema are fixed
(docs/distributed.md):

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
import stat

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from ._errors import InvalidArgumentError, TraceFormatError
from ._from_table import from_pandas
from ._trace import Trace

VERSION = 1
MARKER = "_macroscope_dataset.json"

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


def is_dataset(path) -> bool:
    """Whether path is a directory written by :func:`to_parquet_dataset`."""
    return os.path.isdir(path) and os.path.exists(os.path.join(path, MARKER))


def checked_file(directory, path) -> str:
    """``path``, a file of the trace whose directory the user named: a
    regular file inside ``directory``, symbolic links resolved (a link
    leading out of it, a FIFO or a device in place of a part, would make
    the read open what the user never pointed at, or block). Raises
    :class:`TraceFormatError` naming the file and the reason (the Go
    readers' ingest.CheckIn)."""
    path = os.fspath(path)
    real_dir, real = os.path.realpath(directory), os.path.realpath(path)
    if os.path.commonpath([real_dir, real]) != real_dir:
        why = f"is a symbolic link to {real}, outside the directory of the trace ({os.fspath(directory)}): not read"
        raise TraceFormatError(f"{path}: {why}", file=path, cause=why)
    try:
        mode = os.stat(real).st_mode
    except OSError as e:
        raise TraceFormatError(f"{path}: {e.strerror}", file=path, cause=e.strerror) from None
    if not stat.S_ISREG(mode):
        why = "is not a regular file: only files and directories are read"
        raise TraceFormatError(f"{path}: {why}", file=path, cause=why)
    return path


# The marker is a few hundred bytes of JSON.
_MAX_MARKER = 1 << 20


def _states(directory):
    """The states dataset of a dataset directory, checked."""
    marker = checked_file(directory, os.path.join(directory, MARKER))
    try:
        if os.path.getsize(marker) > _MAX_MARKER:
            raise ValueError(f"more than {_MAX_MARKER} bytes")
        with open(marker) as f:
            meta = json.load(f)
        if not isinstance(meta, dict):
            raise ValueError("not a JSON object")
    except (ValueError, UnicodeDecodeError) as e:
        raise TraceFormatError(f"{marker}: not the description of a dataset ({str(e)[:80]})", file=marker,
                               cause=str(e)[:80]) from None
    if meta.get("macroscope_dataset") != VERSION:
        raise InvalidArgumentError(f"path: {directory} is a dataset of version {meta.get('macroscope_dataset')!r:.40}, "
                                   f"this macroscope reads version {VERSION}", param="path")
    states = os.path.join(directory, "states")
    # pyarrow's listing leaves out what is not a file (a FIFO in place of a
    # part: the read would be short without a word); every entry is looked
    # at, links included.
    for root, dirs, files in os.walk(states):
        for name in files + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
            if not name.startswith((".", "_")):
                checked_file(directory, os.path.join(root, name))
    dataset = ds.dataset(states, format="parquet", partitioning="hive", schema=SCHEMAS["states"])
    for f in dataset.files:
        checked_file(directory, f)
    return dataset


def state_files(directory) -> list[str]:
    """The files of the states of a dataset, in the order the dataset reads
    them: the parts of a distributed model."""
    return list(_states(directory).files)


def _arrow_error(file, e):
    """A damaged Parquet file, as the package's error naming it."""
    why = str(e).splitlines()[0][:200] if str(e) else type(e).__name__
    return TraceFormatError(f"{file}: {why}", file=os.fspath(file), cause=why)


_COLUMNS = ["container", "type", "value", "start_ns", "end_ns"]


def _trace(table, name) -> Trace:
    return from_pandas(table, resource="container", start="start_ns", end="end_ns", state="value", type="type",
                       time_unit="ns", name=name)


def read_dataset(directory) -> Trace:
    """The trace of a dataset written by :func:`to_parquet_dataset`: its
    states, on its containers (see :func:`macroscope.from_pandas`)."""
    states = _states(directory)
    try:
        table = states.to_table(columns=_COLUMNS)
    except (pa.ArrowException, OSError) as e:
        raise _arrow_error(os.path.join(directory, "states"), e) from None
    return _trace(table, os.path.basename(os.path.normpath(directory)))


def read_part(file) -> Trace:
    """The trace of one file of a dataset's states."""
    try:
        table = pq.read_table(file, columns=_COLUMNS, partitioning=None)
    except (pa.ArrowException, OSError) as e:
        raise _arrow_error(file, e) from None
    return _trace(table, os.fspath(file))


def extent_of(file) -> tuple[int, int]:
    """The first start and last end (ns) of the states of one file."""
    try:
        table = pq.read_table(file, columns=["start_ns", "end_ns"], partitioning=None)
    except (pa.ArrowException, OSError) as e:
        raise _arrow_error(file, e) from None
    return int(pc.min(table["start_ns"]).as_py()), int(pc.max(table["end_ns"]).as_py())
