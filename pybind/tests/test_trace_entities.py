"""trace.variables, trace.links and trace.events hold, row by row, the
entities of a Pajé trace written here, with more of each than one block of
the columns that keep them in memory (32,768), link keys unique and now
and then long."""

import math

import pytest

import macroscope as ms
from conftest import paje_header

# One more than the entities of a block, and more.
N = 33_000

HEADER = paje_header(
    "PajeDefineContainerType", "PajeDefineLinkType", "PajeDefineEventType", "PajeDefineVariableType",
    "PajeCreateContainer", "PajeStartLink", "PajeEndLink", "PajeNewEvent", "PajeSetVariable",
    "PajeDestroyContainer",
) + """0 M 0 Machine
0 P M Process
1 L M P P Msg
2 E P Mark
3 V P Load
4 0 m M 0 m
4 0 a P m a
4 0 b P m b
"""


def key(i):
    return f"{i}-" * 100 if i % 1000 == 7 else f"k{i}"


def date(i):
    """Step i is at i microseconds, written in seconds as Pajé writes."""
    return f"{i // 1_000_000}.{i % 1_000_000:06d}"


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """The trace file and the entities it holds, as they were written: at
    step i, link i starts (from a or b to the other), link i-1 ends, an
    event happens on a or b, and the variable of a takes the value i/2."""
    links, events, pieces = [], [], []
    lines = [HEADER]
    for i in range(N):
        src, dst = ("a", "b") if i % 2 == 0 else ("b", "a")
        value = "send" if i % 3 else "put"
        lines.append(f"5 {date(i)} L m {src} {value} {key(i)}\n")
        if i > 0:
            s, d, v = links[-1]["source"], links[-1]["destination"], links[-1]["value"]
            lines.append(f"6 {date(i)} L m {d[2:]} {v} {key(i - 1)}\n")
            links[-1]["end_ns"] = i * 1000
        links.append({"container": "m", "type": "Msg", "value": value, "source": f"m/{src}",
                      "destination": f"m/{dst}", "start_ns": i * 1000, "key": key(i)})
        where, name = ("a", "b")[i % 2], f"mark{i % 5}"
        lines.append(f"7 {date(i)} E {where} {name}\n")
        events.append({"container": f"m/{where}", "type": "Mark", "value": name, "time_ns": i * 1000})
        lines.append(f"8 {date(i)} V a {i / 2}\n")
        if pieces:
            pieces[-1]["end_ns"] = i * 1000
        pieces.append({"container": "m/a", "type": "Load", "start_ns": i * 1000, "value": i / 2})
    lines.append(f"6 {date(N)} L m {links[-1]['destination'][2:]} {links[-1]['value']} {key(N - 1)}\n")
    links[-1]["end_ns"] = N * 1000
    lines.append(f"9 {date(N + 1)} P a\n9 {date(N + 1)} P b\n9 {date(N + 1)} M m\n")
    pieces[-1]["end_ns"] = (N + 1) * 1000  # the variable ends with its container
    path = tmp_path_factory.mktemp("entities") / "entities.trace"
    path.write_text("".join(lines))
    return path, links, events, pieces


def rows(frame, columns):
    return [dict(zip(columns, values)) for values in zip(*(frame[c].astype(object) for c in columns))]


def test_links_frame_holds_the_links(generated):
    path, links, _, _ = generated
    frame = ms.read_paje(path, time_unit="s").links
    assert len(frame) == N
    columns = ["container", "type", "value", "source", "destination", "start_ns", "end_ns", "key"]
    got = rows(frame, columns)
    for i, (g, w) in enumerate(zip(got, links)):
        assert g == w, f"link {i}"
    assert (frame["end_ns"] - frame["start_ns"] == 1000).all()
    assert frame["size"].isna().all()  # Pajé links have no size
    assert frame["duration"].tolist() == [1e-6] * N


def test_events_frame_holds_the_events(generated):
    path, _, events, _ = generated
    frame = ms.read_paje(path, time_unit="s").events
    assert rows(frame, ["container", "type", "value", "time_ns"]) == events
    assert frame["time"].tolist() == [e["time_ns"] / 1e9 for e in events]


def test_variables_frame_holds_the_pieces(generated):
    path, _, _, pieces = generated
    frame = ms.read_paje(path, time_unit="s").variables
    assert rows(frame, ["container", "type", "start_ns", "end_ns", "value"]) == pieces
    assert not any(math.isnan(v) for v in frame["value"])
