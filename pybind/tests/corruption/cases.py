"""The corruption cases: traces of every format, damaged in every way a
file can be damaged (cut, bytes changed, lines duplicated or swapped,
numbers out of range, companion files missing, compressed, compression
bombs), each to be read in a fresh Python process (see run.py).

A case is a function writing the damaged input into a directory; the
cases are generated from the sources below with a fixed seed, so a case's
name always means the same bytes.
"""

from __future__ import annotations

import dataclasses
import gzip
import os
import random
import re
import shutil
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
CORPUS = REPO.parent / "shared" / "traces"
if not CORPUS.is_dir():  # a worktree beside the repository
    CORPUS = REPO.parents[1] / "shared" / "traces"


@dataclasses.dataclass(frozen=True)
class Source:
    """An undamaged trace: a file, or a directory whose files are damaged
    one at a time (anchor: the path given to the reader, relative)."""

    name: str
    format: str
    path: Path
    text: bool = False  # line-oriented text: lines are duplicated, swapped
    anchor: str = ""  # for directories
    companions: tuple[str, ...] = ()  # files beside path, copied with it
    micro: bool = False  # also read with read_micro

    def available(self) -> bool:
        return self.path.exists()


SOURCES = [
    # Bundled with the repository: these always run.
    Source("paje-jacobi32", "paje", REPO / "testdata" / "jacobi32.trace", text=True, micro=True),
    Source("gotrace-fib4", "gotrace", REPO / "core" / "readers" / "gotrace" / "testdata" / "fib4.trace"),
    Source("nsys-tiny", "nsys", REPO / "core" / "readers" / "nsys" / "testdata" / "tiny.sqlite"),
    Source("xplane-jax", "xplane", REPO / "core" / "readers" / "xplane" / "testdata" / "jax_cpu.xplane.pb"),
    # From the corpus, when it is there.
    Source("paje-ms", "paje", CORPUS / "pajeng" / "traces" / "ms.trace", text=True, micro=True),
    Source("paraver-qsort", "paraver", CORPUS / "paraver" / "test" / "cutter" / "qsort_beo3.prv", text=True,
           companions=("qsort_beo3.pcf",), micro=True),
    Source("pjdump-ms", "pjdump", CORPUS / "pajeng" / "oracles" / "028_pj_dump_ms_trace.out", text=True),
    Source("chrome-hta", "chrome", CORPUS / "hta" / "tests" / "data" / "call_stack" / "backward_thread.json"),
    Source("rocprofv3-csv", "rocprofv3-csv", CORPUS / "rocprof" / "rocprofv3-docs" / "kernel_trace.csv", text=True),
    Source("rpd-matmul", "rpd", CORPUS / "rocprof" / "rpd" / "matmul_result.rpd"),
    Source("perfetto-input", "perfetto", CORPUS / "perfetto" / "platform_development" / "winscope"
           / "input-events.perfetto-trace"),
    Source("otf2-pingpong", "otf2", CORPUS / "pipit" / "tests" / "data" / "ping-pong-otf2", anchor="traces.otf2",
           micro=True),
    Source("hpctoolkit-pingpong", "hpctoolkit", CORPUS / "pipit" / "tests" / "data" / "ping-pong-hpctoolkit"),
    Source("hpctoolkit-xml", "hpctoolkit", CORPUS / "hpctoolkit-db" / "xml" / "vectorAdd"),
]


@dataclasses.dataclass(frozen=True)
class Case:
    """A damaged input. kind groups the damages (truncate, flip, ...);
    strict kinds are those whose data loss must never go unnoticed: a read
    that succeeds, says it is complete and holds fewer entities than the
    undamaged trace is a silent loss."""

    source: Source
    kind: str
    detail: str
    damage: object  # callable(dir: Path) -> path to read
    read: str = "read"  # or "read_micro"
    timeout: float = 60.0
    # Hostile cases (hostile.py): the outcomes the case may end in (empty:
    # the classification of damages), and Python run in place of the read
    # (with ms, path and Path; a trace it leaves in t is described).
    expect: tuple = ()
    code: str = ""

    @property
    def name(self) -> str:
        return f"{self.source.name}/{self.kind}/{self.detail}" + ("/micro" if self.read == "read_micro" else "")

    @property
    def strict(self) -> bool:
        return self.kind in STRICT_KINDS


STRICT_KINDS = {"truncate", "missing", "gzip-truncate"}


def copy_source(src: Source, into: Path) -> Path:
    """Copies the source into dir and returns the path to read."""
    if src.path.is_dir():
        dst = into / src.path.name
        shutil.copytree(src.path, dst)
        for p in dst.rglob("*"):
            p.chmod(0o755 if p.is_dir() else 0o644)
        dst.chmod(0o755)
        return dst / src.anchor if src.anchor else dst
    dst = into / src.path.name
    shutil.copyfile(src.path, dst)
    for c in src.companions:
        if (src.path.parent / c).exists():
            shutil.copyfile(src.path.parent / c, into / c)
    return dst


def member_files(src: Source) -> list[str]:
    """The files of a source to damage, relative to its directory (or its
    own name)."""
    if not src.path.is_dir():
        return [src.path.name]
    files = sorted(str(p.relative_to(src.path)) for p in src.path.rglob("*") if p.is_file())
    return [f for f in files if not f.endswith((".md", ".cfg", ".txt", ".yaml"))]


def target(src: Source, root: Path, member: str) -> Path:
    return (root / src.path.name / member) if src.path.is_dir() else (root / member)


def _rewrite(src: Source, member: str, change):
    """A damage: copy the source, then change member's bytes."""

    def damage(d: Path) -> Path:
        path = copy_source(src, d)
        t = target(src, d, member)
        t.write_bytes(change(t.read_bytes()))
        return path

    return damage


def truncate_at(fraction: float, text: bool):
    def change(b: bytes) -> bytes:
        cut = int(len(b) * fraction)
        if text and cut > 0 and b[cut - 1:cut] == b"\n":
            cut -= 1  # inside a line: the reader must see the cut record
        return b[:cut]

    return change


def flip(seed: int):
    def change(b: bytes) -> bytes:
        if not b:
            return b
        rng = random.Random(seed)
        i = rng.randrange(len(b))
        return b[:i] + bytes([b[i] ^ (1 << rng.randrange(8))]) + b[i + 1:]

    return change


def zero_range(seed: int):
    def change(b: bytes) -> bytes:
        rng = random.Random(seed)
        i = rng.randrange(max(1, len(b)))
        return b[:i] + bytes(min(64, len(b) - i)) + b[i + 64:]

    return change


def _lines(b: bytes) -> list[bytes]:
    return b.splitlines(keepends=True)


def duplicate_line(seed: int):
    def change(b: bytes) -> bytes:
        lines = _lines(b)
        i = random.Random(seed).randrange(len(lines))
        return b"".join(lines[:i + 1] + [lines[i]] + lines[i + 1:])

    return change


def swap_lines(seed: int):
    def change(b: bytes) -> bytes:
        lines = _lines(b)
        rng = random.Random(seed)
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
        return b"".join(lines)

    return change


NUMBER = re.compile(rb"(?<![\w.])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w.])")
OUT_OF_RANGE = [b"1e309", b"-1", b"99999999999999999999999", b"nan", b"-9223372036854775809", b"1e-400"]


def out_of_range(seed: int):
    def change(b: bytes) -> bytes:
        rng = random.Random(seed)
        lines = _lines(b)
        for _ in range(50):
            i = rng.randrange(len(lines))
            numbers = list(NUMBER.finditer(lines[i]))
            if numbers:
                m = rng.choice(numbers)
                lines[i] = lines[i][:m.start()] + rng.choice(OUT_OF_RANGE) + lines[i][m.end():]
                break
        return b"".join(lines)

    return change


def compressed(kind: str, cut: float | None = None):
    def change(b: bytes) -> bytes:
        z = gzip.compress(b, mtime=0) if kind == "gzip" else _zstd(b)
        return z if cut is None else z[:int(len(z) * cut)]

    return change


def _zstd(b: bytes) -> bytes:
    import zstandard  # optional: the zstd cases are skipped without it

    return zstandard.ZstdCompressor().compress(b)


def gzip_bomb(expanded: int, line: bytes | None):
    """expanded bytes of zeros (line None) or of one line repeated, as a
    gzip file of concatenated members: compressing 64 MiB once and
    repeating the member keeps the generation fast."""

    def damage(d: Path) -> Path:
        unit = 64 << 20
        block = bytes(unit) if line is None else line * (unit // len(line))
        c = zlib.compressobj(9, zlib.DEFLATED, 31)
        member = c.compress(block) + c.flush()
        path = d / "bomb.trace.gz"
        with open(path, "wb") as f:
            for _ in range(max(1, expanded // unit)):
                f.write(member)
        return path

    return damage


def remove(src: Source, member: str, as_dir: bool = False):
    def damage(d: Path) -> Path:
        path = copy_source(src, d)
        t = target(src, d, member)
        t.unlink()
        if as_dir:
            t.mkdir()
        return path

    return damage


def empty(src: Source, member: str):
    return _rewrite(src, member, lambda b: b"")


FRACTIONS = [0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99]


def cases_of(src: Source) -> list[Case]:
    out: list[Case] = []
    members = member_files(src)
    for member in members:
        tag = member.replace("/", "_") if src.path.is_dir() else ""
        pre = f"{tag}@" if tag else ""
        for f in FRACTIONS:
            out.append(Case(src, "truncate", f"{pre}{f:g}", _rewrite(src, member, truncate_at(f, src.text))))
        for seed in range(8):
            out.append(Case(src, "flip", f"{pre}{seed}", _rewrite(src, member, flip(seed))))
        for seed in range(2):
            out.append(Case(src, "zeros", f"{pre}{seed}", _rewrite(src, member, zero_range(seed))))
        if src.text:
            for seed in range(3):
                out.append(Case(src, "duplicate", f"{pre}{seed}", _rewrite(src, member, duplicate_line(seed))))
                out.append(Case(src, "swap", f"{pre}{seed}", _rewrite(src, member, swap_lines(seed))))
            for seed in range(6):
                out.append(Case(src, "out-of-range", f"{pre}{seed}", _rewrite(src, member, out_of_range(seed))))
        if src.path.is_dir():
            out.append(Case(src, "missing", tag, remove(src, member)))
            out.append(Case(src, "missing", tag + "-empty", empty(src, member)))
            out.append(Case(src, "missing", tag + "-directory", remove(src, member, as_dir=True)))
    for c in src.companions:
        out.append(Case(src, "missing", c, remove(src, c)))
        out.append(Case(src, "missing", c + "-empty", empty(src, c)))
    if src.text:
        out.append(Case(src, "gzip", "whole", _rewrite(src, src.path.name, compressed("gzip"))))
        for f in (0.3, 0.9):
            out.append(Case(src, "gzip-truncate", f"{f:g}", _rewrite(src, src.path.name, compressed("gzip", f))))
    if src.micro:
        for f in (0.5, 0.9):
            member = members[len(members) // 2]
            out.append(Case(src, "truncate", f"{member.replace('/', '_')}@{f:g}",
                            _rewrite(src, member, truncate_at(f, src.text)), read="read_micro"))
        out.append(Case(src, "flip", "0", _rewrite(src, members[-1], flip(0)), read="read_micro"))
    return out


BOMB_SOURCE = Source("bomb", "paje", REPO / "testdata" / "jacobi32.trace")
BOMBS = [
    Case(BOMB_SOURCE, "bomb", "gzip-zeros-2GiB", gzip_bomb(2 << 30, None), timeout=120),
    Case(BOMB_SOURCE, "bomb", "gzip-lines-2GiB", gzip_bomb(2 << 30, b"# a comment line repeated\n"), timeout=120),
]


def all_cases() -> list[Case]:
    out = []
    for src in SOURCES:
        if src.available():
            out.extend(cases_of(src))
    return out + BOMBS


def sample(cases: list[Case], per_source: int = 4, seed: int = 15) -> list[Case]:
    """A few cases of each source, of different kinds, always the same,
    for the default test run: one strict case at least."""
    rng = random.Random(seed)
    by_source: dict[str, list[Case]] = {}
    for c in cases:
        by_source.setdefault(c.source.name, []).append(c)
    out = []
    for name, cs in by_source.items():
        if name == "bomb":
            continue
        strict = [c for c in cs if c.strict and c.read == "read"]
        other = [c for c in cs if not c.strict]
        picked = rng.sample(strict, min(2, len(strict))) + rng.sample(other, min(per_source - 2, len(other)))
        out.extend(picked)
    return out
