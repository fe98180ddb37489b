"""The widgets in a real browser: JupyterLab on localhost, the notebook
run in it, the widget driven by Playwright (keyboard on the slider, mouse
drag to brush, hover, click), screenshots under build/test-output/widgets/
checked by pixel colour at the centres of known aggregates.

The expected pictures are computed here, in the test's own process, from
the model (``model.aggregate(p)``, the resources' order in the model's
table, the static figures' colours): not from what the widget sent."""

from __future__ import annotations

import math
import pathlib

import numpy as np
import pytest

# The lab fixture comes from conftest.py: one per session.
from widget_harness import OUTPUT, check_pixels, expected_rects, mid_p, plot_of, skip_without_browser
from conftest import SHARED

ROOT = pathlib.Path(__file__).resolve().parents[2]
TRACE = ROOT / "testdata" / "jacobi32.trace"
SLICES = 30


def trace_colours(path) -> dict[str, str]:
    """The colours a Pajé file defines for its values (event 5 of
    jacobi32.trace: alias, type, name, "r g b" in [0, 1]), "#rrggbb"."""
    import re

    out = {}
    for line in pathlib.Path(path).read_text().splitlines():
        m = re.fullmatch(r'5 \S+ \S+ (\S+) "([\d.]+) ([\d.]+) ([\d.]+)"', line)
        if m:
            out[m[1]] = "#" + "".join(f"{round(255 * float(v)):02x}" for v in m.groups()[1:])
    return out


def mode_of(agg, rect) -> str:
    """The mode state of the aggregate an expected rectangle draws (its
    node and first slice)."""
    df = agg.to_pandas()
    return str(df[(df.node == rect[3]) & (df.first_slice == rect[4])]["mode"].iloc[0])


@pytest.fixture(scope="module")
def ms():
    skip_without_browser()
    import macroscope

    return macroscope


@pytest.fixture(scope="module")
def trace(ms):
    return ms.read_paje(str(TRACE))


@pytest.fixture(scope="module")
def model(trace):
    return trace.micro(slices=SLICES)


def test_overview_slider_brush_hover_click(lab, ms, trace, model):
    nb = lab.notebook([
        "import macroscope as ms",
        f"trace = ms.read_paje({str(TRACE)!r})",
        f"model = trace.micro(slices={SLICES})",
        "w = model.explore(width=900, height=420)\nw",
    ], name="overview")
    el = nb.widget(0)
    nb.wait_frame(el, 1)
    plot = plot_of(el)
    el.screenshot(path=str(OUTPUT / "overview-widget.png"))  # the whole widget, for the eye
    levels = model.significant_p()
    rec = int(np.flatnonzero(levels.recommended.to_numpy())[0])

    # The first picture: the recommended level, as model.aggregate draws it.
    agg = model.aggregate(mid_p(levels, rec))
    assert int(el.get_attribute("data-count")) == len(agg)
    assert int(el.get_attribute("data-level")) == rec
    pixels = nb.screenshot(el, "overview-recommended")
    checked = check_pixels(pixels, expected_rects(model, agg, plot))
    assert checked >= 3
    # One set of colours: the page paints the states in the colours the
    # trace file defines for them (PajeDefineEntityValue), as the static
    # figure does, not in a palette of its own.
    own = trace_colours(TRACE)
    colors = [own[s] if s != "PMPI_Finalize" else "#000000" for s in model.states]  # Finalize repeats Init's
    rects = [r for r in expected_rects(model, agg, plot, colors=colors) if mode_of(agg, r) != "PMPI_Finalize"]
    assert any(mode_of(agg, r) == "Compute" for r in rects)
    check_pixels(pixels, rects)

    # The slider, by keyboard: each step shows the next level.
    slider = el.locator("input.ms-level")
    steps = [("Home", 0), ("ArrowRight", 1), ("End", len(levels) - 1), ("ArrowLeft", len(levels) - 2)]
    for key, level in steps:
        frames = nb.frames(el)
        slider.focus()
        slider.press(key)
        nb.wait_frame(el, frames + 1)
        agg = model.aggregate(mid_p(levels, level))
        assert int(el.get_attribute("data-level")) == level
        assert int(el.get_attribute("data-count")) == len(agg)
        rects = expected_rects(model, agg, plot)
        if rects:
            check_pixels(nb.screenshot(el, f"overview-level-{level}"), rects)
    assert nb.value("w.level") == len(levels) - 2
    assert nb.value("len(w.view_table())") == len(model.aggregate(mid_p(levels, len(levels) - 2)))

    # Once the page holds every level (Python ships them after the first
    # frame, a chunk at a time), a step is drawn by the page alone, without
    # waiting for Python, and is still model.aggregate(p).
    nb.page.wait_for_function("([el, n]) => +(el.dataset.levels || 0) >= n", arg=[el.element_handle(), len(levels)],
                              timeout=180_000)
    last = len(levels) - 1
    for key, level in [("ArrowLeft", last - 2), ("Home", 0), ("ArrowRight", 1), ("ArrowRight", 2),
                       ("End", last), ("ArrowLeft", last - 1)]:
        frames = nb.frames(el)
        slider.focus()
        slider.press(key)
        nb.wait_frame(el, frames + 1)
        agg = model.aggregate(mid_p(levels, level))
        assert el.get_attribute("data-source") == "page"
        assert int(el.get_attribute("data-level")) == level
        assert int(el.get_attribute("data-count")) == len(agg)
        rects = expected_rects(model, agg, plot)
        if rects:
            check_pixels(nb.screenshot(el, f"overview-page-level-{level}"), rects)
    assert nb.value("w.level") == last - 1
    assert nb.value("len(w.view_table())") == len(model.aggregate(mid_p(levels, last - 1)))

    # Brushing a quarter of the time axis zooms: the window's model is
    # rebuilt from the trace and shown at its recommended level.
    x0, y0, w, h = plot
    box = el.locator("canvas.ms-overlay").bounding_box()
    frames = nb.frames(el)
    xa, xb = x0 + 0.25 * w, x0 + 0.5 * w
    nb.page.mouse.move(box["x"] + xa, box["y"] + y0 + h / 2)
    nb.page.mouse.down()
    nb.page.mouse.move(box["x"] + (xa + xb) / 2, box["y"] + y0 + h / 2, steps=4)
    nb.page.mouse.move(box["x"] + xb, box["y"] + y0 + h / 2, steps=4)
    nb.page.mouse.up()
    nb.wait_frame(el, frames + 1)
    start, end, slices = nb.value("[w.model.start, w.model.end, w.model.slices]")
    span = model.end - model.start
    assert abs(start - (model.start + 0.25 * span)) <= span / w
    assert abs(end - (model.start + 0.5 * span)) <= span / w
    zoomed = trace.micro(slices=SLICES, start=start, end=end)
    assert slices == SLICES
    zl = zoomed.significant_p()
    zrec = int(np.flatnonzero(zl.recommended.to_numpy())[0])
    zagg = zoomed.aggregate(mid_p(zl, zrec))
    assert int(el.get_attribute("data-count")) == len(zagg)
    check_pixels(nb.screenshot(el, "overview-zoomed"), expected_rects(zoomed, zagg, plot))

    # Hovering an aggregate names it, with its mode, gain and loss: the
    # one of most resources (then the longest), drawn at least 8 pixels.
    drawn = {(r[3], r[4]): r for r in expected_rects(zoomed, zagg, plot)}
    big = zagg.to_pandas().assign(span=lambda d: d.last_slice - d.first_slice)
    big = big[[k in drawn for k in zip(big.node, big.first_slice)]]
    big = big.sort_values(["leaves", "span"], ascending=False).iloc[0]
    cx, cy, _, node, _ = drawn[(big.node, big.first_slice)]
    box = el.locator("canvas.ms-overlay").bounding_box()
    nb.page.mouse.move(box["x"] + cx, box["y"] + cy)
    tip = el.locator(".ms-tooltip")
    tip.wait_for(state="visible")
    text = tip.inner_text()
    assert node in text and "mode:" in text and "gain" in text
    nb.page.wait_for_function("(t) => t.textContent.includes('%')", arg=tip.element_handle())

    # Clicking it opens the cells of its resources over its time range,
    # drawn by the page from the cells of the model it holds (shipped after
    # the first frame, before the levels), without waiting for Python.
    nb.page.wait_for_function("(el) => +(el.dataset.cells || 0) >= 2 && +(el.dataset.levels || 0) >= 1",
                              arg=el.element_handle())
    frames = nb.frames(el)
    nb.page.mouse.click(box["x"] + cx, box["y"] + cy)
    nb.wait_frame(el, frames + 1)
    assert el.get_attribute("data-kind") == "detail"
    assert el.get_attribute("data-source") == "page"
    sel = nb.value("w.selection['node']")
    assert sel == node
    assert nb.value("[w.selection['first_slice'], w.selection['last_slice']]") == [big.first_slice, big.last_slice]
    assert int(el.get_attribute("data-count")) == big.leaves * (big.span + 1)
    # Each cell in the colour of its mode state, at the opacity of its share.
    from macroscope.widgets._base import model_colours

    colors = model_colours(zoomed)  # the overview figure's (one set of colours)
    cells = zoomed.to_pandas()
    order = list(cells.resource.drop_duplicates())
    lo = order.index(sel_first := nb.value("w.view_table().resource.iloc[0]"))
    pixels = nb.screenshot(el, "detail")
    x0, y0, w, h = plot
    nrows, nslices = int(big.leaves), int(big.span) + 1
    checked = 0
    for r in range(nrows):
        for k in range(nslices):
            one = cells[(cells.resource == order[lo + r]) & (cells.slice == big.first_slice + k)]
            v = one.proportion.max()
            if v <= 0 or w / nslices < 6 or h / nrows < 6:
                continue
            c = colors[zoomed.states.index(one.state.iloc[int(np.argmax(one.proportion.to_numpy()))])]
            alpha = math.floor(30 + 225 * min(v, 1))
            rgb = tuple(round(255 - alpha * (255 - int(c[j:j + 2], 16)) / 255) for j in (1, 3, 5))
            check_pixels(pixels, [(x0 + (k + 0.5) * w / nslices, y0 + (r + 0.5) * h / nrows, rgb, order[lo + r])])
            checked += 1
    assert checked > 0
    assert big.depth == 0 or sel_first.startswith(node + "/")

    # Back twice: the zoomed overview, then the first one, both drawn by
    # the page from the levels it holds; Python follows.
    for expected, agg_then in ((len(zagg), zagg), (len(model.aggregate(mid_p(levels, len(levels) - 2))), None)):
        frames = nb.frames(el)
        el.locator("button.ms-back").click()
        nb.wait_frame(el, frames + 1)
        assert el.get_attribute("data-kind") == "overview"
        assert el.get_attribute("data-source") == "page"
        assert int(el.get_attribute("data-count")) == expected
        assert nb.value("[w.current.kind, len(w.view_table())]") == ["overview", expected]
        if agg_then is not None:
            check_pixels(nb.screenshot(el, "overview-back"), expected_rects(zoomed, agg_then, plot))
    assert nb.value("w.selection['node']") == node
    assert el.locator("button.ms-back").is_disabled()
    # Forward: the zoomed overview again.
    frames = nb.frames(el)
    el.locator("button.ms-forward").click()
    nb.wait_frame(el, frames + 1)
    assert int(el.get_attribute("data-count")) == len(zagg)
    assert nb.value("[w.model.start, w.model.end]") == [start, end]
    nb.close()


def test_a_large_model_opens_first_and_gets_its_levels_after(lab, ms, trace, model):
    """A costly sweep runs after the first frame: the page first shows the
    recommended level with a slider of one position, then, the levels
    known, the same level with a slider over all of them."""
    nb = lab.notebook([
        "import macroscope as ms",
        "from macroscope.widgets import _overview",
        "_overview.BACKGROUND_SWEEP_COST = 0  # the bundled model counts as large",
        f"trace = ms.read_paje({str(TRACE)!r})",
        f"model = trace.micro(slices={SLICES + 5})",
        "w = model.explore(width=900, height=420)\nw",
    ], name="overview-background-levels")
    el = nb.widget(0)
    nb.wait_frame(el, 1)
    slider = el.locator("input.ms-level")
    m = trace.micro(slices=SLICES + 5)
    levels = m.significant_p()
    rec = int(np.flatnonzero(levels.recommended.to_numpy())[0])
    agg = m.aggregate(mid_p(levels, rec))
    assert int(el.get_attribute("data-count")) == len(agg)
    nb.run("w.wait_levels(120)")
    nb.page.wait_for_function("([s, n]) => +s.max === n", arg=[slider.element_handle(), len(levels) - 1],
                              timeout=60_000)
    assert int(el.get_attribute("data-level")) == rec
    assert int(el.get_attribute("data-count")) == len(agg)
    frames = nb.frames(el)
    slider.focus()
    slider.press("End")
    nb.wait_frame(el, frames + 1)
    assert int(el.get_attribute("data-level")) == len(levels) - 1
    assert int(el.get_attribute("data-count")) == len(m.aggregate(mid_p(levels, len(levels) - 1)))


def test_moments_hover(lab, ms, trace):
    nb = lab.notebook([
        "import macroscope as ms",
        f"mo = ms.read_paje({str(TRACE)!r}).moments()",
        "w = mo.explore(width=800)\nw",
    ], name="moments")
    el = nb.widget(0)
    nb.wait_frame(el, 1)
    df = trace.moments().to_pandas()
    assert int(el.get_attribute("data-count")) == len(df)
    x0, y0, w, h = plot_of(el)
    box = el.locator("canvas.ms-overlay").bounding_box()
    pixels = nb.screenshot(el, "moments")
    mo = trace.moments()
    t0, t1 = mo.start, mo.end
    lh = h / len(df)
    for i in (0, len(df) // 2, len(df) - 1):
        r = df.iloc[i]
        # The mean tick is black (above the skew line, which crosses the
        # row's middle).
        y = y0 + (i + 0.5) * lh - 2.5
        x = x0 + (r.m1 - t0) / (t1 - t0) * w
        assert pixels.at(x, y) == (0, 0, 0)
        nb.page.mouse.move(box["x"] + x, box["y"] + y)
        tip = el.locator(".ms-tooltip")
        tip.wait_for(state="visible")
        text = tip.inner_text()
        assert r.resource in text and "m0 =" in text and "m3 =" in text
    nb.close()


def _fits(el) -> bool:
    """Every canvas of the widget inside the widget's own box (no panel cut)."""
    return el.evaluate("""e => {
        const box = e.getBoundingClientRect();
        return [...e.querySelectorAll("canvas")].every(c => {
            const r = c.getBoundingClientRect();
            return r.width > 0 && r.left >= box.left - 0.5 && r.right <= box.right + 0.5;
        });
    }""")


def test_explorers_fit_the_output_area(lab, ms, trace):
    """Asked wider than the notebook's output area (JupyterLab at 1,280 px
    with its side panel open), the overview and the moments draw at the
    area's width, and again when the area narrows; asked narrower, they keep
    the width asked."""
    nb = lab.notebook([
        "import macroscope as ms",
        f"t = ms.read_paje({str(TRACE)!r})",
        "m = t.micro(slices=40)",
        "wide = m.explore(width=2400)\nwide",
        "mo = t.moments().explore(width=2400)\nmo",
        "small = m.explore(width=700)\nsmall",
    ], name="fit")
    nb.page.set_viewport_size({"width": 1280, "height": 1000})
    nb.page.evaluate("() => window.jupyterapp.shell.expandLeft()")
    wide, moments, small = nb.widget(0), nb.widget(1), nb.widget(2)
    for el in (wide, moments, small):
        nb.wait_frame(el, 1)
    # The side panel takes its room: the output area is narrower than asked.
    area = wide.evaluate("e => e.clientWidth")
    assert 0 < area < 1280 - 200
    nb.page.wait_for_function("els => els.every(e => e.querySelector('canvas').getBoundingClientRect().right "
                              "<= e.getBoundingClientRect().right + 0.5)",
                              arg=[wide.element_handle(), moments.element_handle()], timeout=30_000)
    for el in (wide, moments, small):
        assert _fits(el)
    # The overview and its quality curves share the area's width.
    main = wide.locator("canvas.ms-main").first.bounding_box()["width"]
    quality = wide.locator("canvas.ms-quality").first.bounding_box()["width"]
    assert abs(main + 8 + quality - area) <= 1, (main, quality, area)
    # Asked narrower than the area: the width asked.
    main_small = small.locator("canvas.ms-main").first.bounding_box()["width"]
    assert main_small == 700 - 8 - quality
    # The area narrows: the widgets follow.
    before = nb.frames(wide)
    nb.page.set_viewport_size({"width": 1000, "height": 1000})
    nb.wait_frame(wide, before + 1)
    assert wide.evaluate("e => e.clientWidth") < area and _fits(wide) and _fits(moments)
    nb.close()


def test_overview_labels_every_row_of_an_uneven_hierarchy(lab):
    """An Nsight profile's CPU threads sit higher in its hierarchy than its
    GPU streams: every row of the overview still has its label, marked by
    the tick at its top left of the plot."""
    nsys = SHARED / "nsys" / "mfu_2gpu_before.sqlite"
    if not nsys.exists():
        pytest.skip(f"{nsys} is not available")
    import macroscope as ms

    model = ms.read_micro(nsys, slices=50, progress=False)
    leaves = model.resources  # rows; paths may repeat
    # Tall enough for every row to get its 12 pixels (67 rows since the
    # export's synchronisation records: a row per stream and state type).
    height = max(600, 14 * leaves + 150)
    nb = lab.notebook([
        "import macroscope as ms",
        f"m = ms.read_micro({str(nsys)!r}, slices=50, progress=False)",
        f"w = m.explore(width=1000, height={height})\nw",
    ], name="nsys-rows")
    nb.page.set_viewport_size({"width": 1400, "height": height + 400})  # the whole widget in view
    el = nb.widget(0)
    nb.wait_frame(el, 1)
    x0, y0, w, h = plot_of(el)
    pixels = nb.screenshot(el, "nsys-rows")
    def marked(r):  # the tick, 1 px high at a fractional y: blended over the pixels around it
        y = y0 + r * h / leaves
        return any(sum(pixels.at(x0 - 2, yy)[:3]) < 3 * 160 for yy in (math.floor(y) - 1, math.floor(y), math.floor(y) + 1))

    unmarked = [r for r in range(leaves) if not marked(r)]
    assert not unmarked, f"rows without a label: {unmarked} of {leaves}"
    nb.close()


def test_overview_marks_the_steps(lab):
    """A PyTorch profile's overview explorer marks where each step starts,
    as the static figure does: a dashed dark grey line down the plot at
    each mark's time (the model's steps, seconds from the trace's start),
    on the time axis the page draws."""
    path = SHARED / "hta" / "tests" / "data" / "df_index_resolver" / "df_index_resolver.json.gz"
    if not path.exists():
        pytest.skip(f"{path} is not available")
    import macroscope as ms
    from macroscope._clock import relative

    model = ms.read(path).micro(slices=40)
    start, end = relative(model._info)
    marks = [mk["t"] for mk in model._info["steps"]["marks"]]
    assert marks == list(model.steps.start) + [max(model.steps.end)]
    nb = lab.notebook([
        "import macroscope as ms",
        f"m = ms.read({str(path)!r}).micro(slices=40)",
        "w = m.explore(width=1000, height=420)\nw",
    ], name="steps")
    nb.page.set_viewport_size({"width": 1400, "height": 900})
    el = nb.widget(0)
    nb.wait_frame(el, 1)
    x0, y0, w, h = plot_of(el)
    pixels = nb.screenshot(el, "steps")

    def dashed(x):  # rows of the column at x (or a pixel beside) in the line's dark grey
        n = 0
        for y in range(int(y0) + 16, int(y0 + h) - 1):
            for xx in (math.floor(x) - 1, math.floor(x), math.floor(x) + 1):
                r, g, b = pixels.at(xx, y)
                if max(r, g, b) < 100 and max(r, g, b) - min(r, g, b) < 16:
                    n += 1
                    break
        return n

    for t in marks:
        x = x0 + (t - start) / (end - start) * w
        assert dashed(x) > 0.3 * h, f"no step line at {t:g} s (x = {x:.1f})"
    nb.close()
