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


def is_cpu_profile(e):
    return e.get("ph") == "I" and e.get("name") == "CpuProfile" and "cpuProfile" in ((e.get("args") or {}).get("data") or {})


def profile_states(events):
    """V8 CPU profiles (Profile and ProfileChunk events, ph P): for each
    profile with samples, its thread and the number of frames of its
    stacks: a frame at depth k opens at a sample whose path up to k differs
    from the previous sample's, and lasts until the first sample whose path
    up to k differs from it (or the last sample); those lasting no time are
    not states. A lone "(program)" sample between two samples sharing
    their bottom frame takes the stack before it (DevTools' correction)."""
    profiles = {}
    for e in events:
        data = (e.get("args") or {}).get("data") or {}
        if is_cpu_profile(e):  # Chrome up to 66: a whole profile in one instant
            pk = (key(e.get("pid", 0)), "CpuProfile " + key(e.get("tid", 0)))
            cpu = data["cpuProfile"]
            data = {"startTime": cpu.get("startTime", e["ts"]), "timeDeltas": cpu.get("timeDeltas"), "cpuProfile": cpu}
            e = dict(e, name="Profile")
        elif e.get("ph") != "P" or e.get("name") not in ("Profile", "ProfileChunk"):
            continue
        else:
            pk = (key(e.get("pid", 0)), key(e.get("id")))
        p = profiles.setdefault(pk, {"tid": None, "nodes": {}, "times": [], "leaves": [], "clock": None})
        if e["name"] == "Profile":
            p["tid"] = key(e["tid"]) if "tid" in e else p["tid"]
            p["clock"] = ns(data.get("startTime", e["ts"]))
        elif p["clock"] is None:
            p["clock"], p["tid"] = ns(e["ts"]), key(e["tid"]) if "tid" in e else None
        cpu = data.get("cpuProfile") or {}
        parents = {c: n["id"] for n in cpu.get("nodes") or [] for c in n.get("children") or []}
        for n in cpu.get("nodes") or []:
            parent = n.get("parent", parents.get(n["id"]))
            p["nodes"][n["id"]] = (parent, n["callFrame"].get("functionName") or "(anonymous)")
        for leaf, delta in zip(cpu.get("samples") or [], data.get("timeDeltas") or []):
            p["clock"] += ns(delta)
            p["times"].append(p["clock"])
            p["leaves"].append(leaf)
    for (pid, _), p in profiles.items():
        if not p["times"]:
            continue
        nodes = p["nodes"]
        order = sorted(range(len(p["times"])), key=lambda i: p["times"][i])
        times = [p["times"][i] for i in order]
        leaves = [p["leaves"][i] for i in order]

        def name(n):
            return nodes.get(n, (None, ""))[1]

        def path(n):
            out = []
            while n in nodes and nodes[n][0] is not None:
                out.append(n)
                n = nodes[n][0]
            out.reverse()
            return [] if [name(x) for x in out] == ["(idle)"] else out

        def system(n):
            return name(n) in ("(program)", "(garbage collector)", "(idle)")

        for i in range(1, len(leaves) - 1):
            prev, nxt = leaves[i - 1], leaves[i + 1]
            if name(leaves[i]) == "(program)" and not system(prev) and not system(nxt) and path(prev)[:1] == path(nxt)[:1]:
                leaves[i] = prev
        paths = [path(n) for n in leaves]
        yield (pid, p["tid"] if p["tid"] is not None else pid), frame_states(paths, times)


def frame_states(paths, times):
    """The states of a thread's samples, given each sample's stack (root
    first) and time: a frame is one state from the sample that opens it
    to the first sample that leaves its call path (the last sample's time
    when none does), counted when that lasts longer than zero."""
    count = 0
    for i, pa in enumerate(paths):
        for k in range(len(pa)):
            if i > 0 and paths[i - 1][:k + 1] == pa[:k + 1]:
                continue
            j = i + 1
            while j < len(paths) and paths[j][:k + 1] == pa[:k + 1]:
                j += 1
            if times[min(j, len(times) - 1)] > times[i]:
                count += 1
    return count


def sampled_stacks(path):
    """The object form's stackFrames and samples (Hermes): per thread, the
    samples in time order, each one's stack the chain of its sf's parents;
    frames counted as in profile_states."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    doc = json.loads(data)
    if not isinstance(doc, dict) or not doc.get("samples"):
        return
    frames = doc.get("stackFrames") or {}
    by_tid = {}
    for e in load(path):
        if "tid" in e and "pid" in e:
            by_tid.setdefault(key(e["tid"]), key(e["pid"]))
    threads = collections.defaultdict(list)
    for order, smp in enumerate(doc["samples"]):
        if smp.get("ts") is None or key(smp.get("sf")) not in frames:
            continue
        tid = key(smp.get("tid", 0))
        pid = key(smp["pid"]) if "pid" in smp else by_tid.get(tid, "0")
        threads[(pid, tid)].append((ns(smp["ts"]), order, key(smp["sf"])))
    for thread, smps in threads.items():
        smps.sort()

        def stack(sf):
            out = []
            while sf is not None and sf in frames and len(out) <= len(frames):
                out.append(sf)
                parent = frames[sf].get("parent")
                sf = key(parent) if parent is not None else None
            return out[::-1]

        yield thread, frame_states([stack(sf) for _, _, sf in smps], [t for t, _, _ in smps])


def summarize(path):
    states = events = 0
    flows = collections.defaultdict(list)
    processes, threads = set(), set()
    for order, e in enumerate(load(path)):
        ph = e.get("ph")
        if not ph or len(ph) != 1:
            continue
        if is_cpu_profile(e):
            continue  # read as a profile (profile_states)
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
    for (pid, tid), n in list(profile_states(load(path))) + list(sampled_stacks(path)):
        processes.add(pid)
        threads.update({(pid, tid), (pid, tid + " (CPU profile)")})
        states += n
    return {"file": path, "states": states, "events": events + unused, "links": links,
            "processes": len(processes), "threads": len(threads)}


if __name__ == "__main__":
    for path in sys.argv[1:]:
        print(json.dumps(summarize(path)))
