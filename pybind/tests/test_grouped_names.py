"""Names a person would group, through the door: the group column, the
models' states and moments by state agree (docs/ingestion.md)."""
from __future__ import annotations

import json

import pytest

import macroscope as ms


def _trace(tmp_path):
    # 25 calls of one module class, numbered per instance as the PyTorch
    # profiler names them, and 25 slices named by a number alone (as
    # Perfetto's frame timeline names frames by token), each 1 µs, on two
    # threads; a third thread works throughout.
    events = []
    for i in range(25):
        events.append({"ph": "X", "name": f"nn.Module: Linear_{i}", "pid": 1, "tid": 1, "ts": 2 * i, "dur": 1})
        events.append({"ph": "X", "name": str(154408112 + 7 * i), "pid": 1, "tid": 2, "ts": 2 * i, "dur": 1})
    events.append({"ph": "X", "name": "work", "pid": 1, "tid": 3, "ts": 0, "dur": 50})
    path = tmp_path / "instances.json"
    path.write_text(json.dumps({"traceEvents": events}))
    return ms.read(str(path))


def test_group_column_and_model_states(tmp_path):
    trace = _trace(tmp_path)
    st = trace.states
    slice_type = st.loc[st["value"] == "154408112", "type"].iloc[0]
    assert st["value"].nunique() == 51
    assert set(st["group"]) == {"nn.Module: Linear", slice_type, "work"}
    # No time is lost by grouping: each group holds its names' time.
    by_group = st.groupby("group", observed=True)["duration"].sum()
    assert abs(by_group["nn.Module: Linear"] - 25e-6) < 1e-12
    assert abs(by_group[slice_type] - 25e-6) < 1e-12
    assert sorted(trace.micro(slices=5).states) == sorted(["nn.Module: Linear", slice_type, "work"])
    with pytest.warns(UserWarning, match="51 states"):
        assert len(trace.micro(slices=5, key="name").states) == 51
    moments = trace.moments(by="state").to_pandas()
    assert {"nn.Module: Linear", slice_type} <= set(moments["state"])
