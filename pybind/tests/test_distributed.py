"""The model on a Dask cluster equals the single-process one, bit for bit.

The cluster is a LocalCluster of two worker processes (started by spawn,
Dask's default) of one thread each.
"""

import json
import os
import pathlib
import subprocess
import sys
import textwrap

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


def assert_same(got, want):
    """Two models are identical: the same window, categories, hierarchy,
    and every column of their cell tables equal, bit for bit."""
    assert (got.slices, got.start, got.end, got.states, got.resources) == \
           (want.slices, want.start, want.end, want.states, want.resources)
    a, b = got.to_arrow(), want.to_arrow()
    assert a.schema == b.schema
    assert a.num_rows == b.num_rows > 0
    for name in a.column_names:
        x, y = a.column(name).to_numpy(zero_copy_only=False), b.column(name).to_numpy(zero_copy_only=False)
        if x.dtype.kind == "f":
            # Bit for bit: the same float64 words.
            assert np.array_equal(x.view(np.int64), y.view(np.int64)), name
        else:
            assert np.array_equal(x, y), name
    assert a.column(a.column_names[-1]).to_numpy().any()  # not an empty model


def write_kineto(directory: pathlib.Path, rank: int, bad: bool = False) -> pathlib.Path:
    """The trace of one rank of a PyTorch job: CPU ops nested in steps,
    kernels on two GPU streams."""
    events = []
    for step in range(8):
        base = 1000 * step + 37 * rank
        events += [
            {"ph": "X", "cat": "cpu_op", "name": f"ProfilerStep#{step}", "pid": 100 + rank, "tid": 1, "ts": base, "dur": 900},
            {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 100 + rank, "tid": 1, "ts": base + 50, "dur": 300},
            {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100 + rank, "tid": 1, "ts": base + 60, "dur": 20},
            {"ph": "X", "cat": "kernel", "name": f"gemm_{step % 2}", "pid": 0, "tid": 7, "ts": base + 100, "dur": 200 + 10 * rank},
            {"ph": "X", "cat": "kernel", "name": "nccl:all_reduce", "pid": 0, "tid": 8, "ts": base + 400, "dur": 150},
        ]
    path = directory / f"rank{rank}.json"
    text = json.dumps({"distributedInfo": {"rank": rank}, "traceEvents": events})
    path.write_text(text[:len(text) // 2] if bad else text)
    return path


def write_prv(directory: pathlib.Path) -> pathlib.Path:
    """A Paraver trace of 2 tasks x 2 threads: states and events."""
    lines = ["#Paraver (01/01/2024 at 00:00):1000000_ns:0:1:2(2:0,2:0)"]
    states = [1, 2, 3, 1, 7]
    for i in range(400):
        task, thread, begin = i % 2 + 1, (i // 2) % 2 + 1, i * 2400
        lines.append(f"1:0:1:{task}:{thread}:{begin}:{begin + 1700 + i % 500}:{states[i % 5]}")
        lines.append(f"2:0:1:{task}:{thread}:{begin + 10}:5000{i % 3}:{i % 4}")
    path = directory / "t.prv"
    path.write_text("\n".join(lines) + "\n")
    (directory / "t.pcf").write_text("STATES\n1 Running\n2 Not created\n3 Waiting\n7 Blocked\n")
    return path


MODELS = [dict(slices=37), dict(slices=20, metric="state_average_duration"), dict(slices=10, depth=0)]


@pytest.mark.parametrize("kw", MODELS)
def test_kineto_ranks(client, tmp_path, kw):
    paths = [write_kineto(tmp_path, rank) for rank in range(5)]
    got = ms.read_micro(paths, client=client, progress=False, **kw)
    want = ms.read_micro(paths, progress=False, **kw)
    assert_same(got, want)
    # A level per rank at the top of the hierarchy.
    leaves = got.to_pandas()["resource"].unique()
    assert {leaf.split("/")[0] for leaf in leaves} == {f"rank{r}.json" for r in range(5)}


def test_kineto_corpus(client):
    paths = [shared("hta", "tests", "data", "trace_filter", f"sampled_rank-{r}.json.gz") for r in (0, 1)]
    assert_same(ms.read_micro(paths, slices=50, client=client, progress=False),
                ms.read_micro(paths, slices=50, progress=False))


@pytest.mark.parametrize("kw", MODELS + [dict(slices=13, metric="event_count")])
def test_paraver_byte_ranges(client, tmp_path, kw):
    path = write_prv(tmp_path)
    got = ms.read_micro(path, client=client, partitions=5, progress=False, **kw)
    assert got._partitions == 5
    assert_same(got, ms.read_micro(path, progress=False, **kw))


def test_paraver_corpus(client):
    path = shared("paraver-folding", "namd", "444.namd.prv")
    for kw in (dict(slices=64), dict(slices=30, metric="event_count")):
        assert_same(ms.read_micro(path, client=client, partitions=7, progress=False, **kw),
                    ms.read_micro(path, progress=False, **kw))


@pytest.mark.parametrize("kw", MODELS + [dict(slices=13, metric="event_count")])
def test_otf2_location_groups(client, kw):
    path = shared("tracer-stencil4d", "stencil4d-otf", "traces-64", "traces.otf2")
    got = ms.read_micro(path, client=client, partitions=64, progress=False, **kw)
    assert got._partitions == 64  # a location group each
    assert_same(got, ms.read_micro(path, progress=False, **kw))


@pytest.fixture(scope="module")
def synthetic_otf2(tmp_path_factory):
    """A 16-rank OTF2 archive written by the OTF2 library's own Python
    bindings (bench/otf2_synth.py; python3-otf2, for the system's Python)."""
    for python in (sys.executable, "/usr/bin/python3"):
        if os.path.exists(python) and subprocess.run([python, "-c", "import otf2"], capture_output=True).returncode == 0:
            break
    else:
        pytest.skip("the otf2 Python package (python3-otf2) is not installed")
    out = tmp_path_factory.mktemp("otf2") / "archive"
    subprocess.run([python, os.fspath(REPO / "bench" / "otf2_synth.py"), "40000", os.fspath(out), "--ranks", "16"],
                   check=True, capture_output=True)
    return out / "traces.otf2"


@pytest.mark.parametrize("kw", MODELS)
def test_otf2_synthetic(client, synthetic_otf2, kw):
    got = ms.read_micro(synthetic_otf2, client=client, progress=False, **kw)
    assert got._partitions == 4  # twice the cluster's threads, of 4 location groups each
    assert_same(got, ms.read_micro(synthetic_otf2, progress=False, **kw))


def test_moments_otf2_synthetic(client, synthetic_otf2):
    got = ms.moments(synthetic_otf2, client=client, progress=False)
    assert_same_table(got, ms.moments(synthetic_otf2))


def test_window_given(client, tmp_path):
    path = write_prv(tmp_path)
    kw = dict(slices=25, start=0.0002, end=0.0007)
    assert_same(ms.read_micro(path, client=client, progress=False, **kw), ms.read_micro(path, progress=False, **kw))


def test_failed_part_names_its_file(client, tmp_path):
    paths = [write_kineto(tmp_path, 0), write_kineto(tmp_path, 1), write_kineto(tmp_path, 2)]
    paths[1].write_text('{"traceEvents": 5}')
    with pytest.raises(ms.TraceFormatError) as info:
        ms.read_micro(paths, client=client, progress=False)
    assert info.value.file == os.fspath(paths[1])


def test_part_cut_short_is_not_silent(client, tmp_path):
    # A rank's file cut in the middle: the reader keeps what it can and
    # says so, on the cluster as in one process.
    paths = [write_kineto(tmp_path, 0), write_kineto(tmp_path, 1, bad=True)]
    with pytest.warns(UserWarning) as local:
        want = ms.read_micro(paths, slices=30, progress=False)
    with pytest.warns(UserWarning) as remote:
        got = ms.read_micro(paths, slices=30, client=client, progress=False)
    assert_same(got, want)
    assert [str(w.message) for w in local] == [str(w.message).split(": ", 1)[1] for w in remote]


class KillOnce(distributed.WorkerPlugin):
    """Kills the worker process the first time it starts building a partial
    model: a worker lost mid-run."""

    def __init__(self, marker):
        self.marker = marker

    def setup(self, worker):
        self.worker = worker

    def transition(self, key, start, finish, **kwargs):
        name = key if isinstance(key, str) else str(key)
        if finish == "executing" and "macroscope-partial" in name:
            try:
                fd = os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                return
            os.write(fd, name.encode())
            os.close(fd)
            os._exit(1)


def test_worker_killed_mid_run(tmp_path):
    paths = [write_kineto(tmp_path, rank) for rank in range(6)]
    want = ms.read_micro(paths, slices=40, progress=False)
    marker = tmp_path / "killed"
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as c:
        c.register_plugin(KillOnce(os.fspath(marker)))
        got = ms.read_micro(paths, slices=40, client=c, progress=False)
    assert marker.exists(), "no worker was killed"
    assert_same(got, want)


def test_go_threads_match_the_workers(client, tmp_path):
    ms.read_micro([write_kineto(tmp_path, 0), write_kineto(tmp_path, 1)], client=client, progress=False)

    def maxprocs():
        from macroscope import _bridge
        return _bridge.native.SetMaxProcs(0)  # 0 asks without changing

    assert set(client.run(maxprocs).values()) == {1}
    # Dask starts its worker processes by spawn: Go starts afresh in each.
    import dask
    assert dask.config.get("distributed.worker.multiprocessing-method") == "spawn"


def test_no_dask_without_a_client(tmp_path):
    path = write_prv(tmp_path)
    code = textwrap.dedent(f"""
        import sys
        import macroscope as ms
        ms.read_micro({os.fspath(path)!r}, progress=False)
        ms.read_micro([{os.fspath(path)!r}, {os.fspath(path)!r}], progress=False)
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("dask", "distributed"))
        assert not loaded, loaded
    """)
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


def test_forked_go_runtime_is_refused(tmp_path):
    path = write_prv(tmp_path)
    code = textwrap.dedent(f"""
        import os, sys
        import macroscope as ms
        ms.read_micro({os.fspath(path)!r}, progress=False)
        pid = os.fork()
        if pid == 0:
            try:
                ms.read_micro({os.fspath(path)!r}, progress=False)
            except RuntimeError as e:
                os._exit(3 if "forked" in str(e) and "spawn" in str(e) else 4)
            os._exit(5)
        _, status = os.waitpid(pid, 0)
        sys.exit(os.waitstatus_to_exitcode(status))
    """)
    assert subprocess.run([sys.executable, "-c", code], cwd=REPO).returncode == 3


def assert_same_table(got, want):
    a, b = got.to_arrow(), want.to_arrow()
    assert a.schema == b.schema and a.num_rows == b.num_rows > 0
    for name in a.column_names:
        x, y = a.column(name).to_numpy(zero_copy_only=False), b.column(name).to_numpy(zero_copy_only=False)
        if x.dtype.kind == "f":
            assert np.array_equal(x.view(np.int64), y.view(np.int64)), name
        else:
            assert np.array_equal(x, y), name


def test_moments_otf2_location_groups(client):
    path = shared("tracer-stencil4d", "stencil4d-otf", "traces-64", "traces.otf2")
    got = ms.moments(path, client=client, progress=False)
    want = ms.moments(path)
    assert_same_table(got, want)
    assert (got.to_pandas()["m0"] > 0).sum() == 64


@pytest.mark.parametrize("by", ["resource", "node"])
def test_moments_kineto_ranks(client, tmp_path, by):
    paths = [write_kineto(tmp_path, rank) for rank in range(4)]
    got = ms.moments(paths, by=by, client=client, progress=False)
    assert_same_table(got, ms.moments(paths, by=by))


def test_moments_paraver(client, tmp_path):
    path = write_prv(tmp_path)
    assert_same_table(ms.moments(path, client=client, progress=False), ms.moments(path))


def test_trace_without_states_names_its_file(client, tmp_path):
    """On a cluster as in one process, a trace with nothing to model is
    EmptyTraceError naming the file."""
    from test_errors import paje_header
    path = tmp_path / "nostates.trace"
    path.write_text(paje_header("PajeDefineContainerType", "PajeCreateContainer")
                    + "0 H 0 Host\n1 0.0 h1 H 0 host1\n1 1.0 h2 H 0 host2\n")
    with pytest.raises(ms.EmptyTraceError) as info:
        ms.read_micro(path, client=client)
    assert info.value.file == str(path) and str(info.value) == f"{path}: the trace has no states to model"
