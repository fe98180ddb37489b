"""One set of colours: the explorers paint each state in the colour the
static figures give it (the trace's own, then the palette's, the grey of
"other"), and the same state has the same colour in every view."""

from __future__ import annotations

import json
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
TRACE = ROOT / "testdata" / "jacobi32.trace"

pytest.importorskip("anywidget", reason="anywidget is not installed (make setup installs it)")

import macroscope as ms  # noqa: E402
from macroscope.widgets import ModelExplorer, MomentsExplorer  # noqa: E402
from macroscope.widgets._treemap import TreemapExplorer  # noqa: E402

OTHER = "#969696"  # plots.OtherColor


def paje_colours(path) -> dict[str, str]:
    """The colours the Pajé file defines for its values (PajeDefineEntityValue,
    event 5 in jacobi32.trace: alias, type, name, "r g b" in [0, 1]), as
    "#rrggbb", read from the file itself."""
    out = {}
    for line in pathlib.Path(path).read_text().splitlines():
        m = re.fullmatch(r'5 \S+ \S+ (\S+) "([\d.]+) ([\d.]+) ([\d.]+)"', line)
        if m:
            out[m[1]] = "#" + "".join(f"{round(255 * float(v)):02x}" for v in m.groups()[1:])
    return out


def svg_fills(fig) -> set[str]:
    """The fill colours of a figure's SVG, lower case."""
    svg = fig.to_bytes("svg").decode()
    return {c.lower() for c in re.findall(r'fill(?:="|:)(#[0-9a-fA-F]{6})', svg)}


@pytest.fixture(scope="module")
def jacobi():
    return ms.read(TRACE)


def test_explorers_take_the_traces_colours(jacobi):
    model = jacobi.micro(slices=20)
    own = paje_colours(TRACE)
    assert own["Compute"] == "#99cc99" and own["PMPI_Init"] == own["PMPI_Finalize"] == "#00ff00"
    agg = model.aggregate(model.recommended_p())
    w = ModelExplorer(model)
    colours = dict(zip(w.states, w.palette))
    # Each state in the trace's colour; PMPI_Finalize repeats PMPI_Init's,
    # so the figures give it another, apart from every state's.
    for state in model.states:
        if state != "PMPI_Finalize":
            assert colours[state] == own[state], state
    assert colours["PMPI_Finalize"] not in set(own.values())
    assert len(set(w.palette)) == len(w.palette)
    # The overview figure's legend swatches (opaque fills) are the
    # explorer's colours.
    legend = svg_fills(agg.plot(format="svg")) - {"#ffffff"}
    opaque = {c for c in legend if c in colours.values()}
    assert {colours["Compute"]} <= opaque
    # Same state, same colour: the treemap explorer, the overview of a
    # zoomed window, and overrides as the figure takes them.
    assert TreemapExplorer(agg).palette == w.palette
    assert dict(zip(*(lambda e: (e.states, e.palette))(ModelExplorer(jacobi.micro(slices=10, start=0.5, end=1)))))[
        "Compute"] == own["Compute"]
    w2 = model.explore(colors={"Compute": "red"})
    assert dict(zip(w2.states, w2.palette))["Compute"] == "#ff0000"


def test_moments_explorer_takes_the_displays_colours(jacobi):
    mo = jacobi.moments(by="state")
    w = MomentsExplorer(mo)
    own = paje_colours(TRACE)
    colours = dict(zip(w.states, w.palette))
    assert colours["Compute"] == own["Compute"]
    # Every colour the explorer paints a state in is one the display's
    # figure paints too.
    fills = svg_fills(mo.plot(format="svg"))
    assert set(colours.values()) <= fills


def test_same_state_same_colour_in_model_and_moments(tmp_path):
    """A trace without colours of its own (Chrome JSON, names numbered per
    instance): the overview explorer, the moment display's explorer and its
    figure give each state one colour, whether the moments come from the
    trace in memory or from the file (the display's figure once skipped the
    palette's first colour, its skew line's, for its states)."""
    events = [{"ph": "M", "name": "thread_name", "pid": 1, "tid": t, "args": {"name": f"w{t}"}} for t in (1, 2)]
    for k, name in enumerate(["compute", "ProfilerStep#7", "MPI_Send", "ProfilerStep#8", "MPI_Recv"] * 2):
        for t in (1, 2):
            events.append({"ph": "X", "name": name, "pid": 1, "tid": t, "ts": 100 * k + 10 * t, "dur": 50})
    path = tmp_path / "steps.json"
    path.write_text(json.dumps({"traceEvents": events}))
    tr = ms.read(path)
    model = tr.micro(slices=5)
    overview = dict(zip(ModelExplorer(model).states, ModelExplorer(model).palette))
    # The default model leaves out the profiler's steps: the moments, which
    # keep them, give them a colour of their own after the model's.
    assert set(overview) == {"compute", "MPI_Send", "MPI_Recv"}
    assert len(set(overview.values())) == 3
    for mo in (tr.moments(by="state"), ms.moments(path, by="state")):
        w = MomentsExplorer(mo)
        moments = dict(zip(w.states, w.palette))
        assert set(moments) == set(overview) | {"ProfilerStep"}
        assert {s: c for s, c in moments.items() if s in overview} == overview
        assert moments["ProfilerStep"] not in overview.values()
        assert set(moments.values()) <= svg_fills(mo.plot(format="svg"))


def test_other_is_grey_in_explorer_and_figure(tmp_path):
    """More states than a figure colours apart: the smallest are "other",
    grey, in the explorer as in the figure."""
    events = [{"ph": "X", "name": f"op{k:02d}", "pid": 1, "tid": 1 + k % 3, "ts": 1000 * k, "dur": 10 * (k + 1)}
              for k in range(30)]
    path = tmp_path / "many.json"
    path.write_text(json.dumps({"traceEvents": events}))
    with pytest.warns(UserWarning, match="more than the 20"):
        model = ms.read(path).micro(slices=5, key="name")
    w = ModelExplorer(model)
    colours = dict(zip(w.states, w.palette))
    grey = sorted(s for s, c in colours.items() if c == OTHER)
    # The 19 longest (op11..op29) keep their colours; op00..op10 are drawn
    # as "other", the explorer's last state, as in the figure's legend.
    assert grey == [f"op{k:02d}" for k in range(11)] + ["other"] and w.states[-1] == "other"
    assert len({c for c in colours.values() if c != OTHER}) == 19
    assert OTHER in svg_fills(model.aggregate(0).plot(format="svg"))


def test_topology_explorer_takes_the_figures_kind_colours(jacobi):
    from macroscope.widgets._topology import TopologyExplorer

    tp = ms.read(ROOT / "testdata" / "jacobi32-platform.trace").topology()
    # Hosts blue, links orange, routers green: plots.TopologyKindColor.
    assert TopologyExplorer(tp).kind_colours == {"HOST": "#1f64b4", "LINK": "#e66e00", "ROUTER": "#509646"}
    # A kind of its own takes the palette's colour of its rank, as the
    # figure outlines it.
    tp = jacobi.topology()
    colours = TopologyExplorer(tp).kind_colours
    svg = tp.plot(format="svg").to_bytes("svg").decode()
    drawn = {c.lower() for c in re.findall(r'stroke(?:="|:)(#[0-9a-fA-F]{6})', svg)}
    assert list(colours) == ["MPI"] and colours["MPI"] in drawn


def test_explorer_modes_fold_other_as_the_figure(tmp_path):
    """A resource in 30 states of about the same length: its largest state
    holds less time than the 11 smallest together, which the figure draws
    as "other": the explorer takes the mode among the states drawn too."""
    import numpy as np

    events, t = [], 0
    for k in range(30):
        events.append({"ph": "X", "name": f"op{k:02d}", "pid": 1, "tid": 1, "ts": t, "dur": 100 + k})
        t += 100 + k
    events.append({"ph": "X", "name": "op29", "pid": 1, "tid": 2, "ts": 0, "dur": t})
    path = tmp_path / "flat.json"
    path.write_text(json.dumps({"traceEvents": events}))
    with pytest.warns(UserWarning, match="more than the 20"):
        model = ms.read(path).micro(slices=1, key="name")
    w = ModelExplorer(model)
    assert w.states == model.states + ["other"] and w.palette[-1] == OTHER
    agg = model.aggregate(0)
    df = agg.to_pandas()
    # The oracle: the shares of the states drawn as "other" added, by brute force.
    grouped = [s for s, c in zip(model.states, w.palette) if c == OTHER]
    assert grouped == [f"op{k:02d}" for k in range(11)]
    one = df[df.node.str.endswith("1/1")].iloc[0]
    other = sum(one["prop:" + s] for s in grouped)
    assert one["mode"] == "op29" and other > one["prop:op29"]
    cols = w._cols(w.current)
    row = int(np.flatnonzero(df.node.str.endswith("1/1").to_numpy())[0])
    assert w.states[cols["mode"][row]] == "other"
    assert cols["mode_proportion"][row] == pytest.approx(other, rel=1e-12)
    # The other thread is all op29, drawn in its own colour.
    row2 = int(np.flatnonzero(df.node.str.endswith("1/2").to_numpy())[0])
    assert w.states[cols["mode"][row2]] == "op29" and w.palette[cols["mode"][row2]] != OTHER
    assert OTHER in svg_fills(agg.plot(format="svg"))

