"""The treemap, topology and kaleidoscope explorers, Python side: after each
action (zoom, p, expand, collapse, window, view, subtree) the table the
browser receives equals what the non-widget API gives for the same state.
The browser side is tested in test_widgets_views_browser.py."""

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

pytest.importorskip("anywidget")

import macroscope as ms  # noqa: E402
from macroscope.widgets import _colours, _wire  # noqa: E402
from macroscope.widgets._base import model_colours  # noqa: E402

from conftest import REPO  # noqa: E402


def received(data: bytes) -> pd.DataFrame:
    """The table as the browser decodes it."""
    return pa.ipc.open_stream(data).read_all().to_pandas()


def same(got: pd.DataFrame, want: pa.Table):
    """got (what the browser received) holds want's rows and values, 64-bit
    integers as float64, the rectangles' places and the states' shares as
    float32 (each the float32 nearest want's value)."""
    want = _wire.browser_table(want).to_pandas()
    assert list(got.columns) == list(want.columns)
    narrow = ["x", "y", "w", "h", "mode_proportion"] + [c for c in want.columns if c.startswith("prop:")]
    assert all(got[c].dtype == np.float32 for c in narrow)
    want = want.astype({c: np.float32 for c in narrow})
    pd.testing.assert_frame_equal(got.reset_index(drop=True), want.reset_index(drop=True), check_exact=True)


# -- treemap -----------------------------------------------------------------


@pytest.fixture(scope="module")
def model(jacobi):
    return jacobi.micro(slices=20)


@pytest.fixture(scope="module")
def spatial_levels(model):
    return model.significant_p(kind="spatial", threshold=0)


def test_treemap_levels_are_the_models(model, spatial_levels):
    p = model.recommended_p(kind="spatial", threshold=0)
    agg = model.aggregate(p, kind="spatial")
    w = agg.explore_treemap()
    assert [(lv["p_low"], lv["p_high"], lv["aggregates"], lv["recommended"]) for lv in w.levels] == list(
        zip(spatial_levels.p_low, spatial_levels.p_high, spatial_levels.aggregates, spatial_levels.recommended))
    # It opens on the aggregation given, at its p, on the whole hierarchy.
    assert w.levels[w.level]["p_low"] <= p <= w.levels[w.level]["p_high"] and w.p == p
    assert w.levels[w.level]["recommended"]
    assert w.root == ""
    same(received(w.table), agg.treemap().to_arrow())
    assert w.states == model.states
    assert w.palette == model_colours(model)  # the treemap figure's


def test_treemap_zoom_and_p(model, spatial_levels):
    w = model.aggregate(0.0, kind="spatial").explore_treemap()
    assert w.level == 0
    top = received(w.table)
    # At p = 0 every rank is apart: one rectangle per rank under the groups.
    assert top.aggregated.sum() == 32 == model.resources
    groups = top[top.group & (top.parent == 0)].node.tolist()
    assert groups, "the hierarchy has groups under the root"
    g = groups[0]
    w._on_msg(w, {"type": "zoom", "path": g}, [])  # what a click on the group sends
    assert w.root == g
    same(received(w.table), model.aggregate(0.0, kind="spatial").treemap(root=g).to_arrow())
    zoomed = received(w.table)
    assert zoomed.node.iloc[0] == g and zoomed.aggregated.sum() == top[top.node.str.startswith(g + "/")
                                                                       & top.aggregated].shape[0]
    # Another level keeps the zoom where the level still divides the group.
    k = next(i for i, n in enumerate(spatial_levels.aggregates) if 1 < n < 32)
    w.level = k
    p = float((spatial_levels.p_low[k] + spatial_levels.p_high[k]) / 2)
    assert w.p == p
    agg = model.aggregate(p, kind="spatial")
    whole = agg.treemap().to_pandas()
    if whole[(whole.node == g)].group.any():
        assert w.root == g
        same(received(w.table), agg.treemap(root=g).to_arrow())
    else:  # g is an aggregate (or inside one) at this level: zoomed out
        assert w.root != g and g.startswith(w.root)
    before = w.root
    w._on_msg(w, {"type": "up"}, [])  # the "up" button
    assert w.root == (before.rsplit("/", 1)[0] if "/" in before else "")
    w.root = ""
    same(received(w.table), agg.treemap().to_arrow())


def test_treemap_coarsest_level_falls_back_to_the_root(model, spatial_levels):
    w = model.aggregate(0.0, kind="spatial").explore_treemap()
    g = received(w.table).query("group and parent == 0").node.iloc[0]
    w.zoom(g)
    w.level = len(spatial_levels) - 1  # one aggregate: nothing left to zoom into
    assert w.root == ""
    t = received(w.table)
    assert t.aggregated.sum() == spatial_levels.aggregates.iloc[-1] == 1


def test_treemap_value_activity(model):
    agg = model.aggregate(0.0, kind="spatial")
    w = agg.explore_treemap(value="activity")
    same(received(w.table), agg.treemap("activity").to_arrow())
    with pytest.raises(ms.InvalidArgumentError):
        agg.explore_treemap(value="area")


# -- topology ----------------------------------------------------------------


@pytest.fixture(scope="module")
def platform():
    return ms.read_paje(REPO / "testdata" / "jacobi32-platform.trace")


_NODE_FACTS = ["path", "name", "kind", "group", "aggregated", "members", "capacity", "usage", "ratio", "size",
               "shape"]


def facts(df):
    """The node columns that do not depend on the layout's history (members
    as int64: the browser receives float64)."""
    return df[_NODE_FACTS].astype({"members": "int64"}).sort_values("path").reset_index(drop=True)


def check_edges(w):
    nodes, edges = received(w.nodes), received(w.edges)
    assert (nodes.path.to_numpy()[edges.source] == edges["from"].to_numpy()).all()
    assert (nodes.path.to_numpy()[edges.target] == edges["to"].to_numpy()).all()
    return nodes, edges


def test_topology_expand_collapse(platform):
    topo = platform.topology()
    w = topo.explore(iterations=50)
    nodes, edges = check_edges(w)
    full = platform.topology().nodes
    pd.testing.assert_frame_equal(facts(nodes), facts(full))
    assert np.isfinite(nodes.x).all() and np.isfinite(nodes.y).all()  # laid out before sending
    assert w.span == [platform.start, platform.end]
    v0 = w.version

    w._on_msg(w, {"type": "collapse", "path": "alpha"}, [])  # a click on a resource of alpha
    nodes, edges = check_edges(w)
    want = platform.topology().collapse("alpha")
    pd.testing.assert_frame_equal(facts(nodes), facts(want.nodes))
    assert sorted(zip(edges["from"], edges["to"], edges["count"])) == sorted(
        zip(want.edges["from"], want.edges["to"], want.edges["count"]))
    assert w.collapsed == ["alpha"] and w.version == v0 + 1
    # The explorer shows a new Topology; the one given is not collapsed.
    assert w.topology is not topo and w.topology.collapsed == ["alpha"] and topo.collapsed == []
    alpha = nodes[nodes.aggregated]
    assert set(alpha.path) == {f"alpha [{k}]" for k in alpha.kind} and (alpha.group == "alpha").all()
    assert alpha.members.sum() == full.path.str.startswith("alpha/").sum()

    w._on_msg(w, {"type": "expand", "path": "alpha"}, [])  # a click on one of alpha's aggregates
    nodes, _ = check_edges(w)
    pd.testing.assert_frame_equal(facts(nodes), facts(full))
    assert w.collapsed == []

    w.expand("alpha")  # not collapsed: an error shown, nothing changed
    assert "not collapsed" in w.error
    assert w.version == v0 + 2


def test_topology_window(platform):
    topo = platform.topology()
    w = topo.explore(iterations=50)
    before = received(w.nodes)
    v = w.version
    a, b = platform.start + 0.25 * (platform.end - platform.start), platform.start + 0.5 * (platform.end - platform.start)
    w._on_msg(w, {"type": "window", "start": a, "end": b}, [])
    after = received(w.nodes)
    want = platform.topology(start=a, end=b).nodes
    pd.testing.assert_frame_equal(facts(after), facts(want))
    assert w.window == [a, b] and w.version == v  # same graph: the positions stay
    assert (after.x.to_numpy() == before.x.to_numpy()).all()
    # The interconnect is busier in some windows than others: the fills change.
    assert not np.allclose(after.ratio.fillna(0), before.ratio.fillna(0))


# -- kaleidoscope ------------------------------------------------------------


@pytest.fixture(scope="module")
def tree(jacobi):
    return jacobi.call_tree()


def test_kaleidoscope_table_and_colours(tree):
    kal = tree.layout(width=600)
    w = kal.explore()
    got = received(w.table)
    want = kal.to_pandas()
    assert w.views == tree.views == ["pe", "procedure", "time"] and w.view == "pe"
    assert got.id.tolist() == want.id.astype(str).tolist()
    # Places as float32, the sectors (which the page does not read) left out.
    assert got.x.dtype == got.y.dtype == np.float32 and "sector_start" not in got and "sector_extent" not in got
    np.testing.assert_array_equal(got.x, want.x.astype(np.float32))
    np.testing.assert_array_equal(got.y, want.y.astype(np.float32))
    assert got.procedure.tolist() == want.procedure.tolist() and got.pe.tolist() == want.pe.tolist()
    # row_parent points at shown_parent's row.
    ids = want.id.astype(str).tolist()
    parents = [ids[r] if r >= 0 else None for r in got.row_parent]
    assert parents == [None if pd.isna(s) else str(s) for s in want.shown_parent]
    # Time: the spectrum from the first start (blue) to the last (magenta).
    t0, t1 = want.start.min(), want.start.max()
    first, last = want.start.idxmin(), want.start.idxmax()
    # plots.Spectrum: hue 240 - 300 f, saturation 0.9, value 0.95, by hand.
    blue, magenta = _colours.spectrum(0), _colours.spectrum(1)
    assert (blue, _colours.spectrum(0.5), magenta) == ((24, 24, 242), (133, 242, 24), (242, 24, 242))
    assert (got.rgb_time[first], got.rgb_time[last]) == (_colours.packed(blue), _colours.packed(magenta))
    f = (want.start - t0) / (t1 - t0)
    assert got.rgb_time.tolist() == [_colours.packed(_colours.spectrum(x)) for x in f]
    # Procedures: ranked by their number of nodes, the commonest first,
    # each in the figure's colour (the trace's where it gives one: see
    # test_kaleido.py's colour tests).
    counts = tree.to_pandas().procedure.value_counts()
    top = counts.index[0]
    legend = kal.legend("procedure")
    assert legend["labels"][0] == top
    for name, colour in zip(legend["labels"], legend["colours"]):
        assert set(got.rgb_procedure[want.procedure == name]) <= {int(colour.lstrip("#"), 16)}
    assert w.legend["procedure"]["labels"][0] == top
    # PEs: one colour each.
    per_pe = got.groupby("pe").rgb_pe.nunique()
    assert (per_pe == 1).all() and got.groupby("pe").rgb_pe.first().nunique() == len(per_pe)


def test_kaleidoscope_short_names_and_weights():
    """The page names nodes as the static figure's legend does (the Go
    core's plots.KaleidoscopeLabel, sent as the legend's "short": whole up
    to 34 characters, else the first 16, "..." and the last 15) and ranks
    them by weight, sent as float32."""
    long = "void at::native::elementwise_kernel<128, 4>(int)"
    tree = ms.CallTree.from_pandas(pd.DataFrame({
        "id": [0, 1, 2, 3], "parent": [None, 0, 0, 1],
        "procedure": ["main", long, "MPI_Send", long], "pe": ["p0", "p0", "p1", "p0"], "start": [0.0, 1, 2, 3]}))
    kal = tree.layout(width=300)
    w = kal.explore(view="procedure")
    short = dict(zip(w.legend["procedure"]["labels"], w.legend["procedure"]["short"]))
    assert short == {long: "void at::native:...el<128, 4>(int)", "main": "main", "MPI_Send": "MPI_Send"}
    assert kal.legend("procedure")["short"] == [short[name] for name in kal.legend("procedure")["labels"]]
    assert w.legend["pe"]["short"] == w.legend["pe"]["labels"] == ["p0", "p1"]
    got = received(w.table)
    assert got.weight.dtype == np.float32
    assert got.weight.tolist() == kal.to_pandas().weight.astype(float).tolist()


def test_kaleidoscope_views_and_subtree(tree):
    kal = tree.layout(width=600)
    w = kal.explore(view="time")
    assert w.view == "time"
    with pytest.raises(ms.InvalidArgumentError):
        kal.explore(view="colour")
    df = kal.to_pandas()
    node = df[(df.level == 1)].id.iloc[3]  # a rank's outermost state
    w._on_msg(w, {"type": "centre", "id": str(node)}, [])  # a double-click on it
    sub = tree.layout(width=600, subtree=node).to_pandas()
    got = received(w.table)
    assert got.id.tolist() == sub.id.astype(str).tolist()
    np.testing.assert_array_equal(got.x, sub.x.astype(np.float32))
    assert got.id.iloc[0] == str(node)
    w.centre(None)
    assert received(w.table).id.tolist() == df.id.astype(str).tolist()
