"""Kaleidoscope views of call and spawn trees (Tick and Park 1991): trees from traces
and tables, the layout against a plain reimplementation of the paper's
rules, hand-computed values, errors, and the figure's pixels."""

import math
import re
import struct
import time
import zlib

import numpy as np
import pandas as pd
import pytest

import macroscope as ms
from conftest import shared

# ------------------------------------------------------------ reference


def reference_layout(ids, parents, width, d, min_sector=1.0, subtree=None):
    """The kaleidoscope layout rules, written plainly: ids in sibling
    order, parents[i] the parent id (None for the root). Returns a dict
    id -> (kept, level, shown_parent, weight, start, extent, x, y, drawn,
    collapsed)."""
    children = {i: [] for i in ids}
    root = None
    for i, p in zip(ids, parents):
        if p is None:
            root = i
        else:
            children[p].append(i)
    centre = root if subtree is None else subtree
    depth, order, stack = {centre: 0}, [], [centre]
    while stack:  # preorder
        n = stack.pop()
        order.append(n)
        for c in reversed(children[n]):
            depth[c] = depth[n] + 1
            stack.append(c)
    h = max(depth.values()) + 1
    hmax = math.floor(width / (2 * d))

    def kept_level(level):
        if subtree is not None or h <= hmax:
            return True
        c0 = h // hmax
        t = c0 * hmax - c0 * (h - c0 * hmax)
        return level % (c0 if level <= t else c0 + 1) == 0

    shown, shown_parent = [], {}
    for n in order:
        if kept_level(depth[n]):
            shown.append(n)
    kept = set(shown)
    parent_of = dict(zip(ids, parents))
    for n in order:
        if n == centre:
            shown_parent[n] = None
            continue
        p = parent_of[n]
        while p not in kept:
            p = parent_of[p]
        shown_parent[n] = p
    level = {}
    for n in order:  # preorder: parents first
        if n in kept:
            level[n] = 0 if n == centre else level[shown_parent[n]] + 1
    levels = max(level.values()) + 1
    kids = {n: [] for n in shown}
    for n in shown:
        if n != centre:
            kids[shown_parent[n]].append(n)
    weight = {}
    for n in reversed(shown):
        weight[n] = levels - level[n] + sum(weight[c] for c in kids[n])
    sector = {centre: (0.0, 360.0)}
    for n in shown:
        s, a = sector[n]
        total = sum(weight[c] for c in kids[n])
        for c in kids[n]:
            sector[c] = (s, weight[c] / total * a)
            s += sector[c][1]
    out = {}
    drawn = {}
    collapsed = {}
    for n in order:
        if n not in kept:
            out[n] = (False, None, shown_parent[n], None, math.nan, math.nan, math.nan, math.nan, False, False)
            continue
        s, a = sector[n]
        r = d * level[n]
        x, y = (r * math.cos(math.radians(s + a / 2)), r * math.sin(math.radians(s + a / 2))) if r else (0.0, 0.0)
        p = shown_parent[n]
        drawn[n] = n == centre or (drawn[p] and not collapsed[p])
        collapsed[n] = drawn[n] and level[n] > 0 and bool(kids[n]) and math.radians(a) * r < min_sector
        out[n] = (True, level[n], p, weight[n], s, a, x, y, drawn[n], collapsed[n])
    return out


def compare(kal, ref):
    """Check every column of the layout against the reference's values."""
    df = kal.to_pandas().set_index("id")
    cols = ["kept", "level", "shown_parent", "weight", "sector_start", "sector_extent", "x", "y", "drawn", "collapsed"]
    want = pd.DataFrame.from_dict(ref, orient="index", columns=cols).reindex(df.index)
    assert len(df) == len(ref) and want.notna().any(axis=1).all()
    for c in ("kept", "drawn", "collapsed"):
        assert (df[c].to_numpy() == want[c].astype(bool).to_numpy()).all(), c
    for c in ("level", "weight"):
        got, exp = df[c].astype("Float64").to_numpy(na_value=np.nan), want[c].astype(float).to_numpy()
        assert np.array_equal(got, exp, equal_nan=True), c
    nulls = lambda col: [None if pd.isna(v) else v for v in col]  # noqa: E731
    assert nulls(df.shown_parent) == nulls(want.shown_parent)
    for c in ("sector_start", "sector_extent", "x", "y"):
        assert np.allclose(df[c].to_numpy(), want[c].astype(float).to_numpy(), rtol=1e-9, atol=1e-9, equal_nan=True), c


def random_frame(n, reach, seed):
    """A random tree of n nodes, node i under one of the reach before it,
    rows shuffled, with PEs, procedures and start times."""
    rng = np.random.default_rng(seed)
    i = np.arange(n)
    lo = np.maximum(0, i - reach)
    parent = (lo + rng.random(n) * (i - lo)).astype(np.int64)
    df = pd.DataFrame({"id": i, "parent": pd.array(parent, dtype="Int64"),
                       "procedure": rng.choice(["split", "merge", "leaf"], n),
                       "pe": rng.integers(0, 5, n), "start": i * 1e-3})
    df.loc[0, "parent"] = pd.NA
    return df.sample(frac=1, random_state=seed).reset_index(drop=True)


# ------------------------------------------------------------ exact values

QUICK_SORT = [  # the weights of the paper's Figure 11 (Quick Sort)
    ("R", None), ("A", "R"), ("B", "A"), ("B1", "B"), ("B2", "B1"), ("B3", "B2"), ("B4", "B3"),
    ("D", "A"), ("X", "D"), ("Y", "X"), ("Z", "Y"), ("z1", "Z"), ("z2", "Z"), ("z3", "Z"),
    ("E", "A"), ("J", "E"), ("K", "J"), ("L", "K"), ("F", "E"), ("f1", "F"), ("f2", "F"), ("f3", "F"),
    ("G", "F"), ("H1", "G"), ("h1", "H1"), ("h2", "H1"), ("h3", "H1"), ("H2", "G"), ("h4", "H2"),
    ("h5", "H2"), ("h6", "H2"),
]


def test_paper_quick_sort_weights_and_sectors():
    df = pd.DataFrame(QUICK_SORT, columns=["id", "parent"])
    tree = ms.CallTree.from_pandas(df)
    assert len(tree) == 31 and tree.height == 7 and tree.root == "R" and tree.views == []
    kal = tree.layout(width=200, level_spacing=10)
    assert not kal.condensed and kal.levels == 7 and kal.h_max == 10
    out = kal.to_pandas().set_index("id")
    # The paper: A weighs 78 = 72 + 6; D gets s = 0 + 75, a = 17/72 x 360
    # = 85; J gets s = 160 + 0, a = 9/35 x 200 = 51.4.
    assert out.weight[["R", "A", "B", "D", "E", "J", "F"]].tolist() == [85, 78, 15, 17, 40, 9, 26]
    assert out.loc["D", ["sector_start", "sector_extent"]].tolist() == pytest.approx([75, 85])
    assert out.loc["E", ["sector_start", "sector_extent"]].tolist() == pytest.approx([160, 200])
    assert out.loc["J", ["sector_start", "sector_extent"]].tolist() == pytest.approx([160, 9 / 35 * 200])
    # Radius 10 x level at angle s + a/2.
    assert out.loc["D", ["x", "y"]].tolist() == pytest.approx(
        [20 * math.cos(math.radians(117.5)), 20 * math.sin(math.radians(117.5))])
    assert np.allclose(np.hypot(out.x, out.y), 10 * out.level.astype(float))
    compare(kal, reference_layout([r[0] for r in QUICK_SORT], [r[1] for r in QUICK_SORT], 200, 10))


@pytest.mark.parametrize("h, width, d, c0, threshold, levels", [
    (10, 100, 5, 0, 0, 10),      # fits: not condensed
    (12, 100, 5, 1, 8, 10),      # c0 = 1: levels 9 and 11 go
    (174, 850, 4, 1, 38, 106),   # the paper's Semigroup run
    (25, 100, 5, 2, 10, 11),     # c0 = 2 up to level 10, 3 beyond
    (3, 10, 5, 3, 3, 1),         # one level fits
])
def test_level_condensing(h, width, d, c0, threshold, levels):
    df = pd.DataFrame({"id": range(h), "parent": [None] + list(range(h - 1))})
    kal = ms.CallTree.from_pandas(df).layout(width=width, level_spacing=d)
    assert (kal.height, kal.h_max, kal.c0, kal.threshold, kal.levels) == (h, width // (2 * d), c0, threshold, levels)
    assert kal.condensed == (c0 > 0)
    compare(kal, reference_layout(list(range(h)), [None] + list(range(h - 1)), width, d))
    out = kal.to_pandas()
    if h == 174:  # level 39 goes, 40 hangs from 38 at displayed level 39
        assert not out.kept[39] and out.shown_parent[40] == 38 and out.level[40] == 39
        assert out.level.dtype == "Int32" and out.parent.dtype == "Int64"


@pytest.mark.parametrize("reach, d", [(3, 4), (40, 4), (10_000, 3), (5, 1.5)])
def test_random_trees_match_the_reference(reach, d):
    df = random_frame(3000, reach, seed=reach)
    tree = ms.CallTree.from_pandas(df, order="rows")
    ordered = df  # siblings in row order
    kal = tree.layout(width=700, level_spacing=d)
    ids = ordered.id.tolist()
    parents = [None if pd.isna(p) else int(p) for p in ordered.parent]
    compare(kal, reference_layout(ids, parents, 700, d))
    # Subtree views are not condensed.
    sub = int(df.id[df.parent == 0].iloc[0])
    kal = tree.layout(width=700, level_spacing=d, subtree=sub)
    assert not kal.condensed and kal.root == sub
    compare(kal, reference_layout(ids, parents, 700, d, subtree=sub))


def test_invariants_and_sibling_order():
    df = random_frame(20_000, 50, seed=1)
    kal = ms.CallTree.from_pandas(df).layout(width=900, level_spacing=4)
    out = kal.to_pandas()
    k = out[out.kept]
    # Radius d x level; the leaves of the displayed tree share 360 degrees.
    assert np.allclose(np.hypot(k.x, k.y), 4 * k.level.astype(float), atol=1e-9)
    leaves = ~k.id.isin(k.shown_parent.dropna())
    assert k.sector_extent[leaves].sum() == pytest.approx(360)
    # Siblings in start order: the table is in preorder.
    assert out[out.parent.notna()].groupby("parent").start.apply(lambda s: s.is_monotonic_increasing).all()
    # Children tile their parent's sector.
    kids = k[k.shown_parent.notna()].sort_values(["shown_parent", "sector_start"])
    par = k.set_index("id").loc[kids.shown_parent.astype(int)]
    first = ~kids.shown_parent.duplicated().to_numpy()
    end = (kids.sector_start + kids.sector_extent).to_numpy()
    assert (kids.sector_start.to_numpy()[first] == par.sector_start.to_numpy()[first]).all()
    assert np.allclose(kids.sector_start.to_numpy()[~first], end[np.flatnonzero(~first) - 1])
    cover = kids.groupby("shown_parent").sector_extent.sum()
    assert np.allclose(cover.to_numpy(), k.set_index("id").sector_extent.loc[cover.index.astype(int)].to_numpy())


def test_node_condensing_threshold():
    # 7 children of the root at d = 1 px: sectors of 2 pi / 7 = 0.9 px, so
    # their children are hidden; 6 children get 1.05 px and keep theirs.
    for k, collapsed in ((6, False), (7, True)):
        rows = [(0, None)] + [(c, 0) for c in range(1, k + 1)] + [(10 + c, c) for c in range(1, k + 1)]
        kal = ms.CallTree.from_pandas(pd.DataFrame(rows, columns=["id", "parent"])).layout(width=100, level_spacing=1)
        out = kal.to_pandas().set_index("id")
        children, grandchildren = list(range(1, k + 1)), [10 + c for c in range(1, k + 1)]
        assert (out.collapsed[children] == collapsed).all() and out.drawn[children].all()
        assert (out.drawn[grandchildren] != collapsed).all()
        assert kal.drawn == (1 + k if collapsed else 1 + 2 * k)


# ------------------------------------------------------------ from traces


def test_call_tree_of_jacobi(jacobi):
    tree = jacobi.call_tree()
    assert len(tree) == 10273 and tree.height == 3 and tree.views == ["pe", "procedure", "time"]
    nodes = tree.to_pandas()
    states = jacobi.states
    # Each node is a state: its procedure, PE and start are the state's.
    s = nodes[nodes.state.notna()]
    st = states.iloc[s.state.astype(int)]
    assert (s.procedure.astype(str).values == st.value.astype(str).values).all()
    assert (s.pe.astype(str).values == st.container.astype(str).values).all()
    assert (s.start.values == st.start.values).all()
    # The root's children: the 32 Compute states, rank by rank.
    top = nodes[nodes.parent == 0]
    assert len(top) == 32 and (top.procedure == "Compute").all()
    assert top.pe.astype(str).tolist() == sorted(top.pe.astype(str), key=lambda p: int(p.rsplit("-", 1)[1]))
    # Every MPI call hangs from its rank's Compute.
    calls = nodes[nodes.depth == 2].merge(nodes[["id", "pe"]], left_on="parent", right_on="id", suffixes=("", "_caller"))
    assert len(calls) == 10240 and (calls.pe.astype(str) == calls.pe_caller.astype(str)).all()
    per = jacobi.call_tree(per_container=True, containers=["alpha"])
    assert len(per) == 1 + 16 + 8 * 326 + 8 * 316 and per.height == 4


def test_call_tree_of_native_sample():
    trace = ms.read_paje(shared("pajeng", "traces", "native_sample.trace"))
    tree = trace.call_tree(state_types=["Thread State"])
    nodes = tree.to_pandas()
    assert len(nodes) == 1 + 2219 + 659 and tree.height == 3
    kal = tree.layout(width=500)
    assert kal.level_spacing == 83 and not kal.condensed


def test_kaleidoscope_of_kineto_call_stacks():
    trace = ms.read(shared("hta", "tests", "data", "call_stack", "backward_thread.json"))
    tree = trace.call_tree()
    nodes = tree.to_pandas()
    states = trace.states
    inner = nodes[nodes.depth > 1].merge(nodes[["id", "state"]], left_on="parent", right_on="id",
                                         suffixes=("", "_caller"))
    a = states.iloc[inner.state.astype(int)].reset_index(drop=True)
    b = states.iloc[inner.state_caller.astype(int)].reset_index(drop=True)
    assert len(inner) > 0
    assert ((b.start_ns <= a.start_ns) & (a.end_ns <= b.end_ns) & (a.depth == b.depth + 1)).all()
    png = tree.layout(width=300).plot(view="procedure")
    assert png_size(png) == (300 + 230, 300 + 44)


# ------------------------------------------------------------ spawn trees


def test_atree_from_edges():
    path = shared("starvz", "extra_data", "qr_trace", "atree.csv")
    edges = pd.read_csv(path)
    tree = ms.CallTree.from_edges(edges, parent="Node", child="DependsOn")
    assert len(tree) == 261 and tree.root == 261
    nodes = tree.to_pandas()
    # Depths from the CSV, followed by hand.
    parent = dict(zip(edges.DependsOn, edges.Node))

    def depth(n):
        return 0 if n not in parent else 1 + depth(parent[n])

    assert all(nodes.depth == [depth(n) for n in nodes.id])
    assert tree.height == max(depth(n) for n in nodes.id) + 1
    kal = tree.layout(width=600, level_spacing=10)
    compare(kal, reference_layout(nodes.id.tolist(), [None if pd.isna(p) else int(p) for p in nodes.parent], 600, 10))
    with pytest.raises(ms.InvalidArgumentError, match="view"):
        kal.plot(view="pe")  # no PEs in an edge list


def test_from_pandas_attributes_and_ids():
    df = pd.DataFrame({
        "task": ["main", "a", "b", "c"],
        "up": [None, "main", "main", "a"],
        "fn": pd.Categorical(["main", "work", "work", None]),
        "cpu": [0, 1, 2, 1],
        "t": pd.to_datetime(["2024-01-01 00:00:00", "2024-01-01 00:00:02", "2024-01-01 00:00:01",
                             "2024-01-01 00:00:03"]),
    })
    tree = ms.CallTree.from_pandas(df, id="task", parent="up", procedure="fn", pe="cpu", start="t")
    nodes = tree.to_pandas()
    # Siblings by start time: b (1 s) before a (2 s).
    assert nodes.id.tolist() == ["main", "b", "a", "c"]
    assert nodes.procedure.astype(object).where(nodes.procedure.notna(), None).tolist() == ["main", "work", "work", None]
    assert nodes.pe.astype(str).tolist() == ["0", "2", "1", "1"]
    assert nodes.start.tolist() == [1704067200.0, 1704067201.0, 1704067202.0, 1704067203.0]
    assert tree.layout(subtree="a", width=100).root == "a"
    rows = ms.CallTree.from_pandas(df, id="task", parent="up", start="t", order="rows").to_pandas()
    assert rows.id.tolist() == ["main", "a", "c", "b"]
    # Float parents (NaN for the root) are integer ids.
    f = pd.DataFrame({"id": [1, 2, 3], "parent": [np.nan, 1.0, 1.0]})
    assert ms.CallTree.from_pandas(f).to_pandas().parent.tolist()[1:] == [1, 1]


# ------------------------------------------------------------ errors


@pytest.mark.parametrize("rows, param, message", [
    ([(1, None), (2, 1), (1, 2)], "id", "row 2: id 1 is already the id of row 0"),
    ([(1, None), (2, 1), (3, 9)], "parent", "row 2 (id 3): parent 9 is not the id of any row"),
    ([(1, None), (2, 1), (3, None)], "parent", "2 roots"),
    ([(1, 2), (2, 1)], "parent", "no root"),
    ([(0, None), (1, 3), (2, 1), (3, 2)], "parent", "row 1 (id 1) is on a cycle of parents"),
])
def test_bad_tables(rows, param, message):
    df = pd.DataFrame(rows, columns=["id", "parent"])
    with pytest.raises(ms.InvalidArgumentError, match=re.escape(message)) as info:
        ms.CallTree.from_pandas(df)
    assert info.value.param == param


def test_bad_values():
    df = pd.DataFrame({"id": [1, 2, 3], "parent": [None, 1, 1], "start": [0.0, float("nan"), 1.0]})
    with pytest.raises(ms.InvalidArgumentError, match=r"row 1 \(id 2\): the start time is NaN") as info:
        ms.CallTree.from_pandas(df)
    assert info.value.param == "start"
    with pytest.raises(ms.InvalidArgumentError, match="row 2: 1.5 is not an integer id"):
        ms.CallTree.from_pandas(pd.DataFrame({"id": [1, 2, 3], "parent": [None, 1, 1.5]}))
    with pytest.raises(ms.InvalidArgumentError, match="'nope' is not a column"):
        ms.CallTree.from_pandas(df, pe="nope")
    with pytest.raises(ms.InvalidArgumentError, match="roots"):
        ms.CallTree.from_edges(pd.DataFrame({"parent": [1, 5], "child": [2, 6]}))
    tree = ms.CallTree.from_pandas(df.drop(columns="start"))
    with pytest.raises(ms.InvalidArgumentError, match="no node with id 7"):
        tree.layout(subtree=7)
    with pytest.raises(ms.InvalidArgumentError) as info:
        tree.layout(width=7, level_spacing=4)
    assert info.value.param == "level_spacing"
    with pytest.raises(ms.InvalidArgumentError, match="no start times"):
        tree.layout().plot(view="time")
    with pytest.raises(ms.InvalidArgumentError, match="view"):
        tree.layout().plot(view="colour")


def test_bad_trace_selection(jacobi):
    with pytest.raises(ms.InvalidArgumentError, match="no state type"):
        jacobi.call_tree(state_types=["nope"])
    with pytest.raises(ms.InvalidArgumentError, match="no container"):
        jacobi.call_tree(containers="nope")


# ------------------------------------------------------------ figures


def png_size(data):
    data = bytes(data)  # a Figure, or the bytes of a file
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def png_pixels(data):
    """Decode an 8-bit RGB(A) non-interlaced PNG (what gonum writes)."""
    data = bytes(data)  # a Figure, or the bytes of a file
    pos, chunks = 8, []
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", data[pos + 8:pos + 18])
        elif kind == b"IDAT":
            chunks.append(data[pos + 8:pos + 8 + n])
        pos += 12 + n
    assert depth == 8 and colour in (2, 6)
    ch = 3 if colour == 2 else 4
    raw = np.frombuffer(zlib.decompress(b"".join(chunks)), np.uint8).reshape(height, width * ch + 1)
    img = np.zeros((height, width * ch), np.int64)
    prev = np.zeros(width * ch, np.int64)
    for y in range(height):
        f, line = raw[y, 0], raw[y, 1:].astype(np.int64)
        out = line.copy()
        if f == 1:
            for x in range(ch, width * ch):
                out[x] = (out[x] + out[x - ch]) & 255
        elif f == 2:
            out = (line + prev) & 255
        elif f in (3, 4):
            for x in range(width * ch):
                a = out[x - ch] if x >= ch else 0
                b = prev[x]
                if f == 3:
                    out[x] = (out[x] + (a + b) // 2) & 255
                else:
                    c = prev[x - ch] if x >= ch else 0
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    out[x] = (out[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        img[y], prev = out, out
    return img.reshape(height, width, ch)[:, :, :3]


PALETTE = [(228, 26, 28), (55, 126, 184), (77, 175, 74), (152, 78, 163), (255, 127, 0)]


def test_figure_pixels(tmp_path):
    # A root on PE 0 with three children on PEs 1-3 at 60, 180 and 300
    # degrees, 50 pixels out, each with two children on PE 4.
    rows = [(0, None, 0), (1, 0, 1), (2, 0, 2), (3, 0, 3)] + [(10 + k, 1 + k // 2, 4) for k in range(6)]
    df = pd.DataFrame(rows, columns=["id", "parent", "pe"])
    df["pe"] = "PE" + df.pe.astype(str)
    kal = ms.CallTree.from_pandas(df).layout(width=200, level_spacing=50)
    png = kal.plot(view="pe")
    assert png_size(png) == (200 + 230, 200 + 44)
    img = png_pixels(png)

    def at(x, y):  # layout pixels (centre origin, y up) to the image
        return tuple(img[int(44 + 100 - y), int(100 + x)])

    assert at(0, 0) == PALETTE[0]  # the root's disc at the centre
    # Inside each child's part of the root's family: the centroid of the
    # centre, the child and the midpoints between it and its neighbours.
    pos = {c: (50 * math.cos(math.radians(a)), 50 * math.sin(math.radians(a))) for c, a in ((1, 60), (2, 180), (3, 300))}
    mid = {(a, b): ((pos[a][0] + pos[b][0]) / 2, (pos[a][1] + pos[b][1]) / 2) for a, b in ((1, 2), (2, 3))}
    parts = {1: [(0, 0), pos[1], mid[1, 2]], 2: [(0, 0), mid[1, 2], pos[2], mid[2, 3]], 3: [(0, 0), mid[2, 3], pos[3]]}
    for child, pts in parts.items():
        assert at(sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts)) == PALETTE[child]
    # Between a child and its children, on the child's ray: PE 4.
    assert at(75 * math.cos(math.radians(60)), 75 * math.sin(math.radians(60))) == PALETTE[4]
    assert at(-90, 90) == (255, 255, 255)
    # Written to a file; SVG by extension.
    assert isinstance(kal.plot(view="pe", path=tmp_path / "k.svg"), ms.Figure)
    assert (tmp_path / "k.svg").read_bytes().lstrip().startswith(b"<?xml")
    assert kal._repr_png_()[:8] == b"\x89PNG\r\n\x1a\n"


def test_time_view_root_colour(jacobi):
    png = jacobi.call_tree(containers=["rank-0"]).layout(width=160).plot(view="time")
    img = png_pixels(png)
    # The root starts first: the spectrum's blue (hue 240, s 0.9, v 0.95).
    assert tuple(img[44 + 80, 80]) == (24, 24, 242)


# ------------------------------------------------------------ speed


def test_layout_of_a_million_nodes_is_quick():
    n = 1_000_000
    rng = np.random.default_rng(0)
    i = np.arange(n)
    lo = np.maximum(0, i - 50)
    df = pd.DataFrame({"id": i, "parent": pd.array((lo + rng.random(n) * (i - lo)).astype(np.int64), dtype="Int64")})
    df.loc[0, "parent"] = pd.NA
    t0 = time.perf_counter()
    tree = ms.CallTree.from_pandas(df)
    kal = tree.layout(width=850, level_spacing=4)
    out = kal.to_pandas()
    elapsed = time.perf_counter() - t0
    assert len(out) == n and kal.condensed and kal.levels <= kal.h_max + 1
    print(f"1e6 nodes: table to layout to DataFrame in {elapsed:.2f} s")


# ------------------------------------------------------------ colours


def _paje_value_colours(path):
    """Value name -> (r, g, b) from the file's PajeDefineEntityValue lines
    (event 5 in the bundled trace's header), as the file writes them."""
    out = {}
    for line in open(path):
        m = re.match(r'5 \S+ \S+ "?([^"]+?)"? "([\d.]+) ([\d.]+) ([\d.]+)"\s*$', line)
        if m:
            out.setdefault(m.group(1), tuple(round(float(x) * 255) for x in m.group(2, 3, 4)))
    return out


def test_procedures_keep_the_traces_colours(jacobi, bundled_trace):
    kal = jacobi.call_tree(containers=["rank-0"]).layout(width=160)
    legend = kal.legend("procedure")
    colours = dict(zip(legend["labels"], legend["colours"]))
    from_file = _paje_value_colours(bundled_trace)
    with_colour = [name for name in colours if name in from_file]
    assert len(with_colour) >= 3, colours
    # A colour the file gives several procedures (PMPI_Init and
    # PMPI_Finalize are both "0 1 0") goes to the first it defines; the
    # others get colours of their own.
    first = {}
    for name, rgb in from_file.items():
        first.setdefault(rgb, name)
    for name in with_colour:
        if first[from_file[name]] == name:
            assert colours[name] == "#%02x%02x%02x" % from_file[name], name
        else:
            assert colours[name] not in {"#%02x%02x%02x" % rgb for rgb in from_file.values()}, name
    # The synthetic root has no value: the palette's colour of its rank.
    pytest.importorskip("anywidget")
    from macroscope.widgets import state_colors

    palette = state_colors(len(legend["labels"]))
    root_rank = legend["labels"].index("program")
    assert colours["program"] == palette[root_rank]


def test_colors_override_in_the_figure_and_the_widget(jacobi):
    kal = jacobi.call_tree(containers=["rank-0"]).layout(width=160)
    png = kal.plot(view="procedure", colors={"program": "#123456"})
    assert tuple(png_pixels(png)[44 + 80, 80]) == (0x12, 0x34, 0x56)  # the root's disc
    legend = kal.legend("procedure", colors={"program": "#123456"})
    assert dict(zip(legend["labels"], legend["colours"]))["program"] == "#123456"
    with pytest.raises(ms.InvalidArgumentError, match="no procedure named 'nope'|no procedure named \"nope\""):
        kal.plot(view="procedure", colors={"nope": "red"})
    with pytest.raises(ms.InvalidArgumentError, match="time view"):
        kal.plot(view="time", colors={"program": "red"})
    # The widget paints each node as the figure does, overrides by PE or
    # procedure name alike.
    pytest.importorskip("anywidget")
    from macroscope.widgets._kaleido import KaleidoscopeExplorer

    pe = kal.legend("pe")["labels"][0]
    w = KaleidoscopeExplorer(kal, colors={"program": "#123456", pe: "#abcdef"})
    tbl = w.view_table().to_pandas()
    legend = kal.legend("procedure", colors={"program": "#123456"})
    by_name = dict(zip(legend["labels"], legend["colours"]))
    want = [int(by_name[p].lstrip("#"), 16) if isinstance(p, str) else 0xAAAAAA for p in tbl["procedure"]]
    assert tbl["rgb_procedure"].tolist() == want
    assert set(tbl.loc[tbl["pe"] == pe, "rgb_pe"]) == {0xABCDEF}
    assert w.legend["procedure"]["colours"] == kal.legend("procedure", colors={"program": "#123456"})["colours"]
    with pytest.raises(ms.InvalidArgumentError, match="no PE or procedure named 'nope'"):
        KaleidoscopeExplorer(kal, colors={"nope": "red"})
