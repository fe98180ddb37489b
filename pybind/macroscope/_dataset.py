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

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from ._errors import InvalidArgumentError
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


def _states(directory):
    """The states dataset of a dataset directory, checked."""
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


def _trace(table, name) -> Trace:
    return from_pandas(table, resource="container", start="start_ns", end="end_ns", state="value", type="type",
                       time_unit="ns", name=name)


def read_dataset(directory) -> Trace:
    """The trace of a dataset written by :func:`to_parquet_dataset`: its
    states, on its containers (see :func:`macroscope.from_pandas`)."""
    return _trace(_states(directory).to_table(columns=_COLUMNS), os.path.basename(os.path.normpath(directory)))


def read_part(file) -> Trace:
    """The trace of one file of a dataset's states."""
    return _trace(pq.read_table(file, columns=_COLUMNS, partitioning=None), os.fspath(file))


def extent_of(file) -> tuple[int, int]:
    """The first start and last end (ns) of the states of one file."""
    table = pq.read_table(file, columns=["start_ns", "end_ns"], partitioning=None)
    return int(pc.min(table["start_ns"]).as_py()), int(pc.max(table["end_ns"]).as_py())
