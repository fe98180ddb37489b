// The explorers of a comparison's runs side by side (cmp.explore()): one
// overview per run of the same rows, time axis and partition (the
// footprints of the differences table at a level), each footprint in the
// colour of that run's mode there. One slider moves p; a drag in any run
// zooms all of them, drawn by the page from the rows it holds; hovering a
// footprint outlines it in every run and shows each run's proportions
// (Python sends them). Rows reported above the noise floor (or the first
// by score) are outlined in a colour of their divergence.
import {
  element, fmt, frameDrawn, hiDPI, installCSS, layered, levelSlider, Palette, PickBuffer, pixel, pointer, Raster,
  readTable, seconds, swatches, timeAxis, Tooltip, fitWidth, onWidthChange, askLevels,
} from "./_shared.js";

// divergenceRGB maps a divergence onto the static figure's scale: light
// orange to dark red, logarithmic between lo and hi.
function divergenceRGB(d, lo, hi) {
  let f = 0;
  if (d > 0) f = (Math.log(d) - Math.log(lo)) / (Math.log(hi) - Math.log(lo));
  f = Math.max(0, Math.min(1, f));
  const a = [253, 190, 60], b = [120, 0, 40];
  return a.map((v, i) => Math.floor(v + (b[i] - v) * f));
}

function render({ model, el }) {
  installCSS();
  const root = element("div", { class: "ms-widget macroscope-compare" });
  const slider = element("input", { type: "range", min: "0", max: "0", step: "1", style: { width: "220px" } });
  const label = element("span");
  const reset = element("button", {}, ["whole time"]);
  const bar = element("div", { class: "ms-bar" }, ["level", slider, label, reset]);
  const panels = element("div", { style: { display: "flex", gap: "6px" } });
  const legend = element("div", { class: "ms-legend" });
  const list = element("div", { class: "macroscope-compare-list", style: { marginTop: "6px", fontSize: "12px" } });
  const error = element("div", { style: { color: "#b00" } });
  root.append(bar, panels, legend, list, error);
  el.appendChild(root);
  const tip = new Tooltip(root);
  const pick = new PickBuffer();
  const levelCtl = levelSlider(slider, model);
  const labelText = (view) => `p = ${fmt(view.p, 4)}: ${view.aggregates} aggregates, ${view.count} nodes, ` +
    `${view.reported} reported (${view.test} test)` + asking.note(view);
  const asking = askLevels(model, [slider], () => { label.textContent = labelText(model.get("view") || {}); });

  // The panels: a title and a layered canvas per run, made once.
  const runs = model.get("runs");
  const panel = runs.map((name, r) => {
    const { stack, canvas, overlay } = layered();
    canvas.dataset.run = String(r);
    const title = element("div", { style: { fontWeight: r === model.get("reference") ? "bold" : "normal", margin: "2px 0" } },
      [name + (r === model.get("reference") ? " (reference)" : "")]);
    const box = element("div", { class: "macroscope-compare-run" }, [title, stack]);
    panels.appendChild(box);
    return { canvas, overlay, box };
  });

  let window0 = null; // [first, last] slices shown; null: all
  let rows = null, marks = null, hierarchy = null, leaves = 1, slices = 1;
  let L = { x0: 0, y0: 0, w: 1, h: 1 };
  let W = 0, H = 0;
  let hovered = -1;

  const size = () => {
    const side = model.get("layout") === "side";
    panels.style.flexDirection = side ? "row" : "column";
    const width = fitWidth(el, model.get("width"));
    W = side ? Math.max(120, Math.floor((width - 6 * (runs.length - 1)) / runs.length)) : width;
    H = model.get("height");
    L = { x0: 4, y0: 2, w: W - 8, h: H - 36 };
  };

  const xOf = (k, w) => L.x0 + ((k - w[0]) / (w[1] - w[0] + 1)) * L.w;
  const yOf = (row) => L.y0 + (row / leaves) * L.h;

  function draw(since) {
    rows = readTable(model.get("rows"));
    marks = readTable(model.get("marks"));
    hierarchy = readTable(model.get("hierarchy"));
    const view = model.get("view") || {};
    if (!rows || !hierarchy || !marks) return;
    leaves = Math.max(1, hierarchy.row_hi[0]);
    slices = view.slices || 1;
    const w = window0 || [0, slices - 1];
    size();
    const palette = new Palette(model.get("palette"));
    const n = rows.length;
    const m = marks.length;
    let lo = Infinity, hi = -Infinity;
    for (let i = 0; i < m; i++) {
      if (marks.divergence[i] > 0) { lo = Math.min(lo, marks.divergence[i]); hi = Math.max(hi, marks.divergence[i]); }
    }
    if (!Number.isFinite(lo)) { lo = 1e-3; hi = 1; } else if (hi <= lo * 1.0001) { lo /= 10; hi *= 1.0001; }
    const shown = new Map();
    panel.forEach((p, r) => {
      const ctx = hiDPI(p.canvas, W, H);
      hiDPI(p.overlay, W, H);
      const raster = new Raster(ctx, L.x0, L.y0, L.w, L.h);
      const mode = rows[`mode_${r}`], alpha = rows[`alpha_${r}`];
      for (let i = 0; i < n; i++) {
        const a = rows.first_slice[i], b = rows.last_slice[i];
        if (b < w[0] || a > w[1] || mode[i] < 0) continue;
        const [cr, cg, cb] = palette.fadedRGB(mode[i], alpha[i]);
        const x0 = xOf(Math.max(a, w[0]), w), x1 = xOf(Math.min(b, w[1]) + 1, w);
        raster.rect(x0, yOf(rows.row_first[i]), x1, yOf(rows.row_last[i] + 1), pixel(cr, cg, cb));
        shown.set(mode[i], (shown.get(mode[i]) || 0) + (x1 - x0));
      }
      raster.put();
      // The differences, outlined by divergence (the first drawn last).
      ctx.lineWidth = 1.8;
      for (let i = m - 1; i >= 0; i--) {
        const a = marks.first_slice[i], b = marks.last_slice[i];
        if (b < w[0] || a > w[1]) continue;
        const [cr, cg, cb] = divergenceRGB(marks.divergence[i], lo, hi);
        ctx.strokeStyle = `rgb(${cr},${cg},${cb})`;
        const x0 = xOf(Math.max(a, w[0]), w), x1 = xOf(Math.min(b, w[1]) + 1, w);
        ctx.strokeRect(x0 + 0.9, yOf(marks.row_first[i]) + 0.9, x1 - x0 - 1.8, yOf(marks.row_last[i] + 1) - yOf(marks.row_first[i]) - 1.8);
      }
      const t0 = view.start + ((view.end - view.start) * w[0]) / slices, t1 = view.start + ((view.end - view.start) * (w[1] + 1)) / slices;
      const o = view.origin || 0; // times read from the window's start (one clock)
      timeAxis(ctx, { x0: L.x0, y0: L.y0, w: L.w, h: L.h - 0 }, t0 - o, t1 - o, model.get("clock"));
    });
    pick.invalidate(W, H, (buf) => {
      for (let i = 0; i < n; i++) {
        const a = rows.first_slice[i], b = rows.last_slice[i];
        if (b < w[0] || a > w[1]) continue;
        buf.rect(xOf(Math.max(a, w[0]), w), yOf(rows.row_first[i]), xOf(Math.min(b, w[1]) + 1, w), yOf(rows.row_last[i] + 1), i);
      }
    });
    const states = model.get("states");
    legend.replaceChildren(...swatches([...shown.entries()].sort((a, b) => b[1] - a[1]).map(([i]) => [states[i], palette.color(i)]), 16));
    // The differences outlined, in the table's order.
    const items = [];
    for (let i = 0; i < m && items.length < 8; i++) {
      items.push(element("div", {}, [
        `${marks.reported[i] ? "reported" : "top"}: ${marks.node.get(i)}, slices ${marks.first_slice[i]}-${marks.last_slice[i]}`
        + `, divergence ${fmt(marks.divergence[i], 3)} bit, score ${fmt(marks.score[i], 3)}, outlier ${fmt(marks.outlier_score[i], 3)}`]));
    }
    if (m > items.length) items.push(element("div", {}, [`+${m - items.length} more (w.view_table())`]));
    list.replaceChildren(...items);
    const levels = readTable(model.get("levels"));
    slider.max = String(levels ? levels.length - 1 : 0);
    slider.value = String(model.get("level"));
    label.textContent = labelText(view);
    root.dataset.plot = `${L.x0},${L.y0},${L.w},${L.h}`;
    overlayAll();
    frameDrawn(model, root, { count: n, marks: m, level: model.get("level"), window: `${w[0]},${w[1]}`, reported: view.reported, plot: `${L.x0},${L.y0},${L.w},${L.h}` }, since);
  }

  // hierarchyPath names the node covering leaves lo..hi (the deepest).
  function hierarchyPath(lo, hi) {
    let best = 0;
    for (let i = 0; i < hierarchy.length; i++) {
      if (hierarchy.row_lo[i] === lo && hierarchy.row_hi[i] === hi + 1 && hierarchy.depth[i] >= hierarchy.depth[best]) best = i;
    }
    return hierarchy.path.get(best);
  }

  // overlayAll draws the hovered footprint in every run, and the brush.
  let brush = null;
  function overlayAll() {
    const w = window0 || [0, slices - 1];
    for (const p of panel) {
      const ctx = hiDPI(p.overlay, W, H);
      if (hovered >= 0 && rows && hovered < rows.length) {
        const a = rows.first_slice[hovered], b = rows.last_slice[hovered];
        ctx.strokeStyle = "#000000";
        ctx.lineWidth = 2;
        const x0 = xOf(Math.max(a, w[0]), w), x1 = xOf(Math.min(b, w[1]) + 1, w);
        ctx.strokeRect(x0, yOf(rows.row_first[hovered]), x1 - x0, yOf(rows.row_last[hovered] + 1) - yOf(rows.row_first[hovered]));
      }
      if (brush) {
        ctx.fillStyle = "rgba(60,60,200,0.15)";
        ctx.fillRect(Math.min(brush[0], brush[1]), L.y0, Math.abs(brush[1] - brush[0]), L.h);
      }
    }
  }

  function tipLines(i) {
    const info = model.get("hover_info") || {};
    const lines = [`${hierarchyPath(rows.row_first[i], rows.row_last[i])}, slices ${rows.first_slice[i]}-${rows.last_slice[i]}`,
      `divergence ${fmt(rows.divergence[i], 3)} bit, score ${fmt(rows.score[i], 3)} bit-cells`];
    if (info.row === i) {
      const o = (model.get("view") || {}).origin || 0;
      lines.push(`${seconds(info.start - o)} to ${seconds(info.end - o)}, outlier ${fmt(info.outlier_score, 3)}`);
      for (const run of info.runs) {
        const parts = Object.entries(run.props).map(([s, v]) => `${s} ${fmt(v, 3)} (${run.deltas[s] >= 0 ? "+" : ""}${fmt(run.deltas[s], 2)})`);
        lines.push(`${run.run}: ${parts.join(", ")}`);
      }
    }
    return lines;
  }

  function hover(i, at) {
    if (i !== hovered) {
      hovered = i;
      root.dataset.hovered = String(i);
      overlayAll();
      if (i >= 0) {
        model.set("hovered", i);
        model.save_changes();
      }
    }
    if (i < 0) { tip.hide(); return; }
    if (at) tip.show(at[0], at[1], tipLines(i));
    else tip.update(tipLines(i));
  }

  for (const p of panel) {
    let start = null;
    p.overlay.style.cursor = "crosshair";
    p.overlay.addEventListener("pointerdown", (e) => { start = pointer(e, p.overlay)[0]; brush = null; });
    p.overlay.addEventListener("pointermove", (e) => {
      const [x, y] = pointer(e, p.overlay);
      if (start !== null && Math.abs(x - start) > 3) {
        brush = [start, x];
        tip.hide();
        overlayAll();
        return;
      }
      const rootBox = root.getBoundingClientRect(), box = p.overlay.getBoundingClientRect();
      hover(pick.pick(x, y), [x + box.left - rootBox.left, y + box.top - rootBox.top]);
    });
    p.overlay.addEventListener("pointerup", (e) => {
      const x = pointer(e, p.overlay)[0];
      if (start !== null && Math.abs(x - start) > 3) {
        const w = window0 || [0, slices - 1];
        const toSlice = (px) => w[0] + Math.floor(((Math.max(L.x0, Math.min(L.x0 + L.w - 1e-6, px)) - L.x0) / L.w) * (w[1] - w[0] + 1));
        const a = toSlice(Math.min(start, x)), b = toSlice(Math.max(start, x));
        window0 = [a, Math.max(a, b)];
        brush = null;
        const since = Date.now();
        model.set("window", window0);
        model.save_changes();
        draw(since);
      }
      start = null;
    });
    p.overlay.addEventListener("pointerleave", () => { if (start === null) hover(-1, null); });
    p.overlay.addEventListener("dblclick", () => { window0 = null; draw(Date.now()); });
  }
  reset.onclick = () => {
    window0 = null;
    model.set("window", [0, slices - 1]);
    model.save_changes();
    draw(Date.now());
  };

  // The window Python holds (the page sets it when it zooms; zoom()).
  const syncWindow = () => {
    const n = (model.get("view") || {}).slices || 1;
    const w = model.get("window");
    window0 = w && w.length === 2 && w[1] >= w[0] && !(w[0] === 0 && w[1] === n - 1) ? [w[0], w[1]] : null;
  };
  const onData = () => {
    syncWindow();
    hovered = -1;
    tip.hide();
    draw();
  };
  const onHover = () => { if (hovered >= 0) hover(hovered, null); };
  model.on("change:_sent_at", onData);
  model.on("change:hover_info", onHover);
  syncWindow();
  const stopWidth = onWidthChange(el, () => draw());
  draw();
  return () => {
    stopWidth();
    levelCtl.dispose();
    asking.dispose();
    model.off("change:_sent_at", onData);
    model.off("change:hover_info", onHover);
  };
}

export default { render };
