#!/usr/bin/env python3
"""The critical path of a Score-P OTF2 trace by a backward replay written
apart from Macroscope, on python3-otf2's records, as docs/analyses.md states
Scalasca's semantics: core/views/critpath's TestIndependentReplay compares.

    python3 testdata/gen/critpath_replay.py TRACE.otf2 OUT.json

OUT.json: {"segments": [{"resource", "start", "end", "via"}...], "waits":
[{"resource", "enter", "wait", "kind"}...]}, a resource named "location
group/location", times in nanoseconds from the clock's global offset,
rounded to the nearest as the OTF2 reader rounds them.

- MPI calls: the outermost regions named MPI_* or PMPI_*; a Leave closes
  the latest open region of its name.
- Messages: the k-th send from a to b on a communicator with a tag is the
  k-th receive of b from a on it with that tag; the send call holds the
  MpiSend (MpiIsend), the receive call the MpiRecv (MpiIrecv).
- Collectives: the k-th collective call of each location on a
  communicator is instance k; its call holds the MpiCollectiveEnd, which
  names the root rank. A self communicator (group type COMM_SELF) is each
  location's own.
- Wait states, each cut to its call: late sender (a receiving call, MPI_Recv,
  MPI_Sendrecv or MPI_Wait*, entered before the send call: until the send's
  entry), late receiver (a blocking send still in its call when the receive
  call is entered after it: until that entry), all-to-all collectives and
  those of unknown root (until the last entry), one-to-all (the others until
  the root's entry), all-to-one (the root until the others' last entry), scan
  (rank n until the last entry of ranks 0..n-1); a call keeps its longest,
  the first met of equals.
- The path: from the location entering MPI_Finalize last (else the one whose
  last record is the latest, regions never left lasting to the trace's end)
  backwards, call by call, to the latest call that waited and whose wait had
  ended by then: the path goes on at the cause, at the instant the wait
  ended; down to the end of MPI_Init (else the trace's start).
"""

import collections
import json
import sys

import otf2

ALL_TO_ONE = {"reduce", "gather", "gatherv"}
ONE_TO_ALL = {"bcast", "scatter", "scatterv"}
SCAN = {"scan", "exscan"}
RECEIVES = {"recv", "sendrecv", "sendrecv_replace", "wait", "waitall", "waitany", "waitsome"}
BLOCKING_SENDS = {"send", "ssend", "bsend", "rsend", "sendrecv", "sendrecv_replace"}


def operation(region):
    """the MPI operation a region names in lower case ("reduce"), or None"""
    name = region.lower()
    for prefix in ("pmpi_", "mpi_"):
        if name.startswith(prefix):
            return name[len(prefix):]
    return None


class Trace:
    """the MPI calls, messages and collectives of an archive"""

    def __init__(self, path):
        self.calls = collections.defaultdict(list)  # location -> [{op, enter, leave}]
        self.last = {}
        sends, receives, ends = [], [], []
        open_regions = collections.defaultdict(list)
        with otf2.reader.open(path) as tr:
            clock = tr.definitions.clock_properties
            self.offset, self.resolution = clock.global_offset, clock.timer_resolution
            for loc, ev in tr.events:
                t = ev.time
                self.last[loc] = t
                kind = type(ev).__name__
                if kind == "Enter":
                    op = operation(ev.region.name)
                    outermost = op is not None and not any(r[2] for r in open_regions[loc])
                    open_regions[loc].append((ev.region.name, t, outermost, op))
                elif kind == "Leave":
                    stack = open_regions[loc]
                    i = max(k for k, r in enumerate(stack) if r[0] == ev.region.name)
                    _, enter, outermost, op = stack.pop(i)
                    if outermost:
                        self.calls[loc].append({"op": op, "enter": enter, "leave": t})
                elif kind in ("MpiSend", "MpiIsend"):
                    sends.append((loc, ev.communicator.group.members[ev.receiver], ev.communicator, ev.msg_tag, t))
                elif kind in ("MpiRecv", "MpiIrecv"):
                    receives.append((ev.communicator.group.members[ev.sender], loc, ev.communicator, ev.msg_tag, t))
                elif kind == "MpiCollectiveEnd":
                    # a rank of the communicator, else one of OTF2's
                    # special values (ROOT_NONE: unrooted; ROOT_SELF,
                    # ROOT_THIS_GROUP: inter-communicators'), all past any
                    members = ev.communicator.group.members
                    root = members[ev.root] if ev.root < len(members) else None
                    comm = ev.communicator
                    if str(comm.group.group_type).endswith("COMM_SELF"):
                        comm = (comm, loc)  # one definition, a communicator per location
                    ends.append((loc, comm, t, root))
            for loc, stack in open_regions.items():
                if stack:  # the reader ends regions never left at the trace's end
                    self.last[loc] = max(self.last[loc], self.offset + clock.trace_length)
        for calls in self.calls.values():
            calls.sort(key=lambda c: c["enter"])
        self.messages = self._match(sends, receives)
        self.collectives = self._instances(ends)

    def call_at(self, loc, t):
        for i, c in enumerate(self.calls[loc]):
            if c["enter"] <= t <= c["leave"]:
                return (loc, i)
        raise ValueError(f"no MPI call of {loc.group.name} holds instant {t}")

    def call(self, ref):
        return self.calls[ref[0]][ref[1]]

    def _match(self, sends, receives):
        queued = collections.defaultdict(collections.deque)
        for s in sends:
            queued[s[:4]].append(s)
        pairs = []
        for r in sorted(receives, key=lambda r: r[4]):
            s = queued[r[:4]].popleft()
            pairs.append((self.call_at(s[0], s[4]), self.call_at(r[1], r[4])))
        return pairs

    def _instances(self, ends):
        count, instances = collections.Counter(), collections.defaultdict(list)
        for loc, comm, t, root in sorted(ends, key=lambda e: e[2]):
            k = count[(loc, comm)]
            count[(loc, comm)] += 1
            instances[(comm, k)].append((self.call_at(loc, t), root))
        return [(comm, members) for (comm, _), members in instances.items()]


def wait_states(tr):
    """each call's longest wait state: ref -> (wait, kind, cause ref, instant it ended)"""
    found = collections.defaultdict(list)

    def offer(ref, wait, kind, cause, at):
        c = tr.call(ref)
        wait = min(wait, c["leave"] - c["enter"])
        if wait > 0:
            found[ref].append((wait, kind, cause, at))

    for s, r in tr.messages:
        sc, rc = tr.call(s), tr.call(r)
        if rc["op"] in RECEIVES and rc["enter"] < sc["enter"]:
            offer(r, sc["enter"] - rc["enter"], "late sender", s, sc["enter"])
        if sc["op"] in BLOCKING_SENDS and sc["enter"] < rc["enter"] < sc["leave"]:
            offer(s, rc["enter"] - sc["enter"], "late receiver", r, rc["enter"])

    def waits_for(x, cause):
        if cause is not None and cause != x:
            at = tr.call(cause)["enter"]
            offer(x, at - tr.call(x)["enter"], "collective", cause, at)

    def latest(refs):
        return max(refs, key=lambda x: tr.call(x)["enter"]) if refs else None

    for comm, members in tr.collectives:
        refs = [ref for ref, _ in members]
        op = tr.call(refs[0])["op"]
        root = next((ref for ref in refs if ref[0] == members[0][1]), None)
        if op in ONE_TO_ALL and root is not None:
            for x in refs:
                waits_for(x, root)
        elif op in ALL_TO_ONE and root is not None:
            waits_for(root, latest([x for x in refs if x != root]))
        elif op in SCAN:
            # by rank (a self communicator's one member is its rank 0)
            ranked = refs if len(refs) == 1 else sorted(refs, key=lambda x: comm.group.members.index(x[0]))
            for i, x in enumerate(ranked):
                waits_for(x, latest(ranked[:i]))
        else:
            last = latest(refs)
            for x in refs:
                waits_for(x, last)
    return {ref: max(w, key=lambda x: x[0]) for ref, w in found.items()}


def critical_path(tr, waits):
    locations = list(tr.calls)

    def end(loc):
        finalize = [c for c in tr.calls[loc] if c["op"] == "finalize"]
        return finalize[-1]["enter"] if finalize else tr.last[loc]

    loc = max(locations, key=lambda l: (end(l), -locations.index(l)))
    at, segments = end(loc), []
    while True:
        jumped, stop = False, None
        for j in range(len(tr.calls[loc]) - 1, -1, -1):
            c = tr.call((loc, j))
            if c["enter"] >= at:
                continue
            if c["op"] == "init" and c["leave"] <= at:
                stop = c["leave"]
                break
            w = waits.get((loc, j))
            if w is None or c["enter"] + w[0] > at:
                continue
            segments.append((loc, c["enter"] + w[0], at, w[1]))
            loc, at, jumped = w[2][0], w[3], True
            break
        if not jumped:
            start = stop if stop is not None else min(tr.calls[l][0]["enter"] for l in locations if tr.calls[l])
            segments.append((loc, min(start, at), at, "start"))
            return segments[::-1]


def main():
    tr = Trace(sys.argv[1])
    ns = lambda t: (2 * (t - tr.offset) * 10**9 + tr.resolution) // (2 * tr.resolution)
    name = lambda loc: f"{loc.group.name}/{loc.name}"
    waits = wait_states(tr)
    out = {
        "segments": [{"resource": name(l), "start": ns(s), "end": ns(e), "via": v} for l, s, e, v in critical_path(tr, waits)],
        "waits": sorted(({"resource": name(ref[0]), "enter": ns(tr.call(ref)["enter"]), "wait": ns(tr.call(ref)["enter"] + w[0]) - ns(tr.call(ref)["enter"]),
                          "kind": w[1]} for ref, w in waits.items()), key=lambda w: (w["resource"], w["enter"])),
    }
    with open(sys.argv[2], "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
