"""Threads: reads, models and aggregations from several Python threads give
what serial runs give, and Go work runs with the GIL released (gopy's
generated wrappers call PyEval_SaveThread around every Go call)."""

import threading
import time

import pandas as pd

import macroscope as ms
from conftest import REPO

JACOBI = REPO / "testdata" / "jacobi32.trace"
THREADS = 8


def pipeline(path):
    """Read, model, aggregate, moments: the tables of each step."""
    trace = ms.read(path, progress=False)
    model = trace.micro(slices=30)
    agg = model.aggregate(0.3)
    return {
        "states": trace.states, "model": model.to_pandas(), "aggregates": agg.to_pandas(),
        "moments": trace.moments(by="node").to_pandas(), "levels": model.significant_p(),
        "streamed": ms.read_micro(path, slices=30, progress=False).to_pandas(),
        "file moments": ms.moments(path, busy=["Compute"]).to_pandas(),
    }


def test_threads_give_the_serial_results():
    serial = pipeline(JACOBI)
    results, errors = [None] * THREADS, []
    start = threading.Barrier(THREADS)

    def work(i):
        try:
            start.wait()
            results[i] = pipeline(JACOBI)
        except BaseException as exc:  # reported below, with the thread
            errors.append((i, exc))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for i, got in enumerate(results):
        for name, want in serial.items():
            pd.testing.assert_frame_equal(got[name], want, check_exact=True, obj=f"thread {i}: {name}")
    assert len(serial["states"]) == 10272 and 0 < len(serial["model"]) < 32 * 30 * 10
    assert (serial["model"].proportion > 0).all()  # the values that are not zero


def test_go_calls_release_the_gil(tmp_path):
    """Two threads each make one long Go call (ms.synth writes a trace in a
    single call) while a third, pure Python, thread counts. Were the GIL
    held during a Go call, no Python code could run inside it: the counter
    could not advance there, and the second call could not begin before
    the first ended. Both are checked on what the threads recorded, not on
    durations, with a margin at each end of a call for the instants spent
    in Python around it."""
    margin = 0.05
    events = 1_000_000
    for _ in range(6):
        calls = [None, None]
        ticks = []
        stop = threading.Event()
        start = threading.Barrier(3)

        def count():
            start.wait()
            while not stop.is_set():
                ticks.append(time.perf_counter())

        def go(i):
            start.wait()
            began = time.perf_counter()
            ms.synth(tmp_path / f"t{i}.trace", events=events, seed=i + 1)
            calls[i] = (began, time.perf_counter())

        workers = [threading.Thread(target=go, args=(i,)) for i in range(2)]
        counter = threading.Thread(target=count)
        for t in [counter, *workers]:
            t.start()
        for t in workers:
            t.join()
        stop.set()
        counter.join()
        if min(end - began for began, end in calls) > 4 * margin:
            break
        events *= 2  # calls too short to tell: make them longer
    else:
        raise AssertionError(f"the Go calls stayed shorter than {4 * margin} s: {calls}")
    for began, end in calls:
        inside = [t for t in ticks if began + margin < t < end - margin]
        assert inside, f"Python counted nothing during the Go call {began}-{end}"
    (b0, e0), (b1, e1) = calls
    assert b0 < e1 and b1 < e0, f"the two Go calls did not overlap: {calls}"
