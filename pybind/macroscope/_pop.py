"""POP efficiencies (the POP Centre of Excellence's metrics, as BSC's
modelfactors.py and pypop compute them) of one run or of a scaling study.

docs/analyses.md gives the formulas and their sources.
"""

from __future__ import annotations

import math
import os

import pandas as pd

from . import _analyses, _bridge
from ._analyses import Analysis
from ._errors import InvalidArgumentError
from ._reading import Progress


class POP(Analysis):
    """The POP metrics of one run or of a series of runs (a scaling study,
    the reference being the run with the fewest processes).

    ``to_pandas()`` is the table of efficiencies, a row per metric (and
    form, where the multiplicative and additive forms differ: load
    balance, serialisation and transfer efficiency), a column per run
    (labelled by its processes, ``"4x2"`` for 4 processes of 2 threads and
    ``"1x1"`` for a run of one thread in a series with threads, as pypop's
    hybrid layout; or the labels given):

    - ``metric``, ``key``, ``depth`` (0 global efficiency, 1 parallel
      efficiency and computation scalability, 2 their factors, 3
      communication's), ``form`` ("multiplicative", "additive", or "" when
      both agree), ``efficiency`` (a fraction of 1, or a plain number:
      speed-up, IPC, frequency in GHz);
    - one column per run, NaN where a metric is unknown: IPC and its
      scalabilities without hardware counters (PAPI_TOT_INS and
      PAPI_TOT_CYC), serialisation and transfer without messages or
      collectives to replay (:attr:`no_ideal` says why).

    Runs of several threads per process (MPI+OpenMP, MPI+threads:
    :attr:`hybrid`, :attr:`models`) add the hybrid model's rows under
    parallel efficiency: BSC's (modelfactors.py, multiplicative) MPI
    parallel efficiency (MPI load balance, MPI communication efficiency,
    its serialisation and transfer) and OpenMP parallel efficiency
    (OpenMP load balance, OpenMP communication efficiency), from each
    process's time outside MPI calls; pypop's (pypop/metrics/hybrid.py)
    thread level efficiency split into OpenMP region and serial region
    efficiency (multiplicative, marked "(pypop)"), and in the additive
    form its whole tree: process level efficiency (MPI load balance,
    communication, serialisation, transfer) and thread level efficiency.
    pypop's rows need the OpenMP constructs (NaN for "MPI+threads").
    MPI-only runs have none of these rows.

    A series without MPI calls (OpenMP runs, one thread too, or threads:
    :attr:`without_mpi`) has pypop's OpenMP_Metrics
    (pypop/metrics/openmp.py) in its order instead: global efficiency,
    parallel efficiency (OpenMP region efficiency, serial region
    efficiency), computation scalability (instruction, IPC, frequency
    scalability), then speed-up, IPC and frequency; the multiplicative
    form has load balance and communication efficiency (BSC's) and
    pypop's multiplicative thread level under parallel efficiency. No
    row of the MPI model (serialisation, transfer, MPI and process level
    factors): they would be 100 % or repeat another.

    :meth:`raw` has the raw data of each run (BSC's "#" lines: runtime,
    useful times, ideal runtime, counters...), :meth:`resources` every
    resource's share, :meth:`processes` every process's (the hybrid
    model's quantities). ``plot(form="multiplicative")`` draws POP's table
    of efficiencies, coloured from red to green.
    """

    _main = "factors"

    def raw(self) -> pd.DataFrame:
        """The raw data of each run: run, source, processes, resources,
        runtime, useful_avg, useful_max, useful_total, runtime_ideal,
        useful_ideal_max (seconds), instructions, cycles, ipc,
        frequency_ghz, calls, messages, useful_rule, no_ideal, model
        (see :attr:`models`), threads_per_process."""
        return self.table("raw")

    def resources(self) -> pd.DataFrame:
        """Every resource of every run: run, resource, process, useful,
        mpi, outside_mpi, ideal_end (seconds), instructions, cycles,
        useful_openmp (the part of useful inside OpenMP constructs)."""
        return self.table("resources")

    def processes(self) -> pd.DataFrame:
        """Every process of every run, the hybrid model's quantities
        (seconds): run, process, main_thread (the thread longest in MPI
        calls), threads, outside_mpi (the runtime less the main thread's
        time in MPI calls: BSC's), ideal_outside_mpi (what the ideal
        replay keeps of it), openmp (the main thread's time inside OpenMP
        constructs: pypop's OpenMP total runtime), serial_useful (its
        useful computation outside them)."""
        return self.table("processes")

    @property
    def hybrid(self) -> bool:
        """Whether a run has several threads per process: the table
        then has the hybrid model's rows."""
        return bool(self._info.get("hybrid"))

    @property
    def without_mpi(self) -> bool:
        """Whether no run makes MPI calls and a run uses OpenMP or
        several threads: the table is then pypop's OpenMP_Metrics (see
        the class)."""
        return bool(self._info.get("without_mpi"))

    @property
    def serial(self) -> bool:
        """Whether every run is serial (one thread of one process, no MPI
        calls or OpenMP constructs): the table then has global and
        parallel efficiency, computation scalability and its factors,
        speed-up, IPC and frequency, and no MPI rows."""
        return bool(self._info.get("serial"))

    @property
    def models(self) -> list[str]:
        """Each run's model, in the order of :attr:`runs`, named as pypop's
        metric sets: with MPI calls "MPI+OpenMP" (the trace records OpenMP
        constructs, whatever its threads), "MPI+threads" (several threads
        per process, no OpenMP constructs) or "MPI"; without, "OpenMP"
        (one thread too), "threads" or "serial"."""
        return list(self._info.get("models") or ())

    def efficiencies(self, form: str = "multiplicative") -> pd.DataFrame:
        """The table of one form ("multiplicative": BSC's and POP's
        standard, each efficiency the product of its factors; "additive":
        pypop's, each the sum of its factors minus their number less
        one), indexed by metric, a column per run."""
        if form not in ("multiplicative", "additive"):
            raise InvalidArgumentError(f"form: {form!r} is not 'multiplicative' or 'additive'", param="form")
        df = self.to_pandas()
        df = df[(df["form"] == "") | (df["form"] == form)]
        return df.set_index("metric")[self.runs]

    @property
    def runs(self) -> list[str]:
        """The runs' labels, the reference first."""
        return list(self._info["runs"])

    @property
    def scaling(self) -> str:
        """"strong" or "weak", as decided (see :func:`macroscope.pop`)."""
        return self._info["scaling"]

    @property
    def no_ideal(self) -> list[str]:
        """Why serialisation and transfer efficiencies are unknown, for the
        runs where they are (empty when every run has them)."""
        return list(self._info.get("no_ideal") or ())

    def plot(self, path=None, width=None, height=None, format=None, title=None, *, form: str = "multiplicative"):
        """Draw POP's table of efficiencies of one ``form``: a row per
        metric, indented by its depth, a column per run, each efficiency
        in a cell coloured from red (50 % and below) to green (100 %)."""
        return super().plot(path, width, height, format, title, form=form)

    def __len__(self) -> int:
        return len(self._info["runs"])

    def _describe(self) -> str:
        runs = self._info["runs"]
        return f"{len(runs)} run{'s' if len(runs) != 1 else ''} ({', '.join(runs)}), {self._info['scaling']} scaling"


def _pop_options(eager_limit, ideal, scaling=None, label=None) -> dict:
    if eager_limit is not None:
        if isinstance(eager_limit, bool) or not isinstance(eager_limit, (int, float)) or eager_limit < 0 \
                or (isinstance(eager_limit, float) and math.isnan(eager_limit)):
            raise InvalidArgumentError(
                f"eager_limit: must be a number of bytes (0: every send waits for its receiver; math.inf: none), "
                f"got {eager_limit!r}", param="eager_limit")
        eager_limit = float(eager_limit) if not math.isinf(eager_limit) else 1.7976931348623157e308
    if not isinstance(ideal, bool):
        raise InvalidArgumentError(f"ideal: must be True or False, got {ideal!r}", param="ideal")
    return dict(eager_limit=eager_limit, ideal=ideal, scaling=scaling, label=label)


def trace_pop(trace, eager_limit=None, ideal=True) -> POP:
    """The POP metrics of a trace in memory: see :meth:`macroscope.Trace.pop`."""
    return _analyses.analyze(trace, "pop", POP, **_pop_options(eager_limit, ideal))


def pop(runs, format: str | None = None, *, scaling: str = "auto", labels=None, eager_limit=None,
        ideal: bool = True, progress: Progress = None, **options) -> POP:
    """The POP metrics of one run or of a scaling study: ``runs`` is a
    trace file, a :class:`macroscope.Trace`, or a list of them (the runs
    of the study, in any order: the reference is the one with the fewest
    processes). Files are read while computing (memory: the MPI calls and
    messages the ideal replay needs, not the trace).

    For every run: the useful computation of each resource (Extrae's
    Running state in Paraver traces; elsewhere the time outside MPI calls
    and the measurement system's regions, between the resource's first and
    last records), the trace's duration, the useful instructions and
    cycles (hardware counters PAPI_TOT_INS and PAPI_TOT_CYC, when the
    trace has them), and the runtime on an ideal network, from a replay of
    the trace's own MPI calls and messages (zero latency, unlimited
    bandwidth, collectives of no cost, sends over ``eager_limit`` bytes
    waiting for their receiver: Dimemas' configuration in BSC's
    modelfactors.py, with -S 32k; ``ideal=False`` skips it).

    ``scaling`` is "auto" (weak when the useful instructions grow with the
    resources, every thread of every process, as BSC decides by CPUs;
    strong without counters), "strong" or
    "weak". ``labels`` names the runs (default: their processes).
    ``format`` and ``options`` are those of :func:`macroscope.read`.

    >>> p = ms.pop("testdata/jacobi32.trace")
    >>> p
    <macroscope.POP of jacobi32.trace: 1 run (32), strong scaling>
    >>> eff = p.efficiencies()["32"]
    >>> round(float(eff["Parallel efficiency"]), 4), round(float(eff["Load balance"]), 4)
    (0.7201, 0.8589)
    """
    single = isinstance(runs, (str, os.PathLike)) or hasattr(runs, "_h") and hasattr(runs, "micro")
    items = [runs] if single else list(runs)
    if not items:
        raise InvalidArgumentError("runs: no run given", param="runs")
    if labels is not None:
        labels = [str(x) for x in labels]
        if len(labels) != len(items):
            raise InvalidArgumentError(f"labels: {len(labels)} labels for {len(items)} runs", param="labels")
    series = _bridge.call(_bridge.native.NewPOPSeries)
    for i, item in enumerate(items):
        label = labels[i] if labels is not None else ""
        opts = _pop_options(eager_limit, ideal, label=label or None)
        if hasattr(item, "_h") and hasattr(item, "micro"):
            result = _analyses.analyze(item, "pop", POP, **opts)
        else:
            result = _analyses.analyze_file(item, "pop", POP, format, progress, opts, options, "pop")
        _bridge.call(series.Add, result._h, label)
    if scaling not in ("auto", "strong", "weak"):
        raise InvalidArgumentError(f"scaling: {scaling!r} is not 'auto', 'strong' or 'weak'", param="scaling")
    return POP(_bridge.call(series.POP, _bridge.options(scaling=scaling)))
