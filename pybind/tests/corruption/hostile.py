"""Hostile cases: files written to hurt and absurd arguments, each read or
called in a fresh Python process under the suite's time and memory limits
(see run.py), with the outcomes it must end in:

- SQLite schema attacks on Nsight Systems and RPD databases: views of
  endless or huge queries in place of tables, triggers, virtual tables,
  columns computed on read, strings and blobs of 20 MB, a write-ahead log
  and a hot journal (read with them applied), a FIFO in place of the log;
- companions: a FIFO, or a symbolic link to a file outside the directory
  named, in place of a file a trace is made of (OTF2 definitions and
  events, Paraver .pcf and .row, HPCToolkit traces and databases, a StarVZ
  part, a Pajé file given with paths=, a Parquet dataset's part): an error
  or the trace marked incomplete, never a hang, never the outside file's
  content in a message;
- bombs per codec and format: gzip, bzip2 and zstd streams of gigabytes,
  a JSON array of 40 million events, a name of a gigabyte, a CSV line of
  4 GiB, compressed packets inside compressed packets, each an error
  within seconds;
- absurd arguments: figures of 2^40 pixels, a height of a million, a
  negative height, a pj_dump precision of a million or below zero:
  InvalidArgumentError before any work.

Every case checks that the files it reads are not modified (their bytes
and times of modification, see run.py).
"""

from __future__ import annotations

import bz2
import gzip
import os
import shutil
import sqlite3
import subprocess
import zlib
from pathlib import Path

import cases as C

SECRET = b"SECRET-CONTENT-NOT-FOR-MESSAGES 1 2 3\n"

NSYS_TINY = C.REPO / "core" / "readers" / "nsys" / "testdata" / "tiny.sqlite"
JACOBI = C.REPO / "testdata" / "jacobi32.trace"

# The outcomes a case may end in (see run.classify).
ERROR = ("error",)
ERROR_OR_INCOMPLETE = ("error", "incomplete")
READ = ("read", "incomplete")


def _source(name, fmt, path):
    return C.Source(name, fmt, path)


def _case(src, kind, detail, damage, expect, timeout=60.0, code=""):
    return C.Case(src, kind, detail, damage, timeout=timeout, expect=expect, code=code)


# ---------------------------------------------------------------- SQLite

def _sqlite(base: Path, name: str, statements: list[str]):
    """A damage: a copy of the database base changed by statements (run by
    Python's sqlite3, which writes what a stranger's tool would)."""

    def damage(d: Path) -> Path:
        path = d / name
        shutil.copyfile(base, path)
        con = sqlite3.connect(path)
        for s in statements:
            con.execute(s)
        con.commit()
        con.close()
        return path

    return damage


def _sqlite_pending(base: Path, name: str, mode: str):
    """A damage: the database with changes not yet in its file, copied as
    a crash or a copy during a write leaves them: a write-ahead log with
    frames (mode "wal"), or a hot rollback journal ("journal")."""

    def damage(d: Path) -> Path:
        live_dir = d / "live"
        live_dir.mkdir()
        live = live_dir / name
        shutil.copyfile(base, live)
        con = sqlite3.connect(live, isolation_level=None)
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 'CUPTI%'")]
        if mode == "wal":
            con.execute("PRAGMA journal_mode=WAL")
            con.execute("PRAGMA wal_autocheckpoint=0")
            for t in tables:
                con.execute(f'DELETE FROM "{t}"')
        else:
            con.execute("PRAGMA journal_mode=DELETE")
            con.execute("PRAGMA cache_size=1")
            con.execute("BEGIN")
            for t in tables:
                con.execute(f'DELETE FROM "{t}"')
            con.execute("CREATE TABLE filler(x)")
            con.execute("INSERT INTO filler SELECT zeroblob(2000) FROM (WITH RECURSIVE c(i) AS "
                        "(SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < 300) SELECT i FROM c)")
        path = d / name
        for suffix in ("", "-wal", "-journal"):
            if (live_dir / (name + suffix)).exists():
                shutil.copyfile(live_dir / (name + suffix), d / (name + suffix))
        if mode != "wal":
            con.execute("ROLLBACK")
        con.close()
        shutil.rmtree(live_dir)
        return path

    return damage


def _fifo_beside(base: Path, name: str, suffix: str):
    def damage(d: Path) -> Path:
        path = d / name
        shutil.copyfile(base, path)
        os.mkfifo(str(path) + suffix)
        return path

    return damage


CUDA_STATES = "t = ms.read(path)\ncuda = int(t.states['type'].astype(str).str.startswith('CUDA').sum())\n"

RECURSIVE = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c)"
BILLION = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 1000000000)"


def sqlite_cases() -> list[C.Case]:
    src = _source("hostile-nsys", "nsys", NSYS_TINY)
    name = "tiny.sqlite"
    out = [
        _case(src, "sqlite", "StringIds-recursive-view", _sqlite(NSYS_TINY, name, [
            "DROP TABLE StringIds", f"CREATE VIEW StringIds AS {RECURSIVE} SELECT x AS id, 'v' AS value FROM c"]), ERROR),
        _case(src, "sqlite", "activity-view-billion-gigabyte-rows", _sqlite(NSYS_TINY, name, [
            "DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME",
            f"CREATE VIEW CUPTI_ACTIVITY_KIND_RUNTIME AS {BILLION} SELECT x AS start, x + 1 AS end, 1 AS globalTid, "
            "x AS correlationId, 1 AS nameId, randomblob(1000000000) AS name FROM c"]), ERROR),
        _case(src, "sqlite", "trigger", _sqlite(NSYS_TINY, name, [
            "CREATE TRIGGER t AFTER INSERT ON StringIds BEGIN DELETE FROM StringIds; END"]), READ),
        _case(src, "sqlite", "virtual-table", _sqlite(NSYS_TINY, name, [
            "DROP TABLE ThreadNames", "CREATE VIRTUAL TABLE ThreadNames USING fts5(globalTid, nameId)"]), ERROR),
        _case(src, "sqlite", "value-of-20MB", _sqlite(NSYS_TINY, name, [
            "UPDATE StringIds SET value = CAST(zeroblob(20000000) AS TEXT) WHERE id = (SELECT min(id) FROM StringIds)"]),
            ERROR),
        _case(src, "sqlite", "blob-of-20MB", _sqlite(NSYS_TINY, name, [
            "UPDATE StringIds SET value = randomblob(20000000) WHERE id = (SELECT min(id) FROM StringIds)"]), ERROR),
        _case(src, "sqlite", "computed-column", _sqlite(NSYS_TINY, name, [
            "ALTER TABLE StringIds RENAME TO S0",
            "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, raw TEXT, value AS (raw || printf('%.*c', 100000000, 'x')) VIRTUAL)",
            "INSERT INTO StringIds(id, raw) SELECT id, value FROM S0", "DROP TABLE S0"]), ERROR),
        # The log deletes the CUDA rows: read as SQLite reads it, none is
        # left (read without it, the file gives 14).
        _case(src, "sqlite", "write-ahead-log", _sqlite_pending(NSYS_TINY, name, "wal"), READ,
              code=CUDA_STATES + "assert cuda == 0, f'{cuda} CUDA states: the log was not applied'"),
        # The journal undoes a transaction that deleted them: all 14 are.
        _case(src, "sqlite", "hot-journal", _sqlite_pending(NSYS_TINY, name, "journal"), READ,
              code=CUDA_STATES + "assert cuda == 14, f'{cuda} CUDA states: the journal was not rolled back'"),
        _case(src, "sqlite", "fifo-log", _fifo_beside(NSYS_TINY, name, "-wal"), ERROR),
        _case(src, "sqlite", "fifo-journal", _fifo_beside(NSYS_TINY, name, "-journal"), ERROR),
    ]
    rpd = C.CORPUS / "rocprof" / "rpd" / "matmul_result.rpd"
    if rpd.exists():
        rsrc = _source("hostile-rpd", "rpd", rpd)
        out += [
            _case(rsrc, "sqlite", "rocpd_api-recursive-view", _sqlite(rpd, rpd.name, [
                "DROP VIEW IF EXISTS api", "DROP VIEW IF EXISTS top", "DROP VIEW IF EXISTS busy",
                "DROP TABLE rocpd_api",
                f"CREATE VIEW rocpd_api AS {RECURSIVE} SELECT x AS id, 1 AS pid, 1 AS tid, x AS start, x AS \"end\", "
                "1 AS apiName_id, 1 AS args_id FROM c"]), ERROR),
            _case(rsrc, "sqlite", "rocpd_string-of-17MB", _sqlite(rpd, rpd.name, [
                "UPDATE rocpd_string SET string = CAST(zeroblob(17000000) AS TEXT) WHERE id = (SELECT min(id) FROM rocpd_string)"]),
                ERROR),
        ]
    return out


# ------------------------------------------------------------ companions

def _companion(src_dir: Path, anchor: str, member: str, kind: str, code: str = ""):
    """A damage: a copy of the trace directory src_dir whose member is a
    FIFO (kind "fifo") or a link to a file outside the copy ("outside")."""

    def damage(d: Path) -> Path:
        root = d / src_dir.name
        shutil.copytree(src_dir, root)
        target = root / member
        if target.exists() or target.is_symlink():
            target.unlink()
        if kind == "fifo":
            os.mkfifo(target)
        else:
            secret = d.parent / f"secret-{d.name}"
            secret.write_bytes(SECRET * 4)
            target.symlink_to(secret)
        return root / anchor if anchor else root

    return damage


def _dataset(kind: str):
    """A damage: a Parquet dataset of the bundled trace, one of its state
    parts a FIFO or a link outside."""

    def damage(d: Path) -> Path:
        import macroscope as ms

        root = ms.to_parquet_dataset(ms.read(JACOBI), d / "ds")
        part = sorted((Path(root) / "states").rglob("*.parquet"))[0]
        part.unlink()
        if kind == "fifo":
            os.mkfifo(part)
        else:
            secret = d.parent / f"secret-{d.name}.parquet"
            secret.write_bytes(SECRET * 4)
            part.symlink_to(secret)
        return Path(root)

    return damage


def _paje_paths(kind: str):
    """A damage: the bundled Pajé trace and a second file, given with
    paths=, that is a FIFO or a link outside (the code reads both)."""

    def damage(d: Path) -> Path:
        path = d / "jacobi32.trace"
        shutil.copyfile(JACOBI, path)
        second = d / "second.trace"
        if kind == "fifo":
            os.mkfifo(second)
        else:
            secret = d.parent / f"secret-{d.name}"
            secret.write_bytes(SECRET * 4)
            second.symlink_to(secret)
        return path

    return damage


def companion_cases() -> list[C.Case]:
    out = []
    for kind in ("fifo", "outside"):
        ds = _source("hostile-dataset", "", JACOBI)
        out.append(_case(ds, "companion", f"dataset-part-{kind}", _dataset(kind), ERROR_OR_INCOMPLETE,
                         code="t = ms.read(path)"))
    # The further files of a Pajé trace are named by the user, like the
    # first (read_paje([a, b]): they may be anywhere): a FIFO is refused, a
    # link is the user's to follow.
    pj = _source("hostile-paje", "paje", JACOBI)
    out.append(_case(pj, "companion", "paje-paths-fifo", _paje_paths("fifo"), ERROR_OR_INCOMPLETE,
                     code="t = ms.read_paje([path, str(Path(path).parent / 'second.trace')])"))
    corpus = [
        ("otf2", C.CORPUS / "pipit" / "tests" / "data" / "ping-pong-otf2", "traces.otf2",
         ["traces.def", "traces/0.def", "traces/1.evt"]),
        ("paraver", C.CORPUS / "paraver" / "test" / "cutter", "qsort_beo3.prv", ["qsort_beo3.pcf"]),
        ("paraver", C.CORPUS / "paraver-folding" / "bt.B", "bt.B.models.prv", ["bt.B.models.row"]),
        ("hpctoolkit", C.CORPUS / "hpctoolkit-db" / "xml" / "vectorAdd", "",
         ["vectorAdd-000000-500-2a803c80-4067513-0.hpctrace", "experiment.xml"]),
        ("hpctoolkit", C.CORPUS / "hpctoolkit-db" / "vectorAdd", "", ["trace.db", "profile.db", "meta.db"]),
        ("pjdump", C.CORPUS / "starvz" / "extra_data" / "qr_trace", "", ["paje.worker_state.csv.gz"]),
    ]
    # qr_trace holds a row ending before it starts (paje.variable.csv.gz):
    # read strictly it fails there, whatever the part damaged, and the
    # case would show nothing of the part.
    code = {"pjdump": "t = ms.read(path, skip_inverted=True)"}
    for fmt, src_dir, anchor, members in corpus:
        if not src_dir.exists():
            continue
        src = _source(f"hostile-{fmt}-{src_dir.parent.name}-{src_dir.name}", fmt, src_dir)
        for member in members:
            for kind in ("fifo", "outside"):
                # A StarVZ directory holds other files (the corpus's
                # paraver directory too): read only the trace of the case.
                out.append(_case(src, "companion", f"{member.replace('/', '_')}-{kind}",
                                 _companion(src_dir, anchor, member, kind), ERROR_OR_INCOMPLETE + READ,
                                 code=code.get(fmt, "")))
    return out


# ----------------------------------------------------------------- bombs

UNIT = 64 << 20


def _members(compress, block: bytes, count: int, head: bytes = b"", tail: bytes = b"") -> bytes:
    """Concatenated compressed members: head, count times block, tail.
    Compressing a block once and repeating it keeps generation fast."""
    member = compress(block)
    return (compress(head) if head else b"") + member * count + (compress(tail) if tail else b"")


def _gzip(b: bytes) -> bytes:
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    return c.compress(b) + c.flush()


def _bz2(b: bytes) -> bytes:
    return bz2.compress(b, 9)


def _zstd(b: bytes) -> bytes:
    return subprocess.run(["zstd", "-q", "-19", "-c"], input=b, capture_output=True, check=True).stdout


CODECS = {"gzip": (_gzip, ".gz"), "bzip2": (_bz2, ".bz2"), "zstd": (_zstd, ".zst")}


def _bomb(name: str, codec: str, block: bytes, count: int, head: bytes = b"", tail: bytes = b""):
    compress, ext = CODECS[codec]

    def damage(d: Path) -> Path:
        path = d / (name + ext)
        path.write_bytes(_members(compress, block, count, head, tail))
        return path

    return damage


def _nested_perfetto(d: Path) -> Path:
    """A Perfetto trace whose compressed packets hold compressed packets,
    twenty levels deep, each level a few kilobytes."""

    def varint(n):
        out = bytearray()
        while True:
            b = n & 0x7F
            n >>= 7
            out.append(b | (0x80 if n else 0))
            if not n:
                return bytes(out)

    def field(num, payload):
        return varint(num << 3 | 2) + varint(len(payload)) + payload

    inner = field(1, varint(8 << 3) + varint(5))  # a packet with a timestamp
    for _ in range(20):
        inner = field(1, field(50, zlib.compress(inner * 64)))
    path = d / "nested.perfetto-trace"
    path.write_bytes(inner)
    return path


def bomb_cases() -> list[C.Case]:
    src = _source("hostile-bomb", "paje", JACOBI)
    out = []
    have_zstd = shutil.which("zstd") is not None
    for codec in CODECS:
        if codec == "zstd" and not have_zstd:
            continue
        n = 32  # 2 GiB
        out += [
            _case(_source("hostile-bomb", "paje", JACOBI), "bomb", f"paje-zeros-{codec}",
                  _bomb("zeros.trace", codec, bytes(UNIT), n), ERROR, timeout=120),
            _case(_source("hostile-bomb", "paraver", JACOBI), "bomb", f"paraver-records-{codec}",
                  _bomb("records.prv", codec, b"2:1:1:1:1:1000:1:1\n" * (UNIT // 19), n,
                        head=b"#Paraver (01/01/2024 at 00:00):100000_ns:1(1):1:1(1:1)\n"), ERROR + READ, timeout=120),
            _case(_source("hostile-bomb", "chrome", JACOBI), "bomb", f"chrome-name-of-a-gigabyte-{codec}",
                  _bomb("name.json", codec, b"a" * UNIT, 16,
                        head=b'[{"ph": "X", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "name": "', tail=b'"}]'),
                  ERROR, timeout=120),
            _case(_source("hostile-bomb", "rocprofv3-csv", JACOBI), "bomb", f"rocprof-csv-line-of-4GiB-{codec}",
                  _bomb("1_kernel_trace.csv", codec, b"x" * UNIT, 64,
                        head=b'"Kind","Agent_Id","Queue_Id","Kernel_Id","Kernel_Name","Correlation_Id",'
                             b'"Start_Timestamp","End_Timestamp"\n'), ERROR, timeout=120),
        ]
    event = b'{"ph": "X", "pid": 1, "tid": 7, "ts": 12345, "dur": 3, "name": "compute"},\n'
    out += [
        _case(_source("hostile-bomb", "chrome", JACOBI), "bomb", "chrome-40M-events-gzip",
              _bomb("events.json", "gzip", event * (UNIT // len(event)), 48, head=b"[\n", tail=b"]\n"),
              ERROR, timeout=120),
        _case(_source("hostile-bomb", "perfetto", JACOBI), "bomb", "perfetto-nested-compressed-packets",
              _nested_perfetto, ERROR, timeout=120),
    ]
    return out


# --------------------------------------------------------------- arguments

def _bundled(d: Path) -> Path:
    path = d / "jacobi32.trace"
    shutil.copyfile(JACOBI, path)
    return path


ARGUMENTS = {
    "overview-width-2^40": "ms.read(path).micro(slices=10).aggregate(0.5).plot(width=2**40)",
    "overview-height-1e6-svg": "ms.read(path).micro(slices=10).aggregate(0.5).plot(Path(path).with_suffix('.svg'), height=10**6)",
    "treemap-width-3e4-pdf": "ms.read(path).micro(slices=10).aggregate(0.3, kind='spatial').plot_treemap("
                             "Path(path).with_suffix('.pdf'), width=3e4)",
    "moments-height-1e6": "ms.read(path).moments().plot(height=1e6)",
    "quality-width-nan": "ms.read(path).micro(slices=10).plot_quality(width=float('nan'))",
    "gantt-width-2^40": "ms.read(path).plot_gantt(width=2**40)",
    "kaleidoscope-window-1e9": "ms.read(path).call_tree().layout(width=1e9).plot()",
    "topology-height-1e6": "ms.read(path).topology().plot(height=10**6)",
    "pjdump-precision-1e6": "ms.read(path).to_pjdump(precision=10**6)",
    "pjdump-precision-negative": "ms.read(path).to_pjdump(precision=-1)",
    "overview-height-negative-png": "ms.read(path).micro(slices=10).aggregate(0.5).plot(Path(path).with_suffix('.png'), "
                                    "height=-5)",
}


def argument_cases() -> list[C.Case]:
    src = _source("hostile-arguments", "paje", JACOBI)
    return [_case(src, "argument", name, _bundled, ("argument",), code=code) for name, code in ARGUMENTS.items()]


def all_cases() -> list[C.Case]:
    return sqlite_cases() + companion_cases() + bomb_cases() + argument_cases()


# The sample of the default test run: one case of each kind of attack,
# the cheapest of its kind (a bomb of a few seconds).
SAMPLE = {
    "hostile-nsys/sqlite/StringIds-recursive-view",
    "hostile-nsys/sqlite/computed-column",
    "hostile-nsys/sqlite/write-ahead-log",
    "hostile-nsys/sqlite/fifo-log",
    "hostile-dataset/companion/dataset-part-outside",
    "hostile-paje/companion/paje-paths-fifo",
    "hostile-otf2-data-ping-pong-otf2/companion/traces.def-fifo",
    "hostile-bomb/bomb/chrome-name-of-a-gigabyte-gzip",
    "hostile-bomb/bomb/perfetto-nested-compressed-packets",
    "hostile-arguments/argument/overview-width-2^40",
    "hostile-arguments/argument/pjdump-precision-1e6",
}


def sample(cases: list[C.Case]) -> list[C.Case]:
    return [c for c in cases if c.name in SAMPLE]
