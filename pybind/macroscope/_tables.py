"""The common behaviour of every result that is a table."""

from __future__ import annotations

import functools
import html

import pandas as pd
import pyarrow as pa

from . import _bridge, _work


class TableResult:
    """A result backed by an Arrow table built on demand by the Go core.

    ``handle`` is the Go object: its ``Table(address)`` exports the table
    into the ArrowArrayStream at address, and its ``Info()`` describes the
    result as JSON (``_info``).
    """

    def __init__(self, handle):
        self._h = handle

    def _export(self, address: int) -> None:
        self._h.Table(address)

    @functools.cached_property
    def _info(self) -> dict:
        return _bridge.call_json(self._h.Info)

    @functools.cached_property
    def _table(self) -> pa.Table:
        start = getattr(self._h, "StartTable", None)
        if start is not None:  # a long table: converted as a work Ctrl-C stops
            return _work.table(start)
        return _bridge.table(self._export)

    @property
    def complete(self) -> bool:
        """False when the trace this result was built from was incomplete
        (a cut last record, a missing part); :attr:`incomplete` says why."""
        return not self._info.get("incomplete")

    @property
    def incomplete(self) -> list[str]:
        """Why the trace this result was built from was incomplete (empty
        when it was complete)."""
        return list(self._info.get("incomplete") or ())

    def to_arrow(self) -> pa.Table:
        """The result as a pyarrow Table (zero-copy from the Go core)."""
        return self._table

    def to_pandas(self) -> pd.DataFrame:
        """The result as a pandas DataFrame."""
        return _bridge.to_pandas(self._table)

    def __arrow_c_stream__(self, requested_schema=None):
        """Arrow PyCapsule stream protocol: lets polars, duckdb and others
        read the result directly."""
        return self._table.__arrow_c_stream__(requested_schema)


def incomplete_suffix(info: dict) -> str:
    """The end of a result's repr when its trace was incomplete:
    ", INCOMPLETE (reasons)"; empty otherwise."""
    reasons = info.get("incomplete")
    return f", INCOMPLETE ({'; '.join(reasons)})" if reasons else ""


def html_summary(title: str, rows: list[tuple[str, str]]) -> str:
    """A result's description for notebooks (``_repr_html_``): a title
    and a two-column table of what a person reads first, escaped."""
    body = "".join(f"<tr><th style='text-align:left;padding-right:1em'>{html.escape(k)}</th>"
                   f"<td style='text-align:left'>{html.escape(v)}</td></tr>" for k, v in rows if v)
    return f"<div><strong>{html.escape(title)}</strong><table>{body}</table></div>"


def state_list(states: list[str], shown: int = 12) -> str:
    """The first ``shown`` states, and how many more."""
    text = ", ".join(states[:shown])
    return text + (f" and {len(states) - shown} more" if len(states) > shown else "")
