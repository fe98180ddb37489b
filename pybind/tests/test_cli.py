"""python -m macroscope: every command, run as a user runs it (a subprocess),
against the Python API it stands beside: the same numbers printed, the same
tables written, a PNG figure, and the exit status of each kind of error.
The command line is the Go program's (cmd/macroscope/cli): test_cli_same.py
checks that both doors give the same bytes."""

import os
import pathlib
import subprocess
import sys

import pandas as pd
import pyarrow.parquet as pq
import pytest

import macroscope as ms
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


def wrote(out):
    """The files the command says it wrote, in order."""
    return [x.split(None, 1)[1] for x in out if x.startswith("wrote ")]


def is_png(path):
    with open(path, "rb") as f:
        return f.read(8) == b"\x89PNG\r\n\x1a\n"


def same_table(path, expected):
    """The Parquet file at path holds exactly the Arrow table expected."""
    got = pq.read_table(path)
    assert got.column_names == expected.column_names
    pd.testing.assert_frame_equal(got.to_pandas(), expected.to_pandas(), check_exact=True)


def trace_line(path, s):
    """The report's line of what was read, from a trace's summary."""
    return (f"trace      {path}: {s['containers']} containers, {s['states']} states, {s['variables']} variables, "
            f"{s['links']} links, {s['events']} events, {s['start']:g}-{s['end']:g} s")


def model_line(m):
    return f"model      {m.resources} resources x {m.slices} slices x {len(m.states)} states, {m.start:g}-{m.end:g} s"


def aggregated_line(agg):
    return f"aggregated p = {agg.p:.4g}: {len(agg)} aggregates, gain {agg.gain:.4g}, loss {agg.loss:.4g} (normalised)"


def levels_line(levels, kind):
    rec = levels[levels["recommended"]].iloc[0]
    word = "" if kind == "spatiotemporal" else kind + " "
    return (f"levels     {len(levels)} distinct optimal {word}partitions as p goes from 0 to 1; "
            f"recommended p = {(rec.p_low + rec.p_high) / 2:.4g} ({rec.aggregates} aggregates)")


def knee_line(levels, kind):
    """The overview's line when the levels are not asked for: the
    recommended level found without the sweep, the sweep's own."""
    rec = levels[levels["recommended"]].iloc[0]
    return (f"levels     recommended p = {(rec.p_low + rec.p_high) / 2:.4g} ({rec.aggregates} aggregates), the knee "
            f"of the {kind} levels, optimal for p in [{rec.p_low:.4g}, {rec.p_high:.4g}]")


@pytest.fixture(scope="module")
def model20():
    return ms.read_micro(JACOBI, slices=20)


@pytest.mark.parametrize("kind", ["spatiotemporal", "spatial", "temporal"])
def test_overview_kinds(tmp_path, model20, kind):
    out = ok("overview", JACOBI, "--kind", kind, "--slices", 20, "--out", tmp_path / "new")
    levels = model20.significant_p(kind=kind)
    p = model20.recommended_p(kind=kind)
    agg = model20.aggregate(p, kind=kind)
    assert line(out, "trace") == trace_line(JACOBI, model20.trace_info)
    assert line(out, "model") == model_line(model20)
    assert line(out, "levels") == knee_line(levels, kind)
    assert line(out, "aggregated") == aggregated_line(agg)
    d = tmp_path / "new"
    assert wrote(out) == [str(d / "overview.png"), str(d / "aggregates.parquet")]
    same_table(d / "aggregates.parquet", agg.to_arrow())
    # The levels' table when asked for: the sweep's.
    out = ok("overview", JACOBI, "--kind", kind, "--slices", 20, "--levels", "levels.parquet", "--out", d)
    assert line(out, "levels") == levels_line(levels, kind)
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
    assert out[:4] == [trace_line(JACOBI, model.trace_info), model_line(model),
                       knee_line(levels, "spatiotemporal"), aggregated_line(agg)]
    assert out[0].endswith("66 containers, 10272 states, 0 variables, 3920 links, 0 events, 0-8.5038 s")
    # Of 385 levels (384 above p = 0, and the microscopic view at p = 0).
    assert len(levels) == 385
    assert line(out, "levels").startswith("levels     recommended p = 0.5578 (577 aggregates), the knee")
    # The aggregates of the most resources x slices, the first in the table's order among equals.
    table = agg.to_pandas()
    table["area"] = table.leaves * (table.last_slice - table.first_slice + 1)
    top = table.sort_values("area", ascending=False, kind="stable").head(3)
    assert out[4] == "largest aggregates:" and len(out) == 4 + 1 + 3 + 2 + 1  # two files written
    for row, printed in zip(top.itertuples(), out[5:8]):
        assert printed == (f"  {row.node}: {row.leaves} resources, {row.start:.4g}-{row.end:.4g} s, "
                           f"mostly {row.mode} ({row.mode_proportion:.0%})")
    # The iterations from 4.5 to 8.4 s that repeat alike, as the README's caption says.
    assert out[5] == "  root: 32 resources, 4.507-8.419 s, mostly Compute (78%)"
    assert out[-1].startswith("done in    ")
    same_table(tmp_path / "aggregates.parquet", agg.to_arrow())
    assert is_png(tmp_path / "overview.png")


def test_overview_at_a_given_p(tmp_path, model20):
    # At a given p the levels are searched for when their table is asked for.
    out = ok("overview", JACOBI, "--kind", "spatial", "--p", 0, "--slices", 20, "--levels", "levels.parquet",
             "--out", tmp_path)
    agg = model20.aggregate(0, kind="spatial")
    assert line(out, "aggregated") == aggregated_line(agg) and len(agg) == 32  # every host (and its one rank)
    assert line(out, "levels") == levels_line(model20.significant_p(kind="spatial"), "spatial")
    out = ok("overview", JACOBI, "--kind", "spatial", "--p", 0, "--slices", 20, "--out", tmp_path / "quick")
    assert not [x for x in out if x.startswith("levels")] and line(out, "aggregated") == aggregated_line(agg)
    assert not (tmp_path / "quick" / "levels.parquet").exists()


def test_treemap(tmp_path, model20):
    out = ok("treemap", JACOBI, "--slices", 20, "--value", "activity", "--proportions", "--out", tmp_path)
    p = model20.recommended_p(kind="spatial")
    agg = model20.aggregate(p, kind="spatial")
    tm = agg.treemap(value="activity")
    assert line(out, "levels") == knee_line(model20.significant_p(kind="spatial"), "spatial")
    assert line(out, "aggregated") == aggregated_line(agg)
    assert line(out, "treemap") == f"treemap    {len(tm)} rectangles by activity"
    same_table(tmp_path / "treemap.parquet", tm.to_arrow())
    assert is_png(tmp_path / "treemap.png")
    # At a given p no sweep is needed.
    out = ok("treemap", JACOBI, "--slices", 20, "--p", 0, "--kind", "spatiotemporal", "--no-proportions",
             "--out", tmp_path)
    assert not [x for x in out if x.startswith("levels")]
    assert line(out, "aggregated") == aggregated_line(model20.aggregate(0))


def test_moments(tmp_path):
    out = ok("moments", JACOBI, "--by", "node", "--busy", "Compute", "--out", tmp_path)
    m = ms.moments(JACOBI, busy=["Compute"], by="node")
    assert line(out, "trace").startswith(f"trace      {JACOBI}: 32 resources, window ")
    same_table(tmp_path / "moments.parquet", m.to_arrow())
    assert is_png(tmp_path / "moments.png")
    # The printed table: a header, then one line per node, root first.
    df = m.to_pandas()
    assert out[1].split() == ["node", "resources", "m0", "(s)", "m1", "(s)", "m2", "(s)", "m3", "(s)"]
    assert len(out) == 2 + len(df) + 2 and len(df) == 67
    root = out[2].split()
    assert root[:2] == ["(all)", "32"]
    assert [float(x) for x in root[2:]] == pytest.approx([df.m0[0], df.m1[0], df.m2[0], df.m3[0]], rel=1e-8)
    assert float(root[2]) == pytest.approx(df.busy_ns[0] / 1e9, rel=1e-9)
    assert wrote(out) == [str(tmp_path / "moments.parquet"), str(tmp_path / "moments.png")]


def test_moments_window_by_state(tmp_path):
    out = ok("moments", JACOBI, "--by", "state", "--idle", "Compute", "--start", 2, "--end", 3.5, "-q",
             "--out", tmp_path)
    m = ms.moments(JACOBI, idle=["Compute"], by="state", start=2, end=3.5)
    assert out[0].startswith("trace      ") and len(out) == 3  # no table printed
    same_table(tmp_path / "moments.parquet", m.to_arrow())


def graph_line(tp):
    """What the graph line says of a topology: its nodes, edges and
    collapsed groups."""
    collapsed = f"; {len(tp.collapsed)} groups collapsed" if tp.collapsed else ""
    return f"graph      {len(tp.nodes)} nodes: ", f"; {len(tp.edges)} edges{collapsed}; window "


def test_topology_of_the_bundled_trace(tmp_path):
    out = ok("topology", JACOBI, "--out", tmp_path, "--seed", 3)
    tp = ms.read(JACOBI).topology()
    tp.layout(seed=3)
    head, middle = graph_line(tp)
    assert line(out, "graph").startswith(head) and middle in line(out, "graph")
    assert line(out, "layout").startswith(f"layout     {tp.layout_stats['iterations']} iterations (converged: true)")
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
    head, middle = graph_line(tp)
    assert line(out, "graph").startswith(head) and middle in line(out, "graph")
    assert line(out, "graph").startswith("graph      29 nodes: ") and "; 37 edges; 10 groups collapsed; " in line(out, "graph")
    same_table(tmp_path / "nodes.parquet", tp.to_arrow("nodes"))
    same_table(tmp_path / "edges.parquet", tp.to_arrow("edges"))
    assert is_png(tmp_path / "topology.png")
    out = ok("topology", g5k, "--optimal", 0.5, "--iterations", 20, "--out", tmp_path)
    head, middle = graph_line(ms.read(g5k).topology().collapse_optimal(0.5))
    assert line(out, "graph").startswith(head) and middle in line(out, "graph")


def test_kaleido(tmp_path):
    out = ok("kaleido", JACOBI, "--per-container", "--subtree", 1, "--view", "time", "--out", tmp_path)
    tree = ms.read(JACOBI).call_tree(per_container=True)
    kal = tree.layout(subtree=1)
    t = tree._info
    assert line(out, "tree") == f"tree       {len(tree)} nodes, height {tree.height}, {t['procedures']} procedures, {t['pes']} PEs"
    condensed = (f"condensed {kal.c0}:1 up to level {kal.threshold}, {kal.c0 + 1}:1 beyond" if kal.condensed
                 else "not condensed")
    assert line(out, "layout") == (f"layout     {len(kal)} nodes, {kal.levels} levels shown ({condensed}), "
                                   f"{kal.level_spacing:g} px between levels; {kal.drawn} drawn, "
                                   f"{kal.collapsed} drawn without descendants")
    same_table(tmp_path / "kaleido.parquet", kal.to_arrow())
    assert pq.read_table(tmp_path / "kaleido.parquet").num_rows == len(kal) < len(tree.to_pandas())
    assert is_png(tmp_path / "kaleido.png")


def test_errors(tmp_path):
    bad = tmp_path / "bad.trace"
    bad.write_text("%EventDef PajeSetState 1\n% Time date\n% Container string\n% Type string\n% Value string\n"
                   "%EndEventDef\n1 0.5 nowhere S run\n")
    for args, code, says in [
        (["overview", JACOBI, "--kind", "radial"], 2, 'macroscope overview: invalid --kind: unknown kind "radial"'),
        (["treemap", JACOBI, "--kind", "temporal"], 2, "macroscope treemap: invalid --kind"),
        (["overview", JACOBI, "--slices", 0, "--out", tmp_path], 2, "macroscope overview: invalid --slices"),
        (["overview", JACOBI, "--slices", "x"], 2, 'macroscope overview: invalid --slices: "x": not a number'),
        (["overview", JACOBI, "--bogus"], 2, "macroscope overview: unknown flag --bogus"),
        (["treemap", JACOBI, "--root", "nowhere", "--out", tmp_path], 2, "macroscope treemap: invalid --root"),
        (["moments", JACOBI, "--busy", "Comput", "--out", tmp_path], 2, "macroscope moments: invalid --busy"),
        (["topology", JACOBI, "--collapse", "nowhere", "--out", tmp_path], 2, "nowhere"),
        (["kaleido", bad, "--out", tmp_path], 1, f"macroscope kaleido: {bad}:7"),
        (["moments", tmp_path / "missing.trace"], 1, "missing.trace"),
        # An output that cannot be written is found before the read.
        (["overview", JACOBI, "--slices", 5, "--out", bad], 1, f"macroscope overview: cannot write in --out {bad}"),
        (["unfold", JACOBI], 2, 'macroscope: unknown command "unfold"'),
        ([], 2, "usage: macroscope <command>"),
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
    assert code == 1 and "--read sort=true" in err
    out = ok("moments", shuffled, "-q", "--read", "sort=true", "--out", tmp_path)
    assert line(out, "trace").startswith(f"trace      {shuffled}: 32 resources")
    same_table(tmp_path / "moments.parquet", ms.moments(JACOBI).to_arrow())
    same_table(tmp_path / "moments.parquet", ms.moments(shuffled, sort=True).to_arrow())
    out = ok("overview", shuffled, "--read", "sort=true", "--p", "0.5", "--out", tmp_path)
    assert line(out, "model") == model_line(ms.read_micro(JACOBI))
    out = ok("kaleido", shuffled, "--read", "sort=true", "--out", tmp_path)
    assert line(out, "trace").startswith(f"trace      {shuffled}: 66 containers, 10272 states, 0 variables, 3920 links")
    # Options are checked by the reader: an unknown one, a bad value.
    code, _, err = cli("moments", JACOBI, "--read", "sortt=true", "--out", tmp_path)
    assert code == 2 and "invalid --read sortt: is not an option of the paje reader" in err
    code, _, err = cli("moments", JACOBI, "--read", "sort", "--out", tmp_path)
    assert code == 2 and "not name=value" in err
    with pytest.raises(TypeError, match="sortt"):
        ms.moments(JACOBI, sortt=True)


def test_warnings_are_sentences(tmp_path):
    """What a reader skipped is a line of the report, not a Python warning
    with a source path."""
    path = tmp_path / "t.json"
    path.write_text('[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":5},{},'
                    '{"ph":"X","name":"b","pid":1,"tid":2,"ts":1,"dur":4}]')
    run = subprocess.run([sys.executable, "-m", "macroscope", "overview", str(path), "--slices", "5", "--out",
                          str(tmp_path)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "warning    skipped 1 entries without ph" in run.stdout.splitlines()
    assert run.stderr == ""


def test_help_and_version():
    code, out, err = cli("help")
    assert code == 0 and err == ""
    listed = [x.split()[0] for x in out[out.index("commands:") + 1:] if x.startswith("  ")]
    assert listed == ["overview", "moments", "treemap", "gantt", "topology", "kaleido", "profile", "imbalance",
                      "commmatrix", "pop", "critpath", "stragglers", "compare", "convert", "synth", "dump", "help"]
    for command in listed[:-1]:
        code, out, err = cli(command, "--help")
        assert code == 0 and err == "" and out[0].startswith(f"usage: macroscope {command} "), (command, err)
    code, out, _ = cli("--version")
    pyproject = (REPO / "pyproject.toml").read_text()
    version = pyproject.split('\nversion = "', 1)[1].split('"', 1)[0]
    assert code == 0 and out == [f"macroscope {version}"] and ms.__version__ == version


def test_compare_series_carries_the_pop_factors_as_the_python_series(tmp_path):
    runs = [str(REPO / "testdata" / "compare" / f"jacobi32-{n}.trace.gz") for n in ("base", "slowhost", "slowlink")]
    ok("compare", *runs, "--slices", 20, "--permutations", 19, "--series", "series.parquet", "--out", tmp_path)
    got = pd.read_parquet(tmp_path / "series.parquet")
    want = ms.compare_series(runs, slices=20, permutations=19)
    pop = [c for c in want.columns if c.startswith("pop:")]
    # Each run's factors, then the study's (runs of MPI calls: POP's
    # scalabilities against the run of fewest processes).
    assert pop == ["pop:" + k for k in (
        "parallel_efficiency", "load_balance", "communication_efficiency", "serialisation_efficiency",
        "transfer_efficiency", "global_efficiency", "computation_scalability", "ipc_scalability",
        "instruction_scalability", "frequency_scalability", "speedup")]
    pd.testing.assert_frame_equal(got[pop], want[pop], check_exact=True)
    ok("compare", *runs, "--slices", 20, "--permutations", 19, "--series", "bare.parquet", "--no-analyses",
       "--out", tmp_path)
    assert not [c for c in pd.read_parquet(tmp_path / "bare.parquet").columns if c.startswith("pop:")]


def test_compare_series_window_as_the_cli(tmp_path):
    # start= and end= are the CLI's --start and --end: each run, the
    # reference's too, on the window from its own start.
    runs = [str(REPO / "testdata" / "compare" / f"jacobi32-{n}.trace.gz") for n in ("base", "slowhost")]
    ok("compare", *runs, "--slices", 20, "--permutations", 19, "--series", "window.parquet", "--no-analyses",
       "--start", 0.5, "--end", 1.5, "--out", tmp_path)
    got = pd.read_parquet(tmp_path / "window.parquet")
    want = ms.compare_series(runs, slices=20, permutations=19, analyses=False, start=0.5, end=1.5)
    numbers = [c for c in want.columns if pd.api.types.is_float_dtype(want[c])]
    assert "divergence_to_ref" in numbers and [c for c in numbers if c.startswith("seconds:")]
    pd.testing.assert_frame_equal(got[numbers], want[numbers], check_exact=True)
    # The window is a second of 32 resources' time: the states' seconds
    # add up to at most that, and differ from the whole run's.
    whole = ms.compare_series(runs, slices=20, permutations=19, analyses=False)
    seconds = [c for c in numbers if c.startswith("seconds:")]
    assert (want[seconds].sum(axis=1) <= 32 * 1.0 + 1e-9).all()
    assert not want[seconds].equals(whole[seconds])
    # As compare()'s: a model's window was chosen when it was built.
    model = ms.read_micro(runs[1], slices=20, progress=False)
    for kw in (dict(start=0.5), dict(end=1.5)):
        with pytest.raises(ms.InvalidArgumentError, match="model already built on its window") as e:
            ms.compare_series([runs[0], model], slices=20, analyses=False, **kw)
        assert e.value.param == "window"
