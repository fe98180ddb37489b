"""Independent oracle for the Chrome trace reader's tests.

Reads each trace given on the command line with Python's json module
(numbers as Decimal, so times are exact) and prints, as one JSON object per
file, what the reader must produce: counts per kind, the time range, a few
slices and flow links with their exact times in nanoseconds. The rules for
flows (match by cat and id in time order, at one instant s before t
before f; f links from the latest point and
leaves the flow open; points no link uses are counted apart) are those
documented by the reader, implemented again here without its code.
"""
import collections
import decimal
import gzip
import json
import sys


def load(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    text = raw.decode("utf-8")
    try:
        doc = json.loads(text, parse_float=decimal.Decimal)
    except json.JSONDecodeError:
        # The array form may lack its closing bracket (a killed writer).
        doc = json.loads(text.rstrip().rstrip(",") + "]", parse_float=decimal.Decimal)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def ns(us):
    d = decimal.Decimal(us) * 1000
    return int(d.to_integral_value(rounding=decimal.ROUND_HALF_UP))


def key(v):
    return str(v)


def summarize(path):
    events = load(path)
    phases = collections.Counter(e.get("ph", "<none>") for e in events)
    procs, threads = set(), set()
    times = []
    slices = []
    for i, e in enumerate(events):
        ph = e.get("ph")
        if ph is None:  # {} and entries without ph are skipped
            continue
        if ph == "M":
            if e["name"].startswith("process_"):
                procs.add(key(e["pid"]))
            elif e["name"].startswith("thread_"):
                procs.add(key(e["pid"]))
                threads.add((key(e["pid"]), key(e["tid"])))
            continue
        t = ns(e["ts"])
        times.append(t)
        if ph == "X":
            end = t + ns(e["dur"])
            times.append(end)
            tid = key(e["tid"])
            if e.get("cat") == "gpu_user_annotation":
                # Kineto's copies of the host's annotations on a GPU stream
                # are on a thread of their own beside the stream.
                tid += " (annotations)"
                threads.add((key(e["pid"]), tid))
            slices.append((i, key(e["pid"]), tid, e.get("name", ""), t, end))
        scope = e.get("s", "t") if ph in ("i", "I", "R") else "t"
        if ph == "C" or (ph in ("i", "I", "R") and scope == "p"):
            procs.add(key(e["pid"]))
        elif not (ph in ("i", "I", "R") and scope == "g"):
            procs.add(key(e["pid"]))
            threads.add((key(e["pid"]), key(e["tid"])))

    flows = collections.defaultdict(list)
    for i, e in enumerate(events):
        if e.get("ph") in ("s", "t", "f"):
            flows[(e.get("cat"), key(e["id"]))].append((ns(e["ts"]), i, e))
    links, unmatched = [], 0
    for points in flows.values():
        # At one instant: starts, then steps, then ends, whatever the file's order.
        points.sort(key=lambda p: (p[0], "stf".index(p[2]["ph"]), p[1]))
        source, used = None, False
        for t, i, e in points:
            if e["ph"] == "s":
                if source is not None and not used:
                    unmatched += 1
                source, used = (t, i, e), False
            elif source is None:
                unmatched += 1
            else:
                links.append((source, (t, i, e)))
                used = True
                if e["ph"] == "t":
                    source = (t, i, e)
        if source is not None and not used:
            unmatched += 1

    # Kineto's correlation ids: a launch link from a runtime or driver call
    # to each GPU operation of its id where no launch flow of that id is
    # matched; an event-wait link from the stream a cudaEventRecord call
    # recorded on, at the call, to the synchronisation waiting for it.
    def arg(e, name):
        v = e.get("args", {}).get(name) if isinstance(e.get("args"), dict) else None
        return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None

    flowed = {key(a[2]["id"]) for a, _ in links if a[2].get("cat") in ("ac2g", "async_cpu_to_gpu")}
    calls, launches, waits = {}, [], []
    complete = [(i, e) for i, e in enumerate(events) if e.get("ph") == "X"]
    for i, e in complete:
        if e.get("cat") in ("cuda_runtime", "cuda_driver") and arg(e, "correlation") is not None:
            calls.setdefault(arg(e, "correlation"), (ns(e["ts"]), i, e))
    for i, e in complete:
        c = arg(e, "correlation")
        if e.get("cat") not in ("kernel", "gpu_memcpy", "gpu_memset", "cuda_sync") or c is None:
            continue
        here = (ns(e["ts"]), i, e)
        if c in calls and key(c) not in flowed:
            launches.append((calls[c], here))
        record, stream = arg(e, "wait_on_cuda_event_record_corr_id"), arg(e, "wait_on_stream")
        if record in calls and stream is not None and (key(e["pid"]), key(stream)) in threads:
            t, j, _ = calls[record]
            waits.append(((t, j, {"pid": e["pid"], "tid": stream}), here))

    def point(p):
        t, _, e = p
        return {"pid": key(e["pid"]), "tid": key(e["tid"]), "ts": t, "bp": e.get("bp", "")}

    picks = []
    if slices:
        longest = max(slices, key=lambda s: (s[5] - s[4], -s[0]))
        for s in (slices[0], slices[-1], longest):
            picks.append({"pid": s[1], "tid": s[2], "name": s[3], "start": s[4], "end": s[5]})
    links.sort(key=lambda l: (l[0][1], l[1][1]))
    return {
        "phases": dict(phases),
        "processes": len(procs),
        "threads": len(threads),
        "start": min(times) if times else 0,
        "end": max(times) if times else 0,
        "instants": sum(phases[p] for p in ("i", "I", "R")),
        "counterSamples": sum(len(e.get("args", {})) for e in events if e.get("ph") == "C"),
        "links": len(links),
        "unmatchedFlowPoints": unmatched,
        "slices": picks,
        "someLinks": [{"from": point(a), "to": point(b)} for a, b in links[:3]],
        "correlationLinks": len(launches),
        "eventWaits": len(waits),
        "someGPULinks": [{"from": point(a), "to": point(b)} for a, b in launches[:3] + waits[:3]],
    }


if __name__ == "__main__":
    out = {path: summarize(path) for path in sys.argv[1:]}
    json.dump(out, sys.stdout)
