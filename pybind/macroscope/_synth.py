"""Synthetic traces of any size, for tests, benchmarks and demonstrations."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence

from . import _bridge, _work
from ._errors import InvalidArgumentError


def synth(path, *, sites: int = 2, clusters: int = 4, machines: int = 8, cores: int = 8,
          events: int = 1_000_000, states: Mapping[str, float] | None = None, mean: float = 1e-3,
          seed: int = 1, anomalies: Sequence[Mapping] = (), format: str | None = None,
          memory_budget: int | None = None, progress=False) -> dict:
    """Write a synthetic trace to ``path`` and return a description of it.

    The resource hierarchy has ``sites`` sites of ``clusters`` clusters of
    ``machines`` machines of ``cores`` cores. Each core changes state about
    ``events / (number of cores)`` times: it draws each state independently
    with the weights of ``states`` (a mapping name -> weight; default an
    MPI-like program: Compute, MPI_Send, MPI_Recv, MPI_Wait, Idle) and holds
    it for a duration uniform around ``mean`` seconds, so the share of time
    of each state tends to its normalised weight.

    ``anomalies`` change the weights for the cores below one node, during a
    window of time; each is a mapping::

        {"level": "machine", "at": [1, 0, 2],      # site 1, cluster 0, machine 2
         "weights": {"MPI_Wait": 6},               # the other states keep theirs
         "start": 0.25, "end": 0.75}               # fractions of the duration (default 0, 1)

    ``format`` is ``"paje"`` or ``"parquet"`` (default: ``.parquet`` files
    are Parquet, anything else Pajé). Pajé traces read with pj_dump and
    :func:`read_paje`; Parquet files hold one row per state interval
    (resource, site, cluster, machine, core, state, start, end, start_ns,
    end_ns). The output is streamed: any size can be written. The same
    arguments always give the same bytes.

    Generation holds a few dozen bytes per core (estimated at 24 for Pajé,
    48 for Parquet, whose batches leave garbage): a hierarchy whose
    estimate exceeds ``memory_budget`` (bytes; default None: half of the
    memory available; 0: no limit) is refused at once with
    :class:`InvalidArgumentError` naming the estimate, before anything is
    written.

    Ctrl-C (Jupyter's stop button) stops the generation at once and
    removes the file begun. ``progress`` (default False) draws a bar of the
    states written as :func:`read` does (True, None, or a callable
    ``f(done, total)`` in thousandths).

    Returns a dict: path, format, containers, cores, states (intervals),
    events (Pajé event lines), bytes, duration (seconds).
    """
    if not math.isfinite(mean):
        raise InvalidArgumentError(f"mean: must be a finite number of seconds, got {mean}", param="mean")
    if states is not None:
        if not isinstance(states, Mapping):
            raise InvalidArgumentError("states: must be a mapping of state names to weights", param="states")
        states = [{"name": str(k), "weight": float(v)} for k, v in states.items()]
    if isinstance(anomalies, Mapping):
        anomalies = [anomalies]
    encoded = []
    for a in anomalies:
        if not isinstance(a, Mapping) or "level" not in a or "at" not in a or "weights" not in a:
            raise InvalidArgumentError(
                "anomalies: each anomaly is a mapping with level, at and weights (and optionally start, end)",
                param="anomalies")
        at = [a["at"]] if isinstance(a["at"], int) else list(a["at"])
        encoded.append({"level": str(a["level"]), "at": [int(i) for i in at],
                        "weights": {str(k): float(v) for k, v in dict(a["weights"]).items()},
                        "start": float(a.get("start", 0.0)), "end": float(a.get("end", 1.0))})
    opts = _bridge.options(sites=int(sites), clusters=int(clusters), machines=int(machines), cores=int(cores),
                           events=int(events), mean=float(mean), seed=int(seed), states=states,
                           anomalies=encoded, format=format, memory_budget=_bridge.memory_budget(memory_budget))
    # On a goroutine of its own, so that Ctrl-C (Jupyter's stop button)
    # stops it: the generation ends within a few thousand states and the
    # file left incomplete is removed.
    work = _bridge.call(_bridge.native.StartSynth, os.fspath(path), opts)
    _work.run(work, os.path.basename(os.fspath(path)), progress)
    return json.loads(_bridge.call(work.JSON))

