"""Moments of utilization, checked against closed forms, exact rational
arithmetic, a numerical integration and pandas computations from the
states of real traces."""

import math
import random
import struct
import zlib
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

import macroscope as ms
from conftest import paje_header, shared

NS = 10**9

HEADER = paje_header(
    "PajeDefineContainerType", "PajeDefineStateType", "PajeCreateContainer", "PajePushState", "PajePopState",
) + """0 N 0 Node
0 P N Proc
1 S P State
"""


def seconds(ns: int) -> str:
    """Exact decimal seconds of an integer number of nanoseconds."""
    return f"{ns // NS}.{ns % NS:09d}"


def gantt_trace(path, resources, nodes=None, start=0):
    """Write a Pajé trace: resources maps a process name to its busy
    intervals [(a_ns, b_ns, value)], each a state pushed and popped at depth
    0; nodes maps a node name to its processes (default: one node "n")."""
    nodes = nodes or {"n": list(resources)}
    lines = []
    for n in nodes:
        lines.append(f"2 {seconds(start)} {n} N 0 {n}")
        for p in nodes[n]:
            lines.append(f"2 {seconds(start)} {p} P {n} {p}")
    events = []
    for p, ivs in resources.items():
        for a, b, v in ivs:
            events.append((a, 1, f"3 {seconds(a)} S {p} {v}"))
            events.append((b, 0, f"4 {seconds(b)} S {p}"))
    events.sort(key=lambda e: (e[0], e[1]))
    path.write_text(HEADER + "\n".join(lines + [e[2] for e in events]) + "\n")
    return path


def exact(intervals):
    """Moments of a busy function from its intervals (ns), with rationals:
    m0, m1 (s), mu2 (s^2), mu3 (s^3)."""
    p = [Fraction(0)] * 4
    for a, b in intervals:
        for k in range(4):
            p[k] += Fraction(b ** (k + 1) - a ** (k + 1), k + 1)
    mean = p[1] / p[0]
    e2, e3 = p[2] / p[0], p[3] / p[0]
    mu2 = e2 - mean * mean
    mu3 = e3 - 3 * mean * e2 + 2 * mean**3
    return p[0] / NS, mean / NS, mu2 / NS**2, mu3 / NS**3


def records(m, key="resource"):
    """The rows of a Moments table by key, as named tuples: unlike a row of
    DataFrame.loc they keep the integer columns exact."""
    return {getattr(r, key): r for r in m.to_pandas().itertuples()}


def check_row(row, intervals, what=""):
    """The row's moments and power sums match the exact ones of intervals."""
    intervals = [(a, b) for a, b in intervals if b > a]
    m0, m1, mu2, mu3 = exact(intervals)
    assert row.busy_ns == sum(b - a for a, b in intervals), what
    assert row.m0 == float(m0), what
    assert row.m1 == pytest.approx(float(m1), rel=1e-15, abs=1e-15), what
    assert row.m2 == pytest.approx(math.sqrt(3 * float(mu2)), rel=1e-12), what
    # The skew is a small difference of large terms: compare mu3 to sigma^3.
    sigma3 = float(mu2) ** 1.5
    assert abs((row.m3 / 3) ** 3 - float(mu3)) <= 1e-11 * sigma3, what
    o = int(row.origin_ns)
    for k in range(4):
        want = sum(Fraction((b - o) ** (k + 1) - (a - o) ** (k + 1), k + 1) for a, b in intervals) / NS ** (k + 1)
        assert getattr(row, f"P{k}") == pytest.approx(float(want), rel=1e-13, abs=1e-300), (what, k)


# ---------------------------------------------------------------- closed forms


@pytest.mark.parametrize("start", [0, 1_700_000_000 * NS + 1])
def test_one_unbroken_bar(tmp_path, start):
    """m2 = m0/2 and m3 = 0 for one bar, even on a clock near 1.7e9 s at
    nanosecond resolution."""
    a, b = start + 3_000_000_001, start + 5_500_000_002
    path = gantt_trace(tmp_path / "bar.trace", {"p": [(a, b, "run")]}, start=start)
    for m in (ms.read_paje(path).moments(), ms.moments(path)):
        row = m.to_pandas().iloc[0]
        assert row.busy_ns == b - a and row.m0 == (b - a) / NS
        assert row.m2 == pytest.approx(row.m0 / 2, rel=1e-15)
        assert abs(row.m3) < 1e-10 * row.m0
        assert row.m1 == float(Fraction(a + b, 2 * NS))
        assert row.origin_ns == a and row.P1 == pytest.approx(row.m0**2 / 2, rel=1e-15)
        check_row(row, [(a, b)])


def test_deviation_bounds_and_skew_sign(tmp_path):
    """2 m2 >= m0 for any busy function; the skew is positive when the bulk
    of the work comes first, negative when it comes last, zero for a
    symmetric busy function."""
    s = NS
    path = gantt_trace(tmp_path / "shapes.trace", {
        "early": [(0, 4 * s, "w"), (9 * s, 10 * s, "w")],
        "late": [(0, 1 * s, "w"), (6 * s, 10 * s, "w")],
        "symmetric": [(1 * s, 2 * s, "w"), (8 * s, 9 * s, "w")],
        "centred": [(2 * s, 3 * s, "w"), (4 * s, 6 * s, "w"), (7 * s, 8 * s, "w")],
    })
    df = ms.read_paje(path).moments().to_pandas().set_index("resource")
    assert df.loc["n/early", "m3"] > 0.5
    assert df.loc["n/late", "m3"] < -0.5
    assert df.loc["n/early", "m3"] == pytest.approx(-df.loc["n/late", "m3"], rel=1e-12)
    assert abs(df.loc["n/symmetric", "m3"]) < 1e-6 and abs(df.loc["n/centred", "m3"]) < 1e-6
    # Two bars far apart: the deviation reaches the middle of each bar.
    assert df.loc["n/symmetric", "m2"] == pytest.approx(math.sqrt(3 * (3.5**2 + 1 / 12)))
    assert (2 * df.m2 >= df.m0).all()
    assert df.loc["n/early", "m1"] == pytest.approx((4 * 2 + 9.5) / 5)


def random_gantt(rng, n, base, unit):
    ivs, t = [], base + rng.randrange(50) * unit
    for _ in range(n):
        length = (1 + rng.randrange(40)) * unit
        ivs.append((t, t + length))
        t += length + rng.randrange(60) * unit
    return ivs


def integrate(intervals, unit, lo, hi):
    """Power sums by numerical integration: Simpson's rule on every cell of
    a grid of step unit over [lo, hi), the busy function sampled at the
    cells' midpoints (exact for the cubic t^3 on each cell where the busy
    function is constant, which it is on this grid)."""
    edges = np.arange(lo, hi + unit, unit, dtype=np.float64)
    a, b = edges[:-1], edges[1:]
    mid = (a + b) / 2
    busy = np.zeros(len(mid))
    for x, y in intervals:
        busy[(mid > x) & (mid < y)] = 1
    t0 = lo  # integrate (t - lo)^k, in units, to keep float64 exact
    sums = []
    for k in range(4):
        f = lambda t: ((t - t0) / unit) ** k
        cell = (b - a) / unit / 6 * (f(a) + 4 * f(mid) + f(b))
        sums.append(float(np.sum(cell * busy)))
    return sums


def test_random_gantt_charts_match_numerical_integration(tmp_path):
    rng = random.Random(7)
    unit = 1_000_000  # 1 ms grid
    resources = {f"p{i}": [(a, b, rng.choice(["x", "y"])) for a, b in random_gantt(rng, 30, 0, unit)]
                 for i in range(12)}
    path = gantt_trace(tmp_path / "random.trace", resources)
    df = records(ms.moments(path))
    hi = max(b for ivs in resources.values() for _, b, _ in ivs)
    for p, ivs in resources.items():
        row = df[f"n/{p}"]
        s = integrate([(a, b) for a, b, _ in ivs], unit, 0, hi)
        mean = s[1] / s[0]  # in units from 0
        mu2 = s[2] / s[0] - mean**2
        mu3 = s[3] / s[0] - 3 * mean * s[2] / s[0] + 2 * mean**3
        u = unit / NS
        assert row.m0 == pytest.approx(s[0] * u, rel=1e-12)
        assert row.m1 == pytest.approx(mean * u, rel=1e-12)
        assert row.m2 == pytest.approx(math.sqrt(3 * mu2) * u, rel=1e-9)
        assert row.m3 == pytest.approx(3 * np.cbrt(mu3) * u, rel=1e-6, abs=1e-9)
        assert 2 * row.m2 >= row.m0
        check_row(row, [(a, b) for a, b, _ in ivs], p)


def test_random_gantt_charts_near_1e9_seconds(tmp_path):
    """Nanosecond intervals on a clock near 1.7e9 s: the power sums keep
    every digit (each resource is checked against rationals)."""
    rng = random.Random(11)
    base = 1_700_000_000 * NS
    resources = {f"p{i}": [(a, b, "w") for a, b in random_gantt(rng, 40, base, 1 + rng.randrange(1000))]
                 for i in range(8)}
    path = gantt_trace(tmp_path / "epoch.trace", resources, start=base)
    df = records(ms.moments(path))
    for p, ivs in resources.items():
        check_row(df[f"n/{p}"], [(a, b) for a, b, _ in ivs], p)
    # A window given as exact decimal strings clips to the nanosecond.
    lo, hi = base + 12_345, base + 54_321
    w = records(ms.moments(path, start=seconds(lo), end=seconds(hi)))
    for p, ivs in resources.items():
        clipped = [(max(a, lo), min(b, hi)) for a, b, _ in ivs if min(b, hi) > max(a, lo)]
        if clipped:
            check_row(w[f"n/{p}"], clipped, p)
        else:
            assert w[f"n/{p}"].m0 == 0 and math.isnan(w[f"n/{p}"].m1)


# ------------------------------------------------------- real traces vs pandas


def intervals_by(states, keys):
    return {k: list(zip(g.start_ns, g.end_ns)) for k, g in states.groupby(keys, observed=True)}


@pytest.fixture(scope="module")
def is_b64():
    return ms.read_paje(shared("smpi-nas", "is_B_64.trace"))


def test_is_b64_matches_pandas(is_b64):
    """IS on 64 ranks: MPI states only, all at depth 0. Every rank's moments,
    and every rank's moments per MPI call, match the states."""
    states = is_b64.states
    assert (states.depth == 0).all()
    per_rank = intervals_by(states, "container")
    df = is_b64.moments().to_pandas()
    assert len(df) == 64 and list(df.resource) == [f"rank-{i}" for i in range(64)]
    for row in df.itertuples():
        check_row(row, per_rank[row.resource], row.resource)
    per_call = intervals_by(states, ["container", "value"])
    by_state = is_b64.moments(by="state").to_pandas()
    assert len(by_state) == sum(1 for ivs in per_call.values() if any(b > a for a, b in ivs))
    for row in by_state.itertuples():
        assert row.type == "MPI_STATE"
        check_row(row, per_call[(row.resource, row.state)], (row.resource, row.state))
    # Streaming from the file gives the same table, bit for bit.
    streamed = ms.moments(is_b64.files[0]).to_pandas()
    pd.testing.assert_frame_equal(streamed, df)


def test_is_b64_computation_is_the_time_outside_mpi(is_b64):
    """busy=[] with gaps: the time each rank spends in no MPI state."""
    containers = is_b64.containers.set_index("path")
    per_rank = intervals_by(is_b64.states, "container")
    comp = is_b64.moments(busy=[], gaps=True, state_types="MPI_STATE").to_pandas()
    mpi = is_b64.moments().to_pandas()
    for row, m in zip(comp.itertuples(), mpi.itertuples()):
        life = containers.loc[row.resource]
        assert row.busy_ns + m.busy_ns == life.end_ns - life.start_ns
        edges = sorted(x for a, b in per_rank[row.resource] for x in (a, b))
        gaps = list(zip([life.start_ns] + edges[1::2], edges[0::2] + [life.end_ns]))
        check_row(row, gaps, row.resource)


def nested_intervals(states, container):
    """Compute (depth 0) minus the MPI calls nested in it (depth 1)."""
    s = states[states.container == container]
    outer = list(zip(s[s.depth == 0].start_ns, s[s.depth == 0].end_ns))
    inner = sorted(zip(s[s.depth == 1].start_ns, s[s.depth == 1].end_ns))
    out = []
    for a, b in outer:
        t = a
        for x, y in inner:
            if a <= x and y <= b:
                out.append((t, x))
                t = y
        out.append((t, b))
    return [(a, b) for a, b in out if b > a], [(a, b) for a, b in inner if b > a]


def test_bundled_trace_nesting_matches_pandas(jacobi):
    """Jacobi: a Compute state per rank with the MPI calls pushed over it.
    Innermost nesting: Compute is busy outside the calls; all but Compute
    is the calls. Union: Compute is busy throughout."""
    states = jacobi.states
    compute = jacobi.moments(busy=["Compute"]).to_pandas()
    calls = jacobi.moments(idle=["Compute"]).to_pandas()
    union = jacobi.moments(busy=["Compute"], nesting="union").to_pandas()
    everything = jacobi.moments().to_pandas()
    assert len(compute) == 32
    for c, k, u, e in zip(compute.itertuples(), calls.itertuples(), union.itertuples(), everything.itertuples()):
        own, nested = nested_intervals(states, c.resource)
        check_row(c, own, c.resource)
        check_row(k, nested, c.resource)
        outer = states[(states.container == c.resource) & (states.depth == 0)]
        check_row(u, list(zip(outer.start_ns, outer.end_ns)), c.resource)
        assert e.busy_ns == u.busy_ns == c.busy_ns + k.busy_ns


def test_per_state_sums_add_up(jacobi):
    """By state, a resource's rows share out its busy time: the busy times
    add up exactly and the power sums, once at a common origin, too."""
    # SMPI declares a second, unused state type: gaps need one.
    by_state = jacobi.moments(by="state", gaps=True, state_types="MPI_STATE").to_pandas()
    by_resource = records(jacobi.moments(gaps=True, state_types="MPI_STATE"))
    assert set(by_state.state) >= {"Compute", "PMPI_Waitall", "PMPI_Allreduce"}
    for resource, g in by_state.groupby("resource", observed=True):
        r = by_resource[resource]
        assert g.busy_ns.sum() == r.busy_ns
        total = shifted_sums(g, r.origin_ns)
        for k in range(4):
            assert total[k] == pytest.approx(getattr(r, f"P{k}"), rel=1e-12)


def shifted_sums(rows, origin_ns):
    """Sum the power sums of rows, each brought to origin_ns (binomial
    expansion of (t - o') = (t - o) + (o - o'))."""
    total = [0.0] * 4
    for r in rows.itertuples():
        d = (r.origin_ns - origin_ns) / NS
        p = [r.P0, r.P1, r.P2, r.P3]
        for k in range(4):
            total[k] += sum(math.comb(k, j) * d ** (k - j) * p[j] for j in range(k + 1))
    return total


def test_group_totals(jacobi):
    """Every hierarchy node adds up its resources."""
    nodes = records(jacobi.moments(by="node", busy=["Compute"]), "node")
    resources = jacobi.moments(busy=["Compute"]).to_pandas()
    assert list(nodes)[:3] == ["", "alpha", "alpha/alpha-0"]
    for node in ["", "alpha", "beta", "beta/beta-3"]:
        members = resources[resources.resource.astype(str).str.startswith(node)]
        row = nodes[node]
        assert row.resources == len(members) and row.busy_ns == members.busy_ns.sum()
        total = shifted_sums(members, row.origin_ns)
        for k in range(4):
            assert getattr(row, f"P{k}") == pytest.approx(total[k], rel=1e-12)
    # The mean of the root is the busy-time-weighted mean of the means.
    root = nodes[""]
    assert root.m1 == pytest.approx(np.average(resources.m1, weights=resources.m0), rel=1e-13)
    assert root.resources == 32


def test_window(jacobi):
    """A window clips every busy interval."""
    lo, hi = 2_000_000_000, 3_500_000_000
    df = jacobi.moments(start=2, end=3.5, idle=["Compute"]).to_pandas()
    m = jacobi.moments(start=2, end=3.5, idle=["Compute"])
    assert (m.start, m.end) == (2, 3.5)
    for row in df.itertuples():
        _, nested = nested_intervals(jacobi.states, row.resource)
        clipped = [(max(a, lo), min(b, hi)) for a, b in nested if min(b, hi) > max(a, lo)]
        check_row(row, clipped, row.resource)
    # Windows side by side add up to the whole.
    parts = [jacobi.moments(start=a, end=b).to_pandas() for a, b in [(None, 2), (2, 5), (5, None)]]
    whole = jacobi.moments().to_pandas()
    assert (sum(p.busy_ns for p in parts) == whole.busy_ns).all()


def test_aggregates_match_trace_windows(jacobi):
    """agg.moments(): each aggregate is its node's resources over its time
    range, as trace.moments() computes them on that window."""
    agg = jacobi.micro(slices=20).aggregate(0.35)
    table = agg.to_pandas()
    m = agg.moments(busy=["Compute"])
    df = m.to_pandas()
    assert m.by == "aggregate" and len(df) == len(table) == len(agg)
    assert list(df.aggregate_id) == list(range(len(agg)))
    assert (df.node.astype(str) == table.node.astype(str)).all()
    assert (df.resources == table.leaves).all()
    assert np.allclose(df.start, table.start) and np.allclose(df.end, table.end)
    windows = {}
    for row in df.itertuples():
        key = (f"{row.start:.9f}", f"{row.end:.9f}")
        if key not in windows:
            windows[key] = jacobi.moments(busy=["Compute"], by="node", start=key[0], end=key[1]).to_pandas()
        w = windows[key]
        want = w[w.node == ("" if row.node == "root" else row.node)]
        assert len(want) == 1 and row.busy_ns == want.busy_ns.iloc[0]
        total = shifted_sums(want, row.origin_ns)
        for k in range(4):
            assert getattr(row, f"P{k}") == pytest.approx(total[k], rel=1e-12)
    # The aggregates tile the model: their busy times add up to the whole.
    assert df.busy_ns.sum() == jacobi.moments(busy=["Compute"]).to_pandas().busy_ns.sum()
    # A spatial partition (a cut of the hierarchy over the whole window)
    # tiles the model too; its aggregates are hierarchy nodes.
    spatial = jacobi.micro(slices=20).aggregate(0.4, kind="spatial")
    cut = spatial.moments(busy=["Compute"]).to_pandas()
    assert cut.busy_ns.sum() == df.busy_ns.sum() and (cut.start == 0).all()
    # By state, the states of an aggregate add up to it.
    by_state = agg.moments(by="state", idle=["PMPI_Recv"]).to_pandas()
    whole = agg.moments(idle=["PMPI_Recv"]).to_pandas()
    sums = by_state.groupby("aggregate_id").busy_ns.sum().reindex(whole.aggregate_id, fill_value=0)
    assert (sums.values == whole.busy_ns.values).all()


# ---------------------------------------------------------------------- figure


def png_pixels(data):
    """Decode an 8-bit RGB or RGBA PNG (what gonum writes) to an array of
    RGB pixels."""
    data = bytes(data)  # a Figure, or the bytes of a file
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks, header = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
        pos += 12 + n
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and color in (2, 6) and interlace == 0
    c = 3 if color == 2 else 4
    raw = zlib.decompress(b"".join(chunks))
    stride = width * c
    img = np.zeros((height, stride), dtype=np.uint8)
    prev = np.zeros(stride, dtype=np.int64)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = np.frombuffer(raw, np.uint8, stride, y * (stride + 1) + 1).astype(np.int64)
        if f == 0:
            out = line
        elif f == 1:  # sub: a running sum along each channel
            out = np.cumsum(line.reshape(width, c), axis=0).reshape(-1) & 255
        elif f == 2:  # up
            out = (line + prev) & 255
        else:  # average or Paeth: sequential, in plain Python
            cur, up = line.tolist(), prev.tolist()
            for x in range(stride):
                a = cur[x - c] if x >= c else 0
                b = up[x]
                if f == 3:
                    cur[x] = (cur[x] + (a + b) // 2) & 255
                else:
                    d = up[x - c] if x >= c else 0
                    p = a + b - d
                    pa, pb, pd = abs(p - a), abs(p - b), abs(p - d)
                    cur[x] = (cur[x] + (a if pa <= pb and pa <= pd else b if pb <= pd else d)) & 255
            out = np.array(cur, dtype=np.int64)
        img[y], prev = out, out
    return img.reshape(height, width, c)[:, :, :3].astype(np.int32)


GREY = np.array([160, 160, 160])


KEY_STRIP = 22  # pixel rows at the top holding the key, with grey swatches


def grey_runs(img, shortest=10):
    """For each pixel row crossing a norm bar, the first and last column of
    its longest grey run, bridging the mean tick (anti-aliased text makes
    short runs only)."""
    mask = (np.abs(img - GREY) <= 8).all(axis=2)
    mask[:KEY_STRIP] = False
    rows = {}
    for y in np.nonzero(mask.any(axis=1))[0]:
        xs = np.nonzero(mask[y])[0]
        breaks = np.nonzero(np.diff(xs) > 3)[0]
        starts = np.concatenate(([0], breaks + 1))
        ends = np.concatenate((breaks, [len(xs) - 1]))
        k = int(np.argmax(xs[ends] - xs[starts]))
        if xs[ends[k]] - xs[starts[k]] + 1 >= shortest:
            rows[int(y)] = (int(xs[starts[k]]), int(xs[ends[k]]))
    return rows


def bands(runs):
    """Consecutive pixel rows with the same run: one band per drawn row."""
    out = []
    for y in sorted(runs):
        if out and y == out[-1][1] + 1 and runs[y] == out[-1][2]:
            out[-1][1] = y
        else:
            out.append([y, y, runs[y]])
    return out


def test_figure_geometry(tmp_path):
    """The norm bars are drawn to scale: b is twice as long as a and c
    starts where b ends; the skew line shows on the side of the tail."""
    s = NS
    path = gantt_trace(tmp_path / "fig.trace", {
        "a": [(1 * s, 3 * s, "w")], "b": [(1 * s, 5 * s, "w")], "c": [(5 * s, 9 * s, "w")],
        "d": [(0, 4 * s, "w"), (9 * s, 10 * s, "w")],
    })
    m = ms.read_paje(path).moments()
    data = m.plot(width=800)
    img = png_pixels(data)
    assert img.shape[1] == 800
    runs = grey_runs(img)
    # Rows a, b, c, d top to bottom, each a band of identical runs (d's bar
    # is crossed by its mean tick, so it makes several).
    found = [b for b in bands(runs) if b[1] - b[0] >= 3]
    a, b, c = (x[2] for x in found[:3])
    la, lb, lc = a[1] - a[0], b[1] - b[0], c[1] - c[0]
    assert abs(lb - 2 * la) <= 2 and abs(lc - lb) <= 1
    assert a[0] == b[0] and abs(c[0] - b[1]) <= 2
    px_per_s = (c[0] - a[0]) / 4
    # d: positive skew, a red line from its mean towards the tail (right).
    red = (img[:, :, 0] > 200) & (img[:, :, 1] < 60) & (img[:, :, 2] < 60)
    top_d = found[3][0]
    d_red = np.nonzero(red[top_d:top_d + 14].any(axis=0))[0]
    df = records(m)
    mean_x = a[0] + (df["n/d"].m1 - 1) * px_per_s
    assert len(d_red) > 50
    assert d_red.min() == pytest.approx(mean_x, abs=2)
    # The axis is the window [0, 10 s]: a skew line reaching past its end is
    # cut there.
    end_x = a[0] + (10 - 1) * px_per_s
    assert mean_x + df["n/d"].m3 * px_per_s > end_x
    assert d_red.max() == pytest.approx(end_x, abs=3)
    # The symmetric bars have no skew line; the legend's red is above them.
    assert not red[found[0][0]:found[2][1] + 1].any()
    assert m._repr_png_()[:4] == b"\x89PNG"
    svg = m.plot(tmp_path / "fig.svg")
    assert (tmp_path / "fig.svg").read_text().lstrip().startswith("<?xml") and isinstance(svg, ms.Figure)


def test_figure_many_rows(tmp_path):
    """Thousands of resources get a pixel each, in hierarchy order."""
    rng = random.Random(3)
    nodes = {f"m{i:02d}": [f"c{i:02d}-{j:03d}" for j in range(100)] for i in range(25)}
    resources = {}
    for i, (n, procs) in enumerate(nodes.items()):
        for p in procs:
            a = i * 400_000_000 + rng.randrange(50_000_000)
            resources[p] = [(a, a + 300_000_000 + rng.randrange(100_000_000), "w")]
    path = gantt_trace(tmp_path / "many.trace", resources, nodes)
    m = ms.moments(path)
    assert len(m) == 2500
    img = png_pixels(m.plot(width=500))
    height, width, _ = img.shape
    assert width == 500 and 2500 <= height <= 2500 + 150
    # The bars step right machine after machine: the mean column of grey
    # per row grows down the figure.
    runs = grey_runs(img)
    ys = sorted(runs)
    assert len(ys) >= 2400
    centres = np.array([sum(runs[y]) / 2 for y in ys])
    machines = [np.median(c) for c in np.array_split(centres, 25)]
    assert all(b - a > 8 for a, b in zip(machines, machines[1:]))
    assert machines[-1] - machines[0] > 0.7 * (width - 100)


def test_is_b64_figure(is_b64, tmp_path):
    """The display of the ranks' computation (time outside MPI): one row per
    rank, each with its norm bar."""
    m = is_b64.moments(busy=[], gaps=True, state_types="MPI_STATE")
    path = m.plot(tmp_path / "is.png", width=960)
    img = png_pixels((tmp_path / "is.png").read_bytes())
    assert isinstance(path, ms.Figure) and img.shape[1] == 960
    runs = grey_runs(img)
    assert len([y for y in sorted(runs) if y - 1 not in runs]) == 64


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize("kwargs, param", [
    (dict(busy=["Compute"], idle=["PMPI_Recv"]), "busy"),
    (dict(busy={"all_but": ["Compute"]}, idle=["PMPI_Recv"]), "busy"),
    (dict(busy={"only": ["Compute"]}), "busy"),
    (dict(busy=5), "busy"),
    (dict(busy=["Compute", 3]), "busy"),
    (dict(busy=[]), "values"),
    (dict(busy=["Compte"]), "values"),
    (dict(idle=["nope"]), "values"),
    (dict(state_types=["MPI"]), "state_types"),
    (dict(by="rank"), "by"),
    (dict(nesting="outer"), "nesting"),
    (dict(gaps="yes"), "gaps"),
    (dict(start=float("nan")), "start"),
    (dict(end=float("inf")), "end"),
    (dict(start="soon"), "start"),
    (dict(start=True), "start"),
    (dict(start=3, end=2), "window"),
    (dict(start=100), "window"),
])
def test_bad_options(jacobi, kwargs, param):
    with pytest.raises(ms.InvalidArgumentError) as e:
        jacobi.moments(**kwargs)
    assert e.value.param == param


def test_bad_input_to_the_other_entry_points(jacobi, tmp_path, bundled_trace):
    agg = jacobi.micro(slices=10).aggregate(0.5)
    for kwargs in [dict(by="node"), dict(busy=3), dict(nesting="outer")]:
        with pytest.raises(ms.InvalidArgumentError):
            agg.moments(**kwargs)
    with pytest.raises(ms.InvalidArgumentError):
        ms.moments(bundled_trace, format="nope")
    with pytest.raises(ms.TraceNotFoundError):
        ms.moments(tmp_path / "missing.trace")
    broken = tmp_path / "broken.trace"
    broken.write_text(HEADER + "2 0 n N 0 n\n2 0 p P n p\n3 1 S p run\n3 x S p run\n")
    with pytest.raises(ms.TraceFormatError) as e:
        ms.moments(broken)
    assert e.value.file == str(broken) and e.value.line == HEADER.count("\n") + 4
    m = jacobi.moments()
    for kwargs in [dict(width=0), dict(height=-5), dict(width="wide"), dict(format="gif")]:
        with pytest.raises(ms.InvalidArgumentError):
            m.plot(**kwargs)
    # The all-but spelling as a dict is the same as idle=.
    a = jacobi.moments(busy={"all_but": ["Compute"]}).to_pandas()
    b = jacobi.moments(idle="Compute").to_pandas()
    pd.testing.assert_frame_equal(a, b)


def test_repr_and_metadata(jacobi):
    m = jacobi.moments(by="state", idle=["Compute"], start=1)
    assert repr(m).startswith("<macroscope.Moments by state:") and "all states but Compute" in repr(m)
    assert m.busy == "all states but Compute" and m.by == "state"
    meta = m.to_arrow().schema.metadata
    assert meta[b"macroscope.start"] == b"1.000000000" and meta[b"macroscope.by"] == b"state"
    assert list(m.to_pandas().columns) == ["resource", "state", "type", "m0", "m1", "m2", "m3", "busy_ns",
                                           "P0", "P1", "P2", "P3", "origin", "origin_ns"]
