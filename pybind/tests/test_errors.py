"""Bad input gives a clear exception; the interpreter lives on."""

import math

import pytest

import macroscope as ms
from conftest import paje_header

HEADER = paje_header(
    "PajeDefineContainerType", "PajeDefineStateType", "PajeCreateContainer", "PajeSetState", "PajePopState",
) + """0 H 0 Host
1 S H State
2 0 h1 H 0 host1
"""


def write(tmp_path, body, name="bad.trace"):
    path = tmp_path / name
    path.write_text(HEADER + body)
    return path


@pytest.mark.parametrize("body, line, words", [
    ("3 1.0 S h1 run\n9 2.0 S h1 x\n", 33, "id '9'"),
    ("3 1.0 S h1 run\n3 0.5 S h1 idle\n", 33, "time"),
    ("3 1.0 S nowhere run\n", 32, "nowhere"),
    ("3 abc S h1 run\n", 32, "abc"),
    ("4 1.0 S h1\n", 32, "pop"),
    ("3 1.0 S h1\n", 32, "field"),
    ('3 1.0 S h1 "unterminated\n', 32, "quote"),
])
def test_malformed_pajé_names_file_and_line(tmp_path, body, line, words):
    path = write(tmp_path, body)
    with pytest.raises(ms.TraceFormatError) as info:
        ms.read_paje(path)
    err = info.value
    assert isinstance(err, ValueError)
    assert err.file == str(path)
    assert err.line == line
    assert words.lower() in str(err).lower()
    # The interpreter and the library are still fine.
    assert len(ms.read_paje(write(tmp_path, "3 1.0 S h1 run\n", "good.trace")).states) == 1


def test_truncated_file(tmp_path, bundled_trace):
    data = bundled_trace.read_bytes()
    cut = tmp_path / "cut.trace"
    cut.write_bytes(data[: len(data) // 2 - 7])
    try:
        trace = ms.read_paje(cut)
    except ms.TraceFormatError as err:
        assert err.file == str(cut) and err.line > 0
    else:  # a cut on a line boundary is a shorter, valid trace
        assert len(trace.states) < len(ms.read_paje(bundled_trace).states)


def test_missing_file():
    with pytest.raises(FileNotFoundError) as info:
        ms.read_paje("/no/such/trace.paje")
    assert isinstance(info.value, ms.MacroscopeError)
    assert info.value.filename == "/no/such/trace.paje"


def test_empty_file(tmp_path):
    path = tmp_path / "empty.trace"
    path.write_text("")
    with pytest.raises(ms.MacroscopeError):
        ms.read_paje(path).micro(slices=10)


@pytest.mark.parametrize("kwargs, param", [
    ({"slices": 0}, "slices"),
    ({"slices": 100000}, "slices"),
    ({"start": 5.0, "end": 1.0}, "window"),
    ({"start": math.nan}, "start"),
    ({"state_types": ["no such type"]}, "state_types"),
    ({"depth": -5}, "depth"),
])
def test_bad_model_arguments(jacobi, kwargs, param):
    with pytest.raises(ms.InvalidArgumentError) as info:
        jacobi.micro(**kwargs)
    assert info.value.param == param


@pytest.mark.parametrize("p", [-0.1, 1.5, math.nan, "0.5"])
def test_bad_p(jacobi, p):
    with pytest.raises(ms.InvalidArgumentError):
        jacobi.micro(slices=10).aggregate(p)


def test_bad_significant_options(jacobi):
    model = jacobi.micro(slices=10)
    with pytest.raises(ms.InvalidArgumentError):
        model.significant_p(method="guess")
    with pytest.raises(ms.InvalidArgumentError):
        model.significant_p(recommend="whatever")
    with pytest.raises(ms.InvalidArgumentError):
        model.significant_p(method="dichotomy", threshold=0)


def test_trace_without_states_is_empty_not_an_argument(tmp_path):
    """A trace with nothing to model is the data's failure, named by its
    file: no argument was given that the message could blame."""
    path = tmp_path / "nostates.trace"
    path.write_text(paje_header("PajeDefineContainerType", "PajeCreateContainer")
                    + "0 H 0 Host\n1 0.0 h1 H 0 host1\n1 1.0 h2 H 0 host2\n")
    want = f"{path}: the trace has no states to model"
    for build in (lambda: ms.read(path).micro(), lambda: ms.read_micro(path)):
        with pytest.raises(ms.EmptyTraceError) as info:
            build()
        assert str(info.value) == want and info.value.file == str(path)
        assert not isinstance(info.value, ms.InvalidArgumentError)
    # Naming a type that is not there stays the argument's fault.
    with pytest.raises(ms.InvalidArgumentError, match="state_types"):
        ms.read(path).micro(state_types=["S"])


def test_views_of_a_trace_without_states_name_its_file(tmp_path):
    """The Gantt chart, the call tree and a comparison of a trace without
    states fail as its model does: EmptyTraceError naming the file."""
    path = tmp_path / "nostates.trace"
    path.write_text(paje_header("PajeDefineContainerType", "PajeCreateContainer")
                    + "0 H 0 Host\n1 0.0 h1 H 0 host1\n1 1.0 h2 H 0 host2\n")
    other = tmp_path / "other.trace"
    other.write_text(path.read_text())
    for name, build in {"plot_gantt": lambda: ms.read(path).plot_gantt(),
                        "call_tree": lambda: ms.read(path).call_tree(),
                        "compare": lambda: ms.compare([other, path])}.items():
        with pytest.raises(ms.EmptyTraceError) as info:
            build()
        assert info.value.file == str(other if name == "compare" else path), name
        assert str(path if name != "compare" else other) in str(info.value), name
