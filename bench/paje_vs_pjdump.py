"""Macroscope's Pajé reader against pj_dump (PajeNG 1.3.6), in one run, on
the same synthetic trace written by `macroscope synth`.

Each command runs in its own process, REPEAT times, the commands taking
turns (pj_dump, ours, pj_dump, ours...) so that a change of load on the
machine hits them alike. Every run goes through /usr/bin/time -v (when
installed), whose "Maximum resident set size" is the peak memory; the
table shows the best and the median wall-clock time (process start-up
included, for both), the median CPU time (user + system) and the largest
peak RSS. Commands:

    pj_dump -q T          PajeNG reads and simulates the trace, prints nothing
    pj_dump T >/dev/null  PajeNG reads, simulates and dumps every entity
    traceread -sink count  our reader, streaming into a sink that counts
    traceread -sink stream our reader + the microscopic model built while
                          reading (micro.ReadFile, 100 slices): nothing kept
                          but the model
    traceread -sink trace  our reader, the whole trace in memory
    traceread -sink micro  the same, then the microscopic model (micro.Build)

MB/s and events/s are the trace's size and event lines (everything but the
%EventDef header) over the best time. Speed-ups are pj_dump's best time over
ours (and median over median); the last column is our peak memory over
pj_dump's. Needs Go and pj_dump (Debian package pajeng).

Usage: python3 bench/paje_vs_pjdump.py [--events N] [--repeat R] [--trace FILE]
                                       [--sinks count,stream,trace,micro] [--no-dump]
"""

import argparse
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile

import _machine
import _runs

REPO = pathlib.Path(__file__).resolve().parents[1]


def run(cmd):
    """Run cmd with stdout to /dev/null; return (wall s, CPU s, peak RSS bytes)."""
    r = _runs.run(cmd, keep_stdout=False)
    if r.code != 0:
        sys.exit(f"{' '.join(map(str, cmd))} failed: {r.err}")
    return r.wall, r.cpu, r.rss


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
    ap.add_argument("--repeat", type=int, default=3, help="runs of each command")
    ap.add_argument("--trace", help="use this Pajé trace instead of generating one")
    ap.add_argument("--sinks", default="count,stream,trace,micro", help="our commands to run (traceread sinks)")
    ap.add_argument("--no-dump", action="store_true", help="skip pj_dump > /dev/null (the slowest)")
    args = ap.parse_args()
    if shutil.which("pj_dump") is None:
        sys.exit("pj_dump is not installed (Debian package pajeng)")

    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        progs = [("traceread", "./bench/traceread")] + ([] if args.trace else [("macroscope", "./cmd/macroscope")])
        for prog, pkg in progs:
            subprocess.run(["go", "build", "-o", str(tmp / prog), pkg], cwd=REPO, check=True)
        trace = pathlib.Path(args.trace) if args.trace else tmp / "synth.trace"
        if not args.trace:
            subprocess.run([str(tmp / "macroscope"), "synth", "-events", str(args.events), "-seed", "1", str(trace)],
                           check=True, stdout=subprocess.DEVNULL)
        size = trace.stat().st_size
        events = event_lines(trace)
        print(f"trace: {trace.name if not args.trace else trace}, {size / 1e6:.1f} MB, {events:,} events; "
              f"{args.repeat} runs of each command, taking turns; {os.cpu_count()} cores; "
              f"load average before: {os.getloadavg()[0]:.1f}\n")

        commands = [("pj_dump -q", ["pj_dump", "-q", str(trace)])]
        if not args.no_dump:
            commands.append(("pj_dump > /dev/null", ["pj_dump", str(trace)]))
        for sink in args.sinks.split(","):
            commands.append((f"Macroscope, sink {sink}", [str(tmp / "traceread"), "-sink", sink, str(trace)]))
        runs = {name: [] for name, _ in commands}
        for _ in range(args.repeat):
            for name, cmd in commands:
                runs[name].append(run(cmd))

        def stats(name):
            rs = runs[name]
            walls = [r[0] for r in rs]
            return min(walls), statistics.median(walls), statistics.median(r[1] for r in rs), max(r[2] for r in rs)

        quiet = stats("pj_dump -q")
        dump = stats("pj_dump > /dev/null") if not args.no_dump else None
        print(f"machine: {_machine.describe()}\n")
        print("| command | best (s) | median (s) | CPU (s) | MB/s | M events/s | peak RSS (MB) "
              "| speed-up vs pj_dump -q, best / median | vs pj_dump, best / median | RSS / pj_dump's |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for name, _ in commands:
            best, med, cpu, rss = stats(name)
            vs_dump = f"{dump[0] / best:.1f}x / {dump[1] / med:.1f}x" if dump else "-"
            print(f"| {name} | {best:.2f} | {med:.2f} | {cpu:.2f} | {size / best / 1e6:.0f} | {events / best / 1e6:.2f} "
                  f"| {rss / 1e6:.0f} | {quiet[0] / best:.1f}x / {quiet[1] / med:.1f}x | {vs_dump} "
                  f"| {rss / quiet[3]:.3f} |")
        print(f"\nload average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
