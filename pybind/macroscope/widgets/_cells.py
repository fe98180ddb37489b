"""The cells of a model, shipped to the browser ahead of the clicks, so
that a click on an aggregate opens its detail (the cells of its resources
over its time range) in the page without waiting for Python.

A detail view draws each cell in the colour of its mode state at the
opacity of the mode's share: per cell a mode (int8, -1: no activity), an
opacity (uint8) and the share (float32, for the tooltip), 6 bytes a cell
(600 KB for 100,000 cells), sent once per model after the first frame.
The page cuts the detail of any aggregate out of them; Python follows the
click (``widget.selection``, ``view_table()``) and computes the same cells
from the same function, :func:`modes`.
"""

from __future__ import annotations

import numpy as np

from . import _levels

# Models of more cells than this click through Python (the page would hold
# 6 bytes a cell, and the kernel would compute them all at once).
MAX_CELLS = 2_000_000


# The modes of cells, as of aggregates (_levels.modes).
fold, modes = _levels.fold, _levels.modes


def message(model, values: np.ndarray, mid: int, types: dict, view: int, drawn: np.ndarray | None = None):
    """The custom message that ships every cell of ``model`` (``values``:
    its resources x slices x states): (content, buffers), cells row after
    row (resource), slice after slice, as a detail view numbers them."""
    mode, prop = modes(values, drawn)
    mode = mode.ravel()
    prop = prop.ravel()
    wide = types["mode"].bit_width // 8
    content = {"kind": "cells", "model": mid, "view": view, "resources": int(model.resources),
               "slices": int(model.slices), "mode_bytes": wide}
    return content, [mode.astype(np.int8 if wide == 1 else np.int16).tobytes(),
                     _levels.alpha(prop).tobytes(), prop.astype(np.float32).tobytes()]
