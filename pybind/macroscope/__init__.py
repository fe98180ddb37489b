"""Macroscope: macroscopic views of execution traces of parallel programs.

    >>> import macroscope as ms
    >>> trace = ms.read("run.trace")      # Pajé, OTF2, Chrome JSON, Paraver, pj_dump CSV
    >>> model = trace.micro(slices=100)
    >>> model.significant_p()            # the levels of detail worth looking at
    >>> agg = model.aggregate(0.3)
    >>> agg.to_pandas()                  # the aggregates
    >>> agg.plot("overview.png")         # the overview figure
"""

from ._figure import Figure
from ._errors import (
    InternalError,
    InvalidArgumentError,
    MacroscopeError,
    TraceFormatError,
    TraceNotFoundError,
)
from ._kaleido import CallTree, Kaleidoscope
from ._model import Aggregation, MicroModel
from ._synth import synth
from ._moments import Moments, moments
from ._from_table import from_pandas, read_table
from . import _readers
from ._readers import FORMATS, formats, read, read_paje

globals().update({name: getattr(_readers, name) for name in _readers.__all__})
from ._stream import read_micro
from ._dataset import to_parquet_dataset
from ._topology import Topology
from ._trace import Trace
from ._treemap import Treemap

__version__ = "0.1.0"

__all__ = [
    "FORMATS",
    "Figure",
    "Aggregation",
    "CallTree",
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
__all__ += [name for name in _readers.__all__ if name not in __all__]
