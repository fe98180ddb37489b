"""Independent oracle for the Paraver reader's tests.

For each .prv (or .prv.gz) given, prints as JSON what the reader must
produce: record counts, the number of events per event type (named by the
.pcf), the trace's end in nanoseconds, and the first, last and longest
state and the first and last communication with exact times.
"""
import collections
import gzip
import json
import os
import re
import sys

UNITS = {"": 1000, "_ns": 1, "_us": 1000, "_ms": 10**6, "_s": 10**9}


def pcf_names(path):
    states, types = {}, {}
    if not os.path.exists(path):
        return states, types
    section, block = None, []
    for line in open(path, encoding="utf-8"):
        text = line.strip()
        if re.fullmatch(r"[A-Z_]+", text):
            section = text
            if section == "EVENT_TYPE":
                block = []
            continue
        if not text:
            continue
        if section == "STATES":
            num, _, name = text.partition(" ") if " " in text else text.partition("\t")
            states[int(num)] = name.strip()
        elif section == "EVENT_TYPE":
            parts = text.split(None, 2)
            types[int(parts[1])] = parts[2].strip() if len(parts) > 2 else ""
    return states, types


def summarize(path):
    opener = gzip.open if path.endswith(".gz") else open
    base = path[: -len(".gz")] if path.endswith(".gz") else path
    states, types = pcf_names(base[: -len(".prv")] + ".pcf")
    with opener(path, "rt", encoding="utf-8") as f:
        lines = f.read().splitlines()
    header = lines[0]
    after = header.split("):", 1)[1]
    duration = after.split(":", 1)[0]
    m = re.fullmatch(r"(\d+)(_[a-z]+)?", duration)
    unit = UNITS[m.group(2) or ""]
    end = int(m.group(1)) * unit
    kinds = collections.Counter()
    per_type = collections.Counter()
    state_recs, comms = [], []
    for line in lines[1:]:
        if not line or line.startswith("#"):
            continue
        f = line.split(":")
        kinds[f[0]] += 1
        if f[0] == "1":
            b, e = int(f[5]) * unit, int(f[6]) * unit
            end = max(end, e)
            state_recs.append({"thread": ".".join(f[2:5]), "cpu": int(f[1]), "start": b, "end": e,
                               "state": states.get(int(f[7])) or f[7]})
        elif f[0] == "2":
            end = max(end, int(f[5]) * unit)
            for t in f[6::2]:
                per_type[types.get(int(t)) or t] += 1
        elif f[0] == "3":
            times = [int(f[i]) * unit for i in (5, 6, 11, 12)]
            end = max([end] + times)
            comms.append({"from": ".".join(f[2:5]), "to": ".".join(f[8:11]), "start": times[0],
                          "end": times[3], "size": int(f[13]), "tag": f[14]})
        elif f[0] == "4":
            end = max(end, int(f[5]) * unit)
    longest = max(state_recs, key=lambda s: s["end"] - s["start"])
    return {
        "records": dict(kinds),
        "eventPairs": sum(per_type.values()),
        "eventsPerType": dict(per_type),
        "end": end,
        "states": [state_recs[0], state_recs[-1], longest],
        "comms": [comms[0], comms[-1]] if comms else [],
    }


if __name__ == "__main__":
    json.dump({p: summarize(p) for p in sys.argv[1:]}, sys.stdout)
