"""The treemap, topology and kaleidoscope explorers in a real browser:
JupyterLab on localhost runs the notebook, Playwright clicks, hovers and
moves sliders in Debian's chromium, and screenshots saved under
build/test-output/widgets/ are checked by pixel colour at places computed
here, in the test's own process, from the non-widget API (treemap
rectangles and state shares, topology positions, the static kaleidoscope
figure drawn by the Go core)."""

from __future__ import annotations

import math
import pathlib

import numpy as np
import pandas as pd
import pytest

from widget_harness import Pixels, skip_without_browser  # the lab fixture comes from conftest.py: one per session

ROOT = pathlib.Path(__file__).resolve().parents[2]
TRACE = ROOT / "testdata" / "jacobi32.trace"
PLATFORM = ROOT / "testdata" / "jacobi32-platform.trace"
HOST_BLUE = (31, 100, 180)  # plots.TopologyKindColor("HOST")


@pytest.fixture(scope="module")
def ms():
    skip_without_browser()
    import macroscope

    return macroscope


def close(got, want, tolerance=3):
    return max(abs(g - w) for g, w in zip(got, want)) <= tolerance


def rgb(hex_colour):
    return tuple(int(hex_colour[k:k + 2], 16) for k in (1, 3, 5))


def plot_size(el):
    x0, y0, w, h = (float(v) for v in el.get_attribute("data-plot").split(","))
    return w, h


def canvas_origin(el):
    """Where the canvas is on the page now (running a cell may scroll it)."""
    el.locator("canvas.ms-main").scroll_into_view_if_needed()
    box = el.locator("canvas.ms-main").bounding_box()
    return box["x"], box["y"]


# -- treemap -----------------------------------------------------------------


def treemap_centres(ms, tm, model, W, H, min_px=40, strip_px=6):
    """Places inside the aggregates drawn at least min_px on a side, and
    their colours: an aggregate is split into a strip per state along its
    longer side, states in the model's order, each as long as its share;
    the middle of every strip at least strip_px long is checked."""
    from macroscope.widgets._base import model_colours

    states = model.states
    colours = [rgb(c) for c in model_colours(model)]  # the treemap figure's
    out = []
    for i, r in tm[tm.aggregated].iterrows():
        rx, ry, rw, rh = r.x * W, (1 - r.y - r.h) * H, r.w * W, r.h * H
        if rw < min_px or rh < min_px:
            continue
        along = rw if rw >= rh else rh
        at = 0.0
        for k, s in enumerate(states):
            f = r[f"prop:{s}"]
            if f * along >= strip_px:
                mid = (at + f / 2) * along
                x, y = (rx + mid, ry + rh / 2) if rw >= rh else (rx + rw / 2, ry + mid)
                out.append((x, y, colours[k], f"{r.node}: {s}"))
            at += f
    assert out, "no aggregate large enough to check"
    return out


def check_centres(pixels, centres):
    bad = [(node, (round(x), round(y)), want, pixels.at(x, y)) for x, y, want, node in centres
           if not close(pixels.at(x, y), want)]
    assert not bad, f"{len(bad)} of {len(centres)} centres differ: {bad[:4]}"


def test_treemap_click_zooms_slider_moves_p_hover_names(lab, ms):
    trace = ms.read_paje(str(TRACE))
    model = trace.micro(slices=20)
    agg = model.aggregate(0.0, kind="spatial")
    nb = lab.notebook([
        "import macroscope as ms",
        f"model = ms.read_paje({str(TRACE)!r}).micro(slices=20)",
        "w = model.aggregate(0.0, kind='spatial').explore_treemap(height=480)",
        "w",
    ])
    el = nb.widget(0, ".macroscope-treemap")
    nb.wait_frame(el, 1)
    W, H = plot_size(el)
    whole = agg.treemap().to_pandas()
    assert int(el.get_attribute("data-count")) == len(whole)
    check_centres(nb.screenshot(el, "treemap-whole"), treemap_centres(ms, whole, model, W, H))

    # Click inside zone "beta" (on one of its ranks): the map zooms into it.
    beta = whole[whole.node == "beta"].iloc[0]
    ox, oy = canvas_origin(el)
    frames = nb.frames(el)
    nb.page.mouse.click(ox + (beta.x + beta.w / 2) * W, oy + (1 - beta.y - beta.h / 2) * H)
    nb.page.wait_for_function("el => el.dataset.root === 'beta'", arg=el.element_handle())
    nb.wait_frame(el, frames + 1)
    zoomed = agg.treemap(root="beta").to_pandas()
    assert int(el.get_attribute("data-count")) == len(zoomed) == 1 + 16
    assert nb.value("w.root") == "beta"
    nb.page.mouse.move(0, 0)  # off the canvas: no hover
    check_centres(nb.screenshot(el, "treemap-zoomed"), treemap_centres(ms, zoomed, model, W, H))

    # Hover a rank: the tooltip names it and gives its mode.
    r = zoomed[zoomed.aggregated].iloc[5]
    ox, oy = canvas_origin(el)
    nb.page.mouse.move(ox + (r.x + r.w / 2) * W, oy + (1 - r.y - r.h / 2) * H)
    tip = el.locator(".ms-tooltip")
    tip.wait_for(state="visible")
    text = tip.inner_text()
    mode = r["mode"]
    assert text.splitlines()[0] == r.node and f"mode {mode}" in text

    # The slider, moved with the keyboard to the coarsest level: one
    # aggregate, and the zoom falls back to the whole hierarchy.
    levels = model.significant_p(kind="spatial", threshold=0)
    slider = el.locator("input[type=range]")
    slider.focus()
    nb.page.keyboard.press("End")
    nb.page.wait_for_function("([el, n]) => +el.dataset.level === n", arg=[el.element_handle(), len(levels) - 1])
    nb.page.wait_for_function("el => el.dataset.root === ''", arg=el.element_handle())
    coarsest = model.aggregate(float(levels.p_low.iloc[-1] + levels.p_high.iloc[-1]) / 2, kind="spatial")
    nb.page.wait_for_function("([el, n]) => +el.dataset.count === n",
                              arg=[el.element_handle(), len(coarsest.treemap().to_pandas())])
    assert nb.value("w.level") == len(levels) - 1
    pixels = nb.screenshot(el, "treemap-coarsest")
    check_centres(pixels, treemap_centres(ms, coarsest.treemap().to_pandas(), model, W, H))

    # The neighbouring level was sent ahead: a step to it is drawn by the
    # page alone, and is that level's treemap.
    prev = len(levels) - 2
    for _ in range(100):
        if nb.value(f"({prev}, '', 'leaves') in w._shipped"):
            break
    else:
        raise AssertionError("the neighbouring level was not sent ahead")
    frames = nb.frames(el)
    slider.focus()
    nb.page.keyboard.press("ArrowLeft")
    nb.wait_frame(el, frames + 1)
    assert el.get_attribute("data-source") == "page" and int(el.get_attribute("data-level")) == prev
    agg_prev = model.aggregate(float(levels.p_low.iloc[prev] + levels.p_high.iloc[prev]) / 2, kind="spatial")
    assert int(el.get_attribute("data-count")) == len(agg_prev.treemap().to_pandas())
    check_centres(nb.screenshot(el, "treemap-page-step"),
                  treemap_centres(ms, agg_prev.treemap().to_pandas(), model, W, H))
    assert nb.value("w.level") == prev
    nb.close()


# -- topology ----------------------------------------------------------------


def node_positions(nodes, W, H):
    """Screen positions of the Go layout, fitted as the static figure does:
    one scale on both axes, a margin of 12 px plus half the largest node,
    y up."""
    n = len(nodes)
    max_node = max(6.0, min(28.0, 0.9 * math.sqrt(W * H / n)))
    pad = 12 + max_node / 2
    w, h = W - 2 * pad, H - 2 * pad
    x0, x1, y0, y1 = min(nodes["x"]), max(nodes["x"]), min(nodes["y"]), max(nodes["y"])
    scale = min(w / max(x1 - x0, 1e-9), h / max(y1 - y0, 1e-9))
    ox, oy = pad + (w - scale * (x1 - x0)) / 2, pad + (h - scale * (y1 - y0)) / 2
    return {p: (ox + scale * (x - x0), H - (oy + scale * (y - y0)), s * max_node)
            for p, x, y, s in zip(nodes["path"], nodes["x"], nodes["y"], nodes["size"])}


def test_topology_click_expands_and_collapses(lab, ms):
    trace = ms.read_paje(str(PLATFORM))
    full = len(trace.topology().nodes)
    collapsed = len(trace.topology().collapse("alpha").nodes)
    nb = lab.notebook([
        "import macroscope as ms",
        f"trace = ms.read_paje({str(PLATFORM)!r})",
        "topo = trace.topology().collapse('alpha')",
        "w = topo.explore(height=560, iterations=200)",
        "w",
    ])
    el = nb.widget(0, ".macroscope-topology")
    nb.page.wait_for_function("el => el.dataset.settled === '1'", arg=el.element_handle())
    W, H = plot_size(el)
    cols = "['path', 'x', 'y', 'size', 'ratio', 'kind', 'aggregated']"
    before = nb.value(f"w.topology.nodes[{cols}].to_dict('list')")
    assert int(el.get_attribute("data-count")) == len(before["path"]) == collapsed < full
    at = node_positions(before, W, H)
    pixels = nb.screenshot(el, "topology-collapsed")
    # The aggregate of alpha's hosts: a square filled from the bottom by
    # its utilization (about 0.7: its centre is filled).
    hx, hy, side = at["alpha [HOST]"]
    assert side >= 20 and close(pixels.at(hx, hy + side / 4), HOST_BLUE), pixels.at(hx, hy + side / 4)

    # Click it: alpha expands, its hosts appear and move to the new layout.
    ox, oy = canvas_origin(el)
    nb.page.mouse.click(ox + hx, oy + hy)
    nb.page.wait_for_function("el => el.dataset.version === '2' && el.dataset.settled === '1'",
                              arg=el.element_handle())
    after = nb.value(f"w.topology.nodes[{cols}].to_dict('list')")
    assert int(el.get_attribute("data-count")) == len(after["path"]) == full
    assert nb.value("w.collapsed") == []
    at2 = node_positions(after, W, H)
    nb.page.mouse.move(0, 0)
    pixels = nb.screenshot(el, "topology-expanded")
    hosts = [p for p, k in zip(after["path"], after["kind"]) if p.startswith("alpha/") and k == "HOST"]
    assert len(hosts) == 16
    for p in hosts:  # every host of alpha is drawn where the layout put it, filled at its centre
        x, y, side = at2[p]
        assert close(pixels.at(x, y + side / 4), HOST_BLUE), (p, (x, y), pixels.at(x, y + side / 4))
    # Where the aggregate was, nothing of it is left (no square outline there).
    assert "alpha [HOST]" not in at2

    # Click one of alpha's hosts: alpha collapses again.
    x, y, _ = at2[hosts[0]]
    ox, oy = canvas_origin(el)
    nb.page.mouse.click(ox + x, oy + y)
    nb.page.wait_for_function("el => el.dataset.version === '3' && el.dataset.settled === '1'",
                              arg=el.element_handle())
    assert nb.value("w.collapsed") == ["alpha"]
    assert int(el.get_attribute("data-count")) == len(before["path"])

    # The window's width slider to its least: the first thousandth of the
    # run, over which alpha's hosts are always busy, so the aggregate's
    # square, 72 % full over the whole run, fills up to its top.
    nodes = nb.value(f"w.topology.nodes[{cols}].to_dict('list')")
    hx, hy, side = node_positions(nodes, W, H)["alpha [HOST]"]
    top = (hx, hy - 0.4 * side)
    whole = trace.topology().collapse("alpha").nodes.set_index("path").loc["alpha [HOST]", "ratio"]
    assert whole < 0.8
    nb.page.mouse.move(0, 0)
    assert pixels_at(nb, el, "topology-whole-run", top) == (255, 255, 255)
    frames = nb.frames(el)
    el.locator("input[type=range]").nth(1).focus()
    nb.page.keyboard.press("Home")
    nb.wait_frame(el, frames + 1)
    nb.page.wait_for_function("el => el.dataset.settled === '1'", arg=el.element_handle())
    a, b = trace.start, trace.start + (trace.end - trace.start) / 1000
    assert nb.value("w.window") == pytest.approx([a, b], rel=1e-9, abs=1e-12)
    first = trace.topology(start=a, end=b).collapse("alpha").nodes.set_index("path").loc["alpha [HOST]", "ratio"]
    assert first == 1.0
    nb.page.mouse.move(0, 0)
    assert close(pixels_at(nb, el, "topology-first-thousandth", top), HOST_BLUE)
    nb.close()


def pixels_at(nb, el, name, point):
    return nb.screenshot(el, name).at(*point)


# -- kaleidoscope ------------------------------------------------------------


def static_figure(kal, view):
    """The Go core's figure of the layout: the window (width px square) at
    the left, below a 44 px title (plots/kaleido.go)."""
    return Pixels(kal.plot(view=view).to_bytes("png"))


def probe(df, r, f):
    """A point inside node r's part of its family's polygon (the parent,
    then the children in order, cut at the midpoints between neighbours):
    f of the way from the parent towards the point a quarter of the way
    from r to its next sibling (its previous one for the last child)."""
    parent = df[df.id == r.shown_parent].iloc[0]
    siblings = df[(df.shown_parent == r.shown_parent) & df.kept & df.drawn]
    pos = list(siblings.id).index(r.id)
    other = siblings.iloc[pos + 1] if pos + 1 < len(siblings) else siblings.iloc[pos - 1]
    tx, ty = 0.75 * r.x + 0.25 * other.x, 0.75 * r.y + 0.25 * other.y
    return parent.x + f * (tx - parent.x), parent.y + f * (ty - parent.y)


def fit_scale(df, side=600, margin=6):
    """Canvas pixels per layout pixel at zoom 1: the outermost drawn node
    at the canvas's edge, less the page's 6 px margin (the layout itself
    leaves a ring empty: 3 levels 100 px apart in a 600 px window reach
    only 200 px out of 300)."""
    shown = df[df.kept & df.drawn]
    return (side / 2 - margin) / float(np.hypot(shown.x, shown.y).max())


def clear_of_names(el):
    """Whether a canvas point is clear of the names written on the drawing
    (their boxes and a 2 px edge), where the pixels are the picture's."""
    names = el.element_handle().evaluate("el => el.__macroscope.names")
    return lambda x, y: all(abs(x - n["x"]) > n["w"] / 2 + 2 or abs(y - n["y"]) > n["h"] / 2 + 2 for n in names)


def test_kaleidoscope_hover_names_and_views_switch(lab, ms):
    trace = ms.read_paje(str(TRACE))
    kal = trace.call_tree().layout(width=600)
    df = kal.to_pandas()
    nb = lab.notebook([
        "import macroscope as ms",
        f"kal = ms.read_paje({str(TRACE)!r}).call_tree().layout(width=600)",
        "w = kal.explore()",
        "w",
    ])
    el = nb.widget(0, ".macroscope-kaleidoscope")
    nb.wait_frame(el, 1)
    assert int(el.get_attribute("data-count")) == int((df.kept & df.drawn).sum())
    W, H = plot_size(el)
    assert (W, H) == (600, 600)
    cx, cy, k = (float(v) for v in el.get_attribute("data-centre").split(","))
    assert (cx, cy) == (300, 300) and math.isclose(k, fit_scale(df), rel_tol=1e-6)
    assert k > 1.4  # the layout reaches 200 px of the 300: the page scales it by 294/200

    # Each rank's outermost state (level 1) owns a sector: a point 55 % of
    # the way from the centre to it lies in its part of the root's family,
    # painted in its PE's colour, as in the static figure (where no name
    # is written: the ranks' names are centred on their nodes).
    ranks = df[df.level == 1]
    assert len(ranks) == 32
    static = static_figure(kal, "pe")
    pixels = nb.screenshot(el, "kaleidoscope-pe")
    probes = [probe(df, r, 0.55) for r in ranks.itertuples()]
    clear = clear_of_names(el)
    checked = 0
    for (x, y), pe in zip(probes, ranks.pe):
        if not clear(cx + k * x, cy - k * y):
            continue
        want = static.at(300 + x, 344 - y)  # the window's centre in the static figure, drawn at scale 1
        assert close(pixels.at(cx + k * x, cy - k * y), want, 4), (pe, pixels.at(cx + k * x, cy - k * y), want)
        checked += 1
    assert checked >= 24
    assert len({static.at(300 + x, 344 - y) for x, y in probes}) >= 16  # PE colours, not background
    # The PE view names the centre (the tree's root, of no PE: by its
    # procedure) under its disc, then the ranks' nodes, the largest after
    # it, by their PE, each once, as many as fit without overlapping (26
    # of 32 at 600 px: those near the top and bottom are closer than a line).
    names = el.element_handle().evaluate("el => el.__macroscope.names")
    root = df.iloc[0]
    assert pd.isna(root.pe) and (names[0]["id"], names[0]["text"]) == (str(root.id), root.procedure) == ("0", "program")
    names = names[1:]
    pe_of = dict(zip(ranks.id.astype(str), ranks.pe))
    assert all(n["id"] in pe_of and n["text"] == pe_of[n["id"]] for n in names), names
    assert len({n["text"] for n in names}) == len(names) >= 24

    # Hover a rank's node: the tooltip names its procedure, PE and start.
    r = ranks.iloc[7]
    ox, oy = canvas_origin(el)
    nb.page.mouse.move(ox + cx + k * r.x, oy + cy - k * r.y)
    tip = el.locator(".ms-tooltip")
    tip.wait_for(state="visible")
    text = tip.inner_text()
    assert f"node {r.id}" in text and f"procedure: {r.procedure}" in text and f"PE: {r.pe}" in text
    start = float(text.split("start: ")[1].split(" s")[0])
    assert math.isclose(start, r.start, rel_tol=1e-5)
    nb.page.mouse.move(0, 0)

    # Switch to the time view: the same places take the time spectrum.
    frames = nb.frames(el)
    el.locator("button[data-view=time]").click()
    nb.page.wait_for_function("el => el.dataset.view === 'time'", arg=el.element_handle())
    nb.wait_frame(el, frames + 1)
    assert nb.value("w.view") == "time"
    static = static_figure(kal, "time")
    pixels = nb.screenshot(el, "kaleidoscope-time")
    clear = clear_of_names(el)
    for r in ranks.itertuples():
        x, y = probe(df, r, 0.55)
        if not clear(cx + k * x, cy - k * y):
            continue
        want = static.at(300 + x, 344 - y)
        assert close(pixels.at(cx + k * x, cy - k * y), want, 4), (r.id, pixels.at(cx + k * x, cy - k * y), want)
    # The calls (level 2) are slivers under a pixel wide, which the static
    # figure paints in their majority colour: there, the pixel must be
    # within 16 of the spectrum's colour (plots.Spectrum, checked by hand
    # values in test_widgets_views.py) of the start of the call or of a
    # neighbour (a pixel holds about ten, blended where two meet).
    from macroscope.widgets._colours import spectrum

    t0, t1 = df.start.min(), df.start.max()
    deep = df[(df.level == 2) & df.drawn].iloc[::250]
    checked = 0
    for r in deep.itertuples():
        x, y = probe(df, r, 0.9)
        if not clear(cx + k * x, cy - k * y):
            continue
        checked += 1
        got = pixels.at(cx + k * x, cy - k * y)
        siblings = df[(df.shown_parent == r.shown_parent) & df.drawn].reset_index(drop=True)
        j = int(siblings.index[siblings.id == r.id][0])
        near = [spectrum((t - t0) / (t1 - t0)) for t in siblings.start[max(0, j - 20):j + 21]]
        assert min(max(abs(g - w) for g, w in zip(got, c)) for c in near) <= 16, (r.id, got, near)
    assert checked >= 20

    # The wheel zooms about the pointer: the point under it stays.
    ox, oy = canvas_origin(el)
    nb.page.mouse.move(ox + cx + 100, oy + cy)
    centre = el.get_attribute("data-centre")
    nb.page.mouse.wheel(0, -400)
    nb.page.wait_for_function("([el, c]) => el.dataset.centre !== c", arg=[el.element_handle(), centre])
    cx2, cy2, k2 = (float(v) for v in el.get_attribute("data-centre").split(","))
    assert k2 > 1.5 * k
    # The layout point under the pointer, 100 / k from the centre, stays there.
    assert math.isclose((cx + 100 - cx2) / k2, 100 / k, abs_tol=0.01) and math.isclose(cy2, cy, abs_tol=0.01)
    nb.screenshot(el, "kaleidoscope-zoomed")

    # Double-click a rank: the view centres on its subtree, laid out anew.
    el.locator("button", has_text="reset zoom").click()
    r = ranks.iloc[3]
    sub = trace.call_tree().layout(width=600, subtree=int(r.id)).to_pandas()
    ox, oy = canvas_origin(el)
    frames = nb.frames(el)
    nb.page.mouse.dblclick(ox + cx + k * r.x, oy + cy - k * r.y)
    nb.page.wait_for_function("([el, n]) => +el.dataset.count === n",
                              arg=[el.element_handle(), int((sub.kept & sub.drawn).sum())])
    nb.wait_frame(el, frames + 1)
    assert nb.value("w.root") == str(r.id)
    nb.screenshot(el, "kaleidoscope-subtree")
    # Its calls are leaves alike: only the centre is named, by its
    # procedure (the time view's names).
    names = el.element_handle().evaluate("el => el.__macroscope.names")
    assert [(n["id"], n["text"]) for n in names] == [(str(r.id), r.procedure)]
    nb.close()


def test_kaleidoscope_fills_its_canvas_and_names_the_largest_nodes(lab, ms):
    """The explorer's picture spans its canvas (the outermost nodes at its
    edge, less 6 px) and names the largest nodes as the static figure's
    legend writes them: a tree of six procedures with names too long to
    show whole, under a root, each with 10, 20, ... 60 leaves; the centre
    is named first (under its disc), then the largest (60 leaves); every
    name is the Go core's short form (the legend's "short"), none overlap,
    and their text is drawn (dark pixels in each name's box)."""

    procs = [f"namespace::detail::very_long_kernel_name_{k}<float, 4>" for k in range(6)]
    rows = [(0, None, "main")] + [(1 + k, 0, procs[k]) for k in range(6)]
    for k in range(6):
        rows += [(len(rows) + j, 1 + k, "leaf") for j in range(10 * (k + 1))]
    df = pd.DataFrame(rows, columns=["id", "parent", "procedure"]).assign(pe="p0", start=lambda d: d.id * 1.0)
    cells = ["import macroscope as ms, pandas as pd",
             f"df = pd.DataFrame({rows!r}, columns=['id', 'parent', 'procedure'])"
             ".assign(pe='p0', start=lambda d: d.id * 1.0)",
             "kal = ms.CallTree.from_pandas(df).layout(width=600)",
             "w = kal.explore(view='procedure')",
             "w"]
    nb = lab.notebook(cells, name="kaleidoscope-names")
    el = nb.widget(0, ".macroscope-kaleidoscope")
    nb.wait_frame(el, 1)
    kal = ms.CallTree.from_pandas(df).layout(width=600)
    lay = kal.to_pandas()
    cx, cy, k = (float(v) for v in el.get_attribute("data-centre").split(","))
    assert math.isclose(k, fit_scale(lay), rel_tol=1e-6)

    # The picture's bounding box: every pixel not white.
    pixels = nb.screenshot(el, "kaleidoscope-names")
    S = pixels.width
    assert S == 600
    painted = [(x, y) for y in range(0, S, 2) for x in range(0, S, 2) if max(255 - c for c in pixels.at(x, y)) > 24]
    xs, ys = [p[0] for p in painted], [p[1] for p in painted]
    assert max(xs) - min(xs) >= 0.95 * S and max(ys) - min(ys) >= 0.95 * S, (min(xs), max(xs), min(ys), max(ys))

    names = el.element_handle().evaluate("el => el.__macroscope.names")
    legend = kal.legend("procedure")
    short = dict(zip(legend["labels"], legend["short"]))
    assert short[procs[5]] == "namespace::detai...ame_5<float, 4>"
    assert int(el.get_attribute("data-names")) == len(names) >= 2
    # The centre is named first, under its disc, then the largest node
    # (60 leaves), in its short form.
    assert (names[0]["id"], names[0]["text"]) == ("0", "main") and names[0]["y"] > cy
    assert names[1]["id"] == "6" and names[1]["text"] == short[procs[5]]
    by_id = dict(zip(lay.id.astype(str), lay.procedure))
    for n in names:
        assert n["text"] == short[by_id[n["id"]]]
    for a in names:
        for b in names:
            if a is not b:
                assert (abs(a["x"] - b["x"]) * 2 >= a["w"] + b["w"] - 0.01
                        or abs(a["y"] - b["y"]) * 2 >= a["h"] + b["h"] - 0.01), (a, b)
    for n in names:  # its text, black on a white edge, is drawn
        dark = sum(1 for x in range(int(n["x"] - n["w"] / 2), int(n["x"] + n["w"] / 2))
                   for y in range(int(n["y"] - 4), int(n["y"] + 4)) if max(pixels.at(x, y)) < 90)
        assert dark >= 2 * len(n["text"]), (n, dark)
    nb.close()


def test_treemap_legend_names_no_state(lab, ms, tmp_path):
    """A rank idle half the run: the treemap's strips leave white, and its
    legend says what white is ("no state"); the bundled trace, busy but for
    0.02 % of its time, has no such entry."""
    from conftest import paje_header

    path = tmp_path / "idle.trace"
    path.write_text(paje_header("PajeDefineContainerType", "PajeDefineStateType", "PajeCreateContainer",
                                "PajePushState", "PajePopState")
                    + "0 R 0 Rank\n1 S R State\n2 0 r0 R 0 rank-0\n2 0 r1 R 0 rank-1\n"
                    + "3 0 S r0 Compute\n3 0 S r1 Compute\n4 5 S r1\n4 10 S r0\n")
    nb = lab.notebook([
        "import macroscope as ms",
        f"idle = ms.read_paje({str(path)!r}).micro(slices=10).aggregate(0.0, kind='spatial').explore_treemap()",
        "idle",
        f"busy = ms.read_paje({str(TRACE)!r}).micro(slices=20).aggregate(0.0, kind='spatial').explore_treemap()",
        "busy",
    ], name="treemap-no-state")
    # The first widget's element, and the last one's (an element of the
    # class may hold another of it).
    idle = nb.widget(0, ".macroscope-treemap")
    busy = nb.page.locator(f"{nb.panel} .macroscope-treemap").last
    nb.wait_frame(idle, 1)
    nb.wait_frame(busy, 1)
    idle_legend = idle.locator(".macroscope-legend").inner_text()
    assert "Compute" in idle_legend and "no state" in idle_legend, idle_legend
    assert "no state" not in busy.locator(".macroscope-legend").inner_text()
    nb.close()
