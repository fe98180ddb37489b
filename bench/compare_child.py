"""One measurement of bench/compare.py: read one file with one tool, in a
fresh process, and print what happened as a JSON line.

    python bench/compare_child.py TOOL MODE PATH

MODE "time" times the read alone (imports are done before the clock
starts) and prints {"seconds": s, "cpu": s, "count": {...}} (cpu: the
read's user + system time, every thread and ended child) with counts that cost
nothing once the data is read (a length, a summary). MODE "check" reads the
same way and prints detailed counts (by type of state, by kind of event),
which may build tables: it is run once, apart from the timed runs, so that
their peak memory is the read's alone.

Each tool is a function of this module, run by the interpreter that has
its library: Macroscope's from the project's virtual environment, the
peers' (pipit, HTA) from bench/.peers-venv. A failure prints the exception
on stderr and exits non-zero; the parent reports its last line.
"""

import json
import resource
import sys
import time

_cpu = {}


def _cpu_now():
    """CPU seconds (user + system) of this process, every thread, and of
    its children that have ended (pipit's OTF2 reader forks workers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _start():
    """The start of the timed read: its wall clock, returned, and its CPU
    time, kept for _stop."""
    _cpu["began"] = _cpu_now()
    return time.perf_counter()


def _stop(began):
    """The wall-clock seconds since began; the CPU seconds are kept for the
    report ("cpu")."""
    took = time.perf_counter() - began
    _cpu["took"] = _cpu_now() - _cpu["began"]
    return took


def _count_by(series, most=12):
    """Counts by value; past `most` values, the largest ones and the rest's
    number and total (a row per rank of a large run says little here)."""
    counts = [(str(k), int(v)) for k, v in series.value_counts().sort_index().items() if v]
    if len(counts) <= most:
        return dict(counts)
    values = [v for _, v in counts]
    return {"values": len(counts), "total": sum(values), "min": min(values), "max": max(values)}


# Macroscope ------------------------------------------------------------------

def _ms():
    import macroscope as ms

    return ms


def _ms_counts(tr, mode):
    s = tr._summary
    count = {k: s[k] for k in ("containers", "states", "links", "events", "variables") if s.get(k)}
    if mode == "check":
        if s.get("states"):
            count["states by type"] = _count_by(tr.states["type"])
        if tr.skipped:
            count["skipped"] = tr.skipped
    return count


def ms_read(path, mode):
    ms = _ms()
    began = _start()
    tr = ms.read(path, progress=False)
    took = _stop(began)
    return took, _ms_counts(tr, mode)


def ms_read_micro_model(path, mode):
    """ms.read, then the microscopic model (100 slices) of the whole trace."""
    ms = _ms()
    began = _start()
    tr = ms.read(path, progress=False)
    tr.micro()
    took = _stop(began)
    return took, _ms_counts(tr, mode)


def ms_read_micro(path, mode):
    """ms.read_micro: the model built while reading, nothing else kept."""
    ms = _ms()
    began = _start()
    model = ms.read_micro(path, progress=False)
    took = _stop(began)
    info = getattr(model, "trace_info", None) or {}
    count = {k: info[k] for k in ("states", "events", "links") if isinstance(info, dict) and info.get(k)}
    return took, count


# pipit -----------------------------------------------------------------------

def _pipit():
    import pipit

    if not hasattr(pipit, "Trace"):
        version = getattr(pipit, "__version__", "?")
        raise RuntimeError(f"this pipit ({version}) has no Trace: PyPI's pipit is an empty placeholder; "
                           "give a source tree of hpcgroup/pipit with --pipit-src")
    return pipit


def _pipit_counts(events, mode, by=None):
    enter = events["Event Type"] == "Enter"
    count = {"Enter": int(enter.sum()), "rows": len(events)}
    if mode == "check":
        count["rows by event type"] = _count_by(events["Event Type"].astype(str))
        if by and by in events.columns:
            count[f"Enter by {by}"] = _count_by(events.loc[enter, by])
    return count


def pipit_nsight_sqlite(path, mode):
    pipit = _pipit()
    if not hasattr(pipit.Trace, "from_nsight_sqlite"):
        raise RuntimeError("this pipit reads Nsight Systems only as CSV exports (from_nsight): "
                           "its SQLite reader is hpcgroup/pipit's nsight-sqlite branch")
    began = _start()
    tr = pipit.Trace.from_nsight_sqlite(path)
    took = _stop(began)
    return took, _pipit_counts(tr.events, mode, by="Trace Type")


def pipit_hpctoolkit(path, mode):
    pipit = _pipit()
    began = _start()
    tr = pipit.Trace.from_hpctoolkit(path)
    took = _stop(began)
    return took, _pipit_counts(tr.events, mode, by="Process")


def pipit_otf2(path, mode):
    pipit = _pipit()
    began = _start()
    tr = pipit.Trace.from_otf2(path)
    took = _stop(began)
    return took, _pipit_counts(tr.events, mode, by="Process")


# HTA and plain Python for Kineto JSON ----------------------------------------

def hta_parse(path, mode):
    """HTA's parser of one rank's trace (what TraceAnalysis runs per file)."""
    from hta.common.trace_parser import parse_trace_dataframe
    from hta.configs.parser_config import ParserConfig

    began = _start()
    meta, df, symbols = parse_trace_dataframe(path, ParserConfig.get_default_cfg())
    took = _stop(began)
    count = {"rows": len(df)}
    if mode == "check":
        if "cat" in df.columns:
            names = symbols.get_sym_table() if hasattr(symbols, "get_sym_table") else None
            cats = df["cat"].map(lambda i: names[i] if names is not None and 0 <= i < len(names) else i)
            count["rows by cat"] = _count_by(cats.astype(str))
    return took, count


def json_pandas(path, mode):
    """The floor of any Python reader: json.load, then one DataFrame."""
    import gzip
    import json as js

    import pandas as pd

    began = _start()
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        doc = js.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    df = pd.DataFrame(events)
    took = _stop(began)
    count = {"rows": len(df)}
    if "ph" in df.columns:
        count["ph X"] = int((df["ph"] == "X").sum())
        if mode == "check":
            count["rows by ph"] = _count_by(df["ph"].astype(str))
    return took, count


TOOLS = {name: fn for name, fn in globals().items()
         if callable(fn) and not name.startswith("_") and fn.__module__ == __name__}


def main():
    tool, mode, path = sys.argv[1:4]
    if tool not in TOOLS:
        sys.exit(f"unknown tool {tool!r} (one of {', '.join(sorted(TOOLS))})")
    import warnings

    warnings.simplefilter("ignore")
    try:
        took, count = TOOLS[tool](path, mode)
    except Exception as e:
        # one line for the table: SQL errors and the like span many lines,
        # and their end says what went wrong
        message = " ".join(f"{type(e).__name__}: {e}".split())
        if len(message) > 200:
            message = message[:80] + " ... " + message[-110:]
        sys.stdout.write(json.dumps({"error": message}) + "\n")
        sys.exit(2)
    sys.stdout.write(json.dumps({"seconds": took, "cpu": _cpu.get("took"), "count": count}) + "\n")


if __name__ == "__main__":
    main()
