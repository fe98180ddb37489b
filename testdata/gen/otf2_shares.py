#!/usr/bin/env python3
"""Each location's time in each innermost region of a Score-P OTF2 trace,
and in none, over the trace's clock, from python3-otf2's records without
Macroscope's code: the oracle of compare()'s divergences on real OTF2
runs (pybind/tests/test_compare.py).

    python3 testdata/gen/otf2_shares.py TRACE.otf2 OUT.json

OUT.json: {"location path": {"region": ns, ..., "(idle)": ns}}, the path
being the system tree from its root, the location group and the location
joined by "/"; times in nanoseconds from the clock's global offset, each
rounded to the nearest. The innermost region is the top of the stack of
regions entered and not left (a Leave closes the latest open region of
its name); regions never left last to the trace's end.
"""

import collections
import json
import sys

import otf2


def path_of(loc):
    names = [loc.name, loc.group.name]
    node = loc.group.system_tree_parent
    while node is not None:
        names.append(node.name)
        node = node.parent
    return "/".join(reversed(names))


def main():
    shares = collections.defaultdict(lambda: collections.defaultdict(int))
    stacks = collections.defaultdict(list)
    at = {}
    with otf2.reader.open(sys.argv[1]) as tr:
        clock = tr.definitions.clock_properties
        offset, resolution = clock.global_offset, clock.timer_resolution

        def ns(t):
            return (2 * (t - offset) * 10**9 + resolution) // (2 * resolution)

        def advance(loc, t):
            stack = stacks[loc]
            shares[loc][stack[-1] if stack else "(idle)"] += t - at.get(loc, 0)
            at[loc] = t

        for loc, ev in tr.events:
            kind = type(ev).__name__
            if kind not in ("Enter", "Leave"):
                continue
            t = ns(ev.time)
            advance(loc, t)
            if kind == "Enter":
                stacks[loc].append(ev.region.name)
            else:
                stack = stacks[loc]
                del stack[max(k for k, r in enumerate(stack) if r == ev.region.name)]
        end = ns(offset + clock.trace_length)
        for loc in list(at):
            advance(loc, end)
    out = {path_of(loc): dict(s) for loc, s in shares.items()}
    with open(sys.argv[2], "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
