"""Writing a trace as a hive-partitioned Parquet dataset
(:func:`to_parquet_dataset`), in the layout of :mod:`macroscope._dataset`.

The Go core writes it (the package arrowio/dataset, which the command
``macroscope convert`` runs too), handing the Parquet files to pyarrow
(:mod:`macroscope._parquet`). Each table is partitioned by rank: the
container each row's container lies in, so that a tool reading the dataset
lazily reads one process's rows without the others', and a Dask cluster
models a part per file.
"""

from __future__ import annotations

import os

from . import _bridge, _work
from ._readers import read
from ._trace import Trace


def to_parquet_dataset(trace, directory, partition_by: str | None = "rank", *, format=None, **options) -> str:
    """Write a trace (a :class:`Trace`, or the path of a trace file, read
    with ``format`` and the reader's ``options``) as a hive-partitioned
    Parquet dataset in ``directory``: tables ``states``, ``links``,
    ``variables`` and ``events``, each partitioned by the column ``rank``,
    the container each row's container lies in (the outermost of the first
    rank type the trace has: Run, Task, process, MPI rank; or of the
    container type ``partition_by`` names; the top-level container when
    none is found). ``partition_by=None`` writes each table in one
    partition (rank is the root "/"). Returns the directory. The command
    line writes the same: ``macroscope convert TRACE --out DIRECTORY``.

    The schema is fixed (see docs/distributed.md); times are integer
    nanoseconds. ``macroscope.read(directory)`` reads the states back.

    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     directory = ms.to_parquet_dataset("testdata/jacobi32.trace", os.path.join(tmp, "jacobi"))
    ...     print(sorted(os.listdir(os.path.join(directory, "states"))))
    ...     print(ms.read(directory))
    ['rank=alpha', 'rank=beta']
    <macroscope.Trace jacobi: 66 containers, 10272 states, 0 variables, 0 links, 0 events, 0-8.5038 s>
    """
    if not isinstance(trace, Trace):
        trace = read(trace, format, progress=False, **options)
    directory = os.fspath(directory)
    # On a goroutine of its own, which Python polls: Python writes the
    # Parquet files (macroscope._parquet), and Ctrl-C stops the writing.
    work = _bridge.call(trace._h.StartWriteDataset, directory, partition_by or "")
    _work.run(work, os.path.basename(directory), progress=False)
    return directory
