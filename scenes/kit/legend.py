"""A colour scale (legend) for any figure that shows values as colours: the map, and the range it spans."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from manim import DOWN, RIGHT, UP, ManimColor, Rectangle, VGroup

from . import palette
from .numbers import Number
from .text import CELL
from .tokens import MIN_FONT_SIZE

STOPS = 16  # colour stops of the gradient (the map is smooth between them)


class ColorScale(VGroup):
    """A vertical bar of the colour map from ``low`` (bottom) to ``high`` (top), both written beside it.

    Pass the figure's own computed range: the numbers are audited like every number on screen.

    Parameters
    ----------
    low, high
        The values at the bottom and the top of the bar.
    height, width
        Size of the bar.
    places
        Decimals of the two numbers.
    cmap
        The colour map, t in [0, 1] → colour (:func:`palette.heat`, or a diverging map wrapped).
    font_size
        Size of the numbers.
    side
        RIGHT or LEFT: where the numbers stand.

    Examples
    --------
    >>> scale = ColorScale(0.18, 0.32, height=2.0)
    >>> [n.number for n in scale.get_numbers()]
    [0.18, 0.32]
    """

    def __init__(
        self,
        low: float,
        high: float,
        height: float = 2.0,
        width: float = 0.16,
        places: int = 2,
        cmap: Callable[[float], ManimColor] = palette.heat,
        font_size: float = CELL,
        side: np.ndarray = RIGHT,
        **kwargs,
    ) -> None:
        super().__init__(**kwargs)
        self.low, self.high = float(low), float(high)
        colours = [cmap(t) for t in np.linspace(0, 1, STOPS)]
        self.bar = Rectangle(width=width, height=height, stroke_width=1, stroke_color=palette.MUTED)
        self.bar.set_fill(colours, opacity=1.0).set_sheen_direction(UP)
        size = max(font_size, MIN_FONT_SIZE)
        self.numbers = VGroup(
            Number(self.low, num_decimal_places=places, font_size=size, color=palette.MUTED),
            Number(self.high, num_decimal_places=places, font_size=size, color=palette.MUTED),
        )
        self.numbers[0].next_to(self.bar.get_corner(DOWN + side), side, buff=0.08).align_to(self.bar, DOWN)
        self.numbers[1].next_to(self.bar.get_corner(UP + side), side, buff=0.08).align_to(self.bar, UP)
        self.add(self.bar, self.numbers)

    def set_color(self, color, family: bool = True) -> ColorScale:  # type: ignore[override]
        """Recolour the numbers only: the bar keeps the map (scenes recolour a figure's labels at once)."""
        self.numbers.set_color(color, family)
        return self

    def get_numbers(self) -> VGroup:
        """The numbers at the bottom and the top."""
        return self.numbers

    def beside(self, figure: VGroup, buff: float = 0.2) -> ColorScale:
        """Stand to the right of ``figure``, its top level with the figure's top."""
        return self.next_to(figure, RIGHT, buff=buff).align_to(figure, UP)
