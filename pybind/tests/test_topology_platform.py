"""The topology-based view on testdata/jacobi32-platform.trace, SimGrid's
platform and resource-utilization trace of the bundled Jacobi program
(testdata/gen): two zones of 16 hosts, their links and routers, hosts'
speed_used and links' bandwidth_used over time. Checked against closed
forms (the flops each rank executes, from jacobi.c), an independent
integration of the trace's Variable rows, and the program's checkpoint
iterations 20-29, which load the inter-zone link."""

import os

import pytest

import macroscope as ms

TRACE = os.path.join(os.path.dirname(__file__), "..", "..", "testdata", "jacobi32-platform.trace")
ITERATIONS = 60


@pytest.fixture(scope="module")
def trace():
    return ms.read_paje(TRACE)


def integrate(variables, variable, a, b):
    """Time integral of each container's variable over [a, b], from the rows."""
    out = {}
    rows = variables[variables["type"] == variable]
    for c, s, e, v in zip(rows["container"], rows["start"], rows["end"], rows["value"]):
        lo, hi = max(s, a), min(e, b)
        if hi > lo:
            out[c] = out.get(c, 0.0) + v * (hi - lo)
    return out


def bursts(trace, host):
    """The host's computation intervals: maximal runs of speed_used > 0."""
    v = trace.variables
    rows = v[(v["container"] == host) & (v["type"] == "speed_used") & (v["value"] > 0)].sort_values("start")
    out = []
    for s, e in zip(rows["start"], rows["end"]):
        if out and s == out[-1][1]:
            out[-1][1] = e
        else:
            out.append([s, e])
    return out


def test_hierarchy(trace):
    topo = trace.topology()
    nodes = topo.nodes
    assert nodes["kind"].value_counts().to_dict() == {"HOST": 32, "LINK": 35, "ROUTER": 2}
    for zone in ("alpha", "beta"):
        inside = nodes[nodes["path"].str.startswith(zone + "/")]
        assert sorted(inside["name"]) == sorted(
            [f"{zone}-{i}" for i in range(16)] + [f"{zone}-{i}-nic" for i in range(16)]
            + [f"{zone}-switch", f"{zone}-gw"])
    # The interconnect is the one resource outside the zones.
    assert nodes[~nodes["path"].str.contains("/")]["name"].tolist() == ["interconnect"]
    edges = topo.edges
    name = dict(zip(nodes["path"], nodes["name"]))
    pairs = {tuple(sorted((name[a], name[b]))) for a, b in zip(edges["from"], edges["to"])}
    # Each host hangs on its NIC, each NIC on its switch, switches on the interconnect.
    for zone in ("alpha", "beta"):
        for i in range(16):
            assert tuple(sorted((f"{zone}-{i}", f"{zone}-{i}-nic"))) in pairs
            assert tuple(sorted((f"{zone}-{i}-nic", f"{zone}-switch"))) in pairs
        assert tuple(sorted((f"{zone}-switch", "interconnect"))) in pairs
    assert set(edges["kind"]) <= {"HOST-LINK", "LINK-LINK", "LINK-ROUTER"}


def test_host_work_is_the_programs_flops(trace):
    # Rank r runs on the r-th host of the hostfile and executes
    # 1e8 + 1e6 (r mod 4) flops per iteration (jacobi.c); hosts run at 1 Gflop/s.
    nodes = trace.topology().nodes.set_index("name")
    hosts = [f"alpha-{i}" for i in range(16)] + [f"beta-{i}" for i in range(16)]
    for rank, host in enumerate(hosts):
        assert nodes.loc[host, "usage_integral"] == pytest.approx(ITERATIONS * (1e8 + 1e6 * (rank % 4)), rel=1e-6)
        assert nodes.loc[host, "capacity_integral"] == pytest.approx(
            (0.85e9 if host == "beta-5" else 1e9) * trace.end, rel=1e-9)
    assert len(bursts(trace, "alpha/alpha-0")) == ITERATIONS


@pytest.mark.parametrize("window", [None, "checkpoint"])
def test_integrals_match_variable_rows(trace, window):
    if window is None:
        a, b = 0.0, trace.end
    else:
        it = bursts(trace, "alpha/alpha-0")
        a, b = it[20][0], it[30][0]
    nodes = trace.topology(start=a, end=b).nodes.set_index("path")
    checked = 0
    for kind, cap, used in (("HOST", "speed", "speed_used"), ("LINK", "bandwidth", "bandwidth_used")):
        want_cap, want_used = integrate(trace.variables, cap, a, b), integrate(trace.variables, used, a, b)
        for path, row in nodes[nodes["kind"] == kind].iterrows():
            assert row["capacity_integral"] == pytest.approx(want_cap[path], rel=1e-9)
            assert row["usage_integral"] == pytest.approx(want_used.get(path, 0.0), rel=1e-9, abs=1e-9)
            assert row["ratio"] == pytest.approx(row["usage_integral"] / row["capacity_integral"], rel=1e-12)
            checked += 1
    assert checked == 32 + 35


def test_checkpoint_loads_the_interconnect(trace):
    # Windows of ten iterations, cut at rank 0's computation starts; ranks
    # 24-31 send their checkpoint to ranks 0-7 in iterations 20-29 only.
    it = bursts(trace, "alpha/alpha-0") + [[trace.end, trace.end]]
    ratios, usage = [], []
    for k in range(0, ITERATIONS, 10):
        nodes = trace.topology(start=it[k][0], end=it[k + 10][0]).nodes.set_index("name")
        ratios.append(nodes.loc["interconnect", "ratio"])
        usage.append(nodes.loc["interconnect", "usage_integral"])
    assert all(r > 0 for r in ratios)  # halos 15-16 and 31-0 cross the zones every iteration
    assert max(range(len(ratios)), key=ratios.__getitem__) == 2
    # Iterations 10-19 and 30-59 are the same steady state; 0-9 include start-up.
    steady = [usage[k] for k in (1, 3, 4, 5)]
    assert max(steady) == pytest.approx(min(steady), rel=1e-4)
    assert usage[2] > 3 * max(steady) and ratios[2] > 2 * max(ratios[k] for k in (1, 3, 4, 5))
    assert ratios[2] > 1.5 * ratios[0]
    # The checkpoint window itself: the interconnect's usage there is the
    # bulk of what it carries outside the halo traffic of other windows.
    topo = trace.topology(start=it[20][0], end=it[30][0])
    n = topo.nodes.set_index("name")
    assert n.loc["interconnect", "usage_integral"] > 0
    full = topo.nodes.set_index("path")
    collapsed = topo.collapse("alpha").nodes.set_index("path")
    assert collapsed.loc["alpha [HOST]", "members"] == 16 and collapsed.loc["alpha [LINK]", "members"] == 17
    for kind in ("HOST", "LINK"):
        members = full[full.index.str.startswith("alpha/") & (full["kind"] == kind)]
        assert collapsed.loc[f"alpha [{kind}]", "usage_integral"] == pytest.approx(
            members["usage_integral"].sum(), rel=1e-12)


def snapshot(topo):
    """What a Topology shows: its nodes and edges (positions included),
    window and collapsed groups."""
    return topo.nodes, topo.edges, topo.window, topo.collapsed


def assert_same(a, b):
    import pandas.testing as pdt

    pdt.assert_frame_equal(a[0], b[0])
    pdt.assert_frame_equal(a[1], b[1])
    assert a[2:] == b[2:]


@pytest.mark.parametrize("change", [
    lambda t: t.collapse("alpha"),
    lambda t: t.collapse(["alpha", "beta"]),
    lambda t: t.expand("beta"),
    lambda t: t.collapse_depth(1),
    lambda t: t.collapse_optimal(0.0),  # nothing worth collapsing at p = 0: beta expanded
    lambda t: t.expand_all(),
    lambda t: t.set_window(1.0, 2.0),
], ids=["collapse", "collapse-list", "expand", "collapse_depth", "collapse_optimal", "expand_all", "set_window"])
def test_changes_return_a_new_topology(trace, change):
    """Each change returns a new Topology and leaves the one it was called
    on as it was (nodes, positions, edges, window, groups), as polars'
    methods do; the new one starts from the old one's positions, and a
    failing change leaves it as it was too."""
    topo = trace.topology().collapse("beta")
    topo.layout(iterations=10)
    before = snapshot(topo)
    new = change(topo)
    assert isinstance(new, ms.Topology) and new is not topo
    assert_same(snapshot(topo), before)
    after = snapshot(new)
    assert not (after[0].equals(before[0]) and after[2:] == before[2:])
    # Nodes shown in both keep their positions (none moved: no layout ran).
    both = before[0][["path", "x", "y"]].merge(after[0][["path", "x", "y"]], on="path", suffixes=("", "_new"))
    assert len(both) and (both.x == both.x_new).all() and (both.y == both.y_new).all()
    # Changing the new one (a layout) leaves the old one too.
    new.layout(iterations=5)
    assert_same(snapshot(topo), before)
    with pytest.raises(ms.InvalidArgumentError):
        topo.expand("alpha")  # not collapsed
    assert_same(snapshot(topo), before)
