"""The performance analyses: flat profile, load imbalance, communication
matrix (this module), POP efficiencies, critical path and stragglers
(:mod:`macroscope._pop`, :mod:`macroscope._critpath`).

Each is computed by the Go core from a trace in memory
(``trace.flat_profile()``...) or while a file is read
(``ms.flat_profile(path)``...), and returned as a result object with its
tables (``to_pandas()``, ``to_arrow()``, and named tables), a figure
(``plot()``) and its description (``info``). docs/analyses.md gives the
definitions and their sources.
"""

from __future__ import annotations

import math
import numbers
import os
import warnings

import pandas as pd
import pyarrow as pa

from . import _bridge, _figure, _reading, _work
from ._errors import InvalidArgumentError
from ._figure import Figure
from ._formats import check_options
from ._reading import Progress
from ._tables import TableResult, incomplete_suffix


class Analysis(TableResult):
    """The result of an analysis: a main table (``to_pandas()``,
    ``to_arrow()``), possibly others (:meth:`table`), a figure
    (:meth:`plot`) and a description (:attr:`info`)."""

    #: The name of the main table.
    _main = ""

    def _export(self, address: int) -> None:
        self._h.Table(self._main, address)

    def table(self, name: str) -> pd.DataFrame:
        """The result's table ``name`` (:attr:`tables` lists them) as a
        pandas DataFrame."""
        return _bridge.to_pandas(self.arrow_table(name))

    def arrow_table(self, name: str) -> pa.Table:
        """The result's table ``name`` as a pyarrow Table."""
        if name == self._main:
            return self.to_arrow()
        return _bridge.table(lambda address: self._h.Table(name, address))

    @property
    def tables(self) -> list[str]:
        """The names of the result's tables."""
        return list(self._info["tables"])

    @property
    def info(self) -> dict:
        """What the analysis tells beyond its tables (sizes, source, the
        options it ran with...), as a dict."""
        return dict(self._info)

    @property
    def source(self) -> str:
        """The trace file the result was computed from ("" if none)."""
        return self._info.get("source") or ""

    @property
    def warnings(self) -> list[str]:
        """For a result computed while reading a file, what the reader
        skipped, tolerated or found missing; empty otherwise."""
        return list(self._info.get("warnings") or ())

    def plot(self, path: str | os.PathLike | None = None, width: int | None = None, height: int | None = None,
             format: str | None = None, title: str | None = None, **options) -> Figure:
        """Draw the result's figure (see the class's documentation for what
        it shows and its ``options``). Sizes are in pixels (defaults fit
        the content). With ``path`` the image is also written there (PNG,
        SVG or PDF by the extension). Returns a :class:`macroscope.Figure`."""
        for name, v in (("width", width), ("height", height)):
            if v is not None and (not isinstance(v, numbers.Real) or isinstance(v, bool) or not v > 0
                                  or not math.isfinite(v)):
                raise InvalidArgumentError(f"{name}: must be a positive number of pixels, got {v!r}", param=name)
        opts = {k: v for k, v in options.items() if v is not None}
        # A work of its own: Ctrl-C stops the communication matrix of
        # thousands of ranks and the critical path of millions of segments.
        return _figure.plot(lambda fmt: _work.compute(self._h.StartPlot, _bridge.options(
            width=None if width is None else width * _figure.POINTS_PER_PIXEL,
            height=None if height is None else height * _figure.POINTS_PER_PIXEL,
            format=fmt, title=title, **opts), result="Image"), path, format, title or self._info["kind"])

    def _repr_png_(self):
        try:
            return self.plot().to_bytes("png")
        except InvalidArgumentError:
            return None

    def __repr__(self) -> str:
        src = os.path.basename(self.source)
        return f"<macroscope.{type(self).__name__}{' of ' + src if src else ''}: {self._describe()}" \
               f"{incomplete_suffix(self._info)}>"

    def _describe(self) -> str:
        return ""


class FlatProfile(Analysis):
    """The flat profile of a trace's states, with pipit's semantics: for
    every state name, ``to_pandas()`` has a row with

    - ``name``, ``type`` (the state type);
    - ``count`` (states of that name), ``processes`` (processes that have
      it);
    - ``inclusive``, ``exclusive``: their durations added up over all
      processes, in seconds (exactly: ``inclusive_ns``, ``exclusive_ns``);
      a state's exclusive time is its duration minus that of the states
      directly nested in it;
    - ``inclusive_mean``, ``exclusive_mean``: the same over the number of
      processes that have the name: pipit's ``flat_profile()``;
    - ``share``: exclusive time over the exclusive time of all names.

    Rows come by exclusive time, largest first. :meth:`per_process` has
    the sums by process. ``plot(top=20)`` draws the mean exclusive and
    inclusive times of the ``top`` names as bars.
    """

    _main = "flat"

    def per_process(self) -> pd.DataFrame:
        """The sums of every name in every process that has it: name,
        type, process (path), count, inclusive, exclusive (s),
        inclusive_ns, exclusive_ns (pipit's ``per_process=True``)."""
        return self.table("per_process")

    def __len__(self) -> int:
        return self._info["names"]

    def _describe(self) -> str:
        return f"{self._info['names']} names over {self._info['processes']} {self._info['by']}es"


class LoadImbalance(Analysis):
    """How unevenly the time of each state name spreads over the processes
    that have it (pipit's ``load_imbalance()``): ``to_pandas()`` has, per
    name, ``name``, ``type``, ``processes``, ``mean``, ``max``, ``min``
    (seconds of exclusive, or inclusive, time per process), ``imbalance``
    (max / mean), ``top`` (the processes of the largest times, largest
    first), ``saving`` (max - mean: what a perfect balance of that state
    would save on its slowest process) and ``runtime_share`` (saving over
    the trace's duration). Rows come by mean, largest first.

    ``plot(top=20)`` draws, for the ``top`` names, the range of times over
    the processes, the mean (dot) and the largest (square), with the
    imbalance and the slowest process beside it.
    """

    _main = "imbalance"

    def __len__(self) -> int:
        return self._info["names"]

    def _describe(self) -> str:
        return f"{self._info['names']} names, {self._info['metric']} time over {self._info['processes']} " \
               f"{self._info['by']}es"


class CommMatrix(Analysis):
    """The communication between a trace's resources: ``to_pandas()`` has
    a row per link type and (source, destination) pair with ``count``,
    ``bytes`` (the sizes the trace gives, added up; 0 when it gives none),
    ``sized`` (links with a size), ``bytes_min`` and ``bytes_max``. Links
    are the format's: MPI messages (Paraver, OTF2, SMPI), kernel launches
    (nsys, rocprof), flows (Chrome, Perfetto), goroutine creations (Go).

    :meth:`matrix` gives one link type's square matrix; ``plot(value=,
    type=, log=True)`` draws it as a heat map.
    """

    _main = "matrix"

    def matrix(self, value: str = "bytes", type: str | None = None) -> pd.DataFrame:
        """The square matrix of one link type (``type``; by default the
        only one, or the first): sources as rows, destinations as columns
        (both every group that sends or receives), ``value`` ("bytes" or
        "count") in the cells, 0 where nothing goes."""
        if value not in ("bytes", "count"):
            raise InvalidArgumentError(f"value: {value!r} is not 'bytes' or 'count'", param="value")
        df = self.to_pandas()
        types = list(self._info["link_types"])
        if type is None:
            if not types:
                return pd.DataFrame()
            type = types[0]
        elif type not in types:
            raise InvalidArgumentError(f"type: the trace has no links of type {type!r} (types: {types})", param="type")
        df = df[df["type"] == type]
        # The categories are the groups in the trace's order.
        used = set(df["source"].astype(str)) | set(df["destination"].astype(str))
        groups = [g for g in df["source"].cat.categories if g in used]
        m = df.pivot_table(index=df["source"].astype(str), columns=df["destination"].astype(str), values=value,
                           aggfunc="sum", fill_value=0)
        m = m.reindex(index=groups, columns=groups, fill_value=0)
        m.index.name, m.columns.name = "source", "destination"
        return m

    @property
    def link_types(self) -> list[str]:
        """The link types counted."""
        return list(self._info["link_types"])

    def _describe(self) -> str:
        return f"{self._info['links']} links of {len(self._info['link_types'])} types, " \
               f"{self._info['rows']} {self._info['level']} pairs"


def analyze(trace, kind: str, cls, **options):
    """The analysis ``kind`` of a trace in memory, as a ``cls``. It runs
    in Go as a work of its own: Ctrl-C stops it."""
    return cls(_work.compute(trace._h.StartAnalyze, kind, _bridge.options(**options), result="Analysis"))


def analyze_file(path, kind: str, cls, format: str | None, progress: Progress, options: dict, reader: dict,
                 function: str):
    """The analysis ``kind`` computed while reading the file at ``path``."""
    check_options(function, reader)
    reader = dict(reader)
    if format is not None:
        if not isinstance(format, str):
            raise InvalidArgumentError(f"format: must be a format name, got {format!r}", param="format")
        reader["format"] = format
    path = _reading.inputs(path, reader)
    opts = _bridge.options(**options)
    handle = _reading.run(path, reader, progress,
                          start=lambda p, ro: _bridge.native.StartAnalyze(p, ro, kind, opts), result="Analysis")
    result = cls(handle)
    for message in result.warnings:
        warnings.warn(message, UserWarning, stacklevel=3)
    return result


def profile_options(state_types, by, metric=None, top=None) -> dict:
    if isinstance(state_types, str):
        state_types = [state_types]
    if top is not None and (not isinstance(top, int) or isinstance(top, bool) or top < 0):
        raise InvalidArgumentError(f"top: must be a number of processes, got {top!r}", param="top")
    return dict(state_types=None if state_types is None else [str(s) for s in state_types], by=by, metric=metric,
                top=top)
