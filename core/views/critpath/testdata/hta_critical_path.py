"""Holistic Trace Analysis' critical path of one Kineto trace, as JSON.

    python hta_critical_path.py TRACE.json.gz

Runs HTA's critical_path_analysis on the trace's rank over the whole trace
(annotation "") and prints {"total": the path's length in microseconds,
"edges": [[start, end, weight, type, attributed event name], ...]} with the
path's edges in order. Needs HTA (pip install HolisticTraceAnalysis), which
reads a directory: the trace is copied into a temporary one.
"""
import json
import logging
import os
import shutil
import sys
import tempfile
import warnings

logging.disable(logging.WARNING)
warnings.simplefilter("ignore")

from hta.trace_analysis import TraceAnalysis  # noqa: E402


def main(path):
    with tempfile.TemporaryDirectory() as d:
        shutil.copy(path, os.path.join(d, os.path.basename(path)))
        ta = TraceAnalysis(trace_dir=d)
        rank = next(iter(ta.t.traces))
        cp, ok = ta.critical_path_analysis(rank=rank, annotation="", instance_id=None)
    if not ok:
        sys.exit("HTA's critical path analysis failed")
    names = ta.t.symbol_table.get_sym_table()
    nodes = cp.critical_path_nodes
    edges, total = [], 0
    for u, v in zip(nodes, nodes[1:]):
        e = cp.edges[u, v]["object"]
        w = int(cp.edges[u, v]["weight"])
        ev = cp.get_event_attribution_for_edge(e)
        name = names[cp.trace_df.name.loc[ev]] if ev is not None and ev >= 0 else ""
        edges.append([int(cp.node_list[u].ts), int(cp.node_list[v].ts), w, e.type.value, name])
        total += w
    print(json.dumps({"version": _version(), "total": total, "edges": edges}))


def _version():
    from importlib.metadata import version
    return version("HolisticTraceAnalysis")


if __name__ == "__main__":
    main(sys.argv[1])
