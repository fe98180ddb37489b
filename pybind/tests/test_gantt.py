"""The Gantt view, the trace's own colours, colors= overrides, the palette
and the overview rows of the aggregate table."""

import math

import numpy as np
import pandas as pd
import pytest

import macroscope as ms
from conftest import shared
from test_kaleido import png_pixels


def pixels(fig):
    """The figure's PNG as an array of RGB rows."""
    return png_pixels(fig.to_bytes("png"))[:, :, :3]


def hex_rgb(h):
    return tuple(int(h[i:i + 2], 16) for i in (1, 3, 5))


# A Pajé trace whose values carry colours ("r g b" in [0, 1]): "run" orange
# (1 0.5 0 -> 255 128 0), "wait" without colour; one host, one thread.
COLOURED = """%EventDef PajeDefineContainerType 0
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeDefineStateType 1
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeDefineEntityValue 2
% Alias string
% Type string
% Name string
% Color color
%EndEventDef
%EventDef PajeCreateContainer 3
% Time date
% Alias string
% Type string
% Container string
% Name string
%EndEventDef
%EventDef PajeSetState 4
% Time date
% Type string
% Container string
% Value string
%EndEventDef
0 T 0 Thread
1 S T State
2 r S run "1 0.5 0"
2 w S wait ""
3 0 t1 T 0 thread-1
4 0 S t1 r
4 10 S t1 w
4 20 S t1 r
"""


@pytest.fixture(scope="module")
def coloured(tmp_path_factory):
    path = tmp_path_factory.mktemp("gantt") / "coloured.trace"
    path.write_text(COLOURED)
    return ms.read_paje(path)


def test_gantt_draws_the_trace_colour(coloured):
    # One row; [0, 10] run, [10, 20] wait. The middle of the first half of
    # the data area is run's orange, as the trace defines it.
    fig = coloured.plot_gantt(start=0, end=10, width=600, height=300)
    assert isinstance(fig, ms.Figure) and fig.size == (600, 300)
    px = pixels(fig)
    assert tuple(px[150, 300]) == (255, 128, 0)


def test_colors_override_every_figure(coloured):
    override = {"run": "#123456", "wait": (0.0, 1.0, 0.0)}
    px = pixels(coloured.plot_gantt(start=0, end=10, width=600, height=300, colors=override))
    assert tuple(px[150, 300]) == hex_rgb("#123456")
    px = pixels(coloured.plot_gantt(start=10, end=20, width=600, height=300, colors=override))
    assert tuple(px[150, 300]) == (0, 255, 0)
    # The overview of one slice per state: its only resource is run in
    # [0, 10] (opacity 255 at proportion 1), wait in [10, 20].
    agg = coloured.micro(slices=2).aggregate(0)
    px = pixels(agg.plot(width=600, height=300))
    assert tuple(px[150, 150]) == (255, 128, 0)
    px = pixels(agg.plot(width=600, height=300, colors={"run": "tab:blue"}))
    assert tuple(px[150, 150]) == (31, 119, 180)
    with pytest.raises(ms.InvalidArgumentError, match="no state named"):
        agg.plot(colors={"nope": "red"})
    with pytest.raises(ms.InvalidArgumentError, match="colour"):
        agg.plot(colors={"run": "not a colour"})
    with pytest.raises(ms.InvalidArgumentError):
        agg.plot(colors={"run": (2, 0, 0)})


def stacks(n_resources, n_states, seed=0):
    """A table: resource i in state s(i) throughout [0, 1] s, s(i) = i mod
    n_states; resources grouped by 4 under hosts."""
    rows = [(f"h{i // 4}/r{i % 4}", f"state {i % n_states:03d}", 0.0, 1.0) for i in range(n_resources)]
    return pd.DataFrame(rows, columns=["resource", "state", "start", "end"])


def cie_lab(rgb):
    """CIELAB (D65) of an sRGB colour: the oracle of the ΔE test, computed
    here independently of the Go code that chose the colours."""
    def lin(v):
        v = v / 255
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(float(c)) for c in rgb)
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883

    def f(t):
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def bar_colours(column):
    """The colours of the bars a column of pixels crosses, in order: runs of
    at least 3 equal pixels that are neither white nor grey (antialiased
    edges blend colours over a pixel or two)."""
    out, run, prev = [], 0, None
    for c in map(tuple, column):
        run = run + 1 if c == prev else 1
        prev = c
        if run == 3 and len(set(c)) > 1 and c not in out:
            out.append(c)
    return out


@pytest.mark.parametrize("n,bound", [(10, 30), (30, 15), (60, 10)])
def test_gantt_rows_of_distinct_states_have_distinct_colours(n, bound):
    # n resources, each in its own state: the pixel at the middle of each
    # row is that state's colour; no two are closer than ΔE bound. More
    # states than a figure colours apart (20) keep 19 colours, those of the
    # states with the most time (all alike here), and the others are drawn
    # in the grey of "other", which bar_colours leaves out (this test saw n
    # colours before figures grouped the smallest states). The states are
    # named without a trailing number after a space, which would count
    # instances of one state past 20 of them.
    table = stacks(n, n)
    table["state"] = table["state"].str.replace(" ", "-")
    trace = ms.from_pandas(table)
    height = 24 * n + 80
    fig = trace.plot_gantt(width=700, height=height)
    px = pixels(fig)
    # Find the rows: the column at 40% of the width crosses every bar.
    col = px[:, int(0.4 * 700)]
    colours = bar_colours(col)
    assert len(colours) == min(n, 19)
    if n > 20:
        assert (150, 150, 150) in {tuple(int(v) for v in c) for c in map(tuple, col)}
    labs = [cie_lab(c) for c in colours]
    d = min(math.dist(a, b) for i, a in enumerate(labs) for b in labs[i + 1:])
    assert d >= bound


def test_gantt_window_and_resources():
    trace = ms.from_pandas(stacks(8, 8))
    # Resources by name, by glob, by a list of paths; a host brings its rows.
    for sel in ("h1", "h1/*", ["h1/r0", "h1/r1", "h1/r2", "h1/r3"]):
        px = pixels(trace.plot_gantt(resources=sel, width=600, height=300))
        colours = bar_colours(px[:, 240])
        # The four states of h1 (resources 4..7), nothing of h0's.
        assert len(colours) == 4, sel
    with pytest.raises(ms.InvalidArgumentError, match="no container matches"):
        trace.plot_gantt(resources="h9")
    with pytest.raises(ms.InvalidArgumentError, match="window"):
        trace.plot_gantt(start=0.5, end=0.5)


def test_row_positions_are_the_overview_rows(jacobi):
    # row_first and row_last index the model's resources in the overview's
    # order (the order of the model's long table): an aggregate covers the
    # resources whose path is its node's or below it, and no other.
    model = jacobi.micro(slices=20)
    order = list(dict.fromkeys(model.to_pandas()["resource"]))
    for p in (0.0, 0.3, 0.6, 1.0):
        table = model.aggregate(p).to_pandas()
        for row in table.itertuples():
            inside = [i for i, r in enumerate(order)
                      if row.depth == 0 or r == row.node or r.startswith(row.node + "/")]
            assert (row.row_first, row.row_last) == (inside[0], inside[-1]), (p, row.node)
            assert inside == list(range(inside[0], inside[-1] + 1))
            assert row.row_last - row.row_first + 1 == row.leaves


def test_trace_colours_of_a_pajeng_trace():
    # native_paje.trace defines "Initializing" as "0.0 .7 1.0": 0 178.5 255.
    path = shared("pajeng", "traces", "native_paje.trace")
    trace = ms.read_paje(path, sort=True)
    states = trace.states
    init = states[states.value == "Initializing"].iloc[0]
    fig = trace.plot_gantt(resources=init.container, start=init.start, end=init.end, width=600, height=200)
    px = pixels(fig)
    assert any(c[0] == 0 and abs(c[1] - 178.5) < 1 and c[2] == 255 for c in bar_colours(px[:, 300]))


def test_paraver_pcf_colours_reach_the_figures():
    # qsort_beo3.pcf: STATES_COLOR 1 {0,0,255}, state 1 being "Running".
    trace = ms.read(shared("paraver", "test", "cutter", "qsort_beo3.prv"))
    states = trace.states
    running = states[states.value == "Running"]
    longest = running.loc[running.duration.idxmax()]
    fig = trace.plot_gantt(resources=longest.container, start=longest.start, end=longest.end,
                           state_types=longest.type, width=600, height=200)
    assert (0, 0, 255) in bar_colours(pixels(fig)[:, 300])
