"""The bridge to the Go core: the native module, error translation and
zero-copy import of Arrow tables.
"""

from __future__ import annotations

import ctypes
import gc
import json
import os

import numpy as np
import pandas as pd
import pyarrow as pa

from . import _errors
from ._native import go  # noqa: F401 - Go's types (Slice_byte), for the callers
from ._native import pybind as native

# gopy hooks a blocking Go garbage collection onto every Python GC pass,
# which slows ordinary Python code down by 10x or more. Go collects its own
# heap; drop the hooks.
gc.callbacks[:] = [cb for cb in gc.callbacks if getattr(cb, "__name__", "") != "_gopy_gc_cb"]


# The Go runtime started with this module, in this process; a process
# forked from it inherits a copy of the runtime without its threads, which
# deadlocks or crashes at the first call. Refuse, with the remedy.
_GO_PID = os.getpid()


def check_not_forked():
    """Raise :class:`RuntimeError` in a process forked after the Go runtime
    started (multiprocessing's "fork" start method, a Dask worker started
    by fork): only "spawn" and "forkserver" children may use it."""
    if os.getpid() != _GO_PID:
        raise RuntimeError(
            f"macroscope's Go runtime was started in process {_GO_PID}, and this process ({os.getpid()}) "
            "was forked from it: a forked Go runtime is unusable. Start worker processes with "
            "multiprocessing's 'spawn' or 'forkserver' method (multiprocessing.set_start_method('spawn'); "
            "for Dask: dask.config.set({'distributed.worker.multiprocessing-method': 'spawn'}), the default)")


def call(fn, *args):
    """Call a native function, raising macroscope's exceptions on error."""
    if os.getpid() != _GO_PID:
        check_not_forked()
    try:
        return fn(*args)
    except RuntimeError as exc:
        raise _errors.from_native(exc) from None


def call_json(fn, *args):
    """Call a native function that returns a JSON document."""
    return json.loads(call(fn, *args))


def memory_budget(value):
    """A memory_budget= argument for the Go side: None the default (left
    out: half of the memory available), 0 no limit (-1 there), else a
    positive number of bytes."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _errors.InvalidArgumentError(
            f"memory_budget: must be a number of bytes (0: no limit) or None, got {value!r}", param="memory_budget")
    return -1 if value == 0 else value


def options(**kwargs) -> str:
    """Encode keyword options for the native side, leaving out None."""
    return json.dumps({k: v for k, v in kwargs.items() if v is not None})


class _ArrowArrayStream(ctypes.Structure):
    # struct ArrowArrayStream of the Arrow C stream interface.
    _fields_ = [
        ("get_schema", ctypes.c_void_p),
        ("get_next", ctypes.c_void_p),
        ("get_last_error", ctypes.c_void_p),
        ("release", ctypes.c_void_p),
        ("private_data", ctypes.c_void_p),
    ]


def table(export, *args) -> pa.Table:
    """Run ``export(*args, address)``, which fills an ArrowArrayStream, and
    import the stream. The buffers stay where Go's C allocator put them:
    nothing is copied."""
    stream = _ArrowArrayStream()
    call(export, *args, ctypes.addressof(stream))
    reader = pa.RecordBatchReader._import_from_c(ctypes.addressof(stream))
    return reader.read_all()


def to_pandas(tbl: pa.Table):
    """Convert to pandas without copying: numeric columns get a block each,
    so numpy arrays view the Arrow buffers in place, and dictionary columns
    become Categoricals whose codes are the Arrow indices themselves (the
    Go core writes them at the width pandas uses for that many categories;
    pyarrow's own conversion would copy them). Categories no row uses (a
    state absent from a window, a resource filtered out) are dropped, so
    that ``value_counts``, ``groupby(observed=False)`` and legends list
    only what the table holds; the codes are copied only then."""
    if not any(pa.types.is_dictionary(f.type) for f in tbl.schema):
        return tbl.to_pandas(split_blocks=True)
    categoricals = {}
    for i, field in enumerate(tbl.schema):
        if pa.types.is_dictionary(field.type):
            cat = _categorical(tbl.column(i)) if tbl.num_rows else None
            if cat is None:  # nulls, several chunks: pyarrow's conversion
                cat = tbl.column(i).to_pandas().array
            categoricals[field.name] = _used_only(cat)
    df = tbl.drop_columns(list(categoricals)).to_pandas(split_blocks=True)
    columns = {name: categoricals[name] if name in categoricals else df[name] for name in tbl.column_names}
    return pd.DataFrame(columns, index=df.index, copy=False)


def _used_only(cat):
    """The Categorical without the categories no row uses: itself (its
    codes still the Arrow buffer) when every one is used, which one pass of
    counting over the codes tells, else with codes renumbered (a copy, at
    the width pandas gives the categories left; nulls stay -1). pandas'
    remove_unused_categories would sort the codes to find the used ones
    and copy them always."""
    if not isinstance(cat, pd.Categorical):
        return cat
    n = len(cat.categories)
    codes = cat.codes
    valid = codes >= 0 if len(codes) and codes.min() < 0 else None
    used = _used_categories(codes, valid, n)
    if used.all():
        return cat
    renumber = np.cumsum(used, dtype=np.int64) - 1
    kept = cat.categories[used]
    width = _pandas_code_dtype(len(kept))
    new = renumber[codes].astype(width) if valid is None else np.where(valid, renumber[codes], -1).astype(width)
    fast = getattr(pd.CategoricalDtype, "_from_fastpath", None)
    dtype = fast(kept, cat.ordered) if fast else pd.CategoricalDtype(kept, cat.ordered)
    return pd.Categorical.from_codes(new, dtype=dtype, validate=False)


# Codes are counted this many at a time: np.bincount widens them to 64
# bits, which for the 10 million int8 codes of a model table's state column
# was a fresh 80 MB array, most of the counting's time.
_COUNT_CHUNK = 1 << 16


def _used_categories(codes, valid, n):
    """Which of the n categories the codes use (valid: the codes that are
    not null, None for all), counted a chunk at a time; the counting stops
    once every category is seen (a model table's states, in its first
    rows)."""
    used = np.zeros(n, dtype=bool)
    step = max(_COUNT_CHUNK, 4 * n)  # a chunk's count costs n too
    for lo in range(0, len(codes), step):
        part = codes[lo:lo + step] if valid is None else codes[lo:lo + step][valid[lo:lo + step]]
        used |= np.bincount(part, minlength=n)[:n] > 0
        if used.all():
            break
    return used


def _categorical(col: pa.ChunkedArray):
    """A Categorical viewing the indices of a single-chunk dictionary column
    with no nulls, or None when pyarrow's conversion is needed (several
    chunks, nulls, or an index width pandas would convert)."""
    if col.num_chunks != 1:
        return None
    arr = col.chunk(0)
    if arr.null_count or not pa.types.is_dictionary(arr.type):
        return None
    categories = arr.dictionary.to_pandas()
    width = {pa.int8(): np.int8, pa.int16(): np.int16, pa.int32(): np.int32}.get(arr.type.index_type)
    if width is None or np.dtype(width) != _pandas_code_dtype(len(categories)):
        return None
    indices = arr.indices
    codes = np.frombuffer(indices.buffers()[1], dtype=width, count=len(indices), offset=indices.offset * np.dtype(width).itemsize)
    # The dictionary's labels are distinct (the Go core merges equal ones):
    # pandas need not hash them again to check.
    fast = getattr(pd.CategoricalDtype, "_from_fastpath", None)
    dtype = fast(pd.Index(categories), arr.type.ordered) if fast else pd.CategoricalDtype(categories, arr.type.ordered)
    return pd.Categorical.from_codes(codes, dtype=dtype, validate=False)


def _pandas_code_dtype(n: int) -> np.dtype:
    # The width pandas gives the codes of a Categorical of n categories.
    for dtype in (np.int8, np.int16, np.int32):
        if n < np.iinfo(dtype).max:
            return np.dtype(dtype)
    return np.dtype(np.int64)
