"""The hive-partitioned Parquet dataset of a trace, for the tools that read
such datasets lazily (Dask, DuckDB, polars, Spark, R's arrow): its layout
and schema, and reading it back as a trace.

:func:`macroscope.to_parquet_dataset` writes it; :func:`macroscope.read`
and :func:`macroscope.read_micro` read it back from its states, whole or a
part per file on a Dask cluster. The layout and the schema are fixed
(docs/distributed.md):

    DIR/_macroscope_dataset.json   what the dataset holds (version, source)
    DIR/containers/part-0.parquet  the hierarchy
    DIR/values/part-0.parquet      the values of the states, in order
    DIR/states/rank=NAME/part-0.parquet
    DIR/links/rank=NAME/...
    DIR/variables/rank=NAME/...
    DIR/events/rank=NAME/...

Times are integer nanoseconds; containers are named by their paths. The
states' column role names the role of their value (a profiler's step, its
recording...), which the models read: a dataset written before it has
none, and its models keep the spans the model of the trace's file leaves
out (a warning says so).
"""

from __future__ import annotations

import json
import os
import stat
import warnings

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from . import _arrow_guard, _bridge
from ._errors import InvalidArgumentError, TraceFormatError
from ._from_table import _select, _to_go
from ._trace import Trace

VERSION = 1
MARKER = "_macroscope_dataset.json"

_STRING = pa.string()
SCHEMAS = {
    "containers": pa.schema([("path", _STRING), ("name", _STRING), ("type", _STRING), ("parent", _STRING),
                             ("depth", pa.int32()), ("start_ns", pa.int64()), ("end_ns", pa.int64())]),
    "states": pa.schema([("container", _STRING), ("type", _STRING), ("value", _STRING), ("category", _STRING),
                         ("start_ns", pa.int64()), ("end_ns", pa.int64()), ("depth", pa.int32()),
                         ("role", _STRING), ("rank", _STRING)]),
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


def _marker(directory) -> dict:
    """The description of a dataset, checked."""
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
    return meta


def roles_note(directory) -> str | None:
    """The note for a dataset whose states do not carry their values'
    roles (written before they did), None for one that does."""
    if _marker(directory).get("roles") is True:
        return None
    return (f"{os.fspath(directory)}: the dataset does not record its values' roles (written by an older "
            "macroscope): its models keep the profiler's spans (steps, recording, device annotations) that the "
            "model of the trace's file leaves out; write it again with to_parquet_dataset to leave them out")


def _states(directory):
    """The states dataset of a dataset directory, checked."""
    _marker(directory)
    _arrow_guard.check(directory)
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


_COLUMNS = ["container", "type", "value", "category", "start_ns", "end_ns"]


def layout(directory) -> dict:
    """What the states of a dataset do not say of the trace written: the
    paths of its containers and its values in its order, and its extent
    (ns); the options
    of :func:`_trace` that make the trace read back order its resources and
    span its time as the trace written did, so that their models are one.
    Empty for what the dataset does not hold."""
    out = {}
    meta = _marker(directory)
    ext = meta.get("start_ns"), meta.get("end_ns")
    if all(type(x) is int for x in ext) and ext[0] <= ext[1]:
        out["extent_ns"] = list(ext)

    def table(name, columns):
        path = os.path.join(directory, name, "part-0.parquet")
        if not os.path.lexists(path):  # a dataset written before it had one
            return None
        checked_file(directory, path)
        _arrow_guard.check(path)
        try:
            t = pq.read_table(path, columns=columns, partitioning=None)
        except (pa.ArrowException, OSError, KeyError) as e:
            raise _arrow_error(path, e) from None
        for c in columns:
            if not pa.types.is_string(t.column(c).type):
                raise _arrow_error(path, f"column {c} holds {t.column(c).type}, not strings")
        return t

    containers = table("containers", ["path"])
    if containers is not None:
        out["containers"] = [p for p in containers.column("path").to_pylist() if p]
    columns = ["type", "value", "category", "role"]
    values = table("values", columns)
    if values is not None:
        out["_values_file"] = os.path.join(directory, "values", "part-0.parquet")
        out["values"] = [[x or "" for x in v] for v in zip(*(values.column(c).to_pylist() for c in columns))]
    return out


def _trace(table, name, file, layout=None) -> Trace:
    """The trace of the states in table (see :func:`macroscope.from_pandas`),
    their values with the roles of its column role if it has one, laid out
    as layout (:func:`layout`) says."""
    cols = dict(resource="container", state="value", start="start_ns", end="end_ns", type="type", category="category")
    if "role" in table.column_names:
        cols["role"] = "role"
    layout = dict(layout or {})
    values_file = layout.pop("_values_file", None)
    opts = _bridge.options(**cols, sep="/", time_unit="ns", state_type="State", name=str(name), **layout)
    try:
        return Trace(_to_go(_select(table, cols), opts))
    except InvalidArgumentError as e:
        if e.param == "values":
            raise TraceFormatError(f"{values_file}: {e}", file=values_file, cause=str(e)) from None
        if e.param not in ("role", "category"):
            raise
        # Only a damaged (or forged) file has a role no macroscope names,
        # or categories that are not strings.
        raise TraceFormatError(f"{os.fspath(file)}: {e}", file=os.fspath(file), cause=str(e)) from None


def read_dataset(directory) -> Trace:
    """The trace of a dataset written by :func:`to_parquet_dataset`: its
    states, on its containers, their values with their roles."""
    states = _states(directory)
    note = roles_note(directory)
    try:
        table = states.to_table(columns=_COLUMNS + ([] if note else ["role"]))
    except (pa.ArrowException, OSError) as e:
        raise _arrow_error(os.path.join(directory, "states"), e) from None
    if note:
        warnings.warn(note, UserWarning, stacklevel=3)
    return _trace(table, os.path.basename(os.path.normpath(directory)), os.path.join(directory, "states"),
                  layout(directory))


def read_part(file, layout=None) -> Trace:
    """The trace of one file of a dataset's states, with the values' roles
    if the file has them, laid out as layout (:func:`layout`) says."""
    _arrow_guard.check(file)
    try:
        names = pq.read_schema(file).names
        table = pq.read_table(file, columns=_COLUMNS + (["role"] if "role" in names else []), partitioning=None)
    except (pa.ArrowException, OSError) as e:
        raise _arrow_error(file, e) from None
    return _trace(table, os.fspath(file), file, layout)


def extent_of(file) -> tuple[int, int]:
    """The first start and last end (ns) of the states of one file."""
    _arrow_guard.check(file)
    try:
        table = pq.read_table(file, columns=["start_ns", "end_ns"], partitioning=None)
    except (pa.ArrowException, OSError) as e:
        raise _arrow_error(file, e) from None
    return int(pc.min(table["start_ns"]).as_py()), int(pc.max(table["end_ns"]).as_py())
