"""The colours of the static figures, for the widgets to draw alike: the
qualitative palette of categories (states, PEs, procedures) and the time
spectrum of the kaleidoscope. Mirrors plots/palette.go and plots/kaleido.go
(CategoryColor, Spectrum)."""

from __future__ import annotations

import colorsys
import math

_PALETTE = [
    (228, 26, 28), (55, 126, 184), (77, 175, 74), (152, 78, 163),
    (255, 127, 0), (200, 180, 40), (166, 86, 40), (247, 129, 191),
    (27, 158, 119), (117, 112, 179), (102, 166, 30), (230, 171, 2),
    (31, 120, 180), (227, 26, 28), (106, 61, 154), (177, 89, 40),
]


def _hsv(h: float, s: float, v: float) -> tuple[int, int, int]:
    r, g, b = colorsys.hsv_to_rgb(math.fmod(h, 360) / 360, s, v)
    return int(255 * r), int(255 * g), int(255 * b)


def category(i: int) -> tuple[int, int, int]:
    """The colour of category i; past the palette, hues step around the
    wheel by the golden angle."""
    if i < len(_PALETTE):
        return _PALETTE[i]
    return _hsv((i - len(_PALETTE)) * 137.508, 0.65, 0.85)


def spectrum(f: float) -> tuple[int, int, int]:
    """Tick and Park's time spectrum: f in [0, 1] from blue through cyan,
    green, yellow and red to magenta."""
    f = max(0.0, min(1.0, f))
    return _hsv(math.fmod(240 - 300 * f + 360, 360), 0.9, 0.95)


def css(rgb: tuple[int, int, int]) -> str:
    return "#%02x%02x%02x" % rgb


def packed(rgb: tuple[int, int, int]) -> int:
    """0xRRGGBB."""
    return (rgb[0] << 16) | (rgb[1] << 8) | rgb[2]
