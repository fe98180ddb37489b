"""A trace as a hive-partitioned Parquet dataset: written, read back, and
read by DuckDB, Dask and the cluster model."""

import json
import os
import subprocess
import sys

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
