"""Trace.to_pjdump against the pj_dump installed here, on every Pajé trace
of the corpus."""

import shutil
import subprocess

import pytest

import macroscope as ms

from conftest import SHARED

DIRS = ["pajeng/traces", "pajeng/traces/multiple_files", "simgrid/extracted", "simgrid/historical", "smpi-nas"]


def paje_traces():
    return sorted(p for d in DIRS for p in (SHARED / d).glob("*.trace"))


@pytest.fixture(scope="module")
def pj_dump():
    path = shutil.which("pj_dump")
    if path is None:
        pytest.skip("pj_dump (Debian package pajeng) is not installed")
    if not paje_traces():
        pytest.skip(f"the trace corpus ({SHARED}) is absent")
    return path


def test_to_pjdump_is_pj_dump_byte_for_byte(pj_dump, tmp_path):
    compared = failed = 0
    for path in paje_traces():
        live = subprocess.run([pj_dump, "-h", str(path)], capture_output=True, text=True)
        if live.returncode != 0:
            # pj_dump refuses the trace; so does strict mode.
            with pytest.raises(ms.TraceFormatError) as info:
                ms.read_paje(path, strict=True)
            assert info.value.file == str(path)
            failed += 1
            continue
        trace = ms.read_paje(path, strict=True)
        assert trace.to_pjdump(header=True) == live.stdout, path.name
        out = tmp_path / (path.name + ".csv")
        assert trace.to_pjdump(out) is None
        assert out.read_text() == subprocess.run([pj_dump, str(path)], capture_output=True, text=True).stdout
        compared += 1
    assert compared >= 25 and failed >= 6


def test_precision(pj_dump):
    path = SHARED / "pajeng/traces/ms.trace"
    trace = ms.read_paje(path, strict=True)
    for digits in (0, 3, 9, 12):
        live = subprocess.run([pj_dump, "-l", str(digits), str(path)], capture_output=True, text=True, check=True)
        assert trace.to_pjdump(precision=digits) == live.stdout, digits
    with pytest.raises(ms.InvalidArgumentError):
        trace.to_pjdump(precision=-1)


def test_bad_style(bundled_trace):
    with pytest.raises(ms.InvalidArgumentError) as info:
        ms.read_paje(bundled_trace).to_pjdump(style="fancy")
    assert info.value.param == "style"
