"""The lesson's colour roles (Okabe–Ito, colour-blind safe on a dark background).

A colour always means the same role, in every scene.
"""

from manim import ManimColor, interpolate_color

QUERY = ManimColor("#56B4E9")  # sky blue
KEY = ManimColor("#E69F00")  # orange
VALUE = ManimColor("#009E73")  # green
HEAT_LOW = ManimColor("#F0E442")  # yellow: weights and heat, low ...
HEAT_HIGH = ManimColor("#D55E00")  # ... to vermillion, high
FRUIT = ManimColor("#CC79A7")  # reddish purple
TECH = ManimColor("#0072B2")  # blue
TEXT = ManimColor("#FFFFFF")
MUTED = ManimColor("#9A9A9A")  # secondary text, grid lines, inactive items
BACKGROUND = ManimColor("#111111")

ROLE = {"Q": QUERY, "K": KEY, "V": VALUE}


def heat(t: float) -> ManimColor:
    """Heat colour for a weight ``t`` in [0, 1]."""
    return interpolate_color(HEAT_LOW, HEAT_HIGH, min(max(float(t), 0.0), 1.0))
