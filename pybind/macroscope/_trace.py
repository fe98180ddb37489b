"""Traces: reading files and looking at their content."""

from __future__ import annotations

import functools
import numbers
import os

import pandas as pd

from . import _analyses, _bridge, _figure, _work
from ._analyses import CommMatrix, FlatProfile, LoadImbalance
from ._clock import span
from ._critpath import CriticalPath, Stragglers, trace_critical_path, trace_stragglers
from ._errors import InvalidArgumentError
from ._pop import POP, trace_pop
from ._figure import Figure
from ._kaleido import CallTree
from ._model import MicroModel, warn_notes
from ._moments import Moments, trace_moments
from ._options import model_options
from ._tables import html_summary, incomplete_suffix
from ._topology import Topology

#: The most decimals :meth:`Trace.to_pjdump` writes (pj_dump -l): more than
#: a double's 17 significant digits print only noise, and a precision of a
#: million would make every number a megabyte.
MAX_PRECISION = 30


class Trace:
    """An execution trace held in memory by the Go core.

    Obtain one with :func:`read` (or the reader of a format:
    :func:`read_paje`, :func:`read_otf2`...), or build one from a table of
    intervals with :func:`from_pandas`. Tables of its content are available
    as pandas DataFrames (``containers``, ``states``, ``variables``,
    ``links``, ``events``, ``types``) and the microscopic model of Dosimont et al. 2014
    with :meth:`micro`.
    """

    def __init__(self, handle):
        self._h = handle

    @functools.cached_property
    def _summary(self) -> dict:
        return _bridge.call_json(self._h.Summary)

    @property
    def start(self) -> float:
        """First instant of the trace, in seconds on its clock (the
        origin from which every time shown counts, and every window
        argument: see :attr:`origin`)."""
        return self._summary["start"]

    @property
    def end(self) -> float:
        """Last instant of the trace, in seconds on its clock."""
        return self._summary["end"]

    @property
    def origin(self) -> float:
        """The trace's first instant on its clock (seconds; ``start``):
        reprs, figures and explorers count time from it, and ``start=``,
        ``end=`` arguments are seconds from it. The tables keep the
        instants of the trace's clock."""
        return self._summary["start"]

    @property
    def duration(self) -> float:
        """The trace's length in seconds, from its first to its last instant."""
        return (self._summary["end_ns"] - self._summary["start_ns"]) / 1e9

    @property
    def files(self) -> list[str]:
        return list(self._summary["files"])

    def _frame(self, name):
        return _bridge.to_pandas(_work.table(self._h.StartTable, name))

    @functools.cached_property
    def containers(self) -> pd.DataFrame:
        """DataFrame of the containers (the resource hierarchy), depth first:
        path, name, type, parent, depth, start, end (s), start_ns, end_ns."""
        return self._frame("containers")

    @functools.cached_property
    def states(self) -> pd.DataFrame:
        """DataFrame of the state intervals: container (path), type, value
        (the name as the file writes it), group (the name grouped as the
        models' default ``key="group"`` does), start, end, duration (s),
        depth (nesting level), the exact start_ns, end_ns, the value's
        category (null if none), its domain (as ``key="domain"``) and the
        state's arguments as JSON text (args; null if none or not kept)."""
        return self._frame("states")

    @functools.cached_property
    def variables(self) -> pd.DataFrame:
        """DataFrame of the pieces of the variables (each holds its value
        from start to end): container (path), type, start, end, duration
        (s), value and the exact start_ns, end_ns."""
        return self._frame("variables")

    @functools.cached_property
    def links(self) -> pd.DataFrame:
        """DataFrame of the links (messages, flows...): container (where
        declared), type, value, source and destination (paths), start, end,
        duration (s), key, size (bytes; NaN when the format does not tell)
        and the exact start_ns, end_ns."""
        return self._frame("links")

    @functools.cached_property
    def events(self) -> pd.DataFrame:
        """DataFrame of the point events: container (path), type, value,
        group (see :attr:`states`), time (s), the exact time_ns, the
        value's category (null if none), its domain and the event's
        arguments as JSON text (args; null if none or not kept)."""
        return self._frame("events")

    @functools.cached_property
    def types(self) -> pd.DataFrame:
        """DataFrame of the type hierarchy, in definition order: name, kind
        (Container, State, Variable, Event, Link), parent (the container
        type holding it), alias, color, number of values, for links the
        source_type and destination_type, and role: what the reader says
        the type stands for ("thread", "instructions", "launch"...; "" for
        none)."""
        return self._frame("types")

    @property
    def warnings(self) -> list[str]:
        """What the reader skipped, tolerated or found missing, worded for
        the user: the reasons the trace is incomplete, remarks, then a line
        per kind of entry skipped with its count (``"skipped 12 events of
        phase 'P' (samples)"``). Empty when the file was read whole."""
        return list(self._summary.get("warnings") or ())

    @property
    def skipped(self) -> dict[str, int]:
        """The counts of what the reader did not model, by kind."""
        return dict(self._summary.get("skipped") or {})

    @property
    def complete(self) -> bool:
        """False when part of the input was missing or cut (the reasons are
        in :attr:`warnings`)."""
        return not self._summary.get("incomplete")

    @property
    def format(self) -> str:
        """The reader that read the trace ("paje", "otf2", "chrome",
        "paraver", "pjdump"), or "table" for :func:`from_pandas`."""
        return self._summary.get("format", "")

    def to_pjdump(self, path: str | os.PathLike | None = None, *, style: str = "pajeng",
                  header: bool = False, precision: int | None = None) -> str | None:
        """The trace as pj_dump prints it: one CSV-like line per container
        and entity. Written to ``path``, or returned as a string if None.

        ``style="pajeng"`` is the pj_dump of PajeNG 1.3.6 (Debian, Ubuntu):
        for a trace read by ``read_paje(path, strict=True)`` the text is
        byte for byte pj_dump's. ``style="upstream"`` is PajeNG's
        development version (names keep their quotes, no entity at the last
        instant is left out). ``header=True`` adds pj_dump -h's column
        names, and ``precision`` sets the decimals of the times and values of
        entities (pj_dump -l; default 6).
        """
        if precision is not None and (isinstance(precision, bool) or not isinstance(precision, numbers.Integral)
                                      or not 0 <= precision <= MAX_PRECISION):
            raise InvalidArgumentError(f"precision: must be a number of decimals from 0 to {MAX_PRECISION}, "
                                       f"got {precision!r:.40}", param="precision")
        # A work of its own: Ctrl-C stops the dump of a large trace (no file written then).
        text = _work.compute(self._h.StartPjdump, "" if path is None else os.fspath(path),
                             _bridge.options(style=style, header=bool(header),
                                             precision=None if precision is None else int(precision)),
                             result="JSON")
        return text if path is None else None

    def micro(self, slices: int = 100, start: float | None = None, end: float | None = None,
              state_types: list[str] | None = None, depth: int | None = None, metric: str = "state_duration",
              types: list[str] | None = None, key: str = "group", *, memory_budget: int | None = None,
              profiler_spans: bool = False) -> MicroModel:
        """Build the microscopic model: for every resource, each of
        ``slices`` equal time slices of [start, end] (seconds from the
        trace's start, as every time shown reads; an instant of the trace's
        own clock is accepted where it cannot be mistaken; default the
        whole trace; a window outside the trace is an error) and every state, the proportion of the slice spent in
        the state.

        ``metric`` chooses what each cell measures (Ocelotl's microscopic
        descriptions): "state_duration" (the proportion above),
        "state_average_duration" (the mean length in seconds of the stays in
        each state that overlap the slice), "event_count" (events of each
        value in the slice; an event on a slice boundary counts in the slice
        it opens, one at the window's end in the last) or
        "variable_average" (time average of each variable over the slice,
        0 where undefined).

        ``state_types`` (or its synonym ``types``) restricts the model to
        these types of the metric's entities (default all); resources are
        the containers that can hold them. A resource with no data is kept
        as an all-zero row; a container with data of its own and resources
        below it gets an extra row, "name (self)". A container holding
        states of several state types (a SimGrid host's SERVICE and PM
        states) gets a row per type, "name [type]", so that no row's
        proportions add up to more than 1 in a slice. ``depth`` selects how
        nested states count: None (innermost: the top of the stack, so a
        resource is in one state at a time) or a nesting level (0 = the
        outermost states only). ``key`` says what the categories are: the
        states' (or events') names grouped as a person would ("group", the
        default: the per-instance ids producers write into names are cut,
        so PyTorch's ``aten::copy_, op_id = 998952`` is ``aten::copy_``,
        Kineto's ``ProfilerStep#5`` is ``ProfilerStep`` and a kernel's
        demangled signature its base name; the ``group`` column of
        :attr:`states` tells each state's), their names as the file writes
        them ("name"), the library or namespace of the names ("domain":
        aten, NCCL, MPI, CUDA...; else their category or type), their
        values' categories ("category", or "cat": the cat of Chrome trace
        events, so a PyTorch profiler trace gives kernel, cpu_op,
        cuda_runtime...) or their types ("type": the state types of GPU
        profilers' traces, such as CUDA kernel, NCCL kernel, CUDA memcpy,
        CUDA runtime API). A model with more states than a figure colours
        apart (20) warns, naming the coarser keys that fit (its
        :attr:`MicroModel.notes`); its figures draw the smallest states as
        "other".

        The spans a profiler draws around the program's work are left out
        of the model, as they are of the figures of the profilers' own
        tools: its recording ("PyTorch Profiler (0)"), the program's
        steps (``ProfilerStep#N``, JAX's step annotations, NVTX and roctx
        ``ProfilerStep#N`` ranges) and the copies Kineto draws of the
        host's annotations on the GPU streams. Their time is not lost:
        :attr:`MicroModel.left_out` gives it, the model's summary says it,
        the resources that held nothing else are not rows, and the states
        they enclose keep exactly their own time. ``profiler_spans=True``
        keeps them as states. The trace's tables keep them whatever, and
        the analyses of steps (compare's markers, stragglers) read them.

        A model of resources x slices x states cells takes about 16 bytes a
        cell: one that would exceed ``memory_budget`` (bytes; default None:
        half of the memory available; 0: no limit) is refused at once with
        :class:`InvalidArgumentError` naming the estimate.
        """
        opts = model_options(slices, start, end, state_types, depth, metric, types, key, memory_budget, profiler_spans)
        model = warn_notes(MicroModel(_work.compute(self._h.StartMicro, opts, result="MicroModel")))
        # What the model was built from, so that an explorer zooming into a
        # window rebuilds the window's model from the trace.
        model._source = (self, dict(slices=slices, start=start, end=end, state_types=state_types, depth=depth,
                                    metric=metric, types=types, key=key, memory_budget=memory_budget,
                                    profiler_spans=profiler_spans))
        return model

    def moments(self, busy=None, by: str = "resource", start=None, end=None, *, idle=None, state_types=None,
                nesting: str = "innermost", gaps: bool = False) -> Moments:
        """Moments of utilization (Godin, Quinn and Pancake) of every resource, as a
        :class:`macroscope.Moments` table with a moment display.

        ``busy`` chooses the busy states: None (all), a list of state
        values (only these), or ``idle=[...]`` for all but these (also
        ``busy={"all_but": [...]}``); ``gaps=True`` also counts time in no
        state. ``by`` is "resource", "state" (per resource and state value;
        they add up to the resource) or "node" (every hierarchy node, its
        resources added). ``start``, ``end`` clip to a window (seconds from
        the trace's start, or decimal strings for exact nanoseconds). ``state_types`` restricts
        the state types; ``nesting`` is "innermost" or "union".
        """
        return trace_moments(self, busy=busy, by=by, start=start, end=end, idle=idle, state_types=state_types,
                             nesting=nesting, gaps=gaps)

    def plot_gantt(self, path: str | os.PathLike | None = None, *, start: float | None = None,
                   end: float | None = None, resources=None, state_types=None, width: int = 960,
                   height: int = 576, colors: dict | None = None, title: str | None = None,
                   format: str | None = None) -> Figure:
        """Draw the states as a Gantt chart, to check aggregates against the
        raw states: one row per resource (a container, or a container and
        state type when it holds several: the rows of the overview, in its
        order, so an aggregate's ``row_first`` and ``row_last`` name its
        rows here too), each state a bar over its time range in its value's
        colour, nested states as thinner bars inside the states they
        interrupt, and a legend of the states drawn.

        ``start`` and ``end`` (seconds from the trace's start; default the
        trace's) bound the window. ``resources`` keeps the rows under some containers: a name,
        a path ("host-1/rank-3", as the tables write them) or a glob
        ("rank-*"), or a list of them. ``state_types`` restricts the state
        types. ``colors`` overrides the colours (a dict from state name to
        colour, as :meth:`Aggregation.plot` takes it). Sizes are in pixels.
        Returns a :class:`macroscope.Figure`, also written to ``path`` when
        given (PNG, SVG or PDF by the extension).
        """
        if isinstance(resources, str):
            resources = [resources]
        if isinstance(state_types, str):
            state_types = [state_types]
        w, h = _figure.points(width, height)
        opts = dict(width=w, height=h, title=title,
                    start=None if start is None else float(start), end=None if end is None else float(end),
                    resources=None if resources is None else [str(r) for r in resources],
                    state_types=None if state_types is None else [str(s) for s in state_types],
                    colors=_figure.color_options(colors))
        return _figure.plot(lambda fmt: _work.compute(self._h.StartPlotGantt, _bridge.options(**opts, format=fmt),
                                                      result="Image"),
                            path, format, title or "Gantt")

    def call_tree(self, state_types: list[str] | None = None, containers: list[str] | None = None,
                  per_container: bool = False, root: str = "program") -> "CallTree":
        """The dynamic call tree of the nested states (Tick and Park 1991): a state at
        depth d+1 that began inside a state at depth d of the same container
        and state type is its callee. The outermost states of all containers
        hang from one synthetic root named ``root`` (no PE), grouped by
        container, then state type, in time order; ``per_container`` adds
        one node per container between them. A node's PE is its container
        (path), its procedure the state's value, its start the state's.

        ``state_types`` and ``containers`` (names or paths; a container
        brings its descendants) restrict the states used. Lay the tree out
        with :meth:`CallTree.layout`.
        """
        return CallTree._of_trace(self._h, state_types=state_types, containers=containers,
                                  per_container=per_container, root=root)

    def spawn_tree(self, link_type: str = "spawn") -> "CallTree":
        """The spawn tree the links of type ``link_type`` draw between
        containers: a link from A to B says that A created B (a goroutine
        its child, in Go execution traces). Every container so linked is a
        node, named by the function it runs; those no link created hang
        from a root. Lay it out with :meth:`CallTree.layout` for Tick and
        Park's kaleidoscope (the spectrum going around depth-first,
        outward breadth-first)."""
        return CallTree._spawn_of_trace(self._h, link_type)

    def topology(self, size=None, fill=None, edges=None, start=None, end=None, *, kinds=None,
                 charge: str | None = None) -> "Topology":
        """The topology-based view of Schnorr, Legrand and Vincent 2012: a
        graph of the trace's resources (nodes) and their relations (edges),
        sized by capacity and filled by utilization over [start, end]
        (seconds from the trace's start, or decimal strings; default the
        whole trace), as a
        :class:`macroscope.Topology` to collapse, expand, lay out and plot.

        ``edges`` is None (the platform's topology links if the trace has
        any, else its communications), "platform", "communications" or a
        list of link type names. Nodes are the containers of the types at
        the ends of those links and the platform types (HOST, LINK, ROUTER),
        or those named by ``kinds``. ``size`` and ``fill`` name the capacity
        and utilization variables: a name, a list of candidates (each kind
        takes the first it has) or a dict {kind: name}; by default
        power/speed/bandwidth and power_used/speed_used/bandwidth_used, as
        SimGrid writes them. ``charge`` is an aggregate's charge in the
        layout: "members" (the sum of its members' charges, the rule of
        Viva's paper; default), "sqrt" (of its number of members) or "unit".
        """
        topo = Topology._of_trace(self._h, size=size, fill=fill, edges=edges, start=start, end=end, kinds=kinds,
                                  charge=charge)
        topo._span = (0.0, self.duration)  # the bounds of explore()'s time slider, from the trace's start
        return topo

    def flat_profile(self, state_types=None, by: str = "process") -> FlatProfile:
        """The flat profile of the states, with pipit's semantics: for every
        state name its number of states, their inclusive and exclusive
        times added up, and the means over the processes that have the
        name (pipit's ``flat_profile()``), as a
        :class:`macroscope.FlatProfile`. A state's exclusive time is its
        duration minus that of the states directly nested in it.

        ``by`` is "process" (the threads of a process add up: containers
        of a type named "thread" count for their parent) or "container".
        ``state_types`` restricts the state types (a name or a list).
        """
        return _analyses.analyze(self, "flat_profile", FlatProfile, **_analyses.profile_options(state_types, by))

    def load_imbalance(self, metric: str = "exclusive", top: int = 3, state_types=None,
                       by: str = "process") -> LoadImbalance:
        """The load imbalance of every state name over the processes that
        have it (pipit's ``load_imbalance()``): the mean, largest and
        smallest time per process, their ratio max / mean, the ``top``
        processes of the largest times, and the time a perfect balance
        would save, as a :class:`macroscope.LoadImbalance`. ``metric`` is
        "exclusive" or "inclusive"; ``state_types`` and ``by`` are those of
        :meth:`flat_profile`."""
        return _analyses.analyze(self, "load_imbalance", LoadImbalance,
                                 **_analyses.profile_options(state_types, by, metric, top))

    def comm_matrix(self, level: str = "process", link_types=None) -> CommMatrix:
        """The communication matrix: for every link type and pair of
        resources, the number of links and their bytes (where the format
        gives sizes), as a :class:`macroscope.CommMatrix`. ``level`` is
        "process" (threads count for their process, as pipit counts
        ranks), "container", or a container type's name (each end counts
        for its nearest container of that type: "node", "machine"...).
        ``link_types`` restricts the link types (a name or a list)."""
        if isinstance(link_types, str):
            link_types = [link_types]
        return _analyses.analyze(self, "comm_matrix", CommMatrix, level=level, link_types=link_types)

    def pop(self, eager_limit=None, ideal: bool = True) -> POP:
        """The POP efficiencies of this run (load balance, communication,
        serialisation and transfer efficiencies, parallel efficiency, IPC
        and frequency where the trace has hardware counters; for several
        threads per process, the hybrid MPI+OpenMP factors of BSC and
        pypop), as a :class:`macroscope.POP`; :func:`macroscope.pop` puts several runs
        side by side. ``eager_limit`` (bytes; default 32 KiB) and
        ``ideal`` are those of :func:`macroscope.pop`."""
        return trace_pop(self, eager_limit, ideal)

    def critical_path(self, whole_run: bool = False) -> CriticalPath:
        """The critical path of this message-passing run, with Scalasca's
        semantics, as a :class:`macroscope.CriticalPath`: wait states (late
        sender, late receiver, waiting in collectives) from the MPI calls,
        messages and collectives; then a walk back from the last resource
        to enter MPI_Finalize, along it until a call that waited, on at the
        resource that caused the wait, down to MPI_Init's end
        (``whole_run=True``: from the trace's start to its end, MPI_Init
        and MPI_Finalize included). Needs matched messages or collectives
        (Paraver, OTF2, SMPI Pajé, pj_dump). A trace without MPI calls
        whose calls launch GPU operations (Kineto, Nsight Systems,
        rocprof) gets Holistic Trace Analysis' critical path instead
        (through the call stacks, launches, streams and synchronisations),
        one of states joined by flows the longest path through them;
        :attr:`CriticalPath.semantics` says which. Refused when the trace
        has neither MPI calls nor links (:class:`EmptyTraceError`, naming
        the file), and when its links loop (:class:`TraceFormatError`,
        naming the file and a link of the loop)."""
        return trace_critical_path(self, whole_run)

    def stragglers(self, iteration: str | None = None) -> Stragglers:
        """The resources that arrive last at the collective operations (or,
        with ``iteration``, a pattern of state names such as
        "ProfilerStep*", at the k-th such state of every resource, by when
        they finish it): how often, how much later than the next, and how
        much waiting they caused, as a :class:`macroscope.Stragglers`.
        Without collectives, the default takes the GPUs' NCCL kernels
        ("nccl*Kernel*"), or else "ProfilerStep*", found on two resources."""
        return trace_stragglers(self, iteration)

    def __repr__(self) -> str:
        return describe(self._summary)

    def _repr_html_(self) -> str:
        s = self._summary
        return html_summary(f"macroscope.Trace {', '.join(os.path.basename(f) for f in s['files'])}", [
            ("format", str(s.get("format") or "")),
            ("holds", f"{s['containers']} containers, {s['states']} states, {s['variables']} variables, "
                      f"{s['links']} links, {s['events']} events"),
            ("time", span({**s, "origin_is_start": True})),
            ("incomplete", "; ".join(s.get("incomplete") or ())),
            ("warnings", "; ".join(s.get("warnings") or ())),
        ])


def describe(s: dict) -> str:
    """A trace's one-line description, from its summary (the counts of
    what was read)."""
    return (f"<macroscope.Trace {', '.join(os.path.basename(f) for f in s['files'])}: "
            f"{s['containers']} containers, {s['states']} states, {s['variables']} variables, "
            f"{s['links']} links, {s['events']} events, {span({**s, 'origin_is_start': True})}"
            f"{incomplete_suffix(s)}>")
