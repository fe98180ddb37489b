"""The widgets' Python side and their build, without a browser (the
browser tests are in test_widgets_browser.py)."""

from __future__ import annotations

import hashlib
import os
import pathlib
import shutil
import subprocess

import numpy as np
import pyarrow as pa
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
JS = ROOT / "js"
STATIC = ROOT / "pybind" / "macroscope" / "widgets" / "static"
TRACE = ROOT / "testdata" / "jacobi32.trace"

pytest.importorskip("anywidget", reason="anywidget is not installed (make setup installs it)")

import macroscope as ms  # noqa: E402
from macroscope.widgets import ModelExplorer, MomentsExplorer, ipc, state_colors  # noqa: E402


def sources_hash() -> str:
    """The hash js/build.mjs writes into static/SOURCES.sha256, computed
    the same way: name, NUL, bytes, NUL of build.mjs, package-lock.json and
    every file of js/src in order."""
    h = hashlib.sha256()
    files = ["build.mjs", "package-lock.json"] + [f"src/{f}" for f in sorted(os.listdir(JS / "src"))]
    for f in files:
        h.update(f.encode() + b"\0")
        h.update((JS / f).read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def test_bundles_are_built_from_the_sources():
    # The committed bundle must come from the committed sources: run
    # "make widgets-js" after changing js/.
    assert (STATIC / "SOURCES.sha256").read_text().strip() == sources_hash(), "run make widgets-js"
    # One module for every widget, which carries apache-arrow once.
    assert sorted(os.listdir(STATIC)) == ["SOURCES.sha256", "widgets.js"], "run make widgets-js"


def test_every_widget_loads_the_one_bundle_and_names_its_view():
    from macroscope import widgets

    assert widgets.BUNDLE.name == "widgets.js" and widgets.BUNDLE.is_file()
    entry = (JS / "src" / "index.js").read_text()
    views = set()
    for cls in (widgets.ModelExplorer, widgets.TopologyExplorer, widgets.TreemapExplorer, widgets.KaleidoscopeExplorer,
                widgets.MomentsExplorer):
        assert "_esm" not in vars(cls), f"{cls.__name__} loads a module of its own"
        view = cls.class_traits()["_renderer"].default_value
        assert (JS / "src" / f"{view}.js").is_file(), f"{cls.__name__}: no js/src/{view}.js"
        assert f'import {view} from "./{view}.js";' in entry, f"{cls.__name__}: js/src/index.js has no view {view}"
        views.add(view)
    assert views == {"overview", "topology", "treemap", "kaleidoscope", "moments"}


@pytest.mark.skipif(not (JS / "node_modules" / "esbuild").is_dir() or not shutil.which("node"),
                    reason="node and js/node_modules (npm ci in js/) are needed to rebuild the bundles")
def test_bundles_rebuild_to_the_same_bytes(tmp_path):
    subprocess.run(["node", str(JS / "build.mjs"), str(tmp_path)], check=True, capture_output=True)
    for f in sorted(os.listdir(tmp_path)):
        assert (tmp_path / f).read_bytes() == (STATIC / f).read_bytes(), f


def test_ipc_round_trip():
    t = pa.table({"a": pa.array([1, 2, 3], pa.int32()), "b": ["x", "y", None]})
    back = pa.ipc.open_stream(ipc(t)).read_all()
    assert back.equals(t)
    assert ipc(None) == b""


def test_state_colors_are_the_figures():
    # plots.CategoryColor's first colours (Set1 red, blue, green).
    assert state_colors(3) == ["#e41a1c", "#377eb8", "#4daf4a"]
    assert len(set(state_colors(40))) == 40


@pytest.fixture(scope="module")
def trace():
    return ms.read_paje(str(TRACE))


@pytest.fixture(scope="module")
def model(trace):
    return trace.micro(slices=30)


def decode(widget, name):
    return pa.ipc.open_stream(getattr(widget, name)).read_all()


def test_explorer_shows_the_recommended_level(model):
    w = model.explore()
    levels = model.significant_p()
    rec = int(np.flatnonzero(levels.recommended.to_numpy())[0])
    assert w.level == rec
    p = float((levels.p_low[rec] + levels.p_high[rec]) / 2)
    agg = model.aggregate(p)
    drawn = decode(w, "aggregates")
    assert drawn.num_rows == len(agg)
    df = agg.to_pandas()
    # The browser's order: by node id, then first slice (positions maps
    # them back to the aggregation's rows).
    paths = _hierarchy_paths(model)
    nodes = [paths[i] for i in drawn.column("node_id").to_pylist()]
    firsts = drawn.column("first_slice").to_pylist()
    ids = drawn.column("node_id").to_pylist()
    assert list(zip(ids, firsts)) == sorted(zip(ids, firsts))
    # Mode codes index the model's states; -1 where there is no mode.
    modes = [model.states[c] if c >= 0 else None for c in drawn.column("mode").to_pylist()]
    want = sorted((n, f, lst, None if pd_isna(m) else m) for n, f, lst, m in
                  zip(df.node, df.first_slice, df.last_slice, df["mode"]))
    got = sorted(zip(nodes, firsts, drawn.column("last_slice").to_pylist(), modes), key=lambda t: t[:3])
    assert got == sorted(want, key=lambda t: t[:3])
    # Narrow columns: what drawing needs, not the exact values.
    assert drawn.schema.field("mode").type == pa.int8() and drawn.schema.field("alpha").type == pa.uint8()
    assert "row_lo" not in drawn.column_names
    assert w.view["kind"] == "overview" and w.view["n"] == len(agg)
    assert decode(w, "levels").num_rows == len(levels)


def _sweep_threads() -> list[str]:
    import threading

    return [t.name for t in threading.enumerate() if t.name == "macroscope significant levels"]


def test_a_large_model_opens_at_its_recommended_level_and_sweeps_when_asked(trace, monkeypatch):
    """A model whose sweep is costly opens at the recommended level alone
    (the knee, a few solves); the sweep runs when the slider is first
    grabbed (the page's "levels" message), on a thread, and then the
    slider holds every level, the same one shown, as for a small model."""
    from macroscope.widgets import _overview

    monkeypatch.setattr(_overview, "BACKGROUND_SWEEP_COST", 0)  # the bundled model counts as large
    model = trace.micro(slices=40)  # a model of its own: nothing swept yet
    w = model.explore()
    first = decode(w, "levels").to_pandas()
    assert len(first) == 1 and bool(first.recommended[0])
    # Not asked: no sweep runs (a user who never moves the slider pays none).
    assert w.view["partial"] and not w.view["asked"] and not w.current.sweep.asked and not _sweep_threads()
    w._handle({"action": "levels"})  # the page: the slider grabbed
    assert w.current.sweep.asked
    assert w.wait_levels(timeout=120)
    levels = model.significant_p()
    rec = int(np.flatnonzero(levels.recommended.to_numpy())[0])
    # The knee is the sweep's recommended level, bit for bit.
    for col in ("p_low", "p_high", "gain", "loss", "aggregates"):
        assert first[col][0] == levels[col][rec], col
    assert len(w.current.levels) == len(levels) and w.level == rec and not w.view["partial"]
    assert decode(w, "levels").to_pandas().equals(levels)
    agg = model.aggregate(float((levels.p_low[rec] + levels.p_high[rec]) / 2))
    assert w.view["n"] == len(agg) and decode(w, "aggregates").num_rows == len(agg)
    # The slider goes over every level now.
    w.set_level(0)
    assert w.view["n"] == len(model.aggregate(float((levels.p_low[0] + levels.p_high[0]) / 2)))


def test_a_large_model_opens_at_the_p_asked_for_with_one_solve(trace, monkeypatch):
    """explore(p=...) of a large model draws the optimum at p at once (one
    solve, no sweep); the levels come when asked, the slider then at the
    level holding p, as for a small model."""
    from macroscope.widgets import _overview

    p = 0.3
    small = trace.micro(slices=40).explore(p=p)  # swept first: the small model's way
    monkeypatch.setattr(_overview, "BACKGROUND_SWEEP_COST", 0)
    model = trace.micro(slices=40)
    w = model.explore(p=p)
    first = decode(w, "levels").to_pandas()
    agg = model.aggregate(p)
    assert len(first) == 1 and first.p_low[0] == first.p_high[0] == p and not first.recommended[0]
    assert (first.gain[0], first.loss[0], first.aggregates[0]) == (agg.gain, agg.loss, len(agg))
    assert w.view["p"] == p and w.view["n"] == len(agg) and decode(w, "aggregates").num_rows == len(agg)
    assert w.aggregation.to_pandas().equals(agg.to_pandas())
    assert w.view["partial"] and not w.current.sweep.asked and not _sweep_threads()
    assert w.wait_levels(timeout=120)  # asks, and waits
    levels = model.significant_p()
    assert w.level == small.level and 0 < w.level < len(levels) - 1
    assert decode(w, "levels").to_pandas().equals(levels)
    assert w.view["n"] == small.view["n"] == levels.aggregates[w.level]
    lo, hi = levels.p_low[w.level], levels.p_high[w.level]
    assert lo <= p <= hi


def test_closing_a_large_model_explorer_stops_its_sweep(trace, monkeypatch):
    """Closing the explorer stops the sweep of its levels: the Go search
    is canceled (nothing kept), the thread ends, no error is reported; a
    sweep not yet asked for never starts."""
    from macroscope.widgets import _overview

    monkeypatch.setattr(_overview, "BACKGROUND_SWEEP_COST", 0)
    model = trace.micro(slices=400)  # a sweep of seconds
    w = model.explore()
    w._handle({"action": "levels"})
    w.close()
    assert w.wait_levels(timeout=60)
    assert len(w.current.levels) == 1  # the levels never came
    never = model.explore(p=0.2)
    never.close()
    never._handle({"action": "levels"})  # too late: closed
    assert never.wait_levels(timeout=60) and not never.current.sweep.asked and len(never.current.levels) == 1


def test_the_sweep_does_not_keep_a_closed_explorer_alive(trace, monkeypatch):
    """The sweep's thread holds the widget weakly: closed and dropped, the
    explorer is collected while its sweep still runs; a sweep whose
    widget is collected stops, and never starts after."""
    import gc
    import threading
    import weakref

    from macroscope.widgets import _levels, _overview

    monkeypatch.setattr(_overview, "BACKGROUND_SWEEP_COST", 0)
    model = trace.micro(slices=300)
    gate, search = threading.Event(), model.significant_p
    monkeypatch.setattr(model, "significant_p", lambda **kw: gate.wait() and search(**kw))
    w = model.explore(p=0.2)
    assert not w.wait_levels(timeout=0)  # asked: the thread waits at the gate
    sweep, ref = w.current.sweep, weakref.ref(w)
    w.close()
    del w
    gc.collect()
    assert ref() is None and sweep._sweep._thread.is_alive()
    gate.set()
    assert sweep.wait(timeout=60)

    class Holder:
        pass

    holder = Holder()
    found = []
    lazy = _levels.LevelsOnDemand(lambda progress: found.append(1), found.append, "test levels")
    lazy.watch(holder)
    del holder
    gc.collect()
    lazy.ask()
    assert lazy.wait(timeout=10) and not lazy.asked and found == []


def _hierarchy_paths(model):
    from macroscope import _bridge

    h = _bridge.table(model._h.Hierarchy)
    assert h.column("id").to_pylist() == list(range(h.num_rows))
    return h.column("path").to_pylist()


def pd_isna(v):
    import pandas as pd

    return pd.isna(v)


def test_rows_cover_each_aggregates_resources(model):
    import pandas as pd

    w = model.explore()
    df = w.view_table()
    # Independent of the Go rows: the resources whose path is the node's
    # path or below it, in the model's resource order.
    order = list(model.to_pandas().resource.drop_duplicates())
    w.set_level(len(model.significant_p()) - 1)  # the coarsest level: the root alone
    coarse = w.view_table()
    assert list(coarse.node) == ["root"]
    df = pd.concat([df, coarse])
    for row in df.itertuples():
        # The root's path is its name; the resources' paths start below it.
        under = (range(len(order)) if row.depth == 0 else
                 [i for i, r in enumerate(order) if r == row.node or r.startswith(row.node + "/")])
        assert (row.row_lo, row.row_hi) == (under[0], under[-1] + 1), row.node
        assert row.row_hi - row.row_lo == row.leaves


def test_slider_recomputes_the_aggregation(model):
    w = model.explore()
    levels = model.significant_p()
    for i in (0, len(levels) // 2, len(levels) - 1):
        w.set_level(i)
        p = float((levels.p_low[i] + levels.p_high[i]) / 2)
        assert decode(w, "aggregates").num_rows == len(model.aggregate(p))
        assert w.view["p"] == p


def test_zoom_rebuilds_the_window_from_the_trace(trace, model):
    w = model.explore()
    t0 = model.start + (model.end - model.start) * 0.25
    t1 = model.start + (model.end - model.start) * 0.5
    w.zoom(t0, t1)
    sub = trace.micro(slices=30, start=t0, end=t1)
    assert (w.model.start, w.model.end, w.model.slices) == (sub.start, sub.end, 30)
    levels = sub.significant_p()
    rec = int(np.flatnonzero(levels.recommended.to_numpy())[0])
    assert decode(w, "aggregates").num_rows == len(sub.aggregate(float((levels.p_low[rec] + levels.p_high[rec]) / 2)))
    assert w.can_back and not w.can_forward
    w.back()
    assert w.model is model and w.can_forward
    w.forward()
    assert w.model.start == sub.start


def test_zoom_without_a_trace_cuts_the_model(model):
    bare = model.window(0, model.slices - 1)  # a model with no trace behind it
    assert bare.slices == model.slices
    w = bare.explore()
    dt = (model.end - model.start) / model.slices
    w.zoom(model.start + 3.2 * dt, model.start + 9.7 * dt)  # slices 3 to 9
    assert w.model.slices == 7
    cut = model.to_pandas()
    cut = cut[(cut.slice >= 3) & (cut.slice <= 9)].proportion.to_numpy()
    assert np.array_equal(w.model.to_pandas().proportion.to_numpy(), cut)


def test_click_opens_the_cells_of_an_aggregate(model):
    w = model.explore()
    df = w.view_table()
    i = int(np.argmax(df.leaves.to_numpy() * (df.last_slice - df.first_slice + 1).to_numpy()))
    agg = df.iloc[i]
    w.click(i)
    assert w.selection["node"] == agg.node and w.selection["start"] == agg.start
    assert w.view["kind"] == "detail"
    cells = w.view_table()
    n_rows = agg.row_hi - agg.row_lo
    n_slices = agg.last_slice - agg.first_slice + 1
    assert len(cells) == n_rows * n_slices == decode(w, "aggregates").num_rows
    # Each cell's proportions are the model's, and its mode their argmax.
    micro = model.to_pandas()
    one = cells.iloc[len(cells) // 2]
    ref = micro[(micro.resource == one.resource) & (micro.slice == one.slice)]
    for s, v in zip(ref.state, ref.proportion):
        assert one["prop:" + s] == v
    assert one["mode"] == (ref.state.iloc[int(np.argmax(ref.proportion.to_numpy()))]
                           if ref.proportion.max() > 0 else None)
    w.back()
    assert w.view["kind"] == "overview"
    assert w.selection["node"] == agg.node


def test_figure_is_the_overview_of_the_view(model):
    w = model.explore()
    fig = w.figure(width=480, height=300)
    assert isinstance(fig, ms.Figure) and fig.size == (480, 300)


def test_moments_explorer_sends_the_moments(trace):
    mo = trace.moments()
    w = mo.explore()
    rows = decode(w, "rows")
    df = mo.to_pandas()
    assert rows.num_rows == len(df)
    assert rows.column("label").to_pylist() == df.resource.astype(str).tolist()
    for m in ("m0", "m1", "m2", "m3"):
        assert np.array_equal(rows.column(m).to_numpy(), df[m].to_numpy(), equal_nan=True)
    assert w.window == [mo.start, mo.end]


def _browser_levels(w, view_uid, cells=None):
    """Ask the explorer for every chunk of its levels and rebuild each level
    as the browser does (js/src/_levels.js): uids removed from and added to
    the base level. Returns {level: set of (node id, first, last)}; the
    cells messages (_cells.py) go into the list ``cells``."""
    sent = []
    w.send = lambda content, buffers=None: sent.append((content, buffers))
    rows, sets = {}, {}
    while True:
        sent.clear()
        w._on_msg(w, {"action": "prefetch", "view": view_uid}, [])
        if not sent:
            break
        content, buffers = sent[0]
        if content["kind"] == "cells":
            if cells is not None:
                cells.append((content, buffers))
            continue
        if content["rows"]:
            t = pa.ipc.open_stream(buffers[0]).read_all()
            for k, r in enumerate(zip(t.column("node_id").to_pylist(), t.column("first_slice").to_pylist(),
                                      t.column("last_slice").to_pylist())):
                rows[content["first_uid"] + k] = r
        deltas = np.frombuffer(buffers[1], dtype=np.int32)
        at = 0
        for lv in content["levels"]:
            removed = set(deltas[at:at + lv["removed"]].tolist())
            at += lv["removed"]
            added = set(deltas[at:at + lv["added"]].tolist())
            at += lv["added"]
            base = sets[lv["base"]] if lv["base"] >= 0 else set()
            assert removed <= base and not (added & base)
            sets[lv["level"]] = (base - removed) | added
        if content["done"]:
            break
    return {lv: {rows[u] for u in s} for lv, s in sets.items()}


def test_levels_shipped_to_the_browser_are_the_aggregations(model):
    w = model.explore()
    levels = model.significant_p()
    got = _browser_levels(w, w.view["uid"])
    assert sorted(got) == list(range(len(levels)))
    nodes = {p: i for i, p in enumerate(_hierarchy_paths(model))}
    for i in range(len(levels)):
        df = model.aggregate(float((levels.p_low[i] + levels.p_high[i]) / 2)).to_pandas()
        want = {(nodes[n], f, lst) for n, f, lst in zip(df.node, df.first_slice, df.last_slice)}
        assert got[i] == want, i
    # Fewer distinct aggregates than the levels hold in all.
    assert len(set().union(*got.values())) < sum(len(s) for s in got.values()) / 3


def test_a_shipped_level_is_not_sent_again(model):
    w = model.explore()
    _browser_levels(w, w.view["uid"])
    stamp = w._sent_at
    levels = model.significant_p()
    i = len(levels) // 2
    w.set_level(i)
    # The browser draws it from what it holds: no new table, but the
    # view's numbers and the Python side follow.
    assert w._sent_at == stamp
    p = float((levels.p_low[i] + levels.p_high[i]) / 2)
    assert w.view["p"] == p and w.view["n"] == len(model.aggregate(p))
    assert len(w.view_table()) == len(model.aggregate(p))


def test_browser_positions_map_to_view_table_rows(model):
    w = model.explore()
    df = w.view_table()
    drawn = decode(w, "aggregates")
    paths = _hierarchy_paths(model)
    for j in (0, drawn.num_rows // 2, drawn.num_rows - 1):
        w._on_msg(w, {"action": "click", "index": j}, [])
        sel = w.selection
        assert sel["node"] == paths[drawn.column("node_id")[j].as_py()]
        assert sel["first_slice"] == drawn.column("first_slice")[j].as_py()
        w.back()
    assert len(df) == drawn.num_rows


def test_levels_sent_ahead_stop_at_the_cap(model, monkeypatch):
    from macroscope.widgets import _levels

    monkeypatch.setattr(_levels, "MAX_ENTRIES", 3000)
    w = model.explore()
    got = _browser_levels(w, w.view["uid"])
    levels = model.significant_p()
    # Nearest the level shown first, until the aggregates sent reach the cap.
    assert 0 < len(got) < len(levels) and w.current.pack.done
    assert sum(len(s) for s in got.values()) - 3000 < max(len(s) for s in got.values())
    rec = w.level
    assert sorted(got) == sorted(sorted(range(len(levels)), key=lambda i: (abs(i - rec), i))[:len(got)])
    # A level beyond goes through Python.
    far = max(range(len(levels)), key=lambda i: abs(i - rec))
    stamp = w._sent_at
    w.set_level(far)
    assert far not in got and w._sent_at > stamp
    p = float((levels.p_low[far] + levels.p_high[far]) / 2)
    assert decode(w, "aggregates").num_rows == len(model.aggregate(p))


def test_cells_shipped_ahead_are_the_details(model):
    """The page cuts a clicked aggregate's detail out of the model's cells
    shipped ahead (js/src/overview.js, fromCells): each cell's mode is the
    argmax of the model's proportions (none when all are 0), its opacity
    30 + 225 min(v, 1)."""
    w = model.explore()
    shipped = []
    _browser_levels(w, w.view["uid"], shipped)
    (content, buffers), = shipped
    assert content["model"] == w.view["model"] and content["resources"] == model.resources
    assert content["slices"] == model.slices and content["mode_bytes"] == 1
    mode = np.frombuffer(buffers[0], np.int8)
    alpha = np.frombuffer(buffers[1], np.uint8)
    prop = np.frombuffer(buffers[2], np.float32)
    micro = model.to_pandas()
    order = list(micro.resource.drop_duplicates())
    micro = micro.assign(row=micro.resource.astype(str).map({r: i for i, r in enumerate(order)}).astype(np.int64),
                         state=micro.state.astype(str))
    best = micro.sort_values(["row", "slice", "proportion"], ascending=[True, True, False], kind="stable")
    best = best.groupby(["row", "slice"], sort=True).head(1)
    assert len(best) == len(mode) == model.resources * model.slices
    want = [model.states.index(s) if v > 0 else -1 for s, v in zip(best.state, best.proportion)]
    at = (best.row * model.slices + best.slice).to_numpy()
    assert mode[at].tolist() == want
    assert np.array_equal(prop[at], best.proportion.to_numpy().astype(np.float32))
    assert alpha[at].tolist() == [int(np.floor(30 + 225 * min(v, 1))) for v in best.proportion]


def test_a_click_drawn_ahead_is_followed_and_confirmed(model):
    """A click the page drew ahead (seq) opens the same detail in Python,
    whose view says the page holds its cells (no table sent) and which
    action it answers; back likewise, to the overview's held level."""
    w = model.explore()
    got = _browser_levels(w, w.view["uid"])
    df = w.view_table()
    drawn = decode(w, "aggregates")
    i = int(np.argmax(df.leaves.to_numpy() * (df.last_slice - df.first_slice + 1).to_numpy()))
    j = int(np.flatnonzero(w._positions(w.current) == i)[0])  # the browser's number of row i
    before = w.aggregates
    w._on_msg(w, {"action": "click", "index": j, "seq": 1}, [])
    assert w.selection["node"] == df.node[i] and w.selection["first_slice"] == df.first_slice[i]
    v = w.view
    assert v["kind"] == "detail" and v["held"] and v["seq"] == 1 and w.aggregates == before
    assert (v["row_lo"], v["row_hi"], v["first"], v["last"]) == (
        df.row_lo[i], df.row_hi[i], df.first_slice[i], df.last_slice[i])
    assert v["back"]["kind"] == "overview" and v["back"]["level"] == w.level and v["forward"] is None
    assert len(w.view_table()) == (df.row_hi[i] - df.row_lo[i]) * (df.last_slice[i] - df.first_slice[i] + 1)
    w._on_msg(w, {"action": "back", "seq": 2}, [])
    v = w.view
    assert v["kind"] == "overview" and v["held"] and v["seq"] == 2 and w.level in got
    assert v["forward"]["kind"] == "detail" and w.aggregates == before
    assert len(w.view_table()) == drawn.num_rows
    # An action that changes nothing is answered all the same.
    stamp = w._sent_at
    w._on_msg(w, {"action": "back", "seq": 3}, [])
    assert w.view["seq"] == 3 and w._sent_at > stamp


def test_explore_without_anywidget_says_the_command():
    """Without anywidget, the explorers' import says how to install it."""
    import subprocess
    import sys

    code = ("import sys; sys.modules['anywidget'] = None\n"
            "import macroscope as ms\n"
            "m = ms.read(sys.argv[1]).micro(slices=5)\n"
            "try:\n    m.explore()\nexcept ImportError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code, str(TRACE)], capture_output=True, text=True, timeout=120)
    assert 'pip install "anywidget>=0.9.18" "traitlets>=5.9"' in out.stdout, out.stderr


def test_sweep_reports_what_stopped_its_levels_being_shown():
    """An error once the levels are found, while they replace the view
    (done), is raised by wait as one of the search's: the levels never
    reached the slider, and wait_levels must not say they did."""
    from macroscope.widgets import _levels

    def done(_levels_found):
        raise RuntimeError("the redraw failed")

    sweep = _levels.BackgroundSweep(lambda progress: [], done, "test levels")
    with pytest.raises(RuntimeError, match="the redraw failed"):
        sweep.wait(timeout=60)
