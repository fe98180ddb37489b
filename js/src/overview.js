// model.explore(): the overview of a microscopic model (hierarchy x time,
// one rectangle per aggregate in the colour of its mode state), a slider
// over the significant levels of p, the quality curves, brushing to zoom,
// hovering for an aggregate's numbers, clicking for its cells, back and
// forward. Python computes; this module draws what the traits hold, and
// draws ahead of Python what it can from the data it holds: a slider step
// to a level of the page's levels (_levels.js), a click on an aggregate
// from the page's cells of the model, back and forward to a view whose
// data it holds. Python follows each such action and confirms the view.
import {
  table, column, hiDPI, Palette, Tooltip, PickBuffer, frameDrawn, element, layered, pointer, seconds, timeAxis, installCSS,
  Raster, pixel, levelSlider, askLevels, fitWidth, onWidthChange,
} from "./_shared.js";
import { Levels } from "./_levels.js";

const LEFT = 120; // room for the row labels
const RIGHT = 8;
const TOP = 6;
const BOTTOM = 34; // the time axis
const QUALITY = 240; // width of the quality curves
const GREEN = "#2ca02c";
const RED = "#d62728";

// fmtG writes x as Python's format(x, "g") does (6 significant digits,
// no trailing zeros), so that a title drawn ahead reads as Python's.
function fmtG(x) {
  if (x === 0 || !isFinite(x)) return String(x);
  const e = Math.floor(Math.log10(Math.abs(Number(x.toPrecision(6)))));
  if (e < -4 || e >= 6) {
    const [m, p] = x.toExponential(5).split("e");
    const mant = m.includes(".") ? m.replace(/0+$/, "").replace(/\.$/, "") : m;
    const n = Math.abs(+p);
    return `${mant}e${+p < 0 ? "-" : "+"}${n < 10 ? "0" : ""}${n}`;
  }
  const s = x.toFixed(Math.max(0, 5 - e));
  return s.includes(".") ? s.replace(/0+$/, "").replace(/\.$/, "") : s;
}

function render({ model, el }) {
  installCSS();
  el.classList.add("ms-widget", "ms-overview");
  // Keys on the slider move the slider, not the notebook's cells.
  el.dataset.lmSuppressShortcuts = "true";
  const back = element("button", { class: "ms-back" }, ["◀ back"]);
  const forward = element("button", { class: "ms-forward" }, ["forward ▶"]);
  const title = element("span", { class: "ms-title" });
  const slider = element("input", { class: "ms-level", type: "range", min: "0", step: "1" });
  const levelText = element("span", { class: "ms-level-text" });
  const bar = element("div", { class: "ms-bar" }, [back, forward, title, slider, levelText]);

  const { stack, canvas, overlay } = layered();
  const quality = element("canvas", { class: "ms-quality" });
  const row = element("div", { class: "ms-row", style: { display: "flex", gap: "8px" } }, [stack, quality]);
  const legend = element("div", { class: "ms-legend" });
  el.append(bar, row, legend);
  const tooltip = new Tooltip(el);
  const pick = new PickBuffer();

  // The state of the drawing, rebuilt at each redraw.
  let d = null;

  // The widget's width holds the overview and the quality curves beside it.
  function layout() {
    const W = Math.max(LEFT + RIGHT + 100, fitWidth(el, model.get("width")) - QUALITY - 8), H = model.get("height");
    return { W, H, x0: LEFT, y0: TOP, w: W - LEFT - RIGHT, h: H - TOP - BOTTOM };
  }

  // The hierarchy's rows of each node, and the node of each row (leaf).
  let rowsCache = null;
  function hierRows(hier) {
    if (rowsCache && rowsCache.hier === hier) return rowsCache;
    const lo = column(hier, "row_lo"), hi = column(hier, "row_hi"), n = hier.numRows;
    const leaf = new Int32Array(n ? hi[0] : 0);
    for (let i = 0; i < n; i++) if (hi[i] - lo[i] === 1) leaf[lo[i]] = i;
    rowsCache = { hier, lo, hi, leaf };
    return rowsCache;
  }

  // withRows adds each rectangle's rows, from its node, to its columns.
  function withRows(c) {
    const hier = table(model, "hierarchy");
    const H = hier ? hierRows(hier) : { lo: [], hi: [] };
    c.rlo = new Int32Array(c.n);
    c.rhi = new Int32Array(c.n);
    for (let i = 0; i < c.n; i++) {
      c.rlo[i] = H.lo[c.node[i]];
      c.rhi[i] = H.hi[c.node[i]];
    }
    return c;
  }

  // fromTrait: the columns of the table Python sent (the "aggregates"
  // trait): an overview's aggregates, or a detail view's cells as a grid,
  // row after row, slice after slice.
  function fromTrait(view) {
    const aggs = table(model, "aggregates");
    if (!aggs) return null;
    const c = { n: aggs.numRows, mode: column(aggs, "mode"), alpha: column(aggs, "alpha"),
      prop: column(aggs, "mode_proportion"), gain: column(aggs, "gain"), loss: column(aggs, "loss") };
    if (!view.grid) {
      c.node = column(aggs, "node_id");
      c.first = column(aggs, "first_slice");
      c.last = column(aggs, "last_slice");
      return withRows(c);
    }
    return grid(c, view);
  }

  // grid adds the nodes, slices and rows of a detail view's cells (row
  // after row, slice after slice) to their columns c.
  function grid(c, view) {
    const ns = view.last - view.first + 1, n = c.n;
    const hier = table(model, "hierarchy");
    const leaf = hier ? hierRows(hier).leaf : new Int32Array(view.row_hi);
    c.node = new Int32Array(n);
    c.first = new Int32Array(n);
    c.rlo = new Int32Array(n);
    c.rhi = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const r = view.row_lo + Math.floor(i / ns);
      c.first[i] = view.first + (i % ns);
      c.rlo[i] = r;
      c.rhi[i] = r + 1;
      c.node[i] = leaf[r];
    }
    c.last = c.first;
    return c;
  }

  // fromCells: the columns of a detail view cut from the page's cells of
  // its model (the cells table the kernel sends with the model), or null
  // when the page does not hold them.
  function fromCells(view) {
    const cl = cells.get(view.model);
    if (!cl) return null;
    const ns = view.last - view.first + 1, nr = view.row_hi - view.row_lo, n = nr * ns;
    const c = { n, mode: new Int16Array(n), alpha: new Uint8Array(n), prop: new Float32Array(n), gain: null, loss: null };
    for (let r = 0, i = 0; r < nr; r++) {
      const at = (view.row_lo + r) * cl.slices + view.first;
      c.mode.set(cl.mode.subarray(at, at + ns), i);
      c.alpha.set(cl.alpha.subarray(at, at + ns), i);
      c.prop.set(cl.prop.subarray(at, at + ns), i);
      i += ns;
    }
    return grid(c, view);
  }

  // columnsOf: the columns of view at level, from the page's own data when
  // Python says the page holds it (view.held), else from the trait.
  function columnsOf(view, level) {
    if (view.held && view.kind === "overview") {
      const pack = packs.get(view.uid);
      if (pack && pack.has(level)) return pack.columns(level, withRows);
    }
    if (view.held && view.kind === "detail" && cells.has(view.model)) return fromCells(view);
    return fromTrait(view);
  }

  // The cells of each model (by its number) the page holds.
  const cells = new Map();
  // The levels of each overview (by view uid) the page holds.
  const packs = new Map();
  let drawn = { uid: -1, level: -1 };
  let asked = -1; // the view whose next chunk of levels was asked for

  function prefetch() {
    const view = model.get("view") || {};
    if (view.kind !== "overview" || asked === view.uid) return;
    const pack = packs.get(view.uid);
    if (pack && pack.done) return;
    asked = view.uid;
    model.send({ action: "prefetch", view: view.uid });
  }

  // copyOf reads a buffer of a custom message (a DataView whose offset
  // need not be aligned) as a typed array of type T.
  const copyOf = (v, T) => new T(v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength));

  function onLevels(content, buffers) {
    if (content && content.kind === "cells") {
      cells.set(content.model, {
        slices: content.slices, mode: copyOf(buffers[0], content.mode_bytes === 1 ? Int8Array : Int16Array),
        alpha: copyOf(buffers[1], Uint8Array), prop: copyOf(buffers[2], Float32Array),
      });
      if (asked === content.view) asked = -1;
      el.dataset.cells = String(cells.size);
      prefetch();
      return;
    }
    if (!content || content.kind !== "levels") return;
    // A chunk from uid 0 starts the view's levels afresh (Python forgot
    // what the page held, e.g. after the page was reloaded).
    if (!packs.has(content.view) || content.first_uid === 0) packs.set(content.view, new Levels(content.slices));
    const pack = packs.get(content.view);
    pack.add(content, buffers || []);
    if (asked === content.view) asked = -1;
    // data-levels: how many levels of the view shown the page holds.
    if ((model.get("view") || {}).uid === content.view) el.dataset.levels = String(pack.sets.size);
    showLevel(Date.now());
    prefetch();
  }

  // showLevel draws the level of the slider from the page's levels when
  // it is not the one drawn and the page holds it.
  function showLevel(since) {
    // While Python has not caught up with a view the page drew ahead, the
    // page's view is the one shown.
    const view = (pending() ? d.view : model.get("view")) || {};
    const level = model.get("level");
    const pack = packs.get(view.uid);
    if (view.kind !== "overview" || !pack || !pack.has(level)) return false;
    if (drawn.uid === view.uid && drawn.level === level) return true;
    draw(pack.columns(level, withRows), view, level, since);
    return true;
  }

  // The actions the page drew ahead of Python are numbered (seq); each
  // view Python sends says the last one it handled.
  let seq = 0;
  const pending = () => d && seq > ((model.get("view") || {}).seq || 0);
  const keyOf = (v, level) => v.kind === "overview" ? `o ${v.uid} ${level}`
    : `d ${v.model} ${v.row_lo} ${v.row_hi} ${v.first} ${v.last}`;

  function redraw() {
    const view = model.get("view") || {};
    // Python's view of an action it has not handled yet: the page's
    // picture is newer; the answer to that action follows.
    if (pending()) return;
    const level = view.kind === "overview" ? view.level : -1;
    if (view.held && d && keyOf(d.view, d.level) === keyOf(view, level)) {
      // The page drew this view ahead: Python confirms it, nothing to draw.
      d.view = view;
      updateBar(view, level);
    } else {
      draw(columnsOf(view, level), view, level, 0);
    }
    prefetch();
  }

  // ahead draws, before Python answers, the view an action leads to when
  // the page holds its data (view: what Python's view of it will be,
  // level: the overview's level); returns whether it did.
  function ahead(view, level) {
    let c = null;
    if (view.kind === "overview") {
      const pack = packs.get(view.uid);
      if (pack && pack.has(level)) c = pack.columns(level, withRows);
    } else if (cells.has(view.model)) {
      c = fromCells(view);
    }
    if (!c) return false;
    seq++;
    draw(c, view, level, Date.now());
    return true;
  }

  // send sends an action to Python, numbered when the page drew it ahead.
  function send(action, extra, drewAhead) {
    model.send(drewAhead ? { action, ...extra, seq } : { action, ...extra });
  }

  // openAhead draws the detail (cells) of rectangle i of the overview
  // shown, as Python's open_detail will; returns whether it did.
  function openAhead(i) {
    const v = d.view;
    if (v.kind !== "overview" || !cells.has(v.model)) return false;
    const dt = (v.end - v.start) / v.slices;
    const paths = d.hier ? d.hier.getChild("path") : null;
    const node = paths ? String(paths.get(d.c.node[i])) : "";
    return ahead({
      kind: "detail", title: `${node} ${fmtG(v.start + d.first[i] * dt)}-${fmtG(v.start + (d.last[i] + 1) * dt)} s`,
      start: v.start, end: v.end, slices: v.slices, first: d.first[i], last: d.last[i], row_lo: d.rlo[i],
      row_hi: d.rhi[i], step: v.step + 1, uid: 0, model: v.model, held: true, grid: true,
      back: { ...v, level: d.level }, forward: null,
    }, -1);
  }

  // walkAhead draws the view before (dir "back") or after ("forward") the
  // one shown when the page knows it and holds its data.
  function walkAhead(dir) {
    const target = d && d.view[dir];
    if (!target) return false;
    const here = { ...d.view, level: d.level };
    const view = dir === "back" ? { ...target, forward: here } : { ...target, back: here };
    return ahead(view, view.kind === "overview" ? view.level : -1);
  }

  // draw paints the columns c of the view, at level (overview), and
  // reports the frame, its latency counted from since (0: from Python's
  // stamp).
  function draw(c, view, level, since) {
    const t0 = performance.now();
    tooltip.hide();
    const hier = table(model, "hierarchy");
    const L = layout();
    const ctx = hiDPI(canvas, L.W, L.H);
    hiDPI(overlay, L.W, L.H);
    const palette = new Palette(model.get("palette"));
    const states = model.get("states") || [];
    ctx.fillStyle = "#ffffff";
    ctx.fillRect(0, 0, L.W, L.H);
    if (!c) return;
    drawn = { uid: view.uid, level };
    const pack = packs.get(view.uid);
    el.dataset.levels = String(pack ? pack.sets.size : 0);
    const n = c.n;
    const { first, last, rlo, rhi, mode, alpha } = c;
    const vf = view.first, vn = view.last - view.first + 1;
    const r0 = view.row_lo, rn = view.row_hi - view.row_lo;
    const X = (k) => L.x0 + ((k - vf) / vn) * L.w;
    const Y = (r) => L.y0 + ((r - r0) / rn) * L.h;

    // The rectangles are painted pixel by pixel (see Raster), each in the
    // colour of its mode at the opacity of its share, laid on white; those
    // big enough to show it get a lighter top and left edge, between them.
    const S = Math.max(1, states.length);
    const colours = new Uint32Array(S * 256), edges = new Uint32Array(S * 256);
    const have = new Uint8Array(S * 256);
    const area = new Float64Array(S);
    const raster = new Raster(ctx, L.x0, L.y0, L.w, L.h);
    for (let i = 0; i < n; i++) {
      const m = mode[i];
      if (m < 0) continue;
      const k = m * 256 + Math.max(0, Math.min(255, alpha[i]));
      if (!have[k]) {
        const [r, g, b] = palette.fadedRGB(m, k % 256);
        colours[k] = pixel(r, g, b);
        edges[k] = pixel((r + 255) >> 1, (g + 255) >> 1, (b + 255) >> 1);
        have[k] = 1;
      }
      const xa = X(first[i]), ya = Y(rlo[i]), xb = X(last[i] + 1), yb = Y(rhi[i]);
      raster.rect(xa, ya, xb, yb, colours[k], xb - xa >= 4 && yb - ya >= 4 ? edges[k] : undefined);
      area[m] += (xb - xa) * (yb - ya);
    }
    raster.put();
    drawSteps(ctx, L, view);
    ctx.strokeStyle = "#444444";
    ctx.lineWidth = 1;
    ctx.strokeRect(L.x0 - 0.5, L.y0 - 0.5, L.w + 1, L.h + 1);
    drawRows(ctx, L, hier, r0, rn, Y);
    drawTime(ctx, L, view);

    d = { view, c, hier, n, first, last, rlo, rhi, mode, X, Y, L, palette, states, level };
    pick.invalidate(L.W, L.H, (buf) => {
      for (let i = 0; i < n; i++) buf.rect(X(first[i]), Y(rlo[i]), X(last[i] + 1), Y(rhi[i]), i);
    });
    drawLegend(area, palette, states);
    drawQuality(level);
    updateBar(view, level);
    el.dataset.plot = [L.x0, L.y0, L.w, L.h].join(",");
    // data-draw: the milliseconds this function took (drawing, and
    // decoding when the data is new); data-source: "kernel" when Python
    // sent the data, "page" when the page held it.
    frameDrawn(model, el, { count: n, kind: view.kind, level: level >= 0 ? level : model.get("level"),
      draw: (performance.now() - t0).toFixed(1), source: since ? "page" : "kernel" }, since);
  }

  // drawRows names the rows by the deepest level of the hierarchy whose
  // nodes in view all get 12 pixels, as the static overview does.
  function drawRows(ctx, L, hier, r0, rn, Y) {
    if (!hier) return;
    const depth = column(hier, "depth"), lo = column(hier, "row_lo"), hi = column(hier, "row_hi");
    const names = hier.getChild("name"), parent = column(hier, "parent");
    // A row whose resource sits higher in the hierarchy than others (the
    // CPU threads beside the GPU streams of an Nsight profile) keeps its
    // label at the depths below it: the labels at depth dd are the nodes
    // of depth dd and the leaves above it.
    const hasChild = new Uint8Array(hier.numRows);
    for (let i = 1; i < hier.numRows; i++) if (parent[i] >= 0) hasChild[parent[i]] = 1;
    const byDepth = new Map(), leavesAbove = [];
    for (let i = 1; i < hier.numRows; i++) {
      if (hi[i] <= r0 || lo[i] >= r0 + rn) continue;
      if (!byDepth.has(depth[i])) byDepth.set(depth[i], []);
      byDepth.get(depth[i]).push(i);
    }
    let chosen = [];
    for (let dd = 1; byDepth.has(dd); dd++) {
      const labels = byDepth.get(dd).concat(leavesAbove);
      if (labels.length * 12 > L.h) break;
      chosen = labels;
      for (const i of byDepth.get(dd)) if (!hasChild[i]) leavesAbove.push(i);
    }
    ctx.fillStyle = "#222222";
    ctx.font = "11px sans-serif";
    ctx.textAlign = "right";
    ctx.textBaseline = "middle";
    for (const i of chosen) {
      const a = Math.max(lo[i], r0), b = Math.min(hi[i], r0 + rn);
      let name = String(names.get(i));
      while (name.length > 3 && ctx.measureText(name).width > LEFT - 8) name = name.slice(0, -2) + "…";
      ctx.fillText(name, L.x0 - 4, (Y(a) + Y(b)) / 2);
      ctx.fillRect(L.x0 - 3, Y(a), 3, 1);
    }
    if (chosen.length === 0) {
      ctx.fillText(`${rn} resources`, L.x0 - 4, L.y0 + L.h / 2);
    }
  }

  // drawSteps marks where the program's steps start (view.steps: the
  // static overview's marks, seconds from the trace's start), as it does:
  // a dashed line at least 3 pixels after the last one drawn, and its
  // label at the top when it does not run into the previous label.
  function drawSteps(ctx, L, view) {
    const marks = view.steps || [];
    if (!marks.length) return;
    const dt = (view.end - view.start) / view.slices;
    const t0 = view.start + view.first * dt, t1 = view.start + (view.last + 1) * dt;
    ctx.save();
    ctx.font = "10px sans-serif";
    ctx.textBaseline = "top";
    ctx.textAlign = "left";
    let lastLine = -Infinity, labelEnd = -Infinity;
    for (const { t, label } of marks) {
      if (t < t0 || t > t1) continue;
      const x = Math.round(L.x0 + ((t - t0) / (t1 - t0)) * L.w) + 0.5;
      if (x - lastLine < 3) continue;
      lastLine = x;
      ctx.strokeStyle = "rgba(40, 40, 40, 0.78)";
      ctx.lineWidth = 1;
      ctx.setLineDash([4, 3]);
      ctx.beginPath();
      ctx.moveTo(x, L.y0);
      ctx.lineTo(x, L.y0 + L.h);
      ctx.stroke();
      if (!label || x < labelEnd) continue;
      const w = ctx.measureText(label).width;
      if (x + 3 + w > L.x0 + L.w) continue; // cut by the edge
      ctx.fillStyle = "rgba(255, 255, 255, 0.78)";
      ctx.fillRect(x + 2, L.y0 + 1, w + 2, 12);
      ctx.fillStyle = "#141414";
      ctx.fillText(label, x + 3, L.y0 + 2);
      labelEnd = x + 3 + w + 4;
    }
    ctx.restore();
  }

  // drawTime writes the time axis of the view's slices.
  function drawTime(ctx, L, view) {
    const dt = (view.end - view.start) / view.slices;
    timeAxis(ctx, L, view.start + view.first * dt, view.start + (view.last + 1) * dt, model.get("clock"));
  }

  // drawLegend lists the states in view, the most visible first.
  function drawLegend(area, palette, states) {
    const shown = [...area.keys()].filter((x) => area[x] > 0).sort((a, b) => area[b] - area[a] || a - b);
    const max = 12;
    legend.replaceChildren(
      ...shown.slice(0, max).map((x) => {
        const sw = element("span", { class: "ms-swatch", style: { background: palette.color(x) } });
        return element("span", { class: "ms-legend-item" }, [sw, states[x]]);
      }),
    );
    if (shown.length > max) legend.append(element("span", { class: "ms-legend-more" }, [`+${shown.length - max} more`]));
  }

  // The quality curves: gain (green) and loss (red) of the optimal
  // partition against p, the recommended level dashed, the shown one solid.
  let qd = null;
  function drawQuality(cur) {
    const view = model.get("view") || {};
    const H = model.get("height");
    const ctx = hiDPI(quality, QUALITY, H);
    ctx.fillStyle = "#ffffff";
    ctx.fillRect(0, 0, QUALITY, H);
    const lv = table(model, "levels");
    quality.style.opacity = view.kind === "overview" ? "1" : "0.35";
    if (!lv) return;
    const lo = column(lv, "p_low"), hi = column(lv, "p_high");
    const gain = column(lv, "gain"), loss = column(lv, "loss"), rec = lv.getChild("recommended");
    const Q = { x0: 34, y0: TOP, w: QUALITY - 44, h: H - TOP - BOTTOM };
    const px = (p) => Q.x0 + p * Q.w, py = (v) => Q.y0 + (1 - Math.max(0, Math.min(1, v))) * Q.h;
    ctx.strokeStyle = "#444444";
    ctx.strokeRect(Q.x0 - 0.5, Q.y0 - 0.5, Q.w + 1, Q.h + 1);
    for (const [vals, col] of [[gain, GREEN], [loss, RED]]) {
      ctx.strokeStyle = col;
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      for (let i = 0; i < lv.numRows; i++) {
        const f = i === 0 ? "moveTo" : "lineTo";
        ctx[f](px(lo[i]), py(vals[i]));
        ctx.lineTo(px(hi[i]), py(vals[i]));
      }
      ctx.stroke();
    }
    const mid = (i) => (lo[i] + hi[i]) / 2;
    for (let i = 0; i < lv.numRows; i++) {
      if (!rec.get(i)) continue;
      ctx.strokeStyle = "#555555";
      ctx.setLineDash([4, 3]);
      ctx.beginPath();
      ctx.moveTo(px(mid(i)), Q.y0);
      ctx.lineTo(px(mid(i)), Q.y0 + Q.h);
      ctx.stroke();
      ctx.setLineDash([]);
    }
    if (view.kind === "overview" && cur >= 0 && cur < lv.numRows) {
      ctx.strokeStyle = "#000000";
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.moveTo(px(mid(cur)), Q.y0);
      ctx.lineTo(px(mid(cur)), Q.y0 + Q.h);
      ctx.stroke();
    }
    ctx.fillStyle = "#222222";
    ctx.font = "11px sans-serif";
    ctx.textAlign = "center";
    ctx.textBaseline = "top";
    for (const p of [0, 0.5, 1]) ctx.fillText(String(p), px(p), Q.y0 + Q.h + 5);
    ctx.fillText("p (dashed: recommended)", Q.x0 + Q.w / 2, Q.y0 + Q.h + 19);
    ctx.textAlign = "right";
    ctx.textBaseline = "middle";
    for (const v of [0, 1]) ctx.fillText(String(v), Q.x0 - 4, py(v));
    ctx.fillStyle = GREEN;
    ctx.textAlign = "left";
    ctx.fillText("gain", Q.x0 + 4, Q.y0 + 8);
    ctx.fillStyle = RED;
    ctx.fillText("loss", Q.x0 + 4, Q.y0 + 22);
    qd = { Q, lo, hi, n: lv.numRows };
  }

  // updateBar shows the level drawn, its p, size, gain and loss (from the
  // levels table, so that a level drawn from the page's data reads right).
  function updateBar(view, level) {
    // The view's place in the history (a view drawn ahead has Python's
    // can_back and can_forward yet to come).
    back.disabled = view.step === undefined ? !model.get("can_back") : !(view.step > 0);
    forward.disabled = view.step === undefined ? !model.get("can_forward") : !view.forward;
    title.textContent = (view.kind === "detail" ? "detail: " : "") + (view.title || "");
    const lv = table(model, "levels");
    slider.disabled = view.kind !== "overview";
    if (lv) {
      slider.max = String(lv.numRows - 1);
      slider.value = String(model.get("level"));
    }
    if (view.kind !== "overview" || !lv || level < 0 || level >= lv.numRows) {
      levelText.textContent = view.kind === "overview" ? "" : `${d ? d.n : 0} cells`;
      return;
    }
    const p = (column(lv, "p_low")[level] + column(lv, "p_high")[level]) / 2;
    levelText.textContent =
      `level ${level + 1}/${lv.numRows}: p = ${p.toPrecision(3)}, ${column(lv, "aggregates")[level]} aggregates, ` +
      `gain ${column(lv, "gain")[level].toPrecision(3)}, loss ${column(lv, "loss")[level].toPrecision(3)}` +
      asking.note(view);
  }

  // --- the mouse --------------------------------------------------------
  const pos = (e) => pointer(e, overlay);
  function timeAt(x) {
    const v = d.view, dt = (v.end - v.start) / v.slices;
    const k = v.first + ((x - d.L.x0) / d.L.w) * (v.last - v.first + 1);
    return v.start + k * dt;
  }
  let brush = null;
  let hovered = -1;

  function outline(i) {
    const L = layout();
    const ctx = overlay.getContext("2d");
    ctx.clearRect(0, 0, L.W, L.H);
    if (brush) {
      ctx.fillStyle = "rgba(30,100,200,0.18)";
      ctx.strokeStyle = "rgba(30,100,200,0.8)";
      const a = Math.min(brush.x0, brush.x1), b = Math.max(brush.x0, brush.x1);
      ctx.fillRect(a, L.y0, b - a, L.h);
      ctx.strokeRect(a + 0.5, L.y0 + 0.5, b - a - 1, L.h - 1);
    }
    if (d && i >= 0) {
      ctx.strokeStyle = "#000000";
      ctx.lineWidth = 1.5;
      ctx.strokeRect(d.X(d.first[i]), d.Y(d.rlo[i]), d.X(d.last[i] + 1) - d.X(d.first[i]), d.Y(d.rhi[i]) - d.Y(d.rlo[i]));
    }
  }

  function describe(i) {
    const v = d.view, dt = (v.end - v.start) / v.slices;
    const nodes = d.hier ? d.hier.getChild("path") : null;
    const node = nodes ? String(nodes.get(d.c.node[i])) : "";
    const lines = [node || "(root)"];
    lines.push(`${seconds(v.start + d.first[i] * dt)} – ${seconds(v.start + (d.last[i] + 1) * dt)}` +
      ` (slices ${d.first[i]}–${d.last[i]}), ${d.rhi[i] - d.rlo[i]} resources`);
    const m = d.mode[i];
    const mp = d.c.prop[i];
    lines.push(m < 0 ? "mode: none (no activity)" : `mode: ${d.states[m]} (${(100 * mp).toFixed(1)}%)`);
    if (v.kind === "overview" && d.c.gain) {
      lines.push(`gain ${d.c.gain[i].toPrecision(4)}, loss ${d.c.loss[i].toPrecision(4)}`);
    }
    const info = model.get("hover_info") || {};
    if (info.index === i) {
      for (const [s, p] of info.proportions) lines.push(`  ${s}: ${(100 * p).toFixed(1)}%`);
      if (info.more) lines.push(`  +${info.more} more`);
    }
    return lines;
  }

  overlay.addEventListener("mousedown", (e) => {
    const [x] = pos(e);
    brush = { x0: x, x1: x };
  });
  overlay.addEventListener("mousemove", (e) => {
    const [x, y] = pos(e);
    if (brush && e.buttons & 1) {
      brush.x1 = Math.max(d ? d.L.x0 : 0, Math.min(x, d ? d.L.x0 + d.L.w : x));
      tooltip.hide();
      outline(-1);
      return;
    }
    if (!d) return;
    const i = pick.pick(x, y);
    if (i !== hovered) {
      hovered = i;
      outline(i);
      // Python names rectangles of its own view: none while it has not
      // caught up with a view the page drew ahead (the tooltip has the
      // page's numbers; the proportions come once Python has the view).
      if (!pending()) {
        model.set("hovered", i);
        model.save_changes();
      }
    }
    if (i >= 0) tooltip.show(x, y, describe(i));
    else tooltip.hide();
  });
  overlay.addEventListener("mouseleave", () => {
    tooltip.hide();
    hovered = -1;
    outline(-1);
  });
  const onMouseUp = (e) => {
    if (!brush || !d) return;
    const b = brush;
    brush = null;
    outline(hovered);
    if (Math.abs(b.x1 - b.x0) >= 5 && d.view.kind === "overview") {
      const a = timeAt(Math.min(b.x0, b.x1)), z = timeAt(Math.max(b.x0, b.x1));
      model.send({ action: "zoom", start: a, end: z });
      return;
    }
    if (e.target !== overlay) return;
    const [x, y] = pos(e);
    const i = pick.pick(x, y);
    if (i >= 0) send("click", { index: i }, d.view.kind === "overview" && openAhead(i));
  };
  window.addEventListener("mouseup", onMouseUp);
  quality.addEventListener("click", (e) => {
    if (!qd || (d && d.view.kind !== "overview")) return;
    const r = quality.getBoundingClientRect();
    const p = (e.clientX - r.left - qd.Q.x0) / qd.Q.w;
    let best = 0;
    for (let i = 0; i < qd.n; i++) {
      if (qd.lo[i] <= p && p <= qd.hi[i]) { best = i; break; }
      if (Math.abs(qd.lo[i] - p) < Math.abs(qd.lo[best] - p)) best = i;
    }
    levelInput.set(best);
  });
  // The slider, its keys and the quality curves move the level: the page
  // draws the level at once when it holds it (the change:level handler),
  // else Python sends it.
  const levelInput = levelSlider(slider, model);
  const asking = askLevels(model, [slider, quality], () => { if (d) updateBar(d.view, d.level); });
  back.addEventListener("click", () => send("back", {}, walkAhead("back")));
  forward.addEventListener("click", () => send("forward", {}, walkAhead("forward")));

  const onData = () => redraw();
  const onHover = () => {
    const info = model.get("hover_info") || {};
    if (d && info.index === hovered && hovered >= 0) tooltip.update(describe(hovered));
  };
  const onSelected = () => outline(model.get("selected"));
  const onLevel = () => showLevel(Date.now());
  model.on("change:_sent_at", onData);
  model.on("change:level", onLevel);
  model.on("change:hover_info", onHover);
  model.on("change:selected", onSelected);
  model.on("msg:custom", onLevels);
  // A narrower output area redraws what is shown at its width.
  const stopWidth = onWidthChange(el, () => { if (d) draw(d.c, d.view, d.level, performance.now()); });
  // This page holds no levels yet: Python ships them from the start.
  model.send({ action: "reset" });
  redraw();
  return () => {
    stopWidth();
    window.removeEventListener("mouseup", onMouseUp);
    levelInput.dispose();
    asking.dispose();
    model.off("change:_sent_at", onData);
    model.off("change:level", onLevel);
    model.off("change:hover_info", onHover);
    model.off("change:selected", onSelected);
    model.off("msg:custom", onLevels);
  };
}

export default { render };
