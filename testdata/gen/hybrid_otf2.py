#!/usr/bin/env python3
"""Write an OTF2 archive of a hybrid MPI+OpenMP run described in JSON, as
Score-P would record it, for the test that POP's hybrid factors agree
between a Paraver trace and its OTF2 twin (core/views/pop).

    python3 testdata/gen/hybrid_otf2.py RUN.json OUTDIR

Needs Debian's python3-otf2. RUN.json holds the run's duration (ns) and
its threads: {"duration": T, "threads": [{"process": 0, "thread": 0,
"records": [[t, "enter"|"leave", region] | [t, "coll_begin"] |
[t, "coll_end"]]}...]}. Each process is a location group "MPI Rank p",
each thread a CPU thread location in it ("Master thread", "OMP thread
k"). Regions are typed by name as Score-P names them: "!$omp parallel
@..." and "!$omp implicit barrier @..." of paradigm OPENMP, "MPI_*" of
paradigm MPI, the others USER. Collectives are on MPI_COMM_WORLD (the
main threads): MPI_Allreduce, or [t, "coll_end", OP, ROOT] names the
operation (otf2's CollectiveOp: "REDUCE", "BCAST"...) and its root rank,
and [t, "coll_end", OP, ROOT, "MPI_COMM_SELF"] puts it on the one
definition of a self communicator (group type COMM_SELF) that Score-P
writes for every rank's MPI_COMM_SELF. "comms": {KEY: {"name": NAME,
"ranks": [r...]}} defines communicators of some ranks of MPI_COMM_WORLD
(group type COMM_GROUP), several of which may bear one name, as row
communicators an application named alike; [t, "coll_end", OP, ROOT, KEY]
puts a collective on one of them.
"""

import json
import os
import shutil
import sys

import otf2
from otf2.enums import CollectiveOp, GroupType, LocationGroupType, LocationType, Paradigm, RegionRole


def region_kind(name):
    if name.startswith("!$omp parallel"):
        return Paradigm.OPENMP, RegionRole.PARALLEL
    if name.startswith("!$omp implicit barrier"):
        return Paradigm.OPENMP, RegionRole.IMPLICIT_BARRIER
    if name.startswith("!$omp"):
        return Paradigm.OPENMP, RegionRole.WRAPPER
    if name.startswith("MPI_"):
        return Paradigm.MPI, RegionRole.COLL_ALL2ALL
    return Paradigm.USER, RegionRole.FUNCTION


def main():
    src, out = sys.argv[1], sys.argv[2]
    with open(src) as f:
        run = json.load(f)
    if os.path.exists(out):
        shutil.rmtree(out)
    with otf2.writer.open(out, timer_resolution=1_000_000_000) as trace:
        defs = trace.definitions
        node = defs.system_tree_node("node", parent=defs.system_tree_node("machine"))
        regions, groups, writers, masters = {}, {}, {}, []
        for th in run["threads"]:
            p, k = th["process"], th["thread"]
            if p not in groups:
                groups[p] = defs.location_group(f"MPI Rank {p}", system_tree_parent=node,
                                                location_group_type=LocationGroupType.PROCESS)
            name = "Master thread" if k == 0 else f"OMP thread {k}"
            loc = defs.location(name, group=groups[p], type=LocationType.CPU_THREAD)
            if k == 0:
                masters.append(loc)
            writers[(p, k)] = trace.event_writer_from_location(loc)
        world_group = defs.group("MPI_COMM_WORLD", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI,
                                 members=masters)
        world = defs.comm("MPI_COMM_WORLD", group=defs.group(
            "MPI_COMM_WORLD", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI,
            members=list(range(len(masters)))))
        comms = {"MPI_COMM_WORLD": world}
        for key, c in run.get("comms", {}).items():
            comms[key] = defs.comm(c["name"], group=defs.group(
                c["name"], group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI, members=c["ranks"]))
        for th in run["threads"]:
            w = writers[(th["process"], th["thread"])]
            for rec in th["records"]:
                t, kind = rec[0], rec[1]
                if kind in ("enter", "leave"):
                    name = rec[2]
                    if name not in regions:
                        paradigm, role = region_kind(name)
                        regions[name] = defs.region(name, paradigm=paradigm, region_role=role)
                    (w.enter if kind == "enter" else w.leave)(t, regions[name])
                elif kind == "coll_begin":
                    w.mpi_collective_begin(t)
                elif kind == "coll_end":
                    op, root = CollectiveOp.ALLREDUCE, otf2.Undefined.UINT32.value
                    if len(rec) > 2:
                        op, root = getattr(CollectiveOp, rec[2]), rec[3]
                    comm = rec[4] if len(rec) > 4 else "MPI_COMM_WORLD"
                    if comm not in comms:  # "MPI_COMM_SELF"
                        comms[comm] = defs.comm(comm, group=defs.group(
                            comm, group_type=GroupType.COMM_SELF, paradigm=Paradigm.MPI, members=[]))
                    w.mpi_collective_end(t, op, comms[comm], root, 8, 8)
        trace._first_timestamp = 0
        trace._last_timestamp = max(run["duration"], trace._last_timestamp or 0)
    del world_group


if __name__ == "__main__":
    main()
