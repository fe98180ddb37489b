"""Hostile inputs and absurd arguments, in this process (the corruption
suite reads damaged files in fresh processes): files a trace is made of
that lead outside the directory named or are not files, figures of absurd
sizes, errors that quote at most an excerpt."""

import os
import pathlib

import pytest

import macroscope as ms

REPO = pathlib.Path(__file__).resolve().parents[2]
TRACE = REPO / "testdata" / "jacobi32.trace"


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    return ms.to_parquet_dataset(ms.read(TRACE), tmp_path_factory.mktemp("ds") / "ds")


def _copy(src, dst):
    import shutil

    shutil.copytree(src, dst)
    return dst


def test_dataset_part_linked_outside(dataset, tmp_path):
    """A Parquet dataset's part that is a symbolic link leading out of the
    directory named is not read: the error names the part."""
    ds = _copy(dataset, tmp_path / "ds")
    part = next((ds / "states").rglob("*.parquet"))
    secret = tmp_path / "secret.parquet"
    part.rename(secret)
    part.symlink_to(secret)
    with pytest.raises(ms.TraceFormatError, match="outside the directory") as e:
        ms.read(ds)
    assert e.value.file == str(part)


def test_dataset_part_fifo(dataset, tmp_path):
    """A FIFO in place of a part, or of the marker, is refused at once."""
    ds = _copy(dataset, tmp_path / "ds")
    part = next((ds / "states").rglob("*.parquet"))
    part.unlink()
    os.mkfifo(part)
    with pytest.raises(ms.TraceFormatError, match="not a regular file"):
        ms.read(ds)
    marker = ds / "_macroscope_dataset.json"
    marker.unlink()
    os.mkfifo(marker)
    with pytest.raises(ms.TraceFormatError, match="not a regular file"):
        ms.read(ds)


def test_dataset_part_damaged(dataset, tmp_path):
    """A damaged part is the package's error naming it, not pyarrow's."""
    ds = _copy(dataset, tmp_path / "ds")
    part = next((ds / "states").rglob("*.parquet"))
    part.write_bytes(part.read_bytes()[:100])
    with pytest.raises(ms.TraceFormatError) as e:
        ms.read(ds)
    assert str(ds) in e.value.file


ABSURD = [dict(width=3e4), dict(width=2**40), dict(height=1e6), dict(width=float("nan")), dict(height=float("inf")),
          dict(width=0.5), dict(width=16000, height=16000), dict(width="wide")]


@pytest.fixture(scope="module")
def plotters(jacobi):
    model = jacobi.micro(slices=20)
    agg = model.aggregate(0.5)
    spatial = model.aggregate(0.3, kind="spatial")
    topo = ms.read(REPO / "testdata" / "jacobi32-platform.trace").topology()
    return {
        "overview": agg.plot,
        "quality": model.plot_quality,
        "treemap": spatial.plot_treemap,
        "treemap of a Treemap": spatial.treemap().plot,
        "moments": jacobi.moments().plot,
        "topology": topo.plot,
        "gantt": jacobi.plot_gantt,
        "kaleidoscope layout": lambda **kw: jacobi.call_tree().layout(width=kw.get("width", 300)).plot(),
    }


@pytest.mark.parametrize("kwargs", ABSURD, ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()))
def test_absurd_figure_sizes(plotters, kwargs, tmp_path):
    """Every figure refuses a size out of range before any work, in every
    format, with an InvalidArgumentError naming the argument and saying the
    range allowed."""
    for name, plot in plotters.items():
        if name == "kaleidoscope layout" and "width" not in kwargs:
            continue
        for ext in ("png", "svg", "pdf"):
            with pytest.raises(ms.InvalidArgumentError) as e:
                plot(path=tmp_path / f"f.{ext}", **kwargs) if name != "kaleidoscope layout" else plot(**kwargs)
            assert e.value.param in ("width", "height"), (name, e.value)
            assert "16384" in str(e.value) or "67108864" in str(e.value), (name, str(e.value))
            assert not (tmp_path / f"f.{ext}").exists()


def test_sizes_at_the_bounds(jacobi):
    """The bounds themselves are allowed: a side of one pixel, a long strip."""
    assert jacobi.plot_gantt(width=16384, height=64).size == (16384, 64)
    assert jacobi.moments().plot(width=16384).size[0] == 16384


def test_pjdump_precision_bounded(jacobi):
    for bad in (10**6, 31, -1, 2.5, True):
        with pytest.raises(ms.InvalidArgumentError, match="from 0 to 30") as e:
            jacobi.to_pjdump(precision=bad)
        assert e.value.param == "precision"
    assert jacobi.to_pjdump(precision=30).count("\n") == jacobi.to_pjdump().count("\n")


def _interrupt_after_start(tmp_path, body, seconds_before=1.0, wait_for=None):
    """Runs ``body`` (Python source using ``ms`` and ``OUT``) in a fresh
    interpreter, sends it SIGINT once it has started, and returns the
    process's output and whether it ended in time: the first Ctrl-C must
    stop the work, leaving nothing running."""
    import signal
    import subprocess
    import sys
    import time

    script = ("import macroscope as ms, sys\nOUT = sys.argv[1]\nprint('started', flush=True)\n"
              "try:\n" + "".join("    " + line + "\n" for line in body.splitlines())
              + "except KeyboardInterrupt:\n    print('interrupted', flush=True)\n")
    p = subprocess.Popen([sys.executable, "-c", script, str(tmp_path / "out.trace")], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "started"
    if wait_for is not None:
        # The work tells when it is under way: a quiet machine may finish
        # a fixed amount of work before a fixed delay is over.
        assert p.stdout.readline().strip() == wait_for
    else:
        time.sleep(seconds_before)
    p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=30)  # the work stops at once; the bound is for a broken build
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        return out, err, False
    return out, err, True


def test_synth_stops_on_first_ctrl_c(tmp_path):
    """ms.synth stops on the first Ctrl-C and removes the file it began:
    it used to ignore it and write on."""
    import shutil

    # As many events as the disk holds (synth refuses a trace larger than
    # the free space, 20 bytes per event at least), up to 10**9: the first
    # progress report says the writing is under way.
    events = min(10**9, shutil.disk_usage(tmp_path).free // 40)
    body = (f"ms.synth(OUT, sites=2, events={events}, "
            "progress=lambda done, total, said=[]: said or (said.append(1), print('writing', flush=True)))\n"
            "print('finished')")
    out, err, ended = _interrupt_after_start(tmp_path, body, wait_for="writing")
    assert ended, err
    assert "interrupted" in out and "finished" not in out, (out, err)
    assert not (tmp_path / "out.trace").exists()


def test_read_stops_on_first_ctrl_c(tmp_path):
    """A long read (a big gzip stream) stops on the first Ctrl-C."""
    import gzip

    with gzip.open(tmp_path / "big.trace.gz", "wb", compresslevel=1) as f:
        f.write(TRACE.read_bytes())
        f.write(b"# a comment line\n" * 30_000_000)
    # The first progress report says the read is under way.
    body = (f"ms.moments({str(tmp_path / 'big.trace.gz')!r}, "
            "progress=lambda done, total, said=[]: said or (said.append(1), print('reading', flush=True)))\n"
            "print('finished')")
    out, err, ended = _interrupt_after_start(tmp_path, body, wait_for="reading")
    assert ended, err
    assert "interrupted" in out and "finished" not in out, (out, err)


def test_error_at_byte_zero_keeps_its_offset(tmp_path):
    path = tmp_path / "p.pftrace"
    path.write_bytes(b"\x02\x00")
    with pytest.raises(ms.TraceFormatError) as e:
        ms.read(path, format="perfetto")
    assert e.value.offset == 0 and e.value.file == str(path) and "byte 0" in str(e.value)


def test_trailing_bytes_after_compressed_data(tmp_path):
    """A gzip file followed by bytes that start no member is read in full, with a warning
    naming the byte where they start; strict=True refuses it; two members end to end are
    read as one stream."""
    import gzip

    text = TRACE.read_bytes()
    packed = gzip.compress(text, mtime=0)
    plain = ms.read(TRACE)
    for n in (1, 9, 10, 1000):
        path = tmp_path / f"t{n}.trace.gz"
        path.write_bytes(packed + b"junk!" * (n // 5) + b"junk!"[: n % 5])
        with pytest.warns(UserWarning, match="trailing garbage"):
            tr = ms.read(path)
        assert tr.complete and len(tr.states) == len(plain.states)
        want = f"{path}: the gzip data ends at byte {len(packed)}, followed by {n} bytes that are not gzip data"
        assert any(w.startswith(want) for w in tr.warnings), tr.warnings
        with pytest.raises(ms.TraceFormatError, match=f"byte {len(packed)}"):
            ms.read(path, strict=True)
    half = len(text) // 2
    two = tmp_path / "two.trace.gz"
    two.write_bytes(gzip.compress(text[:half], mtime=0) + gzip.compress(text[half:], mtime=0))
    tr = ms.read(two)
    assert tr.complete and not tr.warnings and len(tr.states) == len(plain.states)


def test_errors_quote_an_excerpt(tmp_path):
    """A bad field of megabytes is quoted by its first bytes and its size."""
    path = tmp_path / "long.csv"
    path.write_text("Container, 0, T, 0, 1, 1, c\n" + "State, c, S, " + "x" * 5_000_000 + ", 1, 1, 0, v\n")
    with pytest.raises(ms.TraceFormatError) as e:
        ms.read(path, format="pjdump")
    assert len(str(e.value)) < 1000 and "5000000 bytes" in str(e.value), str(e.value)[:300]
    assert len(e.value.cause) < 1000


@pytest.mark.parametrize("layout", ["hpcrun", "extrae", "scorep", "extrae-unfinished", "tau", "akypuera", "caliper"])
def test_producer_output_without_a_trace_says_what_it_is(layout, tmp_path):
    """A producer's output that is not yet (or never was) a trace is refused for what it is,
    with the command that makes one, through ms.read as through the command line: hpcrun's
    measurements (before hpcprof), Extrae's *.mpit files (before mpi2prv) and the *.ttmp
    of a process that did not finish tracing, a Score-P profiling run (profile.cubex, no
    traces.otf2), TAU's profiles (profile.N.C.T), Akypuera's librastro files (before
    aky_converter), Caliper's .cali records (before cali2traceevent); detected, or read
    with the format named of the trace it would make."""
    run = tmp_path / "run"
    run.mkdir()
    if layout == "hpcrun":
        for r in range(2):
            base = run / f"app-{r:06d}-000-11ac0300-4974-0"
            base.with_suffix(".hpcrun").write_bytes(b"HPCRUN-profile____04.00b" + bytes(40))
            base.with_suffix(".hpctrace").write_bytes(b"HPCRUN-trace______01.01b" + bytes(32))
        paths, says = [run, next(run.glob("*.hpcrun")), next(run.glob("*.hpctrace"))], "hpcprof"
    elif layout == "extrae":
        for t in range(2):
            (run / f"TRACE@node.00000122120000000000{t:02d}.mpit").write_bytes(bytes(2240))
        paths, says = [run, next(run.glob("*.mpit"))], "mpi2prv -f TRACE.mpits"
    elif layout == "extrae-unfinished":
        (run / "TRACE@c7125.0000027748000000000000.ttmp").write_bytes(bytes(3248))
        paths, says = [run, next(run.glob("*.ttmp"))], "did not finish tracing"
    elif layout == "tau":
        for r in range(2):
            (run / f"profile.{r}.0.0").write_text("39 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls #\n")
        paths, says = [run, run / "profile.0.0.0"], "TAU_TRACE_FORMAT=otf2"
    elif layout == "caliper":
        (run / "27_cores.cali").write_text("__rec=node,id=12,attr=10,data=64,parent=3\n")
        paths, says = [run / "27_cores.cali"], "cali2traceevent"
    elif layout == "akypuera":
        for r in range(2):
            (run / f"rastro-{r}-0.rst").write_bytes(bytes([0x10, 0x44, 0xFF, 0xFF]) + bytes(100))
        paths, says = [run, run / "rastro-0-0.rst"], "aky_converter"
    else:
        (run / "scorep.cfg").write_text("SCOREP_ENABLE_TRACING=false\n")
        (run / "profile.cubex").write_bytes(b"remapping.spec" + bytes(1010))
        paths, says = [run, run / "profile.cubex"], "SCOREP_ENABLE_TRACING=true"
    # Named with the format of the trace it should have made, a file or a
    # directory is explained all the same.
    named = {"hpcrun": "hpctoolkit", "extrae": "paraver", "extrae-unfinished": "paraver", "tau": "otf2",
             "akypuera": "paje", "caliper": "chrome", "scorep": "otf2"}[layout]
    for path in paths:
        for format in (None, named):
            with pytest.raises(ms.TraceFormatError, match=says) as e:
                ms.read(path, format=format)
            assert e.value.file == str(path), (path, format, e.value.file)


def test_every_error_is_a_macroscope_error():
    for cls in (ms.TraceFormatError, ms.InvalidArgumentError, ms.TraceNotFoundError, ms.InternalError):
        assert issubclass(cls, ms.MacroscopeError)


# Hostile files, each read in a fresh interpreter: the read must end with
# the package's exception naming the file (or, where the input is only
# odd, a trace), never kill the interpreter, hang or take the machine's
# memory. Each builder writes its file under tmp and returns the path,
# the keyword arguments of ms.read, and what the error must say (None: a
# trace is read).
def _sqlite(tmp, name, stmts):
    import sqlite3

    path = tmp / name
    db = sqlite3.connect(path)
    for s in stmts:
        db.execute(s)
    db.commit()
    db.close()
    return path


def _nsys_tables():
    return [
        "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT)",
        "INSERT INTO StringIds VALUES (1, 'k')",
        "CREATE TABLE TARGET_INFO_SESSION_START_TIME(utcEpochNs INT)",
        "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INT, end INT, globalTid INT, correlationId INT, nameId INT)",
    ]


def _gzip_line(tmp, name, head, n_mib, fill=b"x"):
    import gzip

    path = tmp / name
    with gzip.open(path, "wb", compresslevel=1) as z:
        z.write(head)
        chunk = fill * (1 << 20)
        for _ in range(n_mib):
            z.write(chunk)
    return path


def _paje_types(tmp, n):
    import gzip

    path = tmp / "types.paje.gz"
    with gzip.open(path, "wb", compresslevel=1) as z:
        z.write(b"%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n"
                b"%EventDef PajeDefineStateType 2\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n"
                b'0 P 0 "P"\n')
        z.write(b"".join(b'2 S%d P "S%d"\n' % (i, i) for i in range(n)))
    return path


_HOSTILE = {
    "fifo": lambda tmp: (os.mkfifo(tmp / "f.json") or tmp / "f.json", {}, "not a regular file"),
    "dev_zero": lambda tmp: ("/dev/zero", {"format": "chrome"}, "not a regular file"),
    "dev_urandom_link": lambda tmp: ((tmp / "r.json").symlink_to("/dev/urandom") or tmp / "r.json", {}, "not a regular file"),
    "symlink_loop": lambda tmp: (((tmp / "a.json").symlink_to(tmp / "b.json"), (tmp / "b.json").symlink_to(tmp / "a.json"))
                                 and tmp / "a.json", {}, "too many levels of symbolic links"),
    "sqlite_infinite_view": lambda tmp: (_sqlite(tmp, "v.sqlite", [
        "CREATE VIEW StringIds AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT x AS id, 'v' AS value FROM c",
        "CREATE TABLE TARGET_INFO_SESSION_START_TIME(utcEpochNs INT)",
        "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INT, end INT, globalTid INT, correlationId INT, nameId INT)",
    ]), {"format": "nsys"}, "is a view"),
    "sqlite_text_in_integer": lambda tmp: (_sqlite(tmp, "t.sqlite", _nsys_tables() + [
        "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES ('abc', 2, 1, 1, 1)",
    ]), {"format": "nsys"}, "CUPTI_ACTIVITY_KIND_RUNTIME, row 1"),
    "sqlite_huge_page_count": lambda tmp: (_patch(_sqlite(tmp, "p.sqlite", _nsys_tables()), 28, b"\x7f\xff\xff\xff"),
                                           {"format": "nsys"}, "malformed"),
    "json_1e400": lambda tmp: (_write(tmp / "n.json", b'[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1e400,"dur":1}]'),
                               {}, "byte 48: ts \"1e400\": out of range"),
    "json_nan": lambda tmp: (_write(tmp / "nan.json", b'[{"ph":"X","name":"a","pid":1,"tid":1,"ts":NaN,"dur":1}]'),
                             {}, "ts must be a number"),
    "json_deep": lambda tmp: (_write(tmp / "d.json", b'[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1,"args":{"x":'
                                     + b"[" * 2_000_000 + b"]" * 2_000_000 + b"}}]"), {}, "nested more than 512 deep"),
    "json_utf16": lambda tmp: (_write(tmp / "u.json", '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1}]'.encode("utf-16")),
                               {}, "is UTF-16LE text"),
    "json_bom": lambda tmp: (_write(tmp / "bom.json", b'\xef\xbb\xbf[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1}]'),
                             {}, None),
    "json_2gb_string_budget": lambda tmp: (_gzip_line(tmp, "s.json.gz", b'[{"ph":"X","pid":1,"tid":1,"ts":1,"dur":1,"name":"', 64),
                                           {"memory_budget": 16 << 20}, "reading %s, byte 50: the read holds"),
    "paje_long_line_budget": lambda tmp: (_gzip_line(tmp, "l.paje.gz", b"%EventDef PajeDefineContainerType 0\n% Alias string\n"
                                                     b"% Type string\n% Name string\n%EndEventDef\n0 CT 0 \"", 64),
                                          {"memory_budget": 16 << 20}, "reading %s, line 6 (byte 92): the read holds"),
    "gzip_bomb": lambda tmp: (_gzip_line(tmp, "b.json.gz", b"[", 64, fill=b" "), {"max_decompressed": 16 << 20}, "max_decompressed"),
    "perfetto_huge_length": lambda tmp: (_write(tmp / "h.pftrace", b"\x0a\x80\x80\x80\x80\x80\x80\x80\x80\x40abc"),
                                         {"format": "perfetto"}, "announces"),
    # A million state types: the trace's types, and the reader's tables of
    # them, weigh against the budget; the reader's refusal names the line.
    "paje_1e6_state_types_budget": lambda tmp: (_paje_types(tmp, 1_000_000), {"memory_budget": 32 << 20},
                                                "memory_budget: reading %s, line "),
    "speedscope_budget": lambda tmp: (_gzip_line(tmp, "p.speedscope.json.gz",
                                                 b'{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[{"name":"', 64),
                                      {"memory_budget": 16 << 20}, "memory_budget: reading %s"),
    "speedscope_frame_index": lambda tmp: (_write(tmp / "i.json", b'{"$schema":"https://www.speedscope.app/file-format-schema.json",'
                                                  b'"shared":{"frames":[]},"profiles":[{"type":"sampled","name":"t","unit":"seconds",'
                                                  b'"startValue":0,"endValue":1,"samples":[[1e30]],"weights":[1]}]}'),
                                           {}, "i.json: byte "),
    "gotrace_bad_header": lambda tmp: (_write(tmp / "g.trace", b"go 1.99 trace\x00\x00\x00" + b"\xff" * 64),
                                       {"format": "gotrace"}, "g.trace"),
}


def _write(path, data):
    path.write_bytes(data)
    return path


def _patch(path, offset, data):
    b = bytearray(path.read_bytes())
    b[offset:offset + len(data)] = data
    path.write_bytes(bytes(b))
    return path


@pytest.mark.parametrize("case", sorted(_HOSTILE))
def test_hostile_file_in_subprocess(case, tmp_path):
    import json
    import subprocess
    import sys

    path, kwargs, want = _HOSTILE[case](tmp_path)
    if want is not None and "%s" in want:
        want = want % path
    script = (
        "import json, sys\n"
        "import macroscope as ms\n"
        "try:\n"
        "    tr = ms.read(sys.argv[1], **json.loads(sys.argv[2]))\n"
        "    print('TRACE', len(tr.states))\n"
        "except ms.MacroscopeError as e:\n"
        "    print('ERROR', type(e).__name__, str(e)[:2000])\n"
    )
    run = subprocess.run([sys.executable, "-W", "ignore", "-c", script, str(path), json.dumps(kwargs)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, (run.returncode, run.stderr[-2000:])
    out = run.stdout.strip()
    if want is None:
        assert out.startswith("TRACE"), out
        return
    assert out.startswith("ERROR"), out
    assert want in out, out
    # The file's fault, or the budget's outgrown by its read: the error names it.
    assert str(path) in out or os.path.basename(str(path)) in out, out
