"""Tables as the browser receives them: Arrow IPC streams whose columns
JavaScript reads without BigInt (64-bit integers become float64, exact up
to 2**53)."""

from __future__ import annotations

import pyarrow as pa


def browser_table(tbl: pa.Table) -> pa.Table:
    """The table with its 64-bit integer columns as float64."""
    for i, field in enumerate(tbl.schema):
        if pa.types.is_integer(field.type) and field.type.bit_width == 64:
            tbl = tbl.set_column(i, field.name, tbl.column(i).cast(pa.float64()))
    return tbl.replace_schema_metadata(None)


def ipc(tbl: pa.Table) -> bytes:
    """The table as the bytes of an Arrow IPC stream."""
    tbl = browser_table(tbl)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, tbl.schema) as writer:
        writer.write_table(tbl)
    return sink.getvalue().to_pybytes()


def from_ipc(data: bytes) -> pa.Table:
    """The table an IPC stream holds (what the browser reads)."""
    return pa.ipc.open_stream(data).read_all()
