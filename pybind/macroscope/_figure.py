"""The one figure type every ``plot()`` returns."""

from __future__ import annotations

import math
import numbers
import os
import struct

from ._errors import InvalidArgumentError

FORMATS = ("png", "svg", "pdf")

# Figures are sized in pixels at 96 dpi; the Go side draws in points.
POINTS_PER_PIXEL = 72 / 96


# The largest figure (plots.MaxSide, plots.MaxArea of the Go side): a
# side of 16,384 pixels at most, 8,192 x 8,192 pixels in all.
MAX_SIDE = 16384
MAX_AREA = 1 << 26


def points(width, height, *, height_optional: bool = False) -> tuple[float, float | None]:
    """``width`` and ``height`` of a figure, in pixels, checked before any
    work and converted to the points the Go side draws in: each a finite
    number from 1 to :data:`MAX_SIDE` pixels, the two at most
    :data:`MAX_AREA` pixels (``height`` may be None when
    ``height_optional``: the figure's own). Anything else raises
    :class:`InvalidArgumentError` naming the argument and the range."""
    for name, v in (("width", width), ("height", height)):
        if v is None and name == "height" and height_optional:
            continue
        if (not isinstance(v, numbers.Real) or isinstance(v, bool) or not math.isfinite(v)
                or not 1 <= v <= MAX_SIDE):
            raise InvalidArgumentError(f"{name}: must be from 1 to {MAX_SIDE} pixels, got {v!r:.40}", param=name)
    if height is not None and width * height > MAX_AREA:
        raise InvalidArgumentError(f"width: a figure of {width} x {height} pixels is larger than the {MAX_AREA} pixels "
                                   f"(8192 x 8192) a figure may have", param="width")
    return width * POINTS_PER_PIXEL, None if height is None else height * POINTS_PER_PIXEL


def format_of(path) -> str:
    """The image format a file name asks for, by its extension."""
    ext = os.path.splitext(os.fspath(path))[1].lower().lstrip(".")
    if ext not in FORMATS:
        raise InvalidArgumentError(
            f"path: {os.fspath(path)!r} does not end in .png, .svg or .pdf, so its image format is unknown",
            param="path")
    return ext


class Figure:
    """A figure drawn by the Go core: shown inline in Jupyter, saved with
    :meth:`save` (PNG, SVG or PDF by the file's extension) or turned into
    the bytes of an image file with :meth:`to_bytes`. ``bytes(figure)`` is
    its PNG.

    The figure is drawn when it is made (so that a bad option fails at
    once) and again for each other format asked, once."""

    def __init__(self, render, title: str = ""):
        # render(format) -> bytes: draws the figure in that format.
        self._render = render
        self._cache: dict[str, bytes] = {}
        self.title = title
        self.to_bytes("png")

    def to_bytes(self, format: str = "png") -> bytes:
        """The figure as the bytes of a ``format`` file ("png", "svg" or "pdf")."""
        format = str(format).lower()
        if format not in FORMATS:
            raise InvalidArgumentError(f"format: {format!r} is not one of {', '.join(FORMATS)}", param="format")
        if format not in self._cache:
            self._cache[format] = bytes(self._render(format))
        return self._cache[format]

    def save(self, path: str | os.PathLike) -> Figure:
        """Write the figure to ``path``, in the format its extension names
        (.png, .svg, .pdf; any other is an error). Returns the figure."""
        data = self.to_bytes(format_of(path))
        with open(path, "wb") as f:
            f.write(data)
        return self

    @property
    def size(self) -> tuple[int, int]:
        """Width and height in pixels (of the PNG, at 96 dpi)."""
        png = self.to_bytes("png")
        return struct.unpack(">II", png[16:24])

    def __bytes__(self) -> bytes:
        return self.to_bytes("png")

    def _repr_png_(self):
        return self.to_bytes("png")

    def _repr_svg_(self):
        return self.to_bytes("svg").decode()

    def _repr_mimebundle_(self, include=None, exclude=None):
        # PNG only: a notebook that stored SVG too would double in size.
        return {"image/png": self.to_bytes("png")}

    def __repr__(self) -> str:
        w, h = self.size
        title = f" {self.title!r}" if self.title else ""
        return f"<macroscope.Figure{title} {w}x{h} px>"


def color_options(colors) -> dict[str, str] | None:
    """``colors=`` of the plotting methods, for the Go side: a dict from
    state name to colour, each a string (``"#1f77b4"``, ``"red"``,
    ``"tab:blue"``, ``"C0"``, ``"0.2 0.4 1"``: the Go side reads them) or
    an (r, g, b) or (r, g, b, a) tuple of floats in [0, 1] as matplotlib
    takes them. None for no override."""
    if colors is None:
        return None
    if not isinstance(colors, dict):
        raise InvalidArgumentError(f"colors: must be a dict from state name to colour, got {colors!r}",
                                   param="colors")
    out = {}
    for name, c in colors.items():
        if isinstance(c, str):
            out[str(name)] = c
            continue
        try:
            parts = [float(x) for x in c]
        except (TypeError, ValueError):
            parts = []
        if len(parts) not in (3, 4) or not all(0 <= x <= 1 for x in parts):
            raise InvalidArgumentError(
                f"colors: the colour of {name!r} must be a string or an (r, g, b) tuple in [0, 1], got {c!r}",
                param="colors")
        out[str(name)] = "#" + "".join(f"{round(x * 255):02x}" for x in parts[:3])
    return out


def plot(render, path=None, format=None, title: str = "") -> Figure:
    """The Figure of ``render``, saved to ``path`` when given. ``format``
    (an old argument) only checks that it agrees with the path."""
    if format is not None and str(format).lower() not in FORMATS:
        raise InvalidArgumentError(f"format: {format!r} is not one of {', '.join(FORMATS)}", param="format")
    if path is not None:
        format_of(path)
    fig = Figure(render, title=title or "")
    if path is not None:
        fig.save(path)
    return fig
