"""Trace ingestion against the reference tools, measured in the same run.

  macroscope dump  vs  pj_dump          (the same bytes out)
  ms.read_paje     vs  pj_dump -q       (reading and simulating only)
  ms.read_otf2     vs  otf2-print       (decoding every record)
  ms.read_chrome   vs  json.load        (Python's parser, nothing built)
  ms.from_pandas   rows per second
  progress polling its cost on a read

Prints a Markdown table; ratios above 1 mean Macroscope is faster. Each
time is the best of --repeat runs. Needs the shared corpus, pj_dump and
otf2-print (rows whose inputs or tools are missing are left out).
Usage: python bench/ingest.py [--repeat N] [--synthetic-events N]
"""

import argparse
import gzip
import json
import pathlib
import shutil
import subprocess
import tempfile
import time

import numpy as np
import pandas as pd

import macroscope as ms

import _machine

REPO = pathlib.Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "traces"


def best(fn, repeat, clock=time.perf_counter):
    times = []
    for _ in range(repeat):
        t = clock()
        fn()
        times.append(clock() - t)
    return min(times)


def run_quiet(cmd):
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)


def row(what, size, ours, theirs, reference):
    ratio = f"{theirs / ours:.2f}x" if theirs else ""
    ref = f"{theirs * 1000:.0f} ms" if theirs else ""
    print(f"machine: {_machine.describe()}\n")
    print(f"| {what} | {size} | {ours * 1000:.0f} ms | {reference} {ref} | {ratio} |")


def mb(path):
    path = pathlib.Path(path)
    n = sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() else path.stat().st_size
    return f"{n / 1e6:.1f} MB"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--synthetic-events", type=int, default=2_000_000)
    args = ap.parse_args()
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="ingest-bench"))
    try:
        bench(args, tmp)
    finally:
        shutil.rmtree(tmp)


def bench(args, tmp):
    cli = tmp / "macroscope"
    subprocess.run(["go", "build", "-o", str(cli), "./cmd/macroscope"], cwd=REPO, check=True)
    synthetic = tmp / "synthetic.trace"
    ms.synth(synthetic, events=args.synthetic_events, format="paje")
    paje = [CORPUS / "pajeng/traces/g5k.trace", CORPUS / "pajeng/traces/simu-mardi.trace",
            CORPUS / "smpi-nas/is_B_64.trace", synthetic]
    paje = [p for p in paje if p.exists()]
    pj_dump = shutil.which("pj_dump")

    print("| task | input | Macroscope | reference | speed-up |")
    print("|---|---|---|---|---|")
    for p in paje:
        ours = best(lambda: run_quiet([str(cli), "dump", str(p)]), args.repeat)
        theirs = best(lambda: run_quiet([pj_dump, str(p)]), args.repeat) if pj_dump else None
        row(f"dump {p.name}", mb(p), ours, theirs, "pj_dump")
    for p in paje:
        ours = best(lambda: ms.read_paje(p, strict=True, progress=False), args.repeat)
        theirs = best(lambda: run_quiet([pj_dump, "-q", str(p)]), args.repeat) if pj_dump else None
        row(f"read {p.name}", mb(p), ours, theirs, "pj_dump -q")

    otf2_print = shutil.which("otf2-print")
    for name in ["tracer-stencil4d/stencil4d-otf/traces-64", "fastotf2/sample-traces/simple-mi300-example-run"]:
        p = CORPUS / name
        if not p.exists():
            continue
        ours = best(lambda: ms.read_otf2(p, progress=False), args.repeat)
        theirs = best(lambda: run_quiet([otf2_print, str(p / "traces.otf2")]), args.repeat) if otf2_print else None
        row(f"read {p.name}", mb(p), ours, theirs, "otf2-print")

    p = CORPUS / "hta/tests/data/df_index_resolver/df_index_resolver.json.gz"
    if p.exists():
        ours = best(lambda: ms.read_chrome(p, progress=False), args.repeat)

        def load():
            with gzip.open(p) as f:
                json.load(f)

        theirs = best(load, args.repeat)
        row(f"read {p.name}", mb(p), ours, theirs, "json.load")

    n = 1_000_000
    rng = np.random.default_rng(1)
    cores = np.array([f"site{i // 256}/m{i // 16 % 16}/c{i % 16}" for i in range(1024)])
    starts = np.cumsum(rng.uniform(0.001, 0.002, n))
    df = pd.DataFrame({"resource": cores[np.arange(n) % 1024], "state": rng.choice(["compute", "send", "wait"], n),
                       "start": starts, "end": starts + 0.0005})
    t = best(lambda: ms.from_pandas(df), args.repeat)
    print(f"| from_pandas | {n:,} rows | {t * 1000:.0f} ms ({n / t / 1e6:.1f} M rows/s) | | |")

    # CPU time of the whole process (every thread): what polling costs,
    # whatever else the machine is doing.
    quiet = best(lambda: ms.read_paje(synthetic, progress=False), args.repeat, clock=time.process_time)
    polled = best(lambda: ms.read_paje(synthetic, progress=lambda d, t: None), args.repeat, clock=time.process_time)
    print(f"| read {synthetic.name} with a progress callback (CPU time) | {mb(synthetic)} | {polled * 1000:.0f} ms | "
          f"without: {quiet * 1000:.0f} ms | {quiet / polled:.2f}x |")


if __name__ == "__main__":
    main()
