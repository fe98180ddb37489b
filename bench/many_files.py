"""Memory of a run's files read into one model: one file, then N copies of it.

Each read runs in a fresh process (peak resident memory from its own
rusage): the N files read by parts (the default: one file at a time per
core, each into its partial model) and as one stream (parallel=False).
Prints a Markdown table with the ratio of each peak to the one file's.

Usage: python bench/many_files.py [FILE] [--copies N]
FILE defaults to a Kineto trace of the shared corpus (HTA's
df_index_resolver, 216,092 events).
"""

import argparse
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile

import _machine

REPO = pathlib.Path(__file__).resolve().parents[1]
DEFAULT = REPO.parent / "shared" / "traces" / "hta" / "tests" / "data" / "df_index_resolver" / "df_index_resolver.json.gz"

CHILD = """
import json, resource, sys, time
import macroscope as ms
files, parallel = json.loads(sys.argv[1]), json.loads(sys.argv[2])
t = time.perf_counter()
ms.read_micro(files if len(files) > 1 else files[0], parallel=parallel, progress=False)
wall = time.perf_counter() - t
use = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"wall": wall, "cpu": use.ru_utime + use.ru_stime, "peak": use.ru_maxrss / 1024}))
"""


def measure(files, parallel):
    out = subprocess.run([sys.executable, "-c", CHILD, json.dumps([str(f) for f in files]), json.dumps(parallel)],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file", nargs="?", default=str(DEFAULT))
    ap.add_argument("--copies", type=int, default=16)
    a = ap.parse_args()
    src = pathlib.Path(a.file)
    with tempfile.TemporaryDirectory() as d:
        files = []
        for i in range(a.copies):
            f = pathlib.Path(d) / f"rank{i}{''.join(src.suffixes)}"
            shutil.copy(src, f)
            files.append(f)
        base = measure(files[:1], None)
        rows = [("1 file", base), (f"{a.copies} files, by parts (default)", measure(files, None)),
                (f"{a.copies} files, one stream (parallel=False)", measure(files, False))]
    print(f"{src.name}, {a.copies} copies; peak resident memory of the whole process (Python and the package "
          "included)\n")
    print(f"machine: {_machine.describe()}\n")
    print("| read | wall s | CPU s | peak MB | peak / one file's |")
    print("|---|---|---|---|---|")
    for name, r in rows:
        print(f"| {name} | {r['wall']:.2f} | {r['cpu']:.2f} | {r['peak']:.0f} | {r['peak'] / base['peak']:.2f} |")


if __name__ == "__main__":
    main()
