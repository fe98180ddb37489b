#!/usr/bin/env python3
"""POP's raw data of an MPI-only Score-P trace from python3-otf2's records,
as docs/analyses.md defines them for OTF2, without Macroscope's code:
core/views/pop's TestOTF2RawIndependent compares.

    python3 testdata/gen/pop_otf2_raw.py TRACE.otf2 OUT.json

OUT.json: {"runtime": ns, "useful": {"location group/location": ns...}}.
Times are nanoseconds from the clock's global offset, each timestamp
rounded to the nearest as the OTF2 reader rounds it.

- runtime: the clock's length (the trace's duration);
- useful, for each CPU thread: the time from its first to its last record
  outside MPI calls (outermost regions named MPI_* or PMPI_*) and outside
  regions of paradigm MEASUREMENT_SYSTEM; a Leave closes the latest open
  region of its name, and regions never left last to the trace's end.
"""

import collections
import json
import sys

import otf2


def main():
    first, last = {}, {}
    outside = collections.defaultdict(int)  # time in the excluded regions
    open_regions = collections.defaultdict(list)
    with otf2.reader.open(sys.argv[1]) as tr:
        clock = tr.definitions.clock_properties
        offset, resolution = clock.global_offset, clock.timer_resolution

        def ns(t):
            return (2 * (t - offset) * 10**9 + resolution) // (2 * resolution)

        for loc, ev in tr.events:
            if not str(loc.type).endswith("CPU_THREAD"):
                continue
            t = ns(ev.time)
            first.setdefault(loc, t)
            last[loc] = t
            kind = type(ev).__name__
            if kind == "Enter":
                region = ev.region
                excluded = region.name.upper().startswith(("MPI_", "PMPI_")) or str(region.paradigm).endswith(
                    "MEASUREMENT_SYSTEM")
                outermost = excluded and not any(r[2] for r in open_regions[loc])
                open_regions[loc].append((region.name, t, outermost))
            elif kind == "Leave":
                stack = open_regions[loc]
                i = max(k for k, r in enumerate(stack) if r[0] == ev.region.name)
                _, enter, outermost = stack.pop(i)
                if outermost:
                    outside[loc] += t - enter
        end = ns(offset + clock.trace_length)
        for loc, stack in open_regions.items():
            for _, enter, outermost in stack:  # never left: they last to the trace's end
                last[loc] = end
                if outermost:
                    outside[loc] += end - enter
    out = {"runtime": end - ns(offset),
           "useful": {f"{loc.group.name}/{loc.name}": last[loc] - first[loc] - outside[loc] for loc in first}}
    with open(sys.argv[2], "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
