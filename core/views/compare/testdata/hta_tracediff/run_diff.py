"""Run HTA TraceDiff on a control/test pair of Kineto trace directories.
usage: run_diff.py CONTROL_DIR TEST_DIR OUT_PREFIX [ITERATION|all] [short]"""
import sys, json
import pandas as pd
from hta.trace_diff import TraceDiff, LabeledTrace, DeviceType
ctl_dir, tst_dir, out = sys.argv[1], sys.argv[2], sys.argv[3]
it = sys.argv[4] if len(sys.argv) > 4 else None
short = len(sys.argv) > 5 and sys.argv[5] == "short"
c = LabeledTrace(label="control", trace_dir=ctl_dir)
t = LabeledTrace(label="test", trace_dir=tst_dir)
info = {"control_ranks": c.ranks(), "test_ranks": t.ranks(),
        "control_iterations": c.iterations(), "test_iterations": t.iterations()}
ci = ti = None
if it == "all":
    ci, ti = c.iterations(), t.iterations()
elif it is not None:
    ci = ti = int(it)
info.update(iteration_arg=it, use_short_name=short)
print(json.dumps(info))
json.dump(info, open(f"{out}_info.json", "w"), indent=1)
for dev in ("ALL", "CPU", "GPU"):
    df = TraceDiff.compare_traces(c, t, control_iteration=ci, test_iteration=ti,
                                  device_type=DeviceType[dev], use_short_name=short)
    df.to_csv(f"{out}_compare_{dev}.csv")
    print(dev, df.shape, df["counts_change_categories"].value_counts().to_dict(),
          "sum counts", int(df["control_counts"].sum()), int(df["test_counts"].sum()),
          "sum dur", float(df["control_total_duration"].sum()), float(df["test_total_duration"].sum()))
    od = TraceDiff.ops_diff(c, t, control_iteration=ci, test_iteration=ti, device_type=DeviceType[dev])
    json.dump(od, open(f"{out}_opsdiff_{dev}.json", "w"), indent=1)
    print(dev, {k: len(v) for k, v in od.items()})
