#!/usr/bin/env python3
"""Independent oracle for the reader's tests: walks an HPCToolkit v4
database with the layouts of FORMATS.md and prints, for each trace line (in
file order), its identifier tuple, its record count and, for each record,
the timestamp relative to the traces' minimum, the context id, the name of
the innermost procedure frame (entry point or function context) enclosing
the context and that frame's depth ("-" for context 0).

For an XML database (experiment.xml and *.hpctrace files), the lines are
the trace files in name order, named by rank and thread, the records those
of each file (big-endian time and call path id after a 32-byte header),
times relative to db-min-time in nanoseconds, and frames the procedure
frames (PF, Pr, A) of experiment.xml's tree, call path ids being the "it"
attributes.

Usage: oracle.py DATABASE_DIR > golden.txt
"""
import glob
import os
import xml.etree.ElementTree as ET
import struct
import sys


def cstr(d, p):
    return d[p:d.index(b"\0", p)].decode()


def meta_frames(d):
    sec = [struct.unpack_from("<QQ", d, 16 + 16 * i) for i in range(8)]
    names = {}  # function struct offset -> name
    pf, nf, szf = struct.unpack_from("<QIH", d, sec[7][1])
    pm, nm, szm = struct.unpack_from("<QIH", d, sec[5][1])
    for i in range(nf):
        at = pf + i * szf
        pname, pmod, off = struct.unpack_from("<QQQ", d, at)
        if pname:
            names[at] = cstr(d, pname)
        else:
            mod = cstr(d, struct.unpack_from("<Q", d, pmod + 8)[0]).rsplit("/", 1)[-1]
            names[at] = "<unknown procedure> 0x%x [%s]" % (off, mod)
    ctx = {}  # ctxId -> (frame name, frame depth)
    csec = sec[3][1]
    pe, ne, sze = struct.unpack_from("<QHB", d, csec)
    todo = []
    if sze >= 0x20:
        hdr = 0x20
        for i in range(ne):
            at = pe + i * sze
            szc, pc, cid, kind, pname = struct.unpack_from("<QQIH2xQ", d, at)
            ctx[cid] = (cstr(d, pname), 0)
            todo.append((pc, szc, ctx[cid]))
    else:  # first releases: roots without entry points
        hdr = 0x18
        szr, pr = struct.unpack_from("<QQ", d, csec)
        todo.append((pr, szr, None))
    while todo:
        p, sz, frame = todo.pop()
        end = p + sz
        while p < end:
            szc, pc, cid, flags, rel, lex, nflex = struct.unpack_from("<QQIBBBB", d, p)
            f = frame
            if lex == 0:
                fname = "<unknown procedure>"
                if flags & 1:
                    fname = names[struct.unpack_from("<Q", d, p + hdr)[0]]
                f = (fname, 0 if frame is None else frame[1] + 1)
            ctx[cid] = f
            todo.append((pc, szc, f))
            p += hdr + 8 * nflex
    return ctx


def main(db):
    meta = open(db + "/meta.db", "rb").read()
    ctx = meta_frames(meta)
    kinds_p, nk = struct.unpack_from("<QB", meta, struct.unpack_from("<Q", meta, 0x28)[0])
    kinds = [cstr(meta, struct.unpack_from("<Q", meta, kinds_p + 8 * i)[0]) for i in range(nk)]
    prof = open(db + "/profile.db", "rb").read()
    pp, np_, szp = struct.unpack_from("<QIB", prof, struct.unpack_from("<Q", prof, 0x18)[0])
    tr = open(db + "/trace.db", "rb").read()
    ptr, ntr, sztr, tmin, tmax = struct.unpack_from("<QIB3xQQ", tr, struct.unpack_from("<Q", tr, 0x18)[0])
    for i in range(ntr):
        pi, ps, pe = struct.unpack_from("<I4xQQ", tr, ptr + i * sztr)
        pt = struct.unpack_from("<Q", prof, pp + pi * szp + 0x20)[0]
        nids = struct.unpack_from("<H", prof, pt)[0]
        tup = []
        for k in range(nids):
            kind, fl, lg, ph = struct.unpack_from("<BxHIQ", prof, pt + 8 + 16 * k)
            tup.append("%s=%d" % (kinds[kind], ph if fl & 1 else lg))
        n = (pe - ps) // 12
        print("line", i, " ".join(tup), n)
        for k in range(n):
            ts, c = struct.unpack_from("<QI", tr, ps + 12 * k)
            name, depth = ctx.get(c, ("-", "-")) if c else ("-", "-")
            print(ts - tmin, c, depth, name, sep="\t")


def main_xml(db):
    root = ET.parse(db + "/experiment.xml").getroot()
    procs = {p.get("i"): p.get("n") for p in root.iter("Procedure")}
    tdb = next(root.iter("TraceDB"))
    unit, lo = int(tdb.get("u")), int(tdb.get("db-min-time"))
    frames = {}  # it -> (name, depth)

    def walk(node, frame):
        for c in node:
            f = frame
            if c.tag in ("PF", "Pr", "A"):
                f = (procs.get(c.get("n"), "<unknown procedure>"), 0 if frame is None else frame[1] + 1)
            if c.get("it") is not None:
                frames[int(c.get("it"))] = f
            walk(c, f)

    walk(next(root.iter("SecCallPathProfileData")), None)
    files = sorted(glob.glob(db + "/*.hpctrace"))
    for i, f in enumerate(files):
        d = open(f, "rb").read()
        parts = os.path.basename(f)[: -len(".hpctrace")].split("-")
        n = (len(d) - 32) // 12
        print("line", i, "NODE=%d RANK=%d THREAD=%d" % (int(parts[-3], 16), int(parts[-5]), int(parts[-4])), n)
        for k in range(n):
            ts, c = struct.unpack_from(">QI", d, 32 + 12 * k)
            name, depth = frames.get(c, ("-", "-"))
            print((ts - lo) * (10**9 // unit), c, depth, name, sep="\t")


if os.path.exists(sys.argv[1] + "/meta.db"):
    main(sys.argv[1])
else:
    main_xml(sys.argv[1])
