"""Traces built from tables of intervals: pandas DataFrames, Arrow tables,
Parquet, Feather and CSV files."""

from __future__ import annotations

import ctypes
import os

import pandas as pd
import pyarrow as pa
import pyarrow.csv as csv
import pyarrow.feather as feather
import pyarrow.parquet as pq

from . import _arrow_guard, _bridge
from ._errors import InvalidArgumentError, TraceFormatError, TraceNotFoundError
from ._trace import Trace

_UNSET = object()


def from_pandas(data, resource: str = "resource", start: str = "start", end=_UNSET, state: str = "state", *,
                duration: str | None = None, type: str | None = None, sep: str = "/",
                levels: list[str] | None = None, time_unit: str | None = None, state_type: str = "State",
                name: str | None = None) -> Trace:
    """Build a trace from a table with one row per state interval.

    ``data`` is a pandas DataFrame, a pyarrow Table or anything with the
    Arrow stream protocol (polars, duckdb...). The arguments name its
    columns:

    ``resource``   the resource path, its names separated by ``sep``
                   ("site/cluster/host/core"): every prefix becomes a
                   container, of the type of its level (``levels`` names
                   them, outermost first; default "Level 1", "Level 2"...)
    ``state``      the state (its value)
    ``start``      when the state starts
    ``end``        when it ends (default column "end"), or ``duration``
                   how long it lasts
    ``type``       optional: the state type of each row (default one type
                   named ``state_type``)

    Times are float seconds, integer nanoseconds (``time_unit`` "s", "ms",
    "us" or "ns" says otherwise for plain numbers), pandas Timestamps
    (nanoseconds since the Unix epoch) or Timedeltas. States of one
    resource and type may nest like a call stack (their depth is
    computed), but not overlap otherwise.

    Raises :class:`InvalidArgumentError` naming the column and the row
    (counted from 0, as ``DataFrame.iloc``) for a missing column, a null or
    NaN, an end before its start, a negative duration, or states that
    overlap without nesting.

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"resource": ["node0/cpu0", "node0/cpu0", "node0/cpu1"],
    ...                       "state": ["compute", "send", "compute"],
    ...                       "start": [0.0, 1.0, 0.0], "end": [1.0, 1.5, 2.0]})
    >>> trace = ms.from_pandas(frame, levels=["node", "cpu"])
    >>> trace
    <macroscope.Trace DataFrame: 3 containers, 3 states, 0 variables, 0 links, 0 events, 0-2 s>
    >>> trace.containers[["path", "type", "depth"]]
             path  type  depth
    0       node0  node      1
    1  node0/cpu0   cpu      2
    2  node0/cpu1   cpu      2
    """
    if duration is not None and end is not _UNSET and end is not None:
        raise InvalidArgumentError("end: give an end column or a duration column, not both", param="end")
    if duration is None and end is _UNSET:
        end = "end"
    elif end is _UNSET:
        end = None
    columns = {"resource": resource, "state": state, "start": start, "end": end, "duration": duration,
               "type": type}
    table = _select(data, {k: v for k, v in columns.items() if v is not None})
    if name is None:
        name = "DataFrame" if _is_pandas(data) else "table"
    opts = _bridge.options(resource=resource, state=state, start=start, end=end, duration=duration, type=type,
                           sep=sep, levels=list(levels) if levels is not None else None, time_unit=time_unit,
                           state_type=state_type, name=str(name))
    return Trace(_to_go(table, opts))


def read_table(path: str | os.PathLike, resource: str = "resource", start: str = "start", end=_UNSET,
               state: str = "state", **kwargs) -> Trace:
    """Read a table of intervals from a Parquet (``.parquet``), Feather or
    Arrow IPC (``.feather``, ``.arrow``) or CSV (``.csv``, ``.tsv``, possibly
    gzipped) file and build a trace from it, as :func:`from_pandas` does
    with the same arguments."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise TraceNotFoundError(2, "no such file", path)
    lower = path.lower()
    if lower.endswith((".parquet", ".pq", ".feather", ".arrow", ".ipc")):
        _arrow_guard.check(path)
    try:
        if lower.endswith((".parquet", ".pq")):
            table = pq.read_table(path)
        elif lower.endswith((".feather", ".arrow", ".ipc")):
            table = feather.read_table(path)
        elif lower.endswith((".csv", ".csv.gz", ".tsv", ".tsv.gz")):
            delimiter = "\t" if ".tsv" in lower else ","
            table = csv.read_csv(path, parse_options=csv.ParseOptions(delimiter=delimiter))
        else:
            raise InvalidArgumentError(
                f"path: cannot tell the table format of {path} (.parquet, .feather, .arrow, .csv or .tsv)",
                param="path")
        # A file with corrupt offsets reads without complaint and crashes
        # whatever touches its buffers: check every buffer before use.
        table.validate(full=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OSError) as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        raise TraceFormatError(f"{path}: {exc}", file=path, cause=str(exc)) from None
    kwargs.setdefault("name", path)
    return from_pandas(table, resource=resource, start=start, end=end, state=state, **kwargs)


def _is_pandas(data) -> bool:
    return isinstance(data, pd.DataFrame)


def _select(data, columns: dict[str, str]) -> pa.Table:
    """The columns the trace needs, as an Arrow table whose name columns
    hold strings."""
    if _is_pandas(data):
        available = [str(c) for c in data.columns]
    elif isinstance(data, (pa.Table, pa.RecordBatch)):
        available = data.schema.names
    elif hasattr(data, "__arrow_c_stream__"):
        data = pa.table(data)
        available = data.schema.names
    else:
        raise InvalidArgumentError(
            f"data: expected a pandas DataFrame or an Arrow table, got {type(data).__name__}", param="data")
    for param, column in columns.items():
        if column not in available:
            raise InvalidArgumentError(
                f"{param}: no column {column!r} in the table (columns: {', '.join(map(str, available))})",
                param=param)
    wanted = list(dict.fromkeys(columns.values()))
    if _is_pandas(data):
        frame = data.loc[:, wanted]
        arrays = []
        names = {columns[p] for p in ("resource", "state", "type") if columns.get(p) is not None}
        for column in wanted:
            try:
                # Missing names (None, NaN) become nulls; NaN times stay NaN,
                # which the errors then name as such.
                arrays.append(pa.array(frame[column], from_pandas=column in names))
            except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError) as exc:
                param = next(p for p, c in columns.items() if c == column)
                raise InvalidArgumentError(f"{param}: column {column!r} cannot be converted: {exc}",
                                           param=param) from None
        table = pa.table(dict(zip(wanted, arrays)))
    else:
        table = (data if isinstance(data, pa.Table) else pa.Table.from_batches([data])).select(wanted)
    for param in ("resource", "state", "type"):
        column = columns.get(param)
        if column is not None:
            i = table.schema.get_field_index(column)
            table = table.set_column(i, column, _as_strings(table.column(i), param, column))
    return table


def _as_strings(col: pa.ChunkedArray, param: str, name: str) -> pa.ChunkedArray:
    """Names as strings: numbers (core ids...) are written in decimal."""
    t = col.type
    if pa.types.is_dictionary(t):
        if pa.types.is_string(t.value_type) or pa.types.is_large_string(t.value_type):
            return col
        col = col.dictionary_decode()
        t = col.type
    is_view = getattr(pa.types, "is_string_view", lambda _: False)
    if pa.types.is_string(t) or pa.types.is_large_string(t) or is_view(t):
        return col
    if pa.types.is_integer(t) or pa.types.is_boolean(t) or pa.types.is_null(t):
        return col.cast(pa.string())
    raise InvalidArgumentError(f"{param}: column {name!r} holds {t}; it must hold strings or integers", param=param)


def _to_go(table: pa.Table, opts: str):
    """Hand the table to the Go core through the Arrow C stream interface:
    Go takes the stream over and reads the batches in place."""
    stream = _bridge._ArrowArrayStream()
    address = ctypes.addressof(stream)
    table.to_reader()._export_to_c(address)
    try:
        return _bridge.call(_bridge.native.FromArrow, address, opts)
    finally:
        if stream.release:  # Go failed before taking the stream over
            ctypes.CFUNCTYPE(None, ctypes.c_void_p)(stream.release)(address)
