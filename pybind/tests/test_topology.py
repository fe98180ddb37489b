"""The topology-based view (Schnorr, Legrand and Vincent 2012): the graph of
g5k against pj_dump's output, time integrals against pj_dump's Variable
rows, exact sums of collapsed groups, smooth evolution of positions, the
layout, the figure and the errors."""

import pyarrow as pa
import pytest

import macroscope as ms
from conftest import shared


def dump_rows(*parts):
    """pj_dump's lines split on ", ", names without their quotes."""
    with open(shared("pajeng", "oracles", *parts)) as f:
        return [[field.strip('"') for field in line.rstrip("\n").split(", ")] for line in f]


@pytest.fixture(scope="module")
def g5k():
    return ms.read_paje(shared("pajeng", "traces", "g5k.trace"))


@pytest.fixture(scope="module")
def ms_trace():
    return ms.read_paje(shared("pajeng", "traces", "ms.trace"))


def test_g5k_counts_match_pjdump(g5k):
    rows = dump_rows("027_pj_dump_g5k_trace.out")
    kinds = {}
    pairs = {}
    for r in rows:
        if r[0] == "Container" and r[2] in ("HOST", "LINK", "ROUTER"):
            kinds[r[2]] = kinds.get(r[2], 0) + 1
        elif r[0] == "Link" and r[7] != r[8]:
            key = tuple(sorted((r[7], r[8])))
            pairs[key] = pairs.get(key, 0) + 1
    topo = g5k.topology()
    nodes, edges = topo.nodes, topo.edges
    assert nodes["kind"].value_counts().to_dict() == kinds
    assert not nodes["aggregated"].any() and (nodes["members"] == 1).all()
    assert len(edges) == len(pairs)
    assert edges["count"].sum() == sum(pairs.values())
    name = dict(zip(nodes["path"], nodes["name"]))
    got = {tuple(sorted((name[a], name[b]))): c for a, b, c in zip(edges["from"], edges["to"], edges["count"])}
    assert got == pairs
    # Every edge joins a host or router to a link, or two links.
    assert set(edges["kind"]) <= {"HOST-LINK", "LINK-LINK", "LINK-ROUTER"}


def integrate(rows, variable, a, b):
    out = {}
    for r in rows:
        if r[0] == "Variable" and r[2] == variable:
            lo, hi = max(float(r[3]), a), min(float(r[4]), b)
            if hi > lo:
                out[r[1]] = out.get(r[1], 0.0) + float(r[6]) * (hi - lo)
    return out


def test_integrals_match_pjdump_rows(ms_trace):
    rows = dump_rows("028_pj_dump_ms_trace.out")
    a, b = 0.5, 3.3
    nodes = ms_trace.topology(start=a, end=b).nodes.set_index("name")
    checked = 0
    for kind, cap, used in (("HOST", "power", "power_used"), ("LINK", "bandwidth", "bandwidth_used")):
        want_cap, want_used = integrate(rows, cap, a, b), integrate(rows, used, a, b)
        for name, row in nodes[nodes["kind"] == kind].iterrows():
            assert row["capacity_integral"] == pytest.approx(want_cap.get(name, 0.0), rel=1e-6, abs=1e-6)
            assert row["usage_integral"] == pytest.approx(want_used.get(name, 0.0), rel=1e-6, abs=1e-6)
            assert row["capacity"] == pytest.approx(row["capacity_integral"] / (b - a), rel=1e-12)
            assert row["ratio"] == pytest.approx(row["usage_integral"] / row["capacity_integral"], rel=1e-12)
            checked += 1
    assert checked == len(nodes) == 15
    # Some hosts are busy part of the window only: the fill is fractional.
    ratios = nodes[nodes["kind"] == "HOST"]["ratio"]
    assert ((ratios > 0) & (ratios < 1)).any()


def test_set_window_changes_integrals(ms_trace):
    topo = ms_trace.topology()
    full = topo.nodes.set_index("path")["usage_integral"]
    windowed = topo.set_window(0, 1)
    first = windowed.nodes.set_index("path")["usage_integral"]
    assert windowed.window == (0, 1) and topo.window != (0, 1)
    assert (first <= full + 1e-9).all() and (first < full).any()
    rows = dump_rows("028_pj_dump_ms_trace.out")
    want = integrate(rows, "power_used", 0, 1)
    for name, value in want.items():
        assert first[name] == pytest.approx(value, rel=1e-6)


def test_collapse_sums_members_exactly(g5k):
    topo = g5k.topology()
    full = topo.nodes
    full_edges = topo.edges
    topo = topo.collapse("AS_lyon")
    nodes = topo.nodes
    members = full[full["path"].str.startswith("AS_lyon/")]
    for kind, group in members.groupby("kind", observed=True, sort=False):
        agg = nodes[nodes["path"] == f"AS_lyon [{kind}]"].iloc[0]
        assert agg["aggregated"] and agg["group"] == "AS_lyon"
        assert agg["members"] == len(group)
        caps = [c for c in group["capacity_integral"] if c == c]
        if caps:  # summed in the same order: exactly equal
            assert agg["capacity_integral"] == sum(caps)
    # Other nodes are unchanged; edges go to the aggregates, except those
    # between two members of one kind (self loops), which disappear.
    rest = nodes[~nodes["aggregated"]]
    assert len(rest) == len(full) - len(members)
    inside = full_edges["from"].str.startswith("AS_lyon/") & full_edges["to"].str.startswith("AS_lyon/")
    same_kind = full_edges["kind"].astype(str).isin(["HOST-HOST", "LINK-LINK", "ROUTER-ROUTER"])
    assert topo.edges["count"].sum() == full_edges["count"][~(inside & same_kind)].sum()
    lyon = topo.edges[topo.edges["from"].str.startswith("AS_lyon [") & topo.edges["to"].str.startswith("AS_lyon [")]
    assert set(lyon["kind"]) == {"HOST-LINK", "LINK-ROUTER"}
    assert not (topo.edges["from"] == topo.edges["to"]).any()
    # Expand reverses it.
    topo = topo.expand("AS_lyon")
    again = topo.nodes
    assert list(again["path"]) == list(full["path"])
    assert topo.edges.equals(full_edges)


def test_smooth_evolution(g5k):
    topo = g5k.topology().collapse_depth(2)
    topo.layout(iterations=30)
    before = topo.nodes.set_index("path")
    topo = topo.collapse("AS_lille")
    after = topo.nodes.set_index("path")
    for kind in ("HOST", "LINK", "ROUTER"):
        replaced = before[before.index.str.startswith("AS_lille/") & (before["kind"] == kind)]
        agg = after.loc[f"AS_lille [{kind}]"]
        assert agg["x"] == sum(replaced["x"]) / len(replaced)
        assert agg["y"] == sum(replaced["y"]) / len(replaced)
    topo = topo.expand("AS_lille")
    back = topo.nodes.set_index("path")
    assert back[["x", "y"]].equals(before[["x", "y"]])


def test_layout_positions_and_determinism():
    path = shared("simgrid", "extracted", "s4u-trace-platform.1.trace")
    runs = []
    for _ in range(2):
        topo = ms.read_paje(path).topology()
        pos = topo.layout(seed=5)
        assert list(pos.columns) == ["path", "x", "y"]
        assert pos[["x", "y"]].notna().all().all()
        runs.append(pos)
        stats = topo.layout_stats
        assert stats["converged"] and stats["iterations"] < 500
    assert runs[0].equals(runs[1])
    other = ms.read_paje(path).topology().layout(seed=6)
    assert not other.equals(runs[0])


def test_exact_and_barnes_hut_layouts_agree_in_shape(ms_trace):
    """With theta = 0 the tree gives the exact forces: both runs reach the
    same layout."""
    a = ms_trace.topology().layout(theta=0, seed=2)
    b = ms_trace.topology().layout(exact=True, seed=2)
    assert (a[["x", "y"]] - b[["x", "y"]]).abs().max().max() < 1e-6


def test_tables_and_arrow(ms_trace):
    topo = ms_trace.topology()
    tbl = pa.table(topo)  # __arrow_c_stream__
    assert tbl.num_rows == len(topo) == 15
    assert topo.to_arrow("edges").num_rows == len(topo.edges) == 17
    assert set(topo.nodes["shape"]) == {"square", "diamond"}
    assert topo.kinds == {"HOST": ("power", "power_used"), "LINK": ("bandwidth", "bandwidth_used")}
    with pytest.raises(ms.InvalidArgumentError):
        topo.to_pandas("hosts")


def test_plot(ms_trace, tmp_path):
    topo = ms_trace.topology()
    png = topo.plot(width=400, height=300)
    assert bytes(png)[:8] == b"\x89PNG\r\n\x1a\n"
    assert topo.layout_stats is not None  # laid out on the way
    assert topo._repr_png_()[:4] == b"\x89PNG"
    svg = topo.plot(tmp_path / "t.svg")
    assert (tmp_path / "t.svg").read_text().lstrip().startswith("<?xml")
    assert isinstance(svg, ms.Figure)


def test_communication_graph():
    trace = ms.read_paje(shared("smpi-nas", "dt_A_WH_21.trace"))
    topo = trace.topology()
    assert len(topo) == 21
    links = trace.links
    assert topo.edges["count"].sum() == len(links[links["source"] != links["destination"]])


def test_errors(g5k, ms_trace):
    topo = g5k.topology()
    with pytest.raises(ms.InvalidArgumentError, match='no container "AS_atlantis"') as e:
        topo.collapse("AS_atlantis")
    assert e.value.param == "path"
    with pytest.raises(ms.InvalidArgumentError, match="is a node"):
        topo.collapse("AS_lille/AS_chimint/chimint-1.lille.grid5000.fr")
    with pytest.raises(ms.InvalidArgumentError, match="not collapsed"):
        topo.expand("AS_lille")
    with pytest.raises(ms.InvalidArgumentError, match="not inside the trace"):
        g5k.topology(start=5, end=50)
    with pytest.raises(ms.InvalidArgumentError, match="not inside the trace"):
        topo.set_window(-3, 2)
    with pytest.raises(ms.InvalidArgumentError, match="empty"):
        topo.set_window(4, 4)
    with pytest.raises(ms.InvalidArgumentError, match="no platform types"):
        ms.read_paje(shared("pajeng", "traces", "states.trace")).topology()
    with pytest.raises(ms.InvalidArgumentError, match='no link type "ETHERNET"'):
        g5k.topology(edges=["ETHERNET"])
    with pytest.raises(ms.InvalidArgumentError, match='no node has a variable named "flops"'):
        ms_trace.topology(size="flops")
    with pytest.raises(ms.InvalidArgumentError, match="iterations"):
        topo.layout(iterations=0)
    with pytest.raises(ms.InvalidArgumentError, match="unknown layout parameter"):
        topo.layout(spring=2)


def test_collapse_optimal(g5k):
    topo = g5k.topology()
    whole = topo.collapse_optimal(1.0)
    assert len(whole) == 3 and whole.collapsed == [""]
    topo = topo.collapse_optimal(0.5)
    groups = set(topo.groups["path"])
    assert topo.collapsed and set(topo.collapsed) <= groups
    assert 3 < len(topo) < 4732
    # Every collapsed group is one node per kind it holds.
    nodes = topo.nodes
    assert set(nodes.loc[nodes["aggregated"], "group"]) == set(topo.collapsed)
    with pytest.raises(ms.InvalidArgumentError, match="p"):
        topo.collapse_optimal(2)
