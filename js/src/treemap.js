// The treemap explorer: the squarified treemap of an aggregation on a
// canvas. The slider moves p over the model's significant levels, clicking
// a group zooms into it ("up" and the path above go back), hovering names
// a rectangle and gives its values. Rectangles arrive in the unit square
// (y up) from Aggregation.treemap; aggregates are split into a strip per
// state in proportion to its share (or filled with their mode).
import { readTable, sizeCanvas, makeTooltip, el, fmt, pointer } from "./_views.js";
import { frameDrawn } from "./_shared.js";

function render({ model, el: host }) {
  const root = el("div", { class: "ms-widget macroscope-treemap", style: { position: "relative", font: "13px sans-serif" } });
  const up = el("button", { title: "zoom out one level" }, ["\u2191 up"]);
  const crumb = el("span", { class: "macroscope-crumb", style: { margin: "0 10px", fontFamily: "monospace" } });
  const slider = el("input", { type: "range", min: "0", step: "1", style: { width: "220px", verticalAlign: "middle" } });
  const plabel = el("span", { class: "macroscope-p", style: { marginLeft: "6px" } });
  const share = el("input", { type: "checkbox", checked: "" });
  const bar = el("div", { style: { marginBottom: "4px", display: "flex", alignItems: "center", flexWrap: "wrap", gap: "4px" } }, [
    up, crumb, el("span", {}, ["p"]), slider, plabel,
    el("label", { style: { marginLeft: "12px" } }, [share, " split by state share"]),
  ]);
  const canvas = el("canvas", { class: "ms-main", style: { display: "block", cursor: "pointer" } });
  const legend = el("div", { class: "macroscope-legend", style: { marginTop: "4px", fontSize: "12px" } });
  const error = el("div", { style: { color: "#b00", fontSize: "12px" } });
  root.append(bar, canvas, legend, error);
  host.appendChild(root);
  const tip = makeTooltip(root);

  let data = null;       // columns of the current table
  let shown = [];        // rectangles drawn, in css pixels, for hit tests and tests
  let hoverRow = -1;

  const states = () => model.get("states");
  const palette = () => model.get("palette");
  const colourOf = (i) => palette()[i % palette().length];

  function size() {
    const w = Math.max(320, Math.min(root.clientWidth || host.clientWidth || 900, 1400));
    return [w, model.get("height")];
  }

  function draw() {
    const t0 = performance.now();
    const [W, H] = size();
    const ctx = sizeCanvas(canvas, W, H);
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, 0, W, H);
    shown = [];
    if (!data) return;
    const n = data.length;
    const { x, y, w, h, group, aggregated, depth } = data;
    const names = states();
    const props = names.map((s) => data[`prop:${s}`]);
    const modeIdx = data.mode.map((m) => names.indexOf(m));
    const X = (i) => x[i] * W, Y = (i) => (1 - y[i] - h[i]) * H;
    const split = share.checked;
    for (let i = 0; i < n; i++) {
      const rx = X(i), ry = Y(i), rw = w[i] * W, rh = h[i] * H;
      shown.push({ row: i, node: data.node[i], x: rx, y: ry, w: rw, h: rh, group: !!group[i], aggregated: !!aggregated[i] });
      if (!aggregated[i]) continue;
      if (split) {
        // Strips along the longer side, states in order.
        let at = 0;
        const horizontal = rw >= rh;
        for (let s = 0; s < names.length; s++) {
          const f = props[s] ? props[s][i] : 0;
          if (!(f > 0)) continue;
          ctx.fillStyle = colourOf(s);
          if (horizontal) ctx.fillRect(rx + at * rw, ry, f * rw + 0.5, rh);
          else ctx.fillRect(rx, ry + at * rh, rw, f * rh + 0.5);
          at += f;
        }
        if (at < 1) { // time in no state
          ctx.fillStyle = "#eee";
          if (horizontal) ctx.fillRect(rx + at * rw, ry, (1 - at) * rw, rh);
          else ctx.fillRect(rx, ry + at * rh, rw, (1 - at) * rh);
        }
      } else if (modeIdx[i] >= 0) {
        ctx.globalAlpha = 0.25 + 0.75 * data.mode_proportion[i];
        ctx.fillStyle = colourOf(modeIdx[i]);
        ctx.fillRect(rx, ry, rw, rh);
        ctx.globalAlpha = 1;
      } else {
        ctx.fillStyle = "#eee";
        ctx.fillRect(rx, ry, rw, rh);
      }
      ctx.strokeStyle = "#fff";
      ctx.lineWidth = 1;
      ctx.strokeRect(rx + 0.5, ry + 0.5, rw - 1, rh - 1);
    }
    // Group frames above the aggregates, outer ones thicker; group and
    // aggregate names where they fit.
    const top = n ? depth[0] : 0;
    ctx.textBaseline = "top";
    ctx.font = "11px sans-serif";
    for (let i = 1; i < n; i++) {
      if (aggregated[i] && w[i] * W > 60 && h[i] * H > 34) {
        const label = data.name[i];
        const tw = ctx.measureText(label).width;
        if (tw + 8 < w[i] * W) {
          ctx.fillStyle = "rgba(255,255,255,0.8)";
          ctx.fillRect(X(i) + 2, Y(i) + h[i] * H - 18, tw + 4, 14);
          ctx.fillStyle = "#111";
          ctx.fillText(label, X(i) + 4, Y(i) + h[i] * H - 17);
        }
      }
      if (!group[i]) continue;
      const rx = X(i), ry = Y(i), rw = w[i] * W, rh = h[i] * H;
      ctx.strokeStyle = "#222";
      ctx.lineWidth = Math.max(1, 3 - (depth[i] - top - 1));
      ctx.strokeRect(rx + 0.5, ry + 0.5, rw - 1, rh - 1);
      const label = data.name[i];
      if (rw > 40 && rh > 16) {
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
      const r = shown[hoverRow];
      ctx.strokeStyle = "#000";
      ctx.lineWidth = 2;
      ctx.strokeRect(r.x + 1, r.y + 1, r.w - 2, r.h - 2);
    }
    root.__macroscope = { rects: shown, frameMs: performance.now() - t0 };
    root.dataset.plot = `0,0,${W},${H}`;
    frameDrawn(model, root, { count: n, root: model.get("root"), level: model.get("level") });
  }

  // The deepest rectangle under (px, py): rectangles are in preorder, so
  // the last one that holds the point.
  function hit(px, py) {
    for (let k = shown.length - 1; k >= 0; k--) {
      const r = shown[k];
      if (px >= r.x && px < r.x + r.w && py >= r.y && py < r.y + r.h) return k;
    }
    return -1;
  }

  function describe(i) {
    const names = states();
    const lines = [data.node[i] || "(root)"];
    lines.push(`${data.aggregated[i] ? "aggregate" : "group"} of ${data.leaves[i]} resource${data.leaves[i] === 1 ? "" : "s"}`);
    lines.push(`${model.get("value")}: ${fmt(data.value[i])}`);
    if (data.mode[i]) lines.push(`mode ${data.mode[i]} (${fmt(100 * data.mode_proportion[i], 3)} %)`);
    const ps = names.map((s, k) => [s, data[`prop:${s}`] ? data[`prop:${s}`][i] : 0]).filter(([, f]) => f > 0)
      .sort((a, b) => b[1] - a[1]).slice(0, 6);
    for (const [s, f] of ps) lines.push(`  ${s}: ${fmt(100 * f, 3)} %`);
    if (data.group[i] && i > 0) lines.push("click to zoom in");
    return lines.join("\n");
  }

  canvas.addEventListener("mousemove", (evt) => {
    if (!data) return;
    const [px, py] = pointer(evt, canvas);
    const k = hit(px, py);
    if (k !== hoverRow) { hoverRow = k; draw(); }
    if (k < 0) { tip.hide(); return; }
    const [ox, oy] = pointer(evt, root);
    tip.show(describe(k), ox, oy);
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
      model.send({ type: "zoom", path: data.node[k] });
    }
  });
  up.addEventListener("click", () => model.send({ type: "up" }));
  slider.addEventListener("input", () => {
    model.set("level", Number(slider.value));
    model.save_changes();
  });
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
    const MAX = 12;
    const items = present.slice(0, MAX).map(([i]) => el("span", { style: { marginRight: "10px", whiteSpace: "nowrap" } }, [
      el("span", { style: { display: "inline-block", width: "10px", height: "10px", background: colourOf(i), marginRight: "3px" } }), states()[i],
    ]));
    if (present.length > MAX) items.push(el("span", {}, [`+${present.length - MAX} more`]));
    legend.replaceChildren(...items);
  }

  function load() {
    data = readTable(model.get("table"));
    hoverRow = -1;
    tip.hide(); // it named a rectangle of the previous view
    controls();
    draw();
  }

  model.on("change:_sent_at", load);
  model.on("change:level", controls);
  model.on("change:error", controls);
  model.on("change:height", draw);
  const ro = new ResizeObserver(() => draw());
  ro.observe(root);
  load();
  return () => ro.disconnect();
}

export default { render };
