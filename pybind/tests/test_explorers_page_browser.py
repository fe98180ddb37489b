"""Every explorer on one JupyterLab page as a user sees it: 1,280 px wide
with the side panel open, each asked wider than the notebook's output
area. Checked in Debian's chromium: no panel cut (every canvas, bar and
legend inside the output area, no text clipped), the colours those of the
static figures by pixel (each legend swatch's colour is painted in the
figure the Go core draws of the same result: ``agg.plot()``,
``moments.plot()``, ...), times read from the trace's start (the titles,
the axes the canvases write, the tooltips), and a label at every row of
an Nsight profile's overview and "other" in its legend. The page is saved
under build/test-output/widgets/explorers-1280.png."""

from __future__ import annotations

import pathlib
import re

import pytest

from conftest import SHARED
from test_compare import write_bsp
from widget_harness import OUTPUT, Pixels, skip_without_browser  # the lab fixture comes from conftest.py

ROOT = pathlib.Path(__file__).resolve().parents[2]
TRACE = ROOT / "testdata" / "jacobi32.trace"
PLATFORM = ROOT / "testdata" / "jacobi32-platform.trace"
NSYS = SHARED / "nsys" / "mfu_2gpu_before.sqlite"

# Records what each canvas writes (fillText), so that the axes' labels can
# be read: the last 400 texts of each canvas.
RECORD_TEXT = """
(() => {
  const fill = CanvasRenderingContext2D.prototype.fillText;
  CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
    const c = this.canvas;
    const t = c.__texts || (c.__texts = []);
    t.push(String(text));
    if (t.length > 400) t.splice(0, t.length - 400);
    return fill.call(this, text, ...rest);
  };
})();
"""

# Per explorer: the selector of its root element, and the Python name of
# the widget and of the static figure of the same result.
EXPLORERS = {
    "overview": (".ms-overview", "w_overview", "m.aggregate(w_overview.view['p']).plot()"),
    "moments": (".ms-moments", "w_moments", None),  # no states: grey levels of busy time, no legend
    "treemap": (".macroscope-treemap", "w_treemap", "cut.plot_treemap()"),
    "compare": (".macroscope-compare", "w_compare", "w_compare.differences.plot()"),
    "topology": (".macroscope-topology", "w_topology", None),  # colours by kind, not by state
    "kaleidoscope": (".macroscope-kaleidoscope", "w_kaleidoscope", "kal.plot(view='procedure')"),
}


@pytest.fixture(scope="module")
def ms():
    skip_without_browser()
    import macroscope

    return macroscope


# Where the runs start on their clock: an instant as real traces have them
# (seconds since 1970), so that a time not read from the start shows.
ORIGIN = 1_600_000_000


def _shifted(path: pathlib.Path) -> pathlib.Path:
    """The Pajé trace at ``path`` with every event's time moved by ORIGIN."""
    out = []
    for line in path.read_text().splitlines(keepends=True):
        f = line.split(" ", 2)
        if f[0] in ("2", "3"):
            line = f"{f[0]} {float(f[1]) + ORIGIN:.9f} {f[2]}"
        out.append(line)
    path.write_text("".join(out))
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    d = tmp_path_factory.mktemp("page")
    return [_shifted(write_bsp(d / "a.trace", ranks=24, per_node=6, iterations=40, seed=1)),
            _shifted(write_bsp(d / "slow.trace", ranks=24, per_node=6, iterations=40, seed=2, slow=9, slowdown=0.3))]


FITS = """root => {
    // Everything of the explorer inside the output area, and no text cut:
    // no element clips what it holds (its scroll width is its width).
    const a = root.closest(".jp-OutputArea-output").getBoundingClientRect();
    const out = [];
    for (const e of [root, ...root.querySelectorAll("*")]) {
        const r = e.getBoundingClientRect();
        if (r.width === 0 || getComputedStyle(e).display === "none" || e.classList.contains("ms-tooltip")) continue;
        if (r.left < a.left - 0.5 || r.right > a.right + 0.5)
            out.push(`${e.tagName}.${e.className}: ${r.left.toFixed(1)}-${r.right.toFixed(1)} outside ${a.left.toFixed(1)}-${a.right.toFixed(1)}`);
        if (e.tagName !== "CANVAS" && e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== "visible")
            out.push(`${e.tagName}.${e.className}: clips ${e.scrollWidth} to ${e.clientWidth} px: ${e.textContent.slice(0, 80)}`);
    }
    return out;
}"""

SWATCHES = """root => [...root.querySelectorAll("span")].filter(s => {
    const r = s.getBoundingClientRect();
    return r.width === 10 && r.height === 10 && s.childElementCount === 0 && !s.textContent;
}).map(s => [s.parentElement.textContent.trim(), getComputedStyle(s).backgroundColor])"""


def _rgb(css: str) -> tuple[int, int, int]:
    return tuple(int(v) for v in re.findall(r"\d+", css)[:3])


def _colours(png: bytes) -> set[tuple[int, int, int]]:
    px = Pixels(png)
    return {px.at(x, y) for y in range(px.height) for x in range(px.width)}


def test_every_explorer_fits_1280_px_with_the_side_panel_in_the_figures_colours(lab, ms, runs):
    cells = [
        "import macroscope as ms",
        f"t = ms.read_paje({str(TRACE)!r})",
        f"run = ms.read_paje({str(runs[1])!r})",
        "m = run.micro(slices=40)",
        "w_overview = m.explore(width=2400)\nw_overview",
        "mo = run.moments()\nw_moments = mo.explore(width=2400)\nw_moments",
        "cut = t.micro(slices=40).aggregate(0.0, kind='spatial')\nw_treemap = cut.explore_treemap()\nw_treemap",
        f"cmp = ms.compare([{str(runs[0])!r}, {str(runs[1])!r}], slices=20, progress=False)\n"
        "w_compare = cmp.explore(width=2400)\nw_compare",
        f"w_topology = ms.read_paje({str(PLATFORM)!r}).topology().explore(height=420, iterations=200)\nw_topology",
        "kal = t.call_tree().layout(width=600)\nw_kaleidoscope = kal.explore(view='procedure')\nw_kaleidoscope",
    ]
    nb = lab.notebook(cells, name="explorers-1280", init=RECORD_TEXT)
    nb.page.set_viewport_size({"width": 1280, "height": 1000})
    nb.page.evaluate("() => window.jupyterapp.shell.expandLeft()")
    roots = {}
    for name, (sel, _, _) in EXPLORERS.items():
        el = nb.page.locator(f"{nb.panel} {sel}").first
        nb.wait_frame(el, 1)
        roots[name] = el
    # The side panel takes its room; the widgets follow the area's width.
    area = roots["overview"].evaluate("e => e.closest('.jp-OutputArea-output').clientWidth")
    assert 0 < area < 1280 - 200
    nb.page.wait_for_function(
        "els => els.every(e => e.querySelector('canvas').getBoundingClientRect().right <= "
        "e.closest('.jp-OutputArea-output').getBoundingClientRect().right + 0.5)",
        arg=[roots[n].element_handle() for n in ("overview", "moments", "compare")], timeout=30_000)
    OUTPUT.mkdir(parents=True, exist_ok=True)
    nb.page.screenshot(path=str(OUTPUT / "explorers-1280.png"), full_page=True)

    problems = {}
    for name, el in roots.items():
        el.scroll_into_view_if_needed()
        el.screenshot(path=str(OUTPUT / f"explorers-1280-{name}.png"))
        bad = el.evaluate(FITS)
        if bad:
            problems[name] = bad
    assert not problems, problems

    # The colours: every swatch of an explorer's legend is painted in the
    # static figure the Go core draws of the same result.
    for name, (sel, widget, figure) in EXPLORERS.items():
        if figure is None:
            continue
        sw = roots[name].evaluate(SWATCHES)
        assert sw, f"{name}: no legend swatch"
        png = nb.value(f"__import__('base64').b64encode({figure}.to_bytes('png')).decode()")
        painted = _colours(__import__("base64").b64decode(png))
        missing = [(label, c) for label, c in sw if _rgb(c) not in painted]
        assert not missing, f"{name}: legend colours not in its figure: {missing}"

    # Times from the trace's start (the runs start at ORIGIN on their
    # clock): the axes count from 0 and say where that is, once; the
    # title and the tooltips count from 0.
    absolute = re.compile(r"\d{7,}(\.\d*)?|\d(\.\d+)?e\+?\d+")
    for name in ("overview", "moments", "compare"):
        texts = roots[name].evaluate("e => [...e.querySelectorAll('canvas')].flatMap(c => c.__texts || [])")
        axis = [t for t in texts if t.startswith("time")]
        assert axis and all(t.startswith("time from the trace's start (") and f"{ORIGIN} s on its clock" in t
                            for t in axis), f"{name}: {axis or texts[:20]}"
        ticks = [t for t in texts if re.fullmatch(r"-?[\d.]+", t)]
        assert ticks and all(float(t) < 1e6 for t in ticks), f"{name}: ticks {ticks[:20]}"
    title = roots["overview"].locator(".ms-title").text_content()
    assert re.fullmatch(r"0-[\d.]+ s", title), title
    el = roots["overview"]
    el.scroll_into_view_if_needed()
    box = el.locator("canvas.ms-overlay").first.bounding_box()
    x0, y0, w, h = (float(v) for v in el.get_attribute("data-plot").split(","))
    nb.page.mouse.move(box["x"] + x0 + w / 2, box["y"] + y0 + h / 2)
    tip = el.locator(".ms-tooltip")
    tip.wait_for(state="visible")
    text = tip.inner_text()
    assert re.search(r"\d s", text) and not absolute.search(text), text
    compare = roots["compare"]
    compare.scroll_into_view_if_needed()
    box = compare.locator("canvas.ms-overlay").first.bounding_box()
    x0, y0, w, h = (float(v) for v in compare.get_attribute("data-plot").split(","))
    nb.page.mouse.move(box["x"] + x0 + w / 2, box["y"] + y0 + h / 2)
    tip = compare.locator(".ms-tooltip")
    tip.wait_for(state="visible")
    text = tip.inner_text()
    assert not absolute.search(text), text
    nb.close()


def test_an_nsight_overview_at_1280_px_names_every_row_and_other(lab, ms):
    """The overview of an Nsight profile (more states than a figure colours
    apart) at 1,280 px with the side panel open: "other" in its legend in
    the figure's colour, a label at every row (CPU threads and GPU streams),
    nothing cut."""
    if not NSYS.exists():
        pytest.skip(f"{NSYS} is not available")
    model = ms.read_micro(NSYS, slices=50, progress=False)
    rows = model.resources
    height = max(600, 14 * rows + 150)
    nb = lab.notebook([
        "import macroscope as ms",
        f"m = ms.read_micro({str(NSYS)!r}, slices=50, progress=False)",
        f"w = m.explore(width=2400, height={height})\nw",
    ], name="nsys-1280", init=RECORD_TEXT)
    nb.page.set_viewport_size({"width": 1280, "height": height + 400})
    nb.page.evaluate("() => window.jupyterapp.shell.expandLeft()")
    el = nb.page.locator(f"{nb.panel} .ms-overview").first
    nb.wait_frame(el, 1)
    nb.page.wait_for_function(
        "e => e.querySelector('canvas').getBoundingClientRect().right <= "
        "e.closest('.jp-OutputArea-output').getBoundingClientRect().right + 0.5", arg=el.element_handle(),
        timeout=30_000)
    el.screenshot(path=str(OUTPUT / "explorers-1280-nsys.png"))
    bad = el.evaluate(FITS)
    assert not bad, bad
    sw = dict(el.evaluate(SWATCHES))
    assert "other" in sw, list(sw)
    png = nb.value("__import__('base64').b64encode(m.aggregate(w.view['p']).plot().to_bytes('png')).decode()")
    painted = _colours(__import__("base64").b64decode(png))
    missing = [(label, c) for label, c in sw.items() if _rgb(c) not in painted]
    assert not missing, missing
    # A label written at every row: the row labels the canvas writes (the
    # leaves' names), one per row at least.
    texts = el.evaluate("e => e.querySelector('canvas.ms-main').__texts || []")
    nb.run("from macroscope import _bridge\nh = _bridge.table(m._h.Hierarchy).to_pandas()\n"
           "leaves = h[~h.id.isin(h.parent.dropna())].sort_values('row_lo')")
    names = nb.value("leaves.name.astype(str).tolist()")
    assert len(names) == rows
    unlabelled = [n for n in names if not any(n in t or t.rstrip('…').rstrip('.') in n for t in texts)]
    assert not unlabelled, f"rows without a label: {unlabelled[:10]} of {rows}"
    nb.close()
