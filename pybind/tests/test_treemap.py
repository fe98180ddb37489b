"""Treemaps of aggregations: the rectangles against the aggregation table
and the microscopic model, Lamarche-Perrin et al.'s scenario, figures and
errors."""

import struct

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import macroscope as ms


@pytest.fixture(scope="module")
def model(jacobi):
    return jacobi.micro(slices=20)


def png_size(data):
    data = bytes(data)  # a Figure, or the bytes of a file
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def under(path, node):
    """Whether resource path lies under node (the root is "root")."""
    return node == "root" or path == node or path.startswith(node + "/")


def check_geometry(df, width, height):
    """Every rectangle has its share of the area, lies in its parent and
    siblings tile their parent."""
    root = df.iloc[0]
    assert root.parent == -1 and root.x == 0 and root.y == 0 and root.w == width and root.h == height
    area = df.w * df.h
    np.testing.assert_allclose(area, df.value / root.value * width * height, rtol=1e-9)
    for i, row in df.iloc[1:].iterrows():
        p = df.iloc[row.parent]
        assert row.node.rsplit("/", 1)[0] == p.node or p.node == "root" and "/" not in row.node
        eps = 1e-12
        assert p.x - eps <= row.x and row.x + row.w <= p.x + p.w + eps
        assert p.y - eps <= row.y and row.y + row.h <= p.y + p.h + eps
    groups = df[df.group]
    sums = area.groupby(df.parent).sum()
    np.testing.assert_allclose(sums.loc[groups.index].to_numpy(), area[groups.index].to_numpy(), rtol=1e-9)


def test_treemap_of_a_spatial_cut(model):
    agg = model.aggregate(0.3, kind="spatial")
    table = agg.to_pandas()
    tm = agg.treemap(width=4, height=3)
    df = tm.to_pandas()
    assert list(df.columns[:14]) == ["node", "name", "depth", "parent", "aggregated", "group", "leaves", "value",
                                     "x", "y", "w", "h", "mode", "mode_proportion"]
    assert [c for c in df.columns if c.startswith("prop:")] == [c for c in table.columns if c.startswith("prop:")]
    # The aggregated rectangles are the aggregates, with their mode and
    # proportions; the others are their ancestors.
    aggs = df[df.aggregated].set_index("node")
    assert set(aggs.index) == set(table.node) and not aggs.group.any()
    t = table.set_index("node").loc[aggs.index]
    assert (aggs["mode"].astype(str) == t["mode"].astype(str)).all()
    np.testing.assert_array_equal(aggs.mode_proportion, t.mode_proportion)
    np.testing.assert_array_equal(aggs.leaves, t.leaves)
    for c in [c for c in df.columns if c.startswith("prop:")]:
        np.testing.assert_array_equal(aggs[c], t[c])
    assert (df.value == df.leaves).all()
    for node in df[~df.aggregated].node:
        assert any(under(a, node) and a != node for a in table.node)
    check_geometry(df, 4, 3)
    assert len(tm) == len(df) and tm.aggregates == len(table) and tm.hidden == 0 and tm.value == "leaves"
    # The Arrow interfaces give the same table.
    assert pa.table(tm).equals(tm.to_arrow())
    assert tm.to_arrow().schema.metadata[b"macroscope.treemap.value"] == b"leaves"


def test_activity_is_the_time_in_states(jacobi, model):
    agg = model.aggregate(0.3, kind="spatial")
    df = agg.treemap(value="activity").to_pandas()
    cells = model.to_pandas()
    resources = cells.resource.astype(str)
    for row in df.itertuples():
        want = cells.duration[[under(r, row.node) for r in resources]].sum()
        assert row.value == pytest.approx(want, rel=1e-9), row.node
    check_geometry(df, 1, 1)
    # From the trace itself: a rank is in some state while its outermost
    # state lasts.
    states = jacobi.states
    outer = states[states.depth == 0].groupby(states.container.astype(str)).duration.sum()
    ranks = df[df.leaves == 1]
    for row in ranks.itertuples():
        rank = outer[[c for c in outer.index if under(c, row.node)]].sum()
        assert row.value == pytest.approx(rank, rel=1e-9), row.node


def test_treemap_of_a_spatiotemporal_aggregation(model):
    agg = model.aggregate(0.5)
    table = agg.to_pandas()
    df = agg.treemap().to_pandas()
    assert set(df[df.aggregated].node) == set(table.node)
    for row in df.itertuples():
        below = [n for n in table.node if under(n, row.node) and n != row.node]
        assert row.group == bool(below), row.node
    check_geometry(df, 1, 1)


def test_subtree_and_padding(model):
    agg = model.aggregate(0.0, kind="spatial")
    df = agg.treemap(root="alpha", padding=0.01, header=0.02).to_pandas()
    assert df.node.iloc[0] == "alpha" and df.node.str.startswith("alpha").all()
    assert df.aggregated.sum() == 16
    # Children fill their group's rectangle minus the padding.
    for i, row in df[df.group].iterrows():
        kids = df[df.parent == i]
        inner = row.w * row.h if i == 0 else (row.w - 0.02) * (row.h - 0.04)
        assert (kids.w * kids.h).sum() == pytest.approx(inner, rel=1e-9)


def test_figures(model, tmp_path):
    agg = model.aggregate(0.3, kind="spatial")
    png = agg.plot_treemap()
    assert png_size(png) == (960, 720)
    assert png_size(agg.plot_treemap(width=500, height=400, proportions=True, value="activity")) == (500, 400)
    agg.plot_treemap(tmp_path / "t.svg", title="jacobi")
    assert open(tmp_path / "t.svg", "rb").read().lstrip().startswith((b"<?xml", b"<svg"))
    tm = agg.treemap()
    assert png_size(tm._repr_png_()) == (960, 720)
    assert isinstance(tm.plot(tmp_path / "t.png", zooms=0), ms.Figure)
    assert png_size((tmp_path / "t.png").read_bytes()) == (960, 720)
    assert "Treemap by leaves" in repr(tm)


def test_errors(model):
    agg = model.aggregate(0.3, kind="spatial")
    for kwargs, param in [({"value": "area"}, "value"), ({"width": 0}, "width"), ({"height": float("nan")}, "height"),
                          ({"padding": -1}, "padding"), ({"root": "nowhere"}, "root"), ({"root": 3}, "root")]:
        with pytest.raises(ms.InvalidArgumentError) as e:
            agg.treemap(**kwargs)
        assert e.value.param == param, kwargs
    for kwargs, param in [({"zooms": -1}, "zooms"), ({"width": -5}, "width"), ({"format": "gif"}, "format"),
                          ({"width": 60, "height": 40}, "size")]:
        with pytest.raises(ms.InvalidArgumentError) as e:
            agg.plot_treemap(**kwargs)
        assert e.value.param == param, kwargs


# Lamarche-Perrin et al.'s large-scale validation (section 5.3): processes grouped by
# machine, cluster, super-cluster and site, two states, heterogeneity
# injected at one place per level, at its full size (1,000,000 processes,
# built as a trace from a table of 2,000,000 intervals) and a small one.
LEVELS = ["site", "sc", "cluster", "machine", "proc"]


def scenario(fanout, noise=0.002, contrast=0.4):
    """The intervals of the scenario: process i spends r seconds in VS0
    then 1 - r in VS1, r = 1/2 +- noise by the parity of the process, and
    +- contrast by the parity of the children of site-0, site-1/sc-0,
    site-2/sc-0/cluster-0 and site-3/sc-0/cluster-0/machine-0."""
    idx = np.indices(fanout).reshape(len(fanout), -1)
    sign = lambda a: np.where(a % 2 == 0, 1.0, -1.0)  # noqa: E731
    r = 0.5 + noise * sign(idx[4])
    site = idx[0]
    for level in range(4):
        on = (site == level) & np.all(idx[1:level + 1] == 0, axis=0)
        r = r + np.where(on, contrast * sign(idx[level + 1]), 0)
    paths = pd.Series(["/".join(f"{n}-{i}" for n, i in zip(LEVELS, col)) for col in idx.T])
    ns = np.round(r * 1e9).astype(np.int64)
    n = len(paths)
    return pd.DataFrame({
        "resource": pd.concat([paths, paths], ignore_index=True),
        "state": ["VS0"] * n + ["VS1"] * n,
        "start": np.concatenate([np.zeros(n, np.int64), ns]),
        "end": np.concatenate([ns, np.full(n, 1_000_000_000, np.int64)]),
    })


def detailed(fanout):
    """The cut that details exactly the heterogeneity: every group on the
    way to a heterogeneous group is split, a heterogeneous group into its
    children, everything else aggregated."""
    out = []

    def walk(path, idx):
        depth = len(idx)
        site = idx[0]
        if not (site <= 3 and depth - 1 <= site and all(i == 0 for i in idx[1:])):
            out.append(path)
            return
        for i in range(fanout[depth]):
            walk(f"{path}/{LEVELS[depth]}-{i}", idx + [i])

    for i in range(fanout[0]):
        walk(f"site-{i}", [i])
    return out


@pytest.fixture(scope="module", params=["small", "million"])
def scenario_cut(request):
    fanout = {"small": (4, 2, 2, 2, 2), "million": (10, 10, 10, 10, 100)}[request.param]
    trace = ms.from_pandas(scenario(fanout), time_unit="ns", levels=LEVELS)
    model = trace.micro(slices=1)
    want = sorted(detailed(fanout))
    levels = model.significant_p(kind="spatial", threshold=0)
    for lv in levels[levels.aggregates == len(want)].itertuples():
        agg = model.aggregate((lv.p_low + lv.p_high) / 2, kind="spatial")
        if sorted(agg.to_pandas().node) == want:
            return fanout, agg
    pytest.fail(f"no optimal cut details the heterogeneity of {np.prod(fanout)} processes")


def test_the_scenario_treemap_details_the_heterogeneity(scenario_cut):
    fanout, agg = scenario_cut
    total = int(np.prod(fanout))
    tm = agg.treemap()
    df = tm.to_pandas()
    assert sorted(df[df.aggregated].node) == sorted(detailed(fanout)) and tm.hidden == 0
    check_geometry(df, 1, 1)
    # The heterogeneous machine's processes, each with its own area and
    # its own, strongly dominant state, alternating.
    procs = df[df.node.str.startswith("site-3/sc-0/cluster-0/machine-0/")].sort_values("name")
    assert len(procs) == fanout[4] and procs.aggregated.all()
    np.testing.assert_allclose(procs.w * procs.h, 1 / total, rtol=1e-9)
    assert (procs.mode_proportion > 0.89).all()
    assert set(procs["mode"].astype(str)) == {"VS0", "VS1"}
    # Homogeneous sites are single aggregates, near 50/50.
    homogeneous = df[df.depth == 1].set_index("node").loc[[f"site-{i}" for i in range(4, fanout[0])]]
    assert homogeneous.aggregated.all() and (homogeneous.mode_proportion < 0.51).all()
    png = agg.plot_treemap(title=f"{total} processes")
    assert png_size(png) == (960, 720)
