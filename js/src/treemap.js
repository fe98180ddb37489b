// The treemap explorer: the squarified treemap of an aggregation on a
// canvas. The slider moves p over the model's significant levels, clicking
// a group zooms into it ("up" and the path above go back), hovering names
// a rectangle and gives its values. Rectangles arrive in the unit square
// (y up) from Aggregation.treemap; aggregates are split into a strip per
// state in proportion to its share (or filled with their mode).
import { readTable, hiDPI, explorer, element, fmt, pointer, frameDrawn, Raster, pixel, rgb, levelSlider, swatches } from "./_shared.js";

function render({ model, el: host }) {
  const up = element("button", { title: "zoom out one level" }, ["\u2191 up"]);
  const crumb = element("span", { class: "macroscope-crumb", style: { margin: "0 10px", fontFamily: "monospace" } });
  const slider = element("input", { type: "range", min: "0", step: "1", style: { width: "220px", verticalAlign: "middle" } });
  const plabel = element("span", { class: "macroscope-p", style: { marginLeft: "6px" } });
  const share = element("input", { type: "checkbox", checked: "" });
  const { root, canvas, legend, error, tip } = explorer(host, "treemap", [
    up, crumb, element("span", {}, ["p"]), slider, plabel,
    element("label", { style: { marginLeft: "12px" } }, [share, " split by state share"]),
  ], { gap: "4px", cursor: "pointer" });
  host.dataset.lmSuppressShortcuts = "true"; // keys on the slider move the slider

  let data = null;       // columns of the current table
  let hoverRow = -1;

  const states = () => model.get("states");
  const palette = () => model.get("palette");
  const colourOf = (i) => palette()[i % palette().length];

  function size() {
    const w = Math.max(320, Math.min(root.clientWidth || host.clientWidth || 900, 1400));
    return [w, model.get("height")];
  }

  // Rectangles in css pixels (x, y from the top left), kept for hit tests.
  let geo = null;

  function draw() {
    const [W, H] = size();
    const ctx = hiDPI(canvas, W, H);
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, 0, W, H);
    if (!data) return;
    const n = data.length;
    const { x, y, w, h, group, aggregated, depth } = data;
    geo = { x: new Float64Array(n), y: new Float64Array(n), w: new Float64Array(n), h: new Float64Array(n) };
    for (let i = 0; i < n; i++) {
      geo.x[i] = x[i] * W; geo.y[i] = (1 - y[i] - h[i]) * H; geo.w[i] = w[i] * W; geo.h[i] = h[i] * H;
    }
    const names = states();
    const props = names.map((s) => data[`prop:${s}`]);
    const split = share.checked;
    // The aggregates are painted into pixels and put on the canvas as one
    // image (see Raster in _shared.js): a frame of 100,000 rectangles costs
    // one write per covered pixel, not a long rasterisation of paths.
    const raster = new Raster(ctx, 0, 0, W, H);
    const solid = names.map((_, s) => pixel(...rgb(colourOf(s))));
    const NONE = pixel(0xee, 0xee, 0xee), WHITE = pixel(255, 255, 255);
    for (let i = 0; i < n; i++) {
      if (!aggregated[i]) continue;
      const rx = geo.x[i], ry = geo.y[i], rw = geo.w[i], rh = geo.h[i];
      if (split) {
        // Strips along the longer side, states in order, the time in no
        // state last.
        let at = 0;
        const horizontal = rw >= rh;
        for (let s = 0; s < names.length; s++) {
          const f = props[s] ? props[s][i] : 0;
          if (!(f > 0)) continue;
          if (horizontal) raster.rect(rx + at * rw, ry, rx + (at + f) * rw, ry + rh, solid[s]);
          else raster.rect(rx, ry + at * rh, rx + rw, ry + (at + f) * rh, solid[s]);
          at += f;
        }
        if (at < 0.999) {
          if (horizontal) raster.rect(rx + at * rw, ry, rx + rw, ry + rh, NONE);
          else raster.rect(rx, ry + at * rh, rx + rw, ry + rh, NONE);
        }
      } else {
        // The mode's colour, more opaque as the mode dominates, on white.
        const m = names.indexOf(data.mode.get(i));
        if (m < 0) raster.rect(rx, ry, rx + rw, ry + rh, NONE);
        else {
          const a = 0.25 + 0.75 * data.mode_proportion[i];
          const [r, g, b] = rgb(colourOf(m)).map((v) => Math.round(255 - a * (255 - v)));
          raster.rect(rx, ry, rx + rw, ry + rh, pixel(r, g, b));
        }
      }
      if (rw > 3 && rh > 3) raster.outline(rx, ry, rx + rw, ry + rh, WHITE);
    }
    raster.put();
    // Group frames above the aggregates, outer ones thicker; group and
    // aggregate names where they fit.
    const top = n ? depth[0] : 0;
    ctx.textBaseline = "top";
    ctx.font = "11px sans-serif";
    for (let i = 1; i < n; i++) {
      const rx = geo.x[i], ry = geo.y[i], rw = geo.w[i], rh = geo.h[i];
      if (aggregated[i] && rw > 60 && rh > 34) {
        const label = data.name.get(i);
        const tw = ctx.measureText(label).width;
        if (tw + 8 < rw) {
          ctx.fillStyle = "rgba(255,255,255,0.8)";
          ctx.fillRect(rx + 2, ry + rh - 18, tw + 4, 14);
          ctx.fillStyle = "#111";
          ctx.fillText(label, rx + 4, ry + rh - 17);
        }
      }
      if (!group[i] || rw < 2 || rh < 2) continue;
      ctx.strokeStyle = "#222";
      ctx.lineWidth = Math.max(1, 3 - (depth[i] - top - 1));
      ctx.strokeRect(rx + 0.5, ry + 0.5, rw - 1, rh - 1);
      if (rw > 40 && rh > 16) {
        const label = data.name.get(i);
        const tw = ctx.measureText(label).width;
        if (tw + 6 < rw) {
          ctx.fillStyle = "rgba(255,255,255,0.8)";
          ctx.fillRect(rx + 2, ry + 2, tw + 4, 14);
          ctx.fillStyle = "#111";
          ctx.fillText(label, rx + 4, ry + 3);
        }
      }
    }
    if (hoverRow >= 0 && hoverRow < n) {
      ctx.strokeStyle = "#000";
      ctx.lineWidth = 2;
      ctx.strokeRect(geo.x[hoverRow] + 1, geo.y[hoverRow] + 1, geo.w[hoverRow] - 2, geo.h[hoverRow] - 2);
    }
    root.dataset.plot = `0,0,${W},${H}`;
    frameDrawn(model, root, { count: n, root: model.get("root"), level: model.get("level"),
      source: pageSince ? "page" : "kernel" }, pageSince);
    pageSince = 0;
  }

  // The deepest rectangle under (px, py): rectangles are in preorder, so
  // the last one that holds the point.
  function hit(px, py) {
    if (!geo) return -1;
    for (let k = data.length - 1; k >= 0; k--) {
      if (px >= geo.x[k] && px < geo.x[k] + geo.w[k] && py >= geo.y[k] && py < geo.y[k] + geo.h[k]) return k;
    }
    return -1;
  }

  function describe(i) {
    const names = states();
    const lines = [data.node.get(i) || "(root)"];
    lines.push(`${data.aggregated[i] ? "aggregate" : "group"} of ${data.leaves[i]} resource${data.leaves[i] === 1 ? "" : "s"}`);
    lines.push(`${model.get("value")}: ${fmt(data.value[i])}`);
    if (data.mode.get(i)) lines.push(`mode ${data.mode.get(i)} (${fmt(100 * data.mode_proportion[i], 3)} %)`);
    const ps = names.map((s, k) => [s, data[`prop:${s}`] ? data[`prop:${s}`][i] : 0]).filter(([, f]) => f > 0)
      .sort((a, b) => b[1] - a[1]).slice(0, 6);
    for (const [s, f] of ps) lines.push(`  ${s}: ${fmt(100 * f, 3)} %`);
    if (data.group[i] && i > 0) lines.push("click to zoom in");
    return lines;
  }

  canvas.addEventListener("mousemove", (evt) => {
    if (!data) return;
    const [px, py] = pointer(evt, canvas);
    const k = hit(px, py);
    if (k !== hoverRow) { hoverRow = k; draw(); }
    if (k < 0) { tip.hide(); return; }
    const [ox, oy] = pointer(evt, root);
    tip.show(ox, oy, describe(k));
  });
  canvas.addEventListener("mouseleave", () => { hoverRow = -1; tip.hide(); draw(); });
  canvas.addEventListener("click", (evt) => {
    if (!data) return;
    const [px, py] = pointer(evt, canvas);
    let k = hit(px, py);
    // Zoom one level at a time: the child of the top that holds the point.
    while (k > 0 && data.parent[k] > 0) k = data.parent[k];
    if (k > 0 && data.group[k]) {
      tip.hide();
      model.send({ type: "zoom", path: data.node.get(k) });
    }
  });
  up.addEventListener("click", () => model.send({ type: "up" }));
  // The slider and its keys move the level by whole levels.
  const levelInput = levelSlider(slider, model);
  share.addEventListener("change", draw);

  function controls() {
    const levels = model.get("levels");
    const level = model.get("level");
    slider.max = String(Math.max(0, levels.length - 1));
    slider.value = String(level);
    const lv = levels[level];
    plabel.textContent = lv ? `${fmt(lv.p, 3)} (${lv.aggregates} aggregates${lv.recommended ? ", recommended" : ""})` : "";
    const r = model.get("root");
    crumb.textContent = r ? r : "(whole hierarchy)";
    up.disabled = !r;
    error.textContent = model.get("error");
    // The states present in the view, most present first.
    const present = states().map((s, i) => {
      const col = data ? data[`prop:${s}`] : null;
      let t = 0;
      if (col) for (let r = 0; r < data.length; r++) if (data.aggregated[r]) t += col[r] * data.value[r];
      return [i, t];
    }).filter(([, t]) => t > 0).sort((a, b) => b[1] - a[1]);
    const entries = present.map(([i]) => [states()[i], colourOf(i)]);
    // The time in no state (the white of the strips), named as the
    // figures name it, after the states.
    const busy = present.reduce((sum, [, t]) => sum + t, 0);
    let all = 0;
    if (data) for (let r = 0; r < data.length; r++) if (data.aggregated[r]) all += data.value[r];
    if (present.length > 0 && all - busy > 1e-3 * all) entries.push(["no state", "#ffffff"]);
    legend.replaceChildren(...swatches(entries, 12));
  }

  // The tables the page holds: the ones drawn and the neighbouring levels
  // Python sent ahead, by level, root and value (the last few).
  const held = new Map();
  const keyOf = () => `${model.get("level")}|${model.get("root")}|${model.get("value")}`;
  function hold(key, bytes) {
    held.delete(key);
    held.set(key, bytes);
    while (held.size > 24) held.delete(held.keys().next().value);
  }
  let shown = "";
  let pageSince = 0; // when the page drew from a table it held: the change's time

  function show(bytes, key, since) {
    data = readTable(bytes);
    shown = key;
    hoverRow = -1;
    tip.hide(); // it named a rectangle of the previous view
    controls();
    pageSince = since || 0;
    draw();
    model.send({ type: "prefetch" });
  }

  function load() {
    hold(keyOf(), model.get("table"));
    show(model.get("table"), keyOf(), 0);
  }

  // onLevel: a slider step (from the page or Python) to a level whose table
  // the page holds is drawn at once.
  function onLevel() {
    const key = keyOf();
    if (held.has(key) && key !== shown) show(held.get(key), key, Date.now());
    else controls();
  }
  model.on("msg:custom", (msg, buffers) => {
    if (!msg || msg.kind !== "table") return;
    const key = `${msg.level}|${msg.root}|${msg.value}`;
    hold(key, buffers[0]);
    if (key === keyOf() && key !== shown) show(buffers[0], key, Date.now());
  });
  model.send({ type: "reset" });

  model.on("change:_sent_at", load);
  model.on("change:level", onLevel);
  model.on("change:error", controls);
  model.on("change:height", draw);
  const ro = new ResizeObserver(() => draw());
  ro.observe(root);
  load();
  return () => {
    ro.disconnect();
    levelInput.dispose();
  };
}

export default { render };
