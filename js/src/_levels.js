// The significant levels of an overview held in the page, so that a
// slider step is drawn without waiting for the kernel. The kernel ships
// them in chunks:
// the distinct aggregates once each, under a number (uid), in their draw
// columns; each level as the uids it removes from and adds to a level
// already shipped (its base). A level is kept as its uids sorted by (node
// id, first slice): the browser's order of its rectangles, which Python
// maps to the rows of the Aggregation.
import { decode, column } from "./_shared.js";

// Columns of the distinct aggregates, grown as chunks arrive.
const COLUMNS = {
  node: Int32Array, first: Int32Array, last: Int32Array, mode: Int16Array, alpha: Uint8Array,
  prop: Float32Array, gain: Float32Array, loss: Float32Array,
};
const WIRE = {
  node: "node_id", first: "first_slice", last: "last_slice", mode: "mode", alpha: "alpha",
  prop: "mode_proportion", gain: "gain", loss: "loss",
};

// int32s reads a buffer of a custom message (a DataView whose offset need
// not be a multiple of 4) as 32-bit integers.
function int32s(v) {
  if (!v || v.byteLength === 0) return new Int32Array(0);
  return new Int32Array(v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength));
}

export class Levels {
  constructor(slices) {
    this.slices = slices + 1;
    this.size = 0;
    this.cols = {};
    for (const [k, T] of Object.entries(COLUMNS)) this.cols[k] = new T(0);
    this.sets = new Map(); // level -> Int32Array of uids, sorted by (node, first)
    this.done = false;
  }

  has(level) {
    return this.sets.has(level);
  }

  // add merges one chunk (content and buffers of the "levels" message).
  add(content, buffers) {
    const rows = content.rows ? decode(buffers[0]) : null;
    if (rows) {
      const end = content.first_uid + rows.numRows;
      this.grow(end);
      for (const [k, name] of Object.entries(WIRE)) {
        const src = column(rows, name);
        if (src) this.cols[k].set(src, content.first_uid);
      }
      this.size = Math.max(this.size, end);
    }
    const deltas = int32s(buffers[1]);
    let at = 0;
    for (const L of content.levels) {
      const removed = deltas.subarray(at, at + L.removed);
      at += L.removed;
      const added = deltas.subarray(at, at + L.added);
      at += L.added;
      const base = L.base >= 0 ? this.sets.get(L.base) : null;
      this.sets.set(L.level, this.apply(base || new Int32Array(0), removed, added));
    }
    this.done = !!content.done;
  }

  grow(n) {
    const cap = this.cols.node.length;
    if (n <= cap) return;
    const size = Math.max(n, cap * 2);
    for (const [k, T] of Object.entries(COLUMNS)) {
      const a = new T(size);
      a.set(this.cols[k]);
      this.cols[k] = a;
    }
  }

  key(u) {
    return this.cols.node[u] * this.slices + this.cols.first[u];
  }

  // apply returns base without removed, with added, in key order.
  apply(base, removed, added) {
    const gone = new Set(removed);
    const add = Array.from(added).sort((a, b) => this.key(a) - this.key(b));
    const out = new Int32Array(base.length - removed.length + added.length);
    let i = 0, j = 0, o = 0;
    while (i < base.length || j < add.length) {
      if (i < base.length && gone.has(base[i])) { i++; continue; }
      if (j >= add.length || (i < base.length && this.key(base[i]) < this.key(add[j]))) out[o++] = base[i++];
      else out[o++] = add[j++];
    }
    return o === out.length ? out : out.subarray(0, o);
  }

  // columns returns what the overview draws for a level: its rectangles'
  // columns, in the browser's order, rows taken from the hierarchy.
  columns(level, rowsOf) {
    const uids = this.sets.get(level);
    const n = uids.length;
    const out = { n };
    for (const [k, T] of Object.entries(COLUMNS)) {
      const src = this.cols[k], dst = new T(n);
      for (let i = 0; i < n; i++) dst[i] = src[uids[i]];
      out[k] = dst;
    }
    return rowsOf(out);
  }
}
