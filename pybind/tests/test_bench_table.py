"""bench/table.py's pure parts: the marker rewrite that keeps the rest of
README.md and bench/RESULTS.md, the tables' rendering from measurements,
the choice of the corpus's largest file, and the generators that repeat a
real file in time (bench/_synthetic.py). Nothing here is timed: the
measurements are made up."""

import csv
import pathlib
import sqlite3
import struct
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
# The scripts import each other by name: bench/ is on the path while they
# are imported, and taken off again, or its distributed.py would shadow
# dask's distributed for the tests collected after this one.
sys.path.insert(0, str(REPO / "bench"))
try:
    import _synthetic  # noqa: E402
    import table  # noqa: E402
finally:
    sys.path.remove(str(REPO / "bench"))


def test_replace_between_keeps_what_is_outside():
    text = "# Title\n\nbefore\n<!-- bench-table:start -->\nold\nrows\n<!-- bench-table:end -->\nafter\n| kept | row |\n"
    got = table.replace_between(text, "new\n")
    assert got == ("# Title\n\nbefore\n<!-- bench-table:start -->\nnew\n<!-- bench-table:end -->\n"
                   "after\n| kept | row |\n")
    # a second rewrite of the same block changes nothing
    assert table.replace_between(got, "new\n") == got


def test_replace_between_appends_when_no_markers():
    assert table.replace_between("# Results\n\nolder\n", "block") == (
        "# Results\n\nolder\n\n<!-- bench-table:start -->\nblock\n<!-- bench-table:end -->\n")
    assert table.replace_between("", "block") == "<!-- bench-table:start -->\nblock\n<!-- bench-table:end -->\n"


def test_replace_between_refuses_one_marker():
    with pytest.raises(ValueError, match="without the other"):
        table.replace_between("x\n<!-- bench-table:start -->\nno end\n", "block")
    with pytest.raises(ValueError):
        table.replace_between("<!-- bench-table:end -->\n<!-- bench-table:start -->\n", "block")


def test_ratio_format():
    assert [table.ratio(x) for x in (0.547, 1.0, 2.345, 9.96, 12.4, 143.2, 2116.0)] == \
        ["0.55x", "1.0x", "2.3x", "10.0x", "12x", "143x", "2,116x"]


def made_up_inputs():
    R = table.Run
    ours = table.Tool("Macroscope", "ours", ["traceread"], found="6,000,000 states",
                      runs=[R(1.2, 2.0, 200e6), R(1.0, 1.5, 210e6), R(1.1, 1.0, 190e6)])
    peer = table.Tool("pj_dump -q", "peer", ["pj_dump"],
                      runs=[R(12.0, 15.0, 700e6), R(10.0, 12.0, 740e6), R(11.0, 13.5, 720e6)])
    failed = table.Tool("pj_dump > /dev/null", "peer", ["pj_dump"], failed="timed out after 900 s (--timeout)")
    floor = table.Tool("cat > /dev/null", "floor", ["cat"],
                       runs=[R(0.05, 0.03, 2e6), R(0.04, 0.02, 2e6), R(0.06, 0.03, 2e6)])
    generated = table.Input("Pajé", "generated", pathlib.Path("paje-150MB.trace"), "paje-150MB.trace",
                            size=150_000_000, tools=[ours, peer, failed, floor])
    missing = table.Input("HPCToolkit", "generated", None, "", missing="no generator of this format yet")
    return [generated, missing]


def test_results_rows():
    rows = table.results_rows(made_up_inputs())
    assert rows[2:] == [
        "| Pajé | generated: paje-150MB.trace | 150 MB | Macroscope | 6,000,000 states | 1.000 / 1.100 | 1.500 "
        "| 210 | 100 |  | 50x (25x) |",
        # the peer: median CPU 13.5 over 1.5; best wall 10 over 1.0, median 11 over 1.1
        "| Pajé | generated: paje-150MB.trace | 150 MB | pj_dump -q |  | 10.0 / 11.0 | 13.5 | 740 | 11 "
        "| 9.0x (10x, 10x) |  |",
        "| Pajé | generated: paje-150MB.trace | 150 MB | pj_dump > /dev/null | timed out after 900 s (--timeout) "
        "| | | | | | |",
        "| Pajé | generated: paje-150MB.trace | 150 MB | cat > /dev/null |  | 0.040 / 0.050 | 0.030 | 2 | 5,000 |  |  |",
        "| HPCToolkit | generated:  | | | no generator of this format yet | | | | | | |",
    ]


def test_readme_rows():
    rows = table.readme_rows(made_up_inputs())
    assert rows[2:] == [
        "| Pajé | generated, paje-150MB.trace, 150 MB | 100 (1.500; 1.000) | 50x | pj_dump -q 13.5<br>"
        "pj_dump > /dev/null: timed out after 900 s (--timeout) | 9.0x; 10x |",
        "| HPCToolkit | generated: no generator of this format yet | | | | |",
    ]


def test_largest_of_the_corpus(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "small.trace").write_bytes(b"x" * 10)
    (tmp_path / "a" / "large.trace").write_bytes(b"x" * 30)
    db = tmp_path / "db" / "big"
    db.mkdir(parents=True)
    (db / "meta.db").write_bytes(b"x" * 5)
    (db / "trace.db").write_bytes(b"x" * 50)
    assert table._largest(tmp_path, ("a/*.trace",)) == tmp_path / "a" / "large.trace"
    # a database is its directory, all its files counted
    assert table._largest(tmp_path, ("db/*/meta.db", "a/*.trace")) == db
    assert table._largest(tmp_path, ("none/*",)) is None


def test_csv_tiled_shifts_times_and_ids(tmp_path):
    source = tmp_path / "k_kernel_trace.csv"
    source.write_text('"Kind","Correlation_Id","Dispatch_Id","Start_Timestamp","End_Timestamp","Kernel_Name"\n'
                      '"KERNEL_DISPATCH","7","1","100","150","a, b"\n'
                      '"KERNEL_DISPATCH","9","2","160","200","c"\n')
    out = _synthetic.csv_tiled(source, tmp_path / "t_kernel_trace.csv", source.stat().st_size + 1)
    with open(out, newline="") as f:
        rows = list(csv.reader(f))
    # span 200 - 100 + 1 = 101; ids shifted by their largest + 1
    assert rows[1:] == [
        ["KERNEL_DISPATCH", "7", "1", "100", "150", "a, b"],
        ["KERNEL_DISPATCH", "9", "2", "160", "200", "c"],
        ["KERNEL_DISPATCH", "17", "4", "201", "251", "a, b"],
        ["KERNEL_DISPATCH", "19", "5", "261", "301", "c"],
    ]


def test_nsys_tiled_copies_event_rows_in_time(tmp_path):
    source = tmp_path / "s.sqlite"
    db = sqlite3.connect(source)
    db.execute("CREATE TABLE KERNEL (start INTEGER, end INTEGER, correlationId INTEGER, name TEXT)")
    db.execute("CREATE TABLE StringIds (id INTEGER, value TEXT)")
    db.executemany("INSERT INTO KERNEL VALUES (?, ?, ?, ?)", [(10, 20, 1, "k"), (30, 40, 2, "l")])
    db.execute("INSERT INTO StringIds VALUES (1, 'x')")
    db.execute("CREATE TABLE padding (blob BLOB)")
    db.execute("INSERT INTO padding VALUES (zeroblob(20000))")
    db.commit()
    db.close()
    out = _synthetic.nsys_tiled(source, tmp_path / "t.sqlite", 3 * source.stat().st_size)
    db = sqlite3.connect(out)
    # span 40 - 10 + 1 = 31; correlation ids shifted by 3; two copies added
    assert db.execute("SELECT start, end, correlationId, name FROM KERNEL ORDER BY start").fetchall() == [
        (10, 20, 1, "k"), (30, 40, 2, "l"), (41, 51, 4, "k"), (61, 71, 5, "l"), (72, 82, 7, "k"), (92, 102, 8, "l")]
    assert db.execute("SELECT count(*) FROM StringIds").fetchone() == (1,)


def test_hpctoolkit_tiled_repeats_each_line_in_time(tmp_path):
    # a trace.db of two lines: header, one section, the section (pointer to
    # the line headers, their number and size, min and max timestamps), two
    # line headers, the records, the footer
    records = [[(100, 7), (150, 0)], [(120, 9)]]
    section, headers = 0x20, 0x40
    first = headers + 2 * 0x18
    head = bytearray(first)
    head[:16] = b"HPCTOOLKITtrce\x04\x00"
    struct.pack_into("<QQ", head, 0x10, 0x20, section)
    struct.pack_into("<QIBxxxQQ", head, section, headers, 2, 0x18, 100, 150)
    body, at = bytearray(), first
    for i, line in enumerate(records):
        struct.pack_into("<IxxxxQQ", head, headers + i * 0x18, i, at, at + 12 * len(line))
        for ts, ctx in line:
            body += struct.pack("<QI", ts, ctx)
        at += 12 * len(line)
    source = tmp_path / "db"
    source.mkdir()
    (source / "trace.db").write_bytes(bytes(head) + bytes(body) + b"trace.db")
    (source / "meta.db").write_bytes(b"meta")
    (source / "profile.db").write_bytes(b"profile")

    out = _synthetic.hpctoolkit_tiled(source, tmp_path / "tiled", first + 2 * len(body))
    data = (out / "trace.db").read_bytes()
    assert (out / "meta.db").read_bytes() == b"meta" and data[-8:] == b"trace.db"
    assert struct.unpack_from("<QQ", data, section + 0x10) == (100, 150 + 51)   # span 51, 2 copies
    got = []
    for i in range(2):
        _, start, end = struct.unpack_from("<IxxxxQQ", data, headers + i * 0x18)
        got.append([struct.unpack_from("<QI", data, a) for a in range(start, end, 12)])
    assert got == [[(100, 7), (150, 0), (151, 7), (201, 0)], [(120, 9), (171, 9)]]
