"""The critical path of a message-passing run, with Scalasca's semantics,
or of a GPU or task trace, with Holistic Trace Analysis' (through launches,
streams and synchronisations) or through the flows between states; and
the stragglers: who arrives last at the collectives (or iterations), how
often and by how much. docs/analyses.md gives the definitions."""

from __future__ import annotations

import pandas as pd

from . import _analyses, _bridge, _work
from ._analyses import Analysis
from ._errors import InvalidArgumentError
from ._reading import Progress


class CriticalPath(Analysis):
    """The critical path of a run: the chain of computation and
    communication, without waiting, that leads to its end. :attr:`semantics`
    says how it was found, by what the trace carries:

    - ``"scalasca"``, a message-passing run (MPI calls): Scalasca's
      backward replay, from the last resource to enter MPI_Finalize, back
      along it until a call that waited, then on at the resource that
      caused the wait; down to MPI_Init's end;
    - ``"hta"``, calls that launch GPU operations (Kineto's flows, the
      correlation ids of Nsight Systems and rocprof): Holistic Trace
      Analysis' longest path through the CPU call stacks, the launches,
      each stream's order and the synchronisations;
    - ``"dependencies"``, states joined by flows: the longest path through
      them.

    ``to_pandas()`` has its segments in time order: ``resource``,
    ``start``, ``end``, ``duration`` (s; exactly ``start_ns``,
    ``end_ns``), ``via`` (how the path arrived: "start", "late sender",
    "late receiver", "collective") and ``from`` (the resource it came
    from). A GPU or task path has, instead of ``via``, ``kind`` (the edge:
    "compute", "kernel", "launch", "kernel-kernel", "sync wait",
    "dependency") and ``name`` (the event its time is attributed to, as
    HTA attributes it; empty for launches, waits and dependencies), and
    ``from`` only where the edge joins two resources; an HTA path also
    ``bound_by``, HTA's classification ("cpu_bound", "gpu_compute_bound",
    "gpu_communication_bound", "gpu_kernel_launch_overhead",
    "gpu_kernel_kernel_overhead", empty for waits and dependencies).

    :meth:`by_state` and :meth:`by_resource` say what the path's
    time went to, :meth:`pieces` the path cut by activity,
    :meth:`wait_states` every wait state found on the way,
    :meth:`delay_costs` their root causes (Scalasca's delay costs).

    ``plot()`` draws the path over the resources, coloured by what they
    did, dashed lines where it moves from one to another;
    ``plot(type="states")`` its time by state, beside each state's mean
    time per resource; ``plot(type="delays")`` the largest delay costs.

    The result of a large run keeps its MPI calls and what each resource
    did in a temporary file (beyond 64 MiB of them; the wait states and
    the delay costs read it back), removed from the directory at once but
    held open until :meth:`close`, or until the result is garbage
    collected. ``with ms.critical_path(path) as cp:`` closes it at the end
    of the block. A closed result keeps :attr:`info`, :attr:`length` and
    :attr:`semantics`; its tables and figures raise
    :class:`macroscope.InvalidArgumentError`.
    """

    _main = "segments"
    _closed = False

    def close(self) -> None:
        """Release the result's temporary file (nothing when it had
        none). Its tables and figures are refused afterwards; closing again
        does nothing."""
        if not self._closed:
            self._closed = True
            self.__dict__.pop("_table", None)
            _bridge.call(self._h.Close)

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closed

    def __enter__(self) -> CriticalPath:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _check_open(self) -> None:
        if self._closed:
            raise InvalidArgumentError("this critical path is closed (close() was called, or its with block "
                                       "ended): compute it again to read its tables or draw it")

    def to_arrow(self):
        self._check_open()
        return super().to_arrow()

    def to_pandas(self) -> pd.DataFrame:
        self._check_open()
        return super().to_pandas()

    def arrow_table(self, name: str):
        self._check_open()
        if name == "delay_costs":
            self._delay_costs()
        return super().arrow_table(name)

    def _delay_costs(self):
        """Compute the delay costs (kept once complete) in Go as a work of
        its own, so that Ctrl-C stops them."""
        _work.run(_bridge.call(self._h.StartDelayCosts), "", progress=False)

    def __arrow_c_stream__(self, requested_schema=None):
        self._check_open()
        return super().__arrow_c_stream__(requested_schema)

    def by_state(self) -> pd.DataFrame:
        """What the path's time went to: state (the MPI call, else the
        innermost state, else "(no state)"), on_path (s), share, total (s,
        on all resources over the path's extent) and imbalance (Scalasca's
        critical-path imbalance: on_path minus the mean per resource, when
        positive)."""
        return self.table("by_state")

    def by_resource(self) -> pd.DataFrame:
        """Each resource's time on the path: resource, on_path (s), share,
        segments."""
        return self.table("by_resource")

    def pieces(self) -> pd.DataFrame:
        """The path cut where its resources' activity changes: resource,
        start, end, duration (s), state."""
        return self.table("pieces")

    def wait_states(self) -> pd.DataFrame:
        """The wait states (late sender, late receiver, waiting in a
        collective): resource, call, enter, wait (s), kind, cause (the
        resource waited for), cause_time (s)."""
        return self.table("wait_states")

    def delay_costs(self) -> pd.DataFrame:
        """The delay costs of the wait states (Scalasca's root-cause
        analysis, Böhme et al. 2010): where the time was spent that made
        others wait. For each resource, state (the MPI call, else the
        innermost state) and kind of wait state caused ("late sender",
        "late receiver", "collective"): short_term (s, the waiting it
        caused directly), long_term (s, through the wait states it caused
        in turn) and total, the largest first. Computed on the first call.

        >>> cp = ms.critical_path("testdata/critpath/cp_delay.trace")
        >>> d = cp.delay_costs()
        >>> row = d.iloc[0]
        >>> str(row.resource), str(row.state), str(row.kind), float(row.short_term)
        ('rank-0', 'computing', 'late sender', 2.0)
        """
        return self.table("delay_costs")

    @property
    def length(self) -> float:
        """The path's duration in seconds (its segments added up)."""
        return self._info["length"]

    @property
    def semantics(self) -> str:
        """How the path was found: "scalasca" (a message-passing run),
        "hta" (launches and GPU operations, Holistic Trace Analysis') or
        "dependencies" (flows between states)."""
        return self._info["semantics"]

    def plot(self, path=None, width=None, height=None, format=None, title=None, *, type: str = "path",
             top: int | None = None):
        """Draw the path (``type="path"``), its time by state
        (``type="states"``, the ``top`` states) or the ``top`` delay costs
        by resource and state (``type="delays"``)."""
        self._check_open()
        if type == "delays":
            self._delay_costs()
        return super().plot(path, width, height, format, title, type=type, top=top)

    def __len__(self) -> int:
        return self._info["segments"]

    def _describe(self) -> str:
        i = self._info
        return f"{i['segments']} segments over {i['resources']} resources, {i['length']:g} s " \
               f"({i['start']:g}-{i['end']:g} s), {i['wait_states']} wait states ({i['semantics']})" \
               f"{', closed' if self._closed else ''}"


class Stragglers(Analysis):
    """The resources that arrive last at synchronising operations: the
    collectives of a message-passing run, or the iterations of any trace
    (the k-th state of a name on each resource; a resource arrives when it
    finishes it). A trace without collectives (a GPU or machine-learning
    profile) takes by default the NCCL kernels of its GPUs, or else
    PyTorch's ProfilerStep iterations of the CPU threads (not Kineto's
    copies on the GPU streams), when two resources have them;
    :attr:`iteration` says which.

    ``to_pandas()`` has a row per resource, the most often last first:
    ``resource``, ``times_last``, ``instances`` (it took part in),
    ``share``, ``lateness`` (s, added up: its arrival minus the next
    latest, each time it was last), ``lateness_mean`` and ``wait_caused``
    (s: the others' waiting for it). :meth:`instances` has each instance's
    last arrival, :meth:`arrivals` every arrival.

    ``plot()`` draws the waiting each resource caused as bars (its times
    last beside its name); ``plot(type="heatmap")`` each member's delay
    after the first arrival, instance by instance.
    """

    _main = "resources"

    def instances(self) -> pd.DataFrame:
        """Each instance: instance, name, group (communicator), members,
        last, time (its arrival, s), lateness, wait_caused (s), time_ns
        (the arrival; time and time_ns on the trace's own clock, as every
        table keeps its instants)."""
        return self.table("instances")

    def arrivals(self) -> pd.DataFrame:
        """Every member's arrival at every instance: instance, resource,
        arrival (s), delay (after the instance's first arrival; s), last,
        arrival_ns (arrival and arrival_ns on the trace's own clock)."""
        return self.table("arrivals")

    @property
    def mode(self) -> str:
        """"collectives" or "iterations"."""
        return self._info["mode"]

    @property
    def iteration(self) -> str | None:
        """The pattern of the iterations' state names ("nccl*Kernel*",
        "ProfilerStep*", or the one given; the steps' own names, such as
        JAX's "train", for steps of another producer), None for
        collectives."""
        return self._info.get("iteration") or None

    def plot(self, path=None, width=None, height=None, format=None, title=None, *, type: str = "bars",
             top: int | None = None, log: bool | None = None):
        """Draw the waiting each resource caused (``type="bars"``, the
        ``top`` resources) or the arrivals' delays (``type="heatmap"``;
        ``log=True`` for a logarithmic colour scale)."""
        return super().plot(path, width, height, format, title, type=type, top=top, log=log)

    def __len__(self) -> int:
        return self._info["resources"]

    def _describe(self) -> str:
        i = self._info
        of = f" ({i['iteration']})" if i.get("iteration") else ""
        return f"{i['instances']} {i['mode']}{of} over {i['resources']} resources"


def trace_critical_path(trace, whole_run: bool = False) -> CriticalPath:
    """The critical path of a trace in memory: see
    :meth:`macroscope.Trace.critical_path`."""
    return _analyses.analyze(trace, "critical_path", CriticalPath, whole_run=_flag(whole_run, "whole_run"))


def _flag(v, name):
    if not isinstance(v, bool):
        raise InvalidArgumentError(f"{name}: must be True or False, got {v!r}", param=name)
    return v


def critical_path(path, format: str | None = None, *, whole_run: bool = False, progress: Progress = None,
                  **options) -> CriticalPath:
    """The critical path of the trace file at ``path`` (read into memory:
    the path's attribution needs the states of the resources it crosses).
    ``whole_run`` is that of :meth:`macroscope.Trace.critical_path`;
    ``format`` and ``options`` those of :func:`macroscope.read`.

    >>> cp = ms.critical_path("testdata/critpath/cp_chain.trace")
    >>> cp.to_pandas()[["resource", "start", "end", "via"]]
      resource     start       end          via
    0   rank-0  0.000000  1.000000        start
    1   rank-1  1.000000  3.000004  late sender
    2   rank-2  3.000004  3.300008  late sender
    """
    return _analyses.analyze_file(path, "critical_path", CriticalPath, format, progress,
                                  dict(whole_run=_flag(whole_run, "whole_run")), options, "critical_path")


def _iteration(iteration):
    if iteration is not None and not isinstance(iteration, str):
        raise InvalidArgumentError(f"iteration: must be a pattern of state names, got {iteration!r}",
                                   param="iteration")
    return iteration


def trace_stragglers(trace, iteration: str | None = None) -> Stragglers:
    """The stragglers of a trace in memory: see :meth:`macroscope.Trace.stragglers`."""
    return _analyses.analyze(trace, "stragglers", Stragglers, iteration=_iteration(iteration))


def stragglers(path, format: str | None = None, *, iteration: str | None = None, progress: Progress = None,
               **options) -> Stragglers:
    """The stragglers of the trace file at ``path``, computed while reading
    it (memory: the collective calls, or the iterations' extents).
    ``iteration`` is that of :meth:`macroscope.Trace.stragglers`; ``format``
    and ``options`` those of :func:`macroscope.read`."""
    return _analyses.analyze_file(path, "stragglers", Stragglers, format, progress,
                                  dict(iteration=_iteration(iteration)), options, "stragglers")
