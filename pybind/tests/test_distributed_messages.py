"""The messages between the location groups of an OTF2 archive on a Dask
cluster: each worker ships the ends its part could not match, they are
matched at the end of the reduction, and the model equals the
single-process one, bit for bit, links and unmatched ends counted, none
skipped.

The cluster is a LocalCluster of two worker processes of one thread each.
"""

import os
import subprocess
import textwrap
import warnings

import numpy as np
import pytest

import macroscope as ms
from conftest import REPO, shared

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


COUNTS = ("containers", "states", "variables", "links", "events", "start", "end")


def check(path, client, partitions, **kw):
    """The cluster's model of the archive equals the single process's:
    every column of the cell table, the counts; the same warnings (each
    part's prefixed with its label), none about messages. Returns the
    counts."""
    with warnings.catch_warnings(record=True) as remote:
        warnings.simplefilter("always")
        got = ms.read_micro(path, client=client, partitions=partitions, progress=False, **kw)
    with warnings.catch_warnings(record=True) as local:
        warnings.simplefilter("always")
        want = ms.read_micro(path, progress=False, **kw)
    # A part's messages skipped would say "skipped N message ends ...".
    assert not [w for w in remote if "message" in str(w.message)]
    assert {str(w.message).split(": ", 1)[1] for w in remote} == {str(w.message) for w in local}
    assert (got.slices, got.start, got.end, got.states, got.resources) == \
           (want.slices, want.start, want.end, want.states, want.resources)
    a, b = got.to_arrow(), want.to_arrow()
    assert a.schema == b.schema
    assert a.num_rows == b.num_rows > 0
    for name in a.column_names:
        x, y = a.column(name).to_numpy(zero_copy_only=False), b.column(name).to_numpy(zero_copy_only=False)
        if x.dtype.kind == "f":
            assert np.array_equal(x.view(np.int64), y.view(np.int64)), name  # the same float64 words
        else:
            assert np.array_equal(x, y), name
    assert a.column(a.column_names[-1]).to_numpy().any()  # not an empty model
    gi, wi = got.trace_info, want.trace_info
    assert {k: gi[k] for k in COUNTS} == {k: wi[k] for k in COUNTS}
    assert gi["distributed"] and not wi["skipped"]
    return gi


MODELS = [dict(slices=37), dict(slices=20, metric="state_average_duration"), dict(slices=10, depth=0)]


@pytest.mark.parametrize("kw", MODELS)
def test_two_groups_one_message(client, kw):
    # Two location groups, a message from the first to the second; records
    # beyond the clock properties' length (the window guessed is wrong).
    path = REPO / "core" / "partition" / "testdata" / "otf2-beyond" / "traces.otf2"
    info = check(path, client, None, **kw)
    assert info["links"] == 1


# A ring of 4 ranks, a location group each: at each of 5 steps, rank r
# sends to r+1 (tag step % 3) and receives from r-1; rank 0 also sends a
# message to rank 2 that is never received, rank 3 receives one from rank
# 1 that was never sent. 20 messages matched, 2 unmatched ends. As a pair
# (argument "pair"), ranks 0 and 1 exchange the messages, ranks 2 and 3
# work alone: 10 messages.
RING = textwrap.dedent("""
    import sys
    import otf2
    from otf2.enums import GroupFlag, GroupType, Paradigm, RegionRole

    RANKS, STEPS = 4, 5
    with otf2.writer.open(sys.argv[1], timer_resolution=1_000_000_000) as trace:
        defs = trace.definitions
        work = defs.region("work", region_role=RegionRole.FUNCTION, paradigm=Paradigm.USER)
        send = defs.region("MPI_Send", region_role=RegionRole.POINT2POINT, paradigm=Paradigm.MPI)
        recv = defs.region("MPI_Recv", region_role=RegionRole.POINT2POINT, paradigm=Paradigm.MPI)
        node = defs.system_tree_node("node0")
        groups = [defs.location_group(f"rank {r}", system_tree_parent=node) for r in range(RANKS)]
        locs = [defs.location(f"rank {r} thread 0", group=groups[r]) for r in range(RANKS)]
        defs.group("locations", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI,
                   group_flags=GroupFlag.NONE, members=locs)
        ranks = defs.group("world", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI,
                           group_flags=GroupFlag.NONE, members=list(range(RANKS)))
        world = defs.comm("MPI_COMM_WORLD", group=ranks, parent=None)
        pair = sys.argv[2] == "pair"
        for r in range(RANKS):
            w = trace.event_writer_from_location(locs[r])
            t = 1000 + 7 * r
            to, source = ((r ^ 1, r ^ 1) if r < 2 else (None, None)) if pair else ((r + 1) % RANKS, (r - 1) % RANKS)
            for s in range(STEPS):
                w.enter(t, work); t += 300 + 11 * r; w.leave(t, work)
                if to is None:
                    continue
                w.enter(t, send); t += 5
                w.mpi_send(t, to, world, s % 3, 64 * (s + 1)); t += 20
                w.leave(t, send)
                w.enter(t, recv); t += 400
                w.mpi_recv(t, source, world, s % 3, 64 * (s + 1)); t += 5
                w.leave(t, recv)
            if r == 0 and not pair:
                w.mpi_send(t + 1, 2, world, 99, 8)
            if r == 3 and not pair:
                w.mpi_recv(t + 1, 1, world, 42, 8)
""")


def write_ring(directory, mode):
    """The ring archive, written by the OTF2 library's own Python bindings
    (python3-otf2, for the system's Python)."""
    python = "/usr/bin/python3"
    if not os.path.exists(python) or subprocess.run([python, "-c", "import otf2"], capture_output=True).returncode:
        pytest.skip("the otf2 Python package (python3-otf2) is not installed")
    out = directory / mode
    subprocess.run([python, "-c", RING, os.fspath(out), mode], check=True, capture_output=True)
    return out / "traces.otf2"


@pytest.fixture(scope="module")
def ring(tmp_path_factory):
    return write_ring(tmp_path_factory.mktemp("otf2"), "ring")


@pytest.mark.parametrize("kw", MODELS + [dict(slices=13, metric="event_count")])
@pytest.mark.parametrize("partitions", [4, 2])
def test_ring(client, ring, partitions, kw):
    # 4 parts: every message crosses parts; 2 parts of 2 ranks: those from
    # rank 0 to 1 and 2 to 3 stay within a part.
    info = check(ring, client, partitions, **kw)
    assert (info["links"], info["events"], info["states"]) == (20, 2, 60)


@pytest.mark.parametrize("partitions", [4, 2])
def test_pair(client, tmp_path, partitions):
    # 4 parts: parts 2 and 3 keep no message end; 2 parts: no message
    # crosses them, nothing to match.
    path = write_ring(tmp_path, "pair")
    info = check(path, client, partitions, slices=23)
    assert (info["links"], info["events"], info["states"]) == (10, 0, 40)


@pytest.mark.parametrize("partitions", [64, 3])
def test_stencil_corpus(client, partitions):
    # 64 ranks, 1,024 messages between them.
    path = shared("tracer-stencil4d", "stencil4d-otf", "traces-64", "traces.otf2")
    info = check(path, client, partitions, slices=50)
    assert info["links"] == 1024


def test_ping_pong_corpus(client):
    path = shared("pipit", "tests", "data", "ping-pong-otf2", "traces.otf2")
    info = check(path, client, None, slices=30, metric="event_count")
    assert info["links"] > 0
