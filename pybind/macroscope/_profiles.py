"""The profile analyses of trace files, computed while reading them, on
this machine or on a Dask cluster: ``ms.flat_profile``,
``ms.load_imbalance`` and ``ms.comm_matrix``.

They stand above :mod:`macroscope._analyses` (the result classes, which
:class:`macroscope.Trace` uses too) because the cluster's side needs the
models and traces of :mod:`macroscope._distributed`.
"""

from __future__ import annotations

import os

from . import _bridge, _distributed
from ._analyses import CommMatrix, FlatProfile, LoadImbalance, profile_options, analyze_file
from ._errors import InvalidArgumentError
from ._formats import check_options
from ._reading import Progress


def _on_cluster(path, client, kind, cls, format, progress, opts, options, partitions, function):
    """The profile analyses on a Dask cluster (see :func:`flat_profile`)."""
    check_options(function, options)
    paths = [path] if isinstance(path, (str, os.PathLike)) else list(path)
    if not paths:
        raise InvalidArgumentError("path: no file given", param="path")
    _distributed._check_client(client)
    return cls(_distributed.profile(paths, client, kind, _bridge.options(**opts), format=format, options=options,
                                    partitions=partitions, progress=progress))


def flat_profile(path, format: str | None = None, *, state_types=None, by: str = "process",
                 progress: Progress = None, client=None, partitions: int | None = None, **options) -> FlatProfile:
    """The flat profile of the trace file at ``path``, computed while
    reading it (memory: a sum per state name and process). ``state_types``
    and ``by`` are those of :meth:`macroscope.Trace.flat_profile`;
    ``format`` and ``options`` those of :func:`macroscope.read`.

    ``client``, a ``dask.distributed.Client``, computes it on its cluster:
    the parts of the input (location groups of an OTF2 archive, trace
    lines of an HPCToolkit database, byte ranges of a Paraver file, up to
    ``partitions`` of them; the files of a list) are profiled by the
    workers and their sums added up: the same result, exactly.

    >>> prof = ms.flat_profile("testdata/jacobi32.trace")
    >>> prof.to_pandas()[["name", "count", "exclusive_mean"]].head(2)
                 name  count  exclusive_mean
    0         Compute     32        6.123419
    1  PMPI_Allreduce    384        1.062671
    """
    if client is not None:
        return _on_cluster(path, client, "flat_profile", FlatProfile, format, progress,
                           profile_options(state_types, by), options, partitions, "flat_profile")
    return analyze_file(path, "flat_profile", FlatProfile, format, progress,
                        profile_options(state_types, by), options, "flat_profile")


def load_imbalance(path, format: str | None = None, *, metric: str = "exclusive", top: int = 3,
                   state_types=None, by: str = "process", progress: Progress = None, client=None,
                   partitions: int | None = None, **options) -> LoadImbalance:
    """The load imbalance of every state name of the trace file at
    ``path``, computed while reading it; the arguments are those of
    :meth:`macroscope.Trace.load_imbalance` and :func:`macroscope.read`,
    ``client`` and ``partitions`` those of :func:`flat_profile`."""
    if client is not None:
        return _on_cluster(path, client, "load_imbalance", LoadImbalance, format, progress,
                           profile_options(state_types, by, metric, top), options, partitions, "load_imbalance")
    return analyze_file(path, "load_imbalance", LoadImbalance, format, progress,
                        profile_options(state_types, by, metric, top), options, "load_imbalance")


def comm_matrix(path, format: str | None = None, *, level: str = "process", link_types=None,
                progress: Progress = None, **options) -> CommMatrix:
    """The communication matrix of the trace file at ``path``, computed
    while reading it (memory: a sum per link type and pair); the arguments
    are those of :meth:`macroscope.Trace.comm_matrix` and
    :func:`macroscope.read`."""
    if isinstance(link_types, str):
        link_types = [link_types]
    return analyze_file(path, "comm_matrix", CommMatrix, format, progress,
                        dict(level=level, link_types=link_types), options, "comm_matrix")

