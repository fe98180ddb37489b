"""Moments of utilization (Godin, Quinn and Pancake): four numbers per resource that sketch
when and how evenly it was busy, computed exactly while a trace streams by.

For a resource's busy function g(t) (1 while in a busy state, else 0):

    m0 = integral of g                norm: total busy time
    m1 = (1/m0) integral of t g       mean: when the work happened
    m2 = sqrt(3 mu2)                  scaled deviation: one unbroken busy
                                      bar has m2 = m0 / 2, gaps make it larger
    m3 = 3 cbrt(mu3)                  scaled skew: > 0 when the bulk of the
                                      work comes before m1, < 0 after

with mu_k = (1/m0) integral of (t - m1)^k g. Everything is in seconds.

Which states make a resource busy:

    busy=None                every state (the default)
    busy=["compute"]         only these state values (names as the file
                             writes them, or grouped as the legend shows
                             them: "aten::copy_" takes every "aten::copy_,
                             op_id = N", "Frame" every frame a Perfetto
                             trace names by its token)
    idle=["MPI_Wait"]        every state but these
                             (also spelled busy={"all_but": ["MPI_Wait"]})
    gaps=True                also the time a resource spends in no state
                             (busy=[], gaps=True: only that time)

Nested states (Pajé's PushState, OTF2 regions) count with the state on top
of the stack (``nesting="innermost"``), or the resource is busy while any
busy state is open (``nesting="union"``).

A busy function is 0 or 1, never a count. A container holding states of
several state types (a SimGrid host's SERVICE and PM states, a thread's MPI
and user states) is, with ``nesting="innermost"``, one resource per state
type, named "name [type]" as in the microscopic model; with
``nesting="union"``, one resource busy while any busy state of any type is
open. ``state_types=`` picks the types.
"""

from __future__ import annotations

import os

from . import _bridge, _figure, _work
from ._clock import span
from ._figure import Figure
from ._options import moments_options
from ._tables import TableResult, incomplete_suffix


class Moments(TableResult):
    """Moments of utilization, one row per resource, state of a resource,
    hierarchy node or aggregate, and their moment display.

    ``to_pandas()`` has the columns

    - ``resource`` (path of the resource, by resource or state) or ``node``
      (path of the hierarchy node or aggregate; the root's path is empty
      for a trace, the model's root name for an aggregation);
    - ``aggregate_id`` (row of ``agg.to_pandas()``), ``start``, ``end``
      (its time range, s) for aggregates; ``resources`` (how many resources
      the row adds up) for nodes and aggregates; ``state`` and ``type``
      (the state's name grouped as the models' default ``key="group"``
      groups it, so that PyTorch's ``aten::copy_, op_id = N`` are one
      ``aten::copy_``, and the state type; ``(no state)`` for gaps) by
      state;
    - ``m0``, ``m1``, ``m2``, ``m3``: the moments in seconds, m1 on the
      trace clock; m1..m3 are NaN for a row without busy time;
    - ``busy_ns``: m0 exactly, in integer nanoseconds;
    - ``P0``..``P3``: the raw power sums, integral of (t - origin)^k g(t)
      dt in s^(k+1), and their ``origin`` (s; exactly: ``origin_ns``).

    Power sums add up: the moments of any set of rows are those of their
    summed power sums, once brought to a common origin (P_k about o' =
    sum over j of C(k,j) (o - o')^(k-j) P_j about o). A node's row adds its
    resources' busy functions, so its m0 is their total busy time.

    Displaying the object in Jupyter shows :meth:`plot`.
    """

    @property
    def by(self) -> str:
        """What a row stands for: resource, state, node or aggregate."""
        return self._info["by"]

    @property
    def start(self) -> float:
        """Start of the analysed window, in seconds."""
        return self._info["start"]

    @property
    def end(self) -> float:
        """End of the analysed window, in seconds."""
        return self._info["end"]

    @property
    def origin(self) -> float:
        """The trace's first instant on its clock (seconds): the moment
        display's axis and the explorer count time from it; the table's
        ``m1`` stays on the trace's clock (``m1 - origin`` reads it from
        the start)."""
        return self._info.get("origin", 0.0)

    @property
    def warnings(self) -> list[str]:
        """For moments computed while reading a file (:func:`macroscope.moments`),
        what the reader skipped, tolerated or found missing; empty otherwise."""
        return list(self._info.get("warnings") or ())

    @property
    def busy(self) -> str:
        """Which states counted as busy, in words."""
        return self._info["busy"]

    def __len__(self) -> int:
        return self._info["rows"]

    def plot(self, path: str | os.PathLike | None = None, width: int = 960, height: int | None = None,
             format: str | None = None, title: str | None = None, *, colors: dict | None = None) -> Figure:
        """Draw the moment display of Godin, Quinn and Pancake (Fig. 3, and Fig. 6 for many
        rows): per row, a grey bar of length m0 centred at m1 with a tick at
        m1, black bars out to m1 - m2 and m1 + m2, and a thin line from m1
        to m1 + m3. Rows follow the hierarchy top to bottom; with many rows
        each gets a pixel and neighbours merge into areas. A node's or an
        aggregate's bar shows the mean busy time of its resources (m0
        divided by their number). By state, each state has its colour.

        Sizes are in pixels; the default height gives each row 12 pixels
        when there are few and one pixel each when there are many. With
        ``path`` the image is written there (the format follows the
        extension, .png or .svg) and the path returned; otherwise the image
        bytes are returned (as a bytes object that Jupyter displays).
        """
        w, h = _figure.points(width, height, height_optional=True)
        # Drawn in Go as a work of its own: Ctrl-C stops a display of many
        # rows.
        return _figure.plot(lambda fmt: _work.compute(self._h.StartPlot, _bridge.options(
            width=w, height=h, format=fmt, title=title, colors=_figure.color_options(colors)), result="Image"),
            path, format, title or "moments")

    def _repr_png_(self):
        return self.plot().to_bytes("png") if len(self) else None

    def explore(self, width: int = 900, height: int | None = None, *, colors: dict | None = None):
        """The moment display in a notebook, drawn by the browser (needs
        ``anywidget``; see docs/widgets.md): hovering a row shows its
        resource and m0..m3; states take the colours of :meth:`plot`,
        ``colors`` overriding them as there. Returns the widget."""
        # Imported when asked: the widgets need anywidget, an optional
        # dependency, and take time to import.
        from .widgets import MomentsExplorer

        return MomentsExplorer(self, width=width, height=height, colors=colors)

    def __repr__(self) -> str:
        i = self._info
        return (f"<macroscope.Moments by {i['by']}: {i['rows']} rows, busy = {i['busy']}, "
                f"window {span(i)}{incomplete_suffix(i)}>")


def trace_moments(trace, busy=None, by="resource", start=None, end=None, idle=None, state_types=None,
                  nesting="innermost", gaps=False) -> Moments:
    """The moments of a trace in memory: see :meth:`macroscope.Trace.moments`."""
    opts = moments_options(busy, idle, by, state_types, nesting, gaps, start, end)
    return Moments(_work.compute(trace._h.StartMoments, opts, result="Moments"))


def aggregation_moments(agg, busy=None, by="aggregate", idle=None, state_types=None, nesting="innermost",
                        gaps=False) -> Moments:
    """The moments of the aggregates of an aggregation: see
    :meth:`macroscope.Aggregation.moments`."""
    opts = moments_options(busy, idle, by, state_types, nesting, gaps)
    return Moments(_work.compute(agg._h.StartMoments, opts, result="Moments"))
