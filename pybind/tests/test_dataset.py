"""A trace as a hive-partitioned Parquet dataset: written, read back, and
read by DuckDB, Dask and the cluster model."""

import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import macroscope as ms
from conftest import REPO, shared
from test_distributed import assert_same, write_kineto, write_prv

KEY = ["container", "type", "value", "start_ns", "end_ns"]


def sorted_states(frame):
    frame = frame[KEY].astype({"container": str, "type": str, "value": str, "start_ns": "int64", "end_ns": "int64"})
    return frame.sort_values(KEY).reset_index(drop=True)


@pytest.fixture(scope="module")
def prv_trace(tmp_path_factory):
    return ms.read(write_prv(tmp_path_factory.mktemp("prv")), progress=False)


def test_round_trip(prv_trace, tmp_path):
    out = ms.to_parquet_dataset(prv_trace, tmp_path / "ds")
    # One partition per task (Paraver's rank), hive-style.
    parts = sorted(os.listdir(tmp_path / "ds" / "states"))
    assert len(parts) == 2 and all(p.startswith("rank=") for p in parts), parts
    back = ms.read(out)
    pd.testing.assert_frame_equal(sorted_states(back.states), sorted_states(prv_trace.states))
    meta = json.loads((tmp_path / "ds" / "_macroscope_dataset.json").read_text())
    assert meta["rows"] == {"states": 400, "links": 0, "variables": 0, "events": 400}


def test_duckdb_reads_it(prv_trace, tmp_path):
    duckdb = pytest.importorskip("duckdb")
    out = ms.to_parquet_dataset(prv_trace, tmp_path / "ds")
    con = duckdb.connect()
    rows = con.execute(
        "SELECT rank, count(*), sum(end_ns - start_ns) FROM read_parquet(?, hive_partitioning = true) "
        "GROUP BY rank ORDER BY rank", [os.path.join(out, "states", "**", "*.parquet")]).fetchall()
    want = prv_trace.states.assign(rank=prv_trace.states["container"].str.rsplit("/", n=1).str[0],
                                   d=prv_trace.states["end_ns"] - prv_trace.states["start_ns"])
    want = want.groupby("rank").agg(n=("d", "size"), d=("d", "sum")).reset_index()
    assert rows == [(r.rank, r.n, r.d) for r in want.itertuples()]
    events = con.execute("SELECT count(*) FROM read_parquet(?, hive_partitioning = true)",
                         [os.path.join(out, "events", "**", "*.parquet")]).fetchone()[0]
    assert events == len(prv_trace.events) == 400


def test_dask_dataframe_reads_it(prv_trace, tmp_path):
    dd = pytest.importorskip("dask.dataframe")
    out = ms.to_parquet_dataset(prv_trace, tmp_path / "ds")
    frame = dd.read_parquet(os.path.join(out, "states")).compute()
    assert len(frame) == len(prv_trace.states)
    assert int((frame["end_ns"] - frame["start_ns"]).sum()) == \
        int((prv_trace.states["end_ns"] - prv_trace.states["start_ns"]).sum())
    assert set(frame["rank"].astype(str)) == {"APPL 1/TASK 1.1", "APPL 1/TASK 1.2"}


def test_cli_convert(tmp_path):
    path = write_prv(tmp_path)
    out = tmp_path / "ds"
    subprocess.run([sys.executable, "-m", "macroscope", "convert", os.fspath(path), "--to", "parquet-dataset",
                    "--partition-by", "rank", "--out", os.fspath(out)], check=True, cwd=REPO,
                   capture_output=True)
    assert len(ms.read(out).states) == 400


def test_partition_by_a_type_or_none(tmp_path):
    paths = [write_kineto(tmp_path, rank) for rank in range(3)]
    trace = ms.read(paths[0], progress=False)
    out = ms.to_parquet_dataset(trace, tmp_path / "none", partition_by=None)
    assert len(os.listdir(os.path.join(out, "states"))) == 1
    with pytest.raises(ms.InvalidArgumentError, match="no container type"):
        ms.to_parquet_dataset(trace, tmp_path / "bad", partition_by="Galaxy")


def test_cluster_model_of_a_dataset(tmp_path):
    distributed = pytest.importorskip("distributed")
    trace = ms.read(shared("tracer-stencil4d", "stencil4d-otf", "traces-64", "traces.otf2"), progress=False)
    out = ms.to_parquet_dataset(trace, tmp_path / "ds")
    assert len(os.listdir(os.path.join(out, "states"))) == 64  # a partition per process
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        for kw in (dict(slices=40), dict(slices=20, metric="state_average_duration")):
            got = ms.read_micro(out, client=client, progress=False, **kw)
            assert got._partitions == 64
            assert_same(got, ms.read_micro(out, **kw))


def write_kineto_spans(directory):
    """A PyTorch profiler trace with every span its model leaves out: the
    recording (5 ms), 4 steps on the host (800 us, 300 of operators in
    each), their copies on the GPU stream (500 us each), kernels, and an
    instant event after the last state (the trace's end)."""
    events = [{"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": "PyTorch Profiler",
               "ts": 0, "dur": 5000}]
    for step in range(4):
        base = 1000 * step + 100
        events += [
            {"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{step}", "pid": 100, "tid": 1, "ts": base,
             "dur": 800},
            {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 100, "tid": 1, "ts": base + 50, "dur": 300},
            {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 1, "ts": base + 60,
             "dur": 20},
            {"ph": "X", "cat": "gpu_user_annotation", "name": f"ProfilerStep#{step}", "pid": 0, "tid": 7,
             "ts": base + 90, "dur": 500},
            {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": base + 100, "dur": 200},
            {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce", "pid": 0, "tid": 7, "ts": base + 400,
             "dur": 150},
        ]
    events.append({"ph": "i", "cat": "cpu_instant_event", "name": "mark", "pid": 100, "tid": 1, "ts": 5600, "s": "t"})
    path = directory / "kineto_spans.json"
    path.write_text(json.dumps({"traceEvents": events}))
    return path


# The own time of the spans of write_kineto_spans, from its events: the
# recording whole, each step less its operator, each copy whole (its row
# holds no kernel).
SPANS_LEFT_OUT = {"recording": 5000e-6, "step": 4 * 500e-6, "device annotation": 4 * 500e-6}


def _strip_roles(out):
    """The dataset out as a macroscope without roles wrote it: no role
    column, no values table, no roles in the marker."""
    import shutil

    import pyarrow.parquet as pq
    shutil.rmtree(os.path.join(out, "values"))
    for root, _, files in os.walk(os.path.join(out, "states")):
        for f in files:
            path = os.path.join(root, f)
            table = pq.read_table(path, partitioning=None)
            pq.write_table(table.drop_columns(["role"]), path)
    marker = os.path.join(out, "_macroscope_dataset.json")
    meta = json.loads(open(marker).read())
    del meta["roles"]
    with open(marker, "w") as f:
        json.dump(meta, f)


def _same_model(got, want):
    assert_same(got, want)
    pd.testing.assert_frame_equal(got.left_out, want.left_out)


def _same_cells(got, want):
    """The same model but for the order of its states and resources (a
    dataset without the values' order): the same window, and every cell
    equal."""
    assert (got.slices, got.start, got.end) == (want.slices, want.start, want.end)
    assert sorted(got.states) == sorted(want.states)
    key = ["resource", "slice", "state"]

    def cells(m):
        df = m.to_pandas()
        df = df.astype({"resource": str, "state": str})
        return df[df["duration"] > 0].sort_values(key).reset_index(drop=True)

    pd.testing.assert_frame_equal(cells(got), cells(want))


def _left_out(model):
    return {r.role: r.seconds for r in model.left_out.itertuples()}


@pytest.mark.parametrize("spans", [False, True])
def test_model_of_a_dataset_is_the_files(tmp_path, spans):
    """The dataset keeps the values' roles: its model (the default one,
    which leaves the profiler's spans out, or the one that keeps them)
    is the file's, cell by cell, left out time included; so is the model
    of the trace read back from it."""
    path = write_kineto_spans(tmp_path)
    out = ms.to_parquet_dataset(ms.read(path, progress=False), tmp_path / "ds")
    kw = dict(slices=10, profiler_spans=spans)
    want = ms.read_micro(path, **kw)
    _same_model(ms.read_micro(out, **kw), want)
    _same_model(ms.read(out).micro(**kw), want)
    if spans:
        assert want.left_out.empty
    else:
        assert _left_out(want) == pytest.approx(SPANS_LEFT_OUT, abs=1e-12)
    assert want.end - want.start == pytest.approx(5600e-6, abs=1e-12)  # the instant event's time


def test_model_of_a_corpus_dataset_is_the_files(tmp_path):
    """Same on HTA's NCCL trace (a recording, steps, copies of
    annotations on 2 streams, 18 containers), whatever the key."""
    path = shared("hta", "tests", "data", "nccl_parser_config", "nccl_data.json.gz")
    out = ms.to_parquet_dataset(ms.read(path, progress=False), tmp_path / "ds")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # more states than a figure colours apart
        for spans in (False, True):
            want = ms.read_micro(path, slices=20, profiler_spans=spans)
            _same_model(ms.read_micro(out, slices=20, profiler_spans=spans), want)
        # The values' categories too (key category, and domain's fallback).
        for key in ("name", "category", "type", "domain"):
            _same_model(ms.read_micro(out, slices=20, key=key), ms.read_micro(path, slices=20, key=key))
        assert set(_left_out(ms.read_micro(out, slices=20))) == {"recording", "step", "device annotation"}


def test_dataset_without_roles(tmp_path):
    """A dataset written before the roles were kept reads as then: its
    model keeps the spans (it is the file's model with profiler_spans=True),
    and a warning says why and what to do."""
    path = write_kineto_spans(tmp_path)
    out = ms.to_parquet_dataset(ms.read(path, progress=False), tmp_path / "ds")
    _strip_roles(out)
    with pytest.warns(UserWarning, match="does not record its values' roles.*to_parquet_dataset"):
        got = ms.read_micro(out, slices=10)
    assert got.left_out.empty
    _same_cells(got, ms.read_micro(path, slices=10, profiler_spans=True))


def test_dataset_with_a_bad_role(tmp_path):
    """A role no macroscope names is a damaged dataset: the error names
    the file, the row and the role."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    path = write_kineto_spans(tmp_path)
    out = ms.to_parquet_dataset(ms.read(path, progress=False), tmp_path / "ds", partition_by=None)
    part = os.path.join(out, "states", "rank=%2F", "part-0.parquet")
    table = pq.read_table(part, partitioning=None)
    roles = table.column("role").to_pylist()
    roles[3] = "stepp"
    pq.write_table(table.set_column(table.schema.get_field_index("role"), "role", pa.array(roles, pa.string())), part)
    with pytest.raises(ms.TraceFormatError, match="row 3: column \"role\" holds \"stepp\", which is no role's name") as e:
        ms.read(out)
    assert e.value.file == os.path.join(out, "states")
    with pytest.raises(ms.TraceFormatError, match="row 3.*stepp") as e:
        ms._dataset.read_part(part)
    assert e.value.file == part


def test_cluster_model_of_a_dataset_is_the_files(tmp_path):
    """On a Dask cluster, a part per file: the file's model, with and
    without the spans, and the note on a dataset without roles."""
    distributed = pytest.importorskip("distributed")
    paths = [write_kineto_spans(tmp_path)]
    out = ms.to_parquet_dataset(ms.read(paths[0], progress=False), tmp_path / "ds")
    assert len(os.listdir(os.path.join(out, "states"))) > 1  # several parts
    old = tmp_path / "old"
    import shutil
    shutil.copytree(out, old)
    _strip_roles(old)
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        for spans in (False, True):
            got = ms.read_micro(out, client=client, progress=False, slices=10, profiler_spans=spans)
            _same_model(got, ms.read_micro(paths[0], slices=10, profiler_spans=spans))
        with pytest.warns(UserWarning, match="does not record its values' roles"):
            got = ms.read_micro(old, client=client, progress=False, slices=10)
        assert got.left_out.empty
        _same_cells(got, ms.read_micro(paths[0], slices=10, profiler_spans=True))
