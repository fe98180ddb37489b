"""The three kinds of optimal partitions, their measures, the significant
p values, the quality curves and the microscopic metrics, checked against
independent computations."""

import collections
import math
import struct

import numpy as np
import pytest

import macroscope as ms
from conftest import shared

KINDS = ["spatiotemporal", "spatial", "temporal"]


@pytest.fixture(scope="module")
def model(jacobi):
    return jacobi.micro(slices=20)


def cells_covered(model, frame):
    """Number of times each (resource, slice) cell is covered by the
    aggregates of frame."""
    resources = list(dict.fromkeys(model.to_pandas().resource.astype(str)))
    count = collections.Counter()
    for row in frame.itertuples():
        for r in resources:
            if row.node == "root" or r == row.node or r.startswith(row.node + "/"):
                for k in range(row.first_slice, row.last_slice + 1):
                    count[(r, k)] += 1
    return count, resources


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_is_a_partition_of_its_kind(model, kind):
    for p in [0.0, 0.3, 0.55, 1.0]:
        agg = model.aggregate(p, kind=kind)
        assert agg.kind == kind
        frame = agg.to_pandas()
        count, resources = cells_covered(model, frame)
        assert len(count) == len(resources) * model.slices and set(count.values()) == {1}
        if kind == "spatial":  # a cut of the hierarchy over the whole window
            assert (frame.first_slice == 0).all() and (frame.last_slice == model.slices - 1).all()
        if kind == "temporal":  # single resources, the same cuts for all
            assert (frame.leaves == 1).all()
            cuts = frame.groupby("node").apply(lambda g: tuple(sorted(zip(g.first_slice, g.last_slice))))
            assert cuts.nunique() == 1
        assert agg.pic == pytest.approx(p * agg.gain - (1 - p) * agg.loss, abs=1e-12)
        assert frame.gain.sum() == pytest.approx(agg.gain) and frame.loss.sum() == pytest.approx(agg.loss)


def test_spatiotemporal_optimum_dominates(model):
    """With the same (raw) measures, spatial and temporal partitions are
    spatiotemporal partitions too: the spatiotemporal optimum is at least as
    good as both, at every p."""
    for p in [0.05, 0.2, 0.4, 0.6, 0.8]:
        best = model.aggregate(p, normalize=False).pic
        for kind in ["spatial", "temporal"]:
            # The spatial kind's default is the paper's measure: ask for the cells'.
            agg = model.aggregate(p, kind=kind, normalize=False, entities="cells", gain="entropy")
            assert agg.pic <= best + 1e-9


def test_coarsest_partition_is_the_unit_of_normalised_measures(model):
    for kind in KINDS:
        coarse = model.aggregate(1.0, kind=kind)
        raw = model.aggregate(1.0, kind=kind, normalize=False)
        assert coarse.gain == pytest.approx(1) and coarse.loss == pytest.approx(1)
        if kind == "temporal":
            assert len(coarse) == model.resources
        else:
            assert len(coarse) == 1
        # At p = 0 the optimum (least loss, then most gain) does not depend on
        # the scale of the measures: the same aggregates, each measured in
        # units of the coarsest partition.
        fine = model.aggregate(0.0, kind=kind).to_pandas()
        fine_raw = model.aggregate(0.0, kind=kind, normalize=False).to_pandas()
        assert (fine.node.values == fine_raw.node.values).all()
        assert (fine.first_slice.values == fine_raw.first_slice.values).all()
        np.testing.assert_allclose(fine.gain, fine_raw.gain / raw.gain, rtol=1e-9, atol=1e-15)
        np.testing.assert_allclose(fine.loss, fine_raw.loss / raw.loss, rtol=1e-9, atol=1e-15)


def test_size_gain_counts_the_values_saved(model):
    frame = model.aggregate(0.4, gain="size", normalize=False).to_pandas()
    size = frame.leaves * (frame.last_slice - frame.first_slice + 1)
    np.testing.assert_array_equal(frame.gain, size - 1)


def test_spatial_window(model):
    frame = model.aggregate(0.2, kind="spatial", window=(3, 11)).to_pandas()
    assert (frame.first_slice == 3).all() and (frame.last_slice == 11).all()
    assert frame.leaves.sum() == model.resources
    with pytest.raises(ms.InvalidArgumentError):
        model.aggregate(0.2, kind="spatial", window=(5, 30))
    with pytest.raises(ms.InvalidArgumentError):
        model.aggregate(0.2, kind="temporal", window=(0, 3))


def test_bad_arguments(model):
    with pytest.raises(ms.InvalidArgumentError):
        model.aggregate(0.5, kind="both")
    with pytest.raises(ms.InvalidArgumentError):
        model.aggregate(0.5, gain="bits")
    with pytest.raises(ms.InvalidArgumentError):
        model.aggregate(math.nan)
    with pytest.raises(ms.InvalidArgumentError):
        model.significant_p(recommend="best")


@pytest.mark.parametrize("kind", KINDS)
def test_significant_p_of_each_kind(model, kind):
    levels = model.significant_p(kind=kind, threshold=0)
    assert list(levels.columns) == ["p_low", "p_high", "gain", "loss", "aggregates", "recommended"]
    assert levels.p_low.iloc[0] == 0 and levels.p_high.iloc[-1] == 1
    np.testing.assert_array_equal(levels.p_low.iloc[1:].to_numpy(), levels.p_high.iloc[:-1].to_numpy())
    # The first level is the microscopic view. Where some merges lose
    # nothing (identical cells) it is optimal at p = 0 only, and the next
    # level, from p = 0 on, has the same loss.
    cells = model.resources * (20 if kind != "spatial" else 1)
    assert levels.aggregates.iloc[0] == cells
    assert (np.diff(levels.gain) > 0).all() and (np.diff(levels.loss.iloc[1:]) > 0).all()
    if levels.p_high.iloc[0] == 0:
        assert levels.loss.iloc[1] == levels.loss.iloc[0]
    else:
        assert levels.loss.iloc[1] > levels.loss.iloc[0]
    assert levels.recommended.sum() == 1
    for row in levels.itertuples():
        agg = model.aggregate((row.p_low + row.p_high) / 2, kind=kind)
        assert agg.gain == pytest.approx(row.gain, rel=1e-9) and len(agg) == row.aggregates
    p = model.recommended_p(kind=kind, threshold=0)
    rec = levels[levels.recommended].iloc[0]
    assert rec.p_low <= p <= rec.p_high
    # The knee rule: closest to (gain, loss) = (1, 0) on normalised measures.
    dist = (levels.gain - 1) ** 2 + levels.loss ** 2
    assert levels.recommended.to_numpy().argmax() == dist.to_numpy().argmin()


@pytest.mark.parametrize("kind", ["spatiotemporal", "spatial", "temporal"])
@pytest.mark.parametrize("options", [{}, {"threshold": 0}, {"normalize": False, "threshold": 0}])
def test_recommended_p_is_the_sweeps(jacobi, kind, options):
    """recommended_p finds the knee without the sweep (asked first, on a
    model of its own): the middle of the level the sweep recommends, to the
    bit."""
    fresh = jacobi.micro(slices=20)
    p = fresh.recommended_p(kind=kind, **options)
    levels = fresh.significant_p(kind=kind, **options)
    rec = levels[levels.recommended].iloc[0]
    assert p == (rec.p_low + rec.p_high) / 2
    assert fresh.recommended_p(kind=kind, recommend="ocelotl", **options) == pytest.approx(
        jacobi.micro(slices=20).recommended_p(kind=kind, recommend="ocelotl", **options), abs=0)


def test_quality_curve_is_the_steps_of_the_levels(model):
    levels = model.significant_p(kind="temporal")
    curve = model.quality_curve(kind="temporal")
    assert list(curve.columns) == ["p", "gain", "loss", "aggregates"]
    assert len(curve) == 2 * len(levels)
    np.testing.assert_array_equal(curve.p.to_numpy()[0::2], levels.p_low.to_numpy())
    np.testing.assert_array_equal(curve.p.to_numpy()[1::2], levels.p_high.to_numpy())
    np.testing.assert_array_equal(curve.gain.to_numpy()[1::2], levels.gain.to_numpy())
    assert (np.diff(curve.p) >= 0).all()


def png_size(data):
    data = bytes(data)  # a Figure, or the bytes of a file
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_plot_quality(model, tmp_path):
    assert png_size(model.plot_quality(width=700, height=500)) == (700, 500)
    assert png_size(model.plot_quality(kind="spatial", log_p=True)) == (768, 576)
    svg = tmp_path / "quality.svg"
    assert isinstance(model.plot_quality(svg, kind="temporal", title="jacobi"), ms.Figure) and svg.exists()
    text = svg.read_text()
    assert "<svg" in text and "recommended p" in text and "jacobi" in text


def overlap(a0, a1, b0, b1):
    return np.clip(np.minimum(a1, b1) - np.maximum(a0, b0), 0, None)


def test_state_average_duration(jacobi):
    """At depth 1 (MPI calls, which do not nest), each cell is the time
    spent in the state within the slice over the number of calls that
    overlap the slice, recomputed here with pandas."""
    n = 13
    model = jacobi.micro(slices=n, depth=1, metric="state_average_duration")
    assert model.metric == "state_average_duration"
    cells = model.to_pandas()
    assert list(cells.columns) == ["resource", "slice", "slice_start", "slice_end", "state", "value"]
    edges = np.linspace(model.start, model.end, n + 1)
    time, stays = collections.defaultdict(float), collections.Counter()
    for s in jacobi.states[jacobi.states.depth == 1].itertuples():
        d = overlap(s.start, s.end, edges[:-1], edges[1:])
        for k in np.nonzero(d > 0)[0]:
            time[(s.container, k, s.value)] += d[k]
            stays[(s.container, k, s.value)] += 1
    got = {(r, k, st): v for r, k, st, v in zip(cells.resource.astype(str), cells.slice, cells.state.astype(str),
                                                cells.value) if v > 0}
    assert got.keys() == set(time)
    for key, v in got.items():
        assert v == pytest.approx(time[key] / stays[key], rel=1e-9)


def test_event_count():
    trace = ms.read_paje(shared("pajeng", "traces", "events.trace"))
    model = trace.micro(slices=4, metric="event_count")
    cells = model.to_pandas()
    assert list(cells.columns) == ["resource", "slice", "slice_start", "slice_end", "event", "value"]
    edges = np.linspace(model.start, model.end, 5)
    want = collections.Counter()
    for e in trace.events.itertuples():
        k = min(int(np.searchsorted(edges, e.time, side="right")) - 1, 3)
        want[(e.container, k, e.value)] += 1
    got = {(r, k, v): c for r, k, v, c in zip(cells.resource.astype(str), cells.slice, cells.event.astype(str),
                                              cells.value) if c}
    assert got == want and sum(got.values()) == len(trace.events)


def test_variable_average(mardi):
    n = 7
    model = mardi.micro(slices=n, metric="variable_average", types=["power"])
    cells = model.to_pandas()
    edges = np.linspace(model.start, model.end, n + 1)
    want = collections.defaultdict(float)
    for v in mardi.variables[mardi.variables["type"] == "power"].itertuples():
        d = overlap(v.start, v.end, edges[:-1], edges[1:])
        for k in np.nonzero(d)[0]:
            want[(v.container, k)] += v.value * d[k] / (edges[1] - edges[0])
    assert set(cells.variable.astype(str)) == {"power"}
    got = {(r, k): v for r, k, v in zip(cells.resource.astype(str), cells.slice, cells.value)}
    for key, v in want.items():
        assert got[key] == pytest.approx(v, rel=1e-9)
    assert sum(1 for v in got.values() if v) == sum(1 for v in want.values() if v)
    # Aggregating averages works like aggregating proportions.
    agg = model.aggregate(0.5, kind="spatial")
    assert agg.to_pandas().leaves.sum() == model.resources


def test_bad_metric(jacobi):
    with pytest.raises(ms.InvalidArgumentError):
        jacobi.micro(slices=10, metric="heat")
    # The trace has no event type: the data have nothing to count, no argument is at fault.
    with pytest.raises(ms.EmptyTraceError, match="the trace has no events to model$") as info:
        jacobi.micro(slices=10, metric="event_count")
    assert info.value.file.endswith("jacobi32.trace")


def test_ties_at_zero(model):
    """At p = 0 every cell stays apart by default; lpaggreg's rule (the
    larger gain) already merges the identical ones."""
    cells = model.resources * 20
    fine = model.aggregate(0)
    assert len(fine) == cells and fine.gain == 0 and fine.loss == 0
    lp = model.aggregate(0, ties="lpaggreg")
    assert len(lp) < cells and lp.loss == pytest.approx(0, abs=1e-12) and lp.gain > 0
    # Just above 0 the two rules agree, on lpaggreg's partition.
    above = model.aggregate(1e-12)
    assert len(above) == len(lp) and above.gain == pytest.approx(lp.gain, rel=1e-12)
    levels = model.significant_p(threshold=0, ties="lpaggreg")
    assert levels.aggregates.iloc[0] == len(lp) and levels.p_low.iloc[0] == 0 and levels.p_high.iloc[0] > 0
    assert len(model.aggregate(0, kind="spatial")) == model.resources
    with pytest.raises(ms.InvalidArgumentError):
        model.aggregate(0, ties="nearest")


def test_spatial_resource_entities(jacobi):
    """entities="resources": each resource once, by its mean over the
    window; the spatial levels no longer depend on the slices."""
    coarse, fine = jacobi.micro(slices=10), jacobi.micro(slices=40)
    agg = coarse.aggregate(0.3, kind="spatial", gain="size", normalize=False, entities="resources").to_pandas()
    np.testing.assert_array_equal(agg.gain, agg.leaves - 1)
    a = coarse.significant_p(kind="spatial", threshold=0, entities="resources")
    b = fine.significant_p(kind="spatial", threshold=0, entities="resources")
    assert len(a) == len(b) >= 2
    np.testing.assert_allclose(a.p_high, b.p_high, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(a.aggregates, b.aggregates)
    with pytest.raises(ms.InvalidArgumentError):
        coarse.aggregate(0.3, entities="resources")  # spatiotemporal: cells only
