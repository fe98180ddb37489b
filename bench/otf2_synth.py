"""A synthetic OTF2 archive of a given number of events, for bench/compare.py.

    python bench/otf2_synth.py EVENTS DIR [--ranks 16] [--mpi]

Written with the otf2 Python package (PyPI otf2, the bindings of the OTF2
library): DIR/traces.otf2 with one process of one thread per rank under a
node, each thread a sequence of time steps ("step") holding nested regions
(compute, MPI_Send, MPI_Recv, MPI_Wait drawn with a fixed seed). EVENTS
counts Enter and Leave records alike, so the archive holds EVENTS / 2
regions; the same arguments always give the same archive.

With --mpi, the archive is a message-passing run for the analyses'
benchmarks (bench/analyses.py): in each time step every rank computes
(compute, a drawn duration), exchanges a message with its partner (rank
xor 1; MpiSend in MPI_Send, MpiRecv in MPI_Recv, the even rank sending
first), then all enter an MPI_Allreduce on MPI_COMM_WORLD (MpiCollectiveBegin
and End), which they leave together once the last has entered. Times are
consistent across ranks: a receive ends after its send began, a
collective after its last member entered. EVENTS counts every record.
"""

import argparse
import os
import random
import shutil

import otf2
from otf2.enums import Paradigm, RegionRole

INNER = ("compute", "MPI_Send", "MPI_Recv", "MPI_Wait")
PER_STEP = 8        # inner regions per step


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("events", type=int)
    ap.add_argument("dir")
    ap.add_argument("--ranks", type=int, default=16)
    ap.add_argument("--mpi", action="store_true", help="a message-passing run (see above)")
    args = ap.parse_args()
    if args.mpi:
        return mpi_run(args)
    rng = random.Random(1)
    if os.path.exists(args.dir):
        shutil.rmtree(args.dir)
    steps = max(1, args.events // 2 // args.ranks // (PER_STEP + 1))
    with otf2.writer.open(args.dir, timer_resolution=1_000_000_000) as trace:
        defs = trace.definitions
        step = defs.region("step", region_role=RegionRole.LOOP, paradigm=Paradigm.USER)
        inner = [defs.region(name, region_role=RegionRole.FUNCTION,
                             paradigm=Paradigm.MPI if name.startswith("MPI") else Paradigm.USER)
                 for name in INNER]
        machine = defs.system_tree_node("machine")
        node = defs.system_tree_node("node0", parent=machine)
        for rank in range(args.ranks):
            group = defs.location_group(f"rank {rank}", system_tree_parent=node)
            writer = trace.event_writer(f"rank {rank} thread 0", group=group)
            t = 1_000 * rank
            for _ in range(steps):
                writer.enter(t, step)
                t += 10
                for _ in range(PER_STEP):
                    region = inner[rng.randrange(len(inner))]
                    writer.enter(t, region)
                    t += rng.randrange(100, 10_000)
                    writer.leave(t, region)
                    t += 10
                writer.leave(t, step)
                t += 10


# Records per rank and step of the message-passing run: step (2), compute
# (2), MPI_Send (2 + MpiSend), MPI_Recv (2 + MpiRecv), MPI_Allreduce (2 +
# MpiCollectiveBegin and End).
MPI_RECORDS = 14


def mpi_run(args):
    from otf2.enums import CollectiveOp, GroupType, LocationType

    rng = random.Random(1)
    ranks = args.ranks + args.ranks % 2
    steps = max(1, args.events // MPI_RECORDS // ranks)
    if os.path.exists(args.dir):
        shutil.rmtree(args.dir)
    with otf2.writer.open(args.dir, timer_resolution=1_000_000_000) as trace:
        defs = trace.definitions
        step = defs.region("step", region_role=RegionRole.LOOP, paradigm=Paradigm.USER)
        compute = defs.region("compute", region_role=RegionRole.FUNCTION, paradigm=Paradigm.USER)
        send = defs.region("MPI_Send", region_role=RegionRole.POINT2POINT, paradigm=Paradigm.MPI)
        recv = defs.region("MPI_Recv", region_role=RegionRole.POINT2POINT, paradigm=Paradigm.MPI)
        allreduce = defs.region("MPI_Allreduce", region_role=RegionRole.COLL_ALL2ALL, paradigm=Paradigm.MPI)
        machine = defs.system_tree_node("machine")
        node = defs.system_tree_node("node0", parent=machine)
        locations, writers = [], []
        for rank in range(ranks):
            group = defs.location_group(f"rank {rank}", system_tree_parent=node)
            loc = defs.location(f"rank {rank} thread 0", group=group, type=LocationType.CPU_THREAD)
            locations.append(loc)
            writers.append(trace.event_writer_from_location(loc))
        world_group = defs.group("MPI_COMM_WORLD", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI,
                                 members=locations)
        comm = defs.comm("MPI_COMM_WORLD", group=defs.group("world", group_type=GroupType.COMM_GROUP,
                                                             paradigm=Paradigm.MPI, members=list(range(ranks))))
        del world_group
        t0, latency = 0, 1_000
        for _ in range(steps):
            # Compute, then the exchange: the even rank of a pair sends
            # first and receives second, the odd one the reverse.
            ready = [t0 + 10 + rng.randrange(1_000, 100_000) for _ in range(ranks)]
            for w, r in zip(writers, range(ranks)):
                w.enter(t0, step)
                w.enter(t0 + 10, compute)
                w.leave(ready[r], compute)
            first_send = [0] * ranks  # when each rank's send begins
            done = [0] * ranks
            for a in range(0, ranks, 2):
                b = a + 1
                # a: send (eager) then receive; b: receive then send.
                sa = ready[a]
                ea = sa + 200
                rb_enter = ready[b]
                rb_leave = max(rb_enter, sa + latency) + 100
                sb = rb_leave
                eb = sb + 200
                ra_enter = ea
                ra_leave = max(ra_enter, sb + latency) + 100
                wa, wb = writers[a], writers[b]
                wa.enter(sa, send)
                wa.mpi_send(sa, b, comm, 0, 4096)
                wa.leave(ea, send)
                wa.enter(ra_enter, recv)
                wa.mpi_recv(ra_leave, b, comm, 0, 4096)
                wa.leave(ra_leave, recv)
                wb.enter(rb_enter, recv)
                wb.mpi_recv(rb_leave, a, comm, 0, 4096)
                wb.leave(rb_leave, recv)
                wb.enter(sb, send)
                wb.mpi_send(sb, a, comm, 0, 4096)
                wb.leave(eb, send)
                done[a], done[b], first_send[a], first_send[b] = ra_leave + 10, eb + 10, sa, sb
            last = max(done)
            leave = last + 500
            for r, w in enumerate(writers):
                w.enter(done[r], allreduce)
                w.mpi_collective_begin(done[r])
                w.mpi_collective_end(leave, CollectiveOp.ALLREDUCE, comm, otf2.Undefined.UINT32.value, 8, 8)
                w.leave(leave, allreduce)
                w.leave(leave + 10, step)
            t0 = leave + 20


if __name__ == "__main__":
    main()
