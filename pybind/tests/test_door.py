"""The door every trace comes through: formats and their options come from
the Go registry, compressed files and paths of every kind are read, and
what is not a file is refused before anything is read."""

import bz2
import gzip
import inspect
import os
import pathlib
import shutil
import stat
import subprocess
import sys
import threading
import zlib

import pytest

import macroscope as ms
from conftest import shared


def test_every_format_has_its_reader_with_the_go_options():
    table = ms.formats()
    assert tuple(table.format) == ms.FORMATS
    for name in ms.FORMATS:
        function = "read_" + name.replace("-", "_")
        reader = getattr(ms, function)
        assert function in ms.__all__ and function.isidentifier()
        params = inspect.signature(reader).parameters
        options = [o for o in table.set_index("format").loc[name, "options"].split(", ") if o]
        for option in options:
            if (name, option) == ("paje", "paths"):
                continue  # read_paje takes a list of paths instead
            assert option in params, (name, option)
        assert "progress" in params


def test_reader_options_are_checked_in_go(bundled_trace):
    with pytest.raises(ms.InvalidArgumentError) as info:
        ms.read(bundled_trace, strict="yes")
    assert info.value.param == "strict" and "bool" in str(info.value)
    with pytest.raises(ms.InvalidArgumentError) as info:
        ms.read(bundled_trace, format="paraver", view="diagonal")
    assert info.value.param == "view" and "thread" in str(info.value)
    with pytest.raises(TypeError, match="nope"):
        ms.read_paraver(bundled_trace, nope=1)


@pytest.mark.parametrize("compress", ["gzip", "bzip2"])
def test_compressed_files_read_as_the_plain_one(tmp_path, bundled_trace, compress):
    data = bundled_trace.read_bytes()
    # A name that does not say it is compressed: the content tells.
    path = tmp_path / ("jacobi.trace.gz" if compress == "gzip" else "jacobi.trace")
    path.write_bytes(gzip.compress(data) if compress == "gzip" else bz2.compress(data))
    plain = ms.read(bundled_trace)
    packed = ms.read(path)
    assert packed.format == "paje"
    assert len(packed.states) == len(plain.states) == 10272
    assert (packed.states.start_ns.values == plain.states.start_ns.values).all()
    model = ms.read_micro(path, slices=10).to_pandas()
    assert model.equals(ms.read_micro(bundled_trace, slices=10).to_pandas())


def test_truncated_compressed_file_names_the_file(tmp_path, bundled_trace):
    # bzip2 gives nothing of a block cut short: nothing to read, refused.
    path = tmp_path / "cut.trace.bz2"
    packed = bz2.compress(bundled_trace.read_bytes())
    path.write_bytes(packed[: len(packed) // 2])
    with pytest.raises(ms.TraceFormatError) as info:
        ms.read(path)
    assert info.value.file == str(path)


def test_truncated_compressed_file_reads_to_the_cut(tmp_path, bundled_trace):
    # gzip gives what precedes the cut: read as the plain file cut there,
    # incomplete, and the warning says where the compressed data ends. The
    # cut is the last before the middle whose text ends a line: the Paje
    # reader refuses a line cut short, plain or compressed.
    packed = gzip.compress(bundled_trace.read_bytes(), mtime=0)
    decompressor, out, n, size = zlib.decompressobj(wbits=31), bytearray(), 0, 0
    for k in range(1, len(packed) // 2 + 1):
        out += decompressor.decompress(packed[k - 1:k])
        if out.endswith(b"\n"):
            n, size = k, len(out)
    cut, text = packed[:n], bytes(out[:size])
    path = tmp_path / "cut.trace.gz"
    path.write_bytes(cut)
    plain = tmp_path / "plain.trace"
    plain.write_bytes(text)
    with pytest.warns(UserWarning, match=f"incomplete: .*cut.trace.gz: the compressed data ends at byte {len(cut)},"):
        trace = ms.read(path)
    want = ms.read(plain)
    assert 0 < len(trace.states) == len(want.states) < len(ms.read(bundled_trace).states)
    assert trace.states.equals(want.states)
    with pytest.raises(ms.TraceFormatError) as info:
        ms.read(path, strict=True)
    assert info.value.file == str(path)


def test_paths_of_every_kind(bundled_trace):
    as_path = ms.read(pathlib.Path(bundled_trace))
    as_str = ms.read(str(bundled_trace))
    as_bytes_path = ms.read_paje(pathlib.PurePath(bundled_trace))
    assert len(as_path.states) == len(as_str.states) == len(as_bytes_path.states)
    assert len(ms.read_micro(pathlib.Path(bundled_trace), slices=5).to_pandas()) > 0


def test_devices_are_refused():
    with pytest.raises(ms.TraceFormatError) as info:
        ms.read("/dev/zero", format="paje")
    assert "not a regular file" in str(info.value) and info.value.file == "/dev/zero"


def test_a_fifo_without_writer_does_not_hang(tmp_path):
    fifo = tmp_path / "pipe.trace"
    os.mkfifo(fifo)
    outcome = []

    def read():
        try:
            ms.read(fifo)
        except ms.TraceFormatError as exc:
            outcome.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(60)
    assert not reader.is_alive(), "reading a FIFO hangs"
    assert outcome and "named pipe" in str(outcome[0])


def test_console_script_is_installed():
    script = pathlib.Path(sys.executable).with_name("macroscope")
    assert script.exists(), "pip install puts a macroscope command beside python"
    run = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and "usage: macroscope" in run.stdout


def test_unsorted_paje_reads_with_sort(tmp_path, bundled_trace):
    lines = bundled_trace.read_text().splitlines(keepends=True)
    header = [l for l in lines if l.startswith("%") or l.startswith("#")]
    body = [l for l in lines if not (l.startswith("%") or l.startswith("#"))]
    # Swap the second and third quarters of the events (dates apart, after
    # the containers are created and before they end): no longer in time order.
    q = len(body) // 4
    shuffled = tmp_path / "shuffled.trace"
    shuffled.write_text("".join(header + body[:q] + body[2 * q:3 * q] + body[q:2 * q] + body[3 * q:]))
    with pytest.raises(ms.TraceFormatError, match="sort=True"):
        ms.read_paje(shuffled)
    fixed = ms.read_paje(shuffled, sort=True)
    plain = ms.read_paje(bundled_trace)
    assert len(fixed.states) == len(plain.states)
    assert sorted(fixed.states.start_ns) == sorted(plain.states.start_ns)


def test_a_file_read_with_the_wrong_reader_names_the_right_one(tmp_path):
    """A Chrome JSON file read as Pajé fails at its line, and the error
    says what the file is and how to read it; read() reads it."""
    path = tmp_path / "c.json"
    path.write_text('{"traceEvents":[{"name":"a","ph":"X","ts":0,"dur":5,"pid":1,"tid":1}]}')
    with pytest.raises(ms.TraceFormatError) as e:
        ms.read_paje(path)
    assert (e.value.file, e.value.line) == (str(path), 1)
    assert str(e.value).endswith('this file is Chrome/Perfetto trace-event JSON (Chrome, catapult, Perfetto, '
                                 'PyTorch Kineto, PerfFlowAspect), not paje: read it with format="chrome" or no '
                                 'format= (Python), --format chrome or no --format (command line)')
    assert len(ms.read(path).states) == 1
