"""Kaleidoscope views of dynamic call and spawn trees (Tick and Park 1991, VISTA).

A :class:`CallTree` comes from the nested states of a trace
(:meth:`Trace.call_tree`), from a table with one row per node
(:meth:`CallTree.from_pandas`) or from a table of edges
(:meth:`CallTree.from_edges`). :meth:`CallTree.layout` lays it out
radially in a window, condensing it to fit, and returns a
:class:`Kaleidoscope`, a table of the laid-out nodes that plots itself
coloured by processing element, procedure or start time.
"""

from __future__ import annotations

import ctypes
import math
import os

import numpy as np
import pandas as pd
import pyarrow as pa

from . import _bridge, _figure, _work
from ._errors import InvalidArgumentError
from ._figure import Figure
from ._tables import TableResult, incomplete_suffix

_VIEWS = ("pe", "procedure", "time")
# Figures are sized in pixels at 96 dpi, like the layout.
_LEGEND_PX, _TITLE_PX = 230, 44


_NULLABLE_INTS = {pa.int64(): pd.Int64Dtype(), pa.int32(): pd.Int32Dtype()}


def _frame(tbl: pa.Table) -> pd.DataFrame:
    """The table as a DataFrame, integer columns with nulls (parent, state,
    level...) as pandas' nullable integers rather than floats."""
    df = _bridge.to_pandas(tbl)
    for name in tbl.column_names:
        col = tbl.column(name)
        if col.null_count and col.type in _NULLABLE_INTS:
            df[name] = col.to_pandas(types_mapper=_NULLABLE_INTS.get)
    return df


class CallTree(TableResult):
    """An ordered rooted tree of invocations, each with a procedure, a
    processing element (PE) and a start time, held by the Go core.

    ``to_pandas()`` lists the nodes in depth-first preorder: id, parent
    (null for the root), for trees of a trace the row of the node's state
    in ``trace.states`` (``state``), depth, procedure, pe and start (s).
    """

    def to_pandas(self) -> pd.DataFrame:
        return _frame(self._table)

    @classmethod
    def from_pandas(cls, df: pd.DataFrame, id: str = "id", parent: str = "parent",
                    procedure: str | None = "procedure", pe: str | None = "pe",
                    start: str | None = "start", order: str | None = None) -> "CallTree":
        """Build a tree from a DataFrame with one row per node.

        ``id`` names the column of node ids (integers or strings, unique);
        ``parent`` the column of parent ids, null (None, NaN) for the root,
        which must be the only such row. ``procedure``, ``pe`` and
        ``start`` name optional columns (absent columns with the default
        names are skipped; None skips them): procedures and PEs are
        labels, nulls allowed; start times are seconds (numbers) or
        timestamps, no nulls.

        Siblings are ordered by start time (ties in row order) when there
        are start times, otherwise by row; ``order="rows"`` keeps the row
        order anyway. Duplicate ids, unknown parents, several roots or none,
        cycles of parents and missing or NaN start times raise
        :class:`InvalidArgumentError` naming the row (counted from 0 in the
        DataFrame's order).
        """
        if not isinstance(df, pd.DataFrame):
            raise InvalidArgumentError(f"df: expected a pandas DataFrame, got {type(df).__name__}", param="df")
        columns = {"id": _ids(df, id, "id")}
        columns["parent"] = _parents(df, parent, columns["id"].type)
        for name, col in (("procedure", procedure), ("pe", pe)):
            if _wanted(df, col, name):
                columns[name] = _labels(df[col])
        if _wanted(df, start, "start"):
            key, arr = _times(df[start], start)
            columns[key] = arr
        if order is None:
            order = "start" if ("start" in columns or "start_ns" in columns) else "rows"
        return cls._from_table(pa.table(columns), order)

    @classmethod
    def from_edges(cls, edges: pd.DataFrame, parent: str = "parent", child: str = "child",
                   nodes: pd.DataFrame | None = None, id: str = "id", procedure: str | None = "procedure",
                   pe: str | None = "pe", start: str | None = "start", order: str | None = None) -> "CallTree":
        """Build a tree from a DataFrame of edges, one row per child: the
        ``child`` column names a node, the ``parent`` column its parent.
        The root is the one parent that is never a child. ``nodes``, if
        given, is a DataFrame of node attributes keyed by its ``id`` column,
        with the optional columns ``procedure``, ``pe`` and ``start`` as in
        :meth:`from_pandas`.

        For an elimination tree given as (Node, DependsOn) pairs, where a
        node depends on its children: ``from_edges(df, parent="Node",
        child="DependsOn")``.
        """
        for col in (parent, child):
            if col not in edges.columns:
                raise InvalidArgumentError(f"{col!r} is not a column of the edges ({list(edges.columns)})",
                                           param="parent" if col == parent else "child")
        children = edges[child]
        parents = edges[parent]
        roots = pd.unique(parents[~parents.isin(children)])
        if len(roots) != 1:
            shown = ", ".join(map(str, roots[:5]))
            raise InvalidArgumentError(
                f"parent: {len(roots)} roots (parents that are never children), a tree has one: {shown}"
                if len(roots) else "parent: no root: every parent is also a child (the edges have a cycle)",
                param="parent")
        frame = pd.DataFrame({"id": pd.concat([children, pd.Series(roots)], ignore_index=True),
                              "parent": pd.concat([parents, pd.Series([None], dtype=object)], ignore_index=True)})
        if frame["parent"].dtype == object and pd.api.types.is_integer_dtype(children.dtype):
            frame["parent"] = frame["parent"].astype("Int64")
        if nodes is not None:
            if id not in nodes.columns:
                raise InvalidArgumentError(f"{id!r} is not a column of nodes ({list(nodes.columns)})", param="id")
            attrs = [c for c in (procedure, pe, start) if c is not None and c in nodes.columns]
            frame = frame.merge(nodes[[id, *attrs]].rename(columns={id: "id"}), on="id", how="left")
        return cls.from_pandas(frame, procedure=procedure, pe=pe, start=start, order=order)

    @classmethod
    def _from_table(cls, tbl: pa.Table, order: str) -> "CallTree":
        stream = _bridge._ArrowArrayStream()
        tbl.to_reader()._export_to_c(ctypes.addressof(stream))
        try:
            handle = _bridge.call(_bridge.native.CallTreeFromTable, ctypes.addressof(stream),
                                  _bridge.options(order=order))
        finally:
            if stream.release:  # not taken by the core: release it here
                pa.RecordBatchReader._import_from_c(ctypes.addressof(stream))
        return cls(handle)

    @classmethod
    def _of_trace(cls, trace_handle, state_types=None, containers=None, per_container=False, root=None):
        if isinstance(state_types, str):
            state_types = [state_types]
        if isinstance(containers, str):
            containers = [containers]
        opts = _bridge.options(state_types=state_types, containers=containers,
                               per_container=bool(per_container), root=root)
        return cls(_work.compute(_bridge.native.StartCallTreeOfTrace, trace_handle, opts, result="CallTree"))

    @classmethod
    def _spawn_of_trace(cls, trace_handle, link_type):
        return cls(_work.compute(_bridge.native.StartSpawnTreeOfTrace, trace_handle, str(link_type), result="CallTree"))

    def __len__(self) -> int:
        return self._info["nodes"]

    @property
    def height(self) -> int:
        """Longest root-to-leaf path plus one."""
        return self._info["height"]

    @property
    def root(self):
        """Id of the root."""
        return self._key(self._info["root"])

    @property
    def views(self) -> list[str]:
        """The views the tree's attributes allow: "pe", "procedure", "time"."""
        i = self._info
        return [v for v, ok in zip(_VIEWS, (i["has_pe"], i["has_procedure"], i["has_start"])) if ok]

    def _key(self, text: str):
        return text if self._info["ids"] == "str" else int(text)

    def layout(self, width: int = 850, level_spacing: float | None = None, subtree=None,
               min_sector: float = 1.0) -> "Kaleidoscope":
        """Lay the tree out radially in a window ``width`` pixels wide
        (Tick and Park 1991).

        ``level_spacing`` is the distance d in pixels between levels;
        None picks the largest whole number that fits the view, at least 4
        for the whole tree. When the tree's height h exceeds
        hmax = floor(width / 2d), levels are condensed (c0 = floor(h/hmax),
        threshold t = c0 hmax - c0 (h - c0 hmax): levels up to t keep one in
        c0, deeper ones one in c0 + 1). ``subtree`` centres the view on the
        node with that id, uncondensed. A drawn node whose sector spans less
        than ``min_sector`` pixels along its circle is drawn without its
        descendants.
        """
        opts = {"width": width, "min_sector": min_sector}
        if level_spacing is not None:
            opts["level_spacing"] = level_spacing
        if (not isinstance(width, (int, float, np.integer, np.floating)) or isinstance(width, bool)
                or not 1 <= width <= _figure.MAX_SIDE):  # the window is the figure's side
            raise InvalidArgumentError(f"width: must be from 1 to {_figure.MAX_SIDE} pixels, got {width!r:.40}",
                                       param="width")
        for name, value in opts.items():
            if not isinstance(value, (int, float, np.integer, np.floating)) or not math.isfinite(value):
                raise InvalidArgumentError(f"{name}: must be a finite number of pixels, got {value!r}", param=name)
            opts[name] = float(value)

        if subtree is not None:
            opts["subtree"] = subtree.item() if hasattr(subtree, "item") else subtree
        return Kaleidoscope(_work.compute(self._h.StartLayout, _bridge.options(**opts), result="Kaleidoscope"), self)

    def __repr__(self) -> str:
        i = self._info
        return (f"<macroscope.CallTree {i['nodes']} nodes, height {i['height']}, "
                f"{i['procedures']} procedures, {i['pes']} PEs{incomplete_suffix(i)}>")


class Kaleidoscope(TableResult):
    """A call tree laid out radially (Tick and Park 1991), with its views.

    ``to_pandas()`` lists the nodes of the view in preorder: the columns of
    :class:`CallTree`, then kept (survives level condensing), level (the
    displayed level, null when condensed away), shown_parent (id of the
    nearest kept ancestor), weight, sector_start and sector_extent
    (degrees, counterclockwise from the positive x axis), x and y (pixels
    from the centre, y up), drawn (not hidden by node condensing) and
    collapsed (drawn without its descendants).
    """

    def __init__(self, handle, tree: CallTree | None = None):
        super().__init__(handle)
        self._tree = tree

    def to_pandas(self) -> pd.DataFrame:
        return _frame(self._table)

    def __len__(self) -> int:
        return self._info["nodes"]

    width = property(lambda self: self._info["width"], doc="Window width in pixels.")
    level_spacing = property(lambda self: self._info["level_spacing"], doc="Pixels between levels (d).")
    height = property(lambda self: self._info["height"], doc="Height of the view before condensing (h).")
    h_max = property(lambda self: self._info["h_max"], doc="Levels that fit: floor(width / 2d).")
    condensed = property(lambda self: self._info["condensed"], doc="Whether levels were condensed.")
    c0 = property(lambda self: self._info["c0"], doc="Condensing ratio up to the threshold (0 if not condensed).")
    threshold = property(lambda self: self._info["threshold"], doc="Deepest level condensed by c0.")
    levels = property(lambda self: self._info["levels"], doc="Levels displayed after condensing.")
    drawn = property(lambda self: self._info["drawn"], doc="Nodes drawn.")
    collapsed = property(lambda self: self._info["collapsed"], doc="Nodes drawn without their descendants.")

    @property
    def root(self):
        """Id of the node at the centre."""
        text = self._info["root"]
        return self._tree._key(text) if self._tree is not None else text

    def plot(self, view: str = "pe", path: str | os.PathLike | None = None, format: str | None = None,
             title: str | None = None, *, colors: dict | None = None) -> Figure:
        """Draw the kaleidoscope coloured by ``view``: "pe" (processing
        element), "procedure" or "time" (start time on a spectrum from blue
        to magenta over the view's time span).

        Procedures keep the colours the trace gives their states (Pajé's
        entity values), the others take the palette's; ``colors`` (a dict
        from PE or procedure name to colour, as in :meth:`Trace.plot_gantt`)
        overrides them in the PE and procedure views. The image is the
        layout's window (``width`` pixels square) with a title above and a
        legend to the right. With ``path`` it is written there (PNG, SVG or
        PDF by the extension) and the path returned; otherwise a
        :class:`Figure`.
        """
        if view not in _VIEWS:
            raise InvalidArgumentError(f"view: must be one of {', '.join(_VIEWS)}, got {view!r}", param="view")
        colors = _figure.color_options(colors)
        return _figure.plot(lambda fmt: _work.compute(self._h.StartPlot, _bridge.options(view=view, format=fmt, title=title,
                                                                                         colors=colors),
                                                      result="Image"),
                            path, format, title or f"kaleidoscope ({view})")

    def legend(self, view: str = "pe", *, colors: dict | None = None) -> dict:
        """The PEs or procedures of ``view`` ("pe" or "procedure") in colour
        order (PEs in the tree's order, procedures by decreasing number of
        nodes) with the names as :meth:`plot` writes them (``short``: whole
        up to 34 characters, else the first 16, "..." and the last 15) and
        the colours it paints them ("#rrggbb"): ``{"labels": [...],
        "short": [...], "colours": [...]}``."""
        return _bridge.call_json(self._h.Legend, _bridge.options(view=view, colors=_figure.color_options(colors)))

    def explore(self, view: str | None = None, *, colors: dict | None = None):
        """An interactive view in Jupyter (a widget): zoom with the wheel,
        pan by dragging, hover a node for its procedure, PE and start time,
        switch views (PE, procedure, time), double-click a node to centre
        on its subtree. Colours as in :meth:`plot` (``colors`` may name
        PEs and procedures alike). See docs/widgets.md."""
        # Imported when asked: the widgets need anywidget, an optional
        # dependency, and take time to import.
        from .widgets._kaleido import KaleidoscopeExplorer

        return KaleidoscopeExplorer(self, view=view, colors=colors)

    def _repr_png_(self):
        views = self._tree.views if self._tree is not None else list(_VIEWS)
        return self.plot(view=views[0]).to_bytes("png") if views else None

    def __repr__(self) -> str:
        i = self._info
        cond = (f"levels condensed (c0={i['c0']}, t={i['threshold']})" if i["condensed"]
                else "not condensed")
        return (f"<macroscope.Kaleidoscope {i['nodes']} nodes, height {i['height']}, {i['levels']} levels shown, "
                f"{cond}, {i['drawn']} drawn, width {i['width']:g} px, d={i['level_spacing']:g} px{incomplete_suffix(i)}>")


def _wanted(df, col, default):
    """Whether an optional column is to be read; a missing column is an
    error unless it was only the default name."""
    if col is None:
        return False
    if col in df.columns:
        return True
    if col == default:
        return False
    raise InvalidArgumentError(f"{col!r} is not a column of the DataFrame ({list(df.columns)})", param=default)


def _ids(df, col, param):
    if col not in df.columns:
        raise InvalidArgumentError(f"{col!r} is not a column of the DataFrame ({list(df.columns)})", param=param)
    s = df[col]
    missing = s.isna().to_numpy()
    if missing.any():
        row = int(missing.argmax())
        raise InvalidArgumentError(f"id: row {row}: the id is missing", param="id")
    if pd.api.types.is_integer_dtype(s.dtype) or pd.api.types.is_float_dtype(s.dtype):
        return pa.array(_integers(s, missing, "id"), type=pa.int64())
    return pa.array(s.map(str).to_numpy(dtype=object), type=pa.string())


def _parents(df, col, id_type):
    if col not in df.columns:
        raise InvalidArgumentError(f"{col!r} is not a column of the DataFrame ({list(df.columns)})", param="parent")
    s = df[col]
    mask = s.isna().to_numpy()
    if pa.types.is_int64(id_type):
        return pa.array(_integers(s, mask, "parent"), type=pa.int64(), mask=mask)
    return pa.array([None if m else str(v) for v, m in zip(s.to_numpy(dtype=object), mask)], type=pa.string())


def _integers(s: pd.Series, missing, param: str):
    """Integer ids as int64 (0 where missing), exactly for integer columns;
    float and object columns must hold integral values."""
    if pd.api.types.is_integer_dtype(s.dtype):
        return s.astype("Int64").fillna(0).to_numpy(dtype="int64")
    num = pd.to_numeric(s, errors="coerce") if not pd.api.types.is_float_dtype(s.dtype) else s
    if pd.api.types.is_integer_dtype(num.dtype):
        return num.astype("Int64").fillna(0).to_numpy(dtype="int64")
    values = num.astype("float64").to_numpy(na_value=float("nan"))
    bad = ~missing & ~((values == values.round()) & (abs(values) < 2.0**63))
    if bad.any():
        row = int(bad.argmax())
        value = s.iloc[row]
        value = repr(value) if isinstance(value, str) else str(value)
        raise InvalidArgumentError(f"{param}: row {row}: {value} is not an integer id"
                                   + (" (the ids are integers)" if param == "parent" else ""), param=param)
    return np.where(missing, 0, values).astype("int64")


def _labels(s: pd.Series) -> pa.Array:
    values = s.astype(object).where(s.notna(), None).to_numpy(dtype=object)
    try:
        arr = pa.array(values, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        arr = pa.array([None if v is None else str(v) for v in values], type=pa.string())
    if pa.types.is_null(arr.type):
        return pa.array([None] * len(arr), type=pa.string())
    if not pa.types.is_string(arr.type):
        arr = pa.array([None if v is None else str(v) for v in values], type=pa.string())
    return arr


def _times(s: pd.Series, name: str):
    """Start times as float64 seconds ("start") or int64 ns ("start_ns")."""
    if pd.api.types.is_datetime64_any_dtype(s.dtype) or pd.api.types.is_timedelta64_dtype(s.dtype):
        missing = s.isna().to_numpy()
        if missing.any():
            row = int(missing.argmax())
            raise InvalidArgumentError(f"start: row {row}: the start time is missing", param="start")
        if isinstance(s.dtype, pd.DatetimeTZDtype):
            s = s.dt.tz_convert("UTC").dt.tz_localize(None)
        return "start_ns", pa.array(s.to_numpy().astype("datetime64[ns]" if s.dtype.kind == "M" else "timedelta64[ns]")
                                    .view("int64"), type=pa.int64())
    if not pd.api.types.is_numeric_dtype(s.dtype) or pd.api.types.is_bool_dtype(s.dtype):
        raise InvalidArgumentError(f"start: column {name!r} must hold numbers of seconds or timestamps, got {s.dtype}",
                                   param="start")
    # NaN and missing values cross as NaN: the core names the row.
    return "start", pa.array(s.astype("float64").to_numpy(na_value=float("nan")), type=pa.float64())
