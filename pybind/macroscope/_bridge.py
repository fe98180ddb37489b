"""The bridge to the Go core: the native module, error translation and
zero-copy import of Arrow tables.
"""

from __future__ import annotations

import ctypes
import gc
import json
import os

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
