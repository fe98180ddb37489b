"""Synthetic traces of about a given size, for bench/table.py, in the
formats for which the project has no generator of its own (Pajé and
pj_dump CSV come from `macroscope synth` and `macroscope dump`, OTF2 from
bench/otf2_synth.py, Kineto JSON from bench/compare.py, Go traces from
bench/gotracegen). Each writer makes the same bytes for the same
arguments, into path + ".part", renamed when complete.

- paraver: a .prv of RANKS tasks of one thread, each a sequence of states
  (Running, Waiting, Sending drawn with a fixed seed) with an event record
  (type 50000001, a user function) at each state's start, and a message
  between neighbours every 16 states; records sorted by time.
- perfetto: a protobuf trace of TrackEvent slices: a track per thread of
  RANKS threads, nested slice begin/end pairs (a "step" holding compute,
  send and wait slices) written field by field (Perfetto's wire format has
  no dependency worth taking for this).
- hpctoolkit: a real database of the corpus (sparse, version 4) whose
  trace.db lines are each repeated in time until the size is reached
  (timestamps shifted by the database's span; meta.db and profile.db
  copied as they are).
- nsys, rocprof CSV: a real file of the corpus repeated in time until the
  size is reached: every row of its event tables (SQLite tables with start
  and end columns; CSV rows) is copied with its times shifted by the
  file's span and its correlation ids by their largest value, so the
  copies do not overlap and launches still find their kernels.
"""

from __future__ import annotations

import csv
import os
import pathlib
import random
import shutil
import sqlite3
import struct

RANKS = 64


def _done(path):
    os.replace(str(path) + ".part", path)
    return path


# Paraver ----------------------------------------------------------------------

PARAVER_STATES = (1, 3, 4, 9)   # Running, Waiting a message, Blocking send, Group communication


def paraver(path, size, ranks=RANKS):
    """A Paraver trace (path ends in .prv) of about size bytes, with its .pcf."""
    rng = random.Random(1)
    part = str(path) + ".part"
    clock = [0] * ranks
    written = 0
    with open(part, "w") as f:
        header_end = 10**15     # the end time, fixed so the header's length is known
        threads = ",".join("1:1" for _ in range(ranks))
        head = f"#Paraver (01/01/26 at 00:00):{header_end}_ns:1({ranks}):1:{ranks}({threads}),0\n"
        f.write(head)
        written += len(head)
        step = 0
        while written < size:
            lines = []
            for r in range(ranks):
                t = clock[r]
                d = rng.randrange(1_000, 100_000)
                state = PARAVER_STATES[rng.randrange(len(PARAVER_STATES))]
                task = r + 1
                lines.append(f"1:{task}:1:{task}:1:{t}:{t + d}:{state}\n")
                lines.append(f"2:{task}:1:{task}:1:{t}:50000001:{1 + step % 7}\n")
                if step % 16 == 0 and ranks > 1:
                    peer = (r + 1) % ranks + 1
                    # 3:cpu_s:ptask_s:task_s:thread_s:logical_send:physical_send:cpu_r:ptask_r:task_r:thread_r:
                    #   logical_recv:physical_recv:size:tag
                    lines.append(f"3:{task}:1:{task}:1:{t}:{t}:{peer}:1:{peer}:1:{t + d}:{t + d}:4096:{step}\n")
                clock[r] = t + d
            chunk = "".join(lines)
            f.write(chunk)
            written += len(chunk)
            step += 1
    with open(str(path)[: -len(".prv")] + ".pcf", "w") as f:
        f.write("STATES\n0    Idle\n1    Running\n3    Waiting a message\n4    Blocking Send\n"
                "9    Group Communication\n\nEVENT_TYPE\n0    50000001    User function\nVALUES\n"
                + "".join(f"{i}      function_{i}\n" for i in range(1, 8)) + "\n")
    return _done(path)


# Perfetto protobuf ------------------------------------------------------------

def _varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _field_varint(num, value):
    return _varint(num << 3) + _varint(value)


def _field_bytes(num, data):
    return _varint(num << 3 | 2) + _varint(len(data)) + data


def _packet(body):
    return _field_bytes(1, body)   # Trace.packet


def perfetto(path, size, ranks=RANKS):
    """A Perfetto protobuf trace of about size bytes."""
    rng = random.Random(1)
    seq = _field_varint(10, 1)     # trusted_packet_sequence_id
    part = str(path) + ".part"
    names = ("compute", "MPI_Send", "MPI_Wait", "MPI_Recv")
    written = 0
    with open(part, "wb") as f:
        head = bytearray()
        process = _field_varint(1, 4242) + _field_bytes(6, b"synthetic")   # ProcessDescriptor pid, process_name
        head += _packet(_field_bytes(60, _field_varint(1, 1) + _field_bytes(3, process)) + seq)
        for r in range(ranks):
            thread = _field_varint(1, 4242) + _field_varint(2, 5000 + r) + _field_bytes(5, f"rank {r}".encode())
            desc = _field_varint(1, 100 + r) + _field_varint(5, 1) + _field_bytes(4, thread)
            head += _packet(_field_bytes(60, desc) + seq)
        f.write(head)
        written += len(head)
        clock = [1_000_000] * ranks

        def slice_event(kind, t, track, name=None):
            te = _field_varint(9, kind) + _field_varint(11, track)
            if name is not None:
                te += _field_bytes(23, name)
            return _packet(_field_varint(8, t) + _field_bytes(11, te) + seq)

        while written < size:
            out = bytearray()
            for r in range(ranks):
                t, track = clock[r], 100 + r
                out += slice_event(1, t, track, b"step")
                t += 10
                for _ in range(8):
                    out += slice_event(1, t, track, names[rng.randrange(len(names))].encode())
                    t += rng.randrange(100, 10_000)
                    out += slice_event(2, t, track)
                    t += 10
                out += slice_event(2, t, track)
                clock[r] = t + 10
            f.write(out)
            written += len(out)
    return _done(path)


# Real files repeated in time ------------------------------------------------------

def nsys_tiled(source, path, size):
    """The Nsight Systems SQLite export source, its event tables repeated
    in time until the database holds about size bytes."""
    part = str(path) + ".part"
    shutil.copyfile(source, part)
    db = sqlite3.connect(part)
    tables = []
    for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
        cols = [row[1] for row in db.execute(f'PRAGMA table_info("{name}")')]
        if "start" in cols and "end" in cols and db.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0]:
            tables.append((name, cols))
    lo = min(db.execute(f'SELECT min(start) FROM "{t}"').fetchone()[0] for t, _ in tables)
    hi = max(db.execute(f'SELECT max(coalesce("end", start)) FROM "{t}"').fetchone()[0] for t, _ in tables)
    span = hi - lo + 1
    corr = max((db.execute(f'SELECT max(correlationId) FROM "{t}"').fetchone()[0] or 0)
               for t, cols in tables if "correlationId" in cols) + 1
    rows0 = {t: db.execute(f'SELECT max(rowid) FROM "{t}"').fetchone()[0] for t, _ in tables}
    grown = os.path.getsize(source)
    copies = max(1, round(size / grown) - 1)
    for k in range(1, copies + 1):
        for t, cols in tables:
            select = []
            for c in cols:
                if c in ("start", "end"):
                    select.append(f'"{c}" + {k * span}')
                elif c == "correlationId":
                    select.append(f'"{c}" + {k * corr}')
                else:
                    select.append(f'"{c}"')
            names = ", ".join(f'"{c}"' for c in cols)
            db.execute(f'INSERT INTO "{t}" ({names}) SELECT {", ".join(select)} FROM "{t}" WHERE rowid <= {rows0[t]}')
        db.commit()
    db.close()
    return _done(path)


def csv_tiled(source, path, size):
    """The CSV source (a rocprof trace) repeated in time until about size
    bytes: columns named *Timestamp shifted by the file's span, *_Id
    columns of correlation and dispatch by their largest value."""
    with open(source, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    times = [i for i, c in enumerate(header) if c.endswith("Timestamp")]
    ids = [i for i, c in enumerate(header) if c in ("Correlation_Id", "Dispatch_Id")]
    values = [int(r[i]) for r in body for i in times]
    span = max(values) - min(values) + 1
    top = {i: max(int(r[i]) for r in body) + 1 for i in ids}
    part = str(path) + ".part"
    with open(part, "w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\n")
        w.writerow(header)
        k = 0
        while f.tell() < size:
            for r in body:
                r = list(r)
                for i in times:
                    r[i] = str(int(r[i]) + k * span)
                for i in ids:
                    r[i] = str(int(r[i]) + k * top[i])
                w.writerow(r)
            k += 1
    return _done(path)


def hpctoolkit_tiled(source, path, size):
    """The HPCToolkit database directory source (meta.db, profile.db,
    trace.db), its trace lines repeated in time until the database holds
    about size bytes, written as the directory path. trace.db (FORMATS.md
    of HPCToolkit): a 16-byte header, sections of (size, pointer); the
    Context Trace Headers section points at the line headers (profile u32,
    start u64 at +8, end u64 at +16) and holds the smallest and largest
    timestamps (+16, +24); a line is 12-byte records (u64 timestamp, u32
    context), little-endian; the file ends with an 8-byte footer."""
    source, path = pathlib.Path(source), pathlib.Path(path)
    part = pathlib.Path(str(path) + ".part")
    if part.exists():
        shutil.rmtree(part)
    part.mkdir(parents=True)
    for name in ("meta.db", "profile.db"):
        shutil.copyfile(source / name, part / name)
    data = (source / "trace.db").read_bytes()
    ptr = struct.unpack_from("<Q", data, 0x18)[0]           # section 1's pointer
    p_traces, n = struct.unpack_from("<QI", data, ptr)
    stride = data[ptr + 0x0C]
    lo, hi = struct.unpack_from("<QQ", data, ptr + 0x10)
    lines = [struct.unpack_from("<IxxxxQQ", data, p_traces + i * stride) for i in range(n)]
    first = min((start for _, start, end in lines if end > start), default=len(data) - 8)
    records = sum(end - start for _, start, end in lines)
    copies = max(1, round((size - first) / max(records, 1)))
    span = hi - lo + 1
    head = bytearray(data[:first])
    out = bytearray()
    for i, (prof, start, end) in enumerate(lines):
        begin = first + len(out)
        for k in range(copies):
            for at in range(start, end, 12):
                ts, ctx = struct.unpack_from("<QI", data, at)
                out += struct.pack("<QI", ts + k * span, ctx)
        struct.pack_into("<QQ", head, p_traces + i * stride + 8, begin, first + len(out))
    struct.pack_into("<Q", head, ptr + 0x18, hi + (copies - 1) * span)
    (part / "trace.db").write_bytes(bytes(head) + bytes(out) + data[-8:])
    if path.exists():
        shutil.rmtree(path)
    os.replace(part, path)
    return path
