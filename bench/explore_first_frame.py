"""CPU time of model.explore() on a 1,000-resource model, kernel side:
the first frame (the widget made, its first aggregates encoded), the
first chunk of levels and cells the page asks for, and a slider step
through Python (set_level to a level the page does not hold: one solve
and its table). Each measure runs in a child process of its own (nothing
kept from an earlier run), CPU time user + sys of every thread
(time.process_time).

Usage: python bench/explore_first_frame.py [--p P] [--profile] [--idle S] TRACE
(TRACE: e.g. ``macroscope synth --sites 2 --clusters 5 --machines 10
--cores 10 --events 1000000 t.paje``, bench/overview.py's synth-1000).
Prints one JSON line."""

from __future__ import annotations

import argparse
import json
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--slices", type=int, default=100)
    ap.add_argument("--p", type=float, default=None)
    ap.add_argument("--profile", action="store_true", help="cProfile of the first frame, top 25 by cumulative time")
    ap.add_argument("--breakdown", action="store_true",
                    help="the first frame's parts timed apart: the widgets' import, the knee (or the solve at p), "
                         "the explorer made with them known")
    ap.add_argument("--idle", type=float, default=0,
                    help="then sleep this many seconds, the slider untouched, and report the CPU spent meanwhile")
    args = ap.parse_args()
    import macroscope as ms

    model = ms.read_micro(args.trace, slices=args.slices, progress=False)
    out = {"resources": model.resources, "slices": model.slices}
    if args.breakdown:
        c = time.process_time()
        import macroscope.widgets  # noqa: F401

        out["import_cpu_s"] = round(time.process_time() - c, 3)
        c = time.process_time()
        p = model.recommended_p() if args.p is None else args.p
        out["knee_cpu_s"] = round(time.process_time() - c, 3)
        c = time.process_time()
        agg = model.aggregate(p)
        out["solve_cpu_s"] = round(time.process_time() - c, 3)
        c = time.process_time()
        agg.to_arrow()
        out["agg_table_cpu_s"] = round(time.process_time() - c, 3)
    if args.profile:
        import cProfile
        import pstats

        prof = cProfile.Profile()
        prof.enable()
    t0 = time.process_time()
    w = model.explore(p=args.p)
    t1 = time.process_time()
    if args.profile:
        prof.disable()
        pstats.Stats(prof).sort_stats("cumulative").print_stats(25)
    out["first_frame_cpu_s"] = round(t1 - t0, 3)
    out["levels_at_open"] = len(w.current.levels)
    out["aggregates"] = int(w.view["n"])
    # What the page asks next: the model's cells, then a chunk of levels.
    t2 = time.process_time()
    w._handle({"action": "prefetch", "view": w.current.uid})
    w._handle({"action": "prefetch", "view": w.current.uid})
    out["prefetch_cpu_s"] = round(time.process_time() - t2, 3)
    if args.idle:
        # A user who looks and never moves the slider: what runs meanwhile.
        t5 = time.process_time()
        time.sleep(args.idle)
        out["idle_cpu_s"] = round(time.process_time() - t5, 3)
        w.close()
        print(json.dumps(out))
        return
    # A slider step through Python, to a level the page does not hold
    # (with one level known, the levels are swept first: asked, waited).
    t3 = time.process_time()
    w.wait_levels()
    out["levels_cpu_s"] = round(time.process_time() - t3, 3)
    levels = w.current.levels
    # The next level, as a page that holds no levels asks it (a reset
    # page): its solve and its draw table through Python.
    w._handle({"action": "reset"})
    # The finer neighbour (the coarser one of a noisy model may be its
    # single aggregate).
    nxt = w.level - 1 if w.level > 0 else w.level + 1
    t4 = time.process_time()
    w.set_level(nxt)
    out["step_cpu_s"] = round(time.process_time() - t4, 3)
    out["step_aggregates"] = int(w.view["n"])
    # A chunk of levels shipped ahead (about 0.15 s of work, the page asks
    # for the next when it arrives).
    t6 = time.process_time()
    w._handle({"action": "prefetch", "view": w.current.uid})
    w._handle({"action": "prefetch", "view": w.current.uid})
    out["chunk_cpu_s"] = round(time.process_time() - t6, 3)
    out["levels"] = len(levels)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
