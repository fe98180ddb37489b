"""The bridge to the Go core: the native module, error translation and
zero-copy import of Arrow tables.
"""

from __future__ import annotations

import ctypes
import gc
import json

import pyarrow as pa

from . import _errors
from ._native import pybind as native

# gopy hooks a blocking Go garbage collection onto every Python GC pass,
# which slows ordinary Python code down by 10x or more. Go collects its own
# heap; drop the hooks.
gc.callbacks[:] = [cb for cb in gc.callbacks if getattr(cb, "__name__", "") != "_gopy_gc_cb"]


def call(fn, *args):
    """Call a native function, raising macroscope's exceptions on error."""
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
    """Convert to pandas without copying numeric columns: each column gets
    its own block, so numpy arrays can view the Arrow buffers in place."""
    return tbl.to_pandas(split_blocks=True)
