"""The TensorFlow and JAX profilers' XSpace (.xplane.pb) through the door:
the same states as the trace-event JSON jax converts from the same run
(the chrome reader's), by name (count, total time) and by thread; a run's
directory and its log directory; a figure whose legend a person can read.

The files of core/readers/xplane/testdata always run; a fresh jax run is
made and checked when jax is installed in this interpreter."""

import importlib.util
import subprocess
import sys

import pytest

import macroscope as ms
from conftest import REPO

DATA = REPO / "core" / "readers" / "xplane" / "testdata"

# A jitted 4-layer training step, 5 steps under StepTraceAnnotation, as a
# JAX user profiles one.
JAX_PROGRAM = """
import sys, jax, jax.numpy as jnp
ws = [jnp.eye(64) * 0.5 for _ in range(4)]
def loss(ws, x):
    for w in ws:
        x = jax.nn.relu(x @ w)
    return jnp.mean(x ** 2)
@jax.jit
def step(ws, x):
    l, g = jax.value_and_grad(loss)(ws, x)
    return [w - 0.01 * d for w, d in zip(ws, g)], l
x = jnp.ones((32, 64))
ws, l = step(ws, x); l.block_until_ready()
jax.profiler.start_trace(sys.argv[1], create_perfetto_trace=True)
for i in range(5):
    with jax.profiler.StepTraceAnnotation("train", step_num=i):
        ws, l = step(ws, x)
        l.block_until_ready()
jax.profiler.stop_trace()
"""


def _by_name(trace):
    st = trace.states
    by = st.groupby("value", observed=True)["duration"].agg(["count", "sum"])
    return {name: (int(r["count"]), float(r["sum"])) for name, r in by.iterrows()}


def _by_thread(trace):
    """States per thread, by its name (the readers name the process
    apart: the plane, the JSON's pid)."""
    name = dict(zip(trace.containers["path"], trace.containers["name"]))
    return trace.states["container"].astype(str).map(name).value_counts().to_dict()


def _agree(xspace, json):
    x = ms.read(xspace)
    with pytest.warns(UserWarning, match="without ph"):  # the JSON's closing {}
        c = ms.read(json)
    assert x.format == "xplane" and c.format == "chrome"
    assert len(x.states) == len(c.states) > 0
    bx, bc = _by_name(x), _by_name(c)
    assert bx.keys() == bc.keys()
    # Both readers keep nanoseconds: counts and total times are equal.
    for name in bx:
        assert bx[name][0] == bc[name][0] and abs(bx[name][1] - bc[name][1]) < 1e-12, name
    assert _by_thread(x) == _by_thread(c)
    assert sorted(x.states["depth"]) == sorted(c.states["depth"])
    return x


def test_testdata_agrees_with_its_json():
    trace = _agree(DATA / "jax_cpu.xplane.pb", DATA / "jax_cpu.perfetto_trace.json.gz")
    assert trace.complete and trace.warnings == []
    assert set(trace.containers["path"]) >= {"vm", "vm//host:CPU", "vm//host:CPU/python"}
    assert (trace.states["value"] == "train").sum() == 3


def test_gpu_xspace_figure_legend():
    path = DATA / "tracelens_mi300_tw003.xplane.pb.gz"
    # 230 allocator events the trace viewer hides are counted, not read.
    with pytest.warns(UserWarning, match="230 events the trace viewer hides"):
        trace = ms.read(path)
    assert len(trace.states) == 3420 and sum(trace.skipped.values()) == 230
    planes = trace.containers[trace.containers["type"] == "Plane"]["name"]
    assert sum(p.startswith("/device:GPU:") for p in planes) == 8
    # The overview's legend, the 19 largest groups and "other": the names
    # grouped (XLA's numbered kernels as one, Python's frames apart), the
    # others hold under 2% of the time.
    with pytest.warns(UserWarning, match="figures draw the 19 largest"):
        model = trace.micro(slices=30)
    by_state = model.to_pandas().groupby("state", observed=True)["duration"].sum().sort_values(ascending=False)
    assert by_state.iloc[19:].sum() < 0.02 * by_state.sum()
    assert "input_transpose_fusion.kd" in set(by_state.index[:19])
    assert model.aggregate(0.5).plot().to_bytes("png")[:4] == b"\x89PNG"
    grouped = trace.states.groupby("group", observed=True)["duration"].sum()
    assert abs(grouped.sum() - trace.states["duration"].sum()) < 1e-9


def test_run_and_log_directories(tmp_path):
    run = tmp_path / "logs" / "plugins" / "profile" / "2026_12_01_07_58_29"
    run.mkdir(parents=True)
    (run / "vm.xplane.pb").write_bytes((DATA / "jax_cpu.xplane.pb").read_bytes())
    (run / "perfetto_trace.json.gz").write_bytes((DATA / "jax_cpu.perfetto_trace.json.gz").read_bytes())
    for path in (run, tmp_path / "logs"):
        trace = ms.read(path)
        assert trace.format == "xplane" and len(trace.states) == 108


def test_cut_file_names_the_byte(tmp_path):
    data = (DATA / "jax_cpu.xplane.pb").read_bytes()
    cut = tmp_path / "cut.xplane.pb"
    cut.write_bytes(data[:len(data) // 2])
    with pytest.raises(ms.TraceFormatError, match="byte"):
        ms.read(cut)



def test_jax_runs_compared_by_their_steps(tmp_path):
    """JAX's steps (StepTraceAnnotation("train", step_num=N), all named
    "train") align two runs with no marker name: run A has steps 0-2, B
    1-4; they share 1 and 2 (3 boundaries), A dropping one, B two. The
    steps stay one name; stragglers takes them as iterations."""
    a, b = DATA / "jax_cpu.xplane.pb", DATA / "jax_cpu_steps1to4.xplane.pb"
    cmp = ms.compare([a, b], align="markers")
    runs = cmp.runs.set_index("run")
    assert runs["markers"].tolist() == [3, 3]
    assert runs["dropped_markers"].tolist() == [1, 2]
    trace = ms.read(a)
    steps = trace.states[trace.states["value"] == "train"]
    assert steps["start_ns"].tolist() == [116288, 667785, 791859]
    assert steps["group"].unique().tolist() == ["train"]
    run = tmp_path / "plugins" / "profile" / "2026_01_01_00_00_00"
    run.mkdir(parents=True)
    (run / "hostA.xplane.pb").write_bytes(a.read_bytes())
    (run / "hostB.xplane.pb").write_bytes(b.read_bytes())
    s = ms.read(run).stragglers()
    assert len(s.instances()) == 3 and s.iteration == "train"  # the steps taken by role, named as they are


@pytest.mark.skipif(importlib.util.find_spec("jax") is None,
                    reason="jax is not installed in this interpreter (pip install 'jax[cpu]')")
def test_fresh_jax_run(tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text(JAX_PROGRAM)
    subprocess.run([sys.executable, str(prog), str(tmp_path / "logs")], check=True, capture_output=True,
                   cwd=tmp_path, timeout=600)
    runs = sorted((tmp_path / "logs" / "plugins" / "profile").iterdir())
    assert len(runs) == 1
    xspaces = list(runs[0].glob("*.xplane.pb"))
    assert len(xspaces) == 1
    trace = _agree(xspaces[0], runs[0] / "perfetto_trace.json.gz")
    assert (trace.states["value"] == "train").sum() == 5
    assert len(ms.read(tmp_path / "logs").states) == len(trace.states)
    # Its steps 0-4 align with the bundled run's 0-2: 3 shared, 4
    # boundaries (their starts and the end of step 2), 2 of its dropped.
    runs = ms.compare([xspaces[0], DATA / "jax_cpu.xplane.pb"], align="markers").runs
    assert runs["markers"].tolist() == [4, 4] and runs["dropped_markers"].tolist() == [2, 0]
