"""Incomplete traces: strict= on every read entry point, and every view of an
incomplete trace saying so (repr, figure title); what ms.moments(path)
tells of the reader's notes."""

import os
import subprocess
import sys
import warnings

import pytest

import macroscope as ms
from conftest import REPO

JACOBI = REPO / "testdata" / "jacobi32.trace"

# A Paraver trace whose last record was cut: one state of 1000 ns is whole.
CUT_PRV = "#Paraver (x):1000_ns:1(1):1:1(1:1)\n1:1:1:1:1:0:1000:1\n1:1:1:1:1:0:1"


@pytest.fixture
def cut_prv(tmp_path):
    path = tmp_path / "cut.prv"
    path.write_text(CUT_PRV)
    return path


@pytest.fixture(scope="module")
def cut_paje(tmp_path_factory):
    """The bundled Pajé trace without the '\\n' of its last line (28608)."""
    path = tmp_path_factory.mktemp("cut") / "jacobi-cut.trace"
    data = JACOBI.read_bytes()
    assert data.endswith(b"\n")
    path.write_bytes(data[:-1])
    return path


def reason_prv(path):
    return f"{path}: the last line (3) has no end of line: the file is cut"


def read_quietly(fn, *args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        return fn(*args, **kwargs), [str(w.message) for w in caught]


def test_lenient_read_marks_the_trace_incomplete(cut_prv):
    trace, said = read_quietly(ms.read, cut_prv)
    reason = reason_prv(cut_prv)
    assert trace.complete is False
    assert trace.warnings[0] == "incomplete: " + reason
    assert said[0] == "incomplete: " + reason
    assert len(trace.states) == 1  # the whole record, not the cut one
    assert repr(trace).endswith(f", INCOMPLETE ({reason})>")


@pytest.mark.parametrize("entry", ["read", "read_paraver", "read_micro", "moments"])
def test_strict_raises_naming_the_file(cut_prv, entry):
    call = {"read": lambda: ms.read(cut_prv, strict=True),
            "read_paraver": lambda: ms.read_paraver(cut_prv, strict=True),
            "read_micro": lambda: ms.read_micro(cut_prv, slices=10, strict=True),
            "moments": lambda: ms.moments(cut_prv, strict=True)}[entry]
    with pytest.raises(ms.TraceFormatError) as info:
        call()
    err = info.value
    assert err.file == str(cut_prv)
    assert err.cause == "the trace is incomplete (strict read): " + reason_prv(cut_prv)
    assert str(err) == f"{cut_prv}: {err.cause}"


def test_strict_accepts_a_complete_trace(tmp_path):
    path = tmp_path / "whole.prv"
    path.write_text(CUT_PRV[:CUT_PRV.rindex("\n") + 1])
    trace = ms.read(path, strict=True)
    assert trace.complete and trace.warnings == [] and len(trace.states) == 1


def test_every_reader_takes_strict():
    import inspect

    for name in ms.FORMATS:
        fn = getattr(ms, "read_" + name.replace("-", "_"))
        assert inspect.signature(fn).parameters["strict"].default is False, name


def test_paje_strict_refuses_a_cut_file(cut_paje):
    reason = f"{cut_paje}: the last line (28608) has no end of line: the file is cut"
    trace, said = read_quietly(ms.read_paje, cut_paje)
    assert not trace.complete and said[0] == "incomplete: " + reason
    with pytest.raises(ms.TraceFormatError, match="the trace is incomplete"):
        ms.read_paje(cut_paje, strict=True)


def test_views_of_an_incomplete_trace_say_so(cut_paje, jacobi):
    trace, _ = read_quietly(ms.read_paje, cut_paje)
    reason = f"{cut_paje}: the last line (28608) has no end of line: the file is cut"
    suffix = f", INCOMPLETE ({reason})>"
    model = trace.micro(slices=20)
    agg = model.aggregate(0.3)
    views = {
        "MicroModel": model, "Aggregation": agg, "Moments": trace.moments(),
        "aggregate Moments": agg.moments(), "Treemap": agg.treemap(),
        "CallTree": trace.call_tree(), "Kaleidoscope": trace.call_tree().layout(),
    }
    for name, view in views.items():
        assert repr(view).endswith(suffix), name
        if hasattr(view, "complete"):
            assert view.complete is False and view.incomplete == [reason], name
    # The same views of the complete trace do not.
    whole = jacobi.micro(slices=20)
    for view in (whole, whole.aggregate(0.3), jacobi.moments(), whole.aggregate(0.3).treemap(),
                 jacobi.call_tree()):
        assert "INCOMPLETE" not in repr(view) and view.complete
    # Figures carry a line under their title, files by their base names.
    note = f"(incomplete: {reason.replace(str(cut_paje), cut_paje.name)})".encode()
    figures = {
        "overview": agg.plot(title="jacobi"), "quality": model.plot_quality(),
        "moments": trace.moments().plot(), "treemap": agg.plot_treemap(),
        "kaleidoscope": trace.call_tree().layout().plot(),
    }
    for name, fig in figures.items():
        assert _svg_text(fig).count(note) >= 1, name
    assert note not in _svg_text(whole.aggregate(0.3).plot())


def test_topology_of_an_incomplete_trace_says_so(tmp_path):
    """The platform trace without its last '\n': the topology view's repr,
    .complete and figure notes say so."""
    data = (REPO / "testdata" / "jacobi32-platform.trace").read_bytes()
    lines = data.count(b"\n")
    path = tmp_path / "platform-cut.trace"
    path.write_bytes(data[:-1])
    trace, _ = read_quietly(ms.read_paje, path)
    reason = f"{path}: the last line ({lines}) has no end of line: the file is cut"
    tp = trace.topology()
    assert repr(tp).endswith(f", INCOMPLETE ({reason})>")
    assert f"(incomplete: {reason.replace(str(path), path.name)})".encode() in _svg_text(tp.plot())
    whole = ms.read_paje(REPO / "testdata" / "jacobi32-platform.trace").topology()
    assert "INCOMPLETE" not in repr(whole)


def _svg_text(fig) -> bytes:
    """The text drawn in an SVG figure, entities decoded."""
    import html

    return html.unescape(fig.to_bytes("svg").decode()).encode()


def test_read_micro_and_moments_of_a_file_say_so(cut_paje):
    reason = f"{cut_paje}: the last line (28608) has no end of line: the file is cut"
    model, said = read_quietly(ms.read_micro, cut_paje, slices=20)
    assert said[0] == "incomplete: " + reason
    assert repr(model).endswith(f", INCOMPLETE ({reason})>") and not model.complete
    assert repr(model.aggregate(0.3)).endswith(f", INCOMPLETE ({reason})>")
    # ms.moments(path) forwards the reader's notes (it used to drop them).
    m, said = read_quietly(ms.moments, cut_paje)
    assert said == ["incomplete: " + reason] and m.warnings == said
    assert repr(m).endswith(f", INCOMPLETE ({reason})>")
    m, said = read_quietly(ms.moments, JACOBI)
    assert said == [] and m.warnings == [] and m.complete


def test_cli_strict(cut_prv):
    def cli(*args):
        run = subprocess.run([sys.executable, "-m", "macroscope", *map(str, args)], capture_output=True,
                             text=True, env={**os.environ, "PYTHONWARNINGS": "ignore"})
        return run.returncode, run.stdout, run.stderr

    code, out, _ = cli("moments", cut_prv, "-q", "--out", cut_prv.parent)
    assert code == 0 and "warning    incomplete: " + reason_prv(cut_prv) + "\n" in out
    code, _, err = cli("moments", cut_prv, "--strict", "--out", cut_prv.parent)
    assert code == 1
    assert err.strip() == f"macroscope moments: {cut_prv}: the trace is incomplete (strict read): {reason_prv(cut_prv)}"


def test_starvz_part_missing(tmp_path):
    """A split dump whose worker state part is a directory (or empty) reads
    the other parts marked incomplete, and strict=True refuses it."""
    (tmp_path / "entities.csv").write_text(
        "Parent, Name, Type, Nature\n0, 0, 0, Container\n0, root, Program, Container\nroot, CPU0, Worker, Container\n")
    (tmp_path / "paje.worker_state.csv").mkdir()
    part = tmp_path / "paje.worker_state.csv"
    trace, said = read_quietly(ms.read, tmp_path, format="pjdump")
    reason = f"{part} is not a regular file: that part of the trace is missing"
    assert not trace.complete and said == ["incomplete: " + reason]
    assert list(trace.containers.path) == ["root", "root/CPU0"] and len(trace.states) == 0
    with pytest.raises(ms.TraceFormatError) as info:
        ms.read(tmp_path, format="pjdump", strict=True)
    assert info.value.file == str(tmp_path) and reason in info.value.cause
    part.rmdir()
    part.write_text("")
    trace, said = read_quietly(ms.read, tmp_path, format="pjdump")
    assert said == [f"incomplete: {part} is empty: that part of the trace is missing"]
