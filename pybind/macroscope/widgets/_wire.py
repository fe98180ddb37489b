"""Tables as the explorers send them: columns JavaScript reads without
BigInt (64-bit integers become float64, exact up to 2**53), no schema
metadata, and only what the page needs in the width it needs (the exact
values stay in Python: the explorers' view_table())."""

from __future__ import annotations

import pyarrow as pa


def browser_table(tbl: pa.Table) -> pa.Table:
    """The table with its 64-bit integer columns as float64."""
    for i, field in enumerate(tbl.schema):
        if pa.types.is_integer(field.type) and field.type.bit_width == 64:
            tbl = tbl.set_column(i, field.name, tbl.column(i).cast(pa.float64()))
    return tbl.replace_schema_metadata(None)


def narrow(tbl: pa.Table, floats=(), drop=()) -> pa.Table:
    """The table without the columns ``drop`` (the page does not read
    them) and with the float64 columns ``floats`` (positions and shares
    the page only draws with: float32 places a point of a 10,000-pixel
    canvas within a thousandth of a pixel) as float32, then as
    :func:`browser_table`."""
    tbl = tbl.drop_columns([c for c in drop if c in tbl.column_names])
    for name in floats:
        i = tbl.schema.get_field_index(name)
        if i >= 0 and pa.types.is_float64(tbl.schema.field(i).type):
            tbl = tbl.set_column(i, name, tbl.column(i).cast(pa.float32()))
    return browser_table(tbl)
