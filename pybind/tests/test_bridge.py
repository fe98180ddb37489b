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
    # conversion gives.
    if resources == "many":  # more than 127 resources: int16 codes
        model = ms.from_pandas(pd.DataFrame({
            "resource": [f"r{i}" for i in range(300)], "state": ["a", "b"] * 150,
            "start": np.zeros(300), "end": np.ones(300)})).micro(slices=3)
    else:
        model = jacobi.micro(slices=200)
    table = model.to_arrow()
    frame = model.to_pandas()
    assert list(frame.columns) == table.column_names
    for name in table.column_names:
        assert _pandas_buffer(frame, name) == _go_buffer(table, name), name
    for name in ["resource", "state"]:
        codes = frame[name].array.codes
        assert codes.dtype == pd.Categorical(np.asarray(table.column(name).to_pylist())).codes.dtype, name
    pd.testing.assert_frame_equal(frame, table.to_pandas(), check_categorical=True)


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
