// The kaleidoscope explorer: Tick and Park's radial call tree on a canvas.
// Each family (a node and its children) is a polygon cut into one part per
// child, painted in the child's colour in the current view (PE, procedure
// or start time); consecutive parts of one colour are filled as one. The
// wheel zooms about the pointer, dragging pans, hovering names the node
// (procedure, PE, start time), double-clicking centres the view on its
// subtree (the layout is recomputed by Python), the buttons switch views.
// The view is scaled so that its outermost node lies at the canvas's edge
// (the layout's own window leaves a ring empty when the levels do not
// divide it), and the largest nodes (by Tick and Park's weight, the
// layout's: a node's height plus its children's weights) are named:
// their PE in the PE view, their procedure otherwise, written as the
// static figure writes names (plots.KaleidoscopeLabel, sent in the
// legend's "short"), as many as fit without overlapping.
import { readTable, hiDPI, explorer, element, fmt, pointer, rgbCss, swatches, frameDrawn, fitWidth } from "./_shared.js";

const NAMES = { pe: "PE", procedure: "procedure", time: "start time" };
const MARGIN = 6;       // pixels between the outermost node and the canvas's edge
const MAX_NAMES = 32;   // names drawn at most
const NAME_FONT = "11px sans-serif";

function render({ model, el: host }) {
  const viewBar = element("span", { class: "macroscope-views" });
  const reset = element("button", { title: "zoom and pan back" }, ["reset zoom"]);
  const whole = element("button", { title: "back to the whole tree" }, ["whole tree"]);
  const status = element("span", { style: { marginLeft: "8px", color: "#555" } });
  const { root, canvas, legend, error, tip } = explorer(host, "kaleidoscope",
    [element("span", {}, ["colour by"]), viewBar, reset, whole, status], { gap: "6px", cursor: "grab" });

  let data = null;
  let families = [];     // [parentRow, [childRows...]] for drawn, uncondensed parents
  let visible = [];      // rows drawn (kept and drawn)
  let zoom = { k: 1, x: 0, y: 0 }; // screen = centre + k * fit * (x, -y) + (zoom.x, zoom.y)
  let S = 600;
  let maxRadius = 0;     // of the drawn nodes, in layout pixels
  let byWeight = [];     // drawn rows, the largest first: the candidates for a name
  let fit = 1;           // canvas pixels per layout pixel at zoom 1
  let short = null;      // by view, each PE's or procedure's short name (from the legend)
  let hoverRow = -1;
  let panning = null;

  const screen = (i) => [S / 2 + zoom.k * fit * data.x[i] + zoom.x, S / 2 - zoom.k * fit * data.y[i] + zoom.y];

  function load() {
    data = readTable(model.get("table"));
    hoverRow = -1;
    tip.hide(); // it named a node of the previous view
    families = [];
    visible = [];
    if (data) {
      const kids = new Map();
      for (let i = 0; i < data.length; i++) {
        const shownNode = (data.kept ? data.kept[i] : true) && data.drawn[i];
        if (!shownNode) continue;
        visible.push(i);
        const p = data.row_parent[i];
        if (p < 0) continue;
        if (!kids.has(p)) kids.set(p, []);
        kids.get(p).push(i);
      }
      for (const [p, cs] of kids) {
        if (data.drawn[p] && !data.collapsed[p]) families.push([p, cs]);
      }
      families.sort((a, b) => a[0] - b[0]); // inner families first (preorder)
      maxRadius = 0;
      for (const i of visible) maxRadius = Math.max(maxRadius, Math.hypot(data.x[i], data.y[i]));
      // The deepest leaves (weight 1) are all alike: named only in a small
      // view. The centre is named (under its disc) even then: in a subtree
      // view it says whose subtree it is.
      const named = data.weight ? visible.filter((i) => i === 0 || visible.length <= MAX_NAMES || data.weight[i] > 1) : [];
      byWeight = named.sort((a, b) => data.weight[b] - data.weight[a] || a - b).slice(0, 1000);
    }
    controls();
    draw();
  }

  function colours() {
    const v = model.get("view");
    return data[`rgb_${v}`] || new Uint32Array(data.length).fill(0x999999);
  }

  function draw() {
    const t0 = performance.now();
    S = Math.max(300, fitWidth(root.clientWidth ? root : host, model.get("width")));
    const ctx = hiDPI(canvas, S, S);
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, 0, S, S);
    if (!data || data.length === 0) return;
    const rgb = colours();
    // The outermost node at the canvas's edge, less a margin.
    fit = maxRadius > 0 ? (S / 2 - MARGIN) / maxRadius : S / model.get("width");
    const mid = (a, b) => [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
    // The parts of all families gathered into one path per colour (they
    // tile the picture without overlapping, all turning the same way), so
    // that a frame costs one fill and one stroke per colour.
    const paths = new Map();
    const pathOf = (c) => { let p = paths.get(c); if (!p) { p = new Path2D(); paths.set(c, p); } return p; };
    const lines = new Map();
    for (const [p, cs] of families) {
      const P = screen(p);
      const pts = cs.map(screen);
      if (cs.length === 1) {
        let l = lines.get(rgb[cs[0]]);
        if (!l) { l = new Path2D(); lines.set(rgb[cs[0]], l); }
        l.moveTo(P[0], P[1]); l.lineTo(pts[0][0], pts[0][1]);
        continue;
      }
      let first = 0;
      while (first < cs.length) {
        let last = first;
        while (last + 1 < cs.length && rgb[cs[last + 1]] === rgb[cs[first]]) last++;
        const path = pathOf(rgb[cs[first]]);
        path.moveTo(P[0], P[1]);
        if (first > 0) { const m = mid(pts[first - 1], pts[first]); path.lineTo(m[0], m[1]); }
        for (let j = first; j <= last; j++) path.lineTo(pts[j][0], pts[j][1]);
        if (last < cs.length - 1) { const m = mid(pts[last], pts[last + 1]); path.lineTo(m[0], m[1]); }
        path.closePath();
        first = last + 1;
      }
    }
    ctx.lineWidth = 1;
    for (const [c, path] of paths) {
      ctx.fillStyle = ctx.strokeStyle = rgbCss(c);
      ctx.fill(path);
      ctx.stroke(path); // closes the hairline seams between parts
    }
    for (const [c, path] of lines) {
      ctx.strokeStyle = rgbCss(c);
      ctx.stroke(path);
    }
    // The root, centre of every view, a disc in its own colour.
    const c = screen(0);
    ctx.fillStyle = rgbCss(rgb[0]);
    const disc = Math.max(3, Math.min(8, 3 * zoom.k * fit));
    ctx.beginPath(); ctx.arc(c[0], c[1], disc, 0, 2 * Math.PI); ctx.fill();
    const names = drawNames(ctx, c, disc);
    if (hoverRow >= 0) {
      const [hx, hy] = screen(hoverRow);
      ctx.strokeStyle = "#000"; ctx.lineWidth = 2;
      ctx.beginPath(); ctx.arc(hx, hy, 5, 0, 2 * Math.PI); ctx.stroke();
    }
    const transform = { cx: S / 2 + zoom.x, cy: S / 2 + zoom.y, k: zoom.k * fit };
    root.__macroscope = { transform, families: families.length, names, frameMs: performance.now() - t0 };
    root.dataset.plot = `0,0,${S},${S}`;
    frameDrawn(model, root, { count: visible.length, view: model.get("view"), names: names.length,
      centre: `${transform.cx},${transform.cy},${transform.k}` });
  }

  // The short name of each PE or procedure (the legend's "short", as the
  // static figure's legend writes them), by view; read again when the
  // legend changes.
  function shortNames() {
    const out = {};
    for (const view of ["pe", "procedure"]) {
      const lg = (model.get("legend") || {})[view];
      out[view] = new Map();
      if (lg && lg.short) lg.labels.forEach((label, j) => out[view].set(label, lg.short[j]));
    }
    return out;
  }

  // The name written on node i: its PE in the PE view, its procedure in
  // the others (the other one when it lacks it), "" when it has neither.
  function nameOf(i) {
    const order = model.get("view") === "pe" ? ["pe", "procedure"] : ["procedure", "pe"];
    for (const col of order) {
      const v = data[col] ? data[col].get(i) : null;
      if (v !== null && v !== undefined && v !== "") return short[col].get(v) ?? v;
    }
    return "";
  }

  // drawNames writes the names of the largest nodes on screen, centred on
  // each node (the centre's under its disc) and kept inside the canvas,
  // the largest first, each name
  // once (at its largest node: a rank's calls share its PE), skipping a
  // name that would overlap one written or the root's disc; white-edged
  // to read on any colour. Returns what it wrote, for tests.
  function drawNames(ctx, centre, disc) {
    if (!short) short = shortNames();
    const boxes = [[centre[0] - disc, centre[1] - disc, centre[0] + disc, centre[1] + disc]];
    const out = [];
    ctx.font = NAME_FONT;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    ctx.lineJoin = "round";
    const h = 13;
    const written = new Set();
    for (const i of byWeight) {
      if (out.length >= MAX_NAMES) break;
      const text = nameOf(i);
      if (!text || written.has(text)) continue;
      const [x, y0] = screen(i);
      const y = i === 0 ? y0 + disc + h / 2 + 1 : y0;
      if (x < 0 || x > S || y < 0 || y > S) continue;
      const w = ctx.measureText(text).width + 4;
      const bx = Math.min(Math.max(x, w / 2), S - w / 2), by = Math.min(Math.max(y, h / 2), S - h / 2);
      const box = [bx - w / 2, by - h / 2, bx + w / 2, by + h / 2];
      if (boxes.some((b) => box[0] < b[2] && b[0] < box[2] && box[1] < b[3] && b[1] < box[3])) continue;
      boxes.push(box);
      written.add(text);
      ctx.strokeStyle = "rgba(255,255,255,0.85)"; ctx.lineWidth = 3;
      ctx.strokeText(text, bx, by);
      ctx.fillStyle = "#000";
      ctx.fillText(text, bx, by);
      out.push({ row: i, id: data.id.get(i), text, x: bx, y: by, w, h });
    }
    return out;
  }

  function nodeAt(px, py) {
    let best = -1, bestD = 8;
    for (const i of visible) {
      const [x, y] = screen(i);
      const d = Math.hypot(x - px, y - py);
      if (d < bestD) { best = i; bestD = d; }
    }
    return best;
  }

  function describe(i) {
    const lines = [`node ${data.id.get(i)}`];
    if (data.procedure) lines.push(`procedure: ${data.procedure.get(i) ?? "none"}`);
    if (data.pe) lines.push(`PE: ${data.pe.get(i) ?? "none"}`);
    if (data.start) lines.push(`start: ${fmt(data.start[i], 6)} s from the trace's start`);
    if (data.level) { const lv = data.level.get ? data.level.get(i) : data.level[i]; if (lv !== null) lines.push(`level ${lv}`); }
    if (data.collapsed[i]) lines.push("drawn without its descendants");
    lines.push("double-click to centre on its subtree");
    return lines;
  }

  canvas.addEventListener("wheel", (evt) => {
    evt.preventDefault();
    const [px, py] = pointer(evt, canvas);
    const f = Math.exp(-evt.deltaY * 0.0015);
    const k = Math.min(Math.max(zoom.k * f, 0.2), 200);
    const g = k / zoom.k;
    // Keep the point under the pointer where it is.
    zoom.x = (px - S / 2) - g * (px - S / 2 - zoom.x);
    zoom.y = (py - S / 2) - g * (py - S / 2 - zoom.y);
    zoom.k = k;
    draw();
  }, { passive: false });
  canvas.addEventListener("mousedown", (evt) => {
    const [px, py] = pointer(evt, canvas);
    panning = { px, py, x: zoom.x, y: zoom.y };
    canvas.style.cursor = "grabbing";
  });
  function onMove(evt) {
    if (!data) return;
    const [px, py] = pointer(evt, canvas);
    if (panning) {
      zoom.x = panning.x + px - panning.px;
      zoom.y = panning.y + py - panning.py;
      tip.hide();
      draw();
      return;
    }
    if (evt.target !== canvas) return;
    const i = nodeAt(px, py);
    if (i !== hoverRow) { hoverRow = i; draw(); }
    if (i < 0) { tip.hide(); return; }
    const [ox, oy] = pointer(evt, root);
    tip.show(ox, oy, describe(i));
  }
  function onUp() { panning = null; canvas.style.cursor = "grab"; }
  window.addEventListener("mousemove", onMove);
  window.addEventListener("mouseup", onUp);
  canvas.addEventListener("mouseleave", () => { hoverRow = -1; tip.hide(); draw(); });
  canvas.addEventListener("dblclick", (evt) => {
    const [px, py] = pointer(evt, canvas);
    const i = nodeAt(px, py);
    if (i > 0) { zoom = { k: 1, x: 0, y: 0 }; model.send({ type: "centre", id: data.id.get(i) }); }
  });
  reset.addEventListener("click", () => { zoom = { k: 1, x: 0, y: 0 }; draw(); });
  whole.addEventListener("click", () => { zoom = { k: 1, x: 0, y: 0 }; model.send({ type: "centre", id: "" }); });

  function controls() {
    const views = model.get("views");
    const v = model.get("view");
    viewBar.replaceChildren(...views.map((name) => {
      const b = element("button", { "data-view": name, style: { fontWeight: name === v ? "bold" : "normal" } }, [NAMES[name] || name]);
      b.addEventListener("click", () => { model.set("view", name); model.save_changes(); });
      return b;
    }));
    whole.disabled = !model.get("root");
    status.textContent = data ? `${visible.length} nodes drawn` + (model.get("root") ? `, centred on ${model.get("root")}` : "") : "";
    error.textContent = model.get("error");
    const lg = (model.get("legend") || {})[v];
    if (!lg) { legend.replaceChildren(); return; }
    if (v === "time") {
      const grad = `linear-gradient(to right, ${lg.colours.join(",")})`;
      legend.replaceChildren(element("span", {}, [`${fmt(lg.start, 6)} s `]),
        element("span", { style: { display: "inline-block", width: "200px", height: "10px", background: grad, verticalAlign: "middle" } }),
        element("span", {}, [` ${fmt(lg.end, 6)} s`]),
        // Start times count from the trace's start (one clock), said once.
        element("span", {}, [model.get("clock") ? ` from the trace's start (${model.get("clock")} s on its clock)` : ""]));
      return;
    }
    // Names as the static figure's legend writes them.
    legend.replaceChildren(...swatches(lg.labels.map((label, i) => [(lg.short || lg.labels)[i], lg.colours[i]]), 16));
  }

  model.on("change:_sent_at", load);
  model.on("change:view", () => { controls(); draw(); });
  model.on("change:error", controls);
  model.on("change:legend", () => { short = null; controls(); draw(); });
  const ro = new ResizeObserver(() => draw());
  ro.observe(root);
  load();
  return () => {
    ro.disconnect();
    window.removeEventListener("mousemove", onMove);
    window.removeEventListener("mouseup", onUp);
  };
}

export default { render };
