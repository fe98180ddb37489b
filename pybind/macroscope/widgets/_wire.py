"""Tables as the explorers send them: columns JavaScript reads without
BigInt (64-bit integers become float64, exact up to 2**53), no schema
metadata."""

from __future__ import annotations

import pyarrow as pa


def browser_table(tbl: pa.Table) -> pa.Table:
    """The table with its 64-bit integer columns as float64."""
    for i, field in enumerate(tbl.schema):
        if pa.types.is_integer(field.type) and field.type.bit_width == 64:
            tbl = tbl.set_column(i, field.name, tbl.column(i).cast(pa.float64()))
    return tbl.replace_schema_metadata(None)
