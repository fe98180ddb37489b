"""Traces written afresh by producers outside the corpus open through the
door and give a model, an aggregation and a figure, with the counts of an
oracle of their own: Python profilers that write the Trace Event Format
(viztracer, py-spy's chrometrace), counted by a walk of the JSON here, and
the Go execution traces of Go 1.18 to 1.25 (core/readers/gotrace/testdata/versions,
whose counts the Go tests check against each release's go tool trace), and
StarPU's paje.trace, whose dates are milliseconds."""

import collections
import gzip
import json
import shutil
import subprocess
import sys
import warnings

import pytest

import macroscope as ms
from conftest import REPO

# A small program with threads, recursion (deep nesting) and sleeps.
PROGRAM = """
import os, threading, time

def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

def worker(k):
    for _ in range(int(os.environ.get("REPS", "2"))):
        fib(12 + k)
        time.sleep(0.01)

threads = [threading.Thread(target=worker, args=(k,), name=f"worker-{k}") for k in range(3)]
for t in threads:
    t.start()
for t in threads:
    t.join()
"""

# viztracer's API: counters, variables, instants, a custom event, a thread,
# asyncio tasks (as threads with --log_async) and a forked process.
VIZ_PROGRAM = """
import asyncio, multiprocessing, threading
from viztracer import get_tracer

def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

async def task(k):
    for _ in range(2):
        fib(8 + k)
        await asyncio.sleep(0.002)

async def main_async():
    await asyncio.gather(*(task(k) for k in range(3)))

def main():
    tr = get_tracer()
    for i in range(5):
        tr.log_var("load", i * 1.5)
        tr.add_counter("mem", {"a": i, "b": 10 - i})
        tr.log_instant("tick", args={"i": i})
        with tr.log_event("step"):
            fib(6)
    th = threading.Thread(target=fib, args=(10,), name="helper")
    th.start(); th.join()
    asyncio.run(main_async())
    p = multiprocessing.get_context("fork").Process(target=fib, args=(10,))
    p.start(); p.join()

if __name__ == "__main__":
    main()
"""


def _events(path):
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt") as f:
        data = json.load(f)
    return data if isinstance(data, list) else data["traceEvents"]


def _depths(events):
    """Nesting depth of every slice (X, B/E) per thread, by a stack walk."""
    spans, opened = collections.defaultdict(list), collections.defaultdict(list)
    for e in events:
        key = (e["pid"], e["tid"])
        if e["ph"] == "X":
            spans[key].append((e["ts"], e["ts"] + e.get("dur", 0)))
        elif e["ph"] == "B":
            opened[key].append(e["ts"])
        elif e["ph"] == "E":
            spans[key].append((opened[key].pop(), e["ts"]))
    depths = collections.Counter()
    for s in spans.values():
        s.sort(key=lambda x: (x[0], -x[1]))
        stack = []
        for start, end in s:
            while stack and stack[-1] <= start:
                stack.pop()
            depths[len(stack)] += 1
            stack.append(end)
    return depths


def _through_the_door(path, states, variables, events, depths=None):
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        trace = ms.read(path)
        model = ms.read_micro(path, slices=20)
    assert (len(trace.states), len(trace.variables), len(trace.events)) == (states, variables, events)
    assert trace.complete and trace.warnings == [] and trace.skipped == {}
    if depths is not None:
        assert collections.Counter(trace.states["depth"]) == depths
    for m in (trace.micro(slices=20), model):
        agg = m.aggregate(0.5)
        assert len(agg) > 0
        assert agg.plot().to_bytes("png")[:4] == b"\x89PNG"
    return trace


def _tool(name):
    exe = shutil.which(name, path=str(REPO / ".venv" / "bin")) or shutil.which(name)
    if exe is None:
        pytest.skip(f"{name} is not installed (pip install {name})")
    return exe


@pytest.mark.parametrize("suffix", [".json", ".json.gz"])
def test_viztracer(tmp_path, suffix):
    viztracer = _tool("viztracer")
    prog = tmp_path / "prog.py"
    prog.write_text(VIZ_PROGRAM)
    out = tmp_path / ("viz" + suffix)
    subprocess.run([viztracer, "--log_async", "--log_gc", "-o", str(out), str(prog)],
                   check=True, capture_output=True, cwd=tmp_path)
    ev = _events(out)
    phases = collections.Counter(e["ph"] for e in ev)
    # Every numeric series of a counter is a variable type, and each C
    # event gives a value of each of its series.
    values = sum(len(e["args"]) for e in ev if e["ph"] == "C")
    # A thread is a container when it has slices or a name (viztracer
    # names the threads a forked child inherits, without slices).
    threads = {(e["pid"], e["tid"]) for e in ev if e["ph"] == "X" or e.get("name") == "thread_name"}
    trace = _through_the_door(out, phases["X"], values, phases["i"], _depths(ev))
    assert set(phases) <= {"X", "C", "i", "M"}
    names = {e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
    paths = set(trace.containers["path"])
    assert {"MainProcess/MainThread", "MainProcess/helper", "MainProcess/Task-1"} <= paths
    assert all(p.split("/")[-1] in names for p in paths if "/" in p)
    assert len(trace.containers[trace.containers["depth"] == 2]) == len(threads)


@pytest.mark.parametrize("idle", [False, True])
def test_py_spy_chrometrace(tmp_path, idle):
    py_spy = _tool("py-spy")
    prog = tmp_path / "prog.py"
    prog.write_text(PROGRAM)
    out = tmp_path / "spy.json"
    cmd = [py_spy, "record", "--format", "chrometrace", "-r", "200", "-o", str(out)]
    if idle:
        cmd.append("--idle")
    # A sampler on a loaded machine may catch no sample of a short run
    # (the program waits for a core): run it longer until it does.
    for reps in (20, 100, 500):
        r = subprocess.run(cmd + ["--", sys.executable, str(prog)], capture_output=True, text=True,
                           env={"REPS": str(reps), "PATH": "/usr/bin:/bin"})
        if r.returncode != 0 and "ermission" in r.stderr + r.stdout:
            pytest.skip(f"py-spy may not trace here: {r.stderr.strip()[:200]}")
        assert r.returncode == 0, r.stderr
        ev = _events(out)
        if ev:
            break
    phases = collections.Counter(e["ph"] for e in ev)
    assert set(phases) == {"B", "E"} and phases["B"] == phases["E"] > 0
    trace = _through_the_door(out, phases["B"], 0, 0, _depths(ev))
    threads = {(e["pid"], e["tid"]) for e in ev}
    assert len(trace.containers[trace.containers["depth"] == 2]) == len(threads)


def _clang():
    for name in ["clang++"] + [f"clang++-{v}" for v in range(22, 13, -1)]:
        if exe := shutil.which(name):
            return exe
    pytest.skip("clang++ is not installed (apt install clang)")


def test_clang_time_trace(tmp_path):
    """clang's -ftime-trace: the run's X events are the states; the totals
    LLVM appends ("Total <name>" at ts 0, a thread each) are skipped and
    said, and the trace ends with the run."""
    src = tmp_path / "t.cpp"
    src.write_text("#include <vector>\n#include <map>\n"
                   "template <int N> struct F { static constexpr int v = F<N - 1>::v + 1; };\n"
                   "template <> struct F<0> { static constexpr int v = 0; };\n"
                   "int main() { std::map<int, std::vector<int>> m; m[1].push_back(F<60>::v); return m.size(); }\n")
    subprocess.run([_clang(), "-O1", "-ftime-trace", "-ftime-trace-granularity=0", "-c", str(src),
                    "-o", str(tmp_path / "t.o")], check=True, capture_output=True, cwd=tmp_path)
    ev = _events(tmp_path / "t.json")
    totals = [e for e in ev if e["ph"] == "X" and e["name"].startswith("Total ")]
    run = [e for e in ev if e["ph"] in "Xb" and e not in totals]
    assert totals and run
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        trace = ms.read(tmp_path / "t.json")
    assert len(trace.states) == len(run)
    assert not trace.states["value"].astype(str).str.startswith("Total ").any()
    assert list(trace.skipped.values()) == [len(totals)]
    assert "LLVM time-trace totals" in next(iter(trace.skipped))
    threads = trace.containers[trace.containers["type"] == "Thread"]
    assert len(threads) == len({e["tid"] for e in run})
    end = max(e["ts"] + e.get("dur", 0) for e in ev if e["ph"] in "Xe" and e not in totals)
    assert trace.end == pytest.approx(end / 1e6)
    agg = trace.micro(slices=20).aggregate(0.5)
    assert agg.plot().to_bytes("png")[:4] == b"\x89PNG"


# Go 1.18 to 1.25, as their runtimes wrote the same program's trace: the
# counts are those of each release's go tool trace (see the Go test).
GO_RELEASES = {
    "go1.18.trace": (3293, 7), "go1.19.trace": (1396, 7), "go1.20.trace": (2755, 7), "go1.21.trace": (10443, 7),
    "go1.22.trace": (265, 9), "go1.23.trace": (6365, 9), "go1.24.trace": (4619, 9), "go1.25.trace": (5370, 9),
}


@pytest.mark.parametrize("name", sorted(GO_RELEASES))
def test_go_releases(name):
    runs, spawns = GO_RELEASES[name]
    path = REPO / "core" / "readers" / "gotrace" / "testdata" / "versions" / name
    trace = ms.read(path)
    assert trace.format == "gotrace"
    assert (trace.states["type"] == "Running goroutine").sum() == runs
    assert (trace.states["type"] == "Region").sum() == 8
    _through_the_door(path, len(trace.states), len(trace.variables), len(trace.events))
    assert len(trace.links) == spawns


def test_starpu_paje_in_milliseconds():
    # starpu_fxt_tool's output for a run of 0.94 s: its last date is
    # 684.465309 (ms). The file holds 952 SetState (ids 10 and 20) and 253
    # PushState lines, 445 SetVariable (3 at the instant of the previous
    # change, which they update, as pj_dump's 442), 176 NewEvent, 7 links.
    path = REPO / "core" / "readers" / "paje" / "testdata" / "starpu-1.3.10.trace"
    trace = _through_the_door(path, 952 + 253, 442, 176)
    assert trace.format == "paje"
    assert trace.end == pytest.approx(0.684465309)
    assert len(trace.links) == 7
    assert ms.read_paje(path, time_unit="s").end == pytest.approx(684.465309)
    assert ms.read_paje(path, strict=True).end == pytest.approx(684.465309)
