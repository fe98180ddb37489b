"""The Go-Python bridge: zero-copy tables, the Arrow protocols, import
hygiene."""

import gc
import subprocess
import sys

import numpy as np
import pyarrow as pa

import macroscope as ms


def test_gopy_gc_hook_is_removed():
    assert not [cb for cb in gc.callbacks if "gopy" in getattr(cb, "__name__", "")]


def test_numeric_columns_reach_pandas_without_copy(jacobi):
    model = jacobi.micro(slices=200)
    table = model.to_arrow()
    frame = model.to_pandas()
    for name in ["proportion", "duration", "slice_start"]:
        buf = table.column(name).chunk(0).buffers()[1]
        arr = frame[name].to_numpy()
        assert arr.ctypes.data == buf.address, name
        assert not arr.flags["OWNDATA"]


def test_arrow_stream_protocol(jacobi):
    model = jacobi.micro(slices=10)
    reader = pa.RecordBatchReader.from_stream(model)
    streamed = reader.read_all()
    assert streamed.equals(model.to_arrow())
    assert streamed.num_rows == model.resources * model.slices * len(model.states)


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
