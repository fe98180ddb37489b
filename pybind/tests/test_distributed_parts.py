"""pj_dump output by byte ranges and HPCToolkit databases by trace lines on
a Dask cluster: the model and the moments equal the single-process ones,
bit for bit.

The cluster is a LocalCluster of two worker processes of one thread each.
"""

import pathlib

import numpy as np
import pytest

import macroscope as ms
from conftest import shared

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def assert_same_table(a, b):
    """Two Arrow-exportable results hold the same rows, every float column
    equal bit for bit."""
    a, b = a.to_arrow(), b.to_arrow()
    assert a.schema == b.schema
    assert a.num_rows == b.num_rows > 0
    for name in a.column_names:
        x, y = a.column(name).to_numpy(zero_copy_only=False), b.column(name).to_numpy(zero_copy_only=False)
        if x.dtype.kind == "f":
            assert np.array_equal(x.view(np.int64), y.view(np.int64)), name
        else:
            assert np.array_equal(x, y), name


def assert_same(got, want):
    assert (got.slices, got.start, got.end, got.states, got.resources) == \
           (want.slices, want.start, want.end, want.states, want.resources)
    assert_same_table(got, want)
    values = got.to_arrow()
    assert values.column(values.column_names[-1]).to_numpy().any()  # not an empty model


def write_dump(directory: pathlib.Path, eol: str = "\n") -> pathlib.Path:
    """pj_dump output: links under the root before the containers they
    join, two threads named t1, nested states, events, a container type
    first used at the end."""
    lines = ["Container, 0, 0, 0, 40, 40, 0"]
    lines += [f'Link, 0, comm, {i}.000000, {i}.500000, 0.500000, msg, "p{i % 3}", "gpu", k{i}' for i in range(5)]
    for p in range(3):
        lines.append(f'Container, 0, Process, 0, 40, 40, "p{p}"')
        for th in ("t0", "t1"):
            lines.append(f'Container, "p{p}", Thread, 0, 40, 40, "{th}"')
            for k in range(10):
                b = 4 * k + p
                lines.append(f'State, "{th}", S, {b}.000000, {b + 3}.000000, 3.000000, 0.000000, compute')
                if k % 3 == 1:
                    lines.append(f'State, "{th}", S, {b}.250000, {b + 1}.750000, 1.500000, 1.000000, "mpi, wait"')
                if k % 4 == 2:
                    lines.append(f'Event, "{th}", mark, {b}.125000, tick')
    lines.append('Container, 0, GPU, 0, 40, 40, "gpu"')
    lines += [f'State, "gpu", Kernel, {7 * k + 1}.000000, {7 * k + 3}.000000, 2.000000, 0.000000, gemm' for k in range(5)]
    path = directory / "dump.csv"
    path.write_bytes(eol.join(lines).encode() + eol.encode())
    return path


MODELS = [dict(slices=37), dict(slices=20, metric="state_average_duration"), dict(slices=10, depth=0),
          dict(slices=13, metric="event_count")]


@pytest.mark.parametrize("kw", MODELS)
@pytest.mark.parametrize("eol", ["\n", "\r\n"])
def test_pjdump_byte_ranges(client, tmp_path, kw, eol):
    path = write_dump(tmp_path, eol)
    got = ms.read_micro(path, client=client, partitions=5, progress=False, **kw)
    assert got._partitions == 5
    assert_same(got, ms.read_micro(path, progress=False, **kw))


def test_pjdump_corpus(client):
    # 14,839 lines: 307 containers, 13,620 states (nested ones too), 405
    # links printed before the hosts they join.
    path = shared("pajeng", "oracles", "032_pj_dump_simu_mardi_trace.out")
    for kw in (dict(slices=64), dict(slices=30, metric="state_average_duration")):
        got = ms.read_micro(path, format="pjdump", client=client, partitions=7, progress=False, **kw)
        assert got._partitions == 7
        assert_same(got, ms.read_micro(path, format="pjdump", progress=False, **kw))


def test_pjdump_moments(client, tmp_path):
    # One part: byte ranges would split a resource's states.
    path = write_dump(tmp_path)
    assert_same_table(ms.moments(path, client=client, progress=False), ms.moments(path))


@pytest.mark.parametrize("kw", MODELS[:3])
def test_hpctoolkit_trace_lines(client, kw):
    # 135 trace lines (trace.db's Context Trace Headers): 7 parts.
    path = shared("hpctoolkit-db", "issue-233-lulesh")
    got = ms.read_micro(path, client=client, partitions=7, progress=False, **kw)
    assert got._partitions == 7
    assert_same(got, ms.read_micro(path, progress=False, **kw))


def test_hpctoolkit_xml(client):
    # Two *.hpctrace files: a part each.
    path = shared("hpctoolkit-db", "xml", "vectorAdd")
    got = ms.read_micro(path, slices=40, client=client, partitions=8, progress=False)
    assert got._partitions == 2
    assert_same(got, ms.read_micro(path, slices=40, progress=False))


def test_hpctoolkit_moments(client):
    # A resource is a trace line, whole in one part: the sums are exact.
    path = shared("hpctoolkit-db", "issue-233-lulesh")
    got = ms.moments(path, client=client, progress=False)
    want = ms.moments(path)
    assert_same_table(got, want)
    # A row per trace line (135 Context Trace Headers in trace.db).
    table = got.to_pandas()
    assert len(table) == 135 and (table["m0"] > 0).any()
