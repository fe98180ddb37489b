"""ms.compare end to end: trace files read one run at a time, the
differences table in pandas, the test against the noise, the figure, the
series table (here and on Dask), and HTA TraceDiff's operations table equal
to HTA's own output on the corpus's Kineto pairs."""

from __future__ import annotations

import json
import pathlib
import subprocess

import numpy as np
import pandas as pd
import pytest

import macroscope as ms
from macroscope import _bridge, _reading, _work
from conftest import REPO, paje_header, shared

ORACLE = REPO / "core" / "views" / "compare" / "testdata" / "hta_tracediff"
HTA = ("hta", "tests", "data")


def write_bsp(path: pathlib.Path, ranks=48, per_node=12, iterations=80, noise=0.02, slow=None, slowdown=0.1,
              seed=1, missing=()) -> pathlib.Path:
    """A Pajé trace of a bulk-synchronous program: each rank computes (1 +
    noise * z) ms, slow computes slowdown longer, then all wait until the
    slowest is done and a 0.25 ms collective."""
    rng = np.random.default_rng(seed)
    lines = [paje_header("PajeDefineContainerType", "PajeDefineStateType", "PajeCreateContainer", "PajeSetState"),
             "0 N 0 Node\n0 R N Rank\n1 S R State\n"]
    for g in range(ranks // per_node):
        lines.append(f"2 0 n{g} N 0 node-{g}\n")
        for s in range(g * per_node, (g + 1) * per_node):
            if s not in missing:
                lines.append(f"2 0 r{s} R n{g} rank-{s}\n")
    t = 0.0
    for _ in range(iterations):
        work = np.maximum(0.5, 1 + noise * rng.standard_normal(ranks)) * 1e-3
        if slow is not None:
            work[slow] *= 1 + slowdown
        live = [s for s in range(ranks) if s not in missing]
        end = t + work[live].max() + 0.25e-3
        for s in live:
            lines.append(f"3 {t:.9f} S r{s} Compute\n3 {t + work[s]:.9f} S r{s} MPI_Wait\n")
        t = end
    lines.append(f"3 {t:.9f} S r{live[0]} MPI_Wait\n")
    path.write_text("".join(lines))
    return path


@pytest.fixture(scope="module")
def bsp(tmp_path_factory):
    d = tmp_path_factory.mktemp("bsp")
    return {
        "a": write_bsp(d / "a.trace", seed=1),
        "slow": write_bsp(d / "slow.trace", seed=2, slow=29),
        "rep": write_bsp(d / "rep.trace", seed=3),
    }


@pytest.mark.parametrize("threshold", [1e-2, 1e-3])
def test_recommended_p_is_the_sweeps(bsp, threshold):
    # The knee searched for alone (a handful of solves) against the sweep of
    # every significant level it replaces (one solve per level: minutes on
    # 10,000 resources), asked of another comparison of the same runs so
    # that neither reuses what the other kept: the same p, bit for bit.
    knee = ms.compare([bsp["a"], bsp["slow"]], slices=40, progress=False)
    swept = ms.compare([bsp["a"], bsp["slow"]], slices=40, progress=False)
    p = knee.recommended_p(threshold=threshold)
    levels = swept.significant_p(threshold=threshold)
    assert len(levels) > 3
    row = levels[levels.recommended].iloc[0]
    assert p == float((row.p_low + row.p_high) / 2)
    assert knee.differences(threshold=threshold).p == p
    assert swept.recommended_p(threshold=threshold) == p  # from the kept levels


def test_a_large_comparison_explorer_opens_at_the_knee(bsp, monkeypatch):
    """A comparison whose sweep of every level is costly opens its explorer
    at the knee alone (a few solves); the slider gets every level after,
    from a thread, at the same level (nothing computed again); it moves
    over them as for a small comparison."""
    import pyarrow as pa

    from macroscope.widgets import _overview

    monkeypatch.setattr(_overview, "BACKGROUND_SWEEP_COST", 0)  # these runs count as large
    cmp = ms.compare([bsp["a"], bsp["slow"]], slices=40, progress=False)
    w = cmp.explore()
    # The first frame; no sweep until the slider is grabbed.
    first = {"levels": pa.ipc.open_stream(w.levels).read_all().to_pandas(), "level": w.level, "p": w.view["p"],
             "diff": w.differences}
    assert w.view["partial"] and not w._sweep.asked
    w._on_msg(w, {"action": "levels"}, [])  # the page: the slider grabbed
    assert w._sweep.asked
    swept = ms.compare([bsp["a"], bsp["slow"]], slices=40, progress=False).significant_p()
    rec = int(np.flatnonzero(swept.recommended.to_numpy())[0])
    knee = first["levels"]
    assert len(knee) == 1 and bool(knee.recommended[0]) and first["level"] == 0
    for col in ("p_low", "p_high", "aggregates"):
        assert knee[col][0] == swept[col][rec], col
    p = float((swept.p_low[rec] + swept.p_high[rec]) / 2)
    assert first["p"] == p == first["diff"].p
    assert w.wait_levels(timeout=120)
    levels = pa.ipc.open_stream(w.levels).read_all().to_pandas()
    assert levels.equals(swept[["p_low", "p_high", "aggregates", "recommended"]])
    assert len(levels) > 3 and w.level == rec
    assert w.differences is first["diff"]  # the same level: not computed again
    w.set_level(0)
    assert w.differences.p == float((swept.p_low[0] + swept.p_high[0]) / 2)
    assert len(w.aggregates_table()) == len(cmp.differences(p=w.differences.p, rows="aggregates", permutations=-1))


def test_a_large_comparison_explorer_opens_at_the_p_asked_for(bsp, monkeypatch):
    """cmp.explore(p=...) of a large comparison shows the differences at p
    before any sweep (the levels' range of p not yet known); asked, the
    levels come, the slider at the level holding p, as a small comparison
    opens."""
    import pyarrow as pa

    from macroscope.widgets import _overview

    p = 0.3
    small = ms.compare([bsp["a"], bsp["slow"]], slices=40, progress=False).explore(p=p)  # swept first
    monkeypatch.setattr(_overview, "BACKGROUND_SWEEP_COST", 0)
    cmp = ms.compare([bsp["a"], bsp["slow"]], slices=40, progress=False)
    w = cmp.explore(p=p)
    first = pa.ipc.open_stream(w.levels).read_all().to_pandas()
    assert len(first) == 1 and first.p_low[0] == first.p_high[0] == p and w.view["partial"] and not w._sweep.asked
    assert w.differences.p == p == w.view["p"]
    want = cmp.differences(p=p, rows="aggregates", permutations=-1).to_pandas()
    assert first.aggregates[0] == len(want) == len(w.aggregates_table()) == w.view["aggregates"]
    assert w.wait_levels(timeout=120)
    levels = pa.ipc.open_stream(w.levels).read_all().to_pandas()
    assert levels.equals(pa.ipc.open_stream(small.levels).read_all().to_pandas())
    assert w.level == small.level and not w.view["partial"]
    assert w.differences.p == small.differences.p
    assert w.view_table().equals(small.view_table())


def test_closing_a_large_comparison_explorer_stops_its_sweep(bsp, monkeypatch):
    """Closing the explorer stops the sweep of its levels (the Go search
    is canceled, nothing kept): the sweep starts once it is closed."""
    import threading

    from macroscope.widgets import _overview

    monkeypatch.setattr(_overview, "BACKGROUND_SWEEP_COST", 0)
    cmp = ms.compare([bsp["a"], bsp["slow"]], slices=40, progress=False)
    closed, sweep = threading.Event(), cmp.significant_p
    monkeypatch.setattr(cmp, "significant_p", lambda **kw: closed.wait() and sweep(**kw))
    w = cmp.explore()
    w._on_msg(w, {"action": "levels"}, [])  # asked: the sweep waits until the widget is closed
    w.close()
    closed.set()
    assert w.wait_levels(timeout=60)
    assert len(w._levels) == 1  # the levels never came
    assert cmp.model.significant_p(threshold=1e-2).recommended.sum() == 1  # the model swept afresh, unharmed


def test_slowdown_found_at_the_recommended_level(bsp):
    cmp = ms.compare([bsp["a"], bsp["slow"]], slices=40, progress=False)
    assert cmp.names == ["a", "slow"] and cmp.reference == 0
    runs = cmp.runs
    assert list(runs.run) == ["a", "slow"] and (runs.resources == 48).all() and runs.reference.tolist() == [True, False]
    diff = cmp.differences(rank="outlier")
    assert diff.p == pytest.approx(cmp.recommended_p())
    df = diff.to_pandas()
    top = df.iloc[0]
    assert top.node == "node-2/rank-29" and top.reported and top.outlier_p < 1e-4 and top.outlier_score > top.outlier_floor
    assert top["prop:slow:Compute"] > top["prop:a:Compute"]
    assert df.outlier_score.iloc[1] < top.outlier_score / 10
    # Every row's proportions in the long table; deltas against the reference.
    long = diff.proportions()
    assert len(long) == len(df) * 2 * len(cmp.states)
    mine = long[(long["rank"] == 0) & (long.state == "Compute")].set_index("run")
    assert mine.loc["slow", "delta"] == pytest.approx(top["prop:slow:Compute"] - top["prop:a:Compute"])
    assert mine.loc["a", "proportion"] == pytest.approx(top["prop:a:Compute"])
    # The rows of a level partition the model: scores add up to the total.
    assert df.score_share.sum() == pytest.approx(1)


def test_repetitions_show_no_difference(bsp):
    cmp = ms.compare([bsp["a"], bsp["rep"]], slices=40, progress=False)
    diff = cmp.differences()
    assert diff.test["method"] == "blocks" and diff.test["reported"] == 0
    assert not diff.to_pandas().reported.any()
    nodes = cmp.differences(rows="hierarchy")
    assert len(nodes) == 1 + 4 + 48 and not nodes.to_pandas().reported.any()


def test_divergence_is_the_measure(bsp):
    """The table's divergence of a rank is the Jensen-Shannon divergence of
    the two runs' state distributions over it, recomputed from each run's
    own model (stretched: the run's window, the same slices)."""
    cmp = ms.compare([bsp["a"], bsp["slow"]], slices=10, progress=False)
    df = cmp.differences(rows="hierarchy", permutations=-1).to_pandas().set_index("node")
    models = [ms.read_micro(bsp[k], slices=10) for k in ("a", "slow")]
    for node in ("node-2/rank-29", "node-0/rank-3", "node-2"):
        dists = []
        for m in models:
            t = m.to_pandas()
            t = t[t.resource.astype(str).str.startswith(node)]
            per = t.groupby("state", observed=True).proportion.sum()
            busy = per.sum()
            cells = len(t.resource.unique()) * 10
            dist = dict(per)
            dist["(idle)"] = cells - busy
            dists.append(pd.Series(dist) / cells)
        p, q = dists[0].reindex(dists[1].index.union(dists[0].index), fill_value=0), dists[1]
        q = q.reindex(p.index, fill_value=0)
        m = (p + q) / 2

        def h(x):
            x = x[x > 0]
            return float(-(x * np.log2(x)).sum())

        assert df.loc[node, "divergence"] == pytest.approx(h(m) - (h(p) + h(q)) / 2, abs=1e-12)


def test_labels_permutation_and_its_resolution(tmp_path):
    """Four repetitions of two configurations: the labels are permuted
    (70 relabellings, enumerated); the slowed rank's p-value is the
    smallest they can give, 2/70."""
    runs = [write_bsp(tmp_path / f"x{i}.trace", ranks=16, per_node=8, iterations=40, seed=10 + i) for i in range(4)]
    runs += [write_bsp(tmp_path / f"y{i}.trace", ranks=16, per_node=8, iterations=40, seed=20 + i, slow=5, slowdown=0.2)
             for i in range(4)]
    cmp = ms.compare(runs, labels=["x"] * 4 + ["y"] * 4, slices=10, progress=False)
    diff = cmp.differences(rows="hierarchy", rank="outlier")
    assert diff.test["method"] == "labels" and diff.test["exact"] and diff.test["labelings"] == 70
    assert diff.test["p_min"] == pytest.approx(2 / 70)
    df = diff.to_pandas()
    top = df.iloc[0]
    assert top.node == "node-0/rank-5"
    assert top.p_value == pytest.approx(2 / 70) and top.divergence_between > top.divergence_within
    assert top.divergence == pytest.approx(top.divergence_between + top.divergence_within)
    # 70 relabellings cannot beat the correction for 19 rows.
    assert top.p_adjusted == 1 or top.p_adjusted >= 19 * 2 / 70 - 1e-9
    assert "corrected for 19 rows" in diff.test["note"] and "repetitions" in diff.test["note"]


def test_missing_rank_is_absent(tmp_path):
    a = write_bsp(tmp_path / "a.trace", ranks=8, per_node=4, iterations=20)
    b = write_bsp(tmp_path / "b.trace", ranks=8, per_node=4, iterations=20, seed=5, missing=(6,))
    cmp = ms.compare([a, b], slices=5, progress=False)
    assert "(absent)" in cmp.states and cmp.runs.missing_resources.tolist() == [0, 1]
    df = cmp.differences(rows="hierarchy", permutations=-1).to_pandas().set_index("node")
    assert df.loc["node-1/rank-6", "divergence"] == pytest.approx(1.0) and df.loc["node-1/rank-6", "runs_present"] == 1


def test_alignments_and_models(bsp, jacobi):
    start = ms.compare([bsp["a"], bsp["slow"]], slices=20, align="start", progress=False)
    runs = start.runs
    assert start._info["end"] == pytest.approx(runs.duration.max())
    models = [ms.read_micro(bsp[k], slices=20) for k in ("a", "slow")]
    from_models = ms.compare(models, slices=20, progress=False)
    from_files = ms.compare([bsp["a"], bsp["slow"]], slices=20, progress=False)
    a = from_models.differences(rows="hierarchy", permutations=-1).to_pandas()
    b = from_files.differences(rows="hierarchy", permutations=-1).to_pandas()
    assert np.array_equal(a.divergence.to_numpy(), b.divergence.to_numpy())
    with pytest.raises(ms.InvalidArgumentError, match="models"):
        ms.compare(models, slices=20, align="start")
    traces = ms.compare([jacobi, jacobi], slices=10, progress=False)
    assert traces.names == ["run 0", "run 1"]
    assert traces.differences(p=0.5).to_pandas().divergence.max() == 0


def test_errors(bsp):
    with pytest.raises(ms.InvalidArgumentError, match="at least two"):
        ms.compare([bsp["a"]])
    with pytest.raises(ms.InvalidArgumentError, match="align"):
        ms.compare([bsp["a"], bsp["a"]], align="sideways")
    with pytest.raises(ms.InvalidArgumentError, match="labels"):
        ms.compare([bsp["a"], bsp["a"]], labels=["x"])
    with pytest.raises(ms.TraceNotFoundError):
        ms.compare([bsp["a"], "/nonexistent/run.trace"])
    with pytest.raises(TypeError, match="unexpected keyword"):
        ms.compare([bsp["a"], bsp["a"]], no_such_option=1)
    cmp = ms.compare([bsp["a"], bsp["rep"]], slices=10, progress=False)
    with pytest.raises(ms.InvalidArgumentError, match="rows"):
        cmp.differences(p=0.3, rows="everything")
    with pytest.raises(ms.InvalidArgumentError, match="trace file"):
        ms.compare([ms.read_micro(bsp["a"], slices=10), ms.read_micro(bsp["rep"], slices=10)]).ops()


def test_figure(bsp, tmp_path):
    cmp = ms.compare([bsp["a"], bsp["slow"]], slices=20, progress=False)
    fig = cmp.differences(p=0.3, rank="outlier").plot(tmp_path / "cmp.png")
    assert (tmp_path / "cmp.png").stat().st_size > 1000
    assert fig.size == (960, 2 * 250 + 96)
    svg = fig.to_bytes("svg")
    assert b"slow" in svg and b"(reference)" in svg


def test_series_here_and_on_dask(bsp, tmp_path):
    runs = [bsp["a"], bsp["slow"], bsp["rep"]]
    meta = pd.DataFrame({"seed": [1, 2, 3], "slowed": [False, True, False]})
    out = tmp_path / "series.parquet"
    df = ms.compare_series(runs, metadata=meta, slices=20, to_parquet=out)
    assert list(df.run) == ["a", "slow", "rep"] and list(df["meta:seed"]) == ["1", "2", "3"]
    assert df.divergence_to_ref.iloc[0] == 0 and df.outlier_node.iloc[1] == "node-2/rank-29"
    assert df.duration.iloc[1] > df.duration.iloc[0]
    # Seconds per state add up to the resource-time.
    secs = df[[c for c in df.columns if c.startswith("seconds:")]].sum(axis=1)
    assert np.allclose(secs, df.duration * df.resources)
    back = pd.read_parquet(out)
    assert back.equals(df)
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        on_dask = ms.compare_series(runs, metadata=meta, slices=20, client=client, progress=False)
    pd.testing.assert_frame_equal(on_dask, df)


def _oracle(name):
    return pd.read_csv(ORACLE / name, index_col=0)


@pytest.mark.parametrize("device", ["ALL", "CPU", "GPU"])
def test_ops_equal_hta_tracediff(device):
    """cmp.ops() is HTA 0.5.0's TraceDiff.compare_traces on the corpus's
    Kineto pairs (oracle CSVs and their command in
    core/views/compare/testdata/hta_tracediff), row by row."""
    control = shared(*HTA, "trace_diff", "control", "control.json.gz")
    test = shared(*HTA, "trace_diff", "test", "test.json.gz")
    cmp = ms.compare([control, test], names=["control", "test"], slices=20, match="position", progress=False)
    for arg, prefix in ((None, "tracediff_first"), ("all", "tracediff_all")):
        got = cmp.ops(iteration=arg, device=device)
        pd.testing.assert_frame_equal(got, _oracle(f"{prefix}_compare_{device}.csv"), check_dtype=False)
    base = shared(*HTA, "trace_compare", "base", "base.json.gz")
    other = shared(*HTA, "trace_compare", "test", "test.json.gz")
    small = ms.compare([base, other], names=["control", "test"], slices=10, progress=False)
    if device == "GPU":  # HTA's table has the control's kernels only: the test has none in iteration 1010
        with pytest.warns(UserWarning, match="test.json.gz has no GPU operation in iteration 1010"):
            got = small.ops(iteration=1010, device=device, short_names=True)
    else:
        got = small.ops(iteration=1010, device=device, short_names=True)
    pd.testing.assert_frame_equal(got, _oracle(f"compare1010_compare_{device}.csv"), check_dtype=False)


def test_ops_say_why():
    """ops() on runs it cannot count says why, naming the file: an Nsight
    Systems export has no operation (EmptyTraceError), a Kineto trace
    without steps no iteration; a device a run has nothing of leaves its
    counts at zero, with a UserWarning."""
    base = shared(*HTA, "trace_compare", "base", "base.json.gz")
    cpu = shared(*HTA, "cpu_only", "rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz")
    simple = shared(*HTA, "critical_path", "simple_add", "benchmark_result_493459_1694039959_trace.json.gz")
    nsys = shared("nsys", "h100_2gpu_1s.sqlite")
    with pytest.raises(ms.EmptyTraceError, match="h100_2gpu_1s.sqlite: no operator-level states") as err:
        ms.compare([base, nsys], slices=10, progress=False).ops(iteration="all")
    assert err.value.file == str(nsys)
    with pytest.raises(ms.InvalidArgumentError, match="has no iteration: none of its 837 operations"):
        ms.compare([simple, base], slices=10, progress=False).ops()
    cmp = ms.compare([base, cpu], slices=10, progress=False)
    with pytest.warns(UserWarning, match=r"rank-34\.Jul_15_10_52_41\.1074\.pt\.trace\.json\.gz has no GPU operation in "
                                         r"iteration \d+: its counts are zeros"):
        df = cmp.ops(iteration="all", device="GPU")
    assert len(df) == 1 and df.iloc[0, 0] == 2 and df.iloc[0, 2] == 0  # base's 2 kernels, none in the test run


def test_interrupt_stops_the_ops(monkeypatch):
    """cmp.ops() reads the runs' Kineto files again as a work that Ctrl-C
    (raised at the first poll) stops, caching nothing; the next call gives
    HTA's table."""
    control = shared(*HTA, "trace_diff", "control", "control.json.gz")
    test = shared(*HTA, "trace_diff", "test", "test.json.gz")
    cmp = ms.compare([control, test], names=["control", "test"], slices=20, match="position", progress=False)
    works, wait = [], _work.run

    def interrupted(work, desc, progress=None):
        works.append(work)

        def interrupt(done, total):
            raise KeyboardInterrupt  # what Ctrl-C raises in the polling loop

        wait(work, desc, interrupt)

    with monkeypatch.context() as m:
        m.setattr(_reading, "_POLL_MS", 0)
        m.setattr(_work, "run", interrupted)
        with pytest.raises(KeyboardInterrupt):
            cmp.ops()
    assert len(works) == 1 and works[0].Wait(0)
    with pytest.raises(ms.MacroscopeError, match="canceled"):
        _bridge.call(works[0].Err)
    pd.testing.assert_frame_equal(cmp.ops(), _oracle("tracediff_first_compare_ALL.csv"), check_dtype=False)


def test_markers_alignment_on_kineto_iterations():
    """Two Kineto runs aligned on their ProfilerStep#N: the markers both
    have, the steps of the reference sharing the slices by their lengths."""
    control = shared(*HTA, "trace_diff", "control", "control.json.gz")
    test = shared(*HTA, "trace_diff", "test", "test.json.gz")
    cmp = ms.compare([control, test], names=["control", "test"], slices=60, align="markers", match="position",
                     progress=False)
    runs = cmp.runs
    assert runs.markers.tolist() == [7, 7] and runs.dropped_markers.tolist() == [0, 0]
    assert runs.marker_resource.str.contains("python").all()
    diff = cmp.differences(p=0.4)
    assert len(diff) > 0 and diff.to_pandas().divergence.max() > 0.1


def test_series_rows_carry_the_runs_pop_factors():
    # SMPI runs of Jacobi: MPI calls, so each row has its POP factors, as
    # ms.pop computes them for the run alone.
    runs = [REPO / "testdata" / "compare" / f"jacobi32-{n}.trace.gz" for n in ("base", "slowhost", "slowlink")]
    df = ms.compare_series(runs, slices=20, permutations=19)
    for i, path in enumerate(runs):
        factors = ms.pop(path, progress=False).to_pandas()
        factors = factors[factors.form.isin(["", "multiplicative"])].set_index("key").iloc[:, -1]
        for key in ("parallel_efficiency", "load_balance", "communication_efficiency", "serialisation_efficiency",
                    "transfer_efficiency"):
            assert df[f"pop:{key}"].iloc[i] == factors[key], (path.name, key)
    # The slow host unbalances the load.
    assert df["pop:load_balance"].iloc[1] < df["pop:load_balance"].iloc[0]
    without = ms.compare_series(runs, slices=20, permutations=19, analyses=False)
    assert not [c for c in without.columns if c.startswith("pop:")]
    pd.testing.assert_frame_equal(without, df[without.columns])


def test_series_of_runs_without_mpi_calls_has_no_pop_factors():
    data = ("hta", "tests", "data", "trace_diff")
    runs = [shared(*data, "control", "control.json.gz"), shared(*data, "test", "test.json.gz")]
    df = ms.compare_series(runs, slices=10, permutations=19)
    assert not [c for c in df.columns if c.startswith("pop:")] and len(df) == 2


def test_markers_explorer_reads_the_figures_origin():
    """Aligned on markers, the explorer's axis reads its times from the
    origin the comparison's figure and models read them from (the
    reference run's first instant), not from the first marker."""
    control = shared(*HTA, "trace_diff", "control", "control.json.gz")
    test = shared(*HTA, "trace_diff", "test", "test.json.gz")
    cmp = ms.compare([control, test], names=["control", "test"], slices=60, align="markers", match="position",
                     progress=False)
    assert cmp.model.origin != cmp.model.start  # the first marker is not the run's first instant
    w = cmp.explore()
    assert w.view["origin"] == cmp.model.origin == cmp.run_model(1).origin


# A pair of SMPI runs whose difference is known (testdata/gen/jacobi_perturb.sh):
# the Jacobi solver on 32 ranks, as it is and with host alpha-10 (rank 10) at
# half speed from 5.5 s to 6.5 s.
STEADY = REPO / "testdata" / "compare" / "jacobi32-steady.trace.gz"
PERTURBED = REPO / "testdata" / "compare" / "jacobi32-alpha10.trace.gz"


def _innermost_seconds(path, node, a_ns, b_ns):
    """Seconds each state is the innermost one of a rank over [a, b), from
    the trace's own state intervals (regroup.py's Compute spans the rank's
    life at depth 0, the MPI calls sit on it at depth 1), and the time in
    no state: the oracle of a cell, without the microscopic model."""
    s = ms.read(path).states
    s = s[s.container.astype(str) == node]
    over = (np.minimum(s.end_ns, b_ns) - np.maximum(s.start_ns, a_ns)).clip(lower=0).astype(float) / 1e9
    top = s.depth == s.depth.max()
    out = over[top].groupby(s.value[top].astype(str)).sum()
    base = s[s.depth == 0]
    assert len(base) == 1 and base.value.iloc[0] == "Compute"
    out["Compute"] = out.get("Compute", 0) + over[s.depth == 0].sum() - over[top].sum()
    out["(idle)"] = (b_ns - a_ns) / 1e9 - over[s.depth == 0].sum()
    return out[out > 0]


def _js(dists):
    """Jensen-Shannon divergence (bits) of equally weighted distributions."""
    p = pd.concat(dists, axis=1).fillna(0)
    p = p / p.sum()

    def h(x):
        x = x[x > 0]
        return float(-(x * np.log2(x)).sum())

    return h(p.mean(axis=1)) - float(np.mean([h(p[c]) for c in p.columns]))


def test_smpi_perturbation_found_where_and_when_in_bits():
    """Aligned from each run's start, the row the outlier ranking puts first
    at the recommended level is rank 10, in the slice where its slowed
    computation first outlasts the steady run's (the profile starts at
    5.5 s); its divergence is the Jensen-Shannon divergence of the two runs'
    innermost states over it, recomputed from the traces' intervals. Before
    5.5 s the runs do not differ at all."""
    cmp = ms.compare([STEADY, PERTURBED], slices=64, align="start", progress=False)
    assert cmp.names == ["jacobi32-steady", "jacobi32-alpha10"]
    diff = cmp.differences(rank="outlier", permutations=99)
    df = diff.to_pandas()
    top = df.iloc[0]
    assert top.node == "alpha/alpha-10/rank-10" and top.top_state == "Compute" and top.top_delta > 0.5
    assert 5.5 <= top["from"] < 6.5 and top["to"] - top["from"] < 0.5
    assert top["from"] == top.start  # both runs start at 0: the axis is their clock
    slices = cmp.differences(rows="hierarchy", phases=64, permutations=-1).to_pandas()
    root = slices[slices.depth == 0].sort_values("first_slice").set_index("first_slice")
    # A cell is a slice's proportions (slices of whole nanoseconds may differ
    # by one): the footprint's distribution is their sum over its slices.
    dists = []
    for p in (STEADY, PERTURBED):
        cells = [_innermost_seconds(p, top.node, round(root["from"][k] * 1e9), round(root["to"][k] * 1e9))
                 / (root["to"][k] - root["from"][k]) for k in range(top.first_slice, top.last_slice + 1)]
        dists.append(pd.concat(cells, axis=1).fillna(0).sum(axis=1))
    # The model cuts the states at slice edges of whole nanoseconds: the
    # cells agree with the intervals to a nanosecond in 0.136 s (5e-9).
    assert top.divergence == pytest.approx(_js(dists), abs=1e-8)
    # Where in time: nothing differs before the perturbation.
    assert root[root.to <= 5.5].divergence.max() == 0 and root[root["from"] >= 5.5].divergence.max() > 0.1
    fig = diff.plot()
    assert fig.size == (960, 2 * 250 + 96)


def test_series_says_which_run_departs_and_when(tmp_path):
    """A series of three runs against the steady one: the run like it
    departs nowhere (no time, no node); the perturbed one departs after
    5.5 s of its own time, and peaks there."""
    df = ms.compare_series([STEADY, PERTURBED, STEADY], names=["steady", "perturbed", "again"], slices=64,
                           analyses=False)
    assert df.divergence_to_ref.tolist()[0::2] == [0, 0]
    for i in (0, 2):
        assert pd.isna(df.departs_from.iloc[i]) and pd.isna(df.peak_from.iloc[i]) and pd.isna(df.outlier_node.iloc[i])
    row = df.iloc[1]
    assert 5.0 < row.peak_from < 6.6 and row.peak_to > row.peak_from and row.peak_divergence > 0.3
    assert row.departs_from <= row.peak_from and row.outlier_node.startswith("alpha")
    assert df.duration.iloc[1] > df.duration.iloc[0]


def test_kineto_ranks_matched_by_name_pattern():
    """Rank 3 of 8 and rank 1 of 2 of HTA's trace_diff pair: their process,
    GPU and thread names carry the rank's ids; matched by their pattern (the
    default), the GPU's default stream and the CPU threads are compared
    resource to resource, and the warnings say which were matched. By path
    they are not."""
    control = shared(*HTA, "trace_diff", "control", "control.json.gz")
    test = shared(*HTA, "trace_diff", "test", "test.json.gz")
    cmp = ms.compare([control, test], slices=20, progress=False)
    assert cmp.names == ["control", "test"]
    runs = cmp.runs
    assert runs.matched_by_pattern.tolist() == [0, 4]
    assert any("as thread 3113936 (python3.8)" in w for w in cmp.warnings)
    df = cmp.differences(rows="hierarchy", permutations=-1).to_pandas()
    df = df.set_index("node")  # Kineto's "stream 7 " is shown without its space
    assert df.loc["python3.8 (GPU 3)/stream 7", "runs_present"] == 2
    assert df.loc["python3.8 (CPU)/thread 3113936 (python3.8)", "runs_present"] == 2
    assert df.loc["python3.8 (CPU)/thread 3113936 (python3.8)", "divergence"] < 1
    by_path = ms.compare([control, test], slices=20, match="path", progress=False)
    path = by_path.differences(rows="hierarchy", permutations=-1).to_pandas().set_index("node")
    assert path.loc["python3.8 (CPU)/thread 3113936 (python3.8)", "runs_present"] == 1
    assert path.filter(like="(GPU 1)", axis=0).runs_present.max() == 1


def test_runs_named_by_their_folders_and_of_different_sizes():
    """Score-P archives are all traces.otf2: the runs are named by the
    folders that tell them apart. 32 and 64 ranks of one stencil: ranks
    0-31 are compared, 32-63 absent from the first run."""
    base = ("tracer-stencil4d", "stencil4d-otf")
    runs = [shared(*base, f"traces-{n}", "traces.otf2") for n in (32, 64)]
    cmp = ms.compare(runs, slices=10, progress=False)
    assert cmp.names == ["traces-32/traces", "traces-64/traces"]
    assert cmp.runs.missing_resources.tolist() == [32, 0] and cmp.runs.matched_by_pattern.tolist() == [0, 0]
    df = cmp.differences(rows="hierarchy", permutations=-1).to_pandas()
    leaves = df[df.node.str.endswith("Master thread")]
    assert (leaves.runs_present == 2).sum() == 32 and (leaves.runs_present == 1).sum() == 32
    assert np.allclose(leaves[leaves.runs_present == 1].divergence, 1)
    assert (df["from"] >= 0).all() and df["to"].max() == pytest.approx(cmp.runs.duration.iloc[0])
    # Ranked by score the 32 ranks the first run lacks come first (1 bit
    # each, all presence); ranked by present score, the ranks both have.
    assert (df[df.node.str.endswith("Master thread")].head(32).runs_present == 1).all()
    present = cmp.differences(rows="hierarchy", rank="present", permutations=-1).to_pandas()
    assert np.allclose(present.divergence, present.presence_divergence + present.present_share * present.divergence_present,
                       atol=1e-12)
    ranks = present[present.node.str.endswith("Master thread")]
    assert (ranks.head(32).runs_present == 2).all() and (ranks.head(32).divergence_present > 0).all()
    assert (ranks.tail(32).present_score == 0).all()


def test_times_from_the_reference_start_on_another_clock():
    """Kineto runs on the epoch clock: from and to count from the
    reference's first instant; start and end stay on its clock."""
    runs = [shared(*HTA, "trace_filter", f"sampled_rank-{r}.json.gz") for r in (0, 1)]
    cmp = ms.compare(runs, slices=10, progress=False)
    df = cmp.differences(rows="hierarchy", permutations=-1).to_pandas()
    origin = cmp.runs.start.iloc[0]
    assert origin > 1e9 and df["from"].min() == 0
    assert np.allclose(df.start - origin, df["from"], atol=1e-6)
    assert df["to"].max() == pytest.approx(cmp.runs.duration.iloc[0], abs=1e-6)


def test_a_run_read_in_part_is_named(tmp_path):
    cut = tmp_path / "cut.trace.gz"
    cut.write_bytes(STEADY.read_bytes()[:30000])
    with pytest.warns(UserWarning, match="run 'cut' is incomplete"):
        cmp = ms.compare([STEADY, cut], slices=10, progress=False)
    assert cmp.runs.duration.iloc[1] < cmp.runs.duration.iloc[0]
    bad = tmp_path / "bad.trace"
    bad.write_text("%EventDef PajeDefineContainerType 0\n% Alias string\n%EndEventDef\n0 X 0\n")
    with pytest.raises(ms.TraceFormatError, match='run "bad".*bad.trace:3'):
        ms.compare([STEADY, bad], slices=10, progress=False)


@pytest.mark.parametrize("paths, want", [
    (["a/before.trace", "b/after.json.gz"], ["before", "after"]),
    (["/x/stencil/traces-32/traces.otf2", "/x/stencil/traces-64/traces.otf2"], ["traces-32/traces", "traces-64/traces"]),
    (["/d/run1/out/rank0.json", "/d/run2/out/rank0.json", "/d/run2/out/rank1.json"],
     ["run1/out/rank0", "run2/out/rank0", "rank1"]),
    (["t.trace", "t.trace", None], ["t", "t (2)", "run 2"]),
    (["a/t.trace", "t.trace"], ["a/t", "t"]),
])
def test_default_names_are_the_command_lines(paths, want):
    """The rule of compare.RunNames (TestRunNames: the same vectors)."""
    from macroscope._compare import _default_names

    assert _default_names(paths) == want


def test_auto_alignment_keeps_a_local_perturbation_local():
    """The perturbed run is 2.6% longer than the steady one: align="auto"
    aligns their starts, and finds rank 10 over 5.5-6.5 s as
    align="start" does (the default "stretch" shifts every later phase)."""
    auto = ms.compare([STEADY, PERTURBED], slices=64, align="auto", progress=False)
    assert auto.align == "start" and "within 5% of each other" in auto.align_reason
    assert "start (auto)" in repr(auto)
    top = auto.differences(rank="outlier", permutations=-1).to_pandas().iloc[0]
    assert top.node == "alpha/alpha-10/rank-10" and 5.5 <= top["from"] < 6.5
    start = ms.compare([STEADY, PERTURBED], slices=64, align="start", progress=False)
    assert start.align_reason == ""
    a = auto.differences(rows="hierarchy", phases=64, permutations=-1).to_pandas()
    b = start.differences(rows="hierarchy", phases=64, permutations=-1).to_pandas()
    assert a.divergence.tolist() == b.divergence.tolist()


def test_window_start_end(tmp_path):
    """start= and end= count from each run's start, as Trace.micro's do;
    they give a run whose events all sit at one instant the window the
    error asks for."""
    from conftest import ONE_HOST
    good = tmp_path / "good.trace"
    good.write_text(ONE_HOST + '3 0 S h1 "run"\n3 2 S h1 "wait"\n3 4 S h1 "run"\n')
    instant = tmp_path / "instant.trace"
    instant.write_text(ONE_HOST + '3 0 S h1 "run"\n')
    with pytest.raises(ms.InvalidArgumentError, match=r'run "instant".*give a window \(start=, end=\)'):
        ms.compare([good, instant], slices=2, progress=False)
    cmp = ms.compare([good, instant], slices=2, start=0, end=1, progress=False)
    assert cmp.runs.window_start.tolist() == [0, 0] and cmp.runs.window_end.tolist() == [1, 1]
    # Over [1, 3] s of good: run then wait, a slice each.
    cmp = ms.compare([good, good], names=["a", "b"], slices=2, start=1, end=3, progress=False)
    rows = cmp.differences(rows="hierarchy", phases=2, permutations=-1).to_pandas()
    # Times read from the reference's start, as every time shown.
    assert rows[["from", "to"]].drop_duplicates().values.tolist() == [[1, 2], [2, 3]]
    first = rows[rows.first_slice == 0].iloc[0]
    assert first["prop:a:run"] == 1 and rows[rows.first_slice == 1].iloc[0]["prop:a:wait"] == 1
    with pytest.raises(ms.InvalidArgumentError, match="does not apply"):
        ms.compare([good, good], names=["a", "b"], align="markers", start=1, progress=False)


@pytest.mark.skipif(subprocess.run(["/usr/bin/python3", "-c", "import otf2"], capture_output=True).returncode != 0,
                    reason="python3-otf2 is not installed")
def test_otf2_runs_divergence_equals_brute_force(tmp_path):
    """Two Score-P runs of pipit's ping-pong (one with PAPI counters, 8%
    longer): stretched (align="auto"'s choice), each location's divergence
    over the whole run is the Jensen-Shannon divergence of its time in
    each innermost region, and in none, over each run's clock, read from
    python3-otf2's records (testdata/gen/otf2_shares.py), not our reader."""
    runs = [shared("pipit", "tests", "data", d, "traces.otf2") for d in ("ping-pong-otf2", "ping-pong-otf2-papi")]
    cmp = ms.compare(runs, slices=20, align="auto", progress=False)
    assert cmp.align == "stretch" and cmp.warnings == []
    rows = cmp.differences(rows="hierarchy", permutations=-1).to_pandas().set_index("node")
    oracle = []
    for i, run in enumerate(runs):
        out = tmp_path / f"{i}.json"
        subprocess.run(["/usr/bin/python3", str(REPO / "testdata" / "gen" / "otf2_shares.py"), str(run), str(out)],
                       check=True)
        oracle.append(json.loads(out.read_text()))
    assert sorted(oracle[0]) == sorted(oracle[1]) == ["Linux/quartz10/MPI Rank 0/Master thread",
                                                      "Linux/quartz10/MPI Rank 1/Master thread"]
    for loc in oracle[0]:
        want = _js([pd.Series(o[loc], dtype=float) for o in oracle])
        assert rows.loc[loc, "divergence"] == pytest.approx(want, abs=1e-9), loc
        assert rows.loc[loc, "divergence"] > 1e-5  # the runs differ, a little
