# The type stub of macroscope, written by `python -m macroscope._stubgen`
# from the package and the Go registry of formats: do not edit it, write it
# again (make stubs) when a format, an option or an export changes.

import os
from typing import Literal

from ._analyses import (
    CommMatrix as CommMatrix,
    FlatProfile as FlatProfile,
    LoadImbalance as LoadImbalance,
)
from ._compare import (
    Comparison as Comparison,
    Differences as Differences,
    compare as compare,
    compare_series as compare_series,
)
from ._critpath import (
    CriticalPath as CriticalPath,
    Stragglers as Stragglers,
    critical_path as critical_path,
    stragglers as stragglers,
)
from ._errors import (
    EmptyTraceError as EmptyTraceError,
    InternalError as InternalError,
    InvalidArgumentError as InvalidArgumentError,
    MacroscopeError as MacroscopeError,
    TraceFormatError as TraceFormatError,
    TraceNotFoundError as TraceNotFoundError,
)
from ._figure import Figure as Figure
from ._formats import FORMATS as FORMATS, formats as formats
from ._from_table import from_pandas as from_pandas, read_table as read_table
from ._kaleido import CallTree as CallTree, Kaleidoscope as Kaleidoscope
from ._model import Aggregation as Aggregation, MicroModel as MicroModel
from ._moments import Moments as Moments
from ._pop import POP as POP, pop as pop
from ._profiles import (
    comm_matrix as comm_matrix,
    flat_profile as flat_profile,
    load_imbalance as load_imbalance,
)
from ._readers import read as read, read_paje as read_paje
from ._reading import Progress
from ._stream import moments as moments, read_micro as read_micro
from ._synth import synth as synth
from ._to_dataset import to_parquet_dataset as to_parquet_dataset
from ._topology import Topology as Topology
from ._trace import Trace as Trace
from ._treemap import Treemap as Treemap

__version__: str

__all__ = [
    "FORMATS",
    "CommMatrix",
    "CriticalPath",
    "Stragglers",
    "critical_path",
    "stragglers",
    "FlatProfile",
    "LoadImbalance",
    "POP",
    "pop",
    "comm_matrix",
    "flat_profile",
    "load_imbalance",
    "Figure",
    "Aggregation",
    "CallTree",
    "Comparison",
    "Differences",
    "EmptyTraceError",
    "InternalError",
    "InvalidArgumentError",
    "Kaleidoscope",
    "MacroscopeError",
    "MicroModel",
    "Moments",
    "Topology",
    "Trace",
    "TraceFormatError",
    "TraceNotFoundError",
    "Treemap",
    "compare",
    "compare_series",
    "formats",
    "from_pandas",
    "moments",
    "read",
    "read_chrome",
    "read_micro",
    "to_parquet_dataset",
    "read_otf2",
    "read_paje",
    "read_paraver",
    "read_pjdump",
    "read_table",
    "synth",
    "read_gotrace",
    "read_hpctoolkit",
    "read_nsys",
    "read_perfetto",
    "read_rocpd",
    "read_rocprof_csv",
    "read_rocprofv3_csv",
    "read_rocprofv3_json",
    "read_rpd",
    "read_speedscope",
    "read_xplane",
]


def read_otf2(
    path: str | os.PathLike[str],
    *,
    location_groups: list[str] | None = None,
    strict: bool = False,
    progress: Progress = None,
    memory_budget: int | None = None,
) -> Trace:
    """Read a trace in the otf2 format: OTF2 archive (Score-P, APEX): the .otf2 anchor file or its directory.

    Files ending in .otf2 (plain or compressed with gzip, bzip2 or zstd).
    A directory holding such a trace is read whole.

    Options:
    ``location_groups`` (list[str], default None): read the locations of these location groups (IDs) only: a part of the archive, for a distributed read
    ``strict`` (bool, default False): fail (a format error naming the file) when the trace is incomplete (a cut last record, a missing or empty part) instead of returning it marked incomplete

    ``progress``, ``memory_budget``: see :func:`read`. Raises as :func:`read` does.
    """
    ...


def read_rocprofv3_json(
    path: str | os.PathLike[str],
    *,
    strict: bool = False,
    progress: Progress = None,
    memory_budget: int | None = None,
) -> Trace:
    """Read a trace in the rocprofv3-json format: rocprofv3 JSON output (rocprofiler-sdk-tool: kernels, copies, HIP/HSA/marker/RCCL API), plain or compressed.

    Files ending in _results.json (plain or compressed with gzip, bzip2 or zstd).

    Options:
    ``strict`` (bool, default False): fail (a format error naming the file) when the trace is incomplete (a cut last record, a missing or empty part) instead of returning it marked incomplete

    ``progress``, ``memory_budget``: see :func:`read`. Raises as :func:`read` does.
    """
    ...


def read_speedscope(
    path: str | os.PathLike[str],
    *,
    count_unit: str = "none",
    max_decompressed: int = 68719476736,
    strict: bool = False,
    progress: Progress = None,
    memory_budget: int | None = None,
) -> Trace:
    """Read a trace in the speedscope format: speedscope JSON (py-spy --format speedscope, rbspy, Austin's austin2speedscope, pyinstrument, speedscope exports).

    Files ending in .speedscope.json, .json (plain or compressed with gzip, bzip2 or zstd).

    Options:
    ``count_unit`` (str, default 'none'): the time one count lasts in a profile whose unit is "none" (rbspy's, and speedscope's importers of perf and collapsed stacks: a weight or an event time is a number of samples): the sampling interval, as a number and s, ms, us or ns ("10ms" for rbspy's 100 Hz); none refuses such profiles
    ``max_decompressed`` (int, default 68719476736): the most bytes a compressed file (gzip, bzip2, zstd) may expand to before the read stops, against decompression bombs; 0: no limit
    ``strict`` (bool, default False): fail (a format error naming the file) when the trace is incomplete (a cut last record, a missing or empty part) instead of returning it marked incomplete

    ``progress``, ``memory_budget``: see :func:`read`. Raises as :func:`read` does.
    """
    ...


def read_chrome(
    path: str | os.PathLike[str],
    *,
    args: bool = False,
    max_decompressed: int = 68719476736,
    strict: bool = False,
    progress: Progress = None,
    memory_budget: int | None = None,
) -> Trace:
    """Read a trace in the chrome format: Chrome/Perfetto trace-event JSON (Chrome, catapult, Perfetto, PyTorch Kineto, PerfFlowAspect).

    Files ending in .json, .pfw, .cpuprofile (plain or compressed with gzip, bzip2 or zstd).

    Options:
    ``args`` (bool, default False): keep each slice's and event's args as JSON text (the args column of states and events); costs memory
    ``max_decompressed`` (int, default 68719476736): the most bytes a compressed file (gzip, bzip2, zstd) may expand to before the read stops, against decompression bombs; 0: no limit
    ``strict`` (bool, default False): fail (a format error naming the file) when the trace is incomplete (a cut last record, a missing or empty part) instead of returning it marked incomplete

    ``progress``, ``memory_budget``: see :func:`read`. Raises as :func:`read` does.
    """
    ...


def read_paraver(
    path: str | os.PathLike[str],
    *,
    view: Literal["thread", "cpu"] = "thread",
    max_decompressed: int = 68719476736,
    part_start: int = 0,
    part_end: int = 0,
    strict: bool = False,
    progress: Progress = None,
    memory_budget: int | None = None,
) -> Trace:
    """Read a trace in the paraver format: Paraver .prv (Extrae, Dimemas, ovni), with the .pcf and .row beside it.

    Files ending in .prv (plain or compressed with gzip, bzip2 or zstd).

    Options:
    ``view`` (str, default 'thread'): "thread" places records on application > task > thread, "cpu" on node > CPU
    ``max_decompressed`` (int, default 68719476736): the most bytes a compressed file (gzip, bzip2, zstd) may expand to before the read stops, against decompression bombs; 0: no limit
    ``part_start`` (int, default 0): read only the records of the lines from this byte (after the header) to part_end: a part of the file, for a distributed read
    ``part_end`` (int, default 0): the end of the byte range part_start starts (0: the whole file)
    ``strict`` (bool, default False): fail (a format error naming the file) when the trace is incomplete (a cut last record, a missing or empty part) instead of returning it marked incomplete

    ``progress``, ``memory_budget``: see :func:`read`. Raises as :func:`read` does.
    """
    ...


def read_rocprofv3_csv(
    path: str | os.PathLike[str],
    *,
    siblings: bool = True,
    strict: bool = False,
    progress: Progress = None,
    memory_budget: int | None = None,
) -> Trace:
    """Read a trace in the rocprofv3-csv format: rocprofv3 CSV files of a run (kernel_trace, hip/hsa/marker/rccl API traces, memory_copy_trace): one file, its siblings, or their directory.

    Files ending in _kernel_trace.csv, _hip_api_trace.csv, _hsa_api_trace.csv, _marker_api_trace.csv, _memory_copy_trace.csv, _rccl_api_trace.csv (plain or compressed with gzip, bzip2 or zstd).
    A directory holding such a trace is read whole.

    Options:
    ``siblings`` (bool, default True): given one CSV file, also read the other CSV files of its run (same directory, same prefix)
    ``strict`` (bool, default False): fail on a row that cannot be read instead of skipping and counting it, and on an incomplete trace (a cut last line)

    ``progress``, ``memory_budget``: see :func:`read`. Raises as :func:`read` does.
    """
    ...


def read_rocprof_csv(
    path: str | os.PathLike[str],
    *,
    strict: bool = False,
    progress: Progress = None,
    memory_budget: int | None = None,
) -> Trace:
    """Read a trace in the rocprof-csv format: rocprof v1/v2 CSV (results.csv, timestamps.csv: kernel dispatches with BeginNs/EndNs or Start_Timestamp/End_Timestamp).

    Files ending in timestamps.csv, results.csv (plain or compressed with gzip, bzip2 or zstd).

    Options:
    ``strict`` (bool, default False): fail on a row that cannot be read instead of skipping and counting it, and on an incomplete trace (a cut last line)

    ``progress``, ``memory_budget``: see :func:`read`. Raises as :func:`read` does.
    """
    ...


def read_pjdump(
    path: str | os.PathLike[str],
    *,
    skip_inverted: bool = False,
    time_unit: Literal["auto", "s", "ms", "us", "ns"] = "auto",
    max_decompressed: int = 68719476736,
    part_start: int = 0,
    part_end: int = 0,
    strict: bool = False,
    progress: Progress = None,
    memory_budget: int | None = None,
) -> Trace:
    """Read a trace in the pjdump format: pj_dump CSV output, or a StarVZ directory of split CSV files.

    Files ending in .csv (plain or compressed with gzip, bzip2 or zstd).
    A directory holding such a trace is read whole.

    Options:
    ``skip_inverted`` (bool, default False): skip the rows that end before they start (StarVZ's dumps hold a few), counting them, instead of failing
    ``time_unit`` (str, default 'auto'): the unit of the dump's dates: auto reads seconds, pj_dump's unit, except for StarPU's traces (StarVZ's dumps), whose dates are milliseconds
    ``max_decompressed`` (int, default 68719476736): the most bytes a compressed file (gzip, bzip2, zstd) may expand to before the read stops, against decompression bombs; 0: no limit
    ``part_start`` (int, default 0): read only the records of the lines from this byte to part_end (a plain file's part, for a distributed read: see Ranges)
    ``part_end`` (int, default 0): the end of the byte range part_start starts (0: the whole file)
    ``strict`` (bool, default False): fail (a format error naming the file) when the trace is incomplete (a cut last record, a missing or empty part) instead of returning it marked incomplete

    ``progress``, ``memory_budget``: see :func:`read`. Raises as :func:`read` does.
    """
    ...


def read_rpd(
    path: str | os.PathLike[str],
    *,
    strict: bool = False,
    progress: Progress = None,
    memory_budget: int | None = None,
) -> Trace:
    """Read a trace in the rpd format: rocmProfileData RPD SQLite database (rocpd_api, rocpd_op, rocpd_api_ops).

    Files ending in .rpd (plain or compressed with gzip, bzip2 or zstd).

    Options:
    ``strict`` (bool, default False): fail (a format error naming the file) when the trace is incomplete (a cut last record, a missing or empty part) instead of returning it marked incomplete

    ``progress``, ``memory_budget``: see :func:`read`. Raises as :func:`read` does.
    """
    ...


def read_rocpd(
    path: str | os.PathLike[str],
    *,
    strict: bool = False,
    progress: Progress = None,
    memory_budget: int | None = None,
) -> Trace:
    """Read a trace in the rocpd format: rocprofv3 rocpd SQLite database (ROCm 7 default output: regions, kernels, memory copies of one or several runs); rocprof v1's results.db (kernels).

    Files ending in results.db (plain or compressed with gzip, bzip2 or zstd).

    Options:
    ``strict`` (bool, default False): fail (a format error naming the file) when the trace is incomplete (a cut last record, a missing or empty part) instead of returning it marked incomplete

    ``progress``, ``memory_budget``: see :func:`read`. Raises as :func:`read` does.
    """
    ...


def read_nsys(
    path: str | os.PathLike[str],
    *,
    kernel_names: Literal["short", "demangled"] = "short",
    strict: bool = False,
    progress: Progress = None,
    memory_budget: int | None = None,
) -> Trace:
    """Read a trace in the nsys format: Nsight Systems SQLite export (nsys export --type sqlite).

    Files ending in .sqlite, .nsys-rep, .qdrep (plain or compressed with gzip, bzip2 or zstd).

    Options:
    ``kernel_names`` (str, default 'short'): how CUDA kernels are named: the base function name (shortName) or the full demangled signature (demangledName)
    ``strict`` (bool, default False): fail (a format error naming the file) when the trace is incomplete (a cut last record, a missing or empty part) instead of returning it marked incomplete

    ``progress``, ``memory_budget``: see :func:`read`. Raises as :func:`read` does.
    """
    ...


def read_hpctoolkit(
    path: str | os.PathLike[str],
    *,
    loops: bool = False,
    line_start: int = 0,
    line_end: int = 0,
    strict: bool = False,
    progress: Progress = None,
    memory_budget: int | None = None,
) -> Trace:
    """Read a trace in the hpctoolkit format: HPCToolkit databases (hpcprof): meta.db + trace.db, or experiment.xml + *.hpctrace.

    Files ending in .hpctrace (plain or compressed with gzip, bzip2 or zstd).
    A directory holding such a trace is read whole.

    Options:
    ``loops`` (bool, default False): make loops frames of their own, between the procedure that holds them and its callees
    ``line_start`` (int, default 0): read only the samples of the trace lines from this one (counted from 0 in the order of the hierarchy) to line_end: a part of the trace, for a distributed read
    ``line_end`` (int, default 0): the end of the trace lines line_start starts (0: all)
    ``strict`` (bool, default False): fail (a format error naming the file) when the trace is incomplete (a cut last record, a missing or empty part) instead of returning it marked incomplete

    ``progress``, ``memory_budget``: see :func:`read`. Raises as :func:`read` does.
    """
    ...


def read_xplane(
    path: str | os.PathLike[str],
    *,
    strict: bool = False,
    progress: Progress = None,
    memory_budget: int | None = None,
) -> Trace:
    """Read a trace in the xplane format: TensorFlow / JAX profiler XSpace (.xplane.pb: jax.profiler.trace, tf.profiler, a plugins/profile/<run>/ directory).

    Files ending in .xplane.pb (plain or compressed with gzip, bzip2 or zstd).
    A directory holding such a trace is read whole.

    Options:
    ``strict`` (bool, default False): fail (a format error naming the file) when the trace is incomplete (a cut last record, a missing or empty part) instead of returning it marked incomplete

    ``progress``, ``memory_budget``: see :func:`read`. Raises as :func:`read` does.
    """
    ...


def read_perfetto(
    path: str | os.PathLike[str],
    *,
    strict: bool = False,
    progress: Progress = None,
    memory_budget: int | None = None,
) -> Trace:
    """Read a trace in the perfetto format: Perfetto protobuf trace (track events, process tree, ftrace sched_switch).

    Files ending in .perfetto-trace, .pftrace, .perfetto, .pb (plain or compressed with gzip, bzip2 or zstd).

    Options:
    ``strict`` (bool, default False): fail (a format error naming the file) when the trace is incomplete (a cut last record, a missing or empty part) instead of returning it marked incomplete

    ``progress``, ``memory_budget``: see :func:`read`. Raises as :func:`read` does.
    """
    ...


def read_gotrace(
    path: str | os.PathLike[str],
    *,
    strict: bool = False,
    progress: Progress = None,
    memory_budget: int | None = None,
) -> Trace:
    """Read a trace in the gotrace format: Go execution trace (runtime/trace, go test -trace), Go 1.11 and later.

    Files ending in .gotrace (plain or compressed with gzip, bzip2 or zstd).

    Options:
    ``strict`` (bool, default False): fail (a format error naming the file) when the trace is incomplete (a cut last record, a missing or empty part) instead of returning it marked incomplete

    ``progress``, ``memory_budget``: see :func:`read`. Raises as :func:`read` does.
    """
    ...
