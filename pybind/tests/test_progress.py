"""Progress reports and interruption of long reads."""

import os
import sys

import pytest

import macroscope as ms
from conftest import ONE_HOST, check_interrupt_cancels


def test_callable_progress_reaches_the_file_size(big_trace):
    calls = []
    trace = ms.read(big_trace, progress=lambda done, total: calls.append((done, total)))
    size = os.path.getsize(big_trace)
    assert calls[-1] == (size, size)
    assert all(total in (0, size) for _, total in calls)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)
    assert len(trace.states) == 1_000_000


def test_progress_bar(capfd, bundled_trace):
    pytest.importorskip("tqdm")
    ms.read(bundled_trace, progress=True)
    err = capfd.readouterr().err
    assert "jacobi32.trace" in err and "100%" in err
    ms.read(bundled_trace, progress=False)
    ms.read(bundled_trace)  # a bar only for reads longer than a second
    assert capfd.readouterr().err == ""


def test_progress_without_tqdm(monkeypatch, bundled_trace):
    monkeypatch.setitem(sys.modules, "tqdm", None)  # import tqdm now fails
    with pytest.raises(ms.InvalidArgumentError, match="tqdm is not installed") as info:
        ms.read(bundled_trace, progress=True)
    assert info.value.param == "progress"
    assert len(ms.read(bundled_trace).states) == len(ms.read(bundled_trace, progress=False).states)


def test_bad_progress_argument(bundled_trace):
    with pytest.raises(ms.InvalidArgumentError):
        ms.read(bundled_trace, progress="yes")


def test_interrupt_cancels_the_read(monkeypatch, big_trace):
    check_interrupt_cancels(monkeypatch, ms.read, "StartRead", "Trace", big_trace)


def test_errors_of_the_reader_still_surface(tmp_path):
    path = tmp_path / "bad.trace"
    path.write_text(ONE_HOST + "3 1.0 S h1 a\n" * 3 + "9 2.0 S h1 x\n")
    calls = []
    with pytest.raises(ms.TraceFormatError) as info:
        ms.read(path, progress=lambda d, t: calls.append(d))
    assert info.value.line == 30


class _Stream:
    def __init__(self, tty):
        self._tty = tty

    def isatty(self):
        return self._tty

    def write(self, text):
        return len(text)

    def flush(self):
        pass


@pytest.mark.parametrize("tty, kernel, drawn", [(False, False, False), (True, False, True), (False, True, True)])
def test_default_bar_only_where_watched(monkeypatch, tty, kernel, drawn):
    # The default (progress=None) draws a bar on a terminal or in a notebook's
    # kernel, not into a pipe or a log; progress=True draws one everywhere.
    pytest.importorskip("tqdm")
    from macroscope import _reading

    monkeypatch.setattr(sys, "stderr", _Stream(tty))
    monkeypatch.delitem(sys.modules, "ipykernel", raising=False)
    if kernel:
        monkeypatch.setitem(sys.modules, "ipykernel", sys)
    assert isinstance(_reading._reporter(None, "t"), _reading._Bar) is drawn
    assert isinstance(_reading._reporter(True, "t"), _reading._Bar)
