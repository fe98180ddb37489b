"""Independent recomputation of HTA TraceDiff.compare_traces from the raw Kineto JSON,
to pin down its semantics (no HTA import). usage: recompute.py CONTROL.json.gz TEST.json.gz ITER|all|first DEVICE"""
import gzip, json, sys, re, collections
def load(path):
    d = json.load(gzip.open(path))
    ev = [e for e in d["traceEvents"] if e.get("ph") == "X" and "dur" in e and e.get("cat") not in (None, "Trace")]
    for i, e in enumerate(ev):
        e["_stream"] = int(e.get("args", {}).get("stream", -1)) if isinstance(e.get("args", {}).get("stream", -1), (int, float)) else -1
    steps = [(e["ts"], e["ts"] + e["dur"], int(re.match(r"ProfilerStep\s*#\s*(\d+)", e["name"]).group(1)))
             for e in ev if e["name"].startswith("ProfilerStep")]
    def step_of(ts):
        it = -1
        for a, b, n in steps:
            if a <= ts < b:
                it = n
        return it
    corr = {}
    for e in ev:
        if e["_stream"] < 0:
            e["_iter"] = step_of(e["ts"])
            c = e.get("args", {}).get("correlation")
            if c is not None:
                corr.setdefault(c, e["_iter"])
    for e in ev:
        if e["_stream"] == 0 and e.get("cat") == "cpu_op":
            e["_iter"] = step_of(e["ts"])
        elif e["_stream"] > 0:
            e["_iter"] = corr.get(e.get("args", {}).get("correlation"), -1)
    return ev, sorted({n for _, _, n in steps})
def summary(ev, its, device):
    out = collections.defaultdict(lambda: [0, 0])
    for e in ev:
        if e["_iter"] not in its: continue
        if device == "CPU" and e["_stream"] != -1: continue
        if device == "GPU" and e["_stream"] == -1: continue
        o = out[e["name"]]; o[0] += 1; o[1] += int(e["dur"])
    return out
c, ci = load(sys.argv[1]); t, ti = load(sys.argv[2])
sel, dev = sys.argv[3], sys.argv[4]
cits = ci if sel == "all" else [ci[0]] if sel == "first" else [int(sel)]
tits = ti if sel == "all" else [ti[0]] if sel == "first" else [int(sel)]
a, b = summary(c, cits, dev), summary(t, tits, dev)
names = set(a) | set(b)
print("names", len(names), "control counts", sum(v[0] for v in a.values()), "test counts", sum(v[0] for v in b.values()),
      "control dur", sum(v[1] for v in a.values()), "test dur", sum(v[1] for v in b.values()))
import csv
hta = {r["name"]: r for r in csv.DictReader(open(sys.argv[5]))} if len(sys.argv) > 5 else {}
if hta:
    bad = 0
    for n in names | set(hta):
        mine = (a.get(n, [0, 0]), b.get(n, [0, 0]))
        h = hta.get(n)
        theirs = ([int(float(h["control_counts"])), int(float(h["control_total_duration"]))], [int(float(h["test_counts"])), int(float(h["test_total_duration"]))]) if h else None
        if theirs is None or [list(m) for m in mine] != list(theirs):
            bad += 1
            if bad < 5: print("DIFF", n[:80], mine, theirs)
    print("rows differing from HTA:", bad, "of", len(names | set(hta)))
