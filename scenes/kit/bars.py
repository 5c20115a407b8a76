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
    FadeIn,
    GrowFromEdge,
    LaggedStart,
    Line,
    ManimColor,
    Mobject,
    Rectangle,
    VGroup,
)

from . import palette
from .legend import ColorScale
from .numbers import Number
from .text import LABEL, caption, notation
from .tokens import MIN_FONT_SIZE, TokenLabel, stagger

NUMBER_SCALE = 1.0  # numbers are set in the labels' font now (was 1.25 for TeX digits)


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
        One colour for all bars, or ``None`` for the colour map by value (0 at the baseline,
        the top value at full ``height``), with a colour scale as tall as that at the left.
    places
        Decimals of the numbers.
    total_at
        RIGHT: the sum beside the baseline; UP: above the bars' right end.
    legend
        Draw the colour scale when the colour encodes the value.
    vmin, vmax
        Colour by this range instead (a heatmap's ``low``/``high``, so that a weight has one colour in
        both; its scale then stands for these bars: pass ``legend=False``).
    weights
        The values are attention weights: coloured on the fixed :data:`palette.WEIGHTS` range, as in
        every heatmap, and drawn to its top (``max_value`` 1 unless given), so the colour scale beside
        them reads as their axis.

    Examples
    --------
    >>> bars = SoftmaxBars(np.array([0.75, 0.25]), ["a", "b"], total=1.0)
    >>> round(bars.get_bars()[0].height / bars.get_bars()[1].height, 6)
    3.0
    """

    reading_hold = True  # a new one earns a quiet hold to read it (LessonScene.hold_to_read)

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
        font_size: float = LABEL,
        total_at: np.ndarray = RIGHT,
        legend: bool = True,
        vmin: float | None = None,
        vmax: float | None = None,
        weights: bool = False,
        **kwargs,
    ) -> None:
        super().__init__(**kwargs)
        if weights:  # on the heatmaps' fixed range, and drawn to it: beside the scale, a bar's top reads its value
            vmin, vmax = palette.WEIGHTS
            max_value = vmax if max_value is None else max_value
        self.values = np.asarray(values, dtype=float)
        top = max_value if max_value is not None else max(self.values.max(), 1e-12)
        font = max(MIN_FONT_SIZE, min(font_size, bar_width * 28))  # short tokens fit upright under their bars
        step = bar_width * 4 / 3
        start = bar_width * 0.5 * LEFT
        self.baseline = Line(start, start + len(self.values) * step * RIGHT)
        self.baseline.set_stroke(palette.MUTED, 2)
        self.bars, self.numbers, self.labels = VGroup(), VGroup(), VGroup()
        for j, (v, label) in enumerate(zip(self.values, labels, strict=True)):
            fill = color if color is not None else palette.heat(self._shade(v, top, vmin, vmax))
            bar = Rectangle(width=bar_width, height=max(height * v / top, 1e-3), stroke_width=0)
            bar.set_fill(fill, opacity=0.9).move_to(j * step * RIGHT, aligned_edge=DOWN)
            self.bars.add(bar)
            number = Number(v, num_decimal_places=places, font_size=font, color=palette.TEXT)
            self.numbers.add(number.next_to(bar, UP, buff=0.08))
            self.labels.add(TokenLabel(label, font_size=font))
        self._thin_numbers()
        xs = [bar.get_x() for bar in self.bars]
        stagger(self.labels, xs, self.baseline.get_y() - 0.12, step, direction=DOWN)
        self.total = VGroup()
        if total is not None:
            equals = caption("sum =", font + 2, palette.MUTED)
            value = Number(total, num_decimal_places=places, font_size=font + 2)
            self.total.add(equals, value.next_to(equals, RIGHT, buff=0.12))
            if total_at is UP:
                self.total.next_to(VGroup(self.bars, self.numbers), UP, buff=0.2).align_to(self.baseline, RIGHT)
            else:
                self.total.next_to(self.baseline, RIGHT, buff=0.35).align_to(self.baseline, DOWN).shift(0.05 * UP)
        self.legend = VGroup()
        if color is None and legend:
            scale = ColorScale(
                0.0 if vmin is None else vmin, top if vmax is None else vmax, height, places=places, side=LEFT
            )
            if vmin is None:
                notation(scale.get_numbers()[0])  # the baseline's zero reads the same for any example
            self.legend.add(scale.next_to(self.baseline, LEFT, buff=0.25).align_to(self.baseline, DOWN))
        self.add(self.baseline, self.bars, self.numbers, self.labels, self.total, self.legend)

    @staticmethod
    def _shade(value: float, top: float, vmin: float | None, vmax: float | None) -> float:
        low, high = (0.0, top) if vmin is None or vmax is None else (vmin, vmax)
        return (value - low) / (high - low) if high > low else 1.0

    def get_bars(self) -> VGroup:
        return self.bars

    def _thin_numbers(self) -> None:
        """Where bars are too narrow for their numbers, keep the numbers of the largest values that do not
        touch one already kept; the others stay in place but unseen, so every number keeps its bar's index."""
        kept: list[Mobject] = []
        for j in np.argsort(-self.values, kind="stable"):
            number = self.numbers[j]
            if any(_touch(number, other) for other in kept):
                number.set_opacity(0)
                number.thinned = True
            else:
                kept.append(number)

    def get_numbers(self) -> VGroup:
        return self.numbers

    def frame(self, j: int, color: ManimColor = palette.HIGHLIGHT, buff: float = 0.07) -> Rectangle:
        """A frame round bar ``j`` and its number, its foot on the baseline: below it, the token's label stays
        whole (a frame round the bar alone touched the number; round both, with a margin, it cut the label)."""
        top = self.numbers[j].get_top()[1] + buff
        bottom = self.baseline.get_y()
        column = VGroup(self.bars[j], self.numbers[j])
        box = Rectangle(width=column.width + 2 * buff, height=top - bottom, color=color, stroke_width=4)
        return box.move_to([column.get_x(), (top + bottom) / 2, 0])

    def get_labels(self) -> VGroup:
        """The token labels, in order, then the colour scale (if any): what frames the bars."""
        return VGroup(*self.labels, *self.legend)

    def get_legend(self) -> VGroup:
        """The colour scale at the left (empty for one-colour bars)."""
        return self.legend

    def get_total(self) -> VGroup:
        """The "sum = …" readout (empty without ``total``)."""
        return self.total

    def grow(self, axes_shown: bool = False, **kwargs) -> Animation:
        """An animation drawing the baseline, labels and scale (unless ``axes_shown``: they are on screen, from
        :meth:`get_labels`, and fading them in again would blink them), growing the bars from the baseline, then
        their numbers."""
        grow = (GrowFromEdge(bar, DOWN) for bar in self.bars)
        numbers = (FadeIn(n, shift=0.1 * UP) for n in self.numbers)
        frame = [] if axes_shown else [FadeIn(VGroup(self.baseline, self.labels, self.legend))]
        return LaggedStart(*frame, *grow, *numbers, lag_ratio=0.08, **kwargs)


def _touch(a: Mobject, b: Mobject, gap: float = 0.06) -> bool:
    """Whether two numbers' boxes come closer than ``gap`` (both across and up)."""
    return bool(
        a.get_left()[0] < b.get_right()[0] + gap
        and b.get_left()[0] < a.get_right()[0] + gap
        and a.get_bottom()[1] < b.get_top()[1] + gap
        and b.get_bottom()[1] < a.get_top()[1] + gap
    )
