"""Macroscope: macroscopic views of execution traces of parallel programs.

    >>> import macroscope as ms
    >>> trace = ms.read_paje("run.trace")
    >>> model = trace.micro(slices=100)
    >>> model.significant_p()            # the levels of detail worth looking at
    >>> agg = model.aggregate(0.3)
    >>> agg.to_pandas()                  # the aggregates
    >>> agg.plot("overview.png")         # the overview figure
"""

from ._errors import (
    InternalError,
    InvalidArgumentError,
    MacroscopeError,
    TraceFormatError,
    TraceNotFoundError,
)
from ._model import Aggregation, MicroModel
from ._trace import Trace, read_paje

__version__ = "0.1.0"

__all__ = [
    "Aggregation",
    "InternalError",
    "InvalidArgumentError",
    "MacroscopeError",
    "MicroModel",
    "Trace",
    "TraceFormatError",
    "TraceNotFoundError",
    "read_paje",
]
