// moments.explore(): the moment display of Godin, Quinn and Pancake, one
// line per row of the Moments table, with the row under the pointer named
// and its m0..m3 in a tooltip.
import { table, column, hiDPI, Palette, Tooltip, frameDrawn, layered, pointer, seconds, timeAxis, installCSS, fitWidth, onWidthChange } from "./_shared.js";

const LEFT = 170;
const RIGHT = 10;
const TOP = 6;
const BOTTOM = 34;
const GREY = "#a0a0a0"; // the norm bar, as the static display
const SKEW = "#e41a1c"; // the skew line: the static display's first category colour

function render({ model, el }) {
  installCSS();
  el.classList.add("ms-widget", "ms-moments");
  const { stack, canvas, overlay } = layered();
  el.append(stack);
  const tooltip = new Tooltip(el);
  let d = null;

  function redraw() {
    const rows = table(model, "rows");
    const n = rows ? rows.numRows : 0;
    const W = fitWidth(el, model.get("width"));
    // 12 pixels a row for a few rows, down to one pixel for many.
    const rowH = n > 50 ? Math.max(1, Math.min(12, 600 / n)) : 12;
    const H = model.get("height") || Math.round(TOP + BOTTOM + Math.min(4000, rowH * n));
    const L = { x0: LEFT, y0: TOP, w: W - LEFT - RIGHT, h: H - TOP - BOTTOM };
    const ctx = hiDPI(canvas, W, H);
    hiDPI(overlay, W, H);
    ctx.fillStyle = "#ffffff";
    ctx.fillRect(0, 0, W, H);
    if (!rows) return;
    const [t0, t1] = model.get("window");
    const X = (t) => L.x0 + ((t - t0) / (t1 - t0)) * L.w;
    const lh = L.h / n;
    const Y = (i) => L.y0 + i * lh;
    const m0 = column(rows, "m0"), m1 = column(rows, "m1"), m2 = column(rows, "m2"), m3 = column(rows, "m3");
    const norm = column(rows, "norm"), state = column(rows, "state");
    const palette = new Palette(model.get("palette"));
    const labels = rows.getChild("label");
    ctx.save();
    ctx.beginPath();
    ctx.rect(L.x0, L.y0, L.w, L.h);
    ctx.clip();
    for (let i = 0; i < n; i++) {
      if (!(m0[i] > 0)) continue;
      const y = Y(i), h = Math.max(1, lh * 0.8), yc = y + lh / 2;
      ctx.fillStyle = state[i] >= 0 ? palette.color(state[i]) : GREY;
      ctx.fillRect(X(m1[i] - norm[i] / 2), yc - h / 2, Math.max(1, X(m1[i] + norm[i] / 2) - X(m1[i] - norm[i] / 2)), h);
      ctx.fillStyle = "#000000";
      const bh = Math.max(1, h * 0.3);
      ctx.fillRect(X(m1[i] - m2[i]), yc - bh / 2, Math.max(1, X(m1[i] + m2[i]) - X(m1[i] - m2[i])), bh);
      ctx.fillRect(Math.floor(X(m1[i])), yc - h / 2, 1, h); // on whole pixels: a crisp tick
      ctx.fillStyle = SKEW;
      const a = Math.min(X(m1[i]), X(m1[i] + m3[i])), b = Math.max(X(m1[i]), X(m1[i] + m3[i]));
      ctx.fillRect(a, yc - 0.5, Math.max(1, b - a), 1);
    }
    ctx.restore();
    ctx.strokeStyle = "#444444";
    ctx.strokeRect(L.x0 - 0.5, L.y0 - 0.5, L.w + 1, L.h + 1);
    // Labels where rows are tall enough to read them.
    ctx.fillStyle = "#222222";
    ctx.font = "11px sans-serif";
    ctx.textBaseline = "middle";
    ctx.textAlign = "right";
    if (lh >= 11) {
      for (let i = 0; i < n; i++) {
        let s = String(labels.get(i));
        while (s.length > 3 && ctx.measureText(s).width > LEFT - 8) s = "…" + s.slice(2);
        ctx.fillText(s, L.x0 - 4, Y(i) + lh / 2);
      }
    } else {
      ctx.fillText(`${n} rows`, L.x0 - 4, L.y0 + L.h / 2);
    }
    // The time axis keeps to the window.
    timeAxis(ctx, L, t0, t1, model.get("clock"));
    d = { n, L, lh, Y, labels, m0, m1, m2, m3, state, rows, W, H };
    el.dataset.plot = [L.x0, L.y0, L.w, L.h].join(",");
    frameDrawn(model, el, { count: n });
  }

  function rowAt(y) {
    if (!d) return -1;
    const i = Math.floor((y - d.L.y0) / d.lh);
    return i >= 0 && i < d.n ? i : -1;
  }
  let hovered = -1;
  overlay.addEventListener("mousemove", (e) => {
    const [x, y] = pointer(e, overlay);
    const i = x >= d.L.x0 - LEFT && x <= d.L.x0 + d.L.w ? rowAt(y) : -1;
    const ctx = overlay.getContext("2d");
    if (i !== hovered) {
      hovered = i;
      ctx.clearRect(0, 0, d.W, d.H);
      if (i >= 0) {
        ctx.fillStyle = "rgba(30,100,200,0.12)";
        ctx.fillRect(d.L.x0, d.Y(i), d.L.w, Math.max(1, d.lh));
      }
      el.dataset.hovered = String(i);
    }
    if (i < 0) return tooltip.hide();
    const states = model.get("states") || [];
    const lines = [String(d.labels.get(i))];
    if (d.state[i] >= 0) lines.push(`state: ${states[d.state[i]]}`);
    const res = column(d.rows, "resources")[i];
    if (res > 1) lines.push(`${res} resources`);
    lines.push(`m0 = ${seconds(d.m0[i])} (busy time)`);
    if (d.m0[i] > 0) {
      lines.push(`m1 = ${seconds(d.m1[i])} (mean)`);
      lines.push(`m2 = ${seconds(d.m2[i])} (spread)`);
      lines.push(`m3 = ${seconds(d.m3[i])} (skew)`);
    }
    tooltip.show(x, y, lines);
  });
  overlay.addEventListener("mouseleave", () => {
    tooltip.hide();
    hovered = -1;
    if (d) overlay.getContext("2d").clearRect(0, 0, d.W, d.H);
  });
  const onData = () => redraw();
  model.on("change:_sent_at", onData);
  const stopWidth = onWidthChange(el, redraw);
  redraw();
  return () => {
    stopWidth();
    model.off("change:_sent_at", onData);
  };
}

export default { render };
