"""python -m macroscope COMMAND TRACE [--out DIR] [options]: the command line.

The commands of the Go command line ``macroscope``, through the Python API;
each writes its figure (PNG) and tables (Parquet) to DIR (default: out).

  overview   optimal aggregation (spatiotemporal, spatial or temporal) at the
             recommended p: overview.png, aggregates.parquet, levels.parquet
  treemap    treemap of the optimal aggregation: treemap.png, treemap.parquet
  gantt      Gantt chart of the raw states over a window: gantt.png
  topology   topology-based view: topology.png, nodes.parquet, edges.parquet
  moments    moments of utilization: moments.parquet, moments.png
  kaleido    kaleidoscope of the call tree: kaleido.png, kaleido.parquet
  convert    the trace as a hive-partitioned Parquet dataset (--to
             parquet-dataset --partition-by rank): DIR/states, links...

Exit status: 0 done, 1 a failure (the trace could not be read, a result not
computed or written), 2 bad usage (an unknown option, a bad value).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import pyarrow.parquet as pq

import macroscope as ms
from macroscope._formats import READER_OPTIONS
from macroscope._trace import describe

_KINDS = ("spatiotemporal", "spatial", "temporal")
# The names of the readers' options, as the Go registry declares them.
_READER_OPTIONS = {name for names in READER_OPTIONS.values() for name in names}


def _output(args, name: str) -> str:
    """The path of an output file in --out, which is created if needed."""
    os.makedirs(args.out, exist_ok=True)
    return os.path.join(args.out, name)


def _write_table(args, name: str, table) -> str:
    path = _output(args, name)
    pq.write_table(table, path)
    return path


def _progress():
    return None if sys.stderr.isatty() else False


def _read_model(args):
    # The model is built while reading: the trace's events are not kept.
    model = ms.read_micro(args.trace, slices=args.slices, start=args.start, end=args.end, format=args.format,
                          key=getattr(args, "key", "name"), progress=_progress(), **args.read)
    print(f"trace      {describe(model.trace_info)}")
    print(f"model      {model}")
    return model


def _read_trace(args):
    trace = ms.read(args.trace, args.format, progress=_progress(), **args.read)
    print(f"trace      {trace!r}")
    return trace


def _aggregate(args, model, sweep: bool = True):
    """The optimal partition of --kind at --p (default: the middle of the
    recommended level), and the significant levels when the sweep ran."""
    levels = None
    p = args.p
    if sweep or p is None:
        levels = model.significant_p(kind=args.kind, threshold=args.threshold)
        rec = levels[levels["recommended"]].iloc[0]
        rec_p = (rec.p_low + rec.p_high) / 2
        p = rec_p if p is None else p
        kind = "" if args.kind == "spatiotemporal" else args.kind + " "
        print(f"levels     {len(levels)} distinct optimal {kind}partitions as p goes from 0 to 1; "
              f"recommended p = {rec_p:.4g} ({rec.aggregates} aggregates)")
    agg = model.aggregate(p, kind=args.kind)
    print(f"aggregated {agg}")
    return agg, levels, p


def overview(args) -> list[str]:
    model = _read_model(args)
    agg, levels, p = _aggregate(args, model)
    kind = "" if args.kind == "spatiotemporal" else f", {args.kind} aggregation"
    png = _output(args, "overview.png")
    agg.plot(png, title=f"{os.path.basename(args.trace)}{kind}, p = {p:.3g}")
    parquet = _write_table(args, "aggregates.parquet", agg.to_arrow())
    levels_path = _output(args, "levels.parquet")
    levels.to_parquet(levels_path)
    top = agg.to_pandas().sort_values("leaves", ascending=False).head(3)
    print("largest aggregates:")
    for row in top.itertuples():
        print(f"  {row.node or '(all)'}: {row.leaves} resources, {row.start:.4g}-{row.end:.4g} s, "
              f"mostly {row.mode} ({row.mode_proportion:.0%})")
    return [png, parquet, levels_path]


def treemap(args) -> list[str]:
    model = _read_model(args)
    agg, _, p = _aggregate(args, model, sweep=False)
    tm = agg.treemap(value=args.value, root=args.root)
    print(f"treemap    {tm}")
    png = _output(args, "treemap.png")
    agg.plot_treemap(png, value=args.value, root=args.root,
                           proportions=args.proportions, zooms=args.zooms,
                           title=f"{os.path.basename(args.trace)}, {args.kind} aggregation, p = {p:.3g}")
    return [png, _write_table(args, "treemap.parquet", tm.to_arrow())]


def topology(args) -> list[str]:
    trace = _read_trace(args)
    tp = trace.topology(size=args.size, fill=args.fill, edges=args.edges, start=args.start, end=args.end,
                        kinds=args.kinds, charge=args.charge)
    if args.depth:
        tp.collapse_depth(args.depth)
    if args.optimal is not None:
        tp.collapse_optimal(args.optimal)
    for group in args.collapse or ():
        tp.collapse(group)
    print(f"graph      {tp}")
    tp.layout(iterations=args.iterations, seed=args.seed)
    stats = tp.layout_stats
    print(f"layout     {stats['iterations']} iterations (converged: {stats['converged']}), energy {stats['energy']:.4g}")
    png = _output(args, "topology.png")
    tp.plot(png, title=f"{os.path.basename(args.trace)}: topology")
    return [png, _write_table(args, "nodes.parquet", tp.to_arrow("nodes")),
            _write_table(args, "edges.parquet", tp.to_arrow("edges"))]


def convert(args) -> list[str]:
    trace = ms.read(args.trace, args.format, **args.read)
    by = None if args.partition_by == "none" else args.partition_by
    out = ms.to_parquet_dataset(trace, args.out, partition_by=by)
    print(f"trace      {trace!r}")
    return [out]


def moments(args) -> list[str]:
    m = ms.moments(args.trace, format=args.format, busy=args.busy, idle=args.idle, by=args.by, start=args.start,
                   end=args.end, state_types=args.state_types, nesting=args.nesting, gaps=args.gaps,
                   **args.read)
    print(f"moments    {m}")
    df = m.to_pandas()
    if not args.quiet:
        keys = {"node": ["node", "resources"], "state": ["resource", "state"]}.get(m.by, ["resource"])
        shown = df[keys + ["m0", "m1", "m2", "m3"]].copy()
        if "node" in keys:
            shown["node"] = shown["node"].astype(str).replace("", "(all)")
        print(shown.to_string(index=False, float_format=lambda v: f"{v:.9g}"))
    parquet = _write_table(args, "moments.parquet", m.to_arrow())
    png = _output(args, "moments.png")
    m.plot(png, title=f"{os.path.basename(args.trace)}: moments of utilization by {m.by}")
    return [parquet, png]


def kaleido(args) -> list[str]:
    trace = _read_trace(args)
    tree = trace.call_tree(state_types=args.state_types, containers=args.containers,
                           per_container=args.per_container, root=args.root)
    print(f"tree       {tree}")
    kal = tree.layout(width=args.width, level_spacing=args.spacing, subtree=args.subtree,
                      min_sector=args.min_sector)
    print(f"layout     {kal}")
    png = _output(args, "kaleido.png")
    kal.plot(view=args.view, path=png)
    return [png, _write_table(args, "kaleido.parquet", kal.to_arrow())]


def _names(text: str) -> list[str]:
    """A comma-separated list of names."""
    return [n.strip() for n in text.split(",") if n.strip()]


def _reader_options(text: str) -> dict:
    """The reader's options of --read, name=value,...: true and false are
    booleans, integers numbers, anything else text (the reader checks)."""
    options = {}
    for item in _names(text):
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise argparse.ArgumentTypeError(f"{item!r} is not name=value")
        if name.strip() not in _READER_OPTIONS:
            raise argparse.ArgumentTypeError(f"{name.strip()!r} is an option of no reader (they are "
                                             f"{', '.join(sorted(_READER_OPTIONS))})")
        value = value.strip()
        if value.lower() in ("true", "false"):
            options[name.strip()] = value.lower() == "true"
        else:
            try:
                options[name.strip()] = int(value)
            except ValueError:
                options[name.strip()] = value
    return options


def gantt(args) -> list[str]:
    trace = _read_trace(args)
    png = _output(args, "gantt.png")
    trace.plot_gantt(png, start=args.start, end=args.end, resources=args.resources, state_types=args.state_types,
                     title=f"{os.path.basename(args.trace)}: states")
    return [png]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="macroscope", description=__doc__.splitlines()[0],
                                     epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawTextHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)

    def command(name, run, help, window=True):
        p = sub.add_parser(name, help=help, description=help)
        p.set_defaults(run=run)
        p.add_argument("trace")
        p.add_argument("--format", choices=ms.FORMATS, default=None,
                       help="trace format (default: by extension or content)")
        p.add_argument("--read", type=_reader_options, default={}, metavar="NAME=VALUE,...",
                       help="options of the format's reader (e.g. sort=true, strict=true, view=cpu, args=true)")
        p.add_argument("--strict", action="store_true",
                       help="fail when the trace is incomplete (a cut last record, a missing part) instead of "
                            "reading what is there with a warning (--read strict=true)")
        p.add_argument("--out", default="out", help="output directory, created if needed (default: out)")
        if window:
            p.add_argument("--start", type=float, default=None, help="window start (s; default: the trace's)")
            p.add_argument("--end", type=float, default=None, help="window end (s; default: the trace's)")
        return p

    def aggregation(p, kinds, default):
        p.add_argument("--slices", type=int, default=100, help="number of time slices (default: 100)")
        p.add_argument("--key", choices=("name", "category", "type"), default="name",
                       help="what the model's states are: names, categories (Chrome's cat) or state types "
                            "(kernels, NCCL, memcpy... of GPU profilers); default: name")
        p.add_argument("--kind", choices=kinds, default=default, help=f"kind of aggregation (default: {default})")
        p.add_argument("--p", type=float, default=None, help="trade-off p in [0, 1] (default: the recommended level)")
        p.add_argument("--threshold", type=float, default=1e-3,
                       help="resolution in p of the search for significant levels (0: all; default: 0.001)")

    aggregation(command("overview", overview, "optimal aggregation of a trace (any format of "
                                              "macroscope.formats()) at the recommended level: figure and tables"),
                _KINDS, "spatiotemporal")

    p = command("treemap", treemap, "squarified treemap of the optimal aggregation: figure and table of rectangles")
    aggregation(p, ("spatial", "spatiotemporal"), "spatial")
    p.add_argument("--value", choices=("leaves", "activity"), default="leaves",
                   help="area of a rectangle: resources or time in states (default: leaves)")
    p.add_argument("--root", default=None, help="path of the hierarchy node at the top (default: everything)")
    p.add_argument("--proportions", action=argparse.BooleanOptionalAction, default=True,
                   help="divide every aggregate into a strip per state as wide as its share (default; "
                        "--no-proportions: the mode state's colour)")
    p.add_argument("--zooms", type=int, default=3, help="enlarged views of detailed groups too small to read")

    p = command("gantt", gantt, "Gantt chart of the raw states over a window, one row per resource (the "
                                "overview's rows): figure")
    p.add_argument("--resources", type=_names, default=None,
                   help="comma-separated containers to draw (names, paths or globs; default: all)")
    p.add_argument("--state-types", type=_names, default=None, help="comma-separated state types to draw")

    p = command("topology", topology, "topology-based view: resources and their links as a graph, sized by "
                                      "capacity, filled by use")
    p.add_argument("--edges", type=lambda s: s if s in ("platform", "communications") else _names(s), default=None,
                   help="platform, communications or comma-separated link types (default: the platform's links if "
                        "any, else the communications)")
    p.add_argument("--kinds", type=_names, default=None, help="comma-separated container types whose containers "
                                                              "are nodes")
    p.add_argument("--size", type=_names, default=None, help="comma-separated names of the capacity variable")
    p.add_argument("--fill", type=_names, default=None, help="comma-separated names of the utilization variable")
    p.add_argument("--collapse", type=_names, default=None, help="comma-separated paths of groups to collapse")
    p.add_argument("--depth", type=int, default=0, help="collapse every group at this depth (0: none)")
    p.add_argument("--optimal", type=float, default=None,
                   help="collapse the groups of the optimal spatial aggregation at this p")
    p.add_argument("--charge", choices=("sqrt", "members", "unit"), default=None,
                   help="charge of an aggregate in the layout (default: members, the sum of theirs)")
    p.add_argument("--iterations", type=int, default=None, help="cap on the layout's iterations (default: 500)")
    p.add_argument("--seed", type=int, default=0, help="seed of the initial positions")

    p = command("moments", moments, "moments of utilization of every resource, computed while reading: "
                                    "table and figure")
    p.add_argument("--busy", type=_names, default=None, help="comma-separated state values that count as busy "
                                                             "(default: every state)")
    p.add_argument("--idle", type=_names, default=None, help="comma-separated state values that do not count as busy")
    p.add_argument("--by", choices=("resource", "state", "node"), default="resource", help="what a row is")
    p.add_argument("--state-types", type=_names, default=None, help="comma-separated state types to look at")
    p.add_argument("--nesting", choices=("innermost", "union"), default="innermost", help="nested states")
    p.add_argument("--gaps", action="store_true", help="also count time in no state as busy")
    p.add_argument("-q", "--quiet", action="store_true", help="do not print the table")

    p = command("convert", convert, "the trace as a hive-partitioned Parquet dataset (states, links, variables, "
                                    "events) for Dask, DuckDB, polars or R's arrow", window=False)
    p.add_argument("--to", choices=("parquet-dataset",), default="parquet-dataset", help="what to write")
    p.add_argument("--partition-by", default="rank",
                   help="rank (default: the process, task or run of each row), a container type name, or none")

    p = command("kaleido", kaleido, "kaleidoscope of the call tree of the nested states: figure and table of "
                                    "laid-out nodes", window=False)
    p.add_argument("--view", choices=("pe", "procedure", "time"), default="pe", help="what the colours show")
    p.add_argument("--width", type=float, default=850, help="window width in pixels (default: 850)")
    p.add_argument("--spacing", type=float, default=None, help="pixels between levels (default: what fits)")
    p.add_argument("--subtree", type=int, default=None, help="number of the node at the centre (default: the root)")
    p.add_argument("--min-sector", type=float, default=1.0, help="node-condensing threshold in pixels (default: 1)")
    p.add_argument("--state-types", type=_names, default=None, help="comma-separated state types")
    p.add_argument("--containers", type=_names, default=None, help="comma-separated containers (names or paths)")
    p.add_argument("--per-container", action="store_true", help="one node per container under the root")
    p.add_argument("--root", default="program", help="procedure name of the root (default: program)")
    return parser


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    if args.strict:
        args.read = dict(args.read, strict=True)
    began = time.perf_counter()
    try:
        written = args.run(args)
    except ms.InvalidArgumentError as exc:
        # The command line is at fault, not the data.
        print(f"macroscope {args.command}: invalid {exc}", file=sys.stderr)
        return 2
    except (ms.MacroscopeError, OSError) as exc:
        print(f"macroscope {args.command}: {exc}", file=sys.stderr)
        return 1
    print(f"wrote      {', '.join(map(str, written))}")
    print(f"done in    {time.perf_counter() - began:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
