"""Ctrl-C stops the long computations on a trace in memory: the model,
the Gantt figure, the call tree, the spawn tree, the topology, the radial
layout and its figure, the treemap of an aggregation and its figure each
run in Go on a goroutine of their own, polled from Python; KeyboardInterrupt cancels the
Go work, waits for it to stop and goes through, and the next call works.

The interruption is raised at the first poll (what Ctrl-C raises in the
polling loop), so that no timing decides the test: the Go work is large
enough (640,000 states, 200,000 spawned threads, 100,000 aggregates) to be
running then on any machine."""

import pathlib

import numpy as np
import pandas as pd
import pytest

import macroscope as ms
from macroscope import _bridge, _reading, _work

RESOURCES, CALLS = 64, 5_000


@pytest.fixture(scope="module")
def nested():
    """64 resources, each with 5,000 calls in a row, each call holding one
    callee for its middle half: 640,000 states, 320,000 of them nested."""
    start = np.tile(np.arange(CALLS, dtype=float), RESOURCES)
    resource = np.repeat([f"node{r // 8}/rank{r}" for r in range(RESOURCES)], CALLS)
    outer = pd.DataFrame({"resource": resource, "state": "compute", "start": start, "end": start + 1})
    inner = pd.DataFrame({"resource": resource, "state": "send", "start": start + 0.25, "end": start + 0.75})
    return ms.from_pandas(pd.concat([outer, inner], ignore_index=True))


class Interrupter:
    """Ctrl-C at the first poll of every long computation while armed;
    ``works`` are the native works started meanwhile."""

    def __init__(self, monkeypatch):
        self._mp, self.works = monkeypatch, []

    def arm(self):
        wait = _work.run

        def interrupt(done, total):
            raise KeyboardInterrupt  # what Ctrl-C raises in the polling loop

        def run(work, desc, progress=None):
            self.works.append(work)
            wait(work, desc, interrupt)

        self._mp.setattr(_reading, "_POLL_MS", 0)
        self._mp.setattr(_work, "run", run)

    def disarm(self):
        self._mp.undo()

    def assert_stopped(self):
        """The one Go work started has ended, canceled."""
        assert len(self.works) == 1
        assert self.works[0].Wait(0)
        with pytest.raises(ms.MacroscopeError, match="canceled"):
            _bridge.call(self.works[0].Err)


@pytest.fixture
def ctrl_c(monkeypatch):
    return Interrupter(monkeypatch)


def test_interrupt_stops_the_model(nested, ctrl_c):
    ctrl_c.arm()
    with pytest.raises(KeyboardInterrupt):
        nested.micro(slices=200)
    ctrl_c.assert_stopped()
    ctrl_c.disarm()
    model = nested.micro(slices=200)
    assert (model.resources, model.slices, sorted(model.states)) == (RESOURCES, 200, ["compute", "send"])


def test_interrupt_stops_the_gantt_figure(nested, ctrl_c):
    ctrl_c.arm()
    with pytest.raises(KeyboardInterrupt):
        nested.plot_gantt(width=400, height=300)  # drawn when made
    ctrl_c.assert_stopped()
    ctrl_c.disarm()
    fig = nested.plot_gantt(width=400, height=300)
    assert fig.size == (400, 300)
    # Another format is drawn when asked, and stops the same way.
    ctrl_c.works.clear()
    ctrl_c.arm()
    with pytest.raises(KeyboardInterrupt):
        fig.to_bytes("svg")
    ctrl_c.assert_stopped()
    ctrl_c.disarm()
    assert fig.to_bytes("svg").lstrip().startswith(b"<?xml")


def test_interrupt_stops_the_call_tree(nested, ctrl_c):
    ctrl_c.arm()
    with pytest.raises(KeyboardInterrupt):
        nested.call_tree()
    ctrl_c.assert_stopped()
    ctrl_c.disarm()
    tree = nested.call_tree()
    # The root, a node per call and a node per callee.
    assert (len(tree), tree.height) == (1 + RESOURCES * CALLS * 2, 3)


def test_interrupt_stops_the_layout(nested, ctrl_c):
    tree = nested.call_tree()
    ctrl_c.arm()
    with pytest.raises(KeyboardInterrupt):
        tree.layout(width=800)
    ctrl_c.assert_stopped()
    ctrl_c.disarm()
    kal = tree.layout(width=800)
    assert len(kal) > 0
    pd.testing.assert_frame_equal(kal.to_pandas(), tree.layout(width=800).to_pandas())


def test_interrupt_stops_the_kaleidoscope_figure(nested, ctrl_c):
    kal = nested.call_tree().layout(width=800)
    ctrl_c.arm()
    with pytest.raises(KeyboardInterrupt):
        kal.plot(view="procedure")  # drawn when made
    ctrl_c.assert_stopped()
    ctrl_c.disarm()
    fig = kal.plot(view="procedure")
    assert fig.to_bytes("png") == kal.plot(view="procedure").to_bytes("png")
    assert fig.to_bytes("png").startswith(b"\x89PNG")


THREADS = 200_000


@pytest.fixture(scope="module")
def spawned(tmp_path_factory):
    """A pj_dump trace of 200,000 threads, thread k created by thread
    (k - 1) // 2 through a link of type "spawn": a binary spawn tree."""
    path = tmp_path_factory.mktemp("spawn") / "spawned.csv"
    lines = ["Container, 0, Process, 0, 300000, 300000, p"]
    lines += [f"Container, p, Thread, {k}, 300000, {300000 - k}, t{k}" for k in range(THREADS)]
    lines += [f"Link, p, spawn, {k}, {k}, 0, worker, t{(k - 1) // 2}, t{k}" for k in range(1, THREADS)]
    path.write_text("\n".join(lines) + "\n")
    return ms.read(path, progress=False)


def test_interrupt_stops_the_spawn_tree(spawned, ctrl_c):
    ctrl_c.arm()
    with pytest.raises(KeyboardInterrupt):
        spawned.spawn_tree("spawn")
    ctrl_c.assert_stopped()
    ctrl_c.disarm()
    tree = spawned.spawn_tree("spawn")
    # The synthetic root above thread 0, the root of a binary tree whose
    # deepest thread, 199,999, is 17 levels below it.
    assert (len(tree), tree.height) == (1 + THREADS, 1 + 1 + 17)


def test_interrupt_stops_the_topology(spawned, ctrl_c):
    ctrl_c.arm()
    with pytest.raises(KeyboardInterrupt):
        spawned.topology()
    ctrl_c.assert_stopped()
    ctrl_c.disarm()
    topo = spawned.topology()
    # Every thread a node, every spawn link an edge: a binary tree.
    nodes, edges = topo.to_pandas("nodes"), topo.to_pandas("edges")
    assert (len(nodes), len(edges)) == (THREADS, THREADS - 1)


def test_interrupt_stops_the_topology_changes(spawned, ctrl_c):
    """A window and a collapse of the graph of 200,000 threads stop at
    Ctrl-C; the view they were asked of is unchanged, and once complete
    they give the view the direct change gives."""
    topo = spawned.topology()
    before = topo.to_pandas("edges")
    window = topo.to_pandas("nodes")["usage"]
    for change, op, arg in [(lambda: topo.set_window(0, 150_000), "SetWindow", '{"start": 0, "end": 150000}'),
                            (lambda: topo.collapse("p"), "Collapse", "p")]:
        ctrl_c.works.clear()
        ctrl_c.arm()
        with pytest.raises(KeyboardInterrupt):
            change()
        ctrl_c.assert_stopped()
        ctrl_c.disarm()
        pd.testing.assert_frame_equal(topo.to_pandas("edges"), before)
        pd.testing.assert_series_equal(topo.to_pandas("nodes")["usage"], window)
        got = change()
        direct = topo._changed(lambda h, op=op, arg=arg: _bridge.call(getattr(h, op), arg))
        pd.testing.assert_frame_equal(got.to_pandas("nodes"), direct.to_pandas("nodes"))
        pd.testing.assert_frame_equal(got.to_pandas("edges"), direct.to_pandas("edges"))
    assert len(topo.set_window(0, 150_000).to_pandas("edges")) < THREADS - 1
    assert len(topo.collapse("p").to_pandas("nodes")) == 1


@pytest.fixture(scope="module")
def apart():
    """Every process of a model of 100,000 apart (100 sites of 50 nodes of
    20 ranks), each rank busy for its own share of the time: the treemap
    looks at its Cancel every trace.StopEvery (16,384) items, so that a
    map of 20,000 could be laid out past its only look before the first
    poll on a loaded machine."""
    ranks = 100_000
    resource = [f"site{r // 1000}/node{r // 20}/rank{r}" for r in range(ranks)]
    busy = 0.1 + 0.8 * (np.arange(ranks) % 7) / 6
    frame = pd.DataFrame({"resource": resource * 2, "state": ["compute"] * ranks + ["wait"] * ranks,
                          "start": np.concatenate([np.zeros(ranks), busy]),
                          "end": np.concatenate([busy, np.ones(ranks)])})
    model = ms.from_pandas(frame).micro(slices=20)
    agg = model.aggregate(0.0, kind="spatial")
    assert len(agg) == ranks
    return agg


def test_interrupt_stops_the_treemap(apart, ctrl_c):
    ctrl_c.arm()
    with pytest.raises(KeyboardInterrupt):
        apart.treemap(width=720, height=540)
    ctrl_c.assert_stopped()
    ctrl_c.disarm()
    tm = apart.treemap(width=720, height=540)
    # Every rank, node and site apart, under the root.
    assert len(tm) == 1 + 100 + 5000 + 100_000


def test_interrupt_stops_the_treemap_figure(apart, ctrl_c):
    ctrl_c.arm()
    with pytest.raises(KeyboardInterrupt):
        apart.plot_treemap()  # drawn when made
    ctrl_c.assert_stopped()
    ctrl_c.disarm()
    assert apart.plot_treemap().to_bytes("png") == apart.plot_treemap().to_bytes("png")


def test_interrupt_stops_the_moments(nested, ctrl_c):
    ctrl_c.arm()
    with pytest.raises(KeyboardInterrupt):
        nested.moments()
    ctrl_c.assert_stopped()
    ctrl_c.disarm()
    m = nested.moments().to_pandas()
    # Each rank's calls follow each other from 0 to 5,000 s.
    assert len(m) == RESOURCES
    np.testing.assert_allclose(m["m0"], CALLS)


def test_interrupt_stops_the_moments_of_aggregates(nested, ctrl_c):
    agg = nested.micro(slices=50).aggregate(0.0)
    ctrl_c.arm()
    with pytest.raises(KeyboardInterrupt):
        agg.moments()
    ctrl_c.assert_stopped()
    ctrl_c.disarm()
    m = agg.moments().to_pandas()
    assert len(m) == len(agg) == RESOURCES * 50
    # The ranks are busy all along: the aggregates' m0 add up to 5,000 s
    # per rank.
    assert m["m0"].sum() == pytest.approx(RESOURCES * CALLS)


def test_interrupt_stops_the_overview_figure(apart, ctrl_c):
    agg = apart  # 100,000 aggregates, drawn as visual aggregates
    ctrl_c.arm()
    with pytest.raises(KeyboardInterrupt):
        agg.plot()  # drawn when made
    ctrl_c.assert_stopped()
    ctrl_c.disarm()
    assert agg.plot().to_bytes("png") == agg.plot().to_bytes("png")


CP_DELAY = pathlib.Path(__file__).resolve().parents[2] / "testdata" / "critpath" / "cp_delay.trace"


LINKS = 200_000


@pytest.fixture(scope="module")
def linked(tmp_path_factory):
    """64 ranks sending 200,000 messages round the ring: a Pajé trace of
    cp_delay's header, as the communication matrix counts links and skips
    states."""
    header = [line for line in CP_DELAY.read_text().splitlines() if line.startswith("%")]
    lines = header + ["0 1 0 MPI", "4 3 0 1 1 MPI_LINK"]
    lines += [f'6 0.000000 {r + 1} 1 0 "rank-{r}"' for r in range(RESOURCES)]
    for k in range(LINKS):
        src, dst, t = k % RESOURCES + 1, (k + 1) % RESOURCES + 1, k * 1e-6
        lines.append(f"15 {t:.6f} 3 0 PTP {src} m{k} 8")
        lines.append(f"16 {t + 5e-7:.6f} 3 0 PTP {dst} m{k}")
    path = tmp_path_factory.mktemp("linked") / "ring.trace"
    path.write_text("\n".join(lines) + "\n")
    return ms.read(path)


@pytest.mark.parametrize("analysis", ["flat_profile", "load_imbalance", "comm_matrix", "pop", "critical_path",
                                      "stragglers"])
def test_interrupt_stops_the_analyses(nested, linked, ctrl_c, analysis):
    # Stopped in the replay of the 640,000 states (or 200,000 links, which
    # alone the communication matrix counts), before the analysis would
    # find (for pop, critical_path and stragglers) that the trace has no
    # MPI calls.
    trace = linked if analysis == "comm_matrix" else nested
    if analysis == "comm_matrix":
        assert trace.comm_matrix().to_pandas()["count"].sum() == LINKS
    ctrl_c.arm()
    with pytest.raises(KeyboardInterrupt):
        getattr(trace, analysis)()
    ctrl_c.assert_stopped()
    ctrl_c.disarm()
    # The next call works, and gives what the same analysis read from the
    # file gives (computed while reading, not as a work).
    held = ms.read(CP_DELAY)
    got, want = getattr(held, analysis)(), getattr(ms, analysis)(CP_DELAY) \
        if hasattr(ms, analysis) else getattr(ms.read(CP_DELAY), analysis)()
    for name in got.tables:
        pd.testing.assert_frame_equal(got.table(name), want.table(name))


def test_interrupt_stops_the_analysis_figure(tmp_path, ctrl_c):
    # The communication matrix of 2,000 ranks round a ring: a heat map of
    # 4 million cells, drawn as a work that Ctrl-C stops.
    ranks = 2_000
    header = [line for line in CP_DELAY.read_text().splitlines() if line.startswith("%")]
    lines = header + ["0 1 0 MPI", "4 3 0 1 1 MPI_LINK"]
    lines += [f'6 0.000000 {r + 1} 1 0 "rank-{r}"' for r in range(ranks)]
    for k in range(ranks):
        lines.append(f"15 {k * 1e-6:.6f} 3 0 PTP {k + 1} m{k} 8")
        lines.append(f"16 {k * 1e-6 + 5e-7:.6f} 3 0 PTP {(k + 1) % ranks + 1} m{k}")
    path = tmp_path / "ring.trace"
    path.write_text("\n".join(lines) + "\n")
    matrix = ms.read(path).comm_matrix()
    ctrl_c.arm()
    with pytest.raises(KeyboardInterrupt):
        matrix.plot()
    ctrl_c.assert_stopped()
    ctrl_c.disarm()
    assert matrix.plot(width=300, height=300).to_bytes("png") == matrix.plot(width=300, height=300).to_bytes("png")


def test_delay_costs_run_as_a_work(monkeypatch):
    # The delay costs are computed in a work of their own, which Ctrl-C
    # cancels as any other (the Go side's TestDelayCostsCanceled); cp_delay
    # is too small to be interrupted while they run.
    cp = ms.read(CP_DELAY).critical_path()
    works, run = [], _work.run
    monkeypatch.setattr(_work, "run", lambda work, desc, progress=None: (works.append(work), run(work, desc, progress)))
    d = cp.delay_costs()
    assert len(works) == 1
    row = d.iloc[0]
    assert (str(row.resource), str(row.state), str(row.kind), float(row.short_term)) == \
        ("rank-0", "computing", "late sender", 2.0)
    cp.plot(type="delays")
    # The delay costs asked again (kept: at once), then the figure.
    assert len(works) == 3


def test_interrupt_stops_the_moments_figure(nested, ctrl_c):
    m = nested.micro(slices=200).aggregate(0.0).moments()  # 12,800 rows
    ctrl_c.arm()
    with pytest.raises(KeyboardInterrupt):
        m.plot()  # drawn when made
    ctrl_c.assert_stopped()
    ctrl_c.disarm()
    assert m.plot().to_bytes("png") == m.plot().to_bytes("png")


def test_interrupt_stops_the_trace_tables(nested, ctrl_c):
    """The states table of 640,000 states stops at Ctrl-C; once complete,
    it is the table the direct export gives."""
    nested.__dict__.pop("states", None)  # not cached by another test
    ctrl_c.arm()
    with pytest.raises(KeyboardInterrupt):
        nested.states
    ctrl_c.assert_stopped()
    ctrl_c.disarm()
    assert "states" not in nested.__dict__  # nothing partial kept
    states = nested.states
    assert len(states) == 2 * RESOURCES * CALLS
    pd.testing.assert_frame_equal(states, _bridge.to_pandas(_bridge.table(nested._h.Table, "states")))


def test_interrupt_stops_the_model_tables(apart, ctrl_c):
    """The long table of a model of 100,000 ranks (4,000,000 values), its
    cells for the explorer and the table of an aggregation of 100,000
    aggregates stop at Ctrl-C; once complete, each is the table the direct
    export gives. (The aggregates' rows, three numbers each, convert in
    less time than a poll takes here: their Go test cancels them.)"""
    model = apart._source[0]
    for obj, start, direct in [
        (model, lambda: model.to_arrow(), lambda: _bridge.table(model._h.Table)),
        (model, lambda: _work.table(model._h.StartCells), lambda: _bridge.table(model._h.Cells)),
        (apart, lambda: apart.to_arrow(), lambda: _bridge.table(apart._h.Table)),
    ]:
        obj.__dict__.pop("_table", None)
        ctrl_c.works.clear()
        ctrl_c.arm()
        with pytest.raises(KeyboardInterrupt):
            start()
        ctrl_c.assert_stopped()
        ctrl_c.disarm()
        assert "_table" not in obj.__dict__
        got = start()
        assert got.num_rows > 0 and got.equals(direct())


def test_interrupt_stops_the_pjdump(nested, ctrl_c, tmp_path):
    """to_pjdump() of 640,000 states stops at Ctrl-C and writes no file;
    once complete, it is the text the direct dump gives."""
    out = tmp_path / "nested.pjdump"
    ctrl_c.arm()
    with pytest.raises(KeyboardInterrupt):
        nested.to_pjdump(out)
    ctrl_c.assert_stopped()
    ctrl_c.disarm()
    assert not out.exists()
    text = nested.to_pjdump()
    assert text == _bridge.call(nested._h.Pjdump, "", "{}") and text.count("\nState,") >= 2 * RESOURCES * CALLS - 1
    nested.to_pjdump(out)
    assert out.read_text() == text


def test_interrupt_stops_the_topology_figure(spawned, ctrl_c):
    """The figure of the graph of 200,000 threads (laid out: its drawing
    alone) stops at Ctrl-C; once complete it is the direct Plot's image."""
    topo = spawned.topology()
    topo.layout(iterations=1, progress=False)
    ctrl_c.arm()
    with pytest.raises(KeyboardInterrupt):
        topo.plot(width=400, height=300)  # drawn when made
    ctrl_c.assert_stopped()
    ctrl_c.disarm()
    png = topo.plot(width=400, height=300).to_bytes("png")
    direct = bytes(_bridge.call(topo._h.Plot, _bridge.options(width=400.0, height=300.0, format="png", labels=False)))
    assert png.startswith(b"\x89PNG") and png == direct


def test_interrupt_stops_the_partial_model(nested, ctrl_c):
    """The partial model of a trace in memory (a dataset file's, built on a
    worker) stops at Ctrl-C; once complete it is the direct Partial's."""
    opts, lo, hi = _bridge.options(slices=100), 0, CALLS * 10**9
    ctrl_c.arm()
    with pytest.raises(KeyboardInterrupt):
        _work.compute(nested._h.StartPartial, opts, lo, hi, result="Data")
    ctrl_c.assert_stopped()
    ctrl_c.disarm()
    data = bytes(_work.compute(nested._h.StartPartial, opts, lo, hi, result="Data"))
    assert len(data) > 0 and data == bytes(_bridge.call(nested._h.Partial, opts, lo, hi))


def test_interrupt_stops_the_comparison_figure(nested, ctrl_c):
    """The comparison figure of two runs of 64 resources stops at Ctrl-C;
    once complete it is the direct Plot's image."""
    diff = ms.compare([nested, nested], slices=200, progress=False).differences(progress=False)
    ctrl_c.arm()
    with pytest.raises(KeyboardInterrupt):
        diff.plot(width=600, height=400)  # drawn when made
    ctrl_c.assert_stopped()
    ctrl_c.disarm()
    png = diff.plot(width=600, height=400).to_bytes("png")
    direct = bytes(_bridge.call(diff._h.Plot, _bridge.options(width=600 * 0.75, height=400 * 0.75, format="png",
                                                             top=10)))
    assert png.startswith(b"\x89PNG") and png == direct


def test_interrupt_stops_a_large_comparison_explorer(nested, ctrl_c):
    """A large comparison's explorer opens at the knee, searched for on
    the caller's thread: Ctrl-C stops that search (one work, canceled) and
    no sweep is left running; opened again, it shows the knee's p."""
    from macroscope.widgets import _compare, _overview

    cmp = ms.compare([nested, nested], slices=100, progress=False)
    sweeps = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_overview, "BACKGROUND_SWEEP_COST", 0)
        mp.setattr(_compare.CompareExplorer, "_sweep_in_background", lambda w: sweeps.append(w))
        ctrl_c.arm()
        with pytest.raises(KeyboardInterrupt):
            cmp.explore()
        ctrl_c.assert_stopped()
        ctrl_c.disarm()
        assert sweeps == []
        w = cmp.explore()
    assert sweeps == [w] and len(w._levels) == 1
    assert w.differences.p == cmp.recommended_p()
