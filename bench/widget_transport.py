"""The floor under every widget redraw: how long a traitlet change takes
from the kernel to the page, with nothing drawn, in a real browser
(JupyterLab, Debian's chromium driven by Playwright).

A bare anywidget holds a binary trait (``payload``, bytes, sent as a
binary buffer of the comm message) and a time stamp (``_sent_at``, the
wall clock in ms when Python set them). The page notes when the change
arrives (before any drawing) and when the next frame is painted after it
(requestAnimationFrame). Two paths are timed, for payloads of 0 bytes to
4 MB:

- cell: a notebook cell sets the traits (what bench/widget_redraw.py's
  redraws do), timed from the stamp to the change in the page and to the
  frame;
- comm: the page sends a message to the kernel, whose handler sets the
  traits (what a slider step or a click does), timed in the page from the
  send to the change and to the frame.

The Python side's own share (the widget serialising its state and
handing the message to the kernel's I/O thread) is timed in the kernel.
Prints a Markdown table. Usage: python bench/widget_transport.py [--repeats N]
"""

from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "pybind" / "tests"))

from widget_harness import CHROMIUM, Lab  # noqa: E402

import _machine

WIDGET = r'''
import time, anywidget, traitlets

class Probe(anywidget.AnyWidget):
    _esm = """
    function render({ model, el }) {
      el.classList.add("ms-probe");
      el.textContent = "probe";
      el.dataset.frame = "0";
      const onData = () => {
        const got = Date.now(), gotPerf = performance.now();
        const sent = model.get("_sent_at");
        const buf = model.get("payload");
        requestAnimationFrame(() => {
          const now = Date.now();
          el.dataset.arrive = String(got - sent);
          el.dataset.latency = String(now - sent);
          el.dataset.bytes = String(buf ? buf.byteLength : 0);
          el.dataset.rtArrive = String(gotPerf - (window.__pingAt || gotPerf));
          el.dataset.rtFrame = String(performance.now() - (window.__pingAt || gotPerf));
          el.dataset.frame = String(+el.dataset.frame + 1);
        });
      };
      model.on("change:_sent_at", onData);
      el.addEventListener("ping", (e) => {
        window.__pingAt = performance.now();
        model.send({ size: e.detail });
      });
    }
    export default { render };
    """
    payload = traitlets.Bytes(b"").tag(sync=True)
    _sent_at = traitlets.Float(0).tag(sync=True)

    def __init__(self):
        super().__init__()
        self.send_ms = []
        self.blobs = {}
        self.on_msg(lambda _w, c, _b: self.push(int(c["size"])))

    def push(self, size):
        blob = self.blobs.setdefault(size, [bytes([1]) * size, bytes([2]) * size])
        t0 = time.perf_counter()
        with self.hold_sync():
            self.payload = blob[len(self.send_ms) % 2]
            self._sent_at = time.time() * 1000
        self.send_ms.append((time.perf_counter() - t0) * 1000)
'''

SIZES = [0, 100_000, 1_000_000, 4_000_000]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=10)
    args = ap.parse_args()
    if not pathlib.Path(CHROMIUM).exists():
        sys.exit(f"{CHROMIUM} is absent: apt-get install chromium")
    lab = Lab()
    rows = []
    try:
        nb = lab.notebook([WIDGET, "w = Probe()\nw"], name="transport", timeout=300)
        el = nb.widget(0, ".ms-probe")
        for size in SIZES:
            cell = {"arrive": [], "frame": []}
            comm = {"arrive": [], "frame": []}
            for k in range(args.repeats + 1):
                frames = nb.frames(el)
                nb.run(f"w.push({size})")
                nb.wait_frame(el, frames + 1)
                if k:
                    cell["arrive"].append(float(el.get_attribute("data-arrive")))
                    cell["frame"].append(float(el.get_attribute("data-latency")))
            nb.run("w.send_ms.clear()")
            for k in range(args.repeats + 1):
                frames = nb.frames(el)
                el.evaluate("(e, n) => e.dispatchEvent(new CustomEvent('ping', {detail: n}))", size)
                nb.wait_frame(el, frames + 1)
                if k:
                    comm["arrive"].append(float(el.get_attribute("data-rt-arrive")))
                    comm["frame"].append(float(el.get_attribute("data-rt-frame")))
            send = nb.value("w.send_ms")
            med = statistics.median
            rows.append((size, med(cell["arrive"]), med(cell["frame"]), med(comm["arrive"]), med(comm["frame"]),
                         med(send)))
        nb.close()
    finally:
        lab.stop()
    print(f"machine: {_machine.describe()}\n")
    print("| payload (bytes) | cell: to the page (ms) | cell: to the frame (ms) | comm round trip: to the page (ms) "
          "| comm round trip: to the frame (ms) | of which Python sending (ms) |")
    print("|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r[0]:,} | {r[1]:.0f} | {r[2]:.0f} | {r[3]:.0f} | {r[4]:.0f} | {r[5]:.1f} |")
    print(f"\nMedians of {args.repeats}. Load average during the run: {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} CPUs.")


if __name__ == "__main__":
    main()
