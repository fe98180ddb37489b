"""A strong-scaling study end to end: one program (testdata/gen/scaling.c)
run by SimGrid's SMPI at 2, 4, 8 and 16 ranks (testdata/gen/scaling.sh).
Its POP factors over the series equal the formulas computed here from
pj_dump's output (PajeNG's reader, not ours); and what a comparison of
runs of different rank counts matches and reports."""

import gzip
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

import macroscope as ms
from conftest import REPO

SCALING = REPO / "testdata" / "scaling"
RANKS = (2, 4, 8, 16)


def runs():
    return [str(SCALING / f"solver-{n}.trace.gz") for n in RANKS]


def pj_dump_run(path, tmp_path):
    """The quantities of one run, from pj_dump's CSV (12 decimals):
    the trace's duration T; per rank, its useful time U (first to last
    state, less its MPI calls), its time outside MPI calls from the
    trace's start to its last state O, and its outside time between
    consecutive collective calls (the iterations, each ending in an
    MPI_Allreduce; the last piece runs to the rank's last state)."""
    plain = tmp_path / (path.rsplit("/", 1)[-1].removesuffix(".gz"))
    with gzip.open(path, "rb") as src, open(plain, "wb") as dst:
        shutil.copyfileobj(src, dst)
    out = subprocess.run(["pj_dump", "-l", "12", str(plain)], capture_output=True, text=True, check=True).stdout
    # pj_dump prints the containers' times to 6 digits whatever -l says:
    # the trace's extent is its entities' (SMPI's trace starts at 0).
    t0, t1, ranks, states = 0.0, 0.0, set(), {}
    for line in out.splitlines():
        f = line.split(", ")
        if f[0] == "Container" and f[2] == "MPI":
            ranks.add(f[6])
        elif f[0] == "State":
            states.setdefault(f[1], []).append((float(f[3]), float(f[4]), f[7]))
        if f[0] in ("State", "Link"):
            t1 = max(t1, float(f[4]))
    assert len(ranks) == int(plain.name.split("-")[1].split(".")[0])
    useful, outside, pieces = {}, {}, {}
    for r in ranks:
        st = states[r]
        first, last = min(s for s, _, _ in st), max(e for _, e, _ in st)
        calls = sorted((s, e, v) for s, e, v in st if v.startswith(("MPI_", "PMPI_")))
        in_mpi = sum(e - s for s, e, _ in calls)
        useful[r] = last - first - in_mpi
        outside[r] = last - t0 - in_mpi
        # The outside time between collectives, piece by piece.
        at, piece, rp = t0, 0.0, []
        for s, e, v in calls:
            piece += s - at
            at = e
            if v in ("PMPI_Allreduce", "MPI_Allreduce"):
                rp.append(piece)
                piece = 0.0
        rp.append(piece + last - at)
        pieces[r] = rp
    n = {len(p) for p in pieces.values()}
    assert n == {21}  # 20 iterations and the tail
    # On an ideal network each piece lasts its slowest rank's (see scaling.c).
    ideal = sum(max(p[k] for p in pieces.values()) for k in range(21))
    # Each rank's seconds in each innermost state (regroup.py's Compute at
    # depth 0 under the MPI calls), and in none, over the whole trace.
    seconds = {}
    for r in ranks:
        per = {}
        for s, e, v in states[r]:
            per[v] = per.get(v, 0.0) + e - s
        calls = sum(x for v, x in per.items() if v != "Compute")
        per["(idle)"] = t1 - t0 - per["Compute"]
        per["Compute"] -= calls
        seconds[r] = {v: x for v, x in per.items() if x > 0}
    return {"P": len(ranks), "T": t1 - t0, "U": useful, "O": outside, "IR": ideal, "seconds": seconds}


def pop_by_hand(data):
    """POP's factors (docs/analyses.md; BSC's modelfactors.py and pypop's
    MPI_Metrics), the reference being the run of fewest processes."""
    ref = data[0]
    out = {}
    for d in data:
        u = list(d["U"].values())
        mean, top, total, t = sum(u) / len(u), max(u), sum(u), d["T"]
        omax = max(d["O"].values())
        ser = omax / d["IR"]
        comp = sum(ref["U"].values()) / total
        out[str(d["P"])] = {
            "Global efficiency": mean / t * comp,
            "Parallel efficiency": mean / t,
            "Load balance": mean / top,
            "Communication efficiency": top / t,
            "Serialisation efficiency": ser,
            "Transfer efficiency": top / t / ser,
            "Computation scalability": comp,
            "Speedup": ref["T"] / t,
            # pypop's additive forms
            "additive Load balance": 1 - (top - mean) / t,
            "additive Serialisation efficiency": 1 - (d["IR"] - top) / t,
            "additive Transfer efficiency": d["IR"] / t,
        }
    return out


@pytest.mark.skipif(shutil.which("pj_dump") is None, reason="pj_dump (pajeng) is not installed")
def test_pop_series_equals_formulas_from_pj_dump(tmp_path):
    p = ms.pop(runs())
    assert p.runs == [str(n) for n in RANKS] and p.scaling == "strong"
    want = pop_by_hand([pj_dump_run(r, tmp_path) for r in runs()])
    mult, add = p.efficiencies(), p.efficiencies("additive")
    checked = 0
    for run, metrics in want.items():
        for metric, value in metrics.items():
            if metric.startswith("additive "):
                got = add.loc[metric.removeprefix("additive "), run]
            else:
                got = mult.loc[metric, run]
            assert got == pytest.approx(value, abs=1e-9, rel=0), (run, metric)
            checked += 1
    assert checked == 4 * 11
    # The study is not trivial: the load is imbalanced, the slowest rank
    # changes (serialisation), the repeated work grows with the ranks.
    assert mult.loc["Serialisation efficiency"].max() < 0.95
    assert list(mult.loc["Computation scalability"]) == sorted(mult.loc["Computation scalability"], reverse=True)
    assert mult.loc["Computation scalability", "16"] < 0.9
    # The additive forms add up (pypop's identities).
    for run in want:
        assert add.loc["Communication efficiency", run] == pytest.approx(
            add.loc["Serialisation efficiency", run] + add.loc["Transfer efficiency", run] - 1, abs=1e-12)
        assert add.loc["Parallel efficiency", run] == pytest.approx(
            add.loc["Load balance", run] + add.loc["Communication efficiency", run] - 1, abs=1e-12)


def js_bits(dists):
    """Jensen-Shannon divergence (bits) of equally weighted distributions."""
    p = pd.concat([pd.Series(d) for d in dists], axis=1).fillna(0)
    p = p / p.sum()

    def h(x):
        x = x[x > 0]
        return float(-(x * np.log2(x)).sum())

    return h(p.mean(axis=1)) - float(np.mean([h(p[c]) for c in p.columns]))


@pytest.mark.skipif(shutil.which("pj_dump") is None, reason="pj_dump (pajeng) is not installed")
def test_compare_4_ranks_against_8(tmp_path):
    """What a comparison of runs of different rank counts is: the ranks
    are matched by path (rank-0..3 of both runs); the 8-rank run's other
    ranks are (absent) from the 4-rank run, a divergence of presence of 1
    bit each, which the warnings say; the runs' durations differ by half,
    so align="auto" stretches (iteration k falls in the same fraction of
    both runs); over the whole run a shared rank's divergence is that of
    its states' shares of each run's time, computed from pj_dump's output."""
    four, eight = runs()[1], runs()[2]
    cmp = ms.compare([four, eight], slices=20, align="auto", progress=False)
    assert cmp.align == "stretch" and "differ by more than 5%" in cmp.align_reason
    assert repr(cmp).endswith("stretch (auto), run under each resource>")
    r = cmp.runs
    assert r.resources.tolist() == [4, 8] and r.missing_resources.tolist() == [4, 0]
    assert cmp.warnings == [
        "solver-4: lacks 4 of the 8 resources of the runs: alpha/alpha-4/rank-4, alpha/alpha-5/rank-5, "
        "alpha/alpha-6/rank-6, and 1 more; their cells are (absent), a divergence of presence (presence_divergence); "
        'rank="present" ranks first what differs where every run has the resource']
    rows = cmp.differences(rows="hierarchy", permutations=-1).to_pandas().set_index("node")
    oracle = [pj_dump_run(p, tmp_path)["seconds"] for p in (four, eight)]
    for k in range(8):
        row = rows.loc[f"alpha/alpha-{k}/rank-{k}"]
        if k >= 4:  # only in the 8-rank run: all presence
            assert row.divergence == pytest.approx(1, abs=1e-12) and row.presence_divergence == pytest.approx(1, abs=1e-12)
            assert row.present_share == 0.5 and row.present_score == 0 and row.runs_present == 1
        else:  # in both: what their states differ by
            assert row.presence_divergence == 0 and row.runs_present == 2
            want = js_bits([o[f"rank-{k}"] for o in oracle])
            assert row.divergence == pytest.approx(want, abs=1e-9), k
    # Ranked by what differs where both runs have the rank, the absent
    # ranks come last.
    present = cmp.differences(rows="hierarchy", rank="present", permutations=-1).to_pandas()
    ranks = present[present.node.str.contains("rank-")].node.tolist()
    assert set(ranks[-4:]) == {f"alpha/alpha-{k}/rank-{k}" for k in range(4, 8)}


def test_series_of_the_study():
    """compare_series over the study, the 2-rank run the reference: a row
    per run, the ranks the reference lacks counted (extra_resources); the
    share of Compute (the time outside MPI calls, over ranks x duration)
    is POP's parallel efficiency, which the row's pop: column has too."""
    df = ms.compare_series(runs(), slices=20, progress=False)
    assert df.resources.tolist() == list(RANKS) and df.extra_resources.tolist() == [0, 2, 6, 14]
    pe = ms.pop(runs()).efficiencies().loc["Parallel efficiency"].tolist()
    assert df["share:Compute"].tolist() == pytest.approx(pe, abs=1e-12)
    assert df["pop:parallel_efficiency"].tolist() == pytest.approx(pe, abs=1e-12)
    assert df.divergence_to_ref.tolist()[0] == 0 and df.divergence_to_ref.is_monotonic_increasing


@pytest.mark.skipif(shutil.which("pj_dump") is None, reason="pj_dump (pajeng) is not installed")
def test_series_scalability_columns_equal_formulas_from_pj_dump(tmp_path):
    """compare_series's study-wide POP columns (global efficiency,
    computation scalability, speed-up) equal the formulas computed from
    pj_dump's output, the 2-rank run POP's reference, whatever run the
    comparison's reference is and whatever the order of the runs."""
    order = [2, 0, 3, 1]  # 8, 2, 16, 4 ranks
    paths = [runs()[i] for i in order]
    want = pop_by_hand([pj_dump_run(r, tmp_path) for r in runs()])
    df = ms.compare_series(paths, reference=2, slices=10, progress=False)
    for (_, row), i in zip(df.iterrows(), order):
        w = want[str(RANKS[i])]
        assert row["pop:global_efficiency"] == pytest.approx(w["Global efficiency"], abs=1e-9, rel=0)
        assert row["pop:computation_scalability"] == pytest.approx(w["Computation scalability"], abs=1e-9, rel=0)
        assert row["pop:speedup"] == pytest.approx(w["Speedup"], abs=1e-9, rel=0)
    # Without hardware counters the IPC scalabilities are unknown: NaN.
    assert df["pop:ipc_scalability"].isna().all()
    # One run alone has no study: no such column.
    one = ms.compare_series(paths[:1], slices=10, progress=False)
    assert "pop:speedup" not in one.columns and "pop:parallel_efficiency" in one.columns
