"""Tokens on screen: one font, one order, everywhere in the lesson."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import DOWN, RIGHT, UP, Animation, Indicate, ManimColor, Mobject, Text, VGroup

from . import palette

#: The one font of every token (Pango renders any script a user types).
TOKEN_FONT = "DejaVu Sans"

#: Smallest text the kit draws: legible at 480p, a little above the layout check's floor of 16.
MIN_FONT_SIZE = 17


class TokenLabel(Text):
    """A token drawn in the lesson's token font, never through LaTeX.

    Examples
    --------
    >>> TokenLabel("apple").width > 0
    True
    """

    def __init__(self, token: str, font_size: float = 26, color: ManimColor = palette.TEXT, **kwargs) -> None:
        super().__init__(token, font=TOKEN_FONT, font_size=font_size, color=color, **kwargs)
        self.token = token

    def turn(self) -> TokenLabel:
        """Rotate a quarter turn (reading upwards), keeping ``font_size`` the size of the letters."""
        before = self.height
        self.rotate(np.pi / 2)
        self.initial_height *= self.height / before
        return self


class TokenRow(VGroup):
    """The sentence's tokens in order, along ``direction`` (RIGHT: a sentence, DOWN: a column).

    Parameters
    ----------
    tokens
        The tokens, in sentence order.
    direction
        RIGHT to write them as a sentence, DOWN to stack them.
    spacing
        Gap between neighbouring tokens.
    font_size
        Size of every token.

    Examples
    --------
    >>> row = TokenRow(["I", "love", "apple"])
    >>> row.get_token(2).token
    'apple'
    """

    def __init__(
        self,
        tokens: Sequence[str],
        direction: np.ndarray = RIGHT,
        spacing: float = 0.3,
        font_size: float = 26,
        color: ManimColor = palette.TEXT,
        **kwargs,
    ) -> None:
        super().__init__(*(TokenLabel(t, font_size=font_size, color=color) for t in tokens), **kwargs)
        self.tokens = list(tokens)
        self.arrange(direction, buff=spacing, aligned_edge=DOWN if direction is RIGHT else RIGHT)

    def get_token(self, index: int) -> TokenLabel:
        """The label of token ``index``."""
        return self.submobjects[index]

    def highlight(self, index: int, color: ManimColor = palette.HEAT_LOW) -> Animation:
        """An animation that points at token ``index``."""
        return Indicate(self.get_token(index), color=color, scale_factor=1.15)


def stagger(labels: Sequence[Mobject], xs: Sequence[float], y: float, pitch: float, direction: np.ndarray = UP) -> None:
    """Centre each label on its x, on up to three levels so that neighbours never overlap.

    Labels wider than ``pitch`` (the distance between two x's) take turns between
    levels; when three are not enough, every label is turned a quarter. ``y`` is the
    edge nearest the data; levels grow in ``direction`` (UP or DOWN).
    """
    levels = _levels(labels, pitch)
    if levels > 3:
        for mob in labels:
            mob.turn()
        levels = _levels(labels, pitch)
    step = max((m.height for m in labels), default=0.0) + 0.06
    for j, (mob, x) in enumerate(zip(labels, xs, strict=True)):
        mob.move_to(np.array([x, y, 0.0]) + direction * step * (j % levels), aligned_edge=-direction)
        mob.set_x(x)


def _levels(labels: Sequence[Mobject], pitch: float) -> int:
    widest = max((m.width for m in labels), default=0.0)
    return max(1, int(np.ceil((widest + 0.05) / max(pitch, 1e-6))))
