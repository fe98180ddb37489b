"""The microscopic model on a Dask LocalCluster: 1 vs 2 workers.

    python bench/distributed.py [--otf2-events 4000000] [--kineto-events 40000] [--dir /tmp/msdist]

Two inputs are generated (once; kept in --dir): an OTF2 archive of 64
locations (bench/otf2_synth.py, with the otf2 Python package of OTF2's
distribution: python3-otf2) and a set of 16 Kineto JSON files, one per rank
(each rank's steps hold CPU ops and GPU kernels). Each is modelled (500
slices) in one process without Dask, then on a LocalCluster of 1 and of 2
worker processes of one thread: wall time of read_micro, and the peak
resident memory of each worker process (its ru_maxrss, from a fresh cluster
each time). Every cluster model is checked equal to the single-process one.
Prints a Markdown table.
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


def otf2_archive(directory, events):
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
        with open(name, "w") as f:
            json.dump({"distributedInfo": {"rank": rank}, "traceEvents": out}, f)
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


def same(a, b):
    x, y = a.to_arrow(), b.to_arrow()
    return x.num_rows == y.num_rows and all(
        np.array_equal(x.column(c).to_numpy(zero_copy_only=False), y.column(c).to_numpy(zero_copy_only=False))
        for c in x.column_names)


def run(name, target, size, slices):
    from dask.distributed import Client, LocalCluster

    rows = []
    began = time.perf_counter()
    want = ms.read_micro(target, slices=slices, progress=False)
    rows.append((name, size, "one process, no Dask", time.perf_counter() - began, [peak_rss_mb()], True))
    for workers in (1, 2):
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
                Client(cluster) as client:
            client.run(lambda: None)  # the workers are up
            began = time.perf_counter()
            got = ms.read_micro(target, slices=slices, client=client, progress=False)
            wall = time.perf_counter() - began
            peaks = sorted(client.run(peak_rss_mb).values())
        rows.append((name, size, f"{workers} worker{'s' * (workers > 1)}", wall, peaks, same(got, want)))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--otf2-events", type=int, default=4_000_000)
    ap.add_argument("--kineto-events", type=int, default=40_000, help="events per rank")
    ap.add_argument("--dir", default="/tmp/macroscope-distributed-bench")
    ap.add_argument("--slices", type=int, default=500)
    ap.add_argument("--clean", action="store_true", help="remove the generated inputs first")
    args = ap.parse_args()
    if args.clean:
        shutil.rmtree(args.dir, ignore_errors=True)
    os.makedirs(args.dir, exist_ok=True)
    anchor = otf2_archive(args.dir, args.otf2_events)
    files = kineto_set(args.dir, 16, args.kineto_events)
    rows = run(f"OTF2, 64 locations, {args.otf2_events:,} events", anchor, size_of([os.path.dirname(anchor)]),
               args.slices)
    rows += run(f"Kineto, 16 ranks x {args.kineto_events:,} events", files, size_of(files), args.slices)
    print(f"| input | size | run | wall (s) | peak RSS per process (MB) | equal |")
    print("|---|---|---|---|---|---|")
    for name, size, how, wall, peaks, equal in rows:
        print(f"| {name} | {size / 1e6:.0f} MB | {how} | {wall:.2f} | {', '.join(f'{p:.0f}' for p in peaks)} | "
              f"{'yes' if equal else 'NO'} |")


if __name__ == "__main__":
    main()
