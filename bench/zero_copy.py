"""How a large table reaches pandas: the microscopic model of a synthetic
trace (1,000 resources x 1,000 slices x 10 states, a row per non-zero cell:
1.2 M rows; 8.2 M with --slices 8000), exported by the Go core through the
Arrow C stream interface. The conversion includes the check that every
category of the categorical columns is used (one counting pass over their
codes), which dropping unused ones needs.

Prints, as a Markdown table, the time to build and export the table, to
convert it to pandas, and the same conversion forced to copy, and checks
that every column pandas sees (categorical codes too) is the Go-allocated buffer.
Usage: python bench/zero_copy.py [--resources N] [--slices N]
"""

import argparse
import random
import resource
import tempfile
import time

import numpy as np
import pandas as pd
import pyarrow as pa

import macroscope as ms

import _machine

STATES = [f"s{i}" for i in range(10)]


def write_trace(path, resources, events):
    rng = random.Random(7)
    with open(path, "w") as f:
        f.write("%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n"
                "%EventDef PajeDefineStateType 1\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n"
                "%EventDef PajeCreateContainer 2\n% Time date\n% Alias string\n% Type string\n% Container string\n"
                "% Name string\n%EndEventDef\n"
                "%EventDef PajeSetState 3\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n")
        f.write("0 N 0 Node\n0 C N Core\n1 S C State\n")
        for n in range(resources // 10):
            f.write(f"2 0 n{n} N 0 node{n}\n")
            for c in range(10):
                f.write(f"2 0 c{n}_{c} C n{n} core{c}\n")
        lines = []
        for r in range(resources):
            t = 0.0
            for _ in range(events):
                lines.append((t, f"3 {t:.6f} S c{r // 10}_{r % 10} {rng.choice(STATES)}\n"))
                t += rng.expovariate(events / 100.0)
        lines.sort(key=lambda x: x[0])
        f.writelines(line for _, line in lines)
        f.write(f"3 {lines[-1][0] + 1:.6f} S c0_0 s0\n")  # the end of the trace


def arrow_address(table, name):
    arr = table.column(name).chunk(0)
    if pa.types.is_dictionary(arr.type):
        arr = arr.indices
    return arr.buffers()[1].address


def pandas_address(frame, name):
    col = frame[name]
    if isinstance(col.dtype, pd.CategoricalDtype):
        return col.array.codes.ctypes.data  # a Categorical's codes
    return col.to_numpy().ctypes.data


def cpu_seconds():
    """The process's user and system CPU time: every thread's, the Go
    core's goroutines included."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def best_of(n, fn):
    """The least wall time and the least CPU time of n calls of fn, and
    fn's last result (on a shared machine the CPU time moves less)."""
    times, cpu = [], []
    for _ in range(n):
        c0, t0 = cpu_seconds(), time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
        cpu.append(cpu_seconds() - c0)
    return min(times), min(cpu), out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--resources", type=int, default=1000)
    ap.add_argument("--slices", type=int, default=1000)
    args = ap.parse_args()
    with tempfile.NamedTemporaryFile(suffix=".trace") as tmp:
        write_trace(tmp.name, args.resources, 200)
        trace = ms.read_paje(tmp.name)
    model = trace.micro(slices=args.slices)
    t_export, cpu_export, table = best_of(3, lambda: ms.MicroModel(model._h).to_arrow())
    rows = table.num_rows
    t_pandas, cpu_pandas, frame = best_of(3, lambda: ms._bridge.to_pandas(table))
    t_copy, cpu_copy, _ = best_of(3, lambda: table.to_pandas(split_blocks=False, zero_copy_only=False).copy(deep=True))
    shared = all(pandas_address(frame, c) == arrow_address(table, c) for c in table.column_names)
    nbytes = table.nbytes
    print(f"rows: {rows:,}   columns: {nbytes / 2**20:.0f} MiB   every column zero-copy: {shared}")
    print(f"machine: {_machine.describe()}\n")
    print("| step | time | CPU time (user + system, every thread) | throughput |")
    print("|---|---|---|---|")
    print(f"| Go builds the table and exports it (C stream) | {t_export * 1e3:.0f} ms | {cpu_export * 1e3:.0f} ms "
          f"| {rows / t_export / 1e6:.0f} M rows/s |")
    print(f"| Arrow -> pandas, zero-copy (what to_pandas does) | {t_pandas * 1e3:.1f} ms | {cpu_pandas * 1e3:.1f} ms "
          f"| {rows / t_pandas / 1e6:.0f} M rows/s |")
    print(f"| Arrow -> pandas with a copy (for comparison) | {t_copy * 1e3:.0f} ms | {cpu_copy * 1e3:.0f} ms "
          f"| {rows / t_copy / 1e6:.0f} M rows/s |")
    print(f"copy / zero-copy: {t_copy / t_pandas:.0f}x   peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    # The model is sparse: a row per non-zero cell of resources x slices x states.
    assert shared and 0 < rows <= args.resources * args.slices * len(STATES)
    np.testing.assert_array_equal(frame["proportion"].to_numpy()[:5], table.column("proportion").to_numpy()[:5])


if __name__ == "__main__":
    main()
