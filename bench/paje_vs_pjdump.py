"""Macroscope's Pajé reader against pj_dump (PajeNG 1.3.6), in one run, on
the same synthetic trace written by `macroscope synth`.

Each command runs in its own process, REPEAT times; the table shows the
best wall-clock time (process start-up included, for both) and the peak
resident memory (ru_maxrss of the child). Commands:

    pj_dump -q T          PajeNG reads and simulates the trace, prints nothing
    pj_dump T >/dev/null  PajeNG reads, simulates and dumps every entity
    pajeread -sink count  our reader, streaming into a sink that counts
    pajeread -sink trace  our reader, the whole trace in memory
    pajeread -sink micro  the same, then the microscopic model (100 slices)

MB/s and events/s are the trace's size and event lines (everything but the
%EventDef header) over the time. Speed-ups are pj_dump's time over ours;
the last column is our peak memory over pj_dump's. Needs Go and pj_dump
(Debian package pajeng).

Usage: python3 bench/paje_vs_pjdump.py [--events N] [--repeat R] [--trace FILE]
"""

import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[1]


def run(cmd, stdout=subprocess.DEVNULL):
    """Run cmd; return (wall seconds, peak RSS in bytes, stdout text)."""
    began = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.PIPE)
    out = proc.stdout.read() if stdout == subprocess.PIPE else b""
    _, status, usage = os.wait4(proc.pid, 0)
    took = time.perf_counter() - began
    err = proc.stderr.read()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(map(str, cmd))} failed: {err.decode(errors='replace')}")
    return took, usage.ru_maxrss * 1024, out.decode()


def best(cmd, repeat, stdout=subprocess.DEVNULL):
    runs = [run(cmd, stdout) for _ in range(repeat)]
    return min(r[0] for r in runs), max(r[1] for r in runs), runs[0][2]


def event_lines(path):
    n = 0
    with open(path, "rb") as f:
        for line in f:
            if line.strip() and not line.lstrip().startswith(b"%"):
                n += 1
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=5_000_000, help="state changes of the generated trace")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each command (best time kept)")
    ap.add_argument("--trace", help="use this Pajé trace instead of generating one")
    args = ap.parse_args()
    if shutil.which("pj_dump") is None:
        sys.exit("pj_dump is not installed (Debian package pajeng)")

    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        progs = [("pajeread", "./bench/pajeread")] + ([] if args.trace else [("macroscope", "./cmd/macroscope")])
        for prog, pkg in progs:
            subprocess.run(["go", "build", "-o", str(tmp / prog), pkg], cwd=REPO, check=True)
        trace = pathlib.Path(args.trace) if args.trace else tmp / "synth.trace"
        if not args.trace:
            subprocess.run([str(tmp / "macroscope"), "synth", "-events", str(args.events), "-seed", "1", str(trace)],
                           check=True, stdout=subprocess.DEVNULL)
        size = trace.stat().st_size
        events = event_lines(trace)
        print(f"trace: {trace.name if not args.trace else trace}, {size / 1e6:.1f} MB, {events:,} events; "
              f"best of {args.repeat} runs, {os.cpu_count()} cores\n")

        rows = []
        for name, cmd in (("pj_dump -q", ["pj_dump", "-q", str(trace)]),
                          ("pj_dump > /dev/null", ["pj_dump", str(trace)])):
            t, rss, _ = best(cmd, args.repeat)
            rows.append((name, t, rss))
        for sink in ("count", "trace", "micro"):
            t, rss, _ = best([str(tmp / "pajeread"), "-sink", sink, str(trace)], args.repeat, subprocess.PIPE)
            rows.append((f"Macroscope, sink {sink}", t, rss))

        quiet, dump = rows[0], rows[1]
        print("| reader | time (s) | MB/s | M events/s | peak RSS (MB) | speed-up vs pj_dump -q / pj_dump | RSS / pj_dump's |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for name, t, rss in rows:
            speed = f"{quiet[1] / t:.1f}x / {dump[1] / t:.1f}x"
            print(f"| {name} | {t:.2f} | {size / t / 1e6:.0f} | {events / t / 1e6:.2f} | {rss / 1e6:.0f} | {speed} "
                  f"| {rss / dump[2]:.3f} |")


if __name__ == "__main__":
    main()
