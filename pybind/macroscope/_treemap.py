"""Squarified treemaps of aggregations (Lamarche-Perrin et al. 2014; Bruls, Huizing and van Wijk 2000)."""

from __future__ import annotations

import json
import math
import numbers
import os

from . import _bridge, _figure, _work
from ._errors import InvalidArgumentError
from ._figure import Figure
from ._tables import TableResult, incomplete_suffix

_VALUES = ("leaves", "activity")


def _positive(name, x, allow_zero=False):
    if isinstance(x, bool) or not isinstance(x, numbers.Real) or not math.isfinite(x) or x < 0 or (
            x == 0 and not allow_zero):
        what = "a finite non-negative number" if allow_zero else "a finite positive number"
        raise InvalidArgumentError(f"{name}: must be {what}, got {x!r}", param=name)
    return float(x)


def _value(value):
    if value not in _VALUES:
        raise InvalidArgumentError(f"value: must be one of {', '.join(_VALUES)}, got {value!r}", param="value")
    return value


def _root(root):
    if root is not None and not isinstance(root, str):
        raise InvalidArgumentError(f"root: must be a node path (str) as in the aggregates table, got {root!r}",
                                   param="root")
    return root


class Treemap(TableResult):
    """The treemap of an aggregation: one rectangle per aggregate, its area
    proportional to its number of resources (``value="leaves"``) or its
    activity (``value="activity"``: the seconds spent in states), nested
    inside the rectangles of its ancestors and squarified at every level
    (Bruls, Huizing and van Wijk 2000).

    ``to_pandas()`` lists the rectangles in preorder (a group's rectangles
    follow it): node (path), name, depth, parent (row of the enclosing
    rectangle, -1 for the root), aggregated (the node is an aggregate of
    the partition), group (its children are shown inside it), leaves,
    value, x, y (lower-left corner, y up), w, h, mode (the state with the
    largest mean proportion over the window), mode_proportion and
    ``prop:<state>`` for every state. Without padding, every rectangle's
    area is exactly its share of ``width * height``; nodes of value zero
    (resources without any state, by activity) get no rectangle and are
    counted in :attr:`hidden`.

    In Jupyter it shows :meth:`plot`.
    """

    def __init__(self, handle, aggregation, root):
        super().__init__(handle)
        self._agg = aggregation
        self._root = root

    value = property(lambda self: self._info["value"], doc='What areas measure: "leaves" or "activity".')
    width = property(lambda self: self._info["width"], doc="Width of the root's rectangle.")
    height = property(lambda self: self._info["height"], doc="Height of the root's rectangle.")
    hidden = property(lambda self: self._info["hidden"], doc="Nodes without a rectangle (value zero).")
    root = property(lambda self: self._info["root"], doc="Path of the node at the top.")
    aggregates = property(lambda self: self._info["aggregates"], doc="Rectangles that are aggregates.")

    def __len__(self) -> int:
        return self._info["rectangles"]

    def plot(self, path: str | os.PathLike | None = None, width: int = 960, height: int = 720, *,
             proportions: bool = True, zooms: int = 3, format: str | None = None, title: str | None = None,
             colors: dict | None = None) -> Figure:
        """Draw this treemap's figure (see :meth:`Aggregation.plot_treemap`),
        with the same value and root."""
        return plot_treemap(self._agg, path, width, height, value=self.value, root=self._root,
                            proportions=proportions, zooms=zooms, format=format, title=title, colors=colors)

    def _repr_png_(self):
        return self.plot().to_bytes("png")

    def __repr__(self) -> str:
        i = self._info
        return (f"<macroscope.Treemap by {i['value']}: {i['rectangles']} rectangles, {i['aggregates']} aggregates, "
                f"{i['width']:g} x {i['height']:g}" + (f", {i['hidden']} hidden" if i["hidden"] else "") + incomplete_suffix(i) + ">")


def treemap(agg, value="leaves", width=1.0, height=1.0, padding=0.0, header=0.0, root=None) -> Treemap:
    opts = _bridge.options(value=_value(value), width=_positive("width", width), height=_positive("height", height),
                           padding=_positive("padding", padding, True), header=_positive("header", header, True),
                           root=_root(root))
    return Treemap(_work.compute(agg._h.StartTreemap, opts, result="Treemap"), agg, root)


def plot_treemap(agg, path=None, width=960, height=720, *, value="leaves", root=None, proportions=True, zooms=3,
                 format=None, title=None, colors=None) -> Figure:
    if isinstance(zooms, bool) or not isinstance(zooms, numbers.Integral) or zooms < 0:
        raise InvalidArgumentError(f"zooms: must be a non-negative integer, got {zooms!r}", param="zooms")
    w, h = _figure.points(width, height)
    opts = _bridge.options(width=w, height=h, title=title,
                           value=_value(value), root=_root(root), proportions=bool(proportions),
                           zooms=int(zooms) if zooms > 0 else -1, colors=_figure.color_options(colors))
    return _figure.plot(lambda fmt: _work.compute(agg._h.StartPlotTreemap, json.dumps({**json.loads(opts), "format": fmt}),
                                                  result="Image"),
                        path, format, title or "treemap")
