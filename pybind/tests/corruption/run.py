"""Runs corruption cases, each in a fresh Python process with a time
limit and a memory limit, and sorts the outcomes:

- error: a clean error (TraceFormatError, InvalidArgumentError,
  EmptyTraceError or TraceNotFoundError) naming a file of the case, or, for read_micro, an
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

The last three are failures. Hostile cases (hostile.py) say which
outcomes they may end in (error, incomplete, read, or argument: an
InvalidArgumentError); any other is "unexpected", and these are failures
too, for every case:

- modified: a file of the case changed (its bytes or its time of
  modification) while it was read;
- leak: an error or a warning quotes the file outside the case's
  directory that a link in it points to.

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
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cases as C  # noqa: E402
import hostile as H  # noqa: E402

FAILURES = ("silent-loss", "crash", "hang", "unexpected", "modified", "leak")
COUNTED = ("containers", "states", "variables", "links", "events")

# The child reads the input and prints one JSON line: the outcome and, for
# a read, the counts, completeness and warnings.
CHILD = r"""
import json, sys
from pathlib import Path
import macroscope as ms
args = json.loads(sys.argv[1])
out = {}
try:
    if args.get("code"):
        ns = {"ms": ms, "path": args["path"], "Path": Path}
        exec(args["code"], ns)
        t = ns.get("t")
        out = {"outcome": "read", "complete": getattr(t, "complete", True), "warnings": getattr(t, "warnings", []),
               "counts": {}}
    elif args["read"] == "read_micro":
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
except ms.InternalError as e:  # a recovered panic: a crash all the same
    out = {"outcome": "exception", "type": type(e).__name__, "message": str(e)[:2000]}
except ms.MacroscopeError as e:  # TraceFormatError, InvalidArgumentError, TraceNotFoundError
    out = {"outcome": "error", "type": type(e).__name__, "message": str(e)[:20000], "file": getattr(e, "file", None),
           "param": getattr(e, "param", None)}
except BaseException as e:
    out = {"outcome": "exception", "type": type(e).__name__, "message": str(e)[:2000]}
print("RESULT " + json.dumps(out), flush=True)
""" % (COUNTED,)

MEMORY_LIMIT = 4 << 30  # bytes of address space of a case's process


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run_child(path: Path, fmt: str, read: str, timeout: float, code: str = "") -> dict:
    """Reads path in a fresh interpreter (or runs code on it); returns the
    child's result, or the crash or hang."""
    args = json.dumps({"path": str(path), "format": fmt, "read": read, "code": code})
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


SECRET = "SECRET-CONTENT-NOT-FOR-MESSAGES"


def classify_hostile(case: C.Case, r: dict, case_dir: Path) -> str:
    """The outcome of a hostile case: one it may end in, else unexpected."""
    o = r["outcome"]
    if o in ("hang", "crash"):
        return o
    if o == "exception" or r.get("returncode", 0) != 0:
        return "crash"
    if SECRET in r.get("message", "") or any(SECRET in w for w in r.get("warnings") or ()):
        return "leak"
    if o == "error":
        if r.get("type") == "InvalidArgumentError" and "argument" in case.expect and r.get("param"):
            return "argument"
        named = r.get("file") or ""
        message = r.get("message", "")
        if str(case_dir) not in named and str(case_dir) not in message:
            return "crash"  # an error that does not say which file
        if not message.replace(named, "").strip(" :"):
            return "crash"  # nor what is wrong with it
        label = "error"
    elif not r.get("complete", True) or r.get("warnings"):
        label = "incomplete"
    else:
        label = "read"
    return label if label in case.expect else "unexpected"


def fingerprint(d: Path) -> dict:
    """The bytes (a digest) and time of modification of every file of a
    case's directory, links not followed (a FIFO is not opened)."""
    import hashlib
    import stat

    out = {}
    for p in sorted(d.rglob("*")):
        st = p.lstat()
        if stat.S_ISREG(st.st_mode):
            h = hashlib.sha256()
            with open(p, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
            out[str(p)] = (h.hexdigest(), st.st_mtime_ns)
        else:
            out[str(p)] = (stat.S_IFMT(st.st_mode), st.st_mtime_ns)
    return out


def classify(case: C.Case, r: dict, base: dict | None, case_dir: Path) -> str:
    if case.expect:
        return classify_hostile(case, r, case_dir)
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
    try:
        path = case.damage(d)
    except Exception as e:  # the case cannot be made here (a tool missing)
        return case, "skipped", {"message": f"{type(e).__name__}: {e}"[:300]}
    base = baseline(case.source) if not _apart(case) else None
    before = fingerprint(d)
    r = run_child(path, case.source.format, case.read, case.timeout, case.code)
    outcome = classify(case, r, base, d)
    if outcome not in FAILURES and fingerprint(d) != before:
        outcome = "modified"
    # A bomb's gigabytes and the FIFOs go at once.
    shutil.rmtree(d, ignore_errors=True)
    return case, outcome, r


def _apart(case: C.Case) -> bool:
    """Cases without an undamaged baseline: bombs and hostile cases."""
    return case.source.name == "bomb" or case.source.name.startswith("hostile")


def run(cases: list[C.Case], jobs: int = 2, verbose: bool = True) -> list[tuple[C.Case, str, dict]]:
    results = []
    with tempfile.TemporaryDirectory(prefix="corruption-") as tmp:
        root = Path(tmp)
        # The baselines first, once each.
        for src in {c.source.name: c.source for c in cases if not _apart(c)}.values():
            baseline(src)
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            for case, outcome, r in pool.map(lambda c: run_case(c, root), cases):
                results.append((case, outcome, r))
                if verbose:
                    detail = r.get("message", r.get("stderr", ""))[:160].replace("\n", " ")
                    print(f"{outcome:12} {case.name}  {detail}", flush=True)
    return results


OUTCOMES = ("error", "incomplete", "read", "argument", "skipped") + FAILURES


def table(results) -> str:
    counts: dict[str, Counter] = {}
    for case, outcome, _ in results:
        group = case.source.format if not _apart(case) else "bombs" if case.source.name == "bomb" else f"hostile {case.kind}"
        counts.setdefault(group, Counter())[outcome] += 1
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
    by_name = {c.name: c for c in C.all_cases() + H.all_cases()}
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
    hostile = H.all_cases()
    cases = C.all_cases() + hostile if a.full else C.sample(C.all_cases()) + H.sample(hostile)
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
