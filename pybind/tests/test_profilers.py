"""The GPU and HPC profilers' outputs through Python: each reads with
ms.read, its counts equal an independent look at the file (SQL on the
SQLite exports, the rpd2tracing export of the same run, the file's own
records), every view works on it, and damaged files are clean errors."""

import shutil
import sqlite3
import warnings

import pytest

import macroscope as ms
from conftest import REPO, shared


def quiet_read(path, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ms.read(path, **options)


@pytest.mark.parametrize("name", ["h100_2gpu_1s.sqlite", "mfu_2gpu_before.sqlite"])
def test_nsys_counts_equal_sql(name):
    path = shared("nsys", name)
    trace = quiet_read(path)
    assert trace.format == "nsys"
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    one = lambda sql: db.execute(sql).fetchone()[0]
    types = trace.states.type.value_counts()
    kernels = one("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL")
    nccl = one("""SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName
                  WHERE s.value LIKE 'nccl%'""")
    assert types.get("CUDA kernel", 0) + types.get("NCCL kernel", 0) == kernels
    assert types.get("NCCL kernel", 0) == nccl
    assert types.get("CUDA runtime API", 0) == one("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME")
    # CUPTI's synchronisation records, named as Kineto names them.
    syncs = trace.states[trace.states.type == "CUDA synchronization"].value.value_counts()
    for kind, name in ((2, "Stream Wait Event"), (3, "Stream Sync")):
        assert syncs.get(name, 0) == one(f"SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION WHERE syncType = {kind}")
    # Kernels start, in ns, exactly where the export says.
    first = one("SELECT min(start) FROM CUPTI_ACTIVITY_KIND_KERNEL")
    gpu = trace.states[trace.states.type.isin(["CUDA kernel", "NCCL kernel"])]
    assert gpu.start_ns.min() == first
    # Every view works on it.
    model = trace.micro(slices=20, key="type")
    assert {"CUDA kernel", "CUDA runtime API"} <= set(model.states)
    assert len(model.aggregate(0.5)) > 0
    assert (trace.moments().to_pandas().m0 >= 0).all()


def test_rpd_equals_its_chrome_export():
    rpd = quiet_read(shared("rocprof", "rpd", "matmul_result.rpd"))
    exported = quiet_read(shared("rocprof", "rpd", "matmul_result.json"))
    assert rpd.format == "rpd" and exported.format == "chrome"
    assert (len(rpd.states), len(rpd.links)) == (len(exported.states), len(exported.links)) == (210, 85)
    # rpd2tracing writes microseconds: the same intervals, truncated.
    ours = sorted((s // 1000, (e - s) // 1000) for s, e in zip(rpd.states.start_ns, rpd.states.end_ns))
    theirs = sorted((s // 1000, (e - s) // 1000) for s, e in zip(exported.states.start_ns, exported.states.end_ns))
    assert sum(abs(a[0] - b[0]) <= 1 for a, b in zip(ours, theirs)) == 210


def test_hpctoolkit_lines_and_depths():
    trace = quiet_read(shared("pipit", "tests", "data", "ping-pong-hpctoolkit"))
    assert trace.format == "hpctoolkit"
    # pipit's tests: 117 and 88 procedure frames on ranks 0 and 1 (loops not kept).
    per_rank = trace.states.groupby(trace.states.container.str.extract(r"Rank (\d+)")[0]).size()
    assert sorted(per_rank.tolist()) == [88, 117]
    for depth in (0, 2):
        assert len(trace.micro(slices=10, depth=depth).to_pandas()) > 0
    assert len(trace.call_tree()) > 1


def test_perfetto_and_go_traces():
    tracks = quiet_read(shared("perfetto", "perfetto", "nested_tracks.perfetto-trace"))
    assert tracks.format == "perfetto" and len(tracks.states) == 1364 and len(tracks.links) == 1360
    fib = ms.read(REPO / "core" / "readers" / "gotrace" / "testdata" / "fib4.trace")
    assert fib.format == "gotrace"
    spawn = fib.spawn_tree().to_pandas()
    assert (spawn.procedure == "main.fib").sum() == 9


@pytest.mark.parametrize("rel", [("nsys", "h100_2gpu_1s.sqlite"), ("rocprof", "rpd", "matmul_result.rpd")])
def test_damaged_files_are_format_errors(tmp_path, rel):
    src = shared(*rel)
    data = src.read_bytes()
    cut = tmp_path / src.name
    cut.write_bytes(data[: len(data) // 3])
    with pytest.raises(ms.TraceFormatError) as info:
        ms.read(cut)
    assert info.value.file == str(cut)


def test_cut_perfetto_trace_reads_its_whole_packets(tmp_path):
    """A Perfetto trace cut short (a tracing service stopped abruptly) reads
    its whole packets, as trace processor does, marked incomplete where the
    input ends; strict=True refuses it, naming the file."""
    src = shared("perfetto", "perfetto", "nested_tracks.perfetto-trace")
    data = src.read_bytes()
    cut = tmp_path / src.name
    cut.write_bytes(data[: len(data) // 3])
    whole = quiet_read(src)
    with pytest.warns(UserWarning, match="the input ends inside the packet at byte"):
        trace = ms.read(cut)
    assert not trace.complete and 0 < len(trace.states) < len(whole.states)
    with pytest.raises(ms.TraceFormatError) as info:
        ms.read(cut, strict=True)
    assert info.value.file == str(cut) and "incomplete" in str(info.value)


def test_go_trace_cut_is_a_format_error(tmp_path):
    data = (REPO / "core" / "readers" / "gotrace" / "testdata" / "fib4.trace").read_bytes()
    cut = tmp_path / "fib.gotrace"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(ms.TraceFormatError) as info:
        ms.read(cut)
    assert info.value.file == str(cut)


ROCPD = REPO / "core" / "readers" / "rocprof" / "testdata"


@pytest.mark.parametrize("name", ["results.db", "timestamps_results.db"])
def test_rocpd_database_end_to_end(tmp_path, name):
    """rocprofv3's rocpd database (ROCm 7): ms.read finds the format by its
    tables, under any name; the states, launches and per-kernel times equal
    SQL on the file's data views; the micro model's kernel time is theirs."""
    src = ROCPD / name
    path = tmp_path / "4101_run.sqlite"
    shutil.copy(src, path)
    trace = quiet_read(path)
    assert trace.format == "rocpd"
    db = sqlite3.connect(f"file:{src}?mode=ro", uri=True)
    one = lambda sql: db.execute(sql).fetchone()
    states = trace.states
    types = states.type.value_counts()
    assert (types["Kernel"], types["Memory copy"]) == one("SELECT count(*), (SELECT count(*) FROM memory_copies) FROM kernels")
    assert types["HIP API"] == one("SELECT count(*) FROM regions WHERE category = 'HIP_RUNTIME_API_EXT'")[0]
    assert types["Marker"] == one("SELECT count(*) FROM regions WHERE category = 'MARKER_CORE_RANGE_API'")[0]
    assert len(trace.events) == one("SELECT count(*) FROM regions WHERE category = 'MARKER_CORE_API'")[0]
    assert len(trace.links) == one("""SELECT (SELECT count(*) FROM regions R JOIN kernels K ON K.corr_id = R.corr_id AND K.guid = R.guid)
                                           + (SELECT count(*) FROM regions R JOIN memory_copies M ON M.corr_id = R.corr_id AND M.guid = R.guid)""")[0]
    # Per kernel name: count and total time, in ns.
    kernels = states[states.type == "Kernel"]
    ours = {n: (len(g), int((g.end_ns - g.start_ns).sum())) for n, g in kernels.groupby("value", observed=True)}
    theirs = {n: (c, d) for n, c, d in db.execute("SELECT name, count(*), sum(duration) FROM kernels GROUP BY name")}
    assert ours == theirs and len(ours) == 3
    # The trace's notes say what is not modelled.
    assert any("rocpd_sample" in w for w in trace.warnings)
    # Micro model: the time in "Kernel" over all slices and queues is the kernels' time.
    model = trace.micro(slices=20, key="type")
    assert "Kernel" in model.states
    table = model.to_pandas()
    total_ns = one("SELECT sum(duration) FROM kernels")[0]
    assert table[table.state == "Kernel"].duration.sum() == pytest.approx(total_ns / 1e9, rel=1e-9)
    # The overview figure of the model's aggregation, and the other views.
    fig = model.aggregate(0.5).plot(width=400, height=300)
    assert type(fig) is ms.Figure and bytes(fig)[:8] == b"\x89PNG\r\n\x1a\n"
    assert (trace.moments().to_pandas().m0 >= 0).all()
