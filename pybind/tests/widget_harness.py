"""Drive notebook widgets in a real browser: JupyterLab or Notebook 7 on
localhost and Debian's chromium through Playwright.

``lab`` (a pytest fixture, one JupyterLab for the session) and
``notebook7`` (the same in Notebook 7) open notebooks:
``nb = lab.notebook(["import macroscope as ms", ...])`` writes the cells
into a notebook of a temporary directory, opens it in the server's page
and runs them all (both front ends are built on JupyterLab's components
and expose their app as ``window.jupyterapp``, so the same code drives
them). One browser serves every server of the session (``browser``). Then ``nb.run(code)`` runs one more cell in
the same kernel and returns what it printed, ``nb.widget(i)`` is the i-th
widget's element, ``nb.wait_frame(el, n)`` waits for its n-th frame (see
frameDrawn in js/src/_shared.js), ``nb.screenshot(el, name)`` saves a PNG
under build/test-output/widgets/ and returns its pixels, and
``Pixels.at(x, y)`` reads one. ``expected_rects`` and ``check_pixels``
say where and in what colour an overview draws the aggregates of
``model.aggregate(p)``, computed from the model, not from the widget.

The browser is never downloaded: chromium is Debian's (/usr/bin/chromium,
installed by .ci/run); without it the tests skip, saying so.
"""

from __future__ import annotations

import json
import math
import os
import pathlib
import secrets
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request
import zlib

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ROOT = pathlib.Path(__file__).resolve().parents[2]
OUTPUT = ROOT / "build" / "test-output" / "widgets"


def skip_without_browser(front_end: str = "jupyterlab"):
    """Skip unless chromium, Playwright, the front end (the module
    "jupyterlab" or "notebook") and anywidget are here."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is absent: install Debian's chromium (apt-get install chromium chromium-driver, "
                    "as .ci/run does) to run the browser tests")
    for module in ("playwright", front_end, "anywidget"):
        pytest.importorskip(module, reason=f"{module} is not installed (make setup installs it)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Pixels:
    """The pixels of a PNG screenshot (8-bit RGB or RGBA, as chromium
    writes them), decoded with zlib alone."""

    def __init__(self, png: bytes):
        if png[:8] != b"\x89PNG\r\n\x1a\n":
            raise ValueError("not a PNG")
        pos, idat = 8, b""
        while pos < len(png):
            n, kind = struct.unpack(">I4s", png[pos:pos + 8])
            data = png[pos + 8:pos + 8 + n]
            if kind == b"IHDR":
                self.width, self.height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", data)
                if depth != 8 or color not in (2, 6) or interlace:
                    raise ValueError(f"PNG of depth {depth}, colour type {color}, interlace {interlace}")
                self.channels = 3 if color == 2 else 4
            elif kind == b"IDAT":
                idat += data
            pos += 12 + n
        raw = zlib.decompress(idat)
        stride = self.width * self.channels
        rows, prev = [], bytearray(stride)
        c = self.channels
        for y in range(self.height):
            f = raw[y * (stride + 1)]
            line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
            for i in range(stride):
                a = line[i - c] if i >= c else 0
                b = prev[i]
                ul = prev[i - c] if i >= c else 0
                if f == 1:
                    line[i] = (line[i] + a) & 255
                elif f == 2:
                    line[i] = (line[i] + b) & 255
                elif f == 3:
                    line[i] = (line[i] + (a + b) // 2) & 255
                elif f == 4:
                    p = a + b - ul
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - ul)
                    pred = a if pa <= pb and pa <= pc else (b if pb <= pc else ul)
                    line[i] = (line[i] + pred) & 255
            rows.append(bytes(line))
            prev = line
        self.rows = rows

    def at(self, x: float, y: float) -> tuple[int, int, int]:
        """The (r, g, b) of the pixel holding point x, y."""
        x, y = int(x), int(y)
        p = self.rows[y][x * self.channels:(x + 1) * self.channels]
        return p[0], p[1], p[2]


class Notebook:
    """A notebook open in JupyterLab or Notebook 7 (see the module's doc)."""

    def __init__(self, lab, page, name: str):
        self.lab, self.page, self.name = lab, page, name

    def run(self, code: str, timeout: float = 120) -> str:
        """Append a cell with ``code``, run it and return its text output
        (stdout and results); raises if it fails."""
        out = self.page.evaluate(
            """async ([code, timeout]) => {
                const app = window.jupyterapp;
                const panel = app.shell.currentWidget;
                const model = panel.content.model;
                const index = model.cells.length;
                model.sharedModel.insertCell(index, {cell_type: "code", source: code});
                panel.content.activeCellIndex = index;
                await app.commands.execute("notebook:run-cell");
                const cell = model.cells.get(index);
                const t0 = Date.now();
                while (cell.executionCount === null || panel.sessionContext.session.kernel.status !== "idle") {
                    if (Date.now() - t0 > timeout * 1000) throw new Error("cell timed out: " + code);
                    await new Promise(r => setTimeout(r, 20));
                }
                const outs = [];
                for (let i = 0; i < cell.outputs.length; i++) outs.push(cell.outputs.get(i).toJSON());
                return outs;
            }""", [code, timeout])
        text = []
        for o in out:
            if o["output_type"] == "error":
                raise AssertionError(f"cell failed: {o['ename']}: {o['evalue']}\n{code}")
            if o["output_type"] == "stream":
                text.append(o["text"] if isinstance(o["text"], str) else "".join(o["text"]))
            elif "data" in o and "text/plain" in o["data"]:
                t = o["data"]["text/plain"]
                text.append(t if isinstance(t, str) else "".join(t))
        return "".join(text)

    def execute(self, code: str, timeout: float = 120) -> None:
        """Run ``code`` in the notebook's kernel without adding a cell: the
        page changes only by what the code does (to its widgets), not by a
        new cell being rendered, so timings in the page are the widgets'
        own. Raises if the code fails."""
        self.page.evaluate(
            """async ([code, timeout]) => {
                const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
                const future = kernel.requestExecute({code, silent: false, store_history: false});
                let error = null;
                future.onIOPub = (msg) => {
                    if (msg.header.msg_type === "error") error = msg.content.ename + ": " + msg.content.evalue;
                };
                const timer = new Promise((_, no) => setTimeout(() => no(new Error("timed out: " + code)),
                                                                timeout * 1000));
                const reply = await Promise.race([future.done, timer]);
                if (error || reply.content.status !== "ok") throw new Error(error || reply.content.status);
            }""", [code, timeout])

    def value(self, expr: str):
        """The value of a Python expression in the kernel, through JSON."""
        return json.loads(self.run(f"import json as _json; print(_json.dumps({expr}))"))

    def widget(self, i: int = 0, selector: str = ".ms-widget"):
        """The element of the i-th widget of the notebook."""
        loc = self.page.locator(f"{self.panel} {selector}").nth(i)
        loc.wait_for(state="attached", timeout=60_000)
        return loc

    def frames(self, el) -> int:
        return int(el.get_attribute("data-frame") or 0)

    def wait_frame(self, el, n: int, timeout: float = 60) -> None:
        """Wait until the widget drew its n-th frame."""
        el.element_handle().wait_for_element_state("visible", timeout=timeout * 1000)
        self.page.wait_for_function("([el, n]) => +(el.dataset.frame || 0) >= n", arg=[el.element_handle(), n],
                                    timeout=timeout * 1000)

    def screenshot(self, el, name: str, canvas: str = "canvas.ms-main") -> Pixels:
        """Screenshot the widget's canvas into build/test-output/widgets/<name>.png
        and return its pixels (CSS pixels: the page's scale is 1)."""
        OUTPUT.mkdir(parents=True, exist_ok=True)
        png = el.locator(canvas).first.screenshot(path=str(OUTPUT / f"{name}.png"), animations="disabled")
        return Pixels(png)

    def close(self) -> None:
        self.page.close()


class Browser:
    """Debian's chromium driven by Playwright, one page size for all."""

    def __init__(self):
        from playwright.sync_api import sync_playwright

        self._pw = sync_playwright().start()
        self.browser = self._pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        self.context = self.browser.new_context(viewport={"width": 1400, "height": 1000}, device_scale_factor=1)

    def stop(self) -> None:
        for close in (lambda: self.context.close(), lambda: self.browser.close(), lambda: self._pw.stop()):
            try:
                close()
            except Exception:
                pass


# How each front end is started and where it opens a notebook.
FRONT_ENDS = {
    "lab": {"module": "jupyterlab", "args": [
        "--LabApp.expose_app_in_browser=True", "--LabApp.extension_manager=readonly", "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        # A workspace of its own, reset: no notebook of an earlier test is
        # restored beside this one.
        "open": "/lab/workspaces/{name}/tree/{name}.ipynb?reset&token={token}"},
    "notebook": {"module": "notebook", "args": ["--JupyterNotebookApp.expose_app_in_browser=True"],
                 "open": "/notebooks/{name}.ipynb?token={token}"},
}


class Lab:
    """JupyterLab (``app="lab"``) or Notebook 7 (``app="notebook"``) on a
    free localhost port with a random token, serving a temporary
    directory, its pages opened in ``browser`` (a :class:`Browser`; one of
    its own, stopped with the server, when None)."""

    def __init__(self, app: str = "lab", browser: Browser | None = None):
        self.app = FRONT_ENDS[app]
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="macroscope-lab-"))
        self.port = free_port()
        self.token = secrets.token_hex(16)
        settings = self.dir / ".settings"
        # No news, no update checks: nothing pops up over the widgets, and
        # nothing is fetched from outside.
        notif = settings / "@jupyterlab" / "apputils-extension"
        notif.mkdir(parents=True)
        (notif / "notification.jupyterlab-settings").write_text(
            json.dumps({"fetchNews": "false", "checkForUpdates": False}))
        env = dict(os.environ, JUPYTERLAB_SETTINGS_DIR=str(settings), JUPYTER_RUNTIME_DIR=str(self.dir / ".runtime"))
        OUTPUT.mkdir(parents=True, exist_ok=True)
        self.log_path = OUTPUT / f"{self.app['module']}.log"
        self.log = open(self.log_path, "w")
        (self.dir / "nb").mkdir()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", self.app["module"], "--no-browser", f"--port={self.port}", "--ip=127.0.0.1",
             f"--IdentityProvider.token={self.token}", f"--ServerApp.root_dir={self.dir / 'nb'}",
             "--ServerApp.port_retries=0", "--allow-root", *self.app["args"]],
            stdout=self.log, stderr=subprocess.STDOUT, env=env, cwd=self.dir)
        self.url = f"http://127.0.0.1:{self.port}"
        deadline = time.time() + 90
        while True:
            try:
                with urllib.request.urlopen(f"{self.url}/api/status?token={self.token}", timeout=2):
                    break
            except OSError:
                if self.proc.poll() is not None or time.time() > deadline:
                    self.stop()
                    raise RuntimeError(f"{self.app['module']} did not start; see {self.log_path}")
                time.sleep(0.3)
        self._own = browser is None
        self.browser = Browser() if browser is None else browser
        self.context = self.browser.context
        self._count = 0

    def notebook(self, cells: list[str], name: str | None = None, timeout: float = 180,
                 init: str | None = None) -> Notebook:
        """Write a notebook of ``cells``, open it and run them all; ``init``
        is a script the page runs before its own (Playwright's
        add_init_script), e.g. to record what the canvases draw."""
        import nbformat

        self._count += 1
        name = name or f"test{self._count}"
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nbformat.write(nb, self.dir / "nb" / f"{name}.ipynb")
        page = self.context.new_page()
        if init:
            page.add_init_script(init)
        page.set_default_timeout(timeout * 1000)
        page.goto(self.url + self.app["open"].format(name=name, token=self.token))
        page.wait_for_function(
            """() => { const a = window.jupyterapp; const w = a && a.shell.currentWidget;
                       return w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel
                              && w.sessionContext.session.kernel.status === "idle"; }""", timeout=timeout * 1000)
        page.evaluate("""async (timeout) => {
            const app = window.jupyterapp;
            const panel = app.shell.currentWidget;
            await app.commands.execute("notebook:run-all-cells");
            const model = panel.content.model;
            const t0 = Date.now();
            const done = () => { for (let i = 0; i < model.cells.length; i++) {
                const c = model.cells.get(i); if (c.type === "code" && c.executionCount === null) return false; }
                return panel.sessionContext.session.kernel.status === "idle"; };
            while (!done()) { if (Date.now() - t0 > timeout * 1000) throw new Error("notebook timed out");
                              await new Promise(r => setTimeout(r, 50)); }
        }""", timeout)
        out = Notebook(self, page, name)
        out.panel = "#" + page.evaluate("() => window.jupyterapp.shell.currentWidget.id")
        # An error in any cell fails the test here, with its message.
        errors = page.evaluate("""() => { const m = window.jupyterapp.shell.currentWidget.content.model; const e = [];
            for (let i = 0; i < m.cells.length; i++) { const c = m.cells.get(i); if (c.type !== "code") continue;
              for (let k = 0; k < c.outputs.length; k++) { const o = c.outputs.get(k).toJSON();
                if (o.output_type === "error") e.push(o.ename + ": " + o.evalue); } } return e; }""")
        if errors:
            raise AssertionError(f"notebook {name} failed: {errors}")
        return out

    def stop(self) -> None:
        if getattr(self, "_own", False):
            self.browser.stop()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(scope="session")
def browser():
    skip_without_browser()
    b = Browser()
    try:
        yield b
    finally:
        b.stop()


@pytest.fixture(scope="session")
def lab(browser):
    lab = Lab("lab", browser)
    try:
        yield lab
    finally:
        lab.stop()


@pytest.fixture(scope="session")
def notebook7(browser):
    skip_without_browser("notebook")
    nb = Lab("notebook", browser)
    try:
        yield nb
    finally:
        nb.stop()


# -- what an overview draws, computed from the model --------------------------


def mid_p(levels, i):
    """The p an explorer shows for level i of significant_p: its middle."""
    return float((levels.p_low.iloc[i] + levels.p_high.iloc[i]) / 2)


def plot_of(el):
    """The overview's plot area on its canvas: x0, y0, width, height."""
    return [float(v) for v in el.get_attribute("data-plot").split(",")]


def expected_rects(model, agg, plot, first=0, slices=None, min_px=8, colors=None):
    """The centre and colour of every aggregate of ``agg`` drawn at least
    min_px wide and high: rows from the resources' order in the model's
    table, colour the state's (``colors``, parallel to the model's states,
    else the overview figure's) at opacity 30 + 225 min(v, 1) on white."""
    from macroscope.widgets._base import model_colours

    slices = slices or model.slices
    x0, y0, w, h = plot
    order = list(model.to_pandas().resource.drop_duplicates())
    if colors is None:
        colors = model_colours(model)  # the overview figure's (one set of colours)
    out = []
    for a in agg.to_pandas().itertuples():
        # The root's path is its name; the resources' paths start below it.
        under = (range(len(order)) if a.depth == 0 else
                 [i for i, r in enumerate(order) if r == a.node or r.startswith(a.node + "/")])
        lo, hi = under[0], under[-1] + 1
        xa, xb = x0 + (a.first_slice - first) / slices * w, x0 + (a.last_slice + 1 - first) / slices * w
        ya, yb = y0 + lo / len(order) * h, y0 + hi / len(order) * h
        if xb - xa < min_px or yb - ya < min_px or not isinstance(a.mode, str):
            continue
        c = colors[model.states.index(a.mode)]
        rgb = [int(c[k:k + 2], 16) for k in (1, 3, 5)]
        alpha = math.floor(30 + 225 * min(a.mode_proportion, 1))
        out.append(((xa + xb) / 2, (ya + yb) / 2, tuple(round(255 - alpha * (255 - v) / 255) for v in rgb), a.node,
                    a.first_slice))
    return out


def check_pixels(pixels, rects, tolerance=2):
    """Every rectangle's centre pixel has its colour; returns how many."""
    assert rects, "no aggregate large enough to check"
    bad = []
    for x, y, rgb, node, *_ in rects:
        got = pixels.at(x, y)
        if max(abs(g - e) for g, e in zip(got, rgb)) > tolerance:
            bad.append((node, (round(x), round(y)), rgb, got))
    assert not bad, f"{len(bad)} of {len(rects)} centres differ: {bad[:5]}"
    return len(rects)
