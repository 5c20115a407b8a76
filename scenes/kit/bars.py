"""Softmax as bars: one bar per key, heights summing to the total shown beside them."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Animation,
    DecimalNumber,
    FadeIn,
    GrowFromEdge,
    LaggedStart,
    Line,
    ManimColor,
    Rectangle,
    VGroup,
)

from . import palette
from .text import caption
from .tokens import MIN_FONT_SIZE, TokenLabel, stagger

NUMBER_SCALE = 1.25  # TeX digits look smaller than Pango text of the same font size


class SoftmaxBars(VGroup):
    """A row of bars (one per token) with their values, and optionally their sum.

    Draw the exponentials and the normalized weights of one query row with two
    instances and Transform one into the other: the bars keep their places.

    Parameters
    ----------
    values
        One computed value per bar.
    labels
        One token per bar, under it.
    total
        The computed sum to show at the right ("sum = 1.00"), or ``None``.
    max_value
        The value drawn at full ``height`` (default: the largest value).
    height
        Height of the tallest bar.
    bar_width
        Width of one bar (the gap is a third of it).
    color
        One colour for all bars, or ``None`` for heat colours by value.
    places
        Decimals of the numbers.
    total_at
        RIGHT: the sum beside the baseline; UP: above the bars' right end.

    Examples
    --------
    >>> bars = SoftmaxBars(np.array([0.75, 0.25]), ["a", "b"], total=1.0)
    >>> round(bars.get_bars()[0].height / bars.get_bars()[1].height, 6)
    3.0
    """

    def __init__(
        self,
        values: np.ndarray,
        labels: Sequence[str],
        total: float | None = None,
        max_value: float | None = None,
        height: float = 2.0,
        bar_width: float = 0.6,
        color: ManimColor | None = None,
        places: int = 2,
        font_size: float = 22,
        total_at: np.ndarray = RIGHT,
        **kwargs,
    ) -> None:
        super().__init__(**kwargs)
        self.values = np.asarray(values, dtype=float)
        top = max_value if max_value is not None else max(self.values.max(), 1e-12)
        font = max(MIN_FONT_SIZE, min(font_size, bar_width * 36))
        step = bar_width * 4 / 3
        start = bar_width * 0.5 * LEFT
        self.baseline = Line(start, start + len(self.values) * step * RIGHT)
        self.baseline.set_stroke(palette.MUTED, 2)
        self.bars, self.numbers, self.labels = VGroup(), VGroup(), VGroup()
        for j, (v, label) in enumerate(zip(self.values, labels, strict=True)):
            fill = color if color is not None else palette.heat(v / top)
            bar = Rectangle(width=bar_width, height=max(height * v / top, 1e-3), stroke_width=0)
            bar.set_fill(fill, opacity=0.9).move_to(j * step * RIGHT, aligned_edge=DOWN)
            self.bars.add(bar)
            number = DecimalNumber(v, num_decimal_places=places, font_size=font * NUMBER_SCALE, color=palette.TEXT)
            self.numbers.add(number.next_to(bar, UP, buff=0.08))
            self.labels.add(TokenLabel(label, font_size=font))
        xs = [bar.get_x() for bar in self.bars]
        stagger(self.labels, xs, self.baseline.get_y() - 0.12, step, direction=DOWN)
        self.total = VGroup()
        if total is not None:
            equals = caption("sum =", font + 2, palette.MUTED)
            value = DecimalNumber(total, num_decimal_places=places, font_size=(font + 2) * NUMBER_SCALE)
            self.total.add(equals, value.next_to(equals, RIGHT, buff=0.12))
            if total_at is UP:
                self.total.next_to(VGroup(self.bars, self.numbers), UP, buff=0.2).align_to(self.baseline, RIGHT)
            else:
                self.total.next_to(self.baseline, RIGHT, buff=0.35).align_to(self.baseline, DOWN).shift(0.05 * UP)
        self.add(self.baseline, self.bars, self.numbers, self.labels, self.total)

    def get_bars(self) -> VGroup:
        return self.bars

    def get_numbers(self) -> VGroup:
        return self.numbers

    def get_labels(self) -> VGroup:
        return self.labels

    def get_total(self) -> VGroup:
        """The "sum = …" readout (empty without ``total``)."""
        return self.total

    def grow(self, **kwargs) -> Animation:
        """An animation drawing the baseline and labels, growing the bars from it, then their numbers."""
        grow = (GrowFromEdge(bar, DOWN) for bar in self.bars)
        numbers = (FadeIn(n, shift=0.1 * UP) for n in self.numbers)
        return LaggedStart(FadeIn(VGroup(self.baseline, self.labels)), *grow, *numbers, lag_ratio=0.08, **kwargs)
