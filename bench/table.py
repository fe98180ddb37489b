"""The readers' performance table, regenerated in one run: every reader on
a generated file and on the corpus's largest real file of its format,
beside its peer measured in the same run, and beside the page cache.

    python bench/table.py [--large] [--rounds 3] [--formats paje,otf2,...]
                          [--readme README.md] [--results bench/RESULTS.md] [--no-write]

(`make bench-table`). For each format (Pajé, pj_dump CSV, OTF2, Paraver,
Chrome/Kineto JSON, Nsight Systems SQLite, rocprof, Perfetto protobuf,
HPCToolkit, Go execution traces) two inputs: one generated of about 150 MB
(1.5 GB with --large; written once into bench/.cache/table and reused) and
the corpus's largest file the reader models (../shared/traces). On each,
in its own process:

  Macroscope  bench/traceread -sink count: the reader, every record decoded
              and streamed into a sink that counts (the whole process; Go
              starts in milliseconds)
  peers       pj_dump -q and pj_dump > /dev/null (Pajé); otf2-print --silent
              and otf2-print > /dev/null, pipit's Trace.from_otf2 (OTF2);
              HTA's parse_trace_dataframe (Kineto); pipit's
              from_nsight_sqlite (Nsight) and from_hpctoolkit (HPCToolkit),
              the reading call timed inside the process after its imports
              (bench/compare_child.py); the Go project's own trace parser,
              every event read and none kept (bench/gotraceparse, Go traces)
  floor       cat FILE... > /dev/null: the file's bytes read from the page
              cache (the file is read once before the rounds)

The runs alternate: each round runs every tool on every input once, one
place further along the list each round, so a change of the machine's load
hits all alike; --rounds rounds. Per tool: the best
and the median wall-clock time, the median CPU time (user + system, every
thread; the fair figure on a loaded machine), the largest peak RSS, and MB/s
per core = the input's bytes / the median CPU seconds. A peer's row says
how many times Macroscope's time its own is: its median CPU over ours, and
its best and median wall over ours. Macroscope's row says how many times
the page cache's its time is: its median CPU over cat's, and its best wall
over cat's. A tool that is missing, fails, or goes past --timeout or
--max-rss is reported in its row, never stops the run; a Python peer
predicted (from its memory on a smaller input) to pass --max-rss is not run.

The report goes to bench/RESULTS.md, between the markers
<!-- bench-table:start --> and <!-- bench-table:end --> (added at the end
of the file when absent), with the machine (bench/_machine.py), the load
at the start of each round, and the tools' versions; and the README's
readers table, one row per format and input, is rewritten between the same
markers (the rest of the README is kept as it is). The peers come from
bench/compare.py's installation (bench/.peers-venv, Debian's otf2-tools and
pajeng); pipit from a source tree given with --pipit-src (PIPIT_SRC).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import time

import _machine
import _runs
import _synthetic
import compare

BENCH = pathlib.Path(__file__).resolve().parent
REPO = BENCH.parent
CACHE = BENCH / ".cache" / "table"
LAST = CACHE / "last-run.json"
START, END = "<!-- bench-table:start -->", "<!-- bench-table:end -->"


# What is measured -------------------------------------------------------------

@dataclasses.dataclass
class Run:
    wall: float
    cpu: float
    rss: int


@dataclasses.dataclass
class Tool:
    """One tool on one input."""
    label: str
    kind: str                       # "ours", "peer" or "floor"
    command: list | None = None     # a command line, timed whole
    child: str | None = None        # or a tool of compare_child.py, timed inside
    python: str | None = None
    env: dict | None = None
    path_arg: object = None         # what the child reads (an OTF2 archive's directory for pipit)
    failed: str | None = None
    runs: list = dataclasses.field(default_factory=list)
    found: str = ""                 # what the tool read (ours: states, links...)

    def cpu(self):
        return statistics.median(r.cpu for r in self.runs)

    def walls(self):
        return _runs.best_median(r.wall for r in self.runs)

    def rss(self):
        return max(r.rss for r in self.runs)

    def usable(self):
        return bool(self.runs) and not self.failed


@dataclasses.dataclass
class Input:
    format: str                     # the format's label
    origin: str                     # "generated" or "corpus"
    path: pathlib.Path | None
    name: str
    size: int = 0
    tools: list = dataclasses.field(default_factory=list)
    missing: str | None = None      # why there is no such input


# Reading the runs ---------------------------------------------------------------

def measure(tool, timeout, max_rss):
    """Run tool once and append its Run (or mark it failed)."""
    if tool.command is not None:
        r = _runs.run(tool.command, timeout=timeout, max_rss=max_rss, keep_stdout=tool.kind == "ours")
        if r.code != 0:
            tool.failed = _runs.reason(r.err, r.code)
            return
        if tool.kind == "ours" and not tool.found:
            tool.found = found(json.loads(r.out.strip().splitlines()[-1]))
        tool.runs.append(Run(r.wall, r.cpu, r.rss))
        return
    cmd = [tool.python, str(BENCH / "compare_child.py"), tool.child, "time", str(tool.path_arg)]
    r = _runs.run(cmd, env=tool.env, timeout=timeout, max_rss=max_rss)
    try:
        result = json.loads(r.out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        result = {"error": _runs.reason(r.err, r.code)}
    if r.code != 0 or "error" in result:
        tool.failed = result.get("error") or _runs.reason(r.err, r.code)
        return
    tool.runs.append(Run(result["seconds"], result["cpu"], r.rss))
    count = result.get("count") or {}
    if not tool.found and count:
        tool.found = ", ".join(f"{v:,} {k}" for k, v in count.items() if isinstance(v, int))


def found(result):
    """What traceread read, in a few words."""
    parts = [f"{result[k]:,} {k}" for k in ("states", "links", "events", "variables") if result.get(k)]
    return ", ".join(parts) or "nothing modelled"


# Rendering ----------------------------------------------------------------------

def ratio(x):
    """A ratio as the table writes it: 2 significant digits below 10."""
    if x >= 100:
        return f"{x:,.0f}x"
    if x >= 10:
        return f"{x:.0f}x"
    return f"{x:.2g}x" if x < 1 else f"{x:.1f}x"


def human(n):
    return compare.human(n)


def secs(s):
    return f"{s:.3f}" if s < 10 else f"{s:.1f}"


def ours_of(inp):
    return next((t for t in inp.tools if t.kind == "ours"), None)


def floor_of(inp):
    return next((t for t in inp.tools if t.kind == "floor"), None)


def results_rows(inputs):
    """bench/RESULTS.md's table: a row per tool and input."""
    lines = ["| format | input | size | tool | read | wall best / median (s) | CPU median (s) | peak RSS (MB) "
             "| MB/s per core | peer / Macroscope: CPU (wall best, median) | / page cache: CPU (wall best) |",
             "|---|---|---:|---|---|---:|---:|---:|---:|---:|---:|"]
    for inp in inputs:
        head = f"| {inp.format} | {inp.origin}: {inp.name} |"
        if inp.missing:
            lines.append(f"{head} | | {inp.missing} | | | | | | |")
            continue
        ours, floor = ours_of(inp), floor_of(inp)
        for t in inp.tools:
            row = f"{head} {human(inp.size)} | {t.label} |"
            if not t.usable():
                why = (t.failed or "not run").replace("|", "/")
                lines.append(f"{row} {why} | | | | | | |")
                continue
            best, med = t.walls()
            vs_peer = vs_floor = ""
            if t.kind == "peer" and ours and ours.usable():
                ob, om = ours.walls()
                vs_peer = f"{ratio(t.cpu() / ours.cpu())} ({ratio(best / ob)}, {ratio(med / om)})"
            if t.kind == "ours" and floor and floor.usable():
                vs_floor = f"{ratio(t.cpu() / floor.cpu())} ({ratio(best / floor.walls()[0])})"
            mbs = inp.size / t.cpu() / 1e6 if t.cpu() > 0 else float("inf")
            lines.append(f"{row} {t.found} | {secs(best)} / {secs(med)} | {secs(t.cpu())} | {t.rss() / 1e6:,.0f} "
                         f"| {mbs:,.0f} | {vs_peer} | {vs_floor} |")
    return lines


def readme_rows(inputs):
    """The README's table: a row per format and input, Macroscope's figures
    and each peer's ratio."""
    lines = ["| format | input | Macroscope: MB/s per core (CPU s; wall best s) | x page cache (CPU) "
             "| peer: CPU s | Macroscope faster by (CPU; wall median) |",
             "|---|---|---:|---:|---|---|"]
    for inp in inputs:
        label = f"{inp.origin}, {inp.name}" + (f", {human(inp.size)}" if inp.size else "")
        if inp.missing:
            lines.append(f"| {inp.format} | {inp.origin}: {inp.missing} | | | | |")
            continue
        ours, floor = ours_of(inp), floor_of(inp)
        if not ours or not ours.usable():
            lines.append(f"| {inp.format} | {label} | {(ours.failed if ours else 'not run') or 'not run'} | | | |")
            continue
        mbs = inp.size / ours.cpu() / 1e6
        main = f"{mbs:,.0f} ({secs(ours.cpu())}; {secs(ours.walls()[0])})"
        cache = ratio(ours.cpu() / floor.cpu()) if floor and floor.usable() and floor.cpu() > 0 else ""
        peers, ratios = [], []
        for t in inp.tools:
            if t.kind != "peer":
                continue
            if not t.usable():
                peers.append(f"{t.label}: {short(t.failed)}")
                continue
            peers.append(f"{t.label} {secs(t.cpu())}")
            ratios.append(f"{ratio(t.cpu() / ours.cpu())}; {ratio(t.walls()[1] / ours.walls()[1])}")
        lines.append(f"| {inp.format} | {label} | {main} | {cache} | {'<br>'.join(peers) or 'none'} "
                     f"| {'<br>'.join(ratios)} |")
    return lines


def short(why):
    """A failure's reason, short enough for the README."""
    why = (why or "not run").replace("|", "/")
    return why if len(why) <= 80 else why[:77] + "..."


def replace_between(text, block, start=START, end=END):
    """text with what lies between the markers start and end replaced by
    block (the markers kept); text with block and its markers added at the
    end when it has no markers. Anything outside the markers is kept."""
    inner = f"{start}\n{block.rstrip()}\n{end}"
    if start in text and end in text.split(start, 1)[1]:
        head, rest = text.split(start, 1)
        tail = rest.split(end, 1)[1]
        return head + inner + tail
    if start in text or end in text:
        raise ValueError(f"one of the markers {start} and {end} without the other")
    return text.rstrip("\n") + ("\n\n" if text.strip() else "") + inner + "\n"


# The formats ------------------------------------------------------------------------

@dataclasses.dataclass
class Spec:
    key: str
    label: str
    reader: str                      # traceread -format ("" : detected)
    corpus: tuple                    # globs under the corpus: the largest match is read
    generate: object = None          # generate(ctx, size) -> path, or a string saying why not


def _largest(corpus, globs):
    # an HPCToolkit database is the directory of its meta.db
    found = [p.parent if p.name == "meta.db" else p for g in globs for p in corpus.glob(g)]
    if not found:
        return None
    return max(found, key=lambda p: (compare.size_of(p), str(p)))


class Context:
    """The tools built and found, and the options, shared by the generators
    and the peers."""

    def __init__(self, args):
        self.args = args
        self.bin = CACHE / "bin"

    def build(self):
        self.bin.mkdir(parents=True, exist_ok=True)
        compare.log("go build ./bench/traceread ./bench/gotraceparse ./bench/gotracegen ./cmd/macroscope")
        subprocess.run(["go", "build", "-o", str(self.bin) + "/", "./bench/traceread", "./bench/gotraceparse",
                        "./bench/gotracegen", "./cmd/macroscope"], cwd=REPO, check=True)

    def exe(self, name):
        return str(self.bin / name)


def gen_paje(ctx, size):
    path = CACHE / f"paje-{size / 1e6:g}MB.trace"
    if not path.exists():
        per = _bytes_per_event(ctx, "paje")
        _synth(ctx, int(size / per), path)
    return path


def gen_pjdump(ctx, size):
    path = CACHE / f"pjdump-{size / 1e6:g}MB.csv"
    if not path.exists():
        per = _bytes_per_event(ctx, "pjdump")
        source = CACHE / f"pjdump-{size / 1e6:g}MB.source.trace"
        _synth(ctx, int(size / per), source)
        compare.log(f"writing {path.name}")
        with open(str(path) + ".part", "wb") as out:
            subprocess.run([ctx.exe("macroscope"), "dump", str(source)], stdout=out, check=True)
        os.replace(str(path) + ".part", path)
        source.unlink()
    return path


def _synth(ctx, events, path):
    compare.log(f"writing {path.name} ({events:,} events)")
    subprocess.run([ctx.exe("macroscope"), "synth", "-events", str(events), "-seed", "1", str(path) + ".part.trace"],
                   check=True, stdout=subprocess.DEVNULL)
    os.replace(str(path) + ".part.trace", path)


def _bytes_per_event(ctx, form):
    """Bytes per event of a synthetic Pajé trace (or of its pj_dump CSV),
    from a probe of 200,000 events: they hardly vary with the size."""
    probe = CACHE / "probe.trace"
    _synth(ctx, 200_000, probe)
    if form == "paje":
        n = probe.stat().st_size
    else:
        n = len(subprocess.run([ctx.exe("macroscope"), "dump", str(probe)], capture_output=True, check=True).stdout)
    probe.unlink()
    return n / 200_000


def gen_otf2(ctx, size):
    if not ctx.peer_py or not ctx.peers.get("otf2", "")[:1].isdigit():
        return "no generator: bench/otf2_synth.py needs the otf2 package (bench/.peers-venv)"
    # 190 MB for 16 M Enter and Leave records (bench/RESULTS.md)
    made = compare.synthetic_otf2(ctx.peer_py, int(size / 11.9), CACHE)
    return made or "bench/otf2_synth.py failed (see above)"


def gen_kineto(ctx, size):
    return compare.synthetic_kineto(size, CACHE)


def gen_paraver(ctx, size):
    path = CACHE / f"paraver-{size / 1e6:g}MB.prv"
    return path if path.exists() else _synthetic.paraver(path, size)


def gen_perfetto(ctx, size):
    path = CACHE / f"perfetto-{size / 1e6:g}MB.perfetto-trace"
    return path if path.exists() else _synthetic.perfetto(path, size)


def gen_nsys(ctx, size):
    path = CACHE / f"nsys-{size / 1e6:g}MB.sqlite"
    source = ctx.args.corpus / "nsys" / "mfu_2gpu_before.sqlite"
    if path.exists():
        return path
    if not source.exists():
        return f"no generator: {source} (repeated in time) is missing"
    compare.log(f"writing {path.name}")
    return _synthetic.nsys_tiled(source, path, size)


def gen_rocprof(ctx, size):
    path = CACHE / f"rocprof-{size / 1e6:g}MB_kernel_trace.csv"
    source = ctx.args.corpus / "rocprof" / "rocprofv3-csv" / "prefill_kernel_trace.csv"
    if path.exists():
        return path
    if not source.exists():
        return f"no generator: {source} (repeated in time) is missing"
    compare.log(f"writing {path.name}")
    return _synthetic.csv_tiled(source, path, size)


def gen_hpctoolkit(ctx, size):
    path = CACHE / f"hpctoolkit-{size / 1e6:g}MB"
    source = ctx.args.corpus / "hpctoolkit-db" / "issue-233-lulesh"
    if path.exists():
        return path
    if not (source / "trace.db").exists():
        return f"no generator: {source} (repeated in time) is missing"
    compare.log(f"writing {path.name}")
    return _synthetic.hpctoolkit_tiled(source, path, size)


def gen_gotrace(ctx, size):
    path = CACHE / f"gotrace-{size / 1e6:g}MB.trace"
    if not path.exists():
        compare.log(f"writing {path.name}")
        subprocess.run([ctx.exe("gotracegen"), "-size", str(int(size)), str(path) + ".part"], check=True)
        os.replace(str(path) + ".part", path)
    return path


SPECS = (
    Spec("paje", "Pajé", "paje", ("pajeng/traces/*.trace", "simgrid/extracted/*.trace", "smpi-nas/*.trace"),
         gen_paje),
    Spec("pjdump", "pj_dump CSV", "pjdump", ("pajeng/oracles/*_pj_dump_*_trace.out",), gen_pjdump),
    Spec("otf2", "OTF2", "otf2", ("*/**/traces.otf2",), gen_otf2),
    Spec("paraver", "Paraver", "paraver", ("paraver*/**/*.prv",), gen_paraver),
    Spec("kineto", "Kineto JSON", "chrome", ("hta/tests/data/**/*.json.gz", "hta/tests/data/**/*.json"),
         gen_kineto),
    Spec("nsys", "Nsight Systems SQLite", "nsys", ("nsys/*.sqlite", "pipit/hist/data/**/*.sqlite"), gen_nsys),
    Spec("rocprof", "rocprof", "", ("rocprof/**/*.csv", "rocprof/**/*.json.gz", "rocprof/**/*.json",
                                     "rocprof/**/*.rpd"), gen_rocprof),
    # the winscope traces hold no track events (the reader models nothing of them)
    Spec("perfetto", "Perfetto protobuf", "perfetto", ("perfetto/perfetto/*.perfetto-trace",), gen_perfetto),
    Spec("hpctoolkit", "HPCToolkit", "hpctoolkit", ("hpctoolkit-db/*/meta.db", "pipit/tests/data/*-hpctoolkit/meta.db"),
         gen_hpctoolkit),
    Spec("gotrace", "Go execution trace", "gotrace", ("go-runtime/generated-go1.26/*.trace",), gen_gotrace),
)


def peers(ctx, spec, inp):
    """The peers of spec's reader on inp (Tool rows, unavailable ones
    marked failed with the reason)."""
    p, a = inp.path, ctx.args
    tools = []
    no_pj = None if shutil.which("pj_dump") else "not installed (Debian package pajeng)"
    no_print = None if shutil.which("otf2-print") else "not installed (Debian package otf2-tools)"

    def child(label, name, unavailable, path_arg=None, max_bytes=None, why=""):
        t = Tool(label, "peer", child=name, python=ctx.peer_py, env=ctx.peer_env, failed=unavailable)
        t.path_arg = path_arg or p
        if not t.failed and max_bytes and inp.size > max_bytes:
            t.failed = f"not run: {why}"
        tools.append(t)

    if spec.key == "paje":
        tools.append(Tool("pj_dump -q", "peer", ["pj_dump", "-q", str(p)], failed=no_pj))
        if not a.no_dump:
            tools.append(Tool("pj_dump > /dev/null", "peer", ["pj_dump", str(p)], failed=no_pj))
    elif spec.key == "otf2":
        tools.append(Tool("otf2-print --silent", "peer", ["otf2-print", "--silent", str(p)], failed=no_print))
        if not a.no_dump:
            tools.append(Tool("otf2-print > /dev/null", "peer", ["otf2-print", str(p)], failed=no_print))
        child("pipit Trace.from_otf2", "pipit_otf2", ctx.no_pipit, path_arg=p.parent, max_bytes=50e6,
              why="past 8 GB after 494 s on 190 MB (bench/RESULTS.md)")
    elif spec.key == "kineto":
        child("HTA parse_trace_dataframe", "hta_parse", ctx.no_hta, max_bytes=a.max_rss / 7,
              why="HTA takes about 7x the file in memory (1.06 GB on 150 MB), over --max-rss")
    elif spec.key == "nsys":
        child("pipit Trace.from_nsight_sqlite", "pipit_nsight_sqlite", ctx.no_pipit)
    elif spec.key == "hpctoolkit":
        child("pipit Trace.from_hpctoolkit", "pipit_hpctoolkit", ctx.no_pipit)
    elif spec.key == "gotrace":
        tools.append(Tool("Go's parser (x/exp/trace)", "peer", [ctx.exe("gotraceparse"), str(p)]))
    return tools


def files_of(path):
    """The files whose bytes an input is: the file, or every file of a
    directory (an HPCToolkit database) or of an OTF2 archive's directory."""
    base = path.parent if path.suffix == ".otf2" else path
    if base.is_dir():
        return sorted(q for q in base.rglob("*") if q.is_file())
    return [path]


def plan(ctx):
    """The inputs, each with its tools, for the formats asked for."""
    a = ctx.args
    size = 1.5e9 if a.large else a.size
    inputs = []
    for spec in SPECS:
        if spec.key not in a.formats:
            continue
        made = spec.generate(ctx, size) if spec.generate else "no generator of this format yet"
        if isinstance(made, str):
            inputs.append(Input(spec.label, "generated", None, "", missing=made))
        else:
            inputs.append(Input(spec.label, "generated", made, str(made.relative_to(CACHE))))
        real = _largest(a.corpus, spec.corpus)
        if real is None:
            inputs.append(Input(spec.label, "corpus", None, "", missing=f"not found under {a.corpus}"))
        else:
            inputs.append(Input(spec.label, "corpus", real, str(real.relative_to(a.corpus))))
        for inp in inputs[-2:]:
            if inp.missing:
                continue
            inp.size = sum(q.stat().st_size for q in files_of(inp.path))
            inp.tools.append(Tool("Macroscope", "ours", [ctx.exe("traceread"), "-format", spec.reader,
                                                         "-sink", a.sink, str(inp.path)]))
            inp.tools += peers(ctx, spec, inp)
            inp.tools.append(Tool("cat > /dev/null", "floor", ["cat", *map(str, files_of(inp.path))]))
    return inputs


# The run --------------------------------------------------------------------------

def report(ctx, inputs, started, loads, rounds_done, clock):
    a = ctx.args
    state = "" if rounds_done == a.rounds else f" (partial: {rounds_done} of them done)"
    # PyPI's pipit is an empty placeholder: the one measured is the source tree's
    peers_word = ", ".join(f"{k} {v}" for k, v in ctx.peers.items() if k != "pipit")
    head = [
        "## Readers against their peers and the page cache (`make bench-table`)",
        "",
        f"- date: {started:%Y-%m-%d %H:%M} UTC, {a.rounds} alternated rounds{state}, "
        f"{time.perf_counter() - clock:.0f} s in all",
        f"- command: `python bench/table.py {' '.join(sys.argv[1:])}`",
        f"- machine: {_machine.describe()}",
        f"- 1-min load average at the start of each round: {', '.join(f'{x:.1f}' for x in loads) or '-'}",
        f"- Macroscope: bench/traceread -sink {a.sink} at {ctx.commit}; peers: {peers_word}; "
        f"pipit: {ctx.pipit_word}; otf2-tools {ctx.debian['otf2-print']}; pajeng {ctx.debian['pj_dump']}; "
        f"{ctx.go_version}",
        "",
        "CPU: user + system seconds, the median over the rounds (whole process for command-line tools and "
        "Macroscope; the reading call alone, after the imports, for the Python peers). MB/s per core: the "
        "input's bytes over that CPU time. \"peer / Macroscope\": how many times Macroscope's time the "
        "peer's is, by CPU (by best and median wall). \"/ page cache\": how many times `cat` of the same "
        "bytes from the page cache Macroscope's time is. Generated inputs: bench/table.py's generators "
        "(bench/_synthetic.py, `macroscope synth`, bench/otf2_synth.py, bench/gotracegen); corpus: "
        "the largest file of the format in ../shared/traces that the reader models.",
        "",
    ]
    results = "\n".join(head + results_rows(inputs)) + "\n"
    readme = "\n".join([
        f"Readers, one run of `make bench-table` ({started:%Y-%m-%d}, {a.rounds} alternated rounds, "
        f"1-min load {min(loads, default=0):.1f}-{max(loads, default=0):.1f}: CPU time is the fair figure; "
        f"{_machine.cpu_model()}, {os.cpu_count()} cores; full table in `bench/RESULTS.md`). "
        "Macroscope: the reader streaming every record into a counting sink (`bench/traceread`), "
        "whole process; MB/s per core = bytes / median CPU s; x page cache = its CPU time over `cat`'s "
        "of the same bytes; peers in the same run, alternated:",
        "",
        *readme_rows(inputs),
    ]) + "\n"
    return results, readme


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--large", action="store_true", help="generated inputs of 1.5 GB instead of 150 MB")
    ap.add_argument("--size", type=compare.parse_size, default=150e6, help="size of the generated inputs (150MB)")
    ap.add_argument("--rounds", type=int, default=3, help="alternated runs of every tool on every input")
    ap.add_argument("--formats", default=",".join(s.key for s in SPECS))
    ap.add_argument("--sink", default="count", help="traceread's sink: count, stream, trace or micro")
    ap.add_argument("--no-dump", action="store_true", help="skip pj_dump's and otf2-print's full dumps")
    ap.add_argument("--corpus", type=pathlib.Path, default=REPO.parent / "shared" / "traces")
    ap.add_argument("--peers-venv", default=str(BENCH / ".peers-venv"))
    ap.add_argument("--pipit-src", default=os.environ.get("PIPIT_SRC"),
                    help="a source tree of hpcgroup/pipit (the directory holding pipit/)")
    ap.add_argument("--no-install", action="store_true", help="install no peer (pip, apt-get)")
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--max-rss", type=compare.parse_size, default=8e9)
    ap.add_argument("--results", type=pathlib.Path, default=BENCH / "RESULTS.md")
    ap.add_argument("--readme", type=pathlib.Path, default=REPO / "README.md")
    ap.add_argument("--no-write", action="store_true", help="print the tables, write no file")
    ap.add_argument("--again", action="store_true",
                    help="measure nothing: write the tables again from the last run's measurements "
                         f"({LAST.relative_to(REPO)})")
    args = ap.parse_args()
    args.formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    unknown = set(args.formats) - {s.key for s in SPECS}
    if unknown:
        ap.error(f"unknown formats {sorted(unknown)}")
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")

    if args.again:
        saved = json.loads(LAST.read_text())
        return write(args, *saved["tables"])
    ctx = Context(args)
    CACHE.mkdir(parents=True, exist_ok=True)
    ctx.build()
    ctx.peer_py, ctx.peers = compare.peers_venv(pathlib.Path(args.peers_venv), not args.no_install)
    ctx.debian = compare.debian_tools(not args.no_install)
    pipit_src = pathlib.Path(args.pipit_src).resolve() if args.pipit_src else None
    ctx.peer_env = compare.pipit_env(pipit_src)
    ctx.pipit_word = f"the source tree {pipit_src}" if pipit_src else "none (give --pipit-src)"
    ctx.no_pipit = None if pipit_src and ctx.peer_py else "not installed: give a source tree of hpcgroup/pipit (--pipit-src)"
    ctx.no_hta = None if ctx.peer_py and ctx.peers.get("HolisticTraceAnalysis", "")[:1].isdigit() else \
        f"not installed: HolisticTraceAnalysis {ctx.peers.get('HolisticTraceAnalysis')}"
    ctx.commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                                text=True).stdout.strip() or "?"
    ctx.go_version = subprocess.run(["go", "version"], capture_output=True, text=True).stdout.strip()

    inputs = plan(ctx)
    tools = [(inp, t) for inp in inputs for t in inp.tools if not t.failed]
    for inp in inputs:
        if inp.path is not None:
            subprocess.run(["cat", *map(str, files_of(inp.path))], stdout=subprocess.DEVNULL)  # into the page cache
    started = datetime.datetime.now(datetime.timezone.utc)
    clock = time.perf_counter()
    loads = []
    for r in range(args.rounds):
        loads.append(os.getloadavg()[0])
        compare.log(f"round {r + 1}/{args.rounds} (load {loads[-1]:.1f})")
        k = r % len(tools) if tools else 0
        for inp, t in tools[k:] + tools[:k]:
            if t.failed:
                continue
            measure(t, args.timeout, args.max_rss)
            last = t.failed or f"{t.runs[-1].wall:.2f} s, {t.runs[-1].cpu:.2f} s CPU, {t.runs[-1].rss / 1e6:.0f} MB"
            compare.log(f"  {inp.format}, {inp.origin}, {t.label}: {last}")
        tables = report(ctx, inputs, started, loads, r + 1, clock)
        LAST.write_text(json.dumps({"tables": tables}))   # should the run be stopped, what it measured
    write(args, *tables)


def write(args, results, readme):
    sys.stdout.write(results + "\n" + readme)
    if not args.no_write:
        args.results.write_text(replace_between(args.results.read_text() if args.results.exists() else "", results))
        args.readme.write_text(replace_between(args.readme.read_text(), readme))


if __name__ == "__main__":
    main()
