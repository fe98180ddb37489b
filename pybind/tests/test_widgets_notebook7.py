"""The overview explorer in Notebook 7, the other front end of the same
widget code (anywidget): the notebook served by ``jupyter notebook`` on
localhost, run in Debian's chromium through Playwright, the screenshot
checked by pixel colour at the centres of the aggregates of
``model.aggregate(p)``, computed here from the model (see
widget_harness.expected_rects), before and after a slider step."""

from __future__ import annotations

import pathlib

import numpy as np

# The notebook7 fixture comes from conftest.py: one per session.
from widget_harness import OUTPUT, check_pixels, expected_rects, mid_p, plot_of, skip_without_browser

ROOT = pathlib.Path(__file__).resolve().parents[2]
TRACE = ROOT / "testdata" / "jacobi32.trace"
SLICES = 30


def test_overview_draws_and_steps_in_notebook7(notebook7):
    skip_without_browser("notebook")
    import macroscope as ms

    model = ms.read_paje(str(TRACE)).micro(slices=SLICES)
    nb = notebook7.notebook([
        "import macroscope as ms",
        f"model = ms.read_paje({str(TRACE)!r}).micro(slices={SLICES})",
        "w = model.explore(width=900, height=420)\nw",
    ], name="notebook7")
    # The page is Notebook 7's, not JupyterLab's.
    assert nb.page.evaluate("() => window.jupyterapp.name") == "Jupyter Notebook"
    el = nb.widget(0)
    nb.wait_frame(el, 1)
    el.screenshot(path=str(OUTPUT / "notebook7-widget.png"))  # the whole widget, for the eye
    plot = plot_of(el)
    levels = model.significant_p()
    rec = int(np.flatnonzero(levels.recommended.to_numpy())[0])
    agg = model.aggregate(mid_p(levels, rec))
    assert int(el.get_attribute("data-level")) == rec
    assert int(el.get_attribute("data-count")) == len(agg)
    assert check_pixels(nb.screenshot(el, "notebook7-recommended"), expected_rects(model, agg, plot)) >= 3

    # A slider step (the key on the slider) draws the next level, which is
    # model.aggregate(p) of that level, and Python follows it.
    step = rec + 1 if rec + 1 < len(levels) else rec - 1
    slider = el.locator("input.ms-level")
    frames = nb.frames(el)
    slider.focus()
    slider.press("ArrowRight" if step > rec else "ArrowLeft")
    nb.wait_frame(el, frames + 1)
    agg = model.aggregate(mid_p(levels, step))
    assert int(el.get_attribute("data-level")) == step
    assert int(el.get_attribute("data-count")) == len(agg)
    rects = expected_rects(model, agg, plot)
    assert rects, "no aggregate of the next level large enough to check"
    check_pixels(nb.screenshot(el, f"notebook7-level-{step}"), rects)
    assert nb.value("w.level") == step
    assert nb.value("len(w.view_table())") == len(agg)
    nb.close()
