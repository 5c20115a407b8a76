"""The attention weights as a heatmap: rows are queries, softmax runs along each row."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import DOWN, LEFT, Animation, FadeIn, LaggedStart, Square, VGroup

from . import palette, text
from .legend import ColorScale
from .numbers import Number
from .tokens import MIN_FONT_SIZE, TokenLabel, stagger

CONVENTION = "rows are queries · softmax runs along each row"
ROOM = 1.5  # longest a turned column label may be before it is abbreviated


def token_cell(columns: int) -> float:
    """The cell side for a grid of ``columns`` tokens: wide enough for four tokens' names to stand upright
    (a turned "I" reads as a dash), narrower as the sentence grows so the grid keeps to about 4.6 units."""
    return min(1.15, 4.6 / columns)


class Heatmap(VGroup):
    """A grid of weights in the lesson's colour map (dim for low, bright for high), tokens on both axes.

    Digits are drawn on the cells when they fit at a legible size, in white or black,
    whichever contrasts more with the cell; otherwise the colour alone tells the weight.
    The shade runs from ``vmin`` to ``vmax`` (the grid's own smallest and largest weight by
    default), and a colour scale at the right says so with those two numbers.

    Parameters
    ----------
    weights
        The square (queries × keys) array of weights.
    row_labels, col_labels
        Query tokens (left, one per row) and key tokens (top, one per column).
    cell
        Side of one cell.
    places
        Decimals of the digits.
    show_digits
        ``None`` decides by cell size; ``True``/``False`` forces it.
    caption
        Write the convention "rows are queries · softmax runs along each row" below.
    legend
        Draw the colour scale beside the grid (leave it out only where another scale stands for it).

    Examples
    --------
    >>> h = Heatmap(np.full((2, 2), 0.5), ["a", "b"], ["a", "b"])
    >>> len(h.get_cells())
    4
    """

    reading_hold = True  # a new one earns a quiet hold to read it (LessonScene.hold_to_read)

    def __init__(
        self,
        weights: np.ndarray,
        row_labels: Sequence[str],
        col_labels: Sequence[str] | None = None,
        cell: float = 0.7,
        places: int = 2,
        show_digits: bool | None = None,
        caption: bool = False,
        vmin: float | None = palette.WEIGHTS[0],
        vmax: float | None = palette.WEIGHTS[1],
        legend: bool = True,
        **kwargs,
    ) -> None:
        super().__init__(**kwargs)
        self.weights = np.asarray(weights, dtype=float)
        rows, cols = self.weights.shape
        low = self.weights.min() if vmin is None else vmin
        high = self.weights.max() if vmax is None else vmax
        self.low, self.high = float(low), float(high)  # the range the colours span
        self.cells = VGroup()
        for i in range(rows):
            for j in range(cols):
                t = (self.weights[i, j] - low) / (high - low) if high > low else 1.0
                square = Square(cell, stroke_width=1.5, stroke_color=palette.BACKGROUND)
                square.set_fill(palette.heat(t), opacity=1.0).move_to([j * cell, -i * cell, 0])
                self.cells.add(square)
        self.digits = self._build_digits(cell, places, show_digits)
        font = float(np.clip(cell * 22, MIN_FONT_SIZE, text.LABEL))  # a row of short tokens fits upright
        self.row_labels = VGroup(
            *(
                TokenLabel(t, font_size=font).next_to(self.get_cell(i, 0), LEFT, buff=0.15)
                for i, t in enumerate(row_labels)
            )
        )
        self.col_labels = VGroup()
        for t in col_labels if col_labels is not None else row_labels:
            self.col_labels.add(TokenLabel(t, font_size=font, color=palette.MUTED))
        xs = [self.get_cell(0, j).get_x() for j in range(cols)]
        stagger(self.col_labels, xs, self.cells.get_top()[1] + 0.12, cell, room=ROOM)
        self.legend = VGroup()
        if legend:
            scale = ColorScale(low, high, height=min(self.cells.height, 2.4), places=places)
            self.legend.add(scale.beside(self.cells, buff=0.2))
        self.caption = VGroup()
        if caption:
            convention = text.caption(CONVENTION, text.SMALL, palette.MUTED)
            self.caption.add(convention.next_to(self.cells, DOWN, buff=0.25))
        self.add(self.cells, self.digits, self.row_labels, self.col_labels, self.legend, self.caption)

    def _build_digits(self, cell: float, places: int, show_digits: bool | None) -> VGroup:
        digits = VGroup()
        font = min(float(text.LABEL), cell * 29 * 4 / (places + 2))  # a number takes at most 3/4 of a cell
        if show_digits is False or (show_digits is None and font < MIN_FONT_SIZE):
            return digits
        for square, w in zip(self.cells, self.weights.ravel(), strict=True):
            number = Number(w, num_decimal_places=places, font_size=max(font, MIN_FONT_SIZE))
            digits.add(number.set_color(palette.text_on(square.get_fill_color())).move_to(square))
        return digits

    def get_legend(self) -> VGroup:
        """The colour scale (empty with ``legend=False``)."""
        return self.legend

    def get_cell(self, row: int, col: int) -> Square:
        """The square of weight (``row``, ``col``)."""
        return self.cells[row * self.weights.shape[1] + col]

    def get_cells(self) -> VGroup:
        return self.cells

    def get_row(self, row: int) -> VGroup:
        """The squares of one query's row."""
        cols = self.weights.shape[1]
        return VGroup(*self.cells[row * cols : (row + 1) * cols])

    def get_digits(self) -> VGroup:
        """The digits on the cells (empty when only colour is shown)."""
        return self.digits

    def get_row_digits(self, row: int) -> VGroup:
        cols = self.weights.shape[1]
        return VGroup(*self.digits[row * cols : (row + 1) * cols]) if len(self.digits) else VGroup()

    def get_labels(self) -> VGroup:
        """Row labels, column labels and the colour scale: what frames the grid before it fills."""
        labels = VGroup(self.row_labels, self.col_labels, self.legend)
        labels.reading_hold = True  # the figure arrives with its frame
        return labels

    def get_slots(self) -> VGroup:
        """Empty outlines where the cells will be: a grid that reads "to be filled" before its weights come."""
        return VGroup(
            *(Square(c.width, stroke_width=1.5, stroke_color=palette.MUTED).move_to(c) for c in self.cells)
        ).set_stroke(opacity=0.6)

    def get_caption(self) -> VGroup:
        return self.caption

    def fill_row(self, row: int, **kwargs) -> Animation:
        """An animation colouring in one query's row (cells and digits)."""
        return LaggedStart(
            *(FadeIn(m) for m in [*self.get_row(row), *self.get_row_digits(row)]), lag_ratio=0.1, **kwargs
        )
