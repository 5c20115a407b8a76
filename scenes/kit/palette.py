"""The lesson's colours: role colours (Okabe–Ito), the colour maps of values, and text on colour.

A colour always means the same role, in every scene. Values (weights, scores) are drawn
with one sequential map, :func:`heat`, whose lightness rises with the value; signed values
with :func:`diverging`. docs/style.md shows them.
"""

from __future__ import annotations

import numpy as np
from manim import ManimColor

QUERY = ManimColor("#56B4E9")  # sky blue
KEY = ManimColor("#E69F00")  # orange
VALUE = ManimColor("#009E73")  # green
FRUIT = ManimColor("#CC79A7")  # reddish purple
TECH = ManimColor("#8F7CF7")  # violet: a blue stood too near the query's sky blue (contrast 5.7)
TEXT = ManimColor("#FFFFFF")
MUTED = ManimColor("#9A9A9A")  # secondary text, grid lines, inactive items
BACKGROUND = ManimColor("#111111")
INK = ManimColor("#000000")  # dark text on a light cell (black keeps every cell at contrast >= 4.5)
HIGHLIGHT = ManimColor("#F0E442")  # Okabe–Ito yellow: "look here" (frames, Indicate, a conclusion)
MASKED = ManimColor("#2A2A2A")  # a masked cell of a weight grid: no weight at all, unlike a small one
ALERT = ManimColor("#FF5F56")  # red: a warning (too large, too costly); vermillion read as the keys' orange

# The old ramp's ends, kept because scenes use them as accents; they are not the colour map's ends.
HEAT_LOW = HIGHLIGHT
HEAT_HIGH = ALERT

ROLE = {"Q": QUERY, "K": KEY, "V": VALUE}

# --- colour maps, defined in CIELAB (L*, a*, b*) so that lightness is straight in t ---
# Sequential: slate blue → grey teal → pale yellow (blue–yellow survives every common colour
# blindness). L* runs 42 → 93: at 42 the darkest cell still has a contrast of 3:1 against the
# background (WCAG 1.4.11, non-text), so a zero weight reads as a dim cell, never as a hole.
SEQUENTIAL_LAB = ((42.0, 12.0, -40.0), (68.0, -14.0, -4.0), (93.0, -10.0, 58.0))
# Diverging: zero is the dimmest neutral grey; negative values brighten towards lavender, positive
# ones towards sand, with the same L* for the same |t|: soft hues, clear of the query's blue and the
# key's orange (a score bar in either read as a query or a key).
DIVERGING_LAB = ((84.0, 10.0, -18.0), (42.0, 0.0, 0.0), (84.0, 2.0, 24.0))
_STEPS = 256


def lab_to_srgb(lab: np.ndarray) -> np.ndarray:
    """sRGB in [0, 1] (clipped to the gamut) of CIELAB colours (D65), last axis (L*, a*, b*)."""
    lab = np.asarray(lab, dtype=float)
    fy = (lab[..., 0] + 16) / 116
    f = np.stack([fy + lab[..., 1] / 500, fy, fy - lab[..., 2] / 200], axis=-1)
    delta = 6 / 29
    xyz = np.where(f > delta, f**3, 3 * delta**2 * (f - 4 / 29)) * np.array([0.95047, 1.0, 1.08883])
    to_rgb = np.array(
        [[3.2404542, -1.5371385, -0.4985314], [-0.9692660, 1.8760108, 0.0415560], [0.0556434, -0.2040259, 1.0572252]]
    )
    linear = np.clip(xyz @ to_rgb.T, 0.0, 1.0)
    return np.asarray(np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * linear ** (1 / 2.4) - 0.055))


def _table(points: tuple[tuple[float, float, float], ...]) -> np.ndarray:
    """``_STEPS`` sRGB colours, linear in CIELAB between evenly spaced ``points``."""
    t, at = np.linspace(0, 1, _STEPS), np.linspace(0, 1, len(points))
    lab = np.stack([np.interp(t, at, [p[k] for p in points]) for k in range(3)], axis=-1)
    return lab_to_srgb(lab)


_SEQUENTIAL = _table(SEQUENTIAL_LAB)
_DIVERGING = _table(DIVERGING_LAB)


def _pick(table: np.ndarray, t: float) -> ManimColor:
    return ManimColor.from_rgb(tuple(table[round(min(max(float(t), 0.0), 1.0) * (_STEPS - 1))]))


WEIGHTS = (0.0, 1.0)  # attention weights are coloured on this fixed range in every scene: one weight, one colour


def heat(t: float) -> ManimColor:
    """The colour of a value ``t`` in [0, 1] (clipped): dim slate blue for low, pale yellow for high."""
    return _pick(_SEQUENTIAL, t)


def diverging(t: float) -> ManimColor:
    """The colour of a signed value ``t`` in [-1, 1] (clipped): grey at zero, lavender below, sand above."""
    return _pick(_DIVERGING, (min(max(float(t), -1.0), 1.0) + 1) / 2)


def relative_luminance(color: ManimColor) -> float:
    """WCAG 2 relative luminance of an sRGB colour."""
    rgb = np.array(ManimColor(color).to_rgb(), dtype=float)
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    return float(linear @ np.array([0.2126, 0.7152, 0.0722]))


def contrast(a: ManimColor, b: ManimColor) -> float:
    """WCAG 2 contrast ratio of two colours (1 to 21)."""
    la, lb = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def text_on(fill: ManimColor) -> ManimColor:
    """White or black, whichever reads better on ``fill`` (either reaches 4.58:1 on any colour)."""
    return TEXT if contrast(TEXT, fill) >= contrast(INK, fill) else INK
