"""A strong-scaling study end to end: one program (testdata/gen/scaling.c)
run by SimGrid's SMPI at 2, 4, 8 and 16 ranks (testdata/gen/scaling.sh).
Its POP factors over the series equal the formulas computed here from
pj_dump's output (PajeNG's reader, not ours); and what a comparison of
runs of different rank counts matches and reports."""

import gzip
import shutil
import subprocess

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
    return {"P": len(ranks), "T": t1 - t0, "U": useful, "O": outside, "IR": ideal}


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
