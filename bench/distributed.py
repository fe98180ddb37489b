"""The microscopic model on a Dask LocalCluster: 1 vs 2 workers.

    python bench/distributed.py [--otf2-events 4000000 | --otf2-archive DIR/traces.otf2]
                                [--kineto-events 40000] [--dir /tmp/msdist] [--rounds 1]

Two inputs are generated (once; kept in --dir): an OTF2 archive of 64
locations (bench/otf2_synth.py, with the otf2 Python package of OTF2's
distribution: python3-otf2; --otf2-archive takes one already written) and a
set of 16 Kineto JSON files, one per rank (each rank's steps hold CPU ops
and GPU kernels). Each is modelled (500 slices) in one process without Dask
(a fresh process each time, as the stream and, for OTF2, with
parallel=True), then on a LocalCluster of 1 and of 2 worker processes of one
thread: wall time of read_micro, and the peak resident memory of each worker
process (its ru_maxrss, from a fresh cluster each time, so it is this run's
alone). Every cluster model is checked equal, column by column, to the
single-process one. The rounds are interleaved (round r runs every variant
once). Prints a Markdown table with the load average before and after each
variant, and the commit measured.
"""

from __future__ import annotations

import os
import sys

# This file's name is the name of Dask's package: keep its directory out of
# the path, here and in the worker processes, which inherit it.
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]

import argparse
import json
import resource
import shutil
import subprocess
import time

import numpy as np

import macroscope as ms

import _machine


def otf2_archive(directory, events, given=None):
    if given:
        if not os.path.exists(given):
            sys.exit(f"--otf2-archive {given}: not found")
        return os.path.abspath(given)
    path = os.path.join(directory, f"otf2-64-{events}")
    anchor = os.path.join(path, "traces.otf2")
    if os.path.exists(anchor):
        return anchor
    # The otf2 package comes with the OTF2 library (python3-otf2 on Debian),
    # for the system's Python rather than this environment's.
    for python in (sys.executable, "/usr/bin/python3"):
        if subprocess.run([python, "-c", "import otf2"], capture_output=True).returncode == 0:
            break
    else:
        sys.exit("the otf2 Python package (python3-otf2) is needed to write the OTF2 archive")
    subprocess.run([python, os.path.join(HERE, "otf2_synth.py"), str(events), path, "--ranks", "64"], check=True)
    return anchor


def kineto_set(directory, ranks, events):
    path = os.path.join(directory, f"kineto-{ranks}-{events}")
    files = [os.path.join(path, f"rank{r}.json") for r in range(ranks)]
    if all(os.path.exists(f) for f in files):
        return files
    os.makedirs(path, exist_ok=True)
    steps = max(1, events // 6)
    for rank, name in enumerate(files):
        if os.path.exists(name):
            continue
        out = []
        for step in range(steps):
            base = 1000 * step + 37 * rank
            pid = 100 + rank
            out += [
                {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep", "pid": pid, "tid": 1, "ts": base, "dur": 900},
                {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": pid, "tid": 1, "ts": base + 50, "dur": 300},
                {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": pid, "tid": 1, "ts": base + 400, "dur": 100},
                {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": pid, "tid": 1,
                 "ts": base + 60, "dur": 20},
                {"ph": "X", "cat": "kernel", "name": f"gemm_{step % 4}", "pid": 0, "tid": 7, "ts": base + 100,
                 "dur": 200 + 10 * (rank % 5)},
                {"ph": "X", "cat": "kernel", "name": "nccl:all_reduce", "pid": 0, "tid": 8, "ts": base + 400,
                 "dur": 150},
            ]
        with open(name + ".part", "w") as f:
            f.write(json.dumps({"distributedInfo": {"rank": rank}, "traceEvents": out}))
        os.replace(name + ".part", name)
    return files


def size_of(paths):
    total = 0
    for p in paths:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                total += sum(os.path.getsize(os.path.join(root, n)) for n in names)
        else:
            total += os.path.getsize(p)
    return total


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def load():
    return ", ".join(f"{x:.1f}" for x in os.getloadavg()[:2])


def same(x, y):
    """Two models' tables, equal column by column."""
    return x.num_rows == y.num_rows and x.column_names == y.column_names and all(
        np.array_equal(x.column(c).to_numpy(zero_copy_only=False), y.column(c).to_numpy(zero_copy_only=False))
        for c in x.column_names)


# The single-process run, in a process of its own: its peak RSS is its own,
# not the largest of every run before it. It writes its model's table for
# the comparison with the clusters'.
ALONE = """
import json, resource, sys, time
import pyarrow as pa
import macroscope as ms
target, slices, out, parallel = json.loads(sys.argv[1])
began = time.perf_counter()
model = ms.read_micro(target, slices=slices, progress=False, **({"parallel": True} if parallel else {}))
wall = time.perf_counter() - began
table = model.to_arrow()
with pa.OSFile(out, "wb") as f, pa.ipc.new_file(f, table.schema) as w:
    w.write_table(table)
print(json.dumps([wall, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024]))
"""


def alone(target, slices, out, parallel):
    env = {**os.environ, "PYTHONPATH": ""}
    done = subprocess.run([sys.executable, "-c", ALONE, json.dumps([target, slices, out, parallel])],
                          capture_output=True, text=True, env=env, cwd="/")
    if done.returncode != 0:
        sys.exit(f"the single-process run failed: {done.stderr[-2000:]}")
    wall, peak = json.loads(done.stdout.strip().splitlines()[-1])
    import pyarrow as pa
    with pa.OSFile(out) as f:  # read into memory: the next run rewrites the file
        table = pa.ipc.open_file(f).read_all()
    os.remove(out)
    return wall, peak, table


def on_cluster(target, slices, workers):
    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        client.run(lambda: None)  # the workers are up
        began = time.perf_counter()
        got = ms.read_micro(target, slices=slices, client=client, progress=False)
        wall = time.perf_counter() - began
        peaks = sorted(client.run(peak_rss_mb).values())
    return wall, peaks, got.to_arrow()


def run(inputs, slices, rounds, scratch):
    """inputs: (name, target, size, parallel too). Every variant of every
    input once per round; a row per variant: its walls, peaks and loads."""
    rows = {}
    for r in range(rounds):
        for name, target, size, parallel in inputs:
            variants = ["stream"] + (["parallel"] if parallel else []) + [1, 2]
            want = None
            for v in variants:
                before = load()
                if isinstance(v, str):
                    wall, peak, table = alone(target, slices, os.path.join(scratch, "model.arrow"), v == "parallel")
                    peaks = [peak]
                    if want is None:
                        want = table
                    equal = same(table, want)
                else:
                    wall, peaks, table = on_cluster(target, slices, v)
                    equal = same(table, want)
                row = rows.setdefault((name, v), {"name": name, "size": size, "how": v, "runs": []})
                row["runs"].append((wall, peaks, equal, before, load()))
                print(f"round {r + 1}: {name}, {v}: {wall:.2f} s, peak RSS {peaks} MB, equal {equal}",
                      file=sys.stderr, flush=True)
    return list(rows.values())


def commit():
    got = subprocess.run(["git", "-C", HERE, "describe", "--always", "--dirty"], capture_output=True, text=True)
    return got.stdout.strip() or "?"


HOW = {"stream": "one process, no Dask (stream)", "parallel": "one process, no Dask, parallel=True",
       1: "LocalCluster, 1 worker", 2: "LocalCluster, 2 workers"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--otf2-events", type=int, default=4_000_000)
    ap.add_argument("--kineto-events", type=int, default=40_000, help="events per rank")
    ap.add_argument("--dir", default="/tmp/macroscope-distributed-bench")
    ap.add_argument("--otf2-archive", help="an OTF2 archive's anchor file to use instead of writing one")
    ap.add_argument("--slices", type=int, default=500)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--inputs", default="otf2,kineto", help="which inputs: otf2, kineto or both")
    ap.add_argument("--clean", action="store_true", help="remove the generated inputs first")
    args = ap.parse_args()
    if args.clean:
        shutil.rmtree(args.dir, ignore_errors=True)
    os.makedirs(args.dir, exist_ok=True)
    inputs = []
    if "otf2" in args.inputs:
        anchor = otf2_archive(args.dir, args.otf2_events, args.otf2_archive)
        events = f"{args.otf2_events:,} events, " if not args.otf2_archive else ""
        inputs.append((f"OTF2, 64 locations, {events}{os.path.basename(os.path.dirname(anchor))}", anchor,
                       size_of([os.path.dirname(anchor)]), True))
    if "kineto" in args.inputs:
        files = kineto_set(args.dir, 16, args.kineto_events)
        inputs.append((f"Kineto, 16 ranks x {args.kineto_events:,} events", files, size_of(files), False))
    began = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    rows = run(inputs, args.slices, args.rounds, args.dir)
    print(f"{began}, commit {commit()}, {os.cpu_count()} cores, {args.slices} slices, {args.rounds} round(s); "
          "peak RSS of each process (the workers' own, from a fresh cluster each run)")
    print()
    print(f"machine: {_machine.describe()}\n")
    print("| input | size | run | wall (s), by round | peak RSS per process (MB), by round | load avg (1, 5 min) "
          "before -> after | equal to one process |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        runs = row["runs"]
        walls = ", ".join(f"{w:.1f}" for w, *_ in runs)
        peaks = "; ".join(", ".join(f"{p:.0f}" for p in ps) for _, ps, *_ in runs)
        loads = "; ".join(f"{b} -> {a}" for *_, b, a in runs)
        equal = "yes" if all(e for _, _, e, *_ in runs) else "NO"
        print(f"| {row['name']} | {row['size'] / 1e6:,.0f} MB | {HOW[row['how']]} | {walls} | {peaks} | {loads} "
              f"| {equal} |")


if __name__ == "__main__":
    main()
