// The topology explorer: Viva's view of a platform on a canvas. Nodes are
// squares (hosts), diamonds (links) or circles, sized by capacity and
// filled from the bottom by utilization over the window; aggregates
// (collapsed groups) are outlined thicker.
//
// Interaction: clicking an aggregate expands its group, clicking a
// resource collapses the group it belongs to (Python recomputes the view
// and the Go force layout continues from the current positions). The
// drawing then moves smoothly from the old positions to the new layout:
// nodes that appear start where the node they came from was (an expanded
// group's nodes at its aggregate, a collapsed group's aggregate at the
// centroid of its members). The time slider moves the window; play steps
// it through the run, fills and sizes animating between windows. A node
// can be dragged: a force simulation (d3-force) lets its neighbours follow
// and pulls every other node back to its place.
import { forceSimulation, forceLink, forceManyBody, forceX, forceY } from "d3-force";
import { readTable, hiDPI, explorer, element, fmt, pointer, frameDrawn } from "./_shared.js";

const KIND_COLOURS = { HOST: [31, 100, 180], LINK: [230, 110, 0], ROUTER: [80, 150, 70] };
const OTHER = [[152, 78, 163], [255, 127, 0], [200, 180, 40], [166, 86, 40], [247, 129, 191]];
const MOVE_MS = 700;   // an expand or collapse
const FILL_MS = 350;   // a change of window
const MARGIN = 12;

// kindColour is the colour of a kind of node: the figure's, as Python
// sends it (the "kind_colours" trait: one set of colours), else a default.
function kindColour(kind, rank, given) {
  const c = given && given[kind];
  if (c) return [parseInt(c.slice(1, 3), 16), parseInt(c.slice(3, 5), 16), parseInt(c.slice(5, 7), 16)];
  return KIND_COLOURS[String(kind).toUpperCase()] || OTHER[rank % OTHER.length];
}

const ease = (t) => (t < 0.5 ? 4 * t * t * t : 1 - Math.pow(-2 * t + 2, 3) / 2);

function render({ model, el: host }) {
  const play = element("button", { title: "step the window through the run" }, ["\u25b6 play"]);
  const startIn = element("input", { type: "range", min: "0", max: "1000", step: "1", style: { width: "260px", verticalAlign: "middle" } });
  const widthIn = element("input", { type: "range", min: "1", max: "1000", step: "1", style: { width: "120px", verticalAlign: "middle" } });
  const wlabel = element("span", { class: "macroscope-window", style: { marginLeft: "6px", fontFamily: "monospace" } });
  const expandAll = element("button", {}, ["expand all"]);
  const { root, canvas, legend, error, tip } = explorer(host, "topology", [
    play, element("span", {}, ["window start"]), startIn, element("span", {}, ["width"]), widthIn, wlabel, expandAll,
  ], { gap: "6px", cursor: "pointer" });

  let nodes = [];        // {path, name, kind, ..., x, y (drawn), tx, ty (target), fill, size}
  let links = [];        // {source, target (node objects), count}
  let byPath = new Map();
  let kinds = [];
  let version = -1;
  let W = 0, H = 0, maxNode = 20;
  let anim = null;       // the running transition
  let sim = null;        // the drag simulation
  let dragging = null, dragMoved = false;
  let hover = null;
  let playing = null;
  let reportNext = false; // report the first frame after new data

  function size() {
    W = Math.max(320, Math.min(root.clientWidth || host.clientWidth || 900, 1400));
    H = model.get("height");
  }

  // Screen positions of the Go layout: fit in the canvas, one scale on
  // both axes, y up as in the static figure.
  function targets(cols) {
    const n = cols.length;
    let minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity;
    for (let i = 0; i < n; i++) {
      const x = cols.x[i], y = cols.y[i];
      if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
      minX = Math.min(minX, x); maxX = Math.max(maxX, x);
      minY = Math.min(minY, y); maxY = Math.max(maxY, y);
    }
    maxNode = Math.max(6, Math.min(28, 0.9 * Math.sqrt((W * H) / Math.max(n, 1))));
    const pad = MARGIN + maxNode / 2;
    const w = W - 2 * pad, h = H - 2 * pad;
    let scale = Math.min(w / Math.max(maxX - minX, 1e-9), h / Math.max(maxY - minY, 1e-9));
    if (!(maxX > minX) && !(maxY > minY)) scale = 0;
    const ox = pad + (w - scale * (maxX - minX)) / 2, oy = pad + (h - scale * (maxY - minY)) / 2;
    const at = (i) => [ox + scale * ((Number.isFinite(cols.x[i]) ? cols.x[i] : minX) - minX),
      H - (oy + scale * ((Number.isFinite(cols.y[i]) ? cols.y[i] : minY) - minY))];
    return { at, transform: { scale, ox, oy, minX, minY, H } };
  }

  const sideOf = (n) => (Number.isFinite(n.size) ? Math.max(n.size * maxNode, 5) : 5);
  const fillOf = (n) => (Number.isFinite(n.ratio) ? Math.min(Math.max(n.ratio, 0), 1) : NaN);

  // Where a node that was not shown before starts: at the node it came out
  // of (the aggregate of its group) or, for a new aggregate, at the
  // centroid of the nodes it replaces.
  function origin(n, old) {
    if (n.aggregated) {
      const prefix = n.group + "/";
      let sx = 0, sy = 0, k = 0;
      for (const o of old.values()) {
        if (o.path.startsWith(prefix) || (o.aggregated && o.group.startsWith(prefix))) {
          if (o.kind === n.kind || k === 0) { sx += o.x; sy += o.y; k++; }
        }
      }
      if (k) return [sx / k, sy / k];
    }
    let best = null, bestLen = -1;
    for (const o of old.values()) {
      if (!o.aggregated) continue;
      const prefix = o.group + "/";
      if ((n.path.startsWith(prefix) || (n.aggregated && n.group.startsWith(prefix))) &&
          (o.group.length > bestLen || (o.group.length === bestLen && o.kind === n.kind))) {
        best = o; bestLen = o.group.length;
      }
    }
    return best ? [best.x, best.y] : null;
  }

  function load() {
    const cols = readTable(model.get("nodes"));
    const ecols = readTable(model.get("edges"));
    if (!cols) return;
    size();
    const graphChanged = model.get("version") !== version;
    version = model.get("version");
    const { at, transform } = targets(cols);
    const old = byPath;
    kinds = [];
    const next = [];
    for (let i = 0; i < cols.length; i++) {
      const path = cols.path.get(i);
      const kind = cols.kind.get(i);
      if (!kinds.includes(kind)) kinds.push(kind);
      const [tx, ty] = at(i);
      const prev = old.get(path);
      const n = prev || { path };
      if (graphChanged) n.pinned = false; // a new layout places every node
      Object.assign(n, {
        name: cols.name.get(i), kind, group: cols.group.get(i) ?? "", aggregated: !!cols.aggregated[i],
        members: cols.members[i], capacity: cols.capacity[i], usage: cols.usage[i], ratio: cols.ratio[i],
        size: cols.size[i], shape: cols.shape.get(i), tx, ty, row: i,
      });
      if (prev) {
        n.x0 = prev.x; n.y0 = prev.y;
        n.fill0 = n.fill ?? fillOf(n); n.side0 = n.side ?? sideOf(n);
      } else {
        const o = origin(n, old);
        [n.x0, n.y0] = o || [tx, ty];
        n.x = n.x0; n.y = n.y0;
        n.fill0 = 0; n.side0 = o ? 2 : sideOf(n);
      }
      n.fill1 = fillOf(n); n.side1 = sideOf(n);
      next.push(n);
    }
    nodes = next;
    byPath = new Map(nodes.map((n) => [n.path, n]));
    links = [];
    if (ecols) {
      for (let e = 0; e < ecols.length; e++) {
        links.push({ source: nodes[ecols.source[e]], target: nodes[ecols.target[e]], count: ecols.count[e] });
      }
    }
    root.__macroscope = { transform, maxNode };
    root.dataset.plot = `0,0,${W},${H}`;
    reportNext = true;
    if (sim) { sim.stop(); sim = null; }
    start(graphChanged && old.size ? MOVE_MS : FILL_MS, !graphChanged || !old.size);
    controls();
  }

  // Run a transition of ms milliseconds from (x0, y0, fill0, side0) to the
  // targets; keep positions (a change of window) if still.
  function start(ms, still) {
    const t0 = performance.now();
    if (still) for (const n of nodes) { if (n.x === undefined) { n.x = n.tx; n.y = n.ty; } n.x0 = n.x; n.y0 = n.y; n.tx = n.pinned ? n.x : n.tx; n.ty = n.pinned ? n.y : n.ty; }
    root.dataset.settled = "0";
    anim = { t0, ms, still };
    requestAnimationFrame(frame);
  }

  function frame(now) {
    if (!anim) return;
    const t = Math.min(1, (now - anim.t0) / anim.ms);
    const k = ease(t);
    for (const n of nodes) {
      if (!anim.still) {
        n.x = n.x0 + (n.tx - n.x0) * k;
        n.y = n.y0 + (n.ty - n.y0) * k;
      } else {
        n.x = n.tx; n.y = n.ty;
      }
      n.fill = Number.isNaN(n.fill1) ? NaN : (Number.isNaN(n.fill0) ? 0 : n.fill0) + (n.fill1 - (Number.isNaN(n.fill0) ? 0 : n.fill0)) * k;
      n.side = n.side0 + (n.side1 - n.side0) * k;
    }
    draw();
    if (reportNext) { reportNext = false; frameDrawn(model, root, { count: nodes.length }); }
    if (t < 1) requestAnimationFrame(frame);
    else { anim = null; settled(); }
  }

  // The transition is over: the nodes are at the layout's positions. (The
  // frame report, and its latency, was made at the transition's first frame.)
  function settled() {
    draw();
    requestAnimationFrame(() => Object.assign(root.dataset, { count: nodes.length, settled: 1, version }));
  }

  function outline(shape, x, y, s) {
    const p = new Path2D();
    if (shape === "square") p.rect(x - s / 2, y - s / 2, s, s);
    else if (shape === "diamond") {
      const r = (s / 2) * Math.SQRT2;
      p.moveTo(x, y - r); p.lineTo(x + r, y); p.lineTo(x, y + r); p.lineTo(x - r, y); p.closePath();
    } else p.arc(x, y, s / Math.sqrt(Math.PI), 0, 2 * Math.PI);
    return p;
  }

  function halfHeight(shape, s) {
    if (shape === "square") return s / 2;
    if (shape === "diamond") return (s / 2) * Math.SQRT2;
    return s / Math.sqrt(Math.PI);
  }

  function draw() {
    const t0 = performance.now();
    const ctx = hiDPI(canvas, W, H);
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, 0, W, H);
    ctx.strokeStyle = "rgba(120,120,120,0.6)";
    for (const l of links) {
      ctx.lineWidth = Math.min(1 + Math.log2(Math.max(l.count, 1)) * 0.5, 4);
      ctx.beginPath();
      ctx.moveTo(l.source.x, l.source.y);
      ctx.lineTo(l.target.x, l.target.y);
      ctx.stroke();
    }
    const drawn = [];
    for (const n of nodes) {
      const s = n.side ?? sideOf(n);
      const [r, g, b] = kindColour(n.kind, kinds.indexOf(n.kind), model.get("kind_colours"));
      const path = outline(n.shape, n.x, n.y, s);
      ctx.fillStyle = "#fff";
      ctx.fill(path);
      const f = n.fill;
      if (Number.isNaN(f)) {
        ctx.fillStyle = `rgba(${r},${g},${b},0.25)`;
        ctx.fill(path);
      } else if (f > 0 && n.shape === "square") {
        ctx.fillStyle = `rgb(${r},${g},${b})`;
        ctx.fillRect(n.x - s / 2, n.y + s / 2 - f * s, s, f * s);
      } else if (f > 0) {
        // Fill from the bottom: clip to the shape, paint the lower part.
        const hh = halfHeight(n.shape, s);
        ctx.save();
        ctx.clip(path);
        ctx.fillStyle = `rgb(${r},${g},${b})`;
        ctx.fillRect(n.x - hh - 1, n.y + hh - f * 2 * hh, 2 * hh + 2, f * 2 * hh + 1);
        ctx.restore();
      }
      ctx.strokeStyle = `rgb(${r},${g},${b})`;
      ctx.lineWidth = n.aggregated ? 2.5 : 1;
      ctx.stroke(path);
      if (n === hover) {
        ctx.strokeStyle = "#000";
        ctx.lineWidth = 1.5;
        ctx.stroke(outline(n.shape, n.x, n.y, s + 6));
      }
      drawn.push({ path: n.path, x: n.x, y: n.y, side: s, aggregated: n.aggregated, kind: n.kind });
    }
    // Names: every aggregate's, and every node's of a small graph when
    // asked; a label that would overprint one already drawn is left out.
    const all = model.get("labels") && nodes.length <= 80;
    ctx.font = "11px sans-serif";
    ctx.fillStyle = "#333";
    ctx.textAlign = "center";
    ctx.textBaseline = "top";
    const boxes = [];
    const order = nodes.filter((n) => n.aggregated || all).sort((a, b) => (b.aggregated - a.aggregated) || (b.side1 - a.side1));
    for (const n of order) {
      const text = n.aggregated ? `${n.group.split("/").pop()} [${n.kind}]` : n.name;
      const w = ctx.measureText(text).width, y = n.y + halfHeight(n.shape, n.side ?? sideOf(n)) + 2;
      const box = [n.x - w / 2 - 1, y, n.x + w / 2 + 1, y + 12];
      if (boxes.some((b) => b[0] < box[2] && box[0] < b[2] && b[1] < box[3] && box[1] < b[3])) continue;
      boxes.push(box);
      ctx.fillText(text, n.x, y);
    }
    Object.assign(root.__macroscope || (root.__macroscope = {}), { nodes: drawn, frameMs: performance.now() - t0 });
  }

  function nodeAt(px, py) {
    let best = null, bestD = Infinity;
    for (const n of nodes) {
      const d = Math.hypot(n.x - px, n.y - py);
      const reach = Math.max(halfHeight(n.shape, n.side ?? sideOf(n)), 4) + 2;
      if (d <= reach && d < bestD) { best = n; bestD = d; }
    }
    return best;
  }

  function describe(n) {
    const [a, b] = model.get("window");
    const lines = [n.aggregated ? `${n.group} [${n.kind}]: ${n.members} resources` : `${n.path} (${n.kind})`];
    lines.push(`capacity ${fmt(n.capacity)}, usage ${fmt(n.usage)}`);
    lines.push(`utilization ${Number.isFinite(n.ratio) ? fmt(100 * n.ratio, 3) + " %" : "n/a"} over ${fmt(a)}-${fmt(b)} s`);
    lines.push(n.aggregated ? "click to expand" : (n.group ? `click to collapse ${n.group}` : "click to collapse the whole graph"));
    return lines;
  }

  // Dragging: the node follows the pointer; a simulation lets the nodes
  // it is linked to follow and pulls the others back to their places.
  function startDrag(n) {
    dragging = n; dragMoved = false;
    if (sim) sim.stop();
    sim = forceSimulation(nodes)
      .force("link", forceLink(links).distance((l) => Math.hypot(l.source.tx - l.target.tx, l.source.ty - l.target.ty)).strength(0.3))
      .force("charge", forceManyBody().strength(-2).distanceMax(60))
      .force("x", forceX((d) => d.tx).strength(0.08))
      .force("y", forceY((d) => d.ty).strength(0.08))
      .alpha(0.6).alphaDecay(0.03)
      .on("tick", draw);
    n.fx = n.x; n.fy = n.y;
  }

  canvas.addEventListener("mousedown", (evt) => {
    const [px, py] = pointer(evt, canvas);
    const n = nodeAt(px, py);
    if (n) startDrag(n);
  });
  window.addEventListener("mousemove", onMove);
  window.addEventListener("mouseup", onUp);
  function onMove(evt) {
    const [px, py] = pointer(evt, canvas);
    if (dragging) {
      if (Math.hypot(px - dragging.x, py - dragging.y) > 3) dragMoved = true;
      if (dragMoved) {
        dragging.fx = px; dragging.fy = py;
        sim.alpha(Math.max(sim.alpha(), 0.3)).restart();
      }
      tip.hide();
      return;
    }
    if (evt.target !== canvas) return;
    const n = nodeAt(px, py);
    if (n !== hover) { hover = n; draw(); }
    if (!n) { tip.hide(); return; }
    const [ox, oy] = pointer(evt, root);
    tip.show(ox, oy, describe(n));
  }
  function onUp() {
    if (!dragging) return;
    const n = dragging;
    dragging = null;
    if (dragMoved) {
      // The dropped node stays where it was put.
      n.tx = n.fx; n.ty = n.fy; n.pinned = true;
      n.fx = null; n.fy = null;
      return;
    }
    n.fx = null; n.fy = null;
    if (sim) { sim.stop(); sim = null; }
    tip.hide();
    if (n.aggregated) model.send({ type: "expand", path: n.group });
    else model.send({ type: "collapse", path: n.group });
  }
  canvas.addEventListener("mouseleave", () => { if (!dragging) { hover = null; tip.hide(); draw(); } });

  // -- the time window ---------------------------------------------------

  // Seconds from the trace's start (one clock), where that start is on
  // the trace's clock said when it is not its zero.
  function windowLabel(s, e) {
    const clock = model.get("clock");
    return `${fmt(s)} - ${fmt(e)} s` + (clock ? ` from the trace's start (${clock} s)` : "");
  }

  function sliderWindow() {
    const [a, b] = model.get("span");
    const len = b - a;
    const width = (Number(widthIn.value) / 1000) * len;
    const start = a + (Number(startIn.value) / 1000) * Math.max(len - width, 0);
    return [start, Math.min(start + width, b)];
  }
  let pending = null;
  function sendWindow() {
    const [s, e] = sliderWindow();
    wlabel.textContent = windowLabel(s, e);
    clearTimeout(pending);
    pending = setTimeout(() => model.send({ type: "window", start: s, end: e }), 60);
  }
  startIn.addEventListener("input", sendWindow);
  widthIn.addEventListener("input", sendWindow);
  play.addEventListener("click", () => {
    if (playing) { clearInterval(playing); playing = null; play.textContent = "\u25b6 play"; return; }
    if (Number(widthIn.value) >= 1000) widthIn.value = "100";
    startIn.value = "0";
    play.textContent = "\u25a0 stop";
    sendWindow();
    playing = setInterval(() => {
      const v = Number(startIn.value) + 50;
      if (v > 1000) { clearInterval(playing); playing = null; play.textContent = "\u25b6 play"; return; }
      startIn.value = String(v);
      sendWindow();
    }, 700);
  });
  expandAll.addEventListener("click", () => model.send({ type: "expand_all" }));

  function controls() {
    const [a, b] = model.get("span");
    const [s, e] = model.get("window");
    const len = b - a;
    if (len > 0 && document.activeElement !== startIn && document.activeElement !== widthIn && !playing) {
      const width = e - s;
      widthIn.value = String(Math.round((1000 * width) / len));
      startIn.value = len > width ? String(Math.round((1000 * (s - a)) / (len - width))) : "0";
    }
    wlabel.textContent = windowLabel(s, e);
    error.textContent = model.get("error");
    const c = model.get("collapsed").length;
    legend.replaceChildren(
      ...kinds.map((k, i) => {
        const [r, g, b2] = kindColour(k, i, model.get("kind_colours"));
        return element("span", { style: { marginRight: "10px" } }, [
          element("span", { style: { display: "inline-block", width: "10px", height: "10px", border: `2px solid rgb(${r},${g},${b2})`, marginRight: "3px" } }), k]);
      }),
      element("span", { class: "macroscope-count", style: { color: "#555" } }, [`${nodes.length} nodes, ${links.length} edges, ${c} group${c === 1 ? "" : "s"} collapsed`]),
    );
  }

  model.on("change:_sent_at", load);
  model.on("change:error", controls);
  const ro = new ResizeObserver(() => { const w0 = W; size(); if (W !== w0 && nodes.length) { version = -2; load(); } });
  ro.observe(root);
  load();
  return () => {
    ro.disconnect();
    window.removeEventListener("mousemove", onMove);
    window.removeEventListener("mouseup", onUp);
    if (sim) sim.stop();
    if (playing) clearInterval(playing);
  };
}

export default { render };
