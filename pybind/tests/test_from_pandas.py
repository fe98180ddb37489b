"""Traces from tables of intervals: DataFrames, Arrow tables, Parquet and
CSV files."""

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import macroscope as ms


def frame():
    return pd.DataFrame({
        "resource": ["site0/n0/c0", "site0/n0/c1", "site0/n0/c0", "site0/n1/c0", "site0/n0/c0"],
        "state": ["compute", "idle", "mpi", "compute", "send"],
        "start": [0.0, 0.5, 1.0, 0.25, 1.25],
        "end": [1.0, 2.0, 1.75, 2.5, 1.5],
    })


def test_hierarchy_states_and_nesting():
    trace = ms.from_pandas(frame(), levels=["site", "node", "core"])
    c = trace.containers
    assert list(c.path) == ["site0", "site0/n0", "site0/n0/c0", "site0/n0/c1", "site0/n1", "site0/n1/c0"]
    assert list(c.type) == ["site", "node", "core", "core", "node", "core"]
    assert list(c.depth) == [1, 2, 3, 3, 2, 3]
    assert (c.start_ns == 0).all() and (c.end_ns == 2_500_000_000).all()
    s = trace.states
    assert list(s.container) == list(frame().resource)
    assert list(s.value) == list(frame().state)
    assert list(s.start_ns) == [0, 500_000_000, 1_000_000_000, 250_000_000, 1_250_000_000]
    assert list(s.end_ns) == [1_000_000_000, 2_000_000_000, 1_750_000_000, 2_500_000_000, 1_500_000_000]
    # "send" (1.25-1.5) lies inside "mpi" (1-1.75) on the same core.
    assert list(s.depth) == [0, 0, 0, 0, 1]
    assert (trace.start, trace.end, trace.format) == (0.0, 2.5, "table")
    assert list(trace.types.name) == ["site", "node", "core", "State"]


def test_times_in_every_unit():
    base = frame()
    seconds = ms.from_pandas(base).states
    ns = base.assign(start=(base.start * 1e9).astype("int64"), end=(base.end * 1e9).astype("int64"))
    ms_units = base.assign(start=(base.start * 1000).astype("int64"), end=(base.end * 1000).astype("int64"))
    epoch = pd.Timestamp("2024-05-01 12:00:00")
    stamps = base.assign(start=epoch + pd.to_timedelta(base.start, unit="s"),
                         end=epoch + pd.to_timedelta(base.end, unit="s"))
    durations = base.assign(took=pd.to_timedelta(base.end - base.start, unit="s")).drop(columns="end")
    for frame_, kwargs, offset in [
        (ns, {}, 0),
        (ms_units, {"time_unit": "ms"}, 0),
        (stamps, {}, epoch.value),
        (durations, {"duration": "took"}, 0),
    ]:
        s = ms.from_pandas(frame_, **kwargs).states
        assert list(s.start_ns - offset) == list(seconds.start_ns), kwargs
        assert list(s.end_ns - offset) == list(seconds.end_ns), kwargs
    # Integer nanoseconds keep every digit a float would lose.
    exact = pd.DataFrame({"resource": ["r"], "state": ["x"], "start": [1_700_000_000_123_456_789],
                          "end": [1_700_000_000_123_456_790]})
    s = ms.from_pandas(exact).states
    assert (s.start_ns[0], s.end_ns[0]) == (1_700_000_000_123_456_789, 1_700_000_000_123_456_790)


def test_other_column_names_types_and_separator():
    df = pd.DataFrame({"where": ["n0.cpu1", "n0.cpu2"], "what": ["run", "wait"], "t0": [0.0, 1.0],
                       "t1": [1.0, 2.0], "kind": ["Task", "Comm"]})
    trace = ms.from_pandas(df, resource="where", state="what", start="t0", end="t1", type="kind", sep=".")
    assert list(trace.containers.path) == ["n0", "n0/cpu1", "n0/cpu2"]
    assert list(trace.states.type) == ["Task", "Comm"]
    assert list(trace.containers.type) == ["Level 1", "Level 2", "Level 2"]


def test_integer_and_categorical_names():
    df = pd.DataFrame({"resource": [3, 4, 3], "state": pd.Categorical(["a", "b", "a"]),
                       "start": [0.0, 0.0, 1.0], "end": [1.0, 1.0, 2.0]})
    trace = ms.from_pandas(df)
    assert list(trace.states.container) == ["3", "4", "3"]
    assert list(trace.states.value) == ["a", "b", "a"]


def test_arrow_tables_and_the_stream_protocol():
    df = frame()
    expected = ms.from_pandas(df).states
    for data in (pa.Table.from_pandas(df), pa.RecordBatch.from_pandas(df)):
        pd.testing.assert_frame_equal(ms.from_pandas(data).states, expected)

    class Stream:  # any object exporting an Arrow stream (polars, duckdb...)
        def __arrow_c_stream__(self, requested_schema=None):
            return pa.Table.from_pandas(df).__arrow_c_stream__(requested_schema)

    pd.testing.assert_frame_equal(ms.from_pandas(Stream()).states, expected)


def test_many_batches_number_rows_across_batches():
    n = 10_000
    df = pd.DataFrame({"resource": [f"n{i % 7}/c{i % 3}" for i in range(n)], "state": ["s"] * n,
                       "start": np.arange(n, dtype=float), "end": np.arange(n, dtype=float) + 0.5})
    df.loc[7_777, "end"] = -1.0
    table = pa.Table.from_pandas(df)
    batches = pa.Table.from_batches(table.to_batches(max_chunksize=1000))
    assert batches.column("end").num_chunks == 10
    with pytest.raises(ms.InvalidArgumentError) as info:
        ms.from_pandas(batches)
    assert "row 7777:" in str(info.value)
    df.loc[7_777, "end"] = 7_777.5
    assert len(ms.from_pandas(pa.Table.from_pandas(df)).states) == n


@pytest.mark.parametrize("change, kwargs, param, words", [
    (lambda d: d.assign(start=[0.0, np.nan, 1.0, 0.25, 1.25]), {}, "start", 'row 1: column "start" holds NaN'),
    (lambda d: d.assign(end=[1.0, 2.0, 0.5, 2.5, 1.5]), {}, "end", "row 2: the state ends at 0.500000000 s, before"),
    (lambda d: d.assign(took=[1.0, -1.0, 1.0, 1.0, 1.0]), {"duration": "took"}, "duration",
     'row 1: column "took" holds a negative duration'),
    (lambda d: d, {"resource": "host"}, "resource", "no column 'host' in the table (columns: resource, state, start"),
    (lambda d: d, {"state": "value"}, "state", "no column 'value'"),
    (lambda d: d.assign(resource=["a", None, "b", "c", "d"]), {}, "resource", 'row 1: column "resource" has no value'),
    (lambda d: d.assign(resource=["a", "a//b", "b", "c", "d"]), {}, "resource", 'row 1: resource path "a//b"'),
    (lambda d: d.assign(resource=["a"] * 5, start=[0.0, 0.5, 3, 4, 5], end=[1.0, 1.5, 3.5, 4.5, 5.5]), {},
     "start", 'rows 0 and 1: states of type "State" on resource "a" overlap without nesting'),
    (lambda d: d.iloc[:0], {}, "table", "the table has no rows"),
    (lambda d: d, {"levels": ["site"]}, "levels", 'row 0: resource path "site0/n0/c0" is 3 deep'),
    (lambda d: d, {"time_unit": "h"}, "time_unit", 'unknown unit "h"'),
    (lambda d: d.assign(start=["a", "b", "c", "d", "e"]), {}, "start", 'column "start" holds'),
])
def test_invalid_tables_name_the_column_and_row(change, kwargs, param, words):
    with pytest.raises(ms.InvalidArgumentError) as info:
        ms.from_pandas(change(frame()), **kwargs)
    assert info.value.param == param
    assert words in str(info.value)


def test_end_and_duration_exclude_each_other():
    df = frame().assign(took=1.0)
    with pytest.raises(ms.InvalidArgumentError) as info:
        ms.from_pandas(df, end="end", duration="took")
    assert info.value.param == "end"
    with pytest.raises(ms.InvalidArgumentError):
        ms.from_pandas([1, 2, 3])


def test_read_table_parquet_feather_and_csv(tmp_path):
    df = frame()
    expected = ms.from_pandas(df).states
    pq.write_table(pa.Table.from_pandas(df), tmp_path / "t.parquet")
    df.to_feather(tmp_path / "t.feather")
    df.to_csv(tmp_path / "t.csv", index=False)
    df.to_csv(tmp_path / "t.tsv", index=False, sep="\t")
    for name in ("t.parquet", "t.feather", "t.csv", "t.tsv"):
        trace = ms.read_table(tmp_path / name)
        pd.testing.assert_frame_equal(trace.states, expected)
        assert trace.files == [str(tmp_path / name)]
    with pytest.raises(ms.TraceNotFoundError):
        ms.read_table(tmp_path / "missing.parquet")
    with pytest.raises(ms.InvalidArgumentError):
        ms.read_table(tmp_path / "t.csv", resource="host")
    (tmp_path / "bad.parquet").write_bytes(b"not parquet")
    with pytest.raises(ms.TraceFormatError) as info:
        ms.read_table(tmp_path / "bad.parquet")
    assert info.value.file == str(tmp_path / "bad.parquet")


def test_a_table_trace_goes_through_the_pipeline():
    rng = np.random.default_rng(1)
    rows = []
    for core in range(8):
        t = 0.0
        for _ in range(50):
            d = float(rng.uniform(0.01, 0.05))
            rows.append((f"m{core // 4}/c{core % 4}", str(rng.choice(["compute", "wait"])), t, t + d))
            t += d
    df = pd.DataFrame(rows, columns=["resource", "state", "start", "end"])
    trace = ms.from_pandas(df)
    model = trace.micro(slices=20)
    props = model.to_pandas()
    # Every core is in some state all the time until its last state ends:
    # the slices before the first core stops are full.
    covered = df.groupby("resource").end.max().min()
    full = props[props.slice_end <= covered]
    assert len(full) > 0
    total = full.groupby(["resource", "slice"], observed=True).proportion.sum()
    assert np.allclose(total, 1.0)
    assert model.resources == 8 and sorted(model.states) == ["compute", "wait"]
