"""Independent oracle for the producers' samples in this folder.

For each Chrome trace-event JSON file given, prints one JSON object per line:
the states, events and links the reader must produce, and the processes and
threads, counted with Python's json module from the format's rules as the
reader's documentation states them, without its code:
  states: X events, B events (an unclosed B still becomes a state), async
    begins (b, S) that have an id;
  events: instants (i, I, R with scope g, p or t), n, T and p with an id,
    and flow points that no link uses;
  links: flow points (s, t, f; flow_in/flow_out with bind_id on X) matched
    by (cat, id) in time order: s opens, t links from the latest point and
    becomes it, f links from the latest point and leaves the flow open;
  threads: every (pid, tid) of an event other than counters and process or
    global instants, and of thread metadata; a missing pid or tid is 0.
Events without ts, or whose ph is not one character, are left out.
"""

import collections
import decimal
import gzip
import json
import sys


def load(path):
    """The events of a trace: plain or gzipped JSON, array or object form."""
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    text = raw.decode("utf-8")
    try:
        doc = json.loads(text, parse_float=decimal.Decimal, strict=False)
    except json.JSONDecodeError:  # the array form may lack its closing bracket
        doc = json.loads(text.rstrip().rstrip(",") + "]", parse_float=decimal.Decimal, strict=False)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def ns(us):
    """Microseconds, as written, to integer nanoseconds."""
    return int((decimal.Decimal(us) * 1000).to_integral_value(rounding=decimal.ROUND_HALF_UP))


def key(v):
    """pid, tid and id compare as text: 7 and "7" are one."""
    return None if v is None else str(v)


def has_id(e):
    return e.get("id", e.get("id2")) is not None


def count_flows(flows):
    """Links and unused points of the flows, each a list of (time, order, phase)."""
    links = unused = 0
    for points in flows.values():
        points.sort()
        source, used = None, False
        for _, order, phase in points:
            if phase == "s":
                if source is not None and not used:
                    unused += 1
                source, used = order, False
            elif source is None:
                unused += 1
            else:
                links += 1
                used = True
                if phase == "t":
                    source = order
        if source is not None and not used:
            unused += 1
    return links, unused


def summarize(path):
    states = events = 0
    flows = collections.defaultdict(list)
    processes, threads = set(), set()
    for order, e in enumerate(load(path)):
        ph = e.get("ph")
        if not ph or len(ph) != 1:
            continue
        if ph == "M":
            name = e.get("name", "")
            if name.startswith("process_") and "pid" in e:
                processes.add(key(e["pid"]))
            if name.startswith("thread_") and "pid" in e and "tid" in e:
                processes.add(key(e["pid"]))
                threads.add((key(e["pid"]), key(e["tid"])))
            continue
        if e.get("ts") is None:
            continue
        pid, tid = key(e.get("pid", 0)), key(e.get("tid", 0))
        scope = e.get("s", "t")
        if ph in "XBEstf" or (ph in "iIR" and scope == "t"):
            processes.add(pid)
            threads.add((pid, tid))
        elif ph in "bnSTpFe":
            processes.add(pid)
            if "tid" in e:
                threads.add((pid, tid))
        elif ph == "C" or (ph in "iIR" and scope == "p"):
            processes.add(pid)

        if ph == "X":
            states += 1
            if e.get("flow_in") or e.get("flow_out"):
                bind = e.get("bind_id", e.get("id"))
                if bind is not None:
                    phase = "t" if e.get("flow_in") and e.get("flow_out") else ("f" if e.get("flow_in") else "s")
                    flows[(None, key(bind), None)].append((ns(e["ts"]), order, phase))
        elif ph == "B" or (ph in "bS" and has_id(e)):
            states += 1
        elif (ph in "iIR" and scope in ("g", "p", "t")) or (ph in "nTp" and has_id(e)):
            events += 1
        elif ph in "stf":
            flow_id, flow_scope = e.get("bind_id"), None
            if flow_id is None:
                flow_id = e.get("id")
            if flow_id is None and isinstance(e.get("id2"), dict):
                id2 = e["id2"]
                flow_id = id2.get("local", id2.get("global"))
                if "local" in id2:
                    flow_scope = pid
            if flow_id is not None:
                flows[(key(e.get("cat")), key(flow_id), flow_scope)].append((ns(e["ts"]), order, ph))
    links, unused = count_flows(flows)
    return {"file": path, "states": states, "events": events + unused, "links": links,
            "processes": len(processes), "threads": len(threads)}


if __name__ == "__main__":
    for path in sys.argv[1:]:
        print(json.dumps(summarize(path)))
