"""Usage: /usr/bin/python3 features.py ARCHIVE_DIR (Debian: python3-otf2).

Writes an OTF2 archive with what small corpora lack: two nodes, two MPI
processes per node each with a master thread and OpenMP worker threads
(ThreadFork/Join, ThreadTeamBegin/End), nested regions with attributes,
point-to-point messages, collectives, RMA (win create, put, get, sync),
a metric class (synchronous strict) and an asynchronous metric, and a
global clock offset far from zero (timer resolution 1 GHz, times from
1.7e18 ns)."""
import sys
import otf2
from otf2.enums import (LocationGroupType, LocationType, RegionRole, Paradigm, CollectiveOp,
                        MetricType, MetricMode, Base, RecorderKind, MetricOccurrence, Type,
                        RmaSyncLevel, GroupType, GroupFlag)

out = sys.argv[1]
T0 = 1_700_000_000_000_000_000
NT = 3  # OpenMP threads per process, besides the master

with otf2.writer.open(out, timer_resolution=1_000_000_000) as tr:
    d = tr.definitions
    root = d.system_tree_node("machine")
    nodes = [d.system_tree_node("node%d" % i, parent=root) for i in range(2)]
    procs, masters, workers = [], [], []
    for r in range(4):
        lg = d.location_group("rank %d" % r, location_group_type=LocationGroupType.PROCESS,
                              system_tree_parent=nodes[r // 2])
        procs.append(lg)
        masters.append(d.location("master %d" % r, type=LocationType.CPU_THREAD, group=lg))
        workers.append([d.location("omp %d.%d" % (r, k + 1), type=LocationType.CPU_THREAD, group=lg)
                        for k in range(NT)])
    main = d.region("main", region_role=RegionRole.FUNCTION, paradigm=Paradigm.USER)
    par = d.region("!$omp parallel", region_role=RegionRole.PARALLEL, paradigm=Paradigm.OPENMP)
    work = d.region("work", region_role=RegionRole.FUNCTION, paradigm=Paradigm.USER)
    send = d.region("MPI_Send", region_role=RegionRole.POINT2POINT, paradigm=Paradigm.MPI)
    recv = d.region("MPI_Recv", region_role=RegionRole.POINT2POINT, paradigm=Paradigm.MPI)
    allr = d.region("MPI_Allreduce", region_role=RegionRole.COLL_ALL2ALL, paradigm=Paradigm.MPI)
    put = d.region("MPI_Put", region_role=RegionRole.RMA, paradigm=Paradigm.MPI)
    fence = d.region("MPI_Win_fence", region_role=RegionRole.RMA, paradigm=Paradigm.MPI)
    attr = d.attribute("iteration", description="loop iteration", type=Type.UINT64)
    grp = d.group("world", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI,
                  group_flags=GroupFlag.NONE, members=masters)
    cg = d.group("world ranks", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI,
                 group_flags=GroupFlag.NONE, members=list(range(4)))
    comm = d.comm("MPI_COMM_WORLD", group=cg)
    win = d.rma_win("win", comm=comm)
    flops = d.metric("FLOPS", unit="flop", metric_type=MetricType.PAPI, metric_mode=MetricMode.ACCUMULATED_START)
    temp = d.metric_class([d.metric_member("temperature", unit="C", metric_mode=MetricMode.ABSOLUTE_POINT)],
                          occurrence=MetricOccurrence.ASYNCHRONOUS, recorder_kind=RecorderKind.ABSTRACT)

    for r in range(4):
        m = tr.event_writer_from_location(masters[r])
        ws = [tr.event_writer_from_location(w) for w in workers[r]]
        t = T0 + r * 10
        m.enter(t, main)
        fl = 0
        for it in range(3):
            t += 1000
            m.metric(t, flops, fl)
            m.thread_fork(t, Paradigm.OPENMP, NT + 1)
            m.thread_team_begin(t + 1, comm)
            m.enter(t + 2, par, attributes={attr: it})
            for k, w in enumerate(ws):
                w.thread_team_begin(t + 3, comm)
                w.enter(t + 4, par, attributes={attr: it})
                w.enter(t + 5, work)
                w.leave(t + 100 + 50 * k, work)
                w.leave(t + 300, par)
                w.thread_team_end(t + 301, comm)
            m.enter(t + 5, work)
            m.leave(t + 200, work)
            m.leave(t + 300, par)
            m.thread_team_end(t + 301, comm)
            m.thread_join(t + 302, Paradigm.OPENMP)
            fl += 1000 * (r + 1)
            m.metric(t + 303, flops, fl)
            m.metric(t + 304, temp, 40.0 + r + it)
            # ring: even ranks send first
            t += 400
            peer_to, peer_from = (r + 1) % 4, (r + 3) % 4
            m.enter(t, send); m.mpi_send(t + 1, peer_to, comm, it, 8 * (r + 1)); m.leave(t + 10, send)
            m.enter(t + 20, recv); m.mpi_recv(t + 90, peer_from, comm, it, 8 * (peer_from + 1)); m.leave(t + 100, recv)
            t += 200
            m.enter(t, allr)
            m.mpi_collective_begin(t + 1)
            m.mpi_collective_end(t + 50, CollectiveOp.ALLREDUCE, comm, 0xffffffff, 8, 8)
            m.leave(t + 60, allr)
            t += 100
            m.enter(t, put)
            m.rma_put(t + 1, win, peer_to, 64, it)
            m.rma_op_complete_blocking(t + 5, win, it)
            m.leave(t + 10, put)
            m.enter(t + 20, fence)
            m.rma_collective_begin(t + 21)
            m.rma_collective_end(t + 40, CollectiveOp.BARRIER, RmaSyncLevel.MEMORY, win, 0xffffffff, 0, 0)
            m.leave(t + 50, fence)
        m.leave(t + 100, main)
