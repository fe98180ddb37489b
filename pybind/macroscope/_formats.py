"""The formats Macroscope reads, as the Go registry describes them.

Every reader of the Go core registers its format: a summary, the file
extensions it claims, whether it reads a directory, and its options with
their kinds and defaults (``formats.Describe``). The registry is asked
once, here, so that the doors (:func:`macroscope.read`, the
``read_<format>`` functions, :func:`macroscope.read_micro`,
:func:`macroscope.moments`), the command line and the type stub agree with
the Go core without a line of Python per format.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from . import _bridge

#: The description of every format, by name, in the registry's order.
DESCRIPTIONS: dict[str, dict] = {d["name"]: d for d in _bridge.call_json(_bridge.native.Formats)}

#: The names of the formats, in the registry's order.
FORMATS: tuple[str, ...] = tuple(DESCRIPTIONS)

#: The options of each format's reader, as keyword arguments spell them.
READER_OPTIONS: dict[str, tuple[str, ...]] = {
    name: tuple(o["name"] for o in d["options"] or ()) for name, d in DESCRIPTIONS.items()}

# Every option of some reader: what the doors that take any format accept.
_ANY_READER_OPTION = frozenset(name for names in READER_OPTIONS.values() for name in names)


def formats() -> pd.DataFrame:
    """The formats Macroscope reads, with the options of their readers, as
    a pandas DataFrame (one row per format).

    >>> table = ms.formats()
    >>> list(table.columns)
    ['format', 'summary', 'extensions', 'directory', 'options']
    >>> table.set_index("format").loc["paraver", "options"]
    'view, max_decompressed, part_start, part_end, strict'
    """
    rows = []
    for d in DESCRIPTIONS.values():
        rows.append({
            "format": d["name"], "summary": d["summary"], "extensions": ", ".join(d["extensions"] or ()),
            "directory": d["directory"],
            "options": ", ".join(o["name"] for o in d["options"] or ()),
        })
    return pd.DataFrame(rows)


def function_name(format_name: str) -> str:
    """read_<format>, in a Python identifier (rocprofv3-json: read_rocprofv3_json)."""
    return "read_" + format_name.replace("-", "_")


def check_options(function: str, options: Iterable[str], format_name: str | None = None) -> None:
    """Raise TypeError, as Python does for a keyword argument a function
    does not take, for an option that no reader has (or, given
    ``format_name``, that this format's reader has not)."""
    known = _ANY_READER_OPTION if format_name is None else READER_OPTIONS[format_name]
    for name in options:
        if name not in known:
            raise TypeError(f"{function}() got an unexpected keyword argument {name!r}")
