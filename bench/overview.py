"""The overview end to end, this checkout against another commit.

Runs `macroscope overview TRACE` (Go command line: the model while reading,
the recommended level, the partition, the figure and the table of
aggregates) as whole processes on:

  synth-1000     1,000 resources x 100 slices (macroscope synth, 1 M events)
  synth-100000   100,000 resources x 100 slices (macroscope synth, 2 M events)
  nsight         the Nsight Systems export of a 2-GPU training step of the
                 shared corpus (24 resources x 100 slices x 18,529 states)

and, with --levels, `overview -levels levels.parquet` (every significant
level as well). Both builds run in turn, A B A B..., --rounds times each;
prints a Markdown table of the median and minimum wall time, the median
CPU time (user + system) and peak resident memory (the child's own
rusage), and the ratio of the other build's median wall time to ours.

Usage: python bench/overview.py [--baseline REF] [--rounds N]
                                [--cases synth-1000,nsight] [--levels]
REF is a commit of this repository (default: main), built into a
temporary directory with `git worktree`.
"""

import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import _machine

REPO = pathlib.Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "traces"
SYNTH = {
    "synth-1000": ["--sites", "2", "--clusters", "5", "--machines", "10", "--cores", "10", "--events", "1000000"],
    "synth-100000": ["--sites", "4", "--clusters", "5", "--machines", "50", "--cores", "100", "--events", "2000000"],
}


def build(src: pathlib.Path, out: pathlib.Path) -> pathlib.Path:
    """Build src's command line into out."""
    subprocess.run(["go", "build", "-o", str(out), "./cmd/macroscope"], cwd=src, check=True)
    return out


def timed(cmd, cwd):
    """Run cmd to its end: wall seconds, CPU seconds (user + system) and
    peak resident memory (MB) of the child."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode()
    proc.stderr.close()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(map(str, cmd))}: exit {proc.returncode}: {err}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", default="main", help="commit to compare with (default: main)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cases", default="synth-1000,synth-100000,nsight")
    ap.add_argument("--levels", action="store_true", help="also write every significant level (-levels)")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        ours = build(REPO, tmp / "ours")
        base_src = tmp / "baseline-src"
        subprocess.run(["git", "worktree", "add", "--detach", str(base_src), args.baseline], cwd=REPO, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            theirs = build(base_src, tmp / "baseline")
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base_src)], cwd=REPO, check=True)
        traces = {}
        for case in args.cases.split(","):
            if case in SYNTH:
                traces[case] = tmp / f"{case}.trace"
                subprocess.run([str(ours), "synth", *SYNTH[case], str(traces[case])], check=True,
                               stdout=subprocess.DEVNULL)
            elif case == "nsight":
                path = CORPUS / "nsys" / "mfu_2gpu_before.sqlite"
                if path.exists():
                    traces[case] = path
                else:
                    print(f"{case}: {path} is not here, left out", file=sys.stderr)
            else:
                sys.exit(f"unknown case {case!r} (synth-1000, synth-100000, nsight)")

        print(f"`macroscope overview`, this checkout against {args.baseline}; {args.rounds} rounds, "
              f"builds alternated; load average before: {os.getloadavg()[0]:.1f}\n")
        print(f"machine: {_machine.describe()}\n")
        print("| trace | command | build | wall median (s) | wall min (s) | CPU median (s) | peak RSS (MB) | "
              f"{args.baseline} / this |")
        print("|---|---|---|---:|---:|---:|---:|---:|")
        for case, path in traces.items():
            extra = ["--levels", "levels.parquet"] if args.levels else []
            runs = {"this": [], args.baseline: []}
            for _ in range(args.rounds):
                for name, exe in (("this", ours), (args.baseline, theirs)):
                    runs[name].append(timed([str(exe), "overview", "--out", str(tmp / name), *extra, str(path)], tmp))
            mid = {name: statistics.median(r[0] for r in rs) for name, rs in runs.items()}
            for name, rs in runs.items():
                ratio = f"{mid[args.baseline] / mid['this']:.1f}x" if name == "this" else ""
                print(f"| {case} | overview {' '.join(extra)} | {name} | {mid[name]:.2f} | {min(r[0] for r in rs):.2f} | "
                      f"{statistics.median(r[1] for r in rs):.2f} | {statistics.median(r[2] for r in rs):.0f} | "
                      f"{ratio} |")
        print(f"\nload average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
