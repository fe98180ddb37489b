"""Macroscope against the peers' readers, on the same files, in one run.

    python bench/compare.py [--rounds 5] [--sizes 20MB] [--formats nsys,hpctoolkit,kineto,otf2,paje]
                            [--pipit-src DIR] [--out FILE] [--no-install]

Inputs and tools (a row per tool and input):
  Nsight Systems SQLite  ms.read, ms.read + .micro()  vs pipit's SQLite reader
                         (Trace.from_nsight_sqlite); HTA reads no nsys
  HPCToolkit database    ms.read  vs pipit's Trace.from_hpctoolkit
  Kineto (PyTorch) JSON  (HTA's test traces, and one trace of each of --sizes
                         written here: steps of CPU ops, launches, kernels
                         and their flow events)
                         ms.read  vs HTA's parse_trace_dataframe and plain
                         json.load + pandas.DataFrame (pipit has no Chrome
                         or Kineto reader)
  OTF2                   (the corpus's, one written by bench/otf2_synth.py
                         of --otf2-events records, and --otf2-archive's)
                         ms.read  vs otf2-print (Debian otf2-tools), to
                         /dev/null and --silent, and pipit's Trace.from_otf2;
                         our command `macroscope dump --format otf2` (-q, or
                         to /dev/null) against otf2-print, command to command
  Pajé (synthetic)       ms.read, ms.read_micro  vs pj_dump (Debian pajeng)
                         -q (read and simulate) and to /dev/null (dump all);
                         `macroscope dump` (-q, or to /dev/null) against pj_dump

Every measurement is a fresh process (bench/compare_child.py for the Python
tools, the command itself for the others), so that each one pays its own
cold caches and its peak RSS is its own, read from os.wait4 (the largest
process of its tree when a tool forks workers: pipit's OTF2 reader does).
The rounds are interleaved: round r runs every (input, tool) once, starting
one place further along the list each round, so a change of the machine's
load hits all tools alike. "read" is the time of the reading call alone,
measured inside the process after the imports; for command-line tools it is
the whole process. "process" is the whole process, start-up and imports
included. Ratios are the peer's median over ours on the same input, above 1
when Macroscope is faster or smaller: read time against ms.read's; process
time and peak RSS against ms.read's for the Python peers, and against our
command doing the same work for the command-line peers (`macroscope dump`
is built from cmd/macroscope into bench/.cache). The counts beside the times are what each
tool found in the file (our states, pipit's Enter rows, HTA's rows...), for
an apples-to-apples check; detailed counts, by type, come from one extra
untimed run of each tool and are listed under the table.

Peers are installed in their own virtual environment, bench/.peers-venv
(pip install pipit HolisticTraceAnalysis otf2), and Debian's otf2-tools and
pajeng with apt-get when missing (as root); --no-install skips both. PyPI's
pipit (0.0.1) is an empty placeholder: give a source tree of hpcgroup/pipit
(pure Python) with --pipit-src (or PIPIT_SRC) to measure it; its Nsight
Systems SQLite reader is on that project's nsight-sqlite work (the one that
produced pipit/hist/data/cloverleaf-nsys), its released reader takes nsys
CSV exports. A tool that is missing or fails on a file is reported in the
table ("failed: ...", "not installed: ..."), never stops the run; so does a
run stopped past --timeout or past --max-rss of resident memory (default
8 GB, for the whole process group: the machine is shared), rather than
left to swap or to the OOM killer.

Macroscope runs from the project's .venv (make setup). Synthetic Pajé
traces are written once by macroscope.synth into bench/.cache and reused.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import os
import pathlib
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import _machine
import _runs

BENCH = pathlib.Path(__file__).resolve().parent
REPO = BENCH.parent
CHILD = BENCH / "compare_child.py"
FORMATS = ("nsys", "hpctoolkit", "kineto", "otf2", "paje")
# name, pip requirement. pandas 2: the peers were written for it (pipit's
# readers in 2024, HTA 0.5.0 in 2025), and installed first so HTA keeps it.
PEER_PACKAGES = (("pandas", "pandas<3"), ("HolisticTraceAnalysis", "HolisticTraceAnalysis"),
                 ("otf2", "otf2"), ("pipit", "pipit"))


@dataclasses.dataclass
class Job:
    """One tool on one input: how to run it, and what came of it."""
    group: str                      # the format, as the table's section
    input: str                      # the input's label
    path: pathlib.Path
    tool: str                       # the label of the row
    ours: bool = False
    reference: bool = False         # the Macroscope row the ratios divide by
    pair: str | None = None         # command-line rows: ours and the peer's that do the same work
    child: str | None = None        # a tool of compare_child.py...
    python: str | None = None       # ... run by this interpreter
    env: dict | None = None
    command: list | None = None     # or a command line, timed whole
    checker: object = None          # command line tools: a function giving the counts
    failed: str | None = None
    runs: list = dataclasses.field(default_factory=list)   # (read s, process s, RSS bytes)
    count: dict | None = None       # from the first timed run
    detail: dict | None = None      # from the check run


# Running one measurement ------------------------------------------------------

MAX_RSS = None   # bytes; set from --max-rss


def run_process(cmd, env=None, timeout=None, stdout_to_file=True):
    """Run cmd in a new session (bench/_runs.py, stopped past timeout or
    past MAX_RSS bytes resident in its whole group); return (wall s, peak
    RSS bytes, exit code, stdout text, stderr text)."""
    r = _runs.run(cmd, env=env, timeout=timeout, max_rss=MAX_RSS, keep_stdout=stdout_to_file)
    return r.wall, r.rss, r.code, r.out, r.err


reason = _runs.reason


def measure(job, timeout, mode="time"):
    """Run job once; append to job.runs (mode "time") or set job.detail
    (mode "check"). A failure marks the job failed."""
    if job.command is not None:
        if mode == "check":
            if job.checker:
                try:
                    job.detail = job.checker(job.path)
                except Exception as e:  # a count we cannot take is not a failed read
                    job.detail = {"count failed": str(e)[:200]}
            return
        took, rss, code, _, errors = run_process(job.command, timeout=timeout, stdout_to_file=False)
        if code != 0:
            job.failed = reason(errors, code)
            return
        job.runs.append((took, took, rss))
        return
    cmd = [job.python, str(CHILD), job.child, mode, str(job.path)]
    took, rss, code, text, errors = run_process(cmd, env=job.env, timeout=timeout)
    try:
        result = json.loads(text.strip().splitlines()[-1])
    except (ValueError, IndexError):
        result = {"error": reason(errors, code)}
    if code != 0 or "error" in result:
        job.failed = result.get("error") or reason(errors, code)
        if mode == "check" and job.failed.startswith(("stopped:", "timed out")):
            job.failed += " (untimed counting run)"
        return
    if mode == "check":
        job.detail = result["count"]
    else:
        job.runs.append((result["seconds"], took, rss))
        if job.count is None:
            job.count = result["count"]


# Counts from the command-line tools' output -----------------------------------

def count_lines(cmd, prefixes, timeout=3600):
    """Run cmd and count its output lines by their first word, for the
    words of prefixes."""
    counts = dict.fromkeys(prefixes, 0)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    try:
        for line in proc.stdout:
            word = line.split(b",", 1)[0].split(None, 1)[0] if line.strip() else b""
            key = word.decode(errors="replace")
            if key in counts:
                counts[key] += 1
    finally:
        timer.cancel()
        proc.wait()
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd[0]} exited with {proc.returncode}")
    return counts


def otf2_counts(path):
    return count_lines(["otf2-print", str(path)], ("ENTER", "LEAVE", "MPI_SEND", "MPI_RECV", "MPI_ISEND",
                                                   "MPI_IRECV", "METRIC"))


def pjdump_lines(cmd):
    """Lines of pj_dump's CSV (pj_dump's or ours) by kind."""
    return count_lines(cmd, ("Container", "State", "Link", "Variable", "Event"))


def pjdump_counts(path):
    return pjdump_lines(["pj_dump", str(path)])


# Setting up the tools -----------------------------------------------------------

def log(*args):
    print(*args, file=sys.stderr, flush=True)


def ours_python():
    py = REPO / ".venv" / "bin" / "python"
    if not py.exists():
        sys.exit(f"{py} is missing: run `make setup` first")
    probe = subprocess.run([str(py), "-c", "import macroscope; print(macroscope.__version__)"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        sys.exit(f"macroscope does not import in {py}: {reason(probe.stderr, probe.returncode)}")
    return str(py), probe.stdout.strip()


def peers_venv(where, install):
    """The peers' interpreter and a word per package: its version, or why
    it is missing."""
    py = where / "bin" / "python"
    status = {}
    if not py.exists():
        if not install:
            return None, {p: "not installed (--no-install)" for p, _ in PEER_PACKAGES}
        log(f"creating {where}")
        made = subprocess.run([sys.executable, "-m", "venv", str(where)], capture_output=True, text=True)
        if made.returncode != 0:
            return None, {p: f"no virtual environment: {reason(made.stderr, made.returncode)}"
                          for p, _ in PEER_PACKAGES}
    for package, requirement in PEER_PACKAGES:
        version = installed_version(py, package)
        if version is None and install:
            log(f"pip install {requirement} (into {where})")
            done = subprocess.run([str(py), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                                   requirement], capture_output=True, text=True)
            if done.returncode != 0:
                status[package] = f"pip install failed: {reason(done.stderr, done.returncode)}"
                continue
            version = installed_version(py, package)
        status[package] = version or "not installed"
    return str(py), status


def installed_version(py, package):
    probe = subprocess.run([str(py), "-c", f"import importlib.metadata as m; print(m.version({package!r}))"],
                           capture_output=True, text=True)
    return probe.stdout.strip() if probe.returncode == 0 else None


def debian_tools(install):
    """otf2-print and pj_dump, installed with apt-get when missing (as root)."""
    wanted = {"otf2-print": "otf2-tools", "pj_dump": "pajeng"}
    missing = [pkg for cmd, pkg in wanted.items() if shutil.which(cmd) is None]
    if missing and install and os.geteuid() == 0 and shutil.which("apt-get"):
        log(f"apt-get install {' '.join(missing)}")
        subprocess.run(["apt-get", "install", "-y", "-q", *missing], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
    versions = {}
    for cmd, pkg in wanted.items():
        if shutil.which(cmd) is None:
            versions[cmd] = f"not installed (Debian package {pkg})"
            continue
        q = subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg], capture_output=True, text=True)
        versions[cmd] = q.stdout.strip() if q.returncode == 0 else "installed"
    return versions


def go_command():
    """Our command-line tool, built into bench/.cache (go build is
    incremental: a rebuild of unchanged sources costs a second)."""
    out = BENCH / ".cache" / "macroscope"
    if shutil.which("go") is None:
        return None, "not built: no Go toolchain"
    out.parent.mkdir(parents=True, exist_ok=True)
    log("go build ./cmd/macroscope")
    built = subprocess.run(["go", "build", "-o", str(out), "./cmd/macroscope"], cwd=REPO,
                           capture_output=True, text=True)
    if built.returncode != 0:
        return None, f"go build failed: {reason(built.stderr, built.returncode)}"
    return str(out), None


def pipit_env(pipit_src):
    """The environment of the peers' runs: pipit's source tree first on the
    path, when one is given."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if pipit_src:
        env["PYTHONPATH"] = str(pipit_src)
    return env


# Inputs ---------------------------------------------------------------------------

def parse_size(text):
    text = text.strip().upper().replace(" ", "")
    for unit, factor in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3), ("B", 1)):
        if text.endswith(unit):
            return int(float(text[: -len(unit)]) * factor)
    return int(float(text))


def synthetic_paje(py, size, cache):
    """A synthetic Pajé trace of about size bytes, written once into cache
    (its events scaled from a small probe: bytes per event line hardly vary)."""
    cache.mkdir(parents=True, exist_ok=True)
    label = f"{size / 1e6:g}MB"
    path = cache / f"synth-{label}.trace"
    if path.exists() and path.stat().st_size > 0:
        return path
    script = (
        "import sys, os, tempfile, macroscope as ms\n"
        "size, out = int(sys.argv[1]), sys.argv[2]\n"
        "with tempfile.TemporaryDirectory() as d:\n"
        "    probe = ms.synth(os.path.join(d, 'p.trace'), events=200000, seed=1, format='paje')\n"
        "per = probe['bytes'] / probe['events']\n"
        "ms.synth(out + '.part', events=max(1000, int(size / per)), seed=1, format='paje')\n"
        "os.replace(out + '.part', out)\n"
    )
    log(f"writing {path.name}")
    subprocess.run([py, "-c", script, str(size), str(path)], check=True)
    return path


def synthetic_kineto(size, cache):
    """A synthetic Kineto (PyTorch profiler) trace of one rank, about size
    bytes, written once into cache: training steps of CPU operators, the
    CUDA runtime calls that launch kernels, the kernels on two streams,
    and the flow events (cat ac2g) joining launches to kernels, with the
    correlation and External id arguments HTA reads; timestamps in
    microseconds with a fraction, as recent PyTorch writes them."""
    cache.mkdir(parents=True, exist_ok=True)
    path = cache / f"kineto-{size / 1e6:g}MB.json"
    if path.exists() and path.stat().st_size > 0:
        return path
    log(f"writing {path.name}")
    head = ('{"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1}, '
            '"deviceProperties": [], "traceEvents": [\n'
            '{"name": "process_name", "ph": "M", "pid": 4242, "tid": 0, "args": {"name": "python"}},\n'
            '{"name": "process_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "GPU 0"}},\n'
            '{"name": "thread_name", "ph": "M", "pid": 4242, "tid": 4242, "args": {"name": "main thread"}}')
    kernels = ("ampere_sgemm_128x64_nn", "void at::native::vectorized_elementwise_kernel<4>",
               "ncclKernel_AllReduce_RING_LL_Sum_float", "void cudnn::bn_fw_tr_1C11_kernel_NCHW")
    ops = ("aten::linear", "aten::relu", "aten::add_", "aten::batch_norm")
    written = 0
    with open(str(path) + ".part", "w") as f:
        f.write(head)
        written += len(head)
        step, corr, ext = 0, 1, 1
        t0 = 1_700_000_000_000.0
        while written < size:
            base = t0 + 5000.0 * step
            out = [f'{{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#{step}", "pid": 4242, '
                   f'"tid": 4242, "ts": {base:.3f}, "dur": 4800.000, "args": {{"External id": {ext}}}}}']
            ext += 1
            for k in range(8):
                op, kernel = ops[k % 4], kernels[k % 4]
                at = base + 20.0 + 590.0 * k
                out.append(f'{{"ph": "X", "cat": "cpu_op", "name": "{op}", "pid": 4242, "tid": 4242, '
                           f'"ts": {at:.3f}, "dur": 500.250, "args": {{"External id": {ext}, "Sequence number": '
                           f'{ext}, "Fwd thread id": 0}}}}')
                out.append(f'{{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 4242, '
                           f'"tid": 4242, "ts": {at + 100.0:.3f}, "dur": 12.500, "args": {{"External id": {ext}, '
                           f'"cbid": 211, "correlation": {corr}}}}}')
                out.append(f'{{"ph": "s", "id": {corr}, "pid": 4242, "tid": 4242, "ts": {at + 100.0:.3f}, '
                           f'"cat": "ac2g", "name": "ac2g"}}')
                stream = 7 + (k % 2)
                out.append(f'{{"ph": "X", "cat": "kernel", "name": "{kernel}", "pid": 0, "tid": {stream}, '
                           f'"ts": {at + 150.0:.3f}, "dur": {300.0 + (step % 7):.3f}, "args": {{"External id": '
                           f'{ext}, "device": 0, "stream": {stream}, "correlation": {corr}, "registers per thread": '
                           f'32, "grid": [128, 1, 1], "block": [256, 1, 1]}}}}')
                out.append(f'{{"ph": "f", "id": {corr}, "pid": 0, "tid": {stream}, "ts": {at + 150.0:.3f}, '
                           f'"cat": "ac2g", "name": "ac2g", "bp": "e"}}')
                corr += 1
                ext += 1
            chunk = ",\n" + ",\n".join(out)
            f.write(chunk)
            written += len(chunk)
            step += 1
        f.write("\n]}\n")
    os.replace(str(path) + ".part", path)
    return path


def synthetic_otf2(peer_py, events, cache):
    """A synthetic OTF2 archive of about `events` Enter and Leave records,
    written once into cache by bench/otf2_synth.py (the otf2 package of the
    peers' environment); None, said on stderr, when it cannot be written."""
    where = cache / f"otf2-{events}"
    anchor, done = where / "traces.otf2", where / ".done"
    if done.exists():
        return anchor
    log(f"writing {where.name}/traces.otf2")
    made = subprocess.run([peer_py, str(BENCH / "otf2_synth.py"), str(events), str(where)],
                          capture_output=True, text=True)
    if made.returncode != 0:
        log(f"no synthetic OTF2 archive: {reason(made.stderr, made.returncode)}")
        return None
    done.touch()
    return anchor


def size_of(path):
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    if path.suffix == ".otf2":
        return size_of(path.parent)
    return path.stat().st_size


def human(n):
    for unit, factor in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= factor:
            return f"{n / factor:.3g} {unit}"
    return f"{n} B"


def plan(args, ms_py, peer_py, peers, tools, go_cmd, corpus):
    """The jobs: every tool on every input of the formats asked for."""
    jobs = []
    peer_env = pipit_env(args.pipit_src)
    no_pipit = None
    if peer_py is None or not peers.get("pandas", "")[:1].isdigit():
        no_pipit = f"not installed: the peers' Python or pandas ({peers.get('pandas', '')})"
    elif not args.pipit_src and subprocess.run(
            [peer_py, "-c", "import pipit; pipit.Trace"], capture_output=True).returncode != 0:
        no_pipit = (f"not measured: PyPI's pipit {peers.get('pipit', '')} is an empty placeholder; "
                    "give a source tree of hpcgroup/pipit with --pipit-src")
    no_hta = None if peer_py and peers.get("HolisticTraceAnalysis", "")[:1].isdigit() else \
        f"not installed: HolisticTraceAnalysis {peers.get('HolisticTraceAnalysis', '')}"
    no_otf2_py = None if peers.get("otf2", "")[:1].isdigit() else \
        f"not installed: pipit's OTF2 reader needs the otf2 module ({peers.get('otf2', '')})"

    go_exe, no_go = go_cmd

    def add(group, label, path, ms_tools, peer_tools, ms_commands=()):
        """ms_tools: (row, child tool); ms_commands: (row, arguments of our
        command, pair); peer_tools: (row, child tool or (command, counter,
        pair), why it cannot run or None)."""
        for i, (name, child) in enumerate(ms_tools):
            jobs.append(Job(group, label, path, name, ours=True, reference=i == 0, child=child, python=ms_py))
        for name, argv, pair in ms_commands:
            command = [go_exe or "macroscope", *argv]
            # the full dump's lines counted by kind, as pj_dump's are
            checker = (lambda _, cmd=command: pjdump_lines(cmd)) if pair == "all" else None
            jobs.append(Job(group, label, path, name, ours=True, command=command, checker=checker,
                            pair=pair, failed=no_go))
        for name, spec, unavailable in peer_tools:
            job = Job(group, label, path, name)
            if isinstance(spec, str):
                job.child, job.python, job.env = spec, peer_py, peer_env
            else:
                job.command, job.checker, job.pair = spec
            job.failed = unavailable
            jobs.append(job)

    def present(paths):
        found = [p for p in paths if p.exists()]
        for p in paths:
            if not p.exists():
                log(f"skipping {p}: not found")
        return found

    if "nsys" in args.formats:
        nsys = [corpus / "pipit/hist/data/cloverleaf-nsys/perlmutter-cloverleaf-cuda.sqlite"]
        nsys += sorted((corpus / "nsys").glob("*.sqlite"))
        for p in present(nsys):
            add("Nsight Systems SQLite", p.name, p,
                [("Macroscope ms.read", "ms_read"), ("Macroscope ms.read + .micro()", "ms_read_micro_model")],
                [("pipit Trace.from_nsight_sqlite", "pipit_nsight_sqlite", no_pipit)])
    if "hpctoolkit" in args.formats:
        for p in present([corpus / "pipit/tests/data/ping-pong-hpctoolkit",
                          corpus / "hpctoolkit-db/issue-233-lulesh"]):
            add("HPCToolkit database", p.name, p, [("Macroscope ms.read", "ms_read")],
                [("pipit Trace.from_hpctoolkit", "pipit_hpctoolkit", no_pipit)])
    if "kineto" in args.formats:
        kineto = sorted((corpus / "hta/tests/data").rglob("*.json.gz"), key=lambda p: p.stat().st_size)
        inputs = [(str(p.relative_to(corpus / "hta/tests/data")), p) for p in kineto[::-1][:args.kineto_files]]
        inputs += [(f"synthetic {p.name}", p) for p in (synthetic_kineto(size, BENCH / ".cache")
                                                        for size in args.sizes)]
        for label, p in inputs:
            add("Kineto JSON", label, p,
                [("Macroscope ms.read", "ms_read")],
                [("HTA parse_trace_dataframe", "hta_parse", no_hta),
                 ("json.load + pandas.DataFrame", "json_pandas", None if peer_py else "no peers' Python")])
    if "otf2" in args.formats:
        otf2 = [corpus / "pipit/tests/data/ping-pong-otf2/traces.otf2",
                corpus / "tracer-stencil4d/stencil4d-otf/traces-64/traces.otf2"]
        if args.otf2_events > 0:
            if no_otf2_py:
                log(f"no synthetic OTF2 archive: {no_otf2_py}")
            else:
                made = synthetic_otf2(peer_py, args.otf2_events, BENCH / ".cache")
                otf2 += [made] if made else []
        otf2 += [pathlib.Path(a).resolve() for a in args.otf2_archive]
        no_print = None if tools["otf2-print"][:1].isdigit() else tools["otf2-print"]
        for p in present(otf2):
            # pipit takes the archive's directory, the others its anchor file
            label = str(p.parent.relative_to(corpus)) if p.is_relative_to(corpus) else f"synthetic {p.parent.name}"
            add("OTF2", label, p, [("Macroscope ms.read", "ms_read")],
                [("otf2-print > /dev/null", (["otf2-print", str(p)], otf2_counts, "all"), no_print),
                 ("otf2-print --silent", (["otf2-print", "--silent", str(p)], None, "quiet"), no_print),
                 ("pipit Trace.from_otf2", "pipit_otf2", no_pipit or no_otf2_py)],
                [("macroscope dump --format otf2 > /dev/null", ["dump", "--format", "otf2", str(p)], "all"),
                 ("macroscope dump --format otf2 -q", ["dump", "--format", "otf2", "-q", str(p)], "quiet")])
            next(j for j in reversed(jobs) if j.child == "pipit_otf2").path = p.parent
    if "paje" in args.formats:
        no_pj = None if tools["pj_dump"][:1].isdigit() else tools["pj_dump"]
        for size in args.sizes:
            p = synthetic_paje(ms_py, size, BENCH / ".cache")
            add("Pajé (synthetic)", f"{p.name}", p,
                [("Macroscope ms.read", "ms_read"), ("Macroscope ms.read_micro", "ms_read_micro")],
                [("pj_dump -q", (["pj_dump", "-q", str(p)], None, "quiet"), no_pj),
                 ("pj_dump > /dev/null", (["pj_dump", str(p)], pjdump_counts, "all"), no_pj)],
                [("macroscope dump -q", ["dump", "-q", str(p)], "quiet"),
                 ("macroscope dump > /dev/null", ["dump", str(p)], "all")])
    return jobs


# The report ---------------------------------------------------------------------------

def headline(job):
    """The count shown beside the times: what the tool found, in its words."""
    c = job.count or {}
    if job.ours and c:
        parts = [f"{c[k]:,} {k}" for k in ("states", "links", "events") if c.get(k)]
        return ", ".join(parts) or "-"
    if "Enter" in c:
        return f"{c['Enter']:,} Enter"
    if "ph X" in c:
        return f"{c['rows']:,} rows ({c['ph X']:,} ph X)"
    if "rows" in c:
        return f"{c['rows']:,} rows"
    d = job.detail or {}
    if "ENTER" in d:
        return f"{d['ENTER']:,} ENTER"
    if "State" in d:       # pj_dump's CSV, from pj_dump or from macroscope dump
        return ", ".join(f"{d[k]:,} {k}" for k in ("State", "Link", "Event") if d.get(k)) or "-"
    return "-"


def table(jobs):
    lines = ["| format | input | size | tool | counted | read min (s) | read median (s) | process median (s) "
             "| peak RSS (MB) | read: peer / ms.read | process: peer / ours | RSS: peer / ours |",
             "|---|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    refs = {(j.group, j.input): j for j in jobs if j.reference}
    pairs = {(j.group, j.input, j.pair): j for j in jobs if j.ours and j.pair}

    def med(job, i):
        return statistics.median(r[i] for r in job.runs)

    def usable(job):
        return job is not None and job.runs and not job.failed

    for j in jobs:
        size = human(size_of(j.path))
        head = f"| {j.group} | {j.input} | {size} | {j.tool} |"
        if j.failed or not j.runs:
            why = j.failed or "not run yet"
            word = "" if why.startswith(("not ", "failed", "stopped", "timed out")) else "failed: "
            lines.append(f"{head} {word}{why.replace('|', '/')} | | | | | | | |")
            continue
        reads = [r[0] for r in j.runs]
        rss = med(j, 2)
        read_ratio = proc_ratio = rss_ratio = ""
        ref = refs.get((j.group, j.input))
        if not j.ours:
            if usable(ref):
                read_ratio = f"{med(j, 0) / med(ref, 0):.2f}x"
            # a command against our command doing the same work, else against ms.read
            same = pairs.get((j.group, j.input, j.pair)) if j.pair else ref
            if usable(same):
                proc_ratio = f"{med(j, 1) / med(same, 1):.2f}x"
                rss_ratio = f"{rss / med(same, 2):.2f}x"
        lines.append(f"{head} {headline(j)} | {min(reads):.3f} | {statistics.median(reads):.3f} "
                     f"| {med(j, 1):.3f} | {rss / 1e6:.0f} | {read_ratio} | {proc_ratio} | {rss_ratio} |")
    return lines


def details(jobs):
    lines = []
    for j in jobs:
        if j.detail and not j.failed:
            lines.append(f"- {j.group}, {j.input}, {j.tool}: `{json.dumps(j.detail, sort_keys=False)}`")
    return lines


def skip_larger(job, jobs):
    """A tool stopped past the memory limit, or past the timeout, on an
    input is not run on a larger input of the same format: it would only
    be stopped again, after taking the machine's memory or time for
    nothing. Its row says so."""
    size = size_of(job.path)
    for other in jobs:
        if other is job or other.group != job.group or other.tool != job.tool or size_of(other.path) >= size:
            continue
        if other.failed and other.failed.startswith(("stopped:", "timed out")):
            word = "over the memory limit" if other.failed.startswith("stopped:") else "past the timeout"
            job.failed = f"not run: {word} already on {other.input} ({other.failed})"
            return
        # a Python tool's memory grows with its input: a tool that took
        # more than a tenth of the limit on an input at least 5x smaller
        # is not run when its memory, scaled by the sizes, is over it
        if MAX_RSS and other.runs and job.child and size >= 5 * size_of(other.path):
            rss = max(r[2] for r in other.runs)
            expect = rss * size / size_of(other.path)
            if rss > MAX_RSS / 10 and expect > MAX_RSS:
                job.failed = (f"not run: {rss / 1e9:.2f} GB resident on {other.input} predicts ~{expect / 1e9:.0f} GB "
                              f"here, over the limit (--max-rss {MAX_RSS / 1e9:g} GB)")
                return


def write_report(path, text, section=""):
    """Write the report into path between the markers of its section,
    keeping what the file holds around them (notes, other benchmarks'
    sections, the reports of other sections). A file without the markers:
    its first section (up to the first "## " heading) is taken as an
    earlier report and replaced; another section is added at the end."""
    name = f" {section}" if section else ""
    begin, end = f"<!-- bench/compare.py{name}: begin -->", f"<!-- bench/compare.py{name}: end -->"
    block = f"{begin}\n{text}{end}\n"
    old = path.read_text() if path.exists() else ""
    if begin in old and end in old:
        head, rest = old.split(begin, 1)
        tail = rest.split(end, 1)[1].lstrip("\n")
        new = head + block + ("\n" + tail if tail else "")
    elif section and old:
        new = old.rstrip("\n") + "\n\n" + block
    elif old.startswith("# Macroscope against the peers' readers"):
        cut = old.find("\n## ")
        new = block + ("\n" + old[cut + 1:] if cut >= 0 else "")
    else:
        new = block + ("\n" + old if old else "")
    path.write_text(new)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5, help="timed runs of each tool on each input (default 5)")
    ap.add_argument("--sizes", default="20MB",
                    help="sizes of the synthetic Pajé and Kineto traces, e.g. 150MB,1.5GB")
    ap.add_argument("--formats", default=",".join(FORMATS), help=f"among {','.join(FORMATS)}")
    ap.add_argument("--otf2-events", type=int, default=200_000,
                    help="Enter and Leave records of a synthetic OTF2 archive (0: none)")
    ap.add_argument("--kineto-files", type=int, default=2, help="the N largest Kineto traces of HTA's tests")
    ap.add_argument("--corpus", default=str(REPO.parent / "shared" / "traces"), help="the trace corpus")
    ap.add_argument("--peers-venv", default=str(BENCH / ".peers-venv"), help="the peers' virtual environment")
    ap.add_argument("--pipit-src", default=os.environ.get("PIPIT_SRC"),
                    help="a source tree of hpcgroup/pipit (the directory holding pipit/), put on the "
                         "peers' PYTHONPATH (default $PIPIT_SRC)")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds before a run is killed")
    ap.add_argument("--max-rss", default="8GB",
                    help="resident memory of a run (its whole process group) past which it is stopped and "
                         "reported as such (default 8GB; 0: no limit)")
    ap.add_argument("--otf2-archive", action="append", default=[],
                    help="an OTF2 archive (its anchor file) already written, e.g. by bench/otf2_synth.py, "
                         "measured beside the corpus's (repeatable)")
    ap.add_argument("--no-install", action="store_true", help="install nothing (no venv, pip or apt-get)")
    ap.add_argument("--no-check", action="store_true", help="skip the untimed runs that count by type")
    ap.add_argument("--out", help="also write the report (Markdown) to this file, replacing the earlier "
                                  "report of the same --section there and keeping the rest")
    ap.add_argument("--pause-file", help="while this file exists, wait before the next run (to let "
                                         "another measurement have the machine)")
    ap.add_argument("--section", default="", help="the report's name in --out (default: the main one)")
    args = ap.parse_args()
    args.formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    unknown = set(args.formats) - set(FORMATS)
    if unknown:
        ap.error(f"unknown formats {sorted(unknown)} (among {', '.join(FORMATS)})")
    args.sizes = [parse_size(s) for s in args.sizes.split(",") if s.strip()]
    global MAX_RSS
    MAX_RSS = parse_size(args.max_rss) or None
    for anchor in args.otf2_archive:
        if not pathlib.Path(anchor).is_file():
            ap.error(f"--otf2-archive {anchor}: no such file")
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    if args.pipit_src:
        args.pipit_src = pathlib.Path(args.pipit_src).resolve()
        if not (args.pipit_src / "pipit" / "trace.py").exists():
            ap.error(f"--pipit-src {args.pipit_src}: no pipit/trace.py there")
    corpus = pathlib.Path(args.corpus)

    ms_py, ms_version = ours_python()
    peer_py, peers = peers_venv(pathlib.Path(args.peers_venv), not args.no_install)
    tools = debian_tools(not args.no_install)
    go_cmd = go_command() if {"otf2", "paje"} & set(args.formats) else (None, None)
    jobs = plan(args, ms_py, peer_py, peers, tools, go_cmd, corpus)
    live = [j for j in jobs if not j.failed]

    clock = time.perf_counter()
    load_before = os.getloadavg()
    loads = []       # at the start of each round
    started = datetime.datetime.now(datetime.timezone.utc)
    pipit_word = peers.get("pipit", "")
    if args.pipit_src:
        pipit_word = f"source tree {args.pipit_src}"

    def report(rounds_done):
        """The report after rounds_done rounds: written after each round, so
        that a run stopped early leaves what it measured."""
        now = os.getloadavg()
        state = "" if rounds_done == args.rounds else f" (partial: {rounds_done} of them done, round {rounds_done + 1} under way)"
        out = [
            f"# Macroscope against the peers' readers" if not args.section else f"## {args.section}",
            "",
            f"- date: {started:%Y-%m-%d %H:%M} UTC, {args.rounds} interleaved rounds{state}, "
            f"{time.perf_counter() - clock:.0f} s in all",
            f"- command: `python bench/compare.py {' '.join(sys.argv[1:])}`",
            f"- machine: {_machine.describe()}",
            f"- memory limit of a run: {f'{MAX_RSS / 1e9:g} GB resident (its process group)' if MAX_RSS else 'none'}; "
            f"timeout {args.timeout:.0f} s",
            f"- load average (1, 5, 15 min): before {', '.join(f'{x:.1f}' for x in load_before)}; "
            f"after {', '.join(f'{x:.1f}' for x in now)}; 1-min load at the start of each round: "
            f"{', '.join(f'{x:.1f}' for x in loads) or '-'}",
            f"- Macroscope {ms_version}; pipit: {pipit_word}; HTA: {peers.get('HolisticTraceAnalysis')}; "
            f"otf2 (Python): {peers.get('otf2')}; otf2-tools: {tools['otf2-print']}; pajeng: {tools['pj_dump']}; "
            f"Python {platform.python_version()}",
            "",
            "Times are wall-clock seconds, medians and minima over the rounds. \"read\": the reading call "
            "alone, after the imports (for command-line tools, the whole process, whose start-up is "
            "milliseconds); \"process\": the whole process, interpreter start-up and imports included. "
            "Peak RSS: the process's maximum resident set (median over the rounds). Ratios are the peer's "
            "median over ours on the same input, above 1 when Macroscope is faster or smaller: \"read\" "
            "against ms.read's read; \"process\" and RSS against ms.read for the Python peers, and for "
            "the command-line peers against our command doing the same work (`macroscope dump -q` for "
            "`pj_dump -q` and `otf2-print --silent`, `macroscope dump` for the full dumps).",
            "",
            *table(jobs),
        ]
        extra = details(jobs)
        if extra:
            out += ["", "Counts by kind (one untimed run of each tool):", "", *extra]
        text = "\n".join(out) + "\n"
        if args.out:
            write_report(pathlib.Path(args.out), text, args.section)
        return text

    if not args.no_check:
        log(f"counting ({len(live)} untimed runs)")
        for j in live:
            measure(j, args.timeout, mode="check")
    for r in range(args.rounds):
        order = [j for j in live[r % len(live):] + live[: r % len(live)]] if live else []
        loads.append(os.getloadavg()[0])
        log(f"round {r + 1}/{args.rounds} (load {loads[-1]:.1f})")
        for j in order:
            if not j.failed:
                skip_larger(j, jobs)
            if not j.failed:
                while args.pause_file and os.path.exists(args.pause_file):
                    time.sleep(5)   # another measurement has the machine
                measure(j, args.timeout)
                log(f"  {j.group}, {j.input}, {j.tool}: "
                    f"{j.failed or f'{j.runs[-1][0]:.2f} s, {j.runs[-1][2] / 1e6:.0f} MB'}")
                if r + 1 < args.rounds or j is not order[-1]:
                    report(r)   # what is measured so far, should the run be stopped
    sys.stdout.write(report(args.rounds))


if __name__ == "__main__":
    main()
