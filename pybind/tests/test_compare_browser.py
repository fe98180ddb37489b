"""cmp.explore() in a real browser: JupyterLab runs the notebook,
Playwright moves the slider, drags and hovers in Debian's chromium, and the
screenshots (build/test-output/widgets/) are checked by pixel colour at the
centres of aggregates computed here, in the test's process, from each
run's own model read by ms.read_micro (not from what the widget sent)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from test_compare import write_bsp
from widget_harness import OUTPUT, skip_without_browser  # the lab fixture comes from conftest.py

SLICES = 20


@pytest.fixture(scope="module")
def ms():
    skip_without_browser()
    import macroscope

    return macroscope


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    d = tmp_path_factory.mktemp("explore")
    return [write_bsp(d / "a.trace", ranks=24, per_node=6, iterations=40, seed=1),
            write_bsp(d / "slow.trace", ranks=24, per_node=6, iterations=40, seed=2, slow=9, slowdown=0.3)]


def expected_centres(ms, runs, parts, plot, run, first=0, last=SLICES - 1, min_px=6):
    """The centre and colour of every aggregate drawn at least min_px wide
    and high in run ``run``'s panel: its rows (resources) and slices, and
    the mode among the run's states over them (summed from the run's own
    model), at opacity 30 + 225 min(v, 1) on white."""
    from macroscope.widgets import state_colors

    x0, y0, w, h = plot
    model = ms.read_micro(runs[run], slices=SLICES)
    cells = model.to_pandas()
    order = list(cells.resource.drop_duplicates())
    states = model.states
    colours = state_colors(len(parts.states))
    n = last - first + 1
    out = []
    for a in parts.itertuples():
        if a.last_slice < first or a.first_slice > last:
            continue
        xa = x0 + (max(a.first_slice, first) - first) / n * w
        xb = x0 + (min(a.last_slice, last) + 1 - first) / n * w
        ya, yb = y0 + a.row_first / len(order) * h, y0 + (a.row_last + 1) / len(order) * h
        if xb - xa < min_px or yb - ya < min_px:
            continue
        mine = cells[cells.resource.isin(order[a.row_first:a.row_last + 1]) &
                     cells.slice.between(a.first_slice, a.last_slice)]
        per = mine.groupby("state", observed=True).proportion.sum() / ((a.row_last - a.row_first + 1) *
                                                                       (a.last_slice - a.first_slice + 1))
        mode = per.idxmax()
        rgb = [int(colours[parts.states.index(mode)][k:k + 2], 16) for k in (1, 3, 5)]
        alpha = math.floor(30 + 225 * min(per.max(), 1))
        out.append(((xa + xb) / 2, (ya + yb) / 2, tuple(round(255 - alpha * (255 - v) / 255) for v in rgb),
                    f"{a.node} {a.first_slice}-{a.last_slice}"))
        assert mode in states
    assert out, "no aggregate large enough to check"
    return out


def check(pixels, centres, tolerance=2):
    bad = [(node, (round(x), round(y)), want, pixels.at(x, y)) for x, y, want, node in centres
           if max(abs(g - e) for g, e in zip(pixels.at(x, y), want)) > tolerance]
    assert not bad, f"{len(bad)} of {len(centres)} centres differ: {bad[:4]}"


class Parts:
    """The aggregates table the widget drew (its geometry only), from the
    kernel, with the comparison's states."""

    def __init__(self, nb):
        cols = "['node', 'row_first', 'row_last', 'first_slice', 'last_slice']"
        data = nb.value(f"w.aggregates_table()[{cols}].astype({{'node': str}}).to_dict('list')")
        self.states = nb.value("w.states")
        self.rows = [dict(zip(data, v)) for v in zip(*data.values())]

    def itertuples(self):
        from types import SimpleNamespace

        return (SimpleNamespace(**r) for r in self.rows)

    def __len__(self):
        return len(self.rows)


def panel(el, r):
    return el.locator(f"canvas.ms-main[data-run='{r}']")


def origin(el, r):
    c = panel(el, r)
    c.scroll_into_view_if_needed()
    box = c.bounding_box()
    return box["x"], box["y"]


def test_compare_explorer_slider_zoom_hover(lab, ms, runs):
    nb = lab.notebook([
        "import macroscope as ms",
        f"cmp = ms.compare([{str(runs[0])!r}, {str(runs[1])!r}], slices={SLICES}, progress=False)",
        "w = cmp.explore(width=800, height=220, rank='outlier')\nw",
    ], name="compare")
    el = nb.widget(0, ".macroscope-compare")
    nb.wait_frame(el, 1)
    el.screenshot(path=str(OUTPUT / "compare-widget.png"))
    plot = [float(v) for v in el.get_attribute("data-plot").split(",")]
    parts = Parts(nb)
    assert int(el.get_attribute("data-count")) == len(parts) > 0
    assert int(el.get_attribute("data-level")) == nb.value("w.level")
    # The first row reported is the slowed rank, outlined in both runs.
    assert nb.value("str(w.view_table().node.iloc[0])") == "node-1/rank-9"
    assert int(el.get_attribute("data-marks")) == nb.value("int(w.view_table().reported.sum())") > 0
    for r in (0, 1):
        pixels = nb.screenshot(el, f"compare-run-{r}", canvas=f"canvas.ms-main[data-run='{r}']")
        check(pixels, expected_centres(ms, runs, parts, plot, r))

    # Hover an aggregate of the slowed rank in the second run: outlined in
    # every run, its proportions in both runs in the tooltip.
    rank9 = next(p for p in parts.rows if p["node"] == "node-1/rank-9")
    x0, y0, w, h = plot
    leaves = 24
    cx = x0 + ((rank9["first_slice"] + rank9["last_slice"] + 1) / 2) / SLICES * w
    cy = y0 + (rank9["row_first"] + 0.5) / leaves * h
    ox, oy = origin(el, 1)
    nb.page.mouse.move(ox + cx, oy + cy)
    tip = el.locator(".ms-tooltip")
    tip.wait_for(state="visible")
    nb.page.wait_for_function("el => el.querySelector('.ms-tooltip').innerText.includes('slow: ')",
                              arg=el.element_handle())
    text = tip.inner_text()
    assert text.splitlines()[0].startswith("node-1/rank-9") and "a: Compute" in text and "slow: Compute" in text
    assert nb.value("w.selection['node']") == "node-1/rank-9"
    sel = nb.value("w.selection")
    slow = next(r for r in sel["runs"] if r["run"] == "slow")
    assert slow["deltas"]["Compute"] > 0  # it computes longer

    # Drag a time range in the first run: both runs zoom to it, drawn by the page.
    frames = nb.frames(el)
    ox, oy = origin(el, 0)
    nb.page.mouse.move(ox + x0 + 0.25 * w + 1, oy + y0 + h / 2)
    nb.page.mouse.down()
    nb.page.mouse.move(ox + x0 + 0.5 * w - 1, oy + y0 + h / 2, steps=5)
    nb.page.mouse.up()
    nb.wait_frame(el, frames + 1)
    first, last = (int(v) for v in el.get_attribute("data-window").split(","))
    assert (first, last) == (5, 9)
    for _ in range(50):
        if nb.value("w.window") == [5, 9]:
            break
    assert nb.value("w.window") == [5, 9]
    nb.page.mouse.move(0, 0)
    for r in (0, 1):
        pixels = nb.screenshot(el, f"compare-zoomed-{r}", canvas=f"canvas.ms-main[data-run='{r}']")
        check(pixels, expected_centres(ms, runs, parts, plot, r, first=5, last=9))

    # The slider to the finest level (p = 0: every cell its own aggregate).
    frames = nb.frames(el)
    slider = el.locator("input[type=range]")
    slider.focus()
    nb.page.keyboard.press("Home")
    nb.page.wait_for_function("el => el.dataset.level === '0'", arg=el.element_handle())
    nb.wait_frame(el, frames + 1)
    assert nb.value("w.level") == 0
    assert int(el.get_attribute("data-count")) == nb.value("len(w.aggregates_table())") == 24 * SLICES
    parts = Parts(nb)
    pixels = nb.screenshot(el, "compare-finest-1", canvas="canvas.ms-main[data-run='1']")
    check(pixels, expected_centres(ms, runs, parts, plot, 1, first=5, last=9))
    assert np.isclose(nb.value("w.differences.p"), 0)
    nb.close()
