"""Every reader from Python, checked against independent oracles: the
pj_dump outputs of PajeNG's test suite, otf2-print, the counts of
MANIFEST.md and the oracle scripts of the Go readers' tests."""

import collections
import gzip
import json
import re
import shutil
import subprocess
import sys
import warnings
from decimal import Decimal

import pandas as pd
import pytest

import macroscope as ms

from conftest import REPO, shared


def same_frames(a, b):
    pd.testing.assert_frame_equal(a, b, check_categorical=True)


def assert_same_trace(a, b):
    assert repr(a) == repr(b)
    for name in ("containers", "states", "variables", "links", "events", "types"):
        same_frames(getattr(a, name), getattr(b, name))


# --- Pajé -------------------------------------------------------------------

def oracle(name):
    return shared("pajeng", "oracles", name).read_text()


def test_paje_counts_and_the_upstream_oracle(mardi_path):
    trace = ms.read_paje(mardi_path, strict=True)
    # MANIFEST.md: 306 containers, 13,451 SetState and 169 PushState, 405
    # links, 507 variables; the oracle has one line per container and entity.
    assert (len(trace.containers), len(trace.states), len(trace.links), len(trace.variables), len(trace.events)) == \
        (306, 13451 + 169, 405, 507, 0)
    expected = oracle("032_pj_dump_simu_mardi_trace.out")
    assert trace.to_pjdump(style="upstream") == expected
    assert len(expected.splitlines()) == 1 + 306 + 13620 + 405 + 507


def test_paje_states_match_the_oracle_lines(mardi_path):
    """Every State line of PajeNG's expected output is a row of
    trace.states, with the same container, type, times, depth and value."""
    expected = collections.Counter()
    for line in oracle("032_pj_dump_simu_mardi_trace.out").splitlines():
        f = line.split(", ")
        if f[0] == "State":
            # PajeNG's development version keeps the quotes of the file.
            name, typ, value = (x.strip('"') for x in (f[1], f[2], f[7]))
            expected[(name, typ, Decimal(f[3]), Decimal(f[4]), int(float(f[6])), value)] += 1
    states = ms.read_paje(mardi_path).states
    got = collections.Counter(
        (c.rsplit("/", 1)[-1], t, round(Decimal(s) / 10**9, 6), round(Decimal(e) / 10**9, 6), d, v)
        for c, t, s, e, d, v in zip(states.container, states.type, states.start_ns, states.end_ns, states.depth,
                                    states.value))
    assert got == expected


def oracle_rows(name, nature):
    """The fields of the oracle's lines of one nature, quotes removed."""
    for line in oracle(name).splitlines():
        f = line.split(", ")
        if f[0] == nature:
            yield [x.strip('"') for x in f[1:]]


def last(path):
    return path.rsplit("/", 1)[-1]


def test_paje_links_and_variables_match_the_oracle_lines(mardi_path):
    trace = ms.read_paje(mardi_path, strict=True)
    name = "032_pj_dump_simu_mardi_trace.out"
    expected = collections.Counter((c, t, Decimal(s), Decimal(e), v, a, b, k)
                                   for c, t, s, e, _, v, a, b, k in oracle_rows(name, "Link"))
    links = trace.links
    got = collections.Counter(
        (last(c) or "0", t, round(Decimal(s) / 10**9, 6), round(Decimal(e) / 10**9, 6), v, last(a), last(b), k)
        for c, t, s, e, v, a, b, k in zip(links.container, links.type, links.start_ns, links.end_ns, links.value,
                                          links.source, links.destination, links.key))
    assert got == expected
    assert links["size"].isna().all()  # Pajé links have no size
    expected = collections.Counter((c, t, Decimal(s), Decimal(e), Decimal(v)) for c, t, s, e, _, v in
                                   oracle_rows(name, "Variable"))
    v = trace.variables
    got = collections.Counter(
        (last(c), t, round(Decimal(s) / 10**9, 6), round(Decimal(e) / 10**9, 6), round(Decimal(x), 6))
        for c, t, s, e, x in zip(v.container, v.type, v.start_ns, v.end_ns, v.value))
    assert got == expected
    types = trace.types
    assert list(types.name[:3]) == ["L1", "HOST", "power"]
    assert list(types.kind[:3]) == ["Container", "Container", "Variable"]
    assert list(types.parent[:3].astype(object).fillna("-")) == ["-", "L1", "HOST"]


def test_paje_events_and_strict_mode():
    path = shared("pajeng", "traces", "events.trace")
    events = ms.read_paje(path).events
    assert list(events.value) == ["PrimeiroEvento", "SegundoEvento"]
    assert list(events.time_ns) == [2_430_000_000, 2_870_000_000]
    assert list(events.container) == ["p1", "p1"]
    # MANIFEST.md: 2,659 SetState, 659 Push/Pop.
    assert len(ms.read_paje(shared("pajeng", "traces", "native_sample.trace")).states) == 2659 + 659
    # pj_dump refuses the field names of the original Pajé dialect at line
    # 5 (its oracle), and without strict mode the trace goes back in time at
    # line 1936 (pj_dump -n's oracle).
    native = shared("pajeng", "traces", "native_paje.trace")
    with pytest.raises(ms.TraceFormatError) as info:
        ms.read_paje(native, strict=True)
    assert info.value.file == str(native) and info.value.line == 5
    assert "(Line: 5," in oracle("029_pj_dump_native_paje_trace.out")
    with pytest.raises(ms.TraceFormatError) as info:
        ms.read_paje(native)
    assert info.value.line == 1936 and "time-ordered" in info.value.cause
    assert "(Line: 1936," in oracle("030_pj_dump_n_native_paje_trace.out")


def test_paje_several_files(tmp_path, bundled_trace):
    text = bundled_trace.read_text()
    cut = text.index("\n", len(text) // 2) + 1
    head, tail = tmp_path / "a.trace", tmp_path / "b.trace"
    head.write_text(text[:cut])
    tail.write_text(text[cut:])
    assert_same_trace_content(ms.read_paje([head, tail]), ms.read_paje(bundled_trace))


def assert_same_trace_content(a, b):
    for name in ("containers", "states", "variables", "links", "events"):
        same_frames(getattr(a, name), getattr(b, name))


# --- OTF2 -------------------------------------------------------------------

def otf2_print(anchor):
    if shutil.which("otf2-print") is None:
        pytest.skip("otf2-print (Debian package otf2-tools) is not installed")
    events = subprocess.run(["otf2-print", str(anchor)], capture_output=True, text=True, check=True).stdout
    clock = subprocess.run(["otf2-print", "-G", str(anchor)], capture_output=True, text=True, check=True).stdout
    m = re.search(r"Ticks per Seconds: (\d+), Global Offset: (\d+)", clock)
    return events.splitlines(), int(m.group(1)), int(m.group(2))


def ticks_to_ns(ticks, resolution, offset):
    # Exact, rounded half away from zero, as the reader documents.
    num = (ticks - offset) * 10**9
    q, r = divmod(num, resolution)
    return q + (1 if 2 * r >= resolution else 0)


@pytest.mark.parametrize("name", ["ping-pong-otf2", "ping-pong-otf2-papi"])
def test_otf2_against_otf2_print(name):
    archive = shared("pipit", "tests", "data", name)
    lines, resolution, offset = otf2_print(archive / "traces.otf2")
    records = [line.split(None, 3) for line in lines if re.match(r"^[A-Z_]+\s+\d+\s+\d+", line)]
    kinds = collections.Counter(r[0] for r in records)
    # pipit's tests: 120 events in total, 60 per location.
    assert sum(kinds[k] for k in ("ENTER", "LEAVE", "MPI_SEND", "MPI_RECV")) == 116
    trace = ms.read_otf2(archive)
    assert len(trace.states) == kinds["ENTER"] == 42
    assert len(trace.links) == kinds["MPI_SEND"] == kinds["MPI_RECV"] == 16
    enters = sorted(ticks_to_ns(int(r[2]), resolution, offset) for r in records if r[0] == "ENTER")
    assert sorted(trace.states.start_ns) == enters
    sends = sorted(ticks_to_ns(int(r[2]), resolution, offset) for r in records if r[0] == "MPI_SEND")
    assert sorted(trace.links.start_ns) == sends
    lengths = sorted(int(re.search(r"Length: (\d+)", r[3]).group(1)) for r in records if r[0] == "MPI_SEND")
    assert sorted(trace.links["size"].astype(int)) == lengths
    regions = {re.search(r'Region: "(.*)" <', r[3]).group(1) for r in records if r[0] == "ENTER"}
    assert set(trace.states.value.astype(str)) == regions
    assert set(trace.links.value.astype(str)) == {"MPI_COMM_WORLD"}
    # The directory and its anchor file are the same archive.
    assert_same_trace_content(ms.read(archive / "traces.otf2"), trace)
    assert trace.format == "otf2"


def test_otf2_metrics_become_variables():
    archive = shared("pipit", "tests", "data", "ping-pong-otf2-papi")
    lines, _, _ = otf2_print(archive / "traces.otf2")
    samples = sum(len(re.findall(r"\(\"", line)) for line in lines if line.startswith("METRIC"))
    assert samples > 0
    assert len(ms.read_otf2(archive).variables) == samples


def test_otf2_types_roles():
    # otf2-print -G: the archive's metric members are PAPI_TOT_CYC,
    # PAPI_L2_TCM and PAPI_BR_MSP; its locations are CPU threads.
    archive = shared("pipit", "tests", "data", "ping-pong-otf2-papi")
    types = ms.read_otf2(archive).types
    role = dict(zip(types.name, types.role))
    assert role["PAPI_TOT_CYC"] == "cycles"
    assert role["PAPI_L2_TCM"] == role["PAPI_BR_MSP"] == ""
    assert role["thread"] == "thread"


# --- Chrome -----------------------------------------------------------------

def chrome_oracle(path):
    script = REPO / "core" / "readers" / "chrome" / "testdata" / "count_events.py"
    out = subprocess.run([sys.executable, str(script), str(path)], capture_output=True, text=True, check=True)
    return next(iter(json.loads(out.stdout).values()))


@pytest.mark.parametrize("parts", [
    ("hatchet", "perfflow_hist", "laghos_1iter.pfw"),
    ("hta", "tests", "data", "trace_filter", "sampled_rank-0.json.gz"),
])
def test_chrome_against_an_independent_count(parts):
    path = shared(*parts)
    want = chrome_oracle(path)
    trace = ms.read_chrome(path)
    assert len(trace.states) == want["phases"].get("X", 0) + want["phases"].get("B", 0)
    # Flows, and Kineto's correlation ids where no flow links a launch.
    assert len(trace.links) == want["links"] + want["correlationLinks"] + want["eventWaits"]
    assert len(trace.events) == want["instants"]
    assert trace.states.start_ns.min() == want["start"]
    assert max(trace.states.end_ns.max(), trace.states.start_ns.max()) == want["end"]
    rows = set(zip(trace.states.value.astype(str), trace.states.start_ns, trace.states.end_ns))
    for s in want["slices"]:
        assert (s["name"], s["start"], s["end"]) in rows
    assert_same_trace(ms.read(path), trace)


def test_chrome_first_slice_exactly():
    path = shared("hatchet", "perfflow_hist", "laghos_1iter.pfw")
    first = json.loads(path.read_text(), parse_float=Decimal)[0]
    s = ms.read_chrome(path).states.iloc[0]
    assert s.value == first["name"]
    assert s.start_ns == int(first["ts"] * 1000) and s.end_ns == int((first["ts"] + first["dur"]) * 1000)
    assert s.container == f"{first['pid']}/{first['tid']}"


def test_chrome_async_ids_share_lanes(tmp_path):
    # Five requests of one name, at most two open at once: two lanes of the
    # group "fetch", as Perfetto and the trace viewer draw them, not five
    # containers; the time per state is that of the ids' slices, and each
    # slice's args begin with its id.
    spans = {1: (10, 20), 2: (15, 30), 3: (20, 25), 4: (26, 28), 5: (31, 40)}
    events = [{"ph": "M", "name": "process_name", "pid": 7, "args": {"name": "Browser"}}]
    for i, (b, e) in spans.items():
        events += [{"ph": "b", "cat": "net", "name": "fetch", "id": hex(i), "pid": 7, "ts": b, "args": {"n": i}},
                   {"ph": "e", "cat": "net", "name": "fetch", "id": hex(i), "pid": 7, "ts": e}]
    path = tmp_path / "requests.json"
    path.write_text(json.dumps(events))
    trace = ms.read_chrome(path, args=True)
    assert list(trace.containers.path) == ["Browser", "Browser/fetch", "Browser/fetch (overlap lane 1)"]
    states = trace.states
    lanes = dict(zip(states.args.map(lambda a: json.loads(a)["id"]), states.container))
    assert lanes == {"0x1": "Browser/fetch", "0x2": "Browser/fetch (overlap lane 1)", "0x3": "Browser/fetch",
                     "0x4": "Browser/fetch", "0x5": "Browser/fetch"}
    assert [json.loads(a) for a in states.args] == [{"id": hex(i), "n": i} for i in (1, 3, 4, 5, 2)]
    assert (states.end_ns - states.start_ns).sum() == sum(e - b for b, e in spans.values()) * 1000


# --- Paraver ----------------------------------------------------------------

def paraver_oracle(path):
    script = REPO / "core" / "readers" / "paraver" / "testdata" / "count_records.py"
    out = subprocess.run([sys.executable, str(script), str(path)], capture_output=True, text=True, check=True)
    return next(iter(json.loads(out.stdout).values()))


def test_paraver_against_an_independent_count():
    path = shared("paraver", "test", "cutter", "qsort_beo3.prv")
    want = paraver_oracle(path)
    trace = ms.read_paraver(path)
    # MANIFEST.md: 292 state records, 422 event records, 33 communications,
    # 45 global operations (events too).
    assert len(trace.states) == want["records"]["1"] == 292
    assert len(trace.links) == want["records"]["3"] == 33
    assert len(trace.events) == want["eventPairs"] + want["records"]["4"] == 467
    counts = trace.events.type.astype(str).value_counts()
    for name, n in want["eventsPerType"].items():
        assert counts[name] == n, name
    assert trace.end * 1e9 == pytest.approx(want["end"], abs=0.5)
    rows = set(zip(trace.states.container.astype(str).str.rsplit("/", n=1).str[-1], trace.states.start_ns,
                   trace.states.end_ns, trace.states.value.astype(str)))
    for s in want["states"]:
        assert ("THREAD " + s["thread"], s["start"], s["end"], s["state"]) in rows
    links = set(zip(trace.links.source.astype(str).str.rsplit("/", n=1).str[-1],
                    trace.links.destination.astype(str).str.rsplit("/", n=1).str[-1],
                    trace.links.start_ns, trace.links.end_ns, trace.links["size"], trace.links.value.astype(str)))
    for c in want["comms"]:
        assert ("THREAD " + c["from"], "THREAD " + c["to"], c["start"], c["end"], c["size"], c["tag"]) in links
    assert_same_trace(ms.read(path), trace)


def test_paraver_cpu_view():
    path = shared("paraver", "test", "cutter", "qsort_beo3.prv")
    by_cpu = ms.read_paraver(path, view="cpu")
    # Header 4(1:1,1:2,1:3,1:4): four nodes of one CPU each.
    assert list(by_cpu.containers.path) == [p for n in range(1, 5) for p in (f"NODE {n}", f"NODE {n}/CPU {n}")]
    assert len(by_cpu.states) == 292
    # The first state record, 1:4:1:4:1:0:8464:2, ran on CPU 4.
    first = by_cpu.states[(by_cpu.states.start_ns == 0) & (by_cpu.states.end_ns == 8_464_000)]
    assert list(first.container) == ["NODE 4/CPU 4"] and list(first.value) == ["Not created"]
    with pytest.raises(ms.InvalidArgumentError) as info:
        ms.read_paraver(path, view="core")
    assert info.value.param == "view"


# --- pj_dump tables and StarVZ ----------------------------------------------

def test_pjdump_table_rebuilds_the_trace(tmp_path, mardi_path):
    # PajeNG's expected output of pj_dump on simu-mardi, read back.
    dump = tmp_path / "mardi.csv"
    dump.write_text(oracle("032_pj_dump_simu_mardi_trace.out"))
    from_dump = ms.read_pjdump(dump)
    original = ms.read_paje(mardi_path)
    assert (len(from_dump.containers), len(from_dump.states), len(from_dump.links), len(from_dump.variables)) == \
        (306, 13620, 405, 507)
    assert sorted(from_dump.containers.path) == sorted(original.containers.path)
    # pj_dump prints microseconds: the times agree to the microsecond.
    def ordered(states):
        states = states.astype({"container": str, "type": str, "value": str})
        return states.sort_values(["container", "type", "start_ns", "depth", "value"]).reset_index(drop=True)

    a, b = ordered(from_dump.states), ordered(original.states)
    assert list(a.container) == list(b.container)
    assert list(a.value) == list(b.value)
    assert (a.start_ns == (b.start_ns / 1000).round() * 1000).all()
    assert (a.end_ns == (b.end_ns / 1000).round() * 1000).all()
    assert_same_trace(ms.read(dump), from_dump)


def test_starvz_directory():
    lu = shared("starvz", "inst", "extdata", "lu_trace")
    with pytest.raises(ms.TraceFormatError) as info:
        ms.read_pjdump(lu)
    assert info.value.file.endswith("paje.variable.csv.gz") and info.value.line == 34
    with pytest.warns(UserWarning) as caught:
        trace = ms.read_pjdump(lu, skip_inverted=True)
    messages = [str(w.message) for w in caught]
    assert "skipped 3 rows ending before they start" in messages
    assert any(m.startswith("skipped a row ending before it starts: ") and m.endswith("paje.variable.csv.gz:34")
               for m in messages)
    assert trace.warnings == messages
    # MANIFEST.md: 5,681 worker states, 1,603 variable rows (3 of them
    # inverted), 35 MPI links, 2,177 events; the other state files hold
    # 2,170, 627 and 105 rows.
    types = trace.states.type.astype(str).value_counts()
    assert (types["Worker State"], types["User Thread State"], types["Communication Thread State"],
            types["Memory Node State"]) == (5681, 2170, 627, 105)
    assert (len(trace.variables), len(trace.links), len(trace.events)) == (1600, 35, 2177)
    # StarPU's dates are milliseconds (time_unit="auto"): the LU run lasts
    # 2.36 s, its last worker state ending at 2362.789704 in the file;
    # time_unit="s" reads the file's numbers as seconds.
    rows = pd.read_csv(lu / "paje.worker_state.csv.gz", skipinitialspace=True, dtype={"Start": str, "End": str})
    first = rows.iloc[0]
    last_end = max(rows.End, key=Decimal)
    assert last_end == "2362.789704"
    for unit, ns in (("auto", 10**6), ("ms", 10**6), ("s", 10**9)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            read = trace if unit == "auto" else ms.read_pjdump(lu, skip_inverted=True, time_unit=unit)
        worker = read.states[read.states.type == "Worker State"]
        got = worker.iloc[0]
        assert got.container.rsplit("/", 1)[-1] == first.ResourceId and got.value == first.Value
        assert (int(got.start_ns), int(got.end_ns)) == (Decimal(first.Start) * ns, Decimal(first.End) * ns)
        assert int(worker.end_ns.max()) == Decimal(last_end) * ns
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_trace(ms.read(lu, skip_inverted=True), trace)


# --- ms.read ----------------------------------------------------------------

def test_read_finds_the_format(bundled_trace):
    assert_same_trace(ms.read(bundled_trace), ms.read_paje(bundled_trace))
    assert_same_trace(ms.read(bundled_trace, format="paje", strict=False), ms.read_paje(bundled_trace))
    assert ms.read(bundled_trace).format == "paje"
    assert {"paje", "otf2", "chrome", "paraver", "pjdump", "nsys", "rpd", "hpctoolkit", "xplane", "perfetto",
            "gotrace"} <= set(ms.FORMATS)


def test_read_option_errors(bundled_trace):
    with pytest.raises(ms.InvalidArgumentError) as info:
        ms.read(bundled_trace, view="cpu")
    assert info.value.param == "view" and "paje" in str(info.value)
    with pytest.raises(ms.InvalidArgumentError) as info:
        ms.read(bundled_trace, format="xml")
    assert info.value.param == "format"
    with pytest.raises(TypeError, match="vieww"):
        ms.read(bundled_trace, vieww="cpu")
    with pytest.raises(ms.TraceNotFoundError):
        ms.read("/no/such/trace.otf2")


def test_read_gives_up_on_unknown_content(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("hello\n")
    with pytest.raises(ms.TraceFormatError) as info:
        ms.read(path)
    assert info.value.file == str(path) and "format" in info.value.cause


# --- bad input, format by format ----------------------------------------------

def copy_archive(tmp_path):
    src = shared("pipit", "tests", "data", "ping-pong-otf2")
    dst = tmp_path / "archive"
    shutil.copytree(src, dst)
    for p in dst.rglob("*"):
        p.chmod(0o644 if p.is_file() else 0o755)
    return dst


def test_bad_otf2_names_file_and_offset(tmp_path):
    archive = copy_archive(tmp_path)
    evt = archive / "traces" / "0.evt"
    data = evt.read_bytes()
    evt.write_bytes(data[: len(data) // 2])
    with pytest.raises(ms.TraceFormatError) as info:
        ms.read(archive)
    assert info.value.file == str(evt) and info.value.offset > 0 and "truncated" in info.value.cause


@pytest.mark.parametrize("name, text, line, offset, cause", [
    ("bad.json", '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2},\n{"ph":"X",,}]', 2, 65, "expected a string"),
    ("bad.prv", "#Paraver (x):1000_ns:1(1:1)\n1:1:1:1:1:0:10:1\n", 1, None, "header"),
    ("bad.csv", "Container, 0, 0, 0, 3, 3, 0\nContainer, 0, P, 0, 3, 3, p1\nState, p1, S, 0.000000, 1.0\n", 3, None,
     "too few"),
    ("bad.trace", "%EventDef PajeSetState 1\n% Time date\n% Container string\n% Type string\n% Value string\n"
     "%EndEventDef\n1 0.5 nowhere S run\n", 7, None, "nowhere"),
])
def test_bad_input_names_file_and_position(tmp_path, name, text, line, offset, cause):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ms.TraceFormatError) as info:
        ms.read(path)
    e = info.value
    assert (e.file, e.line, e.offset) == (str(path), line, offset) and cause in e.cause
    assert str(path) in str(e)


def test_paraver_skips_bad_records_as_paraver_does_and_says_so(tmp_path):
    # Paraver's own reader reports a malformed record and goes on: so do
    # we, counting it and naming its line; a cut last line marks the trace
    # incomplete.
    path = tmp_path / "bad.prv"
    path.write_text("#Paraver (x):1000_ns:1(1):1:1(1:1)\n1:1:1:1:1:0:1000:1\n1:1:1:1:1:zz:10:1\n")
    with pytest.warns(UserWarning, match=r'skipped 1 state records .*line 3: field 6 is "zz"'):
        trace = ms.read(path)
    assert len(trace.states) == 1 and trace.complete
    cut = tmp_path / "cut.prv"
    cut.write_text("#Paraver (x):1000_ns:1(1):1:1(1:1)\n1:1:1:1:1:0:1000:1\n1:1:1:1:1:0:1")
    with pytest.warns(UserWarning, match="incomplete: .*the last line \\(3\\) has no end of line"):
        trace = ms.read(cut)
    assert not trace.complete and "INCOMPLETE" in repr(trace)


def test_paraver_side_files_that_disagree_are_said(tmp_path):
    # Paraver names the threads a .row lacks by their numbers and keeps the
    # last of a state named twice in the .pcf, silently: the reader does
    # the same, and says so, naming the file and line.
    path = tmp_path / "t.prv"
    path.write_text("#Paraver (x):1000_ns:1(2):1:2(1:1,1:1)\n1:1:1:1:1:0:10:1\n1:1:1:2:1:0:10:0\n")
    (tmp_path / "t.row").write_text("LEVEL THREAD SIZE 1\nmain\n")
    (tmp_path / "t.pcf").write_text("STATES\n0 Idle\n1 Running\n0 Again\n")
    with pytest.warns(UserWarning) as caught:
        trace = ms.read(path)
    messages = [str(w.message) for w in caught]
    assert messages == trace.warnings == [
        f"{tmp_path / 't.pcf'}:4: STATES: state 0 is given again (first at line 2); "
        "the last one is kept, as Paraver keeps it",
        f"{tmp_path / 't.row'}:1: LEVEL THREAD names 1 resources, the trace has 2: "
        "the last 1 keep their default names, as Paraver names them",
    ]
    by_thread = {c.rsplit("/", 1)[-1]: v for c, v in zip(trace.states.container.astype(str), trace.states.value.astype(str))}
    assert by_thread == {"main": "Running", "THREAD 1.2.1": "Again"}


def test_broken_gzip_is_a_format_error(tmp_path):
    path = tmp_path / "cut.json.gz"
    path.write_bytes(gzip.compress(b'[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2}]' * 50)[:40])
    with pytest.raises(ms.TraceFormatError) as info:
        ms.read(path)
    assert info.value.file == str(path)


# --- python -m macroscope overview --------------------------------------------

def test_overview_reads_any_format(tmp_path, capfd):
    # The command line writes to the process's standard output and error.
    from macroscope.__main__ import main

    archive = shared("tracer-stencil4d", "stencil4d-otf", "traces-32")
    assert main(["overview", str(archive), "--format", "otf2", "--out", str(tmp_path), "--slices", "20"]) == 0
    out = capfd.readouterr().out
    assert "traces-32: 67 containers, 1251 states, 0 variables, 512 links, 192 events" in out
    assert (tmp_path / "overview.png").stat().st_size > 0 and (tmp_path / "aggregates.parquet").exists()
    assert main(["overview", str(archive), "--format", "xml"]) == 2
    assert 'invalid --format: unknown format "xml"' in capfd.readouterr().err
    assert main(["overview", str(archive), "--format", "chrome", "--out", str(tmp_path)]) == 1
    assert "traces-32: is a directory" in capfd.readouterr().err


def test_kineto_gpu_annotations_beside_their_stream(tmp_path):
    """Kineto's copies of the host's annotations on a GPU stream
    (gpu_user_annotation) are on a row of their own: the stream's row holds
    its kernels and is idle between them (HTA's and TraceLens's GPU time),
    where it was "ProfilerStep"; no state is lost."""
    events = [
        {"ph": "M", "name": "thread_name", "pid": 0, "tid": 7, "args": {"name": "stream 7"}},
        {"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#3", "pid": 0, "tid": 7, "ts": 0, "dur": 100},
        {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 0, "dur": 10},
        {"ph": "X", "cat": "kernel", "name": "relu", "pid": 0, "tid": 7, "ts": 90, "dur": 10},
    ]
    path = tmp_path / "rank0.pt.trace.json"
    path.write_text(json.dumps({"traceEvents": events}))
    t = ms.read(path)
    states = t.states
    assert states["duration"].sum() == pytest.approx(120e-6)
    busy = states.groupby("container", observed=True)["duration"].sum()
    assert busy["0/stream 7"] == pytest.approx(20e-6)
    assert busy["0/stream 7 (annotations)"] == pytest.approx(100e-6)
    cells = t.micro(slices=1).to_pandas()
    on_stream = cells[cells["resource"].astype(str).str.endswith("stream 7")]
    assert set(on_stream["state"]) == {"gemm", "relu"}
    assert on_stream["proportion"].sum() == pytest.approx(0.2)


# --- speedscope ---------------------------------------------------------------

def test_speedscope_py_spy_through_python():
    """py-spy's speedscope output (0.4.3, record --format speedscope) is found
    by content and read: the time of each frame name at depth 0 equals the sum
    of the weights of the samples whose stack starts with it, and the thread
    lasts the sum of all the weights."""
    path = REPO / "core" / "readers" / "speedscope" / "testdata" / "pyspy.speedscope.json"
    doc = json.loads(path.read_text())
    frames = doc["shared"]["frames"]
    want = collections.Counter()
    for stack, weight in zip(doc["profiles"][0]["samples"], doc["profiles"][0]["weights"]):
        if stack:
            want[frames[stack[0]]["name"]] += weight
    t = ms.read(path)
    assert t.format == "speedscope"
    states = t.states
    top = states[states["depth"] == 0].groupby("value", observed=True)["duration"].sum()
    assert {k: pytest.approx(v) for k, v in want.items()} == top.to_dict()
    assert t.end - t.start == pytest.approx(sum(doc["profiles"][0]["weights"]))


def test_speedscope_counts_need_their_length(tmp_path):
    """A profile in unit "none" (rbspy's) is refused, naming the option, unless
    count_unit says what a count lasts."""
    doc = {"$schema": "https://www.speedscope.app/file-format-schema.json",
           "shared": {"frames": [{"name": "main", "file": "a.rb"}]},
           "profiles": [{"type": "sampled", "name": "", "unit": "none", "startValue": 0, "endValue": 3,
                         "samples": [[0], [0], [0]], "weights": [1, 1, 1]}]}
    path = tmp_path / "rbspy.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ms.TraceFormatError, match="count_unit") as info:
        ms.read(path)
    assert "rbspy.json" in str(info.value)
    t = ms.read(path, count_unit="10ms")
    assert t.states["duration"].tolist() == pytest.approx([0.03])
