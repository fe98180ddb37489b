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


def test_xla_names_group_by_kind(tmp_path):
    # A JAX step on GPU as its profilers name it: XLA's kernels, the
    # fusion's name with '.' made '_' (loop_add_fusion_3; ROCm's .kd
    # kept), and XLA's annotations with TraceMe arguments in the name,
    # one per program and instruction; each 1 µs.
    events = []
    names = (["loop_add_fusion"] + [f"loop_add_fusion_{i}" for i in range(1, 8)]
             + ["input_transpose_fusion.kd", "input_transpose_fusion_1.kd"])
    for i, n in enumerate(names):
        events.append({"ph": "X", "name": n, "pid": 1, "tid": 1, "ts": 2 * i, "dur": 1})
    notes = [f"Thunk:#hlo_op=loop_add_fusion.{i}#" for i in range(1, 6)] + [
        f"XlaModule:#hlo_module=jit_train_step,program_id={i}#" for i in range(5)]
    for i, n in enumerate(notes):
        events.append({"ph": "X", "name": n, "pid": 1, "tid": 2, "ts": 2 * i, "dur": 1})
    path = tmp_path / "xla.json"
    path.write_text(json.dumps({"traceEvents": events}))
    st = ms.read(str(path)).states
    assert st["value"].nunique() == 20
    by_group = st.groupby("group", observed=True)["duration"].sum()
    assert set(by_group.index) == {"loop_add_fusion", "input_transpose_fusion.kd",
                                   "Thunk: loop_add_fusion", "XlaModule: jit_train_step"}
    # No time is lost by grouping.
    assert abs(by_group["loop_add_fusion"] - 8e-6) < 1e-12
    assert abs(by_group["XlaModule: jit_train_step"] - 5e-6) < 1e-12
    assert abs(by_group.sum() - st["duration"].sum()) < 1e-12


def _varint(n):
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _int(num, v):
    return _varint(num << 3) + _varint(v)


def _msg(num, *parts):
    body = b"".join(p.encode() if isinstance(p, str) else p for p in parts)
    return _varint(num << 3 | 2) + _varint(len(body)) + body


def _sched_trace(path, threads):
    # A Perfetto trace of ftrace bundles (TracePacket.ftrace_events, 1): on
    # CPU i, sched_switch (FtraceEvent 4: next_comm 5, next_pid 6) to
    # thread i at start, then to the idle task (pid 0) at end.
    packets = b""
    for cpu, (comm, tid, start, end) in enumerate(threads):
        events = b"".join(
            _msg(2, _int(1, at), _int(2, 1), _msg(4, _msg(1, "prev"), _int(2, 1), _msg(5, c), _int(6, p)))
            for at, c, p in ((start, comm, tid), (end, f"swapper/{cpu}", 0)))
        packets += _msg(1, _msg(1, _int(1, cpu), events))
    path.write_bytes(packets)


# The threads on a phone's CPUs (an Android 9 trace had 279 threads and
# 245 thread names), each running (1 + i) µs.
_CPU_THREADS = [("kworker/u16:4", 6620), ("kworker/1:0", 14259), ("kworker/0:1H", 3226),
                ("Binder:3255_C", 3897), ("Binder:3255_17", 6164), ("HwBinder:2827_1", 3334),
                ("RenderThread", 3758), ("RenderThread", 4410), ("tracebox", 14764)]


def test_cpu_threads_group_by_thread_name(tmp_path):
    # The Perfetto reader values a CPU's slices by the thread that runs,
    # "<thread name> [<tid>]": kernel workers, binder pools and a
    # process's threads group by name; the raw name keeps the id; no time
    # is lost.
    path = tmp_path / "cpu.perfetto-trace"
    _sched_trace(path, [(c, tid, 2000 * i, 2000 * i + 1000 * (1 + i)) for i, (c, tid) in enumerate(_CPU_THREADS)])
    trace = ms.read(str(path))
    st = trace.states
    assert sorted(st["value"]) == sorted(f"{c} [{tid}]" for c, tid in _CPU_THREADS)
    by_group = st.groupby("group", observed=True)["duration"].sum()
    want = {"kworker": (1 + 2 + 3) * 1e-6, "Binder": (4 + 5) * 1e-6, "HwBinder": 6e-6,
            "RenderThread": (7 + 8) * 1e-6, "tracebox": 9e-6}
    assert set(by_group.index) == set(want)
    for g, d in want.items():
        assert abs(by_group[g] - d) < 1e-12
    assert abs(by_group.sum() - 45e-6) < 1e-12
    assert sorted(trace.micro(slices=3).states) == sorted(want)


def test_bracketed_numbers_of_other_producers_stay_apart(tmp_path):
    # "<name> [<n>]" in another producer's slices names distinct things
    # (a network's blocks, layers): only the Perfetto reader's CPU slices
    # are threads' names grouped by name.
    names = ["Block [0]", "Block [1]", "Layer [3]", "Layer [4]"] + [f"{c} [{tid}]" for c, tid in _CPU_THREADS]
    events = [{"ph": "X", "name": n, "pid": 1, "tid": 1, "ts": 2 * i, "dur": 1 + i}
              for i, n in enumerate(names)]
    path = tmp_path / "blocks.json"
    path.write_text(json.dumps({"traceEvents": events}))
    trace = ms.read(str(path))
    st = trace.states
    assert sorted(st["group"]) == sorted(names)
    assert (st["group"] == st["value"]).all()
    assert sorted(trace.micro(slices=3).states) == sorted(names)


def test_paddle_durations_group(tmp_path):
    # PaddlePaddle's profiler (export_chrome_tracing) names every event
    # after its own duration, milliseconds above one, microseconds below,
    # and numbers its steps: 3 steps of 8 operators, each operator name
    # distinct by its duration alone.
    events, t = [], 1796137917752220
    for step in range(3):
        events.append({"ph": "X", "cat": "ProfileStep", "name": f"ProfileStep#{step + 3}[{1.5 + step:.3f} ms]",
                       "pid": 7, "tid": "7(Python)", "ts": t, "dur": 1500.0 + 1000 * step})
        for k in range(8):
            name = ("matmul dygraph", "relu infer_meta")[k % 2]
            dur = 10.25 + 3 * k + step
            events.append({"ph": "X", "cat": "Operator", "name": f"{name}[{dur:.3f} us]",
                           "pid": 7, "tid": "7(C++)", "ts": t + 20 * k, "dur": dur})
        t += 4000
    path = tmp_path / "host_pid_7.paddle_trace.json"
    path.write_text(json.dumps({"schemaVersion": "1.0.2", "displayTimeUnit": "ms", "traceEvents": events}))
    trace = ms.read(str(path))
    st = trace.states
    assert st["value"].nunique() == 27
    assert set(st["group"]) == {"ProfileStep", "matmul dygraph", "relu infer_meta"}
    # No time is lost by grouping.
    assert abs(st["duration"].sum() - st.groupby("group", observed=True)["duration"].sum().sum()) < 1e-12
    # The steps are spans around the work, left out of the default model
    # as Kineto's ProfilerStep are; kept on asking.
    assert sorted(trace.micro(slices=5).states) == ["matmul dygraph", "relu infer_meta"]
    assert sorted(trace.micro(slices=5, profiler_spans=True).states) == ["ProfileStep", "matmul dygraph", "relu infer_meta"]
