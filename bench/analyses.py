"""The analyses against reading: each analysis of a trace file, from the
file, against ms.read of the same file (docs/analyses.md, "Performance").

    python bench/analyses.py ARCHIVE/traces.otf2 [--rounds 2] [--only pop,critical_path]

The archive is written by bench/otf2_synth.py EVENTS DIR --ranks 64 --mpi
(a message-passing run: computation, messages, an MPI_Allreduce per time
step). Every measurement is a process of its own (the Python interpreter
with macroscope imported, then the timed call), so that its peak resident
memory is the call's; times are wall-clock seconds of the call alone,
medians over the rounds. The ratios are the analysis' median over ms.read's.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

import _machine

CHILD = r"""
import json, resource, sys, time
import macroscope as ms
path, what = sys.argv[1], sys.argv[2]
t0 = time.perf_counter()
if what == "read":
    t = ms.read(path, progress=False)
    n = t._summary["states"]
else:
    r = getattr(ms, what)(path, progress=False)
    n = len(r.to_pandas())
dt = time.perf_counter() - t0
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"seconds": dt, "rss": rss, "rows": n}))
"""

WHAT = ["read", "flat_profile", "load_imbalance", "comm_matrix", "stragglers", "pop", "critical_path"]


def measure(python, path, what):
    out = subprocess.run([python, "-c", CHILD, path, what], capture_output=True, text=True)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr else f"exit {out.returncode}"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("archive")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--only", default="")
    ap.add_argument("--python", default=sys.executable)
    args = ap.parse_args()
    what = [w for w in WHAT if not args.only or w in args.only.split(",") or w == "read"]
    results = {}
    for w in what:
        runs = [measure(args.python, args.archive, w) for _ in range(args.rounds)]
        ok = [r for r in runs if "error" not in r]
        if not ok:
            results[w] = {"error": runs[0]["error"]}
        else:
            results[w] = {"seconds": statistics.median(r["seconds"] for r in ok),
                          "min": min(r["seconds"] for r in ok),
                          "rss": statistics.median(r["rss"] for r in ok), "rows": ok[0]["rows"]}
        print(w, results[w], file=sys.stderr, flush=True)
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(os.path.dirname(args.archive)) for f in fs)
    base = results["read"]
    print(f"archive: {args.archive} ({size / 2**20:,.0f} MiB), {args.rounds} rounds, load average "
          f"{os.getloadavg()[0]:.1f}\n")
    print(f"machine: {_machine.describe()}\n")
    print("| call | result rows | time (s, median) | min | peak RSS (MiB) | time / ms.read | RSS / ms.read |")
    print("|---|---|---|---|---|---|---|")
    for w in what:
        r = results[w]
        name = "ms.read" if w == "read" else f"ms.{w}(path)"
        if "error" in r:
            print(f"| {name} | failed: {r['error']} | | | | | |")
            continue
        ratio = r["seconds"] / base["seconds"] if "seconds" in base else float("nan")
        mem = r["rss"] / base["rss"] if "rss" in base else float("nan")
        print(f"| {name} | {r['rows']:,} | {r['seconds']:.2f} | {r['min']:.2f} | {r['rss'] / 2**20:,.0f} | "
              f"{ratio:.2f} | {mem:.2f} |")


if __name__ == "__main__":
    main()
