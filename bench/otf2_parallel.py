"""Reading a 64-location OTF2 archive into the microscopic model: the
default read (the location groups on all cores), the parallel and single
stream reads forced, the trace in memory and otf2-print.

    python bench/otf2_parallel.py [--events N] [--archive DIR] [--rounds R]
                                  [--before PYTHON]

The archive is written by bench/otf2_synth.py (64 ranks, one location
each) with the Debian package python3-otf2 (/usr/bin/python3), unless
--archive gives one. Each variant runs in a process of its own under
/usr/bin/time (wall time, CPU time: user + system, peak RSS), the
variants interleaved, R rounds; the table gives the minimum and the
median of the wall times, the median CPU time and the largest peak RSS
(on a shared machine the CPU time is the steadier measure):

  read_micro            ms.read_micro(path): the default (parallel for an
                        archive of several location groups)
  read_micro parallel   ms.read_micro(path, parallel=True)
  read_micro stream     ms.read_micro(path, parallel=False)
  read().micro()        ms.read(path).micro()
  before                ms.read_micro(path) of another build (--before: its
                        Python, e.g. the .venv of the branch before this
                        change), the baseline
  otf2-print            otf2-print PATH > /dev/null (decodes and prints
                        every event); otf2-print --silent

The Macroscope rows include the start of Python and the import of
macroscope (measured apart: "python -c 'import macroscope'"). The load
average is printed before and after the rounds: the machine may be shared.
"""

import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parents[1]


def timed(cmd):
    """Wall seconds, peak RSS (KiB) and CPU seconds (user + system) of cmd,
    from /usr/bin/time."""
    with tempfile.NamedTemporaryFile("r") as out:
        subprocess.run(["/usr/bin/time", "-f", "%e %M %U %S", "-o", out.name] + cmd,
                       stdout=subprocess.DEVNULL, check=True)
        wall, rss, user, system = out.read().split()[-4:]
    return float(wall), int(rss), float(user) + float(system)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=4_000_000)
    ap.add_argument("--archive", help="an OTF2 anchor file instead of a synthetic archive")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--before", help="Python of another build of macroscope, the baseline")
    ap.add_argument("--slices", type=int, default=100)
    args = ap.parse_args()
    if args.archive:
        anchor = pathlib.Path(args.archive)
    else:
        where = pathlib.Path(tempfile.gettempdir()) / f"macroscope-otf2-64x{args.events}"
        anchor = where / "traces.otf2"
        if not anchor.exists():
            print(f"writing {where} ({args.events} events, 64 locations)", file=sys.stderr)
            subprocess.run(["/usr/bin/python3", str(REPO / "bench" / "otf2_synth.py"), str(args.events),
                            str(where), "--ranks", "64"], check=True)
    py = str(REPO / ".venv" / "bin" / "python")
    read = f"import macroscope as ms; p = {str(anchor)!r}; "
    variants = {
        "import macroscope": [py, "-c", "import macroscope"],
        "read_micro": [py, "-c", read + f"ms.read_micro(p, {args.slices}, progress=False)"],
        "read_micro parallel": [py, "-c", read + f"ms.read_micro(p, {args.slices}, progress=False, parallel=True)"],
        "read_micro stream": [py, "-c", read + f"ms.read_micro(p, {args.slices}, progress=False, parallel=False)"],
        "read().micro()": [py, "-c", read + f"ms.read(p, progress=False).micro({args.slices})"],
        "otf2-print > /dev/null": ["otf2-print", str(anchor)],
        "otf2-print --silent": ["otf2-print", "--silent", str(anchor)],
    }
    if args.before:
        variants["before: read_micro"] = [args.before, "-c", read + f"ms.read_micro(p, {args.slices}, progress=False)"]
    before = os.getloadavg()
    times = {k: [] for k in variants}
    cpus = {k: [] for k in variants}
    rss = {k: 0 for k in variants}
    for r in range(args.rounds):
        for name, cmd in variants.items():
            wall, peak, cpu = timed(cmd)
            times[name].append(wall)
            cpus[name].append(cpu)
            rss[name] = max(rss[name], peak)
            print(f"round {r + 1}: {name}: {wall:.2f} s, CPU {cpu:.2f} s, {peak / 1024:.0f} MiB, "
                  f"load {os.getloadavg()[0]:.1f}", file=sys.stderr)
    size = sum(f.stat().st_size for f in anchor.parent.rglob("*") if f.is_file())
    load = os.getloadavg()
    print(f"\n{anchor} ({size / 2**20:.0f} MiB), {os.cpu_count()} CPUs, load average (1, 5, 15 min) "
          f"{before[0]:.1f} {before[1]:.1f} {before[2]:.1f} before, {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} after, "
          f"{args.rounds} rounds")
    base = statistics.median(times["read_micro"])
    cbase = statistics.median(cpus["read_micro"])
    print(f"| {'variant':<24} | {'min s':>7} | {'median s':>8} | {'CPU s (median)':>14} | {'peak RSS MiB':>12} | "
          f"{'median / read_micro':>19} | {'CPU / read_micro':>16} |")
    print(f"|{'-' * 26}|{'-' * 8}:|{'-' * 9}:|{'-' * 15}:|{'-' * 13}:|{'-' * 20}:|{'-' * 17}:|")
    for name in variants:
        t, c = times[name], cpus[name]
        print(f"| {name:<24} | {min(t):7.2f} | {statistics.median(t):8.2f} | {statistics.median(c):14.2f} | "
              f"{rss[name] / 1024:12.0f} | {statistics.median(t) / base:19.2f} | {statistics.median(c) / cbase:16.2f} |")


if __name__ == "__main__":
    main()
