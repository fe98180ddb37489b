#!/usr/bin/env python3
"""Write the OTF2 twin of an Extrae Paraver trace: the same run, as Score-P
would have recorded it, for the test that POP's efficiencies agree across
formats (core/views/pop, testdata/epoch).

    python3 testdata/gen/epoch_otf2.py TRACE.prv[.gz|.zst] OUTDIR

Needs Debian's python3-otf2 (the OTF2 library's bindings). For every
thread of the trace (one location per task, its process a location group
"MPI Rank i" on one node), the twin holds:

- ProgramBegin and ProgramEnd where Extrae's Application event (40000001)
  begins and ends: the thread's life after its "Not created" state;
- a region per MPI call, named as the .pcf names it (events 50000001 to
  50000005: a non-zero value enters, zero leaves), of paradigm MPI;
- a region of paradigm MEASUREMENT_SYSTEM per state of Extrae's own work
  outside MPI calls ("Others": its initialisation, "I/O": the final flush
  of its buffers), named after the state;
- MpiSend at each communication's logical send on the sender, MpiRecv at
  its physical receive on the receiver, on MPI_COMM_WORLD with its tag and
  size;
- MpiCollectiveBegin and End inside each collective call, on the
  communicator Extrae's event 50100004 names (communicators from the
  trace's c: lines; the one of all tasks is MPI_COMM_WORLD);
- PAPI_TOT_INS and PAPI_TOT_CYC (events 42000050, 42000059, which Extrae
  writes as counts since the previous read) as Score-P records them:
  ACCUMULATED_START metrics, sampled where Extrae read them.

The clock is Paraver's: nanoseconds from 0, the trace lasting the
header's duration.
"""

import bisect
import collections
import gzip
import os
import shutil
import subprocess
import sys

import otf2
from otf2.enums import (CollectiveOp, GroupType, LocationGroupType, LocationType, MetricMode, MetricType,
                        Paradigm, RegionRole, Type)

CALL_TYPES = {50000001, 50000002, 50000003, 50000004, 50000005}
COMM_TYPE, COUNTERS = 50100004, {42000050: "PAPI_TOT_INS", 42000059: "PAPI_TOT_CYC"}
APPLICATION = 40000001
RUNNING, NOT_CREATED = 1, 2
COLLECTIVE_OPS = {"MPI_Barrier": "BARRIER", "MPI_Bcast": "BCAST", "MPI_Allreduce": "ALLREDUCE",
                  "MPI_Reduce": "REDUCE", "MPI_Gather": "GATHER", "MPI_Allgather": "ALLGATHER",
                  "MPI_Alltoall": "ALLTOALL", "MPI_Scatter": "SCATTER", "MPI_Scan": "SCAN"}


def lines(path):
    if path.endswith(".zst"):
        p = subprocess.Popen(["zstdcat", path], stdout=subprocess.PIPE, text=True)
        yield from p.stdout
        p.wait()
    elif path.endswith(".gz"):
        with gzip.open(path, "rt") as f:
            yield from f
    else:
        with open(path) as f:
            yield from f


def pcf(path):
    """State names and the values of the MPI call events, from the .pcf."""
    states, calls, section, types = {}, {}, None, []
    with open(path, errors="replace") as f:
        for line in f:
            words = line.split()
            if not words:
                section = None if section != "EVENT_TYPE" else section
                continue
            if words[0] in ("STATES", "EVENT_TYPE", "VALUES", "STATES_COLOR", "GRADIENT_COLOR", "GRADIENT_NAMES"):
                if words[0] == "EVENT_TYPE":
                    types = []
                section = words[0]
                continue
            if section == "STATES":
                states[int(words[0])] = " ".join(words[1:])
            elif section == "EVENT_TYPE" and len(words) >= 3:
                types.append(int(words[1]))
            elif section == "VALUES" and any(t in CALL_TYPES for t in types):
                calls[int(words[0])] = " ".join(words[1:])
    return states, calls


def read(path):
    head = next(lines(path))
    duration = int(head.split("):", 1)[1].split(":")[0].split("_")[0])
    threads = collections.OrderedDict()   # (task, thread) -> its records
    comms, communicators = [], {}

    def thread(task, th):
        return threads.setdefault((task, th), dict(states=[], events=[]))

    for line in lines(path):
        f = line.rstrip("\n").split(":")
        if f[0] == "1":
            thread(int(f[3]), int(f[4]))["states"].append((int(f[5]), int(f[6]), int(f[7])))
        elif f[0] == "2":
            pairs = list(zip(map(int, f[6::2]), map(int, f[7::2])))
            thread(int(f[3]), int(f[4]))["events"].append((int(f[5]), pairs))
        elif f[0] == "3":
            comms.append(dict(src=(int(f[3]), int(f[4])), ls=int(f[5]), dst=(int(f[9]), int(f[10])),
                              pr=int(f[12]), size=int(f[13]), tag=int(f[14])))
        elif f[0] == "c":
            communicators[int(f[2])] = [int(x) for x in f[4:]]
    return duration, threads, comms, communicators


def main():
    src, out = sys.argv[1], sys.argv[2]
    base = src
    for ext in (".gz", ".zst"):
        base = base[: -len(ext)] if base.endswith(ext) else base
    states, call_names = pcf(base[: -len(".prv")] + ".pcf")
    duration, threads, comms, communicators = read(src)
    tasks = sorted({task for task, _ in threads})
    if os.path.exists(out):
        shutil.rmtree(out)
    with otf2.writer.open(out, timer_resolution=1_000_000_000) as trace:
        defs = trace.definitions
        node = defs.system_tree_node("node", parent=defs.system_tree_node("machine"))
        regions = {}

        def region(name, paradigm, role=RegionRole.FUNCTION):
            if name not in regions:
                regions[name] = defs.region(name, paradigm=paradigm, region_role=role)
            return regions[name]

        groups, writers, locations = {}, {}, {}
        for task, th in threads:
            if task not in groups:
                groups[task] = defs.location_group(f"MPI Rank {task - 1}", system_tree_parent=node,
                                                   location_group_type=LocationGroupType.PROCESS)
            name = "Master thread" if th == 1 else f"Thread {th - 1}"
            locations[(task, th)] = defs.location(name, group=groups[task], type=LocationType.CPU_THREAD)
            writers[(task, th)] = trace.event_writer_from_location(locations[(task, th)])
        masters = [locations[(task, 1)] for task in tasks]
        world_group = defs.group("MPI_COMM_WORLD", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI,
                                 members=masters)
        comm_defs = {}

        def communicator(cid):
            if cid not in comm_defs:
                members = communicators.get(cid, tasks)
                if sorted(members) == tasks:
                    name = "MPI_COMM_WORLD"
                else:
                    name = f"Comm {cid}"
                g = defs.group(name, group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI,
                               members=[t - 1 for t in members])
                comm_defs[cid] = defs.comm(name, group=g)
            return comm_defs[cid]

        world = communicator(min((c for c, m in communicators.items() if sorted(m) == tasks), default=1))
        counters = {k: defs.metric_member(n, "", MetricType.PAPI, MetricMode.ACCUMULATED_START,
                                          value_type=Type.UINT64) for k, n in COUNTERS.items()}
        metric = defs.metric_class(list(counters.values()))

        # Records by location: (time, order, write function), order keeping
        # a call's inner records between its Enter and Leave.
        records = collections.defaultdict(list)
        call_spans = {}
        for key, th in threads.items():
            recs = records[key]
            calls, open_call = [], None
            totals = dict.fromkeys(COUNTERS, 0)
            for t, pairs in th["events"]:
                d = dict(pairs)
                for typ, value in pairs:
                    if typ in CALL_TYPES:
                        if value:
                            open_call = dict(enter=t, name=call_names.get(value, f"MPI call {value}"),
                                             collective=typ == 50000002, comm=d.get(COMM_TYPE))
                        elif open_call is not None:
                            open_call["leave"] = t
                            calls.append(open_call)
                            open_call = None
                    elif typ == APPLICATION:
                        kind = "begin" if value else "end"
                        recs.append((t, 0 if value else 9, kind, None))
                if any(k in d for k in COUNTERS):
                    for k in COUNTERS:
                        totals[k] += d.get(k, 0)
                    recs.append((t, 1, "metric", [totals[k] for k in COUNTERS]))
            call_spans[key] = calls
            enters = [c["enter"] for c in calls]
            for c in calls:
                paradigm_role = RegionRole.COLL_ALL2ALL if c["collective"] else RegionRole.POINT2POINT
                r = region(c["name"], Paradigm.MPI, paradigm_role)
                recs.append((c["enter"], 2, "enter", r))
                if c["collective"]:
                    recs.append((c["enter"], 3, "coll_begin", None))
                    recs.append((c["leave"], 5, "coll_end", (c["name"], c["comm"])))
                recs.append((c["leave"], 8, "leave", r))
            # Extrae's own work outside MPI calls.
            for b, e, s in th["states"]:
                if s in (RUNNING, NOT_CREATED) or e <= b:
                    continue
                i = bisect.bisect_right(enters, b) - 1
                if i >= 0 and calls[i]["enter"] <= b and e <= calls[i]["leave"]:
                    continue
                r = region(states.get(s, f"State {s}"), Paradigm.MEASUREMENT_SYSTEM, RegionRole.ARTIFICIAL)
                recs.append((b, 2, "enter", r))
                recs.append((e, 8, "leave", r))
        for c in comms:
            recs_s, recs_r = records[c["src"]], records[c["dst"]]
            recs_s.append((c["ls"], 4, "send", (c["dst"][0] - 1, c["tag"], c["size"])))
            recs_r.append((c["pr"], 6, "recv", (c["src"][0] - 1, c["tag"], c["size"])))
        for key, recs in records.items():
            w = writers[key]
            recs.sort(key=lambda r: (r[0], r[1]))
            for t, _, kind, arg in recs:
                if kind == "enter":
                    w.enter(t, arg)
                elif kind == "leave":
                    w.leave(t, arg)
                elif kind == "begin":
                    w.program_begin(t, "epoch", [])
                elif kind == "end":
                    w.program_end(t, 0)
                elif kind == "metric":
                    w.metric(t, metric, arg)
                elif kind == "send":
                    w.mpi_send(t, arg[0], world, arg[1], arg[2])
                elif kind == "recv":
                    w.mpi_recv(t, arg[0], world, arg[1], arg[2])
                elif kind == "coll_begin":
                    w.mpi_collective_begin(t)
                elif kind == "coll_end":
                    name, cid = arg
                    op = getattr(CollectiveOp, COLLECTIVE_OPS.get(name, "BARRIER"))
                    comm = communicator(cid) if cid is not None else world
                    w.mpi_collective_end(t, op, comm, otf2.Undefined.UINT32.value, 0, 0)
        # The clock of the Paraver trace: from 0, for the header's duration.
        trace._first_timestamp = 0
        trace._last_timestamp = max(duration, trace._last_timestamp or 0)
    del world_group


if __name__ == "__main__":
    main()
