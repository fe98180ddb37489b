"""The spatial aggregation measured as Lamarche-Perrin et al. (seed 003):
its defaults are the paper's measure (resources by their shares of the
window, size gain |A| - 1, normalised), so that p does not depend on the
number of slices and the paper's p = 10% separates exactly the injected
heterogeneity of its synthetic scenario, here on variants with other
layouts, seeds and depths."""

import numpy as np
import pandas as pd
import pytest

import macroscope as ms


def scenario(fanout, groups, *, levels, seed=0, noise=0.002, contrast=0.4):
    """A trace of processes in a balanced hierarchy (fanout children per
    level) with two states: each process is in VS0 for a share r of the
    second, then in VS1. r = 1/2 + noise (alternating signs by process
    index when seed is 0, else uniform in [-noise, noise]), plus, for
    each heterogeneous group (a path of indices), +-contrast alternating
    over the group's children; a group given as ("whole", path) is
    shifted by +contrast as a whole instead."""
    idx = np.indices(fanout).reshape(len(fanout), -1)
    if seed == 0:
        r = 0.5 + noise * np.where(idx[-1] % 2 == 0, 1.0, -1.0)
    else:
        r = 0.5 + np.random.default_rng(seed).uniform(-noise, noise, idx.shape[1])
    for g in groups:
        whole = g[0] == "whole"
        path = np.array(g[1] if whole else g)
        on = np.all(idx[:len(path)] == path[:, None], axis=0)
        shift = contrast if whole else contrast * np.where(idx[len(path)] % 2 == 0, 1.0, -1.0)
        r = r + np.where(on, shift, 0.0)
    paths = np.array([""], dtype=object)  # in the order of idx: the last index runs fastest
    for d, f in enumerate(fanout):
        paths = np.add.outer(paths, np.array([f"{'/' if d else ''}{levels[d]}-{i}" for i in range(f)],
                                             dtype=object)).ravel()
    ns = np.round(r * 1e9).astype(np.int64)
    n = len(ns)
    return pd.DataFrame({
        "resource": np.concatenate([paths, paths]),
        "state": ["VS0"] * n + ["VS1"] * n,
        "start": np.concatenate([np.zeros(n, np.int64), ns]),
        "end": np.concatenate([ns, np.full(n, 1_000_000_000, np.int64)]),
    })


def separated(fanout, groups, levels):
    """The cut that separates exactly the injected groups: a heterogeneous
    group and its ancestors are split (a group shifted as a whole: only its
    ancestors), everything else is aggregated as high as it can be."""
    split = set()
    for g in groups:
        path = tuple(g[1]) if g[0] == "whole" else tuple(g)
        deepest = len(path) - 1 if g[0] == "whole" else len(path)
        split.update(path[:d] for d in range(1, deepest + 1))
    out = []

    def walk(prefix):
        if prefix and prefix not in split:
            out.append("/".join(f"{levels[d]}-{i}" for d, i in enumerate(prefix)))
            return
        for i in range(fanout[len(prefix)]):
            walk(prefix + (i,))

    walk(())
    return sorted(out)


PAPER = ["site", "sc", "cluster", "machine", "proc"]
G5K = ["site", "cluster", "machine", "process"]

CASES = {
    # The paper's layout (section 5.3) at 100,000 processes: heterogeneity
    # among the super-clusters of site-0, the clusters of site-1/sc-0, the
    # machines of site-2/sc-0/cluster-0, the processes of a machine.
    "paper": ((10, 10, 10, 10, 10), [(0,), (1, 0), (2, 0, 0), (3, 0, 0, 0)], PAPER, 0, 0.002),
    # Site > cluster > machine > process, 100,000 processes, anomalies at
    # the four levels elsewhere: a site apart from the others, the clusters
    # of a site, the machines of a cluster, the processes of a machine,
    # with random noise.
    "g5k": ((10, 10, 10, 100), [("whole", (6,)), (3,), (8, 2), (1, 7, 4)], G5K, 11, 0.01),
    # Another seed, other places, uneven fan-outs (96,000 processes).
    "g5k-other": ((8, 12, 25, 40), [("whole", (2,)), (5,), (0, 11), (7, 3, 19)], G5K, 2026, 0.02),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_papers_p_separates_exactly_the_injected_groups(case):
    fanout, groups, levels, seed, noise = CASES[case]
    trace = ms.from_pandas(scenario(fanout, groups, levels=levels, seed=seed, noise=noise),
                           time_unit="ns", levels=levels)
    model = trace.micro(slices=1)
    assert model.resources == int(np.prod(fanout))
    agg = model.aggregate(0.1, kind="spatial")
    want = separated(fanout, groups, levels)
    assert sorted(agg.to_pandas().node) == want
    if case == "paper":
        # The entropy gain (this project's former default) has merged
        # heterogeneous groups by p = 0.1.
        former = model.aggregate(0.1, kind="spatial", gain="entropy").to_pandas()
        assert sorted(former.node) != want
        assert len(former) < len(want)


def test_the_spatial_defaults_are_the_papers_measure(jacobi):
    model = jacobi.micro(slices=20)
    for normalize in (False, True):
        default = model.aggregate(0.3, kind="spatial", normalize=normalize).to_pandas()
        paper = model.aggregate(0.3, kind="spatial", normalize=normalize, gain="size",
                                entities="resources").to_pandas()
        pd.testing.assert_frame_equal(default, paper)
    raw = model.aggregate(0.3, kind="spatial", normalize=False).to_pandas()
    np.testing.assert_array_equal(raw.gain, raw.leaves - 1)  # |A| - 1 resources, whatever the slices
    # The other kinds keep the cells and the entropy gain.
    st = model.aggregate(0.3).to_pandas()
    pd.testing.assert_frame_equal(st, model.aggregate(0.3, gain="entropy", entities="cells").to_pandas())


def test_the_spatial_optimum_does_not_depend_on_the_slices(jacobi):
    """The bundled trace (its behaviour changes over time: a checkpoint
    between iterations 20 and 29) at 10, 30 and 100 slices: the same
    levels, and at every p the same cut."""
    models = {n: jacobi.micro(slices=n) for n in (10, 30, 100)}
    levels = {n: m.significant_p(kind="spatial", threshold=0) for n, m in models.items()}
    base = levels[10]
    assert len(base) >= 3
    for n in (30, 100):
        np.testing.assert_array_equal(levels[n].aggregates, base.aggregates)
        np.testing.assert_allclose(levels[n].p_high, base.p_high, rtol=1e-9, atol=1e-12)
    for p in (0.01, 0.1, 0.2, 0.3, 0.45, 0.6):
        cuts = {n: sorted(m.aggregate(p, kind="spatial").to_pandas().node) for n, m in models.items()}
        assert cuts[10] == cuts[30] == cuts[100], p


@pytest.mark.parametrize("seed,places", [
    (1, [(1,), (2, 1), (3, 0, 2), (0, 1, 3, 7)]),
    (7, [(3,), (0, 0), (2, 1, 3), (1, 1, 0, 12)]),
])
def test_synth_traces_with_anomalies_at_four_levels(tmp_path, seed, places):
    """A trace of ms.synth (512 cores drawing their states at random, 1,000
    intervals each) with a site, a cluster, a machine and a core whose
    weights differ (MPI_Wait 6 times as likely): at p = 0.1 the cut keeps
    exactly those four apart, their ancestors split, all else aggregated.
    (With 500 intervals per core the sampling noise of each core's shares
    keeps homogeneous machines detailed up to p ~ 0.12.)"""
    fanout, levels = (4, 2, 4, 16), ["site", "cluster", "machine", "core"]
    path = tmp_path / "synth.trace"
    ms.synth(path, sites=4, clusters=2, machines=4, cores=16, events=512 * 1000, seed=seed,
             anomalies=[{"level": level, "at": list(at), "weights": {"MPI_Wait": 6}}
                        for level, at in zip(levels, places)])
    model = ms.read(path, progress=False).micro(slices=10)
    want = separated(fanout, [("whole", at) for at in places], levels)
    assert len(want) == 28
    assert sorted(model.aggregate(0.1, kind="spatial").to_pandas().node.astype(str)) == want
