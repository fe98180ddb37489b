"""The Go-Python bridge: zero-copy tables, the Arrow protocols, import
hygiene."""

import gc
import subprocess
import sys

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import macroscope as ms


def test_gopy_gc_hook_is_removed():
    assert not [cb for cb in gc.callbacks if "gopy" in getattr(cb, "__name__", "")]


def _go_buffer(table, name):
    arr = table.column(name).chunk(0)
    if pa.types.is_dictionary(arr.type):
        arr = arr.indices
    return arr.buffers()[1].address


def _pandas_buffer(frame, name):
    col = frame[name]
    if isinstance(col.dtype, pd.CategoricalDtype):
        return col.array.codes.ctypes.data
    return col.to_numpy().ctypes.data


@pytest.mark.parametrize("resources", ["jacobi", "many"])
def test_every_column_reaches_pandas_without_copy(jacobi, resources):
    # Every column of the model table, the categorical ones included: pandas
    # sees the buffers Go allocated, and the values pyarrow's own (copying)
    # conversion gives; but for a categorical column whose dictionary has
    # labels no row uses (the bundled trace's four states of no duration,
    # PMPI_Init, PMPI_Irecv, PMPI_Isend, PMPI_Finalize), which are dropped
    # and its codes renumbered.
    if resources == "many":  # more than 127 resources: int16 codes
        model = ms.from_pandas(pd.DataFrame({
            "resource": [f"r{i}" for i in range(300)], "state": ["a", "b"] * 150,
            "start": np.zeros(300), "end": np.ones(300)})).micro(slices=3)
    else:
        model = jacobi.micro(slices=200)
    table = model.to_arrow()
    frame = model.to_pandas()
    assert list(frame.columns) == table.column_names
    expected = table.to_pandas()
    for name in table.column_names:
        dictionary = table.column(name).chunk(0).dictionary if name in ("resource", "state") else None
        used = set(table.column(name).to_pylist()) if dictionary is not None else None
        if dictionary is not None and len(used) < len(dictionary):
            assert set(frame[name].cat.categories) == used, name
            expected[name] = expected[name].cat.remove_unused_categories()
        else:
            assert _pandas_buffer(frame, name) == _go_buffer(table, name), name
    if resources == "jacobi":
        assert set(table.column("state").chunk(0).dictionary.to_pylist()) - set(frame["state"].cat.categories) == {
            "PMPI_Init", "PMPI_Irecv", "PMPI_Isend", "PMPI_Finalize"}
    for name in ["resource", "state"]:
        codes = frame[name].array.codes
        assert codes.dtype == pd.Categorical(np.asarray(table.column(name).to_pylist())).codes.dtype, name
    pd.testing.assert_frame_equal(frame, expected, check_categorical=True)


def test_unused_categories_are_dropped(jacobi):
    """A window of the bundled trace's first 50 ms, before the first
    exchange: the model knows the trace's ten states, the table holds one
    (Compute; PMPI_Init takes no time); its DataFrame's state column lists
    only that one, the resource column
    (every rank present) keeps the Arrow indices as its codes, and the
    values are pyarrow's conversion's."""
    model = jacobi.micro(slices=10, start=0.0, end=0.05)
    table = model.to_arrow()
    frame = model.to_pandas()
    held = sorted(set(table.column("state").to_pylist()))
    assert len(model.states) == 10 and len(table.column("state").chunk(0).dictionary) == 10
    assert held == ["Compute"]
    assert list(frame["state"].cat.categories) == held
    assert frame["state"].value_counts().to_dict() == {"Compute": table.num_rows}
    assert frame.groupby("state", observed=False).size().index.tolist() == held
    assert len(frame["resource"].cat.categories) == 32
    assert _pandas_buffer(frame, "resource") == _go_buffer(table, "resource")  # nothing dropped: not copied
    expected = table.to_pandas()
    expected["state"] = expected["state"].cat.remove_unused_categories()
    pd.testing.assert_frame_equal(frame, expected, check_categorical=True)


def test_unused_categories_dropped_where_pyarrow_converts():
    """Columns pandas cannot view (nulls, several chunks) go through
    pyarrow's conversion and lose their unused categories too, nulls kept;
    an empty table's categoricals have none."""
    from macroscope import _bridge

    dictionary = pa.array(["a", "b", "c", "d"])
    chunks = [pa.DictionaryArray.from_arrays(pa.array([0, None, 2], pa.int8()), dictionary),
              pa.DictionaryArray.from_arrays(pa.array([2, 0], pa.int8()), dictionary)]
    table = pa.table({"s": pa.chunked_array(chunks), "x": pa.array([1, 2, 3, 4, 5])})
    frame = _bridge.to_pandas(table)
    assert list(frame["s"].cat.categories) == ["a", "c"]
    assert frame["s"].astype(object).where(frame["s"].notna(), None).tolist() == ["a", None, "c", "c", "a"]
    assert frame["x"].tolist() == [1, 2, 3, 4, 5]
    empty = _bridge.to_pandas(table.slice(0, 0))
    assert len(empty) == 0 and list(empty["s"].cat.categories) == [] and list(empty.columns) == ["s", "x"]


@pytest.mark.parametrize("nulls", [False, True])
def test_used_categories_counted_over_chunks(nulls):
    """The codes are counted a chunk at a time, the counting stopped once
    every category is seen: a category used by the last row only is kept,
    one never used is dropped, as pandas' remove_unused_categories does;
    when every category is used the codes stay the Arrow indices."""
    from macroscope import _bridge

    rows = 3 * _bridge._COUNT_CHUNK + 5
    codes = np.zeros(rows, np.int8)
    codes[1::2] = 1
    codes[-1] = 3  # category 2 ("c") is used by no row
    if nulls:
        codes[::5] = -1
    dictionary = pa.array(["a", "b", "c", "d"])
    mask = codes < 0 if nulls else None
    table = pa.table({"s": pa.DictionaryArray.from_arrays(pa.array(codes, pa.int8(), mask=mask), dictionary)})
    frame = _bridge.to_pandas(table)
    expected = table.to_pandas()["s"].cat.remove_unused_categories()
    assert list(frame["s"].cat.categories) == ["a", "b", "d"]
    pd.testing.assert_series_equal(frame["s"], expected)
    every = pa.table({"s": pa.DictionaryArray.from_arrays(pa.array(codes[:-1].clip(0), pa.int8()), dictionary[:2])})
    frame = _bridge.to_pandas(every)
    assert list(frame["s"].cat.categories) == ["a", "b"]
    assert frame["s"].array.codes.ctypes.data == every.column("s").chunk(0).indices.buffers()[1].address


def test_arrow_stream_protocol(jacobi):
    model = jacobi.micro(slices=10)
    reader = pa.RecordBatchReader.from_stream(model)
    streamed = reader.read_all()
    assert streamed.equals(model.to_arrow())
    # The values that are not zero, of the resources x slices x states.
    proportion = streamed.column("proportion").to_numpy()
    assert 0 < streamed.num_rows < model.resources * model.slices * len(model.states) and (proportion > 0).all()


def test_import_does_not_depend_on_the_working_directory(tmp_path, bundled_trace):
    code = f"import macroscope as ms; print(len(ms.read_paje({str(bundled_trace)!r}).states))"
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert int(out.stdout) == len(ms.read_paje(bundled_trace).states)


def test_results_are_usable_from_threads(jacobi):
    from concurrent.futures import ThreadPoolExecutor

    model = jacobi.micro(slices=20)
    with ThreadPoolExecutor(4) as pool:
        aggs = list(pool.map(model.aggregate, [0.1, 0.3, 0.5, 0.7] * 2))
    for a, b in zip(aggs[:4], aggs[4:]):
        assert len(a) == len(b) and a.gain == b.gain and a.loss == b.loss
    assert np.all(np.diff([a.gain for a in aggs[:4]]) >= 0)
