"""python -m macroscope overview TRACE [--out DIR]: the main job.

Reads a trace of any format Macroscope knows, builds the microscopic
model, finds the significant levels of detail, aggregates at the
recommended one, and writes the overview figure and the tables (Parquet)
to DIR.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import pyarrow.parquet as pq

import macroscope as ms
from macroscope._trace import describe


def overview(args) -> int:
    began = time.perf_counter()
    # The model is built while reading: the trace's events are not kept.
    model = ms.read_micro(args.trace, slices=args.slices, start=args.start, end=args.end, format=args.format,
                          progress=None if sys.stderr.isatty() else False)
    print(f"trace      {describe(model.trace_info)}")
    print(f"model      {model}")
    levels = model.significant_p()
    rec = levels[levels["recommended"]].iloc[0]
    p = args.p if args.p is not None else (rec.p_low + rec.p_high) / 2
    print(f"levels     {len(levels)} distinct optimal partitions as p goes from 0 to 1; "
          f"recommended p = {p:.4g} ({rec.aggregates} aggregates)")
    agg = model.aggregate(p)
    print(f"aggregated {agg}")
    os.makedirs(args.out, exist_ok=True)
    png = agg.plot(os.path.join(args.out, "overview.png"), title=f"{os.path.basename(args.trace)}, p = {p:.3g}")
    parquet = os.path.join(args.out, "aggregates.parquet")
    pq.write_table(agg.to_arrow(), parquet)
    levels_path = os.path.join(args.out, "levels.parquet")
    levels.to_parquet(levels_path)
    top = agg.to_pandas().sort_values("leaves", ascending=False).head(3)
    print("largest aggregates:")
    for row in top.itertuples():
        print(f"  {row.node or '(all)'}: {row.leaves} resources, {row.start:.4g}-{row.end:.4g} s, "
              f"mostly {row.mode} ({row.mode_proportion:.0%})")
    print(f"wrote      {png}, {parquet}, {levels_path}")
    print(f"done in    {time.perf_counter() - began:.2f} s")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m macroscope", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    ov = sub.add_parser("overview", help="spatiotemporal overview of a trace (Pajé, OTF2, Chrome, Paraver, pj_dump)")
    ov.add_argument("trace")
    ov.add_argument("--format", choices=ms.FORMATS, default=None,
                    help="trace format (default: by extension or content)")
    ov.add_argument("--out", default="out", help="output directory (default: out)")
    ov.add_argument("--slices", type=int, default=100)
    ov.add_argument("--start", type=float, default=None, help="window start (s)")
    ov.add_argument("--end", type=float, default=None, help="window end (s)")
    ov.add_argument("--p", type=float, default=None, help="trade-off p (default: the recommended level)")
    args = parser.parse_args(argv)
    try:
        return overview(args)
    except ms.MacroscopeError as exc:
        print(f"macroscope: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
