"""Macroscope: macroscopic views of execution traces of parallel programs.

Read a trace, build its microscopic model (the share of each time slice
each resource spends in each state) and aggregate it into the overview of
Dosimont et al. 2014, at the level of detail worth looking at:

>>> trace = ms.read("testdata/jacobi32.trace")
>>> trace
<macroscope.Trace jacobi32.trace: 66 containers, 10272 states, 0 variables, 3920 links, 0 events, 0-8.5038 s>
>>> model = trace.micro(slices=20)
>>> model
<macroscope.MicroModel 32 resources x 20 slices x 10 states, 0-8.5038 s>
>>> levels = model.significant_p()              # the levels of detail, as p goes from 0 to 1
>>> agg = model.aggregate(model.recommended_p())
>>> agg.to_pandas()[["node", "start", "end", "mode"]].head(3)
   node     start       end     mode
0  root  0.000000  0.425190  Compute
1  root  0.425190  2.551140  Compute
2  root  4.677091  8.503801  Compute
>>> agg.plot()                                  # agg.plot("overview.png") writes it
<macroscope.Figure 'overview' 960x576 px>

A trace too long to hold is modelled while it is read (:func:`read_micro`,
:func:`moments`), on one machine or a Dask cluster; tables of intervals
(pandas, Arrow, Parquet, CSV) become traces with :func:`from_pandas` and
:func:`read_table`.

The formats read (:func:`formats` lists them with their readers' options;
each has its ``read_<format>``, and :func:`read` finds the format of a file
by its name or content):

    paje            Pajé: PajeNG, SimGrid, StarPU, Akypuera
    otf2            OTF2 archives: Score-P, APEX
    chrome          Chrome and Perfetto trace-event JSON: PyTorch Kineto...
    speedscope      speedscope JSON: py-spy, rbspy, Austin, pyinstrument
    paraver         Paraver: Extrae, Dimemas, ovni
    pjdump          pj_dump's CSV output, StarVZ's directories of it
    nsys            Nsight Systems' SQLite export
    rocprofv3-json  rocprofv3's JSON output
    rocprofv3-csv   rocprofv3's CSV files of a run
    rocprof-csv     rocprof v1 and v2 CSV
    rpd             rocmProfileData's SQLite database
    rocpd           rocprofv3's rocpd SQLite database (ROCm 7's default)
    hpctoolkit      HPCToolkit databases
    xplane          TensorFlow and JAX profilers' XSpace (.xplane.pb)
    perfetto        Perfetto protobuf traces
    gotrace         Go execution traces
"""

from ._analyses import CommMatrix, FlatProfile, LoadImbalance
from ._profiles import comm_matrix, flat_profile, load_imbalance
from ._pop import POP, pop
from ._critpath import CriticalPath, Stragglers, critical_path, stragglers
from ._errors import (
    EmptyTraceError,
    InternalError,
    InvalidArgumentError,
    MacroscopeError,
    TraceFormatError,
    TraceNotFoundError,
)
from ._figure import Figure
from ._formats import FORMATS, formats
from ._compare import Comparison, Differences, compare, compare_series
from ._kaleido import CallTree, Kaleidoscope
from ._model import Aggregation, MicroModel
from ._moments import Moments
from ._topology import Topology
from ._trace import Trace
from ._treemap import Treemap
from ._synth import synth
from ._from_table import from_pandas, read_table
from . import _readers
from ._readers import read, read_paje
from ._stream import moments, read_micro
from ._to_dataset import to_parquet_dataset
from ._bridge import native as _native

# read_<format> for every format of the Go registry (the type stub,
# __init__.pyi, spells out their signatures).
globals().update(_readers.READERS)

# The Go core's version, pyproject.toml's (a test checks); the command
# line's --version prints it too.
__version__ = _native.Version()

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
]

# Every format of the Go registry has its read_<format>.
__all__ += [name for name in sorted(_readers.READERS) if name not in __all__]
