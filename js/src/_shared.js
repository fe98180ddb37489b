// What the views of macroscope's widgets share: decoding the Arrow tables
// Python sends, canvases sharp on HiDPI screens, pixels and colours, DOM
// elements and a tooltip, pixel hit-testing, numbers and times written for
// a person, the level slider's keys, and the report of each frame drawn
// (which the tests and the redraw benchmark read).
import { tableFromIPC } from "apache-arrow";
import { roundTicks } from "./_ticks.js";

// --- Arrow tables --------------------------------------------------------

// decode decodes an Arrow IPC stream (a binary trait's DataView, a buffer
// of a custom message, any ArrayBuffer or view of one), or returns null
// when it is empty. A stream is decoded once: redraws that do not change
// it reuse the table.
const decoded = new WeakMap();
export function decode(v) {
  if (!v || v.byteLength === 0) return null;
  if (decoded.has(v)) return decoded.get(v);
  const bytes = v instanceof Uint8Array ? v
    : ArrayBuffer.isView(v) ? new Uint8Array(v.buffer, v.byteOffset, v.byteLength)
    : new Uint8Array(v);
  const t = tableFromIPC(bytes);
  decoded.set(v, t);
  return t;
}

// table decodes the Arrow table held by a binary trait, or returns null
// when the trait is empty.
export function table(model, name) {
  return decode(model.get(name));
}

// column returns the values of a numeric column as its typed array (no
// copy when the table has one batch; 64-bit integers become doubles), or
// null when the column is absent.
export function column(tbl, name) {
  const c = tbl.getChild(name);
  if (!c) return null;
  const a = c.toArray();
  // 64-bit integers arrive as BigInts, which do not mix with numbers.
  return a instanceof BigInt64Array || a instanceof BigUint64Array ? Float64Array.from(a, Number) : a;
}

// readTable gives every column of an Arrow IPC stream by name: numbers
// without nulls as their typed arrays and booleans as a Uint8Array (both
// without copying or per-value calls, so that a table of 100,000 rows
// decodes in milliseconds); other columns (strings, dictionaries, numbers
// with nulls) as their Arrow vectors, read one value at a time with
// .get(i) where needed (a tooltip, a label). It also gives length (the
// rows) and names (the columns, in order). Empty input gives null.
export function readTable(bytes) {
  const tbl = decode(bytes);
  if (!tbl) return null;
  const cols = { length: tbl.numRows, names: [] };
  for (const field of tbl.schema.fields) {
    const vec = tbl.getChild(field.name);
    cols.names.push(field.name);
    const t = field.type.toString();
    if (/^(Float|Int|Uint)/.test(t) && vec.nullCount === 0) cols[field.name] = vec.toArray();
    else if (t === "Bool") cols[field.name] = bools(vec);
    else cols[field.name] = vec;
  }
  return cols;
}

// bools gives the values of a boolean vector as 0 and 1 (null as 0), read
// from its bitmaps.
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

// --- Canvases and colours -------------------------------------------------

// fitWidth is the width a widget draws at: the width asked for, or the
// notebook's output area when that is narrower (JupyterLab with its side
// panel open, Notebook 7, VS Code), so that no panel is cut. el is the
// widget's root element, a block as wide as the output area (0 before it
// is attached: then the width asked for).
export function fitWidth(el, asked) {
  const avail = Math.floor(el.clientWidth || 0);
  return avail > 0 ? Math.min(asked, avail) : asked;
}

// onWidthChange calls f when el's width changes (the side panel opened or
// closed, the window resized); it returns the function that stops it.
export function onWidthChange(el, f) {
  let width = el.clientWidth;
  const ro = new ResizeObserver(() => {
    if (el.clientWidth !== width) {
      width = el.clientWidth;
      f();
    }
  });
  ro.observe(el);
  return () => ro.disconnect();
}

// hiDPI sizes a canvas to cssWidth x cssHeight CSS pixels backed by as
// many device pixels as the screen has, clears it, and returns its 2D
// context scaled so that drawing code works in CSS pixels. A canvas
// already of that size keeps its backing store (reallocating it costs the
// next frame dearly).
export function hiDPI(canvas, cssWidth, cssHeight) {
  const dpr = window.devicePixelRatio || 1;
  const w = Math.round(cssWidth * dpr), h = Math.round(cssHeight * dpr);
  if (canvas.width !== w || canvas.height !== h || canvas.style.width !== cssWidth + "px") {
    canvas.style.width = cssWidth + "px";
    canvas.style.height = cssHeight + "px";
    canvas.width = w;
    canvas.height = h;
  }
  const ctx = canvas.getContext("2d");
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, cssWidth, cssHeight);
  return ctx;
}

// Raster paints opaque axis-aligned rectangles straight into the pixels
// of a region of a canvas, then puts them there at once: a frame of
// 100,000 rectangles costs one write per covered pixel and one image,
// where as many path rectangles cost the canvas a long rasterisation
// before the next frame. Coordinates are CSS pixels of the canvas; edges
// are rounded to device pixels (a rectangle keeps one pixel at least).
export class Raster {
  constructor(ctx, x, y, w, h) {
    this.ctx = ctx;
    this.dpr = window.devicePixelRatio || 1;
    this.x = Math.round(x * this.dpr);
    this.y = Math.round(y * this.dpr);
    this.w = Math.max(1, Math.round(w * this.dpr));
    this.h = Math.max(1, Math.round(h * this.dpr));
    this.image = ctx.createImageData(this.w, this.h);
    this.px = new Uint32Array(this.image.data.buffer);
    this.px.fill(0xffffffff);
  }
  // rect fills [x0, x1) x [y0, y1) with the colour rgba (a 32-bit pixel,
  // see pixel()); edge, when given, is the colour of its top row and left
  // column.
  rect(x0, y0, x1, y1, rgba, edge) {
    const d = this.dpr, W = this.w, H = this.h;
    let xa = Math.round(x0 * d) - this.x, xb = Math.round(x1 * d) - this.x;
    let ya = Math.round(y0 * d) - this.y, yb = Math.round(y1 * d) - this.y;
    if (xb <= xa) xb = xa + 1;
    if (yb <= ya) yb = ya + 1;
    xa = Math.max(0, xa); ya = Math.max(0, ya);
    xb = Math.min(W, xb); yb = Math.min(H, yb);
    if (xa >= xb || ya >= yb) return;
    const px = this.px;
    for (let y = ya; y < yb; y++) px.fill(rgba, y * W + xa, y * W + xb);
    if (edge !== undefined) {
      px.fill(edge, ya * W + xa, ya * W + xb);
      for (let y = ya; y < yb; y++) px[y * W + xa] = edge;
    }
  }
  // outline gives the border pixels of [x0, x1) x [y0, y1) the colour rgba.
  outline(x0, y0, x1, y1, rgba) {
    const d = this.dpr, W = this.w, H = this.h;
    const xa = Math.max(0, Math.round(x0 * d) - this.x), xb = Math.min(W, Math.round(x1 * d) - this.x);
    const ya = Math.max(0, Math.round(y0 * d) - this.y), yb = Math.min(H, Math.round(y1 * d) - this.y);
    if (xa >= xb || ya >= yb) return;
    const px = this.px;
    px.fill(rgba, ya * W + xa, ya * W + xb);
    px.fill(rgba, (yb - 1) * W + xa, (yb - 1) * W + xb);
    for (let y = ya; y < yb; y++) {
      px[y * W + xa] = rgba;
      px[y * W + xb - 1] = rgba;
    }
  }
  // put draws the pixels onto the canvas.
  put() {
    this.ctx.putImageData(this.image, this.x, this.y);
  }
}

// pixel packs r, g, b (0..255) into an opaque pixel of an ImageData's
// Uint32Array (little-endian: ABGR).
export function pixel(r, g, b) {
  return ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0;
}

// rgb parses "#rrggbb" into [r, g, b].
export function rgb(hex) {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

// rgbCss writes a colour packed as 0xrrggbb (the colour columns of the
// kaleidoscope's table) as a CSS colour, at opacity alpha.
export function rgbCss(packed, alpha = 1) {
  const r = (packed >> 16) & 255, g = (packed >> 8) & 255, b = packed & 255;
  return alpha >= 1 ? `rgb(${r},${g},${b})` : `rgba(${r},${g},${b},${alpha})`;
}

// Palette: the colour of each category (state) as Python chose it (the
// "palette" trait: one "#rrggbb" per state, in the order of the "states"
// trait), so that widgets and static figures agree.
export class Palette {
  constructor(colors) {
    this.colors = colors || [];
    this.rgbs = this.colors.map(rgb);
  }
  color(i) {
    return i >= 0 && i < this.colors.length ? this.colors[i] : "#999999";
  }
  // faded is the opaque colour of category i laid at opacity alpha
  // (0..255) on white: what the static overview draws.
  faded(i, alpha) {
    const [r, g, b] = this.fadedRGB(i, alpha);
    return `rgb(${r},${g},${b})`;
  }
  fadedRGB(i, alpha) {
    const c = i >= 0 && i < this.rgbs.length ? this.rgbs[i] : [153, 153, 153];
    const f = (v) => Math.round(255 - (alpha * (255 - v)) / 255);
    return [f(c[0]), f(c[1]), f(c[2])];
  }
}

// PickBuffer answers "which item is under this pixel?": an id per CSS
// pixel, painted with the same shapes as the picture. Painting costs one
// write per covered pixel, so it is done lazily, at the first pick after
// the picture changed, and never delays a frame.
export class PickBuffer {
  constructor() {
    this.width = 0;
    this.height = 0;
    this.ids = new Int32Array(0);
    this.paint = null; // () => void, set by invalidate
  }
  // invalidate forgets the ids; paint(buffer) will fill them when needed.
  invalidate(width, height, paint) {
    this.width = Math.max(0, Math.round(width));
    this.height = Math.max(0, Math.round(height));
    this.paint = paint;
    this.ready = false;
  }
  // rect gives the pixels of [x0, x1) x [y0, y1) to id. Edges are rounded
  // to whole pixels the way the canvas centres them.
  rect(x0, y0, x1, y1, id) {
    const w = this.width;
    const xa = Math.max(0, Math.round(x0)), xb = Math.min(w, Math.max(Math.round(x1), Math.round(x0) + 1));
    const ya = Math.max(0, Math.round(y0)), yb = Math.min(this.height, Math.max(Math.round(y1), Math.round(y0) + 1));
    for (let y = ya; y < yb; y++) this.ids.fill(id, y * w + xa, y * w + xb);
  }
  // circle gives the pixels of a disc to id.
  circle(cx, cy, r, id) {
    const y0 = Math.max(0, Math.floor(cy - r)), y1 = Math.min(this.height - 1, Math.ceil(cy + r));
    for (let y = y0; y <= y1; y++) {
      const dy = y + 0.5 - cy;
      const half = Math.sqrt(Math.max(0, r * r - dy * dy));
      this.rect(cx - half, y, cx + half, y + 1, id);
    }
  }
  // pick returns the id at x, y (CSS pixels), or -1.
  pick(x, y) {
    if (!this.ready) {
      this.ids = new Int32Array(this.width * this.height).fill(-1);
      if (this.paint) this.paint(this);
      this.ready = true;
    }
    x = Math.floor(x);
    y = Math.floor(y);
    if (x < 0 || y < 0 || x >= this.width || y >= this.height) return -1;
    return this.ids[y * this.width + x];
  }
}

// --- Elements -------------------------------------------------------------

// element makes a DOM element: attrs are its attributes ("class", any
// other attribute), "style" (an object of style properties) and "on..."
// (event listeners, e.g. onclick); children are appended (elements or
// text).
export function element(tag, attrs = {}, children = []) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "style") Object.assign(e.style, v);
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

// pointer gives the pointer's position in CSS pixels relative to elem.
export function pointer(evt, elem) {
  const r = elem.getBoundingClientRect();
  return [evt.clientX - r.left, evt.clientY - r.top];
}

// Tooltip: a box that follows the pointer inside a widget's element (its
// parent, positioned): lines of text, the first one bold, each kept on
// one line with its leading spaces. It keeps to the left of the pointer
// where the right of the parent has no room for it.
export class Tooltip {
  constructor(parent) {
    this.parent = parent;
    this.at = [0, 0];
    this.el = element("div", { class: "ms-tooltip", style: {
      position: "absolute", pointerEvents: "none", display: "none", zIndex: 10,
      background: "rgba(255,255,255,0.95)", border: "1px solid #888", borderRadius: "3px",
      padding: "4px 6px", font: "12px sans-serif", color: "#222", whiteSpace: "pre",
      boxShadow: "1px 1px 3px rgba(0,0,0,0.2)",
    } });
    parent.appendChild(this.el);
  }
  // show puts lines (strings) at x, y (CSS pixels relative to the parent).
  show(x, y, lines) {
    this.at = [x, y];
    this.el.replaceChildren(...lines.map((l, i) => element("div", i === 0 ? { style: { fontWeight: "bold" } } : {}, [l])));
    this.el.style.display = "block";
    const w = this.el.offsetWidth;
    const left = x + 12 + w > this.parent.clientWidth ? Math.max(0, x - 12 - w) : x + 12;
    this.el.style.left = left + "px";
    this.el.style.top = y + 12 + "px";
  }
  // update shows other lines where the tooltip was last shown (numbers
  // that arrived after the pointer stopped).
  update(lines) {
    this.show(this.at[0], this.at[1], lines);
  }
  hide() {
    this.el.style.display = "none";
  }
}

// CSS of the overview's and the moment display's classes (anywidget gives
// no stylesheet of a widget's own; installCSS adds this to the page once).
export const css = `
.ms-widget { font: 12px sans-serif; color: #222; position: relative; user-select: none; }
.ms-widget canvas { display: block; }
.ms-bar { display: flex; align-items: center; gap: 8px; margin: 4px 0; white-space: nowrap; overflow: hidden; }
.ms-bar button { font: inherit; padding: 1px 8px; }
.ms-legend { display: flex; flex-wrap: wrap; gap: 4px 12px; margin-top: 4px; }
.ms-swatch { display: inline-block; width: 10px; height: 10px; margin-right: 4px; vertical-align: middle; }
`;

// installCSS adds the shared CSS to the page once.
export function installCSS() {
  if (document.getElementById("ms-widget-css")) return;
  const s = document.createElement("style");
  s.id = "ms-widget-css";
  s.textContent = css;
  document.head.appendChild(s);
}

// layered makes a canvas with a second one stacked on it: the picture
// below, the overlay (the hovered item's outline, a brush) above, so that
// hovering redraws only the overlay. Returns the stack (to put in the
// page) and both canvases.
export function layered() {
  const canvas = element("canvas", { class: "ms-main" });
  const overlay = element("canvas", { class: "ms-overlay", style: { position: "absolute", left: "0", top: "0" } });
  const stack = element("div", { style: { position: "relative" } }, [canvas, overlay]);
  return { stack, canvas, overlay };
}

// explorer lays out the element of an explorer (the treemap, topology
// and kaleidoscope explorers): a bar of controls, the canvas, the legend
// and a line for Python's error, in a root element of class
// "ms-widget macroscope-<name>" appended to host, and a tooltip. gap is
// the space between the controls, cursor the canvas's pointer. Returns
// the root, canvas, legend, error line and tooltip.
export function explorer(host, name, controls, { gap, cursor }) {
  const root = element("div", { class: `ms-widget macroscope-${name}`, style: { position: "relative", font: "13px sans-serif" } });
  const bar = element("div", { style: { marginBottom: "4px", display: "flex", alignItems: "center", flexWrap: "wrap", gap } }, controls);
  const canvas = element("canvas", { class: "ms-main", style: { display: "block", cursor } });
  const legend = element("div", { class: "macroscope-legend", style: { marginTop: "4px", fontSize: "12px" } });
  const error = element("div", { style: { color: "#b00", fontSize: "12px" } });
  root.append(bar, canvas, legend, error);
  host.appendChild(root);
  return { root, canvas, legend, error, tip: new Tooltip(root) };
}

// swatches makes the items of a legend, a colour square before each label,
// the first max of [label, colour] entries and "+n more" for the rest.
export function swatches(entries, max) {
  const items = entries.slice(0, max).map(([label, colour]) => element("span", { style: { marginRight: "10px", whiteSpace: "nowrap" } }, [
    element("span", { style: { display: "inline-block", width: "10px", height: "10px", background: colour, marginRight: "3px",
      boxShadow: "inset 0 0 0 1px #b0b0b0" } }), label]));
  if (entries.length > max) items.push(element("span", {}, [`+${entries.length - max} more`]));
  return items;
}

// --- Numbers and times ----------------------------------------------------

// fmt writes a number with `digits` significant digits (exponent notation
// for the very large and the very small), anything else as text.
export function fmt(x, digits = 4) {
  if (x === null || x === undefined || Number.isNaN(x)) return "n/a";
  if (typeof x !== "number") return String(x);
  if (x !== 0 && (Math.abs(x) >= 1e6 || Math.abs(x) < 1e-3)) return x.toExponential(digits - 1);
  return String(Number(x.toPrecision(digits)));
}

// seconds writes a number of seconds with a unit a person reads.
export function seconds(s) {
  const a = Math.abs(s);
  if (a === 0) return "0 s";
  if (a < 1e-6) return (s * 1e9).toPrecision(4) + " ns";
  if (a < 1e-3) return (s * 1e6).toPrecision(4) + " µs";
  if (a < 1) return (s * 1e3).toPrecision(4) + " ms";
  return s.toPrecision(5) + " s";
}

// timeAxis writes the time axis of t0..t1 under the plot area L ({x0,
// y0, w, h}): seven ticks. Times are seconds from the trace's start, as
// Python sends every time (one clock); clock, the widget's "clock" trait,
// says once where that start is on the trace's clock ("" when the clock
// starts at zero).
export function timeAxis(ctx, L, t0, t1, clock) {
  ctx.fillStyle = "#222222";
  ctx.font = "11px sans-serif";
  ctx.textBaseline = "top";
  // Ticks at round values (1, 2 or 5 times a power of ten), all labelled
  // in one unit, the one that suits their step, as a person reads an axis.
  const { ticks, unit, scale, digits } = roundTicks(t0, t1, Math.max(2, Math.floor(L.w / 90)));
  ctx.textAlign = "center";
  for (const t of ticks) {
    const x = L.x0 + ((t - t0) / (t1 - t0)) * L.w;
    ctx.fillRect(Math.round(x), L.y0 + L.h, 1, 4);
    ctx.fillText((t / scale).toFixed(digits), x, L.y0 + L.h + 5);
  }
  ctx.fillText(clock ? `time from the trace's start (${unit}; ${clock} s on its clock)` : `time (${unit})`,
    L.x0 + L.w / 2, L.y0 + L.h + 19);
}

// --- The level slider -----------------------------------------------------

// levelSlider makes a range slider move the "level" trait by whole levels,
// from the pointer and from the keys (see sliderKeys). Returns set(i),
// which moves it to level i (clamped to the slider's range), and what
// undoes the keys.
export function levelSlider(slider, model) {
  const set = (i) => {
    i = Math.max(0, Math.min(Number(slider.max), i));
    slider.value = String(i);
    if (i === model.get("level")) return;
    model.set("level", i);
    model.save_changes();
  };
  slider.addEventListener("input", () => set(Number(slider.value)));
  return { set, dispose: sliderKeys(slider, set) };
}

// askLevels makes a slider (and the other elements given) ask Python,
// once, for the levels of a view opened at one level (a large model's:
// view.partial) the first time they are grabbed: pressed, focused or
// keyed. The sweep of a large model takes minutes of the kernel's cores;
// a user who never moves the slider does not pay it. onAsk(): the page
// asked (to say so). Returns { note(view), dispose }: note is what the
// bar adds while the view holds one level of many.
export function askLevels(model, elements, onAsk) {
  const asked = new Set(); // the views (uid) whose levels the page asked for
  const key = (view) => String(view.uid === undefined ? "" : view.uid);
  const ask = () => {
    const view = model.get("view") || {};
    if (!view.partial || view.asked || asked.has(key(view)) || view.kind === "detail") return;
    asked.add(key(view));
    model.send({ action: "levels" });
    if (onAsk) onAsk();
  };
  for (const e of elements) for (const t of ["pointerdown", "focus", "keydown"]) e.addEventListener(t, ask);
  return {
    note: (view) => !view.partial ? ""
      : view.asked || asked.has(key(view)) ? " (finding the others...)" : " (others: grab the slider)",
    dispose: () => {
      for (const e of elements) for (const t of ["pointerdown", "focus", "keydown"]) e.removeEventListener(t, ask);
    },
  };
}

// sliderKeys makes the arrow, page, Home and End keys on a range slider
// move it by whole levels through set(i), and returns what undoes it. The
// keys are caught on the window, in the capture phase, before the front
// end sees them: Notebook 7 runs its keyboard shortcuts from a capture
// listener on the document and takes ArrowRight there, JupyterLab moves
// between cells on the arrows.
export function sliderKeys(slider, set) {
  const steps = { ArrowRight: 1, ArrowUp: 1, ArrowLeft: -1, ArrowDown: -1, PageUp: 10, PageDown: -10 };
  const onKey = (e) => {
    if (e.target !== slider) return;
    let i = null;
    if (e.key in steps) i = Number(slider.value) + steps[e.key];
    else if (e.key === "Home") i = 0;
    else if (e.key === "End") i = Number(slider.max);
    if (i === null) return;
    e.preventDefault();
    e.stopPropagation();
    set(i);
  };
  window.addEventListener("keydown", onKey, true);
  return () => window.removeEventListener("keydown", onKey, true);
}

// --- Frames ---------------------------------------------------------------

// frameDrawn reports a frame drawn, after the browser painted it. The
// element's data-frame attribute counts frames and data-latency holds the
// milliseconds from Python setting the data (the "_sent_at" trait, a Unix
// time in ms that Python sets with the data) to the frame, or, for a
// frame the page draws from data it already holds, from ``since`` (the
// Unix time in ms of the change in the page, e.g. a slider step); the
// tests and the redraw benchmark read them. Both ends read the same
// machine's clock. data-wait holds the milliseconds from the end of the
// drawing (this call) to the frame; extra's entries become data-*
// attributes.
export function frameDrawn(model, el, extra, since) {
  const drawn = Date.now();
  requestAnimationFrame(() => {
    const now = Date.now();
    const sent = since || model.get("_sent_at") || 0;
    const n = (+el.dataset.frame || 0) + 1;
    el.dataset.frame = String(n);
    el.dataset.latency = sent ? String(now - sent) : "";
    el.dataset.wait = String(now - drawn);
    if (extra) for (const [k, v] of Object.entries(extra)) el.dataset[k] = String(v);
    el.dispatchEvent(new CustomEvent("ms-frame", { detail: { frame: n, latency: now - sent } }));
  });
}
