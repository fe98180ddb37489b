"""The spatiotemporal pipeline from a trace file to DataFrames and a
figure, checked against independent computations."""

import collections
import struct

import numpy as np
import pandas as pd
import pytest

import macroscope as ms
from conftest import shared


def test_states_match_pj_dump(mardi):
    """Every state interval pj_dump prints for simu-mardi, and no other."""
    oracle = shared("pajeng", "oracles", "032_pj_dump_simu_mardi_trace.out")
    want = collections.Counter()
    for line in oracle.read_text().splitlines():
        f = [x.strip() for x in line.split(",")]
        if f[0] == "State":
            want[(f[1].strip('"'), f[2], f[3], f[4], int(float(f[6])), f[7])] += 1
    states = mardi.states
    got = collections.Counter(
        (c.rsplit("/", 1)[-1], t, f"{s:.6f}", f"{e:.6f}", d, v)
        for c, t, s, e, d, v in zip(states.container, states["type"], states.start, states.end,
                                    states.depth, states.value))
    assert got == want
    assert (states.end_ns - states.start_ns == (states.duration * 1e9).round()).all()


def test_containers(mardi):
    c = mardi.containers
    assert len(c) == 306
    assert list(c.columns[:5]) == ["path", "name", "type", "parent", "depth"]
    assert (c.type == "HOST").sum() == 101 and (c.type == "LINK").sum() == 203
    assert c.path.iloc[0] == "my_cluster_1" and c.depth.iloc[0] == 1


def overlap(a0, a1, b0, b1):
    return np.clip(np.minimum(a1, b1) - np.maximum(a0, b0), 0, None)


def test_model_matches_the_states(jacobi):
    """At depth 1 (the MPI calls, which do not nest further) each cell is the
    overlap of the calls with the slice, computed here with pandas."""
    model = jacobi.micro(slices=37, depth=1)
    cells = model.to_pandas()
    assert list(cells.columns) == ["resource", "slice", "slice_start", "slice_end", "state", "duration", "proportion"]
    # The table lists the values that are not zero.
    assert len(cells) < model.resources * 37 * len(model.states) and (cells.proportion > 0).all()
    states = jacobi.states[jacobi.states.depth == 1]
    edges = np.linspace(model.start, model.end, 38)
    expected = collections.defaultdict(float)
    for s in states.itertuples():
        d = overlap(s.start, s.end, edges[:-1], edges[1:])
        for k in np.nonzero(d)[0]:
            expected[(s.container, k, s.value)] += d[k]
    got = {(r, k, st): d for r, k, st, d in zip(cells.resource.astype(str), cells.slice, cells.state.astype(str),
                                                cells.duration) if d > 0}
    assert got.keys() == {k for k, v in expected.items() if v > 1e-12}
    for key, d in got.items():
        assert d == pytest.approx(expected[key], rel=1e-9, abs=1e-12)
    dt = (model.end - model.start) / 37
    np.testing.assert_allclose(cells.proportion * dt, cells.duration, rtol=1e-12)


def test_innermost_proportions_fill_each_rank(jacobi):
    """With innermost semantics a rank is in exactly one state during its
    whole life (Compute under the MPI calls): per slice, the proportions sum
    to the share of the slice the rank lives."""
    model = jacobi.micro(slices=20)
    cells = model.to_pandas()
    total = cells.groupby(["resource", "slice"], observed=True).proportion.sum()
    life = jacobi.containers.set_index("path")
    edges = np.linspace(model.start, model.end, 21)
    for (resource, k), share in total.items():
        born, dead = life.loc[resource, "start"], life.loc[resource, "end"]
        expected = overlap(born, dead, edges[k], edges[k + 1]) / (edges[1] - edges[0])
        assert share == pytest.approx(expected, rel=1e-9)


@pytest.fixture(scope="module", params=["jacobi", "mardi"])
def model(request):
    trace = request.getfixturevalue(request.param)
    return trace.micro(slices=30)


def test_aggregation_is_a_partition(model):
    cells = model.to_pandas()
    # Every resource is in the Arrow table's dictionary, in the order of the
    # rows, whether or not it has values in the window; the DataFrame's
    # categories are those that have (mardi: 101 of its 202 resources).
    resources = model.to_arrow().column("resource").chunk(0).dictionary.to_pylist()
    all_cells = {(r, k) for r in resources for k in range(model.slices)}
    assert len(all_cells) == model.resources * model.slices
    assert list(cells.resource.cat.categories) == [r for r in resources if r in set(cells.resource)]
    for p in [0.0, 0.2, 0.45, 0.6, 1.0]:
        agg = model.aggregate(p)
        frame = agg.to_pandas()
        assert len(frame) == len(agg)
        assert agg.pic == pytest.approx(p * agg.gain - (1 - p) * agg.loss, abs=1e-12)
        assert frame.gain.sum() == pytest.approx(agg.gain) and frame.loss.sum() == pytest.approx(agg.loss)
        # Every (resource, slice) cell is covered exactly once.
        covered = collections.Counter()
        for row in frame.itertuples():
            rs = [r for r in resources if row.node == "root" or r == row.node or r.startswith(row.node + "/")]
            assert len(rs) == row.leaves
            covered.update((r, k) for r in rs for k in range(row.first_slice, row.last_slice + 1))
        assert set(covered) == all_cells and set(covered.values()) == {1}
        props = frame[[c for c in frame.columns if c.startswith("prop:")]]
        assert list(props.columns) == ["prop:" + s for s in model.states]
        np.testing.assert_allclose(props.max(axis=1), frame.mode_proportion)
        active = frame.mode_proportion > 0
        assert (frame["mode"][active].astype(str) == props[active].idxmax(axis=1).str[5:]).all()
        # An aggregate with no activity has no mode (not the first state).
        assert frame["mode"][~active].isna().all()
    assert len(model.aggregate(1.0)) == 1
    # p = 0 is the microscopic view: every cell apart.
    assert len(model.aggregate(0.0)) == model.resources * model.slices


def test_aggregate_proportions_are_cell_means(jacobi):
    model = jacobi.micro(slices=25)
    cells = model.to_pandas()
    resources = list(cells.resource.cat.categories)
    # The table lists the values that are not zero: the others are 0.
    cube = cells.pivot_table(index=["resource", "slice"], columns="state", values="proportion", observed=True,
                             fill_value=0.0)
    cube = cube.reindex(index=pd.MultiIndex.from_product([resources, range(model.slices)]), columns=model.states,
                        fill_value=0.0)
    frame = model.aggregate(0.4).to_pandas()
    for row in frame.sample(40, random_state=1).itertuples():
        rs = [r for r in resources if row.node == "root" or r == row.node or r.startswith(row.node + "/")]
        assert len(rs) == row.leaves
        block = cube.loc[[(r, k) for r in rs for k in range(row.first_slice, row.last_slice + 1)]]
        for state in model.states:
            assert frame.loc[row.Index, f"prop:{state}"] == pytest.approx(block[state].mean(), abs=1e-12)


def test_significant_p(model):
    levels = model.significant_p()
    assert list(levels.columns) == ["p_low", "p_high", "gain", "loss", "aggregates", "recommended"]
    assert len(levels) >= 2
    assert levels.p_low.iloc[0] == 0 and levels.p_high.iloc[-1] == 1
    np.testing.assert_array_equal(levels.p_low.iloc[1:].to_numpy(), levels.p_high.iloc[:-1].to_numpy())
    # The first level is the microscopic view; where some merges lose
    # nothing it is optimal at p = 0 only.
    assert levels.aggregates.iloc[0] == model.resources * model.slices
    assert (levels.p_high > levels.p_low).iloc[1:].all()
    assert (np.diff(levels.gain) > 0).all() and (np.diff(levels.loss.iloc[1:]) > 0).all()
    assert levels.aggregates.iloc[-1] == 1
    assert levels.recommended.sum() == 1
    # Each level is the optimum inside its range. Partitions that differ
    # only in rounding (merging identical rows one way or another) have the
    # same gain and loss, and are one level.
    for row in levels.sample(min(5, len(levels)), random_state=0).itertuples():
        agg = model.aggregate((row.p_low + row.p_high) / 2)
        assert agg.gain == pytest.approx(row.gain, rel=1e-9) and agg.loss == pytest.approx(row.loss, rel=1e-9, abs=1e-15)


def test_every_partition_with_threshold_zero(jacobi):
    model = jacobi.micro(slices=12)
    full = model.significant_p(threshold=0)
    coarse = model.significant_p(threshold=1e-2)
    assert len(full) >= len(coarse) >= 2
    assert set(zip(coarse.gain.round(12), coarse.loss.round(12))) <= set(zip(full.gain.round(12), full.loss.round(12)))
    dich = model.significant_p(method="dichotomy", threshold=1e-3)
    assert set(zip(dich.gain.round(12), dich.loss.round(12))) <= set(zip(full.gain.round(12), full.loss.round(12)))


def png_size(data):
    data = bytes(data)  # a Figure, or the bytes of a file
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_figure(model, tmp_path):
    agg = model.aggregate(0.5)
    assert png_size(agg.plot(width=800, height=500)) == (800, 500)
    assert png_size(agg._repr_png_()) == (960, 576)
    svg = tmp_path / "overview.svg"
    assert isinstance(agg.plot(svg), ms.Figure) and svg.exists()
    text = svg.read_text()
    assert text.startswith("<?xml") and "<svg" in text
    # The legend names the states drawn, the most visible first: the modes
    # that cover most of the figure are there, states no aggregate shows
    # are not (a mode hidden in a visual aggregate may not be drawn).
    parts = agg.to_pandas()
    parts = parts[parts["mode"].notna()]
    area = ((parts.end - parts.start) * parts.leaves).groupby(parts["mode"].astype(str)).sum()
    for state in area.sort_values(ascending=False).index[:3]:
        assert f">{state}<" in text
    for state in set(model.states) - set(area.index):
        assert f">{state}<" not in text


def test_several_state_types_per_container(mardi):
    """simu-mardi's hosts have a PM and a SERVICE state: a row each, whose
    proportions never add up to more than 1, and busy functions of 0 or 1."""
    model = mardi.micro(slices=30)
    df = model.to_pandas()
    hosts = [c for c in mardi.containers.itertuples() if c.type == "HOST"]
    assert model.resources == 2 * len(hosts) == 202
    assert {r for r in df.resource.unique() if "node32" in r} == {
        "my_cluster_1/node32/node32 [PM]", "my_cluster_1/node32/node32 [SERVICE]"}
    assert df.groupby(["resource", "slice"], observed=True).proportion.sum().max() <= 1 + 1e-12
    states = mardi.states
    window = mardi.end - mardi.start

    def union(frame):
        total, cur = 0.0, None
        for a, b in sorted(zip(frame.start, frame.end)):
            if cur is not None and a <= cur[1]:
                cur[1] = max(cur[1], b)
                continue
            if cur is not None:
                total += cur[1] - cur[0]
            cur = [a, b]
        return total + (cur[1] - cur[0] if cur else 0)

    node32 = states[states.container.astype(str).str.endswith("node32")]
    inner = mardi.moments().to_pandas().set_index("resource")
    assert (inner.m0 <= window + 1e-9).all()
    for typ in ["PM", "SERVICE"]:
        m0 = inner.loc[f"my_cluster_1/node32/node32 [{typ}]", "m0"]
        assert m0 == pytest.approx(union(node32[node32.type.astype(str) == typ]), abs=1e-9)
    joint = mardi.moments(nesting="union").to_pandas().set_index("resource")
    assert len(joint) == len(hosts) and (joint.m0 <= window + 1e-9).all()
    assert joint.loc["my_cluster_1/node32", "m0"] == pytest.approx(union(node32), abs=1e-9)
    # The aggregate of everything adds up every row's busy time.
    agg = model.aggregate(1.0).moments().to_pandas()
    assert len(agg) == 1 and agg.m0.iloc[0] == pytest.approx(inner.m0.sum(), rel=1e-12)
