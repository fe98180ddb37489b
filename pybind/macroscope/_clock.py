"""One clock: the times a person reads count from the trace's start.

Traces keep their instants as their files write them (Unix time for
Kineto, the session's clock for Nsight Systems, 0 at the start for most
HPC tracers): the tables' columns keep those. Everything shown (reprs,
figures, explorers, the command line) counts from the trace's first
instant, its origin, stated once; every window argument (``start=``,
``end=``) takes seconds from it, and an instant of the trace's own clock
where it cannot be mistaken (see docs/ingestion.md, "One clock").
"""

from __future__ import annotations


def seconds_ns(ns: int) -> str:
    """An instant in integer nanoseconds as exact decimal seconds, without
    trailing zeros: 1661203462584766976 -> "1661203462.584766976"."""
    sign = "-" if ns < 0 else ""
    whole, frac = divmod(abs(int(ns)), 1_000_000_000)
    text = f"{sign}{whole}.{frac:09d}".rstrip("0").rstrip(".")
    return text


def span(info: dict) -> str:
    """A window [start, end] from its info (``start_ns``, ``end_ns``,
    ``origin_ns``, or the seconds ``start``, ``end``, ``origin``) in
    seconds from the trace's start, the origin said once when it is not
    the clock's zero: "0-8.5038 s", "0.1-0.2 s (from 1661203462.584766976 s)"."""
    if "start_ns" in info and "end_ns" in info:
        origin = int(info.get("origin_ns", info["start_ns"] if info.get("origin_is_start") else 0))
        a = (int(info["start_ns"]) - origin) / 1e9
        b = (int(info["end_ns"]) - origin) / 1e9
    else:
        origin_s = float(info.get("origin", 0.0))
        a, b = float(info["start"]) - origin_s, float(info["end"]) - origin_s
        origin = round(origin_s * 1e9)
    text = f"{a:g}-{b:g} s"
    if origin:
        text += f" (from {seconds_ns(origin)} s)"
    return text


def relative(info: dict) -> tuple[float, float]:
    """The window of a model's (or moments') info in seconds from the
    trace's start, exactly from the nanoseconds where the info has them."""
    if "start_ns" in info and "end_ns" in info:
        origin = int(info.get("origin_ns", 0))
        return (int(info["start_ns"]) - origin) / 1e9, (int(info["end_ns"]) - origin) / 1e9
    origin = float(info.get("origin", 0.0))
    return float(info["start"]) - origin, float(info["end"]) - origin


def origin_note(info: dict) -> str:
    """The origin said once, for a view's header: "" on a clock from zero,
    else "times from the trace's start at 1661203462.584766976 s"."""
    origin = int(info.get("origin_ns", round(float(info.get("origin", 0.0)) * 1e9)))
    return f"times from the trace's start at {seconds_ns(origin)} s" if origin else ""
