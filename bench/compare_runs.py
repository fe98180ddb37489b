"""Run comparison against its budgets, and against HTA's TraceDiff.

    python bench/compare_runs.py [--rounds 5] [--hta-python PATH] [--go-only]

1. The Go benchmarks of package compare (core/views/compare/bench_test.go),
   each run --rounds times, median and spread:
     BenchmarkCompare2x1000x100  2 runs x 1,000 ranks x 100 slices: both
                                 runs generated and modelled while read,
                                 the run-level model solved at one p, the
                                 level's rows measured and tested (budget 1 s)
     BenchmarkCompare64x64x100   64 runs x 64 ranks x 100 slices, the same
                                 (budget 10 s)
   GOMAXPROCS is the machine's (2 cores on the project's machine).
2. The corpus's Kineto pair (HTA's trace_diff control and test): in a fresh
   process each, the per-operation table of every iteration and device,
     Macroscope  ms.compare(pair, match="position") then cmp.ops(iteration="all")
     HTA         TraceDiff.compare_traces(control, test, all iterations)
   with --hta-python the Python of an environment with HolisticTraceAnalysis
   0.5.0 (python -m venv DIR && DIR/bin/pip install holistictraceanalysis==0.5.0).
   Rounds alternate the tools; the ratio is HTA's median over ours (above 1:
   Macroscope faster). Both tables are checked equal, row by row.

The machine's load average is printed before and after: numbers taken under
load are not comparable with those of an idle machine.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
PAIR = ROOT.parent / "shared" / "traces" / "hta" / "tests" / "data" / "trace_diff"

OURS = """
import json, sys, time
t0 = time.perf_counter()
import macroscope as ms
t1 = time.perf_counter()
cmp = ms.compare([sys.argv[1] + "/control.json.gz", sys.argv[2] + "/test.json.gz"], names=["control", "test"], slices=100, match="position", progress=False)
ops = cmp.ops(iteration="all")
t2 = time.perf_counter()
ops.to_csv(sys.argv[3])
print(json.dumps({"work": t2 - t1, "rows": len(ops)}))
"""

HTA = """
import json, logging, sys, time
logging.disable(logging.WARNING)
t0 = time.perf_counter()
from hta.trace_diff import LabeledTrace, TraceDiff
t1 = time.perf_counter()
c = LabeledTrace(label="control", trace_dir=sys.argv[1])
t = LabeledTrace(label="test", trace_dir=sys.argv[2])
df = TraceDiff.compare_traces(c, t, control_iteration=c.iterations(), test_iteration=t.iterations())
t2 = time.perf_counter()
df.to_csv(sys.argv[3])
print(json.dumps({"work": t2 - t1, "rows": len(df)}))
"""


def load() -> str:
    return " ".join(f"{v:.1f}" for v in os.getloadavg())


def go_benchmarks(rounds: int) -> dict[str, list[float]]:
    out = subprocess.run(
        ["go", "test", "./core/views/compare/", "-run", "^$", "-bench", "Compare2x1000x100|Compare64x64x100",
         "-benchtime", "1x", "-count", str(rounds)], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    times: dict[str, list[float]] = {}
    for m in re.finditer(r"^(Benchmark\S+?)(-\d+)?\s+\d+\s+(\d+) ns/op", out, re.M):
        times.setdefault(m.group(1), []).append(int(m.group(3)) / 1e9)
    return times


def child(python: str, code: str, out: pathlib.Path) -> tuple[float, float, dict]:
    """Run code in a fresh process: its whole wall time, its peak RSS (MB)
    and what it printed (its own time of the work)."""
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(code)
    start = time.perf_counter()
    p = subprocess.Popen([python, f.name, str(PAIR / "control"), str(PAIR / "test"), str(out)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    stdout, stderr = p.stdout.read(), p.stderr.read()
    os.unlink(f.name)
    if status != 0:
        raise RuntimeError(f"{python} failed: {stderr[-2000:]}")
    return wall, usage.ru_maxrss / 1024, json.loads(stdout.strip().splitlines()[-1])


def spread(v):
    return f"{statistics.median(v):.3f} s (min {min(v):.3f}, max {max(v):.3f})"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--hta-python", help="the Python of an environment with HolisticTraceAnalysis 0.5.0")
    ap.add_argument("--go-only", action="store_true")
    args = ap.parse_args()
    print(f"load average before: {load()}; cores: {os.cpu_count()}")
    budgets = {"BenchmarkCompare2x1000x100": 1.0, "BenchmarkCompare64x64x100": 10.0}
    for name, times in go_benchmarks(args.rounds).items():
        print(f"{name}: {spread(times)}; budget {budgets[name]:g} s, median / budget "
              f"{statistics.median(times) / budgets[name]:.2f}")
    if args.go_only:
        print(f"load average after: {load()}")
        return
    if not PAIR.exists():
        sys.exit(f"{PAIR} is absent: the Kineto pair is the shared corpus's")
    ours_py = str(ROOT / ".venv" / "bin" / "python")
    results = {"macroscope": [], "hta": []}
    with tempfile.TemporaryDirectory() as tmp:
        outs = {k: pathlib.Path(tmp) / f"{k}.csv" for k in results}
        for r in range(args.rounds):
            tools = [("macroscope", ours_py, OURS)]
            if args.hta_python:
                tools.append(("hta", args.hta_python, HTA))
            if r % 2:
                tools.reverse()
            for name, python, code in tools:
                results[name].append(child(python, code, outs[name]))
        if args.hta_python:
            import pandas as pd

            a = pd.read_csv(outs["macroscope"], index_col=0)
            b = pd.read_csv(outs["hta"], index_col=0)
            pd.testing.assert_frame_equal(a, b, check_dtype=False)
            print(f"tables equal: {len(a)} operations")
    for name, runs in results.items():
        if not runs:
            continue
        walls, peaks, works = [w for w, _, _ in runs], [p for _, p, _ in runs], [d["work"] for _, _, d in runs]
        print(f"{name}: process {spread(walls)}, work {spread(works)}, peak RSS {statistics.median(peaks):.0f} MB")
    if results["hta"]:
        ratio = statistics.median(d["work"] for _, _, d in results["hta"]) / \
            statistics.median(d["work"] for _, _, d in results["macroscope"])
        print(f"HTA work / Macroscope work: {ratio:.1f}x")
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()
