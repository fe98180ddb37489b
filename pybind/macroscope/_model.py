"""The microscopic model and its optimal aggregations."""

from __future__ import annotations

import functools
import math
import os

from . import _bridge
from ._errors import InvalidArgumentError
from ._tables import TableResult

# Figures are sized in pixels at 96 dpi; the Go side works in points.
_POINTS_PER_PIXEL = 72 / 96


class MicroModel(TableResult):
    """The microscopic model of seed 000: resources x time slices x states.

    ``to_pandas()`` gives the long table: resource (path), slice,
    slice_start, slice_end (s), state, duration (s spent in the state
    during the slice) and proportion (of the slice).
    """

    def __init__(self, handle):
        self._h = handle

    def _export(self, address):
        self._h.Table(address)

    @functools.cached_property
    def _info(self) -> dict:
        return _bridge.call_json(self._h.Info)

    @property
    def slices(self) -> int:
        return self._info["slices"]

    @property
    def start(self) -> float:
        return self._info["start"]

    @property
    def end(self) -> float:
        return self._info["end"]

    @property
    def states(self) -> list[str]:
        return list(self._info["states"])

    @property
    def resources(self) -> int:
        return self._info["resources"]

    def aggregate(self, p: float, normalize: bool = True) -> "Aggregation":
        """The optimal spatiotemporal partition for the trade-off ``p`` in
        [0, 1] (seed 000, Algorithm 1, solved exactly): 0 keeps every cell,
        1 merges everything.

        With ``normalize`` (the default) gain and loss are divided by those
        of the single aggregate of the whole model, so that p has the same
        meaning whatever the size of the trace; the whole model becomes one
        aggregate for p a little above 0.5.
        """
        _check_p(p)
        opts = _bridge.options(normalize=bool(normalize))
        return Aggregation(_bridge.call(self._h.Aggregate, float(p), opts))

    def significant_p(self, threshold: float = 1e-3, method: str = "exact", normalize: bool = True,
                      recommend: str = "knee"):
        """DataFrame of the distinct optimal partitions as p goes from 0 to
        1: the range [p_low, p_high] over which each is optimal, its gain,
        loss and number of aggregates, and which one is ``recommended``.

        ``method="exact"`` asks the solver where the lines p*(gain+loss) -
        loss of two known optima cross, so breakpoints are exact; with
        ``threshold=0`` it lists every distinct optimal partition, and with
        ``threshold > 0`` it does not look between optima found less than
        ``threshold`` apart in p (partitions optimal only on such narrow
        ranges are skipped). ``method="dichotomy"`` is Ocelotl's search:
        bisect while the two ends differ and are more than ``threshold``
        apart.

        ``recommend`` picks the level to show first: ``"knee"`` (closest to
        full gain at no loss, on normalised measures) or ``"ocelotl"``
        (after the largest jump of | |dGain| - |dLoss| |).
        """
        opts = _bridge.options(method=method, threshold=float(threshold), normalize=bool(normalize),
                               recommend=recommend)
        return _bridge.to_pandas(_bridge.table(self._h.SignificantP, opts))

    def __repr__(self) -> str:
        i = self._info
        return (f"<macroscope.MicroModel {i['resources']} resources x {i['slices']} slices x "
                f"{len(i['states'])} states, {i['start']:g}-{i['end']:g} s>")


def _check_p(p):
    if not isinstance(p, (int, float)) or not (0 <= p <= 1) or math.isnan(p):
        raise InvalidArgumentError(f"p: must be a number in [0, 1], got {p!r}", param="p")


class Aggregation(TableResult):
    """An optimal partition of a microscopic model.

    ``to_pandas()`` lists the aggregates: node (hierarchy path), depth,
    first_slice, last_slice, start, end (s), leaves (resources covered),
    mode (the state with the largest mean proportion), mode_proportion,
    ``prop:<state>`` for every state, gain and loss.
    """

    def __init__(self, handle):
        self._h = handle

    def _export(self, address):
        self._h.Table(address)

    @functools.cached_property
    def _info(self) -> dict:
        return _bridge.call_json(self._h.Info)

    @property
    def p(self) -> float:
        return self._info["p"]

    @property
    def gain(self) -> float:
        """Total gain of the partition (sum over aggregates)."""
        return self._info["gain"]

    @property
    def loss(self) -> float:
        """Total information loss of the partition."""
        return self._info["loss"]

    @property
    def pic(self) -> float:
        """p * gain - (1 - p) * loss: what the partition maximises."""
        return self._info["pic"]

    def __len__(self) -> int:
        return self._info["aggregates"]

    def plot(self, path: str | os.PathLike | None = None, width: int = 960, height: int = 576,
             format: str | None = None, title: str | None = None):
        """Draw the overview figure of seed 000: one row per resource grouped
        by the hierarchy, one rectangle per aggregate in the colour of its
        mode state, more opaque as the mode dominates.

        Sizes are in pixels. With ``path`` the image is written there (the
        format follows the extension, .png or .svg) and the path returned;
        otherwise the image bytes are returned.
        """
        if format is None:
            format = os.fspath(path) if path is not None and str(path).lower().endswith(".svg") else "png"
        opts = _bridge.options(width=width * _POINTS_PER_PIXEL, height=height * _POINTS_PER_PIXEL,
                               format=format, title=title)
        data = bytes(_bridge.call(self._h.Plot, opts))
        if path is None:
            return data
        with open(path, "wb") as f:
            f.write(data)
        return path

    def _repr_png_(self):
        return self.plot()

    def __repr__(self) -> str:
        i = self._info
        return (f"<macroscope.Aggregation p={i['p']:g}: {i['aggregates']} aggregates, "
                f"gain {i['gain']:.6g}, loss {i['loss']:.6g}>")
