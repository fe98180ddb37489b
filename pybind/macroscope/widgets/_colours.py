"""Tick and Park's time spectrum, as the static kaleidoscope draws it
(plots.Spectrum), for the kaleidoscope explorer; and colours as 0xRRGGBB.
Categories take the static figures' palette through ``state_colors``."""

from __future__ import annotations

import colorsys
import math


def spectrum(f: float) -> tuple[int, int, int]:
    """f in [0, 1] from blue through cyan, green, yellow and red to
    magenta: hue 240 down to -60, saturation 0.9, value 0.95."""
    f = max(0.0, min(1.0, f))
    r, g, b = colorsys.hsv_to_rgb(math.fmod(240 - 300 * f + 360, 360) / 360, 0.9, 0.95)
    return int(255 * r), int(255 * g), int(255 * b)


def css(rgb: tuple[int, int, int]) -> str:
    return "#%02x%02x%02x" % rgb


def packed(rgb: tuple[int, int, int]) -> int:
    """0xRRGGBB."""
    return (rgb[0] << 16) | (rgb[1] << 8) | rgb[2]


def unpack_css(colour: str) -> int:
    """"#rrggbb" as 0xRRGGBB."""
    return int(colour.lstrip("#"), 16)
