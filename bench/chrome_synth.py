"""A synthetic Chrome (browser) trace-event JSON file of about SIZE bytes.

    python bench/chrome_synth.py SIZE OUT

Written as Chrome DevTools saves a recording: compact JSON, each event's
keys in sorted order (so "args" comes before "ph"), four renderer
processes of four threads each with their metadata, then complete slices
with thread times (tts, tdur) and source arguments (60%), nested B/E pairs
(20%), thread instants with a frame argument (10%), counters of two series
(5%) and async b/e pairs of hexadecimal ids (5%), threads drawn at random
so that they interleave. The same arguments always give the same file
(a fixed seed). bench/traceread reads it: traceread -format chrome OUT.
"""
import random
import sys

size, out = int(sys.argv[1]), sys.argv[2]
r = random.Random(7)
cats = ["toplevel", "v8", "blink", "cc", "disabled-by-default-devtools.timeline", "gpu", "ipc,toplevel"]
names = ["ThreadControllerImpl::RunTask", "V8.Execute", "ParseHTML", "Layout", "UpdateLayerTree", "Paint",
         "CompositeLayers", "GPUTask", "ScheduledAction::execute", "FunctionCall", "EventDispatch", "v8.compile"]
srcs = [("base/task/thread_pool.cc", "RunTask"), ("third_party/blink/renderer/core/frame.cc", "Update"),
        ("cc/trees/layer_tree_host.cc", "Commit"), ("gpu/command_buffer/service/scheduler.cc", "RunNextTask")]
with open(out, "w") as f:
    f.write('{"traceEvents":[')
    first = True
    pids = [1001, 1002, 1003, 1004]
    for p in pids:
        f.write(('' if first else ',') + '{"args":{"name":"Renderer"},"cat":"__metadata","name":"process_name","ph":"M","pid":%d,"tid":0,"ts":0}' % p)
        first = False
        for t in range(1, 5):
            f.write(',{"args":{"name":"Thread%d"},"cat":"__metadata","name":"thread_name","ph":"M","pid":%d,"tid":%d,"ts":0}' % (t, p, p * 10 + t))
    written, ts = 0, 1_000_000_000
    clock = {}
    while written < size:
        buf = []
        for _ in range(2000):
            p = r.choice(pids); t = p * 10 + r.randint(1, 4)
            at = clock.get(t, ts) + r.randint(1, 50)
            kind = r.random()
            c, n = r.choice(cats), r.choice(names)
            if kind < 0.6:
                d = r.randint(1, 400); sf, fn = r.choice(srcs)
                buf.append('{"args":{"src_file":"%s","src_func":"%s"},"cat":"%s","dur":%d,"name":"%s","ph":"X","pid":%d,"tdur":%d,"tid":%d,"ts":%d,"tts":%d}'
                           % (sf, fn, c, d, n, p, d - d // 4, t, at, at // 3))
                at += d
            elif kind < 0.8:
                d = r.randint(2, 300)
                buf.append('{"args":{},"cat":"%s","name":"%s","ph":"B","pid":%d,"tid":%d,"ts":%d,"tts":%d}' % (c, n, p, t, at, at // 3))
                buf.append('{"args":{},"cat":"%s","name":"%s","ph":"E","pid":%d,"tid":%d,"ts":%d,"tts":%d}' % (c, n, p, t, at + d, (at + d) // 3))
                at += d
            elif kind < 0.9:
                buf.append('{"args":{"data":{"frame":"%X"}},"cat":"%s","name":"%s","ph":"i","pid":%d,"s":"t","tid":%d,"ts":%d}' % (r.getrandbits(40), c, n, p, t, at))
            elif kind < 0.95:
                buf.append('{"args":{"JSHeapUsedSize":%d,"Nodes":%d},"cat":"disabled-by-default-devtools.timeline","name":"UpdateCounters","ph":"C","pid":%d,"tid":%d,"ts":%d}' % (r.randint(1e6, 9e7), r.randint(100, 9000), p, t, at))
            else:
                i = r.getrandbits(32)
                buf.append('{"args":{},"cat":"loading","id":"0x%x","name":"ResourceLoad","ph":"b","pid":%d,"tid":%d,"ts":%d}' % (i, p, t, at))
                buf.append('{"args":{},"cat":"loading","id":"0x%x","name":"ResourceLoad","ph":"e","pid":%d,"tid":%d,"ts":%d}' % (i, p, t, at + r.randint(10, 5000)))
            clock[t] = at
        chunk = "," + ",".join(buf)
        f.write(chunk)
        written += len(chunk)
    f.write('],"metadata":{"clock-domain":"LINUX_CLOCK_MONOTONIC"}}\n')
