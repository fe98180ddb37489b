"""python -m macroscope: every command, run as a user runs it (a subprocess),
against the Python API it is built on: the same numbers printed, the same
tables written, a PNG figure, and the exit status of each kind of error."""

import os
import pathlib
import subprocess
import sys

import pandas as pd
import pyarrow.parquet as pq
import pytest

import macroscope as ms
from macroscope._trace import describe
from conftest import REPO, shared

JACOBI = str(REPO / "testdata" / "jacobi32.trace")


def cli(*args, cwd=None):
    """Run python -m macroscope with args: (exit status, stdout lines, stderr)."""
    run = subprocess.run([sys.executable, "-m", "macroscope", *map(str, args)], capture_output=True, text=True,
                         cwd=cwd, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    return run.returncode, run.stdout.splitlines(), run.stderr


def ok(*args):
    code, out, err = cli(*args)
    assert code == 0, err
    return out


def line(out, label):
    """The printed line of the label (its first word)."""
    found = [x for x in out if x.split(" ", 1)[0] == label]
    assert len(found) == 1, out
    return found[0]


def is_png(path):
    with open(path, "rb") as f:
        return f.read(8) == b"\x89PNG\r\n\x1a\n"


def same_table(path, expected):
    """The Parquet file at path holds exactly the Arrow table expected."""
    got = pq.read_table(path)
    assert got.column_names == expected.column_names
    pd.testing.assert_frame_equal(got.to_pandas(), expected.to_pandas(), check_exact=True)


def levels_line(levels, kind):
    rec = levels[levels["recommended"]].iloc[0]
    word = "" if kind == "spatiotemporal" else kind + " "
    return (f"levels     {len(levels)} distinct optimal {word}partitions as p goes from 0 to 1; "
            f"recommended p = {(rec.p_low + rec.p_high) / 2:.4g} ({rec.aggregates} aggregates)")


@pytest.fixture(scope="module")
def model20():
    return ms.read_micro(JACOBI, slices=20)


@pytest.mark.parametrize("kind", ["spatiotemporal", "spatial", "temporal"])
def test_overview_kinds(tmp_path, model20, kind):
    out = ok("overview", JACOBI, "--kind", kind, "--slices", 20, "--out", tmp_path / "new")
    levels = model20.significant_p(kind=kind)
    p = model20.recommended_p(kind=kind)
    agg = model20.aggregate(p, kind=kind)
    assert line(out, "model") == f"model      {model20}"
    assert line(out, "levels") == levels_line(levels, kind)
    assert line(out, "aggregated") == f"aggregated {agg}"
    d = tmp_path / "new"
    assert line(out, "wrote") == f"wrote      {d / 'overview.png'}, {d / 'aggregates.parquet'}, {d / 'levels.parquet'}"
    same_table(d / "aggregates.parquet", agg.to_arrow())
    pd.testing.assert_frame_equal(pd.read_parquet(d / "levels.parquet"), levels)
    assert is_png(d / "overview.png")
    frame = agg.to_pandas()
    if kind == "spatial":  # cuts of the hierarchy over the whole window
        assert (frame.first_slice == 0).all() and (frame.last_slice == 19).all()
    if kind == "temporal":  # every resource apart, cut at the same slices
        assert (frame.leaves == 1).all()
        cuts = frame.groupby("node", observed=True).first_slice.apply(tuple)
        assert len(cuts) == 32 and cuts.nunique() == 1 and len(cuts.iloc[0]) > 1


def test_overview_default_is_the_demo(tmp_path):
    """What make demo runs: the recommended spatiotemporal level of 100
    slices, its three largest aggregates, the three files."""
    out = ok("overview", JACOBI, "--out", tmp_path)
    model = ms.read_micro(JACOBI, slices=100)
    levels = model.significant_p()
    agg = model.aggregate(model.recommended_p())
    assert out[:4] == [f"trace      {describe(model.trace_info)}", f"model      {model}",
                       levels_line(levels, "spatiotemporal"), f"aggregated {agg}"]
    assert out[0].endswith("66 containers, 10272 states, 0 variables, 3920 links, 0 events, 0-8.5038 s>")
    # 384 levels above p = 0, and the microscopic view at p = 0.
    assert line(out, "levels").startswith("levels     385 distinct optimal partitions as p goes from 0 to 1; "
                                          "recommended p = 0.5578 (577 aggregates)")
    top = agg.to_pandas().sort_values("leaves", ascending=False).head(3)
    assert out[4] == "largest aggregates:" and len(out) == 10
    assert out[5] == (f"  {top.iloc[0].node}: 32 resources, {top.iloc[0].start:.4g}-{top.iloc[0].end:.4g} s, "
                      f"mostly {top.iloc[0]['mode']} ({top.iloc[0].mode_proportion:.0%})")
    same_table(tmp_path / "aggregates.parquet", agg.to_arrow())
    assert is_png(tmp_path / "overview.png")


def test_overview_at_a_given_p(tmp_path, model20):
    out = ok("overview", JACOBI, "--kind", "spatial", "--p", 0, "--slices", 20, "--out", tmp_path)
    agg = model20.aggregate(0, kind="spatial")
    assert line(out, "aggregated") == f"aggregated {agg}" and len(agg) == 32  # every host (and its one rank)
    assert line(out, "levels") == levels_line(model20.significant_p(kind="spatial"), "spatial")


def test_treemap(tmp_path, model20):
    out = ok("treemap", JACOBI, "--slices", 20, "--value", "activity", "--proportions", "--out", tmp_path)
    p = model20.recommended_p(kind="spatial")
    agg = model20.aggregate(p, kind="spatial")
    tm = agg.treemap(value="activity")
    assert line(out, "levels") == levels_line(model20.significant_p(kind="spatial"), "spatial")
    assert line(out, "aggregated") == f"aggregated {agg}"
    assert line(out, "treemap") == f"treemap    {tm}"
    same_table(tmp_path / "treemap.parquet", tm.to_arrow())
    assert is_png(tmp_path / "treemap.png")
    # At a given p no sweep is needed.
    out = ok("treemap", JACOBI, "--slices", 20, "--p", 0, "--kind", "spatiotemporal", "--out", tmp_path)
    assert not [x for x in out if x.startswith("levels")]
    assert line(out, "aggregated") == f"aggregated {model20.aggregate(0)}"


def test_moments(tmp_path):
    out = ok("moments", JACOBI, "--by", "node", "--busy", "Compute", "--out", tmp_path)
    m = ms.moments(JACOBI, busy=["Compute"], by="node")
    assert line(out, "moments") == f"moments    {m}"
    same_table(tmp_path / "moments.parquet", m.to_arrow())
    assert is_png(tmp_path / "moments.png")
    # The printed table: a header, then one line per node, root first.
    df = m.to_pandas()
    assert out[1].split() == ["node", "resources", "m0", "m1", "m2", "m3"]
    assert len(out) == 2 + len(df) + 2 and len(df) == 67
    root = out[2].split()
    assert root[:2] == ["(all)", "32"]
    assert [float(x) for x in root[2:]] == pytest.approx([df.m0[0], df.m1[0], df.m2[0], df.m3[0]], rel=1e-8)
    assert float(root[2]) == pytest.approx(df.busy_ns[0] / 1e9, rel=1e-9)


def test_moments_window_by_state(tmp_path):
    out = ok("moments", JACOBI, "--by", "state", "--idle", "Compute", "--start", 2, "--end", 3.5, "-q",
             "--out", tmp_path)
    m = ms.moments(JACOBI, idle=["Compute"], by="state", start=2, end=3.5)
    assert out[0] == f"moments    {m}" and len(out) == 3  # no table printed
    same_table(tmp_path / "moments.parquet", m.to_arrow())


def test_topology_of_the_bundled_trace(tmp_path):
    out = ok("topology", JACOBI, "--out", tmp_path, "--seed", 3)
    tp = ms.read(JACOBI).topology()
    tp.layout(seed=3)
    assert line(out, "graph") == f"graph      {tp}"
    assert line(out, "layout").startswith(f"layout     {tp.layout_stats['iterations']} iterations (converged: True)")
    same_table(tmp_path / "nodes.parquet", tp.to_arrow("nodes"))
    same_table(tmp_path / "edges.parquet", tp.to_arrow("edges"))
    edges = pd.read_parquet(tmp_path / "edges.parquet")
    # Every message between two ranks counts once.
    links = ms.read(JACOBI).links
    assert edges["count"].sum() == (links["source"] != links["destination"]).sum() > 0
    assert is_png(tmp_path / "topology.png")


def test_topology_of_grid5000(tmp_path):
    g5k = shared("pajeng", "traces", "g5k.trace")
    out = ok("topology", g5k, "--depth", 1, "--out", tmp_path)
    tp = ms.read(g5k).topology().collapse_depth(1)
    tp.layout()
    assert line(out, "graph") == f"graph      {tp}"
    assert "29 nodes (ROUTER, LINK, HOST), 37 edges, 10 groups collapsed" in line(out, "graph")
    same_table(tmp_path / "nodes.parquet", tp.to_arrow("nodes"))
    same_table(tmp_path / "edges.parquet", tp.to_arrow("edges"))
    assert is_png(tmp_path / "topology.png")
    out = ok("topology", g5k, "--optimal", 0.5, "--iterations", 20, "--out", tmp_path)
    assert line(out, "graph") == f"graph      {ms.read(g5k).topology().collapse_optimal(0.5)}"


def test_kaleido(tmp_path):
    out = ok("kaleido", JACOBI, "--per-container", "--subtree", 1, "--view", "time", "--out", tmp_path)
    tree = ms.read(JACOBI).call_tree(per_container=True)
    kal = tree.layout(subtree=1)
    assert line(out, "tree") == f"tree       {tree}"
    assert line(out, "layout") == f"layout     {kal}"
    same_table(tmp_path / "kaleido.parquet", kal.to_arrow())
    assert pq.read_table(tmp_path / "kaleido.parquet").num_rows == len(kal) < len(tree.to_pandas())
    assert is_png(tmp_path / "kaleido.png")


def test_errors(tmp_path):
    bad = tmp_path / "bad.trace"
    bad.write_text("%EventDef PajeSetState 1\n% Time date\n% Container string\n% Type string\n% Value string\n"
                   "%EndEventDef\n1 0.5 nowhere S run\n")
    for args, code, says in [
        (["overview", JACOBI, "--kind", "radial"], 2, "invalid choice: 'radial'"),
        (["treemap", JACOBI, "--kind", "temporal"], 2, "invalid choice: 'temporal'"),
        (["overview", JACOBI, "--slices", 0, "--out", tmp_path], 2, "macroscope overview: invalid slices"),
        (["treemap", JACOBI, "--root", "nowhere", "--out", tmp_path], 2, "macroscope treemap: invalid root"),
        (["moments", JACOBI, "--busy", "Comput", "--out", tmp_path], 2, "macroscope moments: invalid"),
        (["topology", JACOBI, "--collapse", "nowhere", "--out", tmp_path], 2, "nowhere"),
        (["kaleido", bad, "--out", tmp_path], 1, f"macroscope kaleido: {bad}:7"),
        (["moments", tmp_path / "missing.trace"], 1, "missing.trace"),
        (["overview", JACOBI, "--slices", 5, "--out", bad], 1, "macroscope overview: "),
        (["unfold", JACOBI], 2, "invalid choice: 'unfold'"),
    ]:
        code_, out, err = cli(*args)
        assert (code_, says in err) == (code, True), (args, err)
    assert not (tmp_path / "overview.png").exists()


def _shuffled(tmp_path):
    """The bundled trace with the second and third quarters of its events
    swapped: no longer in time order."""
    lines = pathlib.Path(JACOBI).read_text().splitlines(keepends=True)
    header = [l for l in lines if l.startswith("%") or l.startswith("#")]
    body = [l for l in lines if not (l.startswith("%") or l.startswith("#"))]
    q = len(body) // 4
    shuffled = tmp_path / "shuffled.trace"
    shuffled.write_text("".join(header + body[:q] + body[2 * q:3 * q] + body[q:2 * q] + body[3 * q:]))
    return shuffled


def test_reader_options_reach_the_reader(tmp_path):
    # A Pajé trace not sorted by time: refused as it is, read with
    # --read sort=true by every command, with the numbers of the sorted trace.
    shuffled = _shuffled(tmp_path)
    code, _, err = cli("moments", shuffled, "-q", "--out", tmp_path)
    assert code == 1 and "sort=True" in err
    out = ok("moments", shuffled, "-q", "--read", "sort=true", "--out", tmp_path)
    assert line(out, "moments") == f"moments    {ms.moments(JACOBI)}"
    same_table(tmp_path / "moments.parquet", ms.moments(JACOBI).to_arrow())
    same_table(tmp_path / "moments.parquet", ms.moments(shuffled, sort=True).to_arrow())
    out = ok("overview", shuffled, "--read", "sort=true", "--p", "0.5", "--out", tmp_path)
    assert line(out, "model") == f"model      {ms.read_micro(JACOBI)}"
    out = ok("kaleido", shuffled, "--read", "sort=true", "--out", tmp_path)
    assert line(out, "trace").startswith("trace      <macroscope.Trace shuffled.trace: 66 containers, 10272 states, 0 variables, 3920 links")
    # Options are checked by the reader: an unknown one, a bad value.
    code, _, err = cli("moments", JACOBI, "--read", "sortt=true", "--out", tmp_path)
    assert code == 2 and "sortt" in err
    code, _, err = cli("moments", JACOBI, "--read", "sort", "--out", tmp_path)
    assert code == 2 and "not name=value" in err
    with pytest.raises(TypeError, match="sortt"):
        ms.moments(JACOBI, sortt=True)
