// Helpers shared by the treemap, topology and kaleidoscope explorers: the
// Arrow tables they receive, a high-DPI canvas, a tooltip, and the hook
// through which browser tests read what was drawn.
import { tableFromIPC } from "apache-arrow";

// Columns of an Arrow IPC stream (a DataView or ArrayBuffer from the
// widget model): numbers without nulls as their typed arrays and booleans
// as a Uint8Array (both without copying or per-value calls, so that a
// table of 100,000 rows decodes in milliseconds); other columns (strings,
// dictionaries, numbers with nulls) as their Arrow vectors, read one value
// at a time with .get(i) where needed (a tooltip, a label). Empty input
// gives null.
export function readTable(bytes) {
  if (!bytes || bytes.byteLength === 0) return null;
  const buf = bytes instanceof DataView
    ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    : new Uint8Array(bytes);
  const table = tableFromIPC(buf);
  const cols = { length: table.numRows, names: [] };
  for (const field of table.schema.fields) {
    const vec = table.getChild(field.name);
    cols.names.push(field.name);
    const t = field.type.toString();
    if (/^(Float|Int|Uint)/.test(t) && vec.nullCount === 0) cols[field.name] = vec.toArray();
    else if (t === "Bool") cols[field.name] = bools(vec);
    else cols[field.name] = vec;
  }
  return cols;
}

// The values of a boolean vector as 0 and 1 (null as 0), from its bitmaps.
function bools(vec) {
  const out = new Uint8Array(vec.length);
  let k = 0;
  for (const d of vec.data) {
    const bits = d.values, valid = d.nullBitmap, off = d.offset;
    for (let i = 0; i < d.length; i++, k++) {
      const j = off + i;
      out[k] = (bits[j >> 3] >> (j & 7)) & 1 & (valid && valid.length ? (valid[j >> 3] >> (j & 7)) & 1 : 1);
    }
  }
  return out;
}

// A canvas of css size w x h drawn at the device's pixel ratio; returns
// its 2D context scaled so that drawing is in css pixels.
export function sizeCanvas(canvas, w, h) {
  const dpr = window.devicePixelRatio || 1;
  canvas.style.width = `${w}px`;
  canvas.style.height = `${h}px`;
  if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
  }
  const ctx = canvas.getContext("2d");
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  return ctx;
}

export function rgbCss(packed, alpha = 1) {
  const r = (packed >> 16) & 255, g = (packed >> 8) & 255, b = packed & 255;
  return alpha >= 1 ? `rgb(${r},${g},${b})` : `rgba(${r},${g},${b},${alpha})`;
}

// A tooltip that follows the pointer inside host (position: relative).
export function makeTooltip(host) {
  const tip = document.createElement("div");
  tip.className = "macroscope-tooltip";
  Object.assign(tip.style, {
    position: "absolute", pointerEvents: "none", display: "none", zIndex: 10,
    background: "rgba(255,255,255,0.96)", border: "1px solid #888", borderRadius: "3px",
    padding: "4px 6px", font: "12px sans-serif", color: "#111", whiteSpace: "pre", maxWidth: "420px",
  });
  host.appendChild(tip);
  return {
    el: tip,
    show(text, x, y) {
      tip.textContent = text;
      tip.style.display = "block";
      const w = host.clientWidth;
      const left = x + 14 + tip.offsetWidth > w ? Math.max(0, x - 14 - tip.offsetWidth) : x + 14;
      tip.style.left = `${left}px`;
      tip.style.top = `${y + 14}px`;
    },
    hide() { tip.style.display = "none"; },
  };
}

// A small control bar of buttons, a slider and a label.
export function el(tag, attrs = {}, children = []) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "style") Object.assign(e.style, v);
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

export function fmt(x, digits = 4) {
  if (x === null || x === undefined || Number.isNaN(x)) return "n/a";
  if (typeof x !== "number") return String(x);
  if (x !== 0 && (Math.abs(x) >= 1e6 || Math.abs(x) < 1e-3)) return x.toExponential(digits - 1);
  return String(Number(x.toPrecision(digits)));
}

// The pointer's position in css pixels relative to the element.
export function pointer(evt, elem) {
  const r = elem.getBoundingClientRect();
  return [evt.clientX - r.left, evt.clientY - r.top];
}
