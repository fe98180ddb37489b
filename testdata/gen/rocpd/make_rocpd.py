#!/usr/bin/env python3
"""Write a small rocpd SQLite database, the format rocprofv3 writes by
default since ROCm 7.0, for the tests of core/readers/rocprof.

The run is made up but shaped like a real one: each of two processes on
one node (gpu-node-01) has a main thread and a helper thread, sees one
CPU and two GPU agents (AMD Instinct MI210), and loops six times over a
roctx range "iteration" (roctxRangePushA, its message in the event's
extdata, as rocprofv3 writes it) holding hipMemcpy (host to device, with the HSA
copy call nested in it), two hipLaunchKernel (kernels on two queues of
the iteration's GPU), a hipMemcpy back and a hipDeviceSynchronize; the
helper thread calls hipStreamSynchronize. Correlation ids join each copy
and kernel to its HIP call; each process numbers them from 1, as
rocprofv3 does. hipMalloc calls come with memory allocation rows, a few
kernels with counter values (rocpd_pmc_event), the GPUs with samples
(rocpd_sample): the reader counts those as not modelled.

rocprofv3 writes one database per process (<pid>_results.db), each with
its own set of tables named with the run's uuid (rocpd_string_<uuid>...);
merged, one file holds both sets. Unsuffixed views join the sets
(rocpd_string, ...), and data views (regions, kernels, memory_copies,
processes, threads) join a set's tables into the columns users query.

The schema here is written from rocprofiler-sdk's documented tables
(share/rocprofiler-sdk-rocpd/rocpd_tables.sql, schema_version 3) and the
column names of its data views; it is not a copy of that SQL. With
--ddl DIR (an installed rocprofiler-sdk's share/rocprofiler-sdk-rocpd),
the tables and views are created by executing the official SQL files
instead, {{uuid}} and {{guid}} substituted as rocprofv3 does; use it with
--runs 1, as the official views of a file read only its first set.

--timestamps writes the older layout of the schema: times in a
rocpd_timestamp table (start_id, end_id) and places in rocpd_track
(track_id), operating-system pids and tids there.

    python3 make_rocpd.py OUT.db [--runs 2] [--timestamps] [--ddl DIR]
"""

import argparse
import json
import os
import random
import sqlite3

NODE = "gpu-node-01"
RUNS = [  # pid, uuid suffix
    (4101, "00001005-5a1e-7c3d-9b11-0123456789ab"),
    (4102, "00001006-5a1e-7c3d-9b11-0123456789ab"),
]
KERNELS = [
    ("_Z6vecAddPfPKfi", "vecAdd(float*, float const*, int)"),
    ("_Z6reducePKfPfi", "reduce(float const*, float*, int)"),
    ("_Z9transposePfPKfii", "transpose(float*, float const*, int, int)"),
]

# Columns of the released schema (times inline), by table.
J = '"extdata" JSONB DEFAULT "{}" NOT NULL'
G = '"guid" TEXT NOT NULL'
ID = '"id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT'
TABLES = {
    "metadata": f'{ID}, "tag" TEXT NOT NULL, "value" TEXT NOT NULL',
    "string": f'{ID}, {G}, "string" TEXT NOT NULL UNIQUE',
    "info_node": f'{ID}, {G}, "hash" BIGINT NOT NULL UNIQUE, "machine_id" TEXT NOT NULL UNIQUE, '
                 '"system_name" TEXT, "hostname" TEXT, "release" TEXT, "version" TEXT, "hardware_name" TEXT, "domain_name" TEXT',
    "info_process": f'{ID}, {G}, "nid" INTEGER NOT NULL, "ppid" INTEGER, "pid" INTEGER NOT NULL, "init" BIGINT, '
                    f'"fini" BIGINT, "start" BIGINT, "end" BIGINT, "command" TEXT, "environment" JSONB DEFAULT "{{}}" NOT NULL, {J}',
    "info_thread": f'{ID}, {G}, "nid" INTEGER NOT NULL, "ppid" INTEGER, "pid" INTEGER NOT NULL, "tid" INTEGER NOT NULL, '
                   f'"name" TEXT, "start" BIGINT, "end" BIGINT, {J}',
    "info_agent": f'{ID}, {G}, "nid" INTEGER NOT NULL, "pid" INTEGER NOT NULL, "type" TEXT, "absolute_index" INTEGER, '
                  '"logical_index" INTEGER, "type_index" INTEGER, "uuid" INTEGER, "name" TEXT, "model_name" TEXT, '
                  f'"vendor_name" TEXT, "product_name" TEXT, {J}',
    "info_queue": f'{ID}, {G}, "nid" INTEGER NOT NULL, "pid" INTEGER NOT NULL, "name" TEXT, {J}',
    "info_stream": f'{ID}, {G}, "nid" INTEGER NOT NULL, "pid" INTEGER NOT NULL, "name" TEXT, {J}',
    "info_pmc": f'{ID}, {G}, "nid" INTEGER NOT NULL, "pid" INTEGER NOT NULL, "agent_id" INTEGER, "target_arch" TEXT, '
                '"event_code" INT, "instance_id" INTEGER, "name" TEXT NOT NULL, "symbol" TEXT NOT NULL, "description" TEXT, '
                '"long_description" TEXT, "component" TEXT, "units" TEXT, "value_type" TEXT, "block" TEXT, '
                f'"expression" TEXT, "is_constant" INTEGER, "is_derived" INTEGER, {J}',
    "info_code_object": f'{ID}, {G}, "nid" INTEGER NOT NULL, "pid" INTEGER NOT NULL, "agent_id" INTEGER, "uri" TEXT, '
                        f'"load_base" BIGINT, "load_size" BIGINT, "load_delta" BIGINT, "storage_type" TEXT, {J}',
    "info_kernel_symbol": f'{ID}, {G}, "nid" INTEGER NOT NULL, "pid" INTEGER NOT NULL, "code_object_id" INTEGER NOT NULL, '
                          '"kernel_name" TEXT, "display_name" TEXT, "kernel_object" INTEGER, "kernarg_segment_size" INTEGER, '
                          '"kernarg_segment_alignment" INTEGER, "group_segment_size" INTEGER, "private_segment_size" INTEGER, '
                          f'"sgpr_count" INTEGER, "arch_vgpr_count" INTEGER, "accum_vgpr_count" INTEGER, {J}',
    "track": f'{ID}, {G}, "nid" INTEGER NOT NULL, "pid" INTEGER, "tid" INTEGER, "name_id" INTEGER, {J}',
    "event": f'{ID}, {G}, "category_id" INTEGER, "stack_id" INTEGER, "parent_stack_id" INTEGER, "correlation_id" INTEGER, '
             f'"call_stack" JSONB DEFAULT "{{}}" NOT NULL, "line_info" JSONB DEFAULT "{{}}" NOT NULL, {J}',
    "arg": f'{ID}, {G}, "event_id" INTEGER NOT NULL, "position" INTEGER NOT NULL, "type" TEXT NOT NULL, '
           f'"name" TEXT NOT NULL, "value" TEXT, {J}',
    "pmc_event": f'{ID}, {G}, "event_id" INTEGER, "pmc_id" INTEGER NOT NULL, "value" REAL DEFAULT 0.0, "extdata" JSONB',
    "region": f'{ID}, {G}, "nid" INTEGER NOT NULL, "pid" INTEGER NOT NULL, "tid" INTEGER NOT NULL, "start" BIGINT NOT NULL, '
              f'"end" BIGINT NOT NULL, "name_id" INTEGER NOT NULL, "event_id" INTEGER, {J}',
    "sample": f'{ID}, {G}, "track_id" INTEGER NOT NULL, "timestamp" BIGINT NOT NULL, "event_id" INTEGER, {J}',
    "kernel_dispatch": f'{ID}, {G}, "nid" INTEGER NOT NULL, "pid" INTEGER NOT NULL, "tid" INTEGER, '
                       '"agent_id" INTEGER NOT NULL, "kernel_id" INTEGER NOT NULL, "dispatch_id" INTEGER NOT NULL, '
                       '"queue_id" INTEGER NOT NULL, "stream_id" INTEGER NOT NULL, "start" BIGINT NOT NULL, '
                       '"end" BIGINT NOT NULL, "private_segment_size" INTEGER, "group_segment_size" INTEGER, '
                       '"workgroup_size_x" INTEGER NOT NULL, "workgroup_size_y" INTEGER NOT NULL, '
                       '"workgroup_size_z" INTEGER NOT NULL, "grid_size_x" INTEGER NOT NULL, "grid_size_y" INTEGER NOT NULL, '
                       f'"grid_size_z" INTEGER NOT NULL, "region_name_id" INTEGER, "event_id" INTEGER, {J}',
    "memory_copy": f'{ID}, {G}, "nid" INTEGER NOT NULL, "pid" INTEGER NOT NULL, "tid" INTEGER, "start" BIGINT NOT NULL, '
                   '"end" BIGINT NOT NULL, "name_id" INTEGER NOT NULL, "dst_agent_id" INTEGER, "dst_address" INTEGER, '
                   '"src_agent_id" INTEGER, "src_address" INTEGER, "size" INTEGER NOT NULL, "queue_id" INTEGER, '
                   f'"stream_id" INTEGER, "region_name_id" INTEGER, "event_id" INTEGER, {J}',
    "memory_allocate": f'{ID}, {G}, "nid" INTEGER NOT NULL, "pid" INTEGER NOT NULL, "tid" INTEGER, "agent_id" INTEGER, '
                       '"type" TEXT, "level" TEXT, "start" BIGINT NOT NULL, "end" BIGINT NOT NULL, "address" INTEGER, '
                       f'"size" INTEGER NOT NULL, "queue_id" INTEGER, "stream_id" INTEGER, "event_id" INTEGER, {J}',
}

# The older layout: times in rocpd_timestamp, places in rocpd_track.
OLD = dict(TABLES)
OLD.update({
    "track": f'{ID}, {G}, "nid" INTEGER NOT NULL, "ppid" INTEGER, "pid" INTEGER, "tid" INTEGER, "agent_id" INTEGER, '
             f'"queue_id" INTEGER, "stream_id" INTEGER, "name_id" INTEGER, {J}',
    "timestamp": f'{ID}, {G}, "value" BIGINT NOT NULL, "phase" INTEGER, "track_id" INTEGER',
    "region": f'{ID}, {G}, "track_id" INTEGER NOT NULL, "name_id" INTEGER NOT NULL, "start_id" INTEGER NOT NULL, '
              f'"end_id" INTEGER NOT NULL, "event_id" INTEGER, {J}',
    "sample": f'{ID}, {G}, "track_id" INTEGER NOT NULL, "name_id" INTEGER NOT NULL, "timestamp_id" INTEGER NOT NULL, '
              f'"event_id" INTEGER, {J}',
    "kernel_dispatch": f'{ID}, {G}, "track_id" INTEGER NOT NULL, "kernel_id" INTEGER NOT NULL, "dispatch_id" INTEGER NOT NULL, '
                       '"start_id" INTEGER NOT NULL, "end_id" INTEGER NOT NULL, "private_segment_size" INTEGER, '
                       '"group_segment_size" INTEGER, "workgroup_size_x" INTEGER NOT NULL, "workgroup_size_y" INTEGER NOT NULL, '
                       '"workgroup_size_z" INTEGER NOT NULL, "grid_size_x" INTEGER NOT NULL, "grid_size_y" INTEGER NOT NULL, '
                       f'"grid_size_z" INTEGER NOT NULL, "region_name_id" INTEGER, "event_id" INTEGER, {J}',
    "memory_copy": f'{ID}, {G}, "track_id" INTEGER NOT NULL, "start_id" INTEGER NOT NULL, "end_id" INTEGER NOT NULL, '
                   '"name_id" INTEGER NOT NULL, "dst_agent_id" INTEGER, "dst_address" INTEGER, "src_agent_id" INTEGER, '
                   f'"src_address" INTEGER, "size" INTEGER NOT NULL, "region_name_id" INTEGER, "event_id" INTEGER, {J}',
    "memory_allocate": f'{ID}, {G}, "track_id" INTEGER NOT NULL, "type" TEXT, "level" TEXT, "start_id" INTEGER NOT NULL, '
                       '"end_id" INTEGER NOT NULL, "name_id" INTEGER NOT NULL, "address" INTEGER, "size" INTEGER NOT NULL, '
                       f'"region_name_id" INTEGER, "event_id" INTEGER, {J}',
})

# The data views, with the official views' column names (the released
# schema's), written for either layout: the test's SQL oracle queries them.
def cat(e):
    return f"(SELECT string FROM rocpd_string RS WHERE RS.id = {e}.category_id AND RS.guid = {e}.guid)"

VIEWS_INLINE = f"""
CREATE VIEW processes AS SELECT N.id AS nid, N.hostname, P.guid, P.ppid, P.pid, P.start, P."end", P.command
  FROM rocpd_info_process P JOIN rocpd_info_node N ON N.id = P.nid AND N.guid = P.guid;
CREATE VIEW threads AS SELECT N.id AS nid, N.hostname, P.guid, P.pid, T.tid, T.start, T."end", T.name
  FROM rocpd_info_thread T JOIN rocpd_info_process P ON P.id = T.pid AND P.guid = T.guid
  JOIN rocpd_info_node N ON N.id = T.nid AND N.guid = T.guid;
CREATE VIEW regions AS SELECT R.id, R.guid, {cat('E')} AS category, S.string AS name, R.nid, P.pid, T.tid,
  R.start, R."end", (R."end" - R.start) AS duration, R.event_id, E.correlation_id AS corr_id, E.extdata
  FROM rocpd_region R JOIN rocpd_event E ON E.id = R.event_id AND E.guid = R.guid
  JOIN rocpd_string S ON S.id = R.name_id AND S.guid = R.guid
  JOIN rocpd_info_process P ON P.id = R.pid AND P.guid = R.guid
  JOIN rocpd_info_thread T ON T.id = R.tid AND T.guid = R.guid;
CREATE VIEW kernels AS SELECT K.id, K.guid, T.tid, {cat('E')} AS category, S.display_name AS name, K.nid, P.pid,
  A.absolute_index AS agent_abs_index, A.type AS agent_type, K.kernel_id, K.dispatch_id, K.stream_id, K.queue_id,
  Q.name AS queue, K.start, K."end", (K."end" - K.start) AS duration, E.correlation_id AS corr_id
  FROM rocpd_kernel_dispatch K JOIN rocpd_info_agent A ON A.id = K.agent_id AND A.guid = K.guid
  JOIN rocpd_event E ON E.id = K.event_id AND E.guid = K.guid
  JOIN rocpd_info_kernel_symbol S ON S.id = K.kernel_id AND S.guid = K.guid
  LEFT JOIN rocpd_info_queue Q ON Q.id = K.queue_id AND Q.guid = K.guid
  JOIN rocpd_info_process P ON P.id = K.pid AND P.guid = K.guid
  JOIN rocpd_info_thread T ON T.id = K.tid AND T.guid = K.guid;
CREATE VIEW memory_copies AS SELECT M.id, M.guid, {cat('E')} AS category, M.nid, P.pid, T.tid, M.start, M."end",
  (M."end" - M.start) AS duration, S.string AS name, M.queue_id, M.size,
  DA.absolute_index AS dst_agent_abs_index, DA.type AS dst_agent_type,
  SA.absolute_index AS src_agent_abs_index, SA.type AS src_agent_type, E.correlation_id AS corr_id
  FROM rocpd_memory_copy M JOIN rocpd_string S ON S.id = M.name_id AND S.guid = M.guid
  JOIN rocpd_info_agent DA ON DA.id = M.dst_agent_id AND DA.guid = M.guid
  JOIN rocpd_info_agent SA ON SA.id = M.src_agent_id AND SA.guid = M.guid
  JOIN rocpd_event E ON E.id = M.event_id AND E.guid = M.guid
  JOIN rocpd_info_process P ON P.id = M.pid AND P.guid = M.guid
  JOIN rocpd_info_thread T ON T.id = M.tid AND T.guid = M.guid;
"""

VIEWS_TRACKS = f"""
CREATE VIEW processes AS SELECT N.id AS nid, N.hostname, P.guid, P.ppid, P.pid, P.start, P."end", P.command
  FROM rocpd_info_process P JOIN rocpd_info_node N ON N.id = P.nid AND N.guid = P.guid;
CREATE VIEW threads AS SELECT N.id AS nid, N.hostname, P.guid, P.pid, T.tid, T.start, T."end", T.name
  FROM rocpd_info_thread T JOIN rocpd_info_process P ON P.id = T.pid AND P.guid = T.guid
  JOIN rocpd_info_node N ON N.id = T.nid AND N.guid = T.guid;
CREATE VIEW regions AS SELECT R.id, R.guid, {cat('E')} AS category, S.string AS name, T.nid, T.pid, T.tid,
  DS.value AS start, DE.value AS "end", (DE.value - DS.value) AS duration, R.event_id, E.correlation_id AS corr_id,
  E.extdata
  FROM rocpd_region R JOIN rocpd_event E ON E.id = R.event_id AND E.guid = R.guid
  JOIN rocpd_track T ON T.id = R.track_id AND T.guid = R.guid
  JOIN rocpd_string S ON S.id = R.name_id AND S.guid = R.guid
  JOIN rocpd_timestamp DS ON DS.id = R.start_id AND DS.guid = R.guid
  JOIN rocpd_timestamp DE ON DE.id = R.end_id AND DE.guid = R.guid;
CREATE VIEW kernels AS SELECT K.id, K.guid, T.tid, {cat('E')} AS category, S.display_name AS name, T.nid, T.pid,
  A.absolute_index AS agent_abs_index, A.type AS agent_type, K.kernel_id, K.dispatch_id, T.stream_id, T.queue_id,
  Q.name AS queue, DS.value AS start, DE.value AS "end", (DE.value - DS.value) AS duration, E.correlation_id AS corr_id
  FROM rocpd_kernel_dispatch K JOIN rocpd_track T ON T.id = K.track_id AND T.guid = K.guid
  JOIN rocpd_info_agent A ON A.id = T.agent_id AND A.guid = K.guid
  JOIN rocpd_event E ON E.id = K.event_id AND E.guid = K.guid
  JOIN rocpd_info_kernel_symbol S ON S.id = K.kernel_id AND S.guid = K.guid
  LEFT JOIN rocpd_info_queue Q ON Q.id = T.queue_id AND Q.guid = K.guid
  JOIN rocpd_timestamp DS ON DS.id = K.start_id AND DS.guid = K.guid
  JOIN rocpd_timestamp DE ON DE.id = K.end_id AND DE.guid = K.guid;
CREATE VIEW memory_copies AS SELECT M.id, M.guid, {cat('E')} AS category, T.nid, T.pid, T.tid, DS.value AS start,
  DE.value AS "end", (DE.value - DS.value) AS duration, S.string AS name, T.queue_id, M.size,
  DA.absolute_index AS dst_agent_abs_index, DA.type AS dst_agent_type,
  SA.absolute_index AS src_agent_abs_index, SA.type AS src_agent_type, E.correlation_id AS corr_id
  FROM rocpd_memory_copy M JOIN rocpd_track T ON T.id = M.track_id AND T.guid = M.guid
  JOIN rocpd_string S ON S.id = M.name_id AND S.guid = M.guid
  JOIN rocpd_info_agent DA ON DA.id = M.dst_agent_id AND DA.guid = M.guid
  JOIN rocpd_info_agent SA ON SA.id = M.src_agent_id AND SA.guid = M.guid
  JOIN rocpd_event E ON E.id = M.event_id AND E.guid = M.guid
  JOIN rocpd_timestamp DS ON DS.id = M.start_id AND DS.guid = M.guid
  JOIN rocpd_timestamp DE ON DE.id = M.end_id AND DE.guid = M.guid;
"""


def create_schema(db, runs, tracks, ddl):
    suffixes = ["_" + guid.replace("-", "_") for _, guid in runs]
    if ddl:
        for (_, guid), suffix in zip(runs, suffixes):
            for name in ("rocpd_tables.sql", "rocpd_indexes.sql", "rocpd_views.sql", "data_views.sql",
                         "marker_views.sql", "summary_views.sql"):
                path = os.path.join(ddl, name)
                if os.path.exists(path):
                    with open(path) as f:
                        db.executescript(f.read().replace("{{uuid}}", suffix).replace("{{guid}}", guid))
        return suffixes
    tables = OLD if tracks else TABLES
    for (_, guid), suffix in zip(runs, suffixes):
        for name, cols in tables.items():
            db.execute(f'CREATE TABLE "rocpd_{name}{suffix}" ({cols})')
        db.executemany(f'INSERT INTO "rocpd_metadata{suffix}" (tag, value) VALUES (?, ?)',
                       [("schema_version", "3"), ("uuid", suffix), ("guid", guid)])
    for name in tables:
        union = " UNION ALL ".join(f'SELECT * FROM "rocpd_{name}{s}"' for s in suffixes)
        db.execute(f"CREATE VIEW rocpd_{name} AS {union}")
    db.executescript(VIEWS_TRACKS if tracks else VIEWS_INLINE)
    return suffixes


class Run:
    """The rows of one process's run, written into its set of tables."""

    def __init__(self, db, suffix, guid, pid, tracks, seed):
        self.db, self.s, self.guid, self.pid, self.tracks = db, suffix, guid, pid, tracks
        self.rng = random.Random(seed)
        self.strings = {}
        self.tracks_by = {}
        self.corr = 0

    def insert(self, table, **cols):
        cols["guid"] = self.guid
        names = ", ".join(f'"{k}"' for k in cols)
        marks = ", ".join("?" for _ in cols)
        cur = self.db.execute(f'INSERT INTO "rocpd_{table}{self.s}" ({names}) VALUES ({marks})', list(cols.values()))
        return cur.lastrowid

    def string(self, s):
        if s not in self.strings:
            self.strings[s] = self.insert("string", string=s)
        return self.strings[s]

    def event(self, category, corr, extdata="{}"):
        return self.insert("event", category_id=self.string(category), correlation_id=corr, stack_id=0, parent_stack_id=0,
                           extdata=extdata)

    def next_corr(self):
        self.corr += 1
        return self.corr

    # The older layout's places and times.
    def track(self, tid=None, agent=None, queue=None, name=None):
        key = (tid, agent, queue, name)
        if key not in self.tracks_by:
            self.tracks_by[key] = self.insert("track", nid=1, pid=self.pid, tid=tid, agent_id=agent, queue_id=queue,
                                              stream_id=None, name_id=self.string(name) if name else None)
        return self.tracks_by[key]

    def ts(self, value, phase, track):
        return self.insert("timestamp", value=value, phase=phase, track_id=track)

    def region(self, thread, category, name, start, end, corr, message=None):
        # A roctx region is named by its function; its message is in the
        # event's extdata, as rocprofv3 writes it.
        ev = self.event(category, corr, json.dumps({"message": message}) if message is not None else "{}")
        if self.tracks:
            tr = self.track(tid=self.tids[thread])
            return self.insert("region", track_id=tr, name_id=self.string(name), start_id=self.ts(start, 1, tr),
                               end_id=self.ts(end, 2, tr), event_id=ev)
        return self.insert("region", nid=1, pid=1, tid=thread, start=start, end=end, name_id=self.string(name), event_id=ev)

    def kernel(self, agent, queue, symbol, start, end, corr, dispatch):
        ev = self.event("KERNEL_DISPATCH", corr)
        dims = dict(private_segment_size=0, group_segment_size=1024, workgroup_size_x=256, workgroup_size_y=1,
                    workgroup_size_z=1, grid_size_x=1 << 20, grid_size_y=1, grid_size_z=1,
                    region_name_id=self.string("hipLaunchKernel"), event_id=ev, kernel_id=symbol, dispatch_id=dispatch)
        if self.tracks:
            tr = self.track(agent=agent, queue=queue)
            self.insert("kernel_dispatch", track_id=tr, start_id=self.ts(start, 1, tr), end_id=self.ts(end, 2, tr), **dims)
        else:
            self.insert("kernel_dispatch", nid=1, pid=1, tid=1, agent_id=agent, queue_id=queue, stream_id=1,
                        start=start, end=end, **dims)
        return ev

    def copy(self, name, src, dst, size, start, end, corr):
        ev = self.event("MEMORY_COPY", corr)
        cols = dict(name_id=self.string(name), src_agent_id=src, dst_agent_id=dst, src_address=0x7f0000000000,
                    dst_address=0x7e0000000000, size=size, region_name_id=self.string("hipMemcpy"), event_id=ev)
        if self.tracks:
            tr = self.track(agent=dst if src == 1 else src, name="memory copy")
            self.insert("memory_copy", track_id=tr, start_id=self.ts(start, 1, tr), end_id=self.ts(end, 2, tr), **cols)
        else:
            self.insert("memory_copy", nid=1, pid=1, tid=1, start=start, end=end, queue_id=None, stream_id=1, **cols)

    def allocate(self, agent, size, at, corr):
        ev = self.event("MEMORY_ALLOCATION", corr)
        if self.tracks:
            tr = self.track(agent=agent, name="memory allocation")
            self.insert("memory_allocate", track_id=tr, type="ALLOC", level="REAL", start_id=self.ts(at, 1, tr),
                        end_id=self.ts(at + 900, 2, tr), name_id=self.string("MEMORY_ALLOCATION_ALLOCATE"),
                        address=0x7e0000000000, size=size, event_id=ev)
        else:
            self.insert("memory_allocate", nid=1, pid=1, tid=1, agent_id=agent, type="ALLOC", level="REAL", start=at,
                        end=at + 900, address=0x7e0000000000, size=size, queue_id=None, stream_id=None, event_id=ev)

    def sample(self, name, at):
        ev = self.event("AMD_SMI", 0)
        tr = self.track(tid=self.tids[1], name=name) if self.tracks else \
            self.insert("track", nid=1, pid=1, tid=1, name_id=self.string(name))
        if self.tracks:
            self.insert("sample", track_id=tr, name_id=self.string(name), timestamp_id=self.ts(at, 0, tr), event_id=ev)
        else:
            self.insert("sample", track_id=tr, timestamp=at, event_id=ev)

    def write(self, t0):
        rng, pid = self.rng, self.pid
        self.insert("info_node", hash=0x5eed0001, machine_id="8f3c2a71d9e54b0b9a1e7d2c4f6a8b10", system_name="Linux",
                    hostname=NODE, release="6.8.0-45-generic", version="#45-Ubuntu SMP", hardware_name="x86_64",
                    domain_name="(none)")
        self.insert("info_process", nid=1, ppid=4000, pid=pid, init=t0 - 5_000_000, fini=t0 + 90_000_000, start=t0,
                    end=t0 + 80_000_000, command=f"./stencil --iterations 6 --rank {pid - 4101}")
        self.tids = {1: pid, 2: pid + 3}
        for tid in self.tids.values():
            self.insert("info_thread", nid=1, ppid=4000, pid=1, tid=tid, name="stencil", start=t0, end=t0 + 80_000_000)
        self.insert("info_agent", nid=1, pid=1, type="CPU", absolute_index=0, logical_index=0, type_index=0, uuid=0,
                    name="AMD EPYC 7763 64-Core Processor", model_name="", vendor_name="CPU",
                    product_name="AMD EPYC 7763 64-Core Processor")
        for i in (1, 2):
            self.insert("info_agent", nid=1, pid=1, type="GPU", absolute_index=i, logical_index=i, type_index=i - 1,
                        uuid=0x1000 + i, name="gfx90a", model_name="aldebaran", vendor_name="AMD",
                        product_name="AMD Instinct MI210")
        # Queues 1, 2 on GPU 1 (agent row 2); 3, 4 on GPU 2 (agent row 3).
        for q in range(1, 5):
            self.insert("info_queue", nid=1, pid=1, name=f"Queue {q}")
        self.insert("info_stream", nid=1, pid=1, name="Default stream")
        self.insert("info_code_object", nid=1, pid=1, agent_id=2, uri="file:///opt/app/stencil#offset=8192&size=20480",
                    load_base=0x7f1000000000, load_size=20480, load_delta=0, storage_type="FILE")
        for mangled, display in KERNELS:
            self.insert("info_kernel_symbol", nid=1, pid=1, code_object_id=1, kernel_name=mangled, display_name=display,
                        kernel_object=0, kernarg_segment_size=24, kernarg_segment_alignment=8, group_segment_size=1024,
                        private_segment_size=0, sgpr_count=16, arch_vgpr_count=12, accum_vgpr_count=0)
        pmc = self.insert("info_pmc", nid=1, pid=1, agent_id=2, target_arch="GPU", event_code=0, instance_id=0,
                          name="SQ_WAVES", symbol="SQ_WAVES", description="Count number of waves sent to SQs",
                          long_description="", component="rocprofiler", units="", value_type="ABS", block="SQ",
                          expression="", is_constant=0, is_derived=0)

        HIP, HSA = "HIP_RUNTIME_API_EXT", "HSA_CORE_API"
        t = t0 + 100_000
        for _ in range(2):  # hipMalloc, one per GPU
            c = self.next_corr()
            d = rng.randrange(20_000, 40_000)
            self.region(1, HIP, "hipMalloc", t, t + d, c)
            self.allocate(2 + _, 1 << 24, t + 1000, c)
            t += d + rng.randrange(1000, 5000)
        dispatch = 0
        for it in range(6):
            gpu = 2 + it % 2  # agent row of the iteration's GPU
            it_start = t
            mark = self.next_corr()
            t += 2000
            # hipMemcpy host to device, the HSA copy call nested in it.
            c = self.next_corr()
            d = rng.randrange(300_000, 500_000)
            self.region(1, HIP, "hipMemcpy", t, t + d, c)
            h = self.next_corr()
            self.region(1, HSA, "hsa_amd_memory_async_copy_on_engine", t + 5000, t + 25_000, h)
            size = (1 << 20) * (it + 1)
            self.copy("MEMORY_COPY_HOST_TO_DEVICE", 1, gpu, size, t + 30_000, t + d - 10_000, c)
            t += d + 3000
            # Two launches, on the GPU's two queues.
            for j in range(2):
                c = self.next_corr()
                d = rng.randrange(8_000, 15_000)
                self.region(1, HIP, "hipLaunchKernel", t, t + d, c)
                queue = 1 + 2 * (gpu - 2) + j
                ks = t + d + rng.randrange(5_000, 20_000)
                ke = ks + rng.randrange(200_000, 900_000)
                dispatch += 1
                ev = self.kernel(gpu, queue, 1 + (it + j) % 3, ks, ke, c, dispatch)
                if it == 0:
                    self.insert("pmc_event", event_id=ev, pmc_id=pmc, value=4096.0 * (j + 1))
                t += d + 2000
            if it == 3:
                self.region(1, "MARKER_CORE_API", "roctxMarkA", t, t, self.next_corr(), message="checkpoint")
            c = self.next_corr()
            d = rng.randrange(1_500_000, 2_000_000)
            self.region(1, HIP, "hipDeviceSynchronize", t, t + d, c)
            t += d + 1000
            c = self.next_corr()
            d = rng.randrange(200_000, 300_000)
            self.region(1, HIP, "hipMemcpy", t, t + d, c)
            self.copy("MEMORY_COPY_DEVICE_TO_HOST", gpu, 1, size // 2, t + 20_000, t + d - 5000, c)
            t += d + 2000
            self.region(1, "MARKER_CORE_RANGE_API", "roctxRangePushA", it_start, t, mark, message="iteration")
            t += rng.randrange(10_000, 30_000)
        # The helper thread waits on the stream now and then.
        for k in range(3):
            s = t0 + 500_000 + k * 2_500_000 + rng.randrange(0, 100_000)
            self.region(2, HIP, "hipStreamSynchronize", s, s + rng.randrange(100_000, 400_000), self.next_corr())
        for k in range(4):
            self.sample("GPU temperature", t0 + k * 1_000_000)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--runs", type=int, default=2, choices=(1, 2))
    ap.add_argument("--timestamps", action="store_true", help="the older layout: times in rocpd_timestamp")
    ap.add_argument("--ddl", help="create the schema with the official SQL files of this directory")
    args = ap.parse_args()
    if os.path.exists(args.out):
        os.remove(args.out)
    db = sqlite3.connect(args.out)
    db.execute("PRAGMA page_size = 512")
    runs = RUNS[:args.runs]
    suffixes = create_schema(db, runs, args.timestamps, args.ddl)
    for i, ((pid, guid), suffix) in enumerate(zip(runs, suffixes)):
        Run(db, suffix, guid, pid, args.timestamps, seed=7 + i).write(1_700_000_000_000_000_000 + i * 40_000)
    db.commit()
    db.execute("VACUUM")
    db.close()


if __name__ == "__main__":
    main()
