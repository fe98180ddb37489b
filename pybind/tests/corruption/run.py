"""Runs corruption cases, each in a fresh Python process with a time
limit and a memory limit, and sorts the outcomes:

- error: a clean error (TraceFormatError, InvalidArgumentError or
  TraceNotFoundError) naming a file of the case, or, for read_micro, an
  InvalidArgumentError saying the model cannot be built from what is left
  (no state type...);
- incomplete: the trace read, marked incomplete or with warnings (the
  documented tolerance);
- read: the trace read, complete, without warnings (its counts equal to
  the undamaged trace's, or, for damages that may leave a valid trace
  behind, such as a changed byte or a duplicated line, different);
- silent-loss: a strict damage (a cut, a missing file) read as complete,
  without warnings, with fewer entities than the undamaged trace;
- crash: a signal, an abort, an InternalError or any other exception, an
  error that names no file of the case;
- hang: the time limit passed.

The last three are failures.

    python pybind/tests/corruption/run.py [--full] [--jobs N] [--only TEXT]

prints a line per case, then the counts per format and outcome (the
Markdown table of docs/reliability.md); --table-from LOG prints the table
of runs' outputs.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import resource
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cases as C  # noqa: E402

FAILURES = ("silent-loss", "crash", "hang")
COUNTED = ("containers", "states", "variables", "links", "events")

# The child reads the input and prints one JSON line: the outcome and, for
# a read, the counts, completeness and warnings.
CHILD = r"""
import json, sys
import macroscope as ms
args = json.loads(sys.argv[1])
out = {}
try:
    if args["read"] == "read_micro":
        m = ms.read_micro(args["path"], slices=10, format=args["format"])
        out = {"outcome": "read", "complete": True, "warnings": [], "counts": {}}
        t = getattr(m, "trace", None)
        for attr in ("complete", "warnings"):
            if hasattr(m, attr):
                out[attr] = getattr(m, attr)
    else:
        t = ms.read(args["path"], format=args["format"])
        s = t._summary
        out = {"outcome": "read", "complete": t.complete, "warnings": t.warnings,
               "counts": {k: s[k] for k in %r}}
except (ms.TraceFormatError, ms.InvalidArgumentError, ms.TraceNotFoundError) as e:
    out = {"outcome": "error", "type": type(e).__name__, "message": str(e), "file": getattr(e, "file", None)}
except BaseException as e:
    out = {"outcome": "exception", "type": type(e).__name__, "message": str(e)[:2000]}
print("RESULT " + json.dumps(out), flush=True)
""" % (COUNTED,)

MEMORY_LIMIT = 4 << 30  # bytes of address space of a case's process


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run_child(path: Path, fmt: str, read: str, timeout: float) -> dict:
    """Reads path in a fresh interpreter; returns the child's result, or
    the crash or hang."""
    args = json.dumps({"path": str(path), "format": fmt, "read": read})
    env = dict(os.environ, GOMAXPROCS=os.environ.get("GOMAXPROCS", "2"))
    try:
        p = subprocess.run([sys.executable, "-c", CHILD, args], capture_output=True, text=True, timeout=timeout,
                           preexec_fn=_limit_memory, env=env)
    except subprocess.TimeoutExpired:
        return {"outcome": "hang"}
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            r = json.loads(line[len("RESULT "):])
            r["returncode"] = p.returncode
            return r
    return {"outcome": "crash", "returncode": p.returncode, "stderr": p.stderr[-1500:]}


_baselines: dict[str, dict] = {}


def baseline(src: C.Source) -> dict:
    """The counts of the undamaged source, read the same way."""
    if src.name not in _baselines:
        with tempfile.TemporaryDirectory() as d:
            path = C.copy_source(src, Path(d))
            _baselines[src.name] = run_child(path, src.format, "read", 300)
    return _baselines[src.name]


def classify(case: C.Case, r: dict, base: dict | None, case_dir: Path) -> str:
    o = r["outcome"]
    if o in ("hang", "crash"):
        return o
    if o == "exception" or r.get("returncode", 0) != 0:
        return "crash"
    if o == "error":
        named = r.get("file") or ""
        if str(case_dir) in named or str(case_dir) in r.get("message", ""):
            return "error"
        if case.read == "read_micro" and r.get("type") == "InvalidArgumentError":
            return "error"  # the model's options do not fit what is left (no state type...)
        return "crash"  # an error that does not say which file
    if not r.get("complete", True) or r.get("warnings"):
        return "incomplete"
    counts, want = r.get("counts") or {}, (base or {}).get("counts") or {}
    if case.strict and counts and want and any(counts[k] < want[k] for k in COUNTED):
        return "silent-loss"
    return "read"


def run_case(case: C.Case, root: Path) -> tuple[C.Case, str, dict]:
    d = Path(tempfile.mkdtemp(prefix="case-", dir=root))
    path = case.damage(d)
    base = baseline(case.source) if case.source.name != "bomb" else None
    r = run_child(path, case.source.format, case.read, case.timeout)
    return case, classify(case, r, base, d), r


def run(cases: list[C.Case], jobs: int = 2, verbose: bool = True) -> list[tuple[C.Case, str, dict]]:
    results = []
    with tempfile.TemporaryDirectory(prefix="corruption-") as tmp:
        root = Path(tmp)
        # The baselines first, once each.
        for src in {c.source.name: c.source for c in cases if c.source.name != "bomb"}.values():
            baseline(src)
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            for case, outcome, r in pool.map(lambda c: run_case(c, root), cases):
                results.append((case, outcome, r))
                if verbose:
                    detail = r.get("message", r.get("stderr", ""))[:160].replace("\n", " ")
                    print(f"{outcome:12} {case.name}  {detail}", flush=True)
    return results


OUTCOMES = ("error", "incomplete", "read", "silent-loss", "crash", "hang")


def table(results) -> str:
    counts: dict[str, Counter] = {}
    for case, outcome, _ in results:
        counts.setdefault(case.source.format if case.source.name != "bomb" else "bombs", Counter())[outcome] += 1
    lines = ["| format | cases | " + " | ".join(OUTCOMES) + " |", "|---|---:|" + "---:|" * len(OUTCOMES)]
    total = Counter()
    for fmt in sorted(counts):
        c = counts[fmt]
        total.update(c)
        lines.append(f"| {fmt} | {sum(c.values())} | " + " | ".join(str(c[o]) for o in OUTCOMES) + " |")
    lines.append(f"| **all** | {sum(total.values())} | " + " | ".join(str(total[o]) for o in OUTCOMES) + " |")
    return "\n".join(lines)


def _results_of_log(paths):
    """The (case, outcome) pairs of the lines runs printed, a later run's
    outcome replacing an earlier one's (cases run again after a fix)."""
    by_name = {c.name: c for c in C.all_cases()}
    outcome = {}
    for path in paths:
        for line in Path(path).read_text().splitlines():
            parts = line.split()
            if len(parts) >= 2 and parts[0] in OUTCOMES and parts[1] in by_name:
                outcome[parts[1]] = parts[0]
    return [(by_name[name], o, {}) for name, o in outcome.items()]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--full", action="store_true", help="every case (default: the sample of the test run)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", default="", help="run the cases whose name contains one of these (comma-separated)")
    ap.add_argument("--no-bombs", action="store_true")
    ap.add_argument("--table-from", metavar="LOG", nargs="+",
                    help="print the table of the case lines of runs' outputs (later ones override)")
    a = ap.parse_args()
    if a.table_from:
        print(table(_results_of_log(a.table_from)))
        return
    cases = C.all_cases() if a.full else C.sample(C.all_cases())
    # The damages that must never go unnoticed first, then the others
    # (a run stopped early has covered what matters most).
    cases.sort(key=lambda c: (not c.strict, c.kind != "bomb"))
    if a.no_bombs:
        cases = [c for c in cases if c.kind != "bomb"]
    if a.only:
        cases = [c for c in cases if any(o in c.name for o in a.only.split(","))]
    results = run(cases, a.jobs)
    print()
    print(table(results))
    failed = [(c, o) for c, o, _ in results if o in FAILURES]
    for c, o in failed:
        print(f"FAILED {o}: {c.name}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
