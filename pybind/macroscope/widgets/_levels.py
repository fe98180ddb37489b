"""The significant levels of an overview, shipped to the browser ahead of
the slider, so that a slider step is redrawn in the page without waiting
for Python.

Neighbouring levels are partitions of the same cells that differ by a few
merges: the 262 levels of a 512 x 20 model hold 2.6 million aggregates in
all but only 10,572 distinct ones. So the browser receives each distinct
aggregate once (its draw columns, see :func:`draw_columns`) under a number
(uid), and each level as the uids it removes from and adds to a level it
already has (its base). Levels are computed and shipped in chunks of about
0.15 s of work, nearest to the level shown first, each chunk asked for by
the browser when the previous one arrived: the kernel answers hovers and
clicks between chunks.

Each aggregate is drawn by the browser at its position in its level sorted
by (node id, first slice); :func:`positions` maps those positions to the
rows of the Aggregation.
"""

from __future__ import annotations

import threading
import time
import weakref

import numpy as np
import pyarrow as pa

from .. import _work
from ._base import ipc

# How long one chunk of prefetching may keep the kernel busy (seconds).
CHUNK_SECONDS = 0.15
# The most aggregates, summed over the levels, sent ahead for one view: the
# page keeps each level as 4 bytes per aggregate (80 MB at most); levels
# beyond go through Python when the slider reaches them.
MAX_ENTRIES = 20_000_000
# Levels whose keys Python keeps as bases for the next deltas: the lowest
# and highest shipped, and this many of the last shipped.
KEEP_RECENT = 8


def alpha(v):
    """Opacity (0..255) of an aggregate whose mode has proportion v: the
    static overview's 30 + 225 min(v, 1), truncated as Go's uint8()."""
    return np.floor(30 + 225 * np.minimum(v, 1.0)).astype(np.uint8)


def narrow_types(nodes: int, slices: int, states: int) -> dict:
    """The draw columns' types: the narrowest that hold the model's node
    ids, slice numbers and state codes (-1: no mode). The browser only
    draws and labels with them; the exact values stay in Python
    (view_table)."""
    return {
        "node_id": pa.uint16() if nodes <= 0xFFFF else pa.int32(),
        "slice": pa.uint16() if slices <= 0xFFFF else pa.int32(),
        "mode": pa.int8() if states < 0x7F else pa.int16(),
    }


def fold(values: np.ndarray, drawn: np.ndarray) -> np.ndarray:
    """The shares of ``values`` (..., states) added by the state each is
    drawn as (``drawn[x]``: its own index, or that of "other"), in the
    order Go's Grouping.Fold adds them, so that the sums are its own."""
    out = np.zeros(values.shape[:-1] + (int(drawn.max()) + 1,), dtype=np.float64)
    for x in range(values.shape[-1]):
        out[..., drawn[x]] += values[..., x]
    return out


def modes(values: np.ndarray, drawn: np.ndarray | None = None):
    """The mode (index of the largest state share, the first on ties; -1
    when the cell has no activity) and its share of each cell of
    ``values`` (cells x states, or rows x slices x states); with
    ``drawn``, among the states as the figures draw them, the smallest
    together as "other" (see :func:`fold`)."""
    if drawn is not None:
        values = fold(values, drawn)
    mode = values.argmax(axis=-1).astype(np.int32)
    prop = values.max(axis=-1)
    mode[prop <= 0] = -1
    return mode, prop


def draw_columns(agg, parts: pa.Table, states: list[str], drawn: np.ndarray | None = None) -> dict:
    """The columns the browser needs to draw and name the aggregates of
    ``agg`` (rows in the Aggregation's order): node id (the browser finds
    its rows in the hierarchy), first and last slice, mode (an index into
    ``states``, -1 for none), the mode's opacity, and, for the tooltip,
    the mode's proportion, gain and loss (float32). With ``drawn`` (the
    index each of the model's states is drawn as; ``states`` then ends
    with "other"), the mode among the states as the overview figure draws
    them, the smallest together (_cells.fold)."""
    tbl = agg.to_arrow()
    if drawn is not None:
        shares = np.column_stack([tbl.column("prop:" + s).to_numpy() for s in states[:len(drawn)]])
        codes, prop = modes(shares, drawn)
        return {
            "node_id": parts.column("node_id").to_numpy(),
            "first_slice": tbl.column("first_slice").to_numpy(),
            "last_slice": tbl.column("last_slice").to_numpy(),
            "mode": codes, "alpha": alpha(prop), "mode_proportion": prop,
            "gain": tbl.column("gain").to_numpy(), "loss": tbl.column("loss").to_numpy(),
        }
    mode = tbl.column("mode").combine_chunks()
    if isinstance(mode.type, pa.DictionaryType):
        codes = np.asarray(mode.indices.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int32)
        index = {s: i for i, s in enumerate(states)}
        remap = np.array([index.get(s, -1) for s in mode.dictionary.to_pylist()] + [-1], dtype=np.int32)
        codes = remap[np.where(codes < 0, len(remap) - 1, codes)]
    else:  # plain strings
        index = {s: i for i, s in enumerate(states)}
        codes = np.array([index.get(s, -1) if s is not None else -1 for s in mode.to_pylist()], dtype=np.int32)
    prop = tbl.column("mode_proportion").to_numpy()
    return {
        "node_id": parts.column("node_id").to_numpy(),
        "first_slice": tbl.column("first_slice").to_numpy(),
        "last_slice": tbl.column("last_slice").to_numpy(),
        "mode": codes,
        "alpha": alpha(prop),
        "mode_proportion": prop,
        "gain": tbl.column("gain").to_numpy(),
        "loss": tbl.column("loss").to_numpy(),
    }


def positions(cols: dict) -> np.ndarray:
    """The browser's order of a level: row ``positions(cols)[j]`` of the
    Aggregation is the rectangle the browser calls j (sorted by node id,
    then first slice, which is unique within a partition)."""
    return np.lexsort((cols["first_slice"], cols["node_id"]))


def compact(cols: dict, types: dict, take=None) -> pa.Table:
    """The draw table of ``cols`` (rows ``take`` of them, in that order)
    in the narrow types."""
    out = {}
    for name, t in (("node_id", types["node_id"]), ("first_slice", types["slice"]), ("last_slice", types["slice"]),
                    ("mode", types["mode"]), ("alpha", pa.uint8()), ("mode_proportion", pa.float32()),
                    ("gain", pa.float32()), ("loss", pa.float32())):
        if name not in cols:
            continue
        v = np.asarray(cols[name])
        out[name] = pa.array(v if take is None else v[take]).cast(t)
    return pa.table(out)


class LevelPack:
    """What the browser holds of one overview's levels (see the module's
    doc), and the chunks that complete it."""

    def __init__(self, model, levels, states: list[str], types: dict, p_of, drawn=None):
        self.model, self.levels, self.states, self.types, self.p_of = model, levels, states, types, p_of
        self.drawn = drawn  # how the model's states are drawn (draw_columns)
        self.uids: dict[int, int] = {}  # aggregate key -> uid
        self.sent: list[int] = []  # levels shipped, in order
        self.sent_set: set[int] = set()
        self.keys: dict[int, np.ndarray] = {}  # some shipped levels -> their aggregates' keys, sorted
        self.entries = 0  # aggregates shipped, summed over the levels
        self.slices = int(model.slices)

    @property
    def done(self) -> bool:
        return len(self.sent) == len(self.levels) or self.entries >= MAX_ENTRIES

    def shipped(self, level: int) -> bool:
        return level in self.sent_set

    def _forget(self) -> None:
        """Keep the keys of a few shipped levels only (bases for the next
        deltas; any shipped level is a valid base, the page holds them all)."""
        keep = {min(self.sent), max(self.sent), *self.sent[-KEEP_RECENT:]}
        for lv in [lv for lv in self.keys if lv not in keep]:
            del self.keys[lv]

    def _key(self, cols) -> np.ndarray:
        s = self.slices
        return (cols["node_id"].astype(np.int64) * s + cols["first_slice"]) * s + cols["last_slice"]

    def chunk(self, center: int, first=None, budget: float = CHUNK_SECONDS):
        """Compute the levels nearest ``center`` that the browser lacks,
        for about ``budget`` seconds (one at least), and return the
        message that ships them: (content, buffers). ``first`` is
        (level, aggregation) already computed, to reuse."""
        todo = sorted((i for i in range(len(self.levels)) if i not in self.sent_set),
                      key=lambda i: (abs(i - center), i))
        t0 = time.perf_counter()
        first_uid = len(self.uids)
        shipped, new_rows, deltas = [], [], []
        for j in todo:
            if (shipped and time.perf_counter() - t0 > budget) or self.entries >= MAX_ENTRIES:
                break
            agg = first[1] if first is not None and first[0] == j else self.model.aggregate(self.p_of(self.levels, j))
            cols = draw_columns(agg, _work.table(agg._h.StartRows), self.states, self.drawn)
            keys = self._key(cols)
            order = np.argsort(keys)
            keys = keys[order]
            base = min(self.keys, key=lambda b: (abs(b - j), b)) if self.keys else -1
            if base < 0:
                added, removed = keys, np.empty(0, np.int64)
            else:
                added = np.setdiff1d(keys, self.keys[base], assume_unique=True)
                removed = np.setdiff1d(self.keys[base], keys, assume_unique=True)
            fresh = [k for k in added.tolist() if k not in self.uids]
            if fresh:
                at = np.searchsorted(keys, np.array(fresh, np.int64))
                for k in fresh:
                    self.uids[k] = len(self.uids)
                new_rows.append(compact(cols, self.types, take=order[at]))
            uid = self.uids
            deltas.append(np.array([uid[k] for k in removed.tolist()] + [uid[k] for k in added.tolist()], np.int32))
            shipped.append({"level": j, "base": base, "removed": len(removed), "added": len(added)})
            self.keys[j] = keys
            self.sent.append(j)
            self.sent_set.add(j)
            self.entries += len(keys)
            self._forget()
        rows = pa.concat_tables(new_rows) if new_rows else None
        content = {"kind": "levels", "levels": shipped, "first_uid": first_uid, "slices": self.slices,
                   "rows": rows.num_rows if rows is not None else 0, "done": self.done}
        return content, [ipc(rows), np.concatenate(deltas).tobytes() if deltas else b""]


class _SweepStopped(Exception):
    """The sweep of a closed explorer's levels, stopped."""


class BackgroundSweep:
    """The significant levels of a large model or comparison, swept on a
    thread after the explorer's first frame (shown at the recommended level
    alone): ``search(progress)`` returns the levels, ``done(levels)`` takes
    them. :meth:`stop` cancels the Go search between its steps (a large
    sweep takes minutes of the kernel's cores); :meth:`wait` joins it."""

    def __init__(self, search, done, name: str):
        self._stop = threading.Event()
        self.error = None

        def stopped(_done, _total):
            if self._stop.is_set():
                raise _SweepStopped  # the Go search is canceled, keeping nothing

        def sweep():
            try:
                levels = search(stopped)
            except _SweepStopped:
                return
            except BaseException as e:  # reported by wait
                self.error = e
                return
            try:
                done(levels)
            except BaseException as e:  # the levels never shown: reported by wait too
                self.error = e

        self._thread = threading.Thread(target=sweep, name=name, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def wait(self, timeout: float | None = None) -> bool:
        """True once the levels are in (or the sweep stopped), False if
        ``timeout`` seconds passed first; raises what stopped the sweep."""
        self._thread.join(timeout)
        if self._thread.is_alive():
            return False
        if self.error is not None:
            raise self.error
        return True


class LevelsOnDemand:
    """The sweep of a large model's or comparison's significant levels,
    run when first asked (:meth:`ask`: the page's slider or quality curves
    grabbed, or ``wait_levels`` from Python), not when the explorer opens:
    the sweep of 10,000 resources takes minutes of the kernel's cores,
    which a user who never moves the slider should not pay. :meth:`stop`
    cancels it, or keeps it from starting (the widget closed, or
    collected: see :meth:`watch`)."""

    def __init__(self, search, done, name: str):
        self._search, self._done, self._name = search, done, name
        self._lock = threading.Lock()
        self._sweep = None
        self._stopped = False

    @property
    def asked(self) -> bool:
        return self._sweep is not None

    def ask(self) -> None:
        """Start the sweep on a thread, once (not after :meth:`stop`)."""
        with self._lock:
            if self._sweep is None and not self._stopped:
                self._sweep = BackgroundSweep(self._search, self._done, self._name)

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            if self._sweep is not None:
                self._sweep.stop()

    def watch(self, widget) -> None:
        """Stop when ``widget`` is garbage-collected. The sweep holds the
        widget weakly (its ``done`` must too), so that an explorer nobody
        holds any more does not keep its kernel's cores busy."""
        weakref.finalize(widget, self.stop)

    def wait(self, timeout: float | None = None) -> bool:
        """Ask for the levels, and wait for them: True once they are in (or
        the sweep is stopped), False if ``timeout`` seconds passed first;
        raises what stopped the sweep."""
        self.ask()
        sweep = self._sweep
        return True if sweep is None else sweep.wait(timeout)
