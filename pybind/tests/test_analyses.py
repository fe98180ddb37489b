"""The performance analyses end to end: trace -> Go -> Arrow -> pandas ->
figure, checked against pipit's outputs, BSC's model factors, the SMPI
runs with a known critical path, and pandas computations from the traces'
own tables."""

import csv
import glob
import math
import os

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import macroscope as ms
from macroscope import _analyses
from macroscope._critpath import CriticalPath
from conftest import REPO, shared

PIPIT = REPO / "core" / "views" / "profile" / "testdata" / "pipit"
MATRIX = REPO / "core" / "views" / "commmatrix" / "testdata" / "pipit"
EPOCH = REPO / "testdata" / "epoch"
CRITPATH = REPO / "testdata" / "critpath"


@pytest.fixture(scope="module")
def ping_pong():
    return ms.read(shared("pipit", "tests", "data", "ping-pong-otf2", "traces.otf2"))


@pytest.fixture(scope="module")
def stencil_path():
    return shared("tracer-stencil4d", "stencil4d-otf", "traces-32", "traces.otf2")


# -- flat profile and load imbalance ---------------------------------------


def test_flat_profile_equals_pipit(ping_pong):
    prof = ping_pong.flat_profile()
    df = prof.to_pandas().set_index("name")
    want = pd.read_csv(PIPIT / "ping-pong-otf2" / "flat_profile.csv").dropna().set_index("Name")
    counts = pd.read_csv(PIPIT / "ping-pong-otf2" / "enter_count.csv").set_index("Name")["count"]
    assert sorted(df.index) == sorted(want.index)
    for name, row in want.iterrows():
        # pipit's times are float conversions of ticks: within 2 ns a state.
        tol = 2 * counts[name] / df.loc[name, "processes"]
        assert abs(df.loc[name, "exclusive_mean"] * 1e9 - row["time.exc"]) <= tol, name
        assert abs(df.loc[name, "inclusive_mean"] * 1e9 - row["time.inc"]) <= tol, name
        assert df.loc[name, "count"] == counts[name]
    assert list(df.columns) == ["type", "count", "processes", "inclusive", "exclusive", "inclusive_ns", "exclusive_ns",
                                "inclusive_mean", "exclusive_mean", "share"]
    assert df["share"].sum() == pytest.approx(1)
    assert (df["exclusive_ns"] == np.round(df["exclusive"] * 1e9)).all()
    assert isinstance(prof.plot(), ms.Figure)


def test_flat_profile_from_pandas_states(ping_pong):
    """The inclusive sums are the states' durations added up by name."""
    states = ping_pong.states
    want = (states.end_ns - states.start_ns).groupby(states.value.astype(str)).sum()
    got = ping_pong.flat_profile().to_pandas().set_index("name")["inclusive_ns"]
    assert got.sort_index().to_dict() == want.sort_index().to_dict()


def test_streamed_equals_in_memory(stencil_path):
    t = ms.read(stencil_path)
    for kind in ("flat_profile", "load_imbalance", "comm_matrix", "stragglers"):
        a = getattr(t, kind)().to_pandas()
        b = getattr(ms, kind)(stencil_path).to_pandas()
        pd.testing.assert_frame_equal(a, b, check_categorical=False)


def test_per_process(ping_pong):
    pp = ping_pong.flat_profile().per_process()
    want = pd.read_csv(PIPIT / "ping-pong-otf2" / "flat_profile_per_process.csv").dropna()
    assert len(pp) == len(want) == 14
    sends = pp[pp["name"] == "MPI_Send"].set_index(pp[pp["name"] == "MPI_Send"]["process"].astype(str).str[-1])
    for _, row in want[want["Name"] == "MPI_Send"].iterrows():
        assert abs(sends.loc[str(row["Process"]), "exclusive_ns"] - row["time.exc"]) <= 2 * 8


def test_load_imbalance(ping_pong):
    li = ping_pong.load_imbalance(top=2)
    df = li.to_pandas().set_index("name")
    want = pd.read_csv(PIPIT / "ping-pong-otf2" / "load_imbalance_exc.csv").set_index("Name")
    for name, row in want.iterrows():
        assert abs(df.loc[name, "mean"] * 1e9 - row["time.exc.mean"]) < 32
        assert df.loc[name, "imbalance"] == pytest.approx(row["time.exc.imbalance"], rel=1e-3)
    assert (df["imbalance"] == df["max"] / df["mean"]).all()
    assert (df["saving"] == df["max"] - df["mean"]).all()
    assert all(len(top) == 2 for top in df["top"])
    assert df.loc["MPI_Init", "top"][0].endswith("MPI Rank 1")
    li.plot()
    inc = ping_pong.load_imbalance(metric="inclusive")
    assert inc.info["metric"] == "inclusive"


def test_profile_bad_options(ping_pong):
    with pytest.raises(ms.InvalidArgumentError, match="by"):
        ping_pong.flat_profile(by="rack")
    with pytest.raises(ms.InvalidArgumentError, match="metric"):
        ping_pong.load_imbalance(metric="median")
    with pytest.raises(ms.InvalidArgumentError, match="state_types"):
        ping_pong.flat_profile(state_types=["Nothing"])


# -- communication matrix ---------------------------------------------------


def test_comm_matrix_equals_pipit(stencil_path):
    cm = ms.comm_matrix(stencil_path)
    for value, name in (("count", "comm_matrix_count.csv"), ("bytes", "comm_matrix_size.csv")):
        m = cm.matrix(value)
        want = np.loadtxt(MATRIX / "stencil4d-32" / name, delimiter=",")
        # pipit numbers the ranks as the location groups: MPI Rank 0...31.
        ranks = [int(p.split("MPI Rank ")[1]) for p in m.index]
        got = np.zeros_like(want)
        got[np.ix_(ranks, ranks)] = m.to_numpy()
        assert (got == want).all(), value
    df = cm.to_pandas()
    assert df["count"].sum() == 512 and df["bytes"].sum() == 67108864
    assert cm.link_types == ["MPI message"]
    assert cm.plot().size[0] > 0


def test_comm_matrix_levels(jacobi):
    by_host = jacobi.comm_matrix(level="HOST")
    by_zone = jacobi.comm_matrix(level="ZONE")
    assert by_host.to_pandas()["count"].sum() == by_zone.to_pandas()["count"].sum() == 3920
    zones = by_zone.matrix("count")
    assert list(zones.index) == ["alpha", "beta"]
    with pytest.raises(ms.InvalidArgumentError, match="level"):
        jacobi.comm_matrix(level="RACK")


# -- POP ----------------------------------------------------------------------


def bsc_factors():
    rows = {}
    with open(EPOCH / "modelfactors.csv") as f:
        for line in csv.reader(f, delimiter=";"):
            if len(line) > 1:
                rows[line[0].lstrip("#")] = [float(x) for x in line[1:]]
    return rows


def test_pop_series_equals_bsc():
    runs = sorted(glob.glob(str(EPOCH / "epoch_*proc.prv.*")))
    p = ms.pop(runs)
    n = len(p.runs)
    assert p.runs == ["1", "2", "4", "8", "16"][:n] and p.scaling == "strong"
    eff = p.efficiencies()
    bsc = bsc_factors()
    for metric, key in (("Parallel efficiency", "Parallel efficiency"), ("Load balance", "Load balance"),
                        ("Communication efficiency", "Communication efficiency"),
                        ("Computation scalability", "Computation scalability"), ("Global efficiency", "Global efficiency"),
                        ("IPC scalability", "IPC scalability"), ("Average IPC", "Average IPC")):
        scale = 1 if metric == "Average IPC" else 100
        assert list(eff.loc[metric] * scale) == pytest.approx(bsc[key][:n], abs=2e-6), metric
    assert list(eff.loc["Serialisation efficiency"][:4] * 100) == pytest.approx(bsc["Serialization efficiency"][:min(n, 4)],
                                                                                  abs=2e-6)
    raw = p.raw()
    assert list(raw["instructions"]) == bsc["Useful instructions (total)"][:n]
    assert list(raw["useful_rule"].unique()) == ["Extrae's Running state"]
    res = p.resources()
    assert len(res) == sum(int(r) for r in p.runs)
    assert isinstance(p.plot(form="additive"), ms.Figure)


def test_pop_additive_identities():
    p = ms.pop(str(EPOCH / "epoch_2proc.prv.zst"))
    add = p.efficiencies("additive")["2"]
    assert add["Communication efficiency"] == pytest.approx(add["Serialisation efficiency"] + add["Transfer efficiency"] - 1)
    assert add["Parallel efficiency"] == pytest.approx(add["Load balance"] + add["Communication efficiency"] - 1)


def test_pop_traces_and_labels(jacobi):
    trace = ms.read(CRITPATH / "cp_coll.trace")
    p = ms.pop([trace, jacobi], labels=["coll", "jacobi"])
    assert p.runs == ["coll", "jacobi"]
    eff = p.efficiencies()
    # cp_coll: ranks 0-2 compute 5 s, rank 3 3 s: load balance 0.9.
    assert eff.loc["Load balance", "coll"] == pytest.approx(0.9)
    assert math.isnan(eff.loc["Average IPC", "coll"])  # no counters
    assert trace.pop().efficiencies().loc["Serialisation efficiency"].iloc[0] == pytest.approx(5 / 9)


def test_pop_refused_without_mpi():
    kineto = shared("hta", "tests", "data", "critical_path", "simple_add",
                    "benchmark_result_493459_1694039959_trace.json.gz")
    # Outside POP's scope is a fact of the data, the file named.
    with pytest.raises(ms.EmptyTraceError, match="needs MPI calls") as info:
        ms.pop(kineto)
    assert info.value.file == str(kineto)
    with pytest.raises(ms.InvalidArgumentError, match="eager_limit"):
        ms.pop(str(EPOCH / "epoch_1proc.prv.zst"), eager_limit=-1)
    with pytest.raises(ms.InvalidArgumentError, match="scaling"):
        ms.pop(str(EPOCH / "epoch_1proc.prv.zst"), scaling="linear")


def test_pop_without_messages():
    lulesh = ms.read(shared("hpctoolkit-db", "issue-233-lulesh"))
    p = lulesh.pop()
    assert p.no_ideal and "no point-to-point messages" in p.no_ideal[0]
    assert math.isnan(p.efficiencies().loc["Transfer efficiency"].iloc[0])
    assert 0 < p.efficiencies().loc["Load balance"].iloc[0] <= 1



HYBRID_PCF = """STATES
0    Idle
1    Running
5    Synchronization
13    Group Communication

EVENT_TYPE
9   50000002    MPI Collective Comm
VALUES
10   MPI_Allreduce
0   Outside MPI

EVENT_TYPE
9   50100004    Communicator

EVENT_TYPE
0   60000001    Parallel (OMP)
VALUES
0   Outside
1   DO (open)

EVENT_TYPE
0   60000018    Executed OpenMP parallel function
VALUES
0   End
1   kernel
"""


def write_hybrid_paraver(path):
    """The 2-process x 2-thread run of core/views/pop/hybrid_test.go (us):
    per thread its parallel region, the barrier ending it, its
    MPI_Allreduce (main threads); Extrae's states and events."""
    threads = [((0, 0), (10, 50), (40, 50), (60, 100)), ((0, 1), (10, 50), (30, 50), None),
               ((1, 0), (20, 80), (70, 80), (90, 100)), ((1, 1), (20, 80), (60, 80), None)]
    recs = []
    for cpu, ((p, t), par, bar, mpi) in enumerate(threads, 1):
        obj = f"{cpu}:1:{p + 1}:{t + 1}"

        def state(at):
            if mpi and mpi[0] <= at < mpi[1]:
                return 13
            if bar[0] <= at < bar[1]:
                return 5
            return 1 if t == 0 or par[0] <= at < par[1] else 0
        begin = 0
        for at in range(1, 101):
            if at == 100 or state(at) != state(begin):
                recs.append((begin, 0, f"1:{obj}:{begin * 1000}:{at * 1000}:{state(begin)}"))
                begin = at
        omp = 60000001 if t == 0 else 60000018
        recs += [(par[0], 1, f"2:{obj}:{par[0] * 1000}:{omp}:1"), (par[1], 1, f"2:{obj}:{par[1] * 1000}:{omp}:0")]
        if mpi:
            recs += [(mpi[0], 1, f"2:{obj}:{mpi[0] * 1000}:50000002:10:50100004:1"),
                     (mpi[1], 1, f"2:{obj}:{mpi[1] * 1000}:50000002:0")]
    recs.sort(key=lambda r: (r[0], r[1]))
    text = "#Paraver (01/01/2026 at 00:00):100000_ns:1(4):1:2(2:1,2:1),1\nc:1:1:2:1:2\n"
    path.write_text(text + "".join(r[2] + "\n" for r in recs))
    path.with_suffix(".pcf").write_text(HYBRID_PCF)
    return path


def test_pop_hybrid_closed_form(tmp_path):
    p = ms.read(write_hybrid_paraver(tmp_path / "hybrid.prv")).pop()
    assert p.hybrid and p.models == ["MPI+OpenMP"] and p.runs == ["2x2"]
    mul, add = p.efficiencies("multiplicative")["2x2"], p.efficiencies("additive")["2x2"]
    # By hand (core/views/pop/hybrid_test.go): BSC's tree, pypop's.
    assert mul["MPI parallel efficiency"] == pytest.approx(0.75, abs=1e-12)
    assert mul["MPI load balance"] == pytest.approx(75 / 90, abs=1e-12)
    assert mul["MPI serialisation efficiency"] == pytest.approx(1, abs=1e-12)
    assert mul["OpenMP parallel efficiency"] == pytest.approx(0.475 / 0.75, abs=1e-12)
    assert mul["OpenMP region efficiency (pypop)"] == pytest.approx(0.8, abs=1e-12)
    assert add["Process level efficiency"] == pytest.approx(0.75, abs=1e-12)
    assert add["Thread level efficiency"] == pytest.approx(0.725, abs=1e-12)
    assert add["Serial region efficiency"] == pytest.approx(0.875, abs=1e-12)
    procs = p.processes()
    assert list(procs["outside_mpi"] * 1e6) == pytest.approx([60, 90])
    assert list(procs["openmp"] * 1e6) == pytest.approx([40, 60])
    assert list(procs["serial_useful"] * 1e6) == pytest.approx([20, 30])
    assert list(p.resources()["useful_openmp"] * 1e6) == pytest.approx([30, 20, 50, 40])
    assert p.raw()["model"].tolist() == ["MPI+OpenMP"] and p.raw()["threads_per_process"].tolist() == [2]
    assert p.plot().size[1] > p.plot(form="additive").size[1] > 0  # BSC's rows and pypop's split


def test_pop_hybrid_lulesh_identities():
    p = ms.read(shared("hpctoolkit-db", "issue-233-lulesh")).pop()
    assert p.hybrid and p.models == ["MPI+OpenMP"]
    mul, add = p.efficiencies("multiplicative").iloc[:, 0], p.efficiencies("additive").iloc[:, 0]
    pe = mul["Parallel efficiency"]
    assert mul["MPI parallel efficiency"] * mul["OpenMP parallel efficiency"] == pytest.approx(pe, rel=1e-12)
    assert mul["MPI load balance"] * mul["MPI communication efficiency"] == pytest.approx(
        mul["MPI parallel efficiency"], rel=1e-12)
    assert mul["OpenMP region efficiency (pypop)"] * mul["Serial region efficiency (pypop)"] == pytest.approx(
        mul["Thread level efficiency (pypop)"], rel=1e-12)
    assert add["Process level efficiency"] + add["Thread level efficiency"] - 1 == pytest.approx(pe, rel=1e-12)
    assert add["OpenMP region efficiency"] + add["Serial region efficiency"] - 1 == pytest.approx(
        add["Thread level efficiency"], rel=1e-12)
    for v in list(mul.dropna()) + list(add.dropna()):
        assert 0 < v <= 1 or v != v
    procs = p.processes()
    assert len(procs) == 27 and set(procs["threads"]) == {3}
    res = p.resources().set_index("resource")
    runtime = float(p.raw()["runtime"].iloc[0])
    assert list(procs["outside_mpi"]) == pytest.approx([runtime - res.loc[m, "mpi"] for m in procs["main_thread"]])


def test_pop_mpi_only_has_no_hybrid_rows(jacobi):
    p = jacobi.pop()
    assert not p.hybrid and p.models == ["MPI"]
    assert not [k for k in p.to_pandas()["key"] if k.startswith(("mpi_", "openmp_", "thread_", "process_"))]
    assert not p.without_mpi


def test_pop_serial_series_has_no_mpi_rows(tmp_path):
    """Two serial runs (one thread of one process, Extrae's Running state,
    no MPI call or OpenMP construct): their table is global and parallel
    efficiency, computation scalability and its factors, speed-up, IPC
    and frequency, each its closed form; no load balance, communication
    or MPI row, in either form."""
    runs = []
    for name, running in (("small", (0, 80)), ("large", (0, 60))):
        path = tmp_path / f"{name}.prv"
        path.write_text("#Paraver (01/01/2026 at 00:00):100000_ns:1(1):1:1(1:1),0\n"
                        f"1:1:1:1:1:{running[0] * 1000}:{running[1] * 1000}:1\n"
                        f"1:1:1:1:1:{running[1] * 1000}:100000:0\n")
        path.with_suffix(".pcf").write_text("STATES\n0    Idle\n1    Running\n")
        runs.append(str(path))
    p = ms.pop(runs)
    assert p.serial and not p.without_mpi and not p.hybrid and p.models == ["serial", "serial"]
    assert p.runs == ["1", "1 (2)"]  # runs of as many processes told apart, one column each
    for form in ("multiplicative", "additive"):
        eff = p.efficiencies(form)
        assert list(eff.index) == ["Global efficiency", "Parallel efficiency", "Computation scalability",
                                   "Instruction scalability", "IPC scalability", "Frequency scalability",
                                   "Speedup", "Average IPC", "Average frequency (GHz)"], form
    eff = p.efficiencies()
    ref, other = eff.iloc[:, 0], eff.iloc[:, 1]  # a tie on resources: the reference is the first given
    assert ref["Parallel efficiency"] == pytest.approx(0.8, abs=1e-12)
    assert other["Parallel efficiency"] == pytest.approx(0.6, abs=1e-12)
    assert other["Computation scalability"] == pytest.approx(80 / 60, abs=1e-12)
    assert other["Global efficiency"] == pytest.approx(0.6 * 80 / 60, abs=1e-12)


def test_pop_openmp_only_is_pypops_openmp_metrics():
    """An OpenMP run without MPI calls (pypop's ImageMagick omp2) has the
    rows of pypop's OpenMP_Metrics (pypop/metrics/openmp.py), in its
    order, with the values its example notebook prints; no MPI row."""
    p = ms.pop(str(REPO / "testdata" / "imagemagick" / "omp2.prv.zst"))
    assert p.without_mpi and p.models == ["OpenMP"]
    add = p.efficiencies("additive")
    assert list(add.index) == ["Global efficiency", "Parallel efficiency", "OpenMP region efficiency",
                               "Serial region efficiency", "Computation scalability", "Instruction scalability",
                               "IPC scalability", "Frequency scalability", "Speedup", "Average IPC",
                               "Average frequency (GHz)"]
    df = p.to_pandas()
    assert list(df[df["form"] != "multiplicative"]["depth"]) == [0, 1, 2, 2, 1, 2, 2, 2, 0, 0, 0]
    col = add.iloc[:, 0]
    assert col["Parallel efficiency"] == pytest.approx(0.723112, abs=5e-7)
    assert col["OpenMP region efficiency"] == pytest.approx(0.998448, abs=5e-7)
    assert col["Serial region efficiency"] == pytest.approx(0.728963, abs=5e-7)
    mul = p.efficiencies("multiplicative").iloc[:, 0]
    assert mul["Load balance"] * mul["Communication efficiency"] == pytest.approx(mul["Parallel efficiency"], rel=1e-12)
    assert not [k for k in df["key"] if k.startswith(("mpi_", "process_", "serialisation", "transfer"))]
    assert p.plot(form="additive").size[1] > 0

# -- critical path and stragglers ------------------------------------------


def test_critical_path_known_answer():
    cp = ms.critical_path(CRITPATH / "cp_mixed.trace")
    seg = cp.to_pandas()
    assert list(seg["resource"]) == ["rank-0", "rank-1", "rank-3", "rank-2"]
    assert list(seg["start_ns"]) == [0, 1000000000, 3000004000, 3400016000]
    assert list(seg["end_ns"]) == [1000000000, 3000004000, 3400016000, 3900020000]
    assert list(seg["via"]) == ["start", "late sender", "collective", "late sender"]
    assert seg["from"].isna().iloc[0] and list(seg["from"][1:]) == ["rank-0", "rank-1", "rank-3"]
    assert cp.length == pytest.approx(3.90002)
    by_state = cp.by_state().set_index("state")
    assert by_state.loc["computing", "on_path"] == pytest.approx(3.9)
    assert by_state["share"].sum() == pytest.approx(1)
    pieces = cp.pieces()
    assert pieces["duration"].sum() == pytest.approx(cp.length)
    waits = cp.wait_states()
    assert set(waits["kind"]) == {"late sender", "collective"}
    assert cp.by_resource()["on_path"].sum() == pytest.approx(cp.length)
    cp.plot()
    cp.plot(type="states")
    with pytest.raises(ms.InvalidArgumentError, match="type"):
        cp.plot(type="gantt")


def test_delay_costs_known_answer():
    # cp_delay: rank 0 computes 2 s more than rank 1 before sending to it;
    # rank 1 then reaches MPI_Barrier last (testdata/gen/critpath/cp_delay.c).
    d = ms.critical_path(CRITPATH / "cp_delay.trace").delay_costs()
    rows = [(str(r.resource), str(r.state), str(r.kind), round(r.short_term, 9), round(r.long_term, 9))
            for r in d.itertuples()]
    assert rows == [("rank-0", "computing", "late sender", 2.0, 0.0),
                    ("rank-0", "computing", "collective", 0.0, 2.0),
                    ("rank-1", "computing", "collective", 2.0, 0.0),
                    ("rank-1", "PMPI_Recv", "collective", 4e-06, 0.0)]
    assert (d.total == d.short_term + d.long_term).all()
    png = ms.critical_path(CRITPATH / "cp_delay.trace").plot(type="delays").to_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    # The same from the trace in memory.
    pd.testing.assert_frame_equal(ms.read(CRITPATH / "cp_delay.trace").critical_path().delay_costs(), d)


def test_critical_path_in_memory_equals_from_file():
    t = ms.read(CRITPATH / "cp_coll.trace")
    pd.testing.assert_frame_equal(t.critical_path().to_pandas(),
                                  ms.critical_path(CRITPATH / "cp_coll.trace").to_pandas())
    whole = t.critical_path(whole_run=True)
    assert whole.to_pandas()["end_ns"].iloc[-1] == 9000029000


def test_critical_path_gpu():
    # Holistic Trace Analysis 0.5.0's critical_path_analysis of this trace
    # (annotation "", the whole trace): 1159 edges, 41 435 234 µs; the Go
    # tests compare every edge when HTA is installed (bench/.peers-venv).
    kineto = shared("hta", "tests", "data", "critical_path", "simple_add",
                    "benchmark_result_493459_1694039959_trace.json.gz")
    cp = ms.critical_path(kineto)
    assert cp.semantics == "hta"
    assert len(cp) == 1159
    df = cp.to_pandas()
    assert list(df.columns) == ["resource", "start", "end", "duration", "start_ns", "end_ns", "kind", "name", "bound_by",
                                "from"]
    assert int((df.end_ns - df.start_ns).sum()) == 41_435_234_000
    # One clock: what a person reads (the repr, the summary) counts from
    # the trace's start (Kineto's clock is the epoch's); the table keeps
    # the trace's instants, as every table does.
    origin = ms.read(kineto).origin
    assert cp.info["origin"] == pytest.approx(origin)
    assert (df.start - df.start_ns * 1e-9).abs().max() < 1e-6
    assert 0 <= cp.info["start"] < cp.info["end"] < 60 and "e+09" not in repr(cp)
    # HTA's get_critical_path_breakdown() of the same trace, by bound_by (µs).
    bound = ((df.end_ns - df.start_ns) // 1000).groupby(df.bound_by, observed=True).sum().to_dict()
    assert bound == {"": 0, "cpu_bound": 41380750, "gpu_compute_bound": 40992, "gpu_kernel_kernel_overhead": 11897,
                     "gpu_kernel_launch_overhead": 1595}
    assert cp.length == pytest.approx(41.435234, abs=1e-12)
    kinds = df.groupby("kind", observed=True).duration.sum()
    assert set(kinds.index) == {"compute", "kernel", "launch", "kernel-kernel", "sync wait", "dependency"}
    # The launches and waits are attributed to no event, as HTA's.
    assert (df[df.kind.isin(["launch", "sync wait", "dependency"])].name == "").all()
    by_state = cp.by_state().set_index("state")
    assert by_state.on_path.sum() == pytest.approx(cp.length)
    assert by_state.loc["(launch delay)", "on_path"] == pytest.approx(kinds["launch"])
    assert cp.by_resource().on_path.sum() == pytest.approx(cp.length)
    assert cp.plot().to_bytes()[:4] == b"\x89PNG"
    pd.testing.assert_frame_equal(ms.read(kineto).critical_path().to_pandas(), df)


def test_critical_path_without_flows():
    # A Kineto trace whose flows were sampled away: its launches are linked
    # by their correlation ids, as HTA links them.
    sampled = shared("hta", "tests", "data", "trace_filter", "sampled_rank-0.json.gz")
    cp = ms.critical_path(sampled)
    assert cp.semantics == "hta"
    assert cp.length == pytest.approx(0.736806, abs=1e-9)


def test_critical_path_refused():
    # A Kineto trace of the CPU alone: no launches to follow.
    cpu_only = shared("hta", "tests", "data", "cpu_only", "rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz")
    # Outside the analysis's scope: the data's failure, the file named.
    with pytest.raises(ms.EmptyTraceError, match="does not apply .* no MPI calls .* and no links") as info:
        ms.critical_path(cpu_only)
    assert info.value.file == str(cpu_only)


_CYCLE = ('{"traceEvents":['
          '{"ph":"X","name":"X","pid":1,"tid":1,"ts":0,"dur":10},{"ph":"X","name":"Y","pid":1,"tid":1,"ts":10,"dur":10},'
          '{"ph":"X","name":"P","pid":1,"tid":2,"ts":0,"dur":10},{"ph":"X","name":"Q","pid":1,"tid":2,"ts":10,"dur":10},'
          '{"ph":"s","name":"f","cat":"c","id":1,"pid":1,"tid":1,"ts":10},'
          '{"ph":"f","name":"f","cat":"c","id":1,"pid":1,"tid":2,"ts":10,"bp":"e"},'
          '{"ph":"s","name":"g","cat":"c","id":2,"pid":1,"tid":2,"ts":10},'
          '{"ph":"f","name":"g","cat":"c","id":2,"pid":1,"tid":1,"ts":10,"bp":"e"}]}')


def test_critical_path_cycle_is_the_traces(tmp_path):
    # Flows joining two threads both ways at one instant: the graph loops.
    # The data are at fault (TraceFormatError naming the file and the
    # states of the loop), not an argument; streamed or from a read trace.
    path = tmp_path / "cycle.json"
    path.write_text(_CYCLE)
    says = r'has a cycle: links join states both ways at one instant \(one from "Y" on 1/1, .* to "Q" on 1/2'
    with pytest.raises(ms.TraceFormatError, match=says) as info:
        ms.critical_path(path)
    assert info.value.file == str(path)
    with pytest.raises(ms.TraceFormatError, match=says) as info:
        ms.read(path).critical_path()
    assert info.value.file == str(path)


def _spill_files():
    """The temporary files of the critical path this process holds open
    (removed from their directory, reached through their descriptors)."""
    fds = []
    for fd in glob.glob("/proc/self/fd/*"):
        try:
            target = os.readlink(fd)
        except OSError:  # the descriptor glob itself used, now closed
            continue
        if "macroscope-spill-" in target:
            fds.append(target)
    return fds


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd to see open files")
def test_critical_path_close_releases_its_file(stencil_path):
    # 4 KiB of records in memory: the stencil run's calls and activities
    # go to the temporary file, as those of a run of millions of calls do.
    before = _spill_files()
    cp = _analyses.analyze_file(stencil_path, "critical_path", CriticalPath, None, False,
                                dict(whole_run=False, spill_memory=4096), {}, "critical_path")
    assert len(_spill_files()) == len(before) + 1
    # Read back from the file, the same tables as without it.
    whole = ms.critical_path(stencil_path)
    pd.testing.assert_frame_equal(cp.wait_states(), whole.wait_states())
    pd.testing.assert_frame_equal(cp.delay_costs(), whole.delay_costs())
    segments, length, description = cp.to_pandas(), cp.length, repr(cp)
    assert not cp.closed
    cp.close()
    assert cp.closed and _spill_files() == before
    cp.close()  # again: nothing
    # The description stays; tables and figures are refused, saying why.
    assert cp.length == length and cp.semantics == "scalasca"
    assert repr(cp) == description[:-1] + ", closed>"
    for ask in (cp.to_pandas, cp.to_arrow, cp.wait_states, cp.delay_costs, cp.by_state, cp.plot,
                lambda: cp.table("pieces"), lambda: pa.table(cp)):
        with pytest.raises(ms.InvalidArgumentError, match="critical path is closed .* compute it again"):
            ask()
    # With a block, closed at its end, also when the block raises.
    with _analyses.analyze_file(stencil_path, "critical_path", CriticalPath, None, False,
                                dict(whole_run=False, spill_memory=4096), {}, "critical_path") as cp:
        assert len(_spill_files()) == len(before) + 1
        pd.testing.assert_frame_equal(cp.to_pandas(), segments)
    assert cp.closed and _spill_files() == before
    with pytest.raises(ZeroDivisionError):
        with ms.read(stencil_path).critical_path() as cp:
            1 / 0
    assert cp.closed
    with pytest.raises(ms.InvalidArgumentError, match="closed"):
        cp.pieces()


def test_stragglers():
    s = ms.stragglers(CRITPATH / "cp_coll.trace")
    assert s.mode == "collectives"
    df = s.to_pandas().set_index("resource")
    assert list(df["times_last"]) == [1, 1, 1, 0]
    assert list(df["wait_caused"][:3]) == pytest.approx([6, 6, 6])
    inst = s.instances()
    assert list(inst["last"]) == ["rank-0", "rank-1", "rank-2"]
    assert list(inst["lateness"]) == pytest.approx([2.0, 1.999996, 1.999996])
    arr = s.arrivals()
    assert len(arr) == 12 and arr["last"].sum() == 3
    assert (arr.groupby("instance")["delay"].min() == 0).all()
    s.plot()
    s.plot(type="heatmap")
    it = ms.read(CRITPATH / "cp_coll.trace").stragglers(iteration="comput*")
    assert it.mode == "iterations"
    assert (it.instances()["lateness"] > 1.99999).sum() == 3


def test_stragglers_nccl_kernels_by_default():
    # A 2-GPU training step exported by Nsight Systems: no MPI, so the
    # default takes the NCCL kernels of each GPU's stream. The oracle: the
    # k-th NCCL kernel of each device from the export's kernel table.
    import sqlite3

    path = shared("nsys", "mfu_2gpu_before.sqlite")
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        rows = db.execute(
            "SELECT k.deviceId, k.start, k.end FROM CUPTI_ACTIVITY_KIND_KERNEL k "
            "JOIN StringIds s ON s.id = k.shortName WHERE s.value LIKE 'nccl%Kernel%' "
            "ORDER BY k.deviceId, k.start").fetchall()
    ends = {}
    for dev, _, end in rows:
        ends.setdefault(dev, []).append(end)
    assert sorted(ends) == [0, 1] and len(ends[0]) == len(ends[1]) == 33
    s = ms.stragglers(path)
    assert (s.mode, s.iteration) == ("iterations", "nccl*Kernel*")
    assert "(nccl*Kernel*)" in repr(s)
    inst = s.instances()
    assert len(inst) == 33
    for k, row in inst.iterrows():
        e0, e1 = ends[0][k], ends[1][k]
        assert row["lateness"] == pytest.approx(abs(e1 - e0) * 1e-9, abs=1e-12)
        if e1 != e0:
            assert f"/GPU {int(e1 > e0)}/" in row["last"]
        # The instant on the export's clock, in s and ns.
        assert row["time_ns"] == max(e0, e1) and row["time"] == pytest.approx(max(e0, e1) * 1e-9, abs=1e-9)
    # The same from a trace in memory, and on the command line's first line.
    trace = ms.read(path)
    again = trace.stragglers()
    assert list(again.instances()["last"]) == list(inst["last"])
    arrivals = s.arrivals()
    assert (arrivals["arrival"] - arrivals["arrival_ns"] * 1e-9).abs().max() < 1e-9


def test_ranks_read_as_one_job(tmp_path):
    # Two ranks' Kineto files of one job: a list of them, or their
    # directory, is one trace with a container per file; its stragglers
    # are the NCCL kernels of each communicator's stream ("stream 84",
    # "stream 203" on both GPUs) paired rank with rank. The oracle: the
    # kernels' ends (ts + dur, us) in the JSON files themselves.
    import gzip
    import json
    import shutil

    ends = {}
    for rank in (0, 1):
        src = shared("hta", "tests", "data", "trace_filter", f"sampled_rank-{rank}.json.gz")
        shutil.copy(src, tmp_path / src.name)
        with gzip.open(src) as f:
            events = json.load(f)["traceEvents"]
        for e in sorted((e for e in events if e.get("ph") == "X" and e["name"].startswith("ncclKernel")),
                        key=lambda e: e["ts"]):
            ends.setdefault(e["tid"], {}).setdefault(rank, []).append(e["ts"] + e["dur"])
    (tmp_path / "README.txt").write_text("not a trace: left out")
    files = sorted(str(p) for p in tmp_path.glob("*.json.gz"))
    by_dir, by_list = ms.read(tmp_path), ms.read(files)
    for t in (by_dir, by_list):
        runs = t.containers[t.containers["type"] == "Run"]
        assert list(runs["name"]) == ["sampled_rank-0.json.gz", "sampled_rank-1.json.gz"]
    assert len(by_dir.states) == len(by_list.states) == len(ms.read(files[0]).states) + len(ms.read(files[1]).states)
    want = []
    for tid, ranks in ends.items():
        for e0, e1 in zip(ranks[0], ranks[1]):
            want.append((max(e0, e1), f"/stream {tid}", abs(e1 - e0) * 1e-6, int(e1 > e0)))
    want.sort()
    for s in (by_dir.stragglers(), ms.stragglers(tmp_path), ms.stragglers(files)):
        assert s.iteration == "nccl*Kernel*"
        inst = s.instances()
        assert len(inst) == len(want) == 10
        for (_, stream, lateness, last_rank), (_, row) in zip(want, inst.iterrows()):
            assert row["last"].startswith(f"sampled_rank-{last_rank}.json.gz/") and row["last"].rstrip().endswith(stream)
            assert row["lateness"] == pytest.approx(lateness, abs=1e-9)
    with pytest.raises(ms.InvalidArgumentError, match="list of paths"):
        ms.read([])
    # The command line reads the directory as one job too.
    import subprocess
    import sys

    out = tmp_path / "out"
    out.mkdir()
    run = subprocess.run([sys.executable, "-m", "macroscope", "stragglers", str(tmp_path)], capture_output=True,
                         text=True, check=True, cwd=out)
    assert (out / "stragglers.parquet").exists()
    assert "10 iterations (nccl*Kernel*) over 4 resources" in run.stdout + run.stderr


def test_ranks_read_as_one_job_format_given(tmp_path):
    # The directory of ranks with its format given: the reader given a
    # format took the directory for a file and failed when reading it.
    import shutil

    for rank in (0, 1):
        src = shared("hta", "tests", "data", "trace_filter", f"sampled_rank-{rank}.json.gz")
        shutil.copy(src, tmp_path / src.name)
    files = sorted(str(p) for p in tmp_path.glob("*.json.gz"))
    t = ms.read(tmp_path, format="chrome")
    assert len(t.states) == len(ms.read(files).states)
    assert ms.stragglers(tmp_path, format="chrome").iteration == "nccl*Kernel*"


def test_tables_write_to_parquet(tmp_path, jacobi):
    for result in (jacobi.flat_profile(), jacobi.load_imbalance(), jacobi.comm_matrix(), jacobi.pop(),
                   jacobi.stragglers()):
        path = tmp_path / f"{result.info['kind'].replace(' ', '_')}.parquet"
        pq.write_table(result.to_arrow(), path)
        back = pq.read_table(path).to_pandas()
        assert len(back) == len(result.to_pandas())
    assert "POP efficiencies" in repr(jacobi.pop()) or "POP" in repr(jacobi.pop())


# -- on a Dask cluster ------------------------------------------------------


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def test_profile_on_a_cluster(client, stencil_path):
    """The location groups profiled by the workers, their sums added up:
    the single process's result, exactly."""
    lulesh = shared("hpctoolkit-db", "issue-233-lulesh")
    for path in (stencil_path, lulesh):
        for fn in (ms.flat_profile, ms.load_imbalance):
            got = fn(path, client=client, partitions=4, progress=False).to_pandas()
            want = fn(path).to_pandas()
            pd.testing.assert_frame_equal(got, want, check_categorical=False)
    with pytest.raises(ms.InvalidArgumentError, match="client"):
        ms.flat_profile(stencil_path, client="not a client")
