"""A matrix of computed numbers with token row labels: the lesson's X, W, Q, K, V and score grids."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Animation,
    Create,
    FadeIn,
    LaggedStart,
    ManimColor,
    Mobject,
    Rectangle,
    Square,
    VGroup,
    VMobject,
)

from . import palette
from .numbers import Number, places_for
from .text import caption, formula, notation
from .tokens import MIN_FONT_SIZE, TokenLabel, stagger

TEX_TO_TEXT = 0.69  # a Text digit of size 0.69·s is as tall as a TeX digit of size s


def shown_indices(count: int, limit: int) -> list[int | None]:
    """Which of ``count`` rows (or columns) to draw when at most ``limit`` fit.

    ``None`` marks the ellipsis that stands for the hidden ones: the first
    ``limit - 2`` are drawn, then the ellipsis, then the last.

    >>> shown_indices(12, 5)
    [0, 1, 2, None, 11]
    """
    if count <= limit:
        return list(range(count))
    return [*range(max(limit - 2, 1)), None, count - 1]


def bracket(height: float, side: np.ndarray, color: ManimColor, serif: float = 0.12) -> VMobject:
    """A square bracket of ``height``, opening towards the matrix (``side`` is LEFT or RIGHT)."""
    inward = -side * serif
    top, bottom = height / 2 * UP, height / 2 * DOWN
    shape = VMobject(color=color, stroke_width=2.5)
    shape.set_points_as_corners([top + inward, top, bottom, bottom + inward])
    return shape


class LabelledMatrix(VGroup):
    """A matrix of computed numbers, bracketed, with optional token rows and column labels.

    Digits are :class:`~scenes.kit.numbers.Number` cells (DecimalNumbers in the lesson's font,
    their glyphs cached, so a large matrix costs frames, not one compile per cell). Rows or columns beyond
    ``max_rows``/``max_cols`` are abbreviated with an ellipsis; ``show_digits=False``
    draws coloured squares instead of digits (shade ∝ |value|).

    Parameters
    ----------
    values
        The 2-D array to show (computed by ``attention_math``).
    row_labels
        One token per row, drawn left of the rows, or ``None``.
    col_labels
        One label per column, drawn above the columns, or ``None``.
    name
        LaTeX name written above the matrix ("Q", "W_Q"), or ``None``.
    color
        Role colour of the brackets, the name and the digits.
    places
        Decimals shown; by default as many as the values need, at most 2.
    font_size
        Size of the digits on TeX's scale, as before the lesson set numbers in Inter (labels
        follow it); the digits come out as tall as TeX's would, never below the minimum size.
    max_rows, max_cols
        How many rows and columns to draw before abbreviating.
    show_digits
        Draw digits (``True``) or shaded squares only.

    Examples
    --------
    >>> m = LabelledMatrix(np.eye(2), row_labels=["I", "love"], name="X")
    >>> m.get_entry(1, 1).number
    1.0
    """

    reading_hold = True  # a new one earns a quiet hold to read it (LessonScene.hold_to_read)

    def __init__(
        self,
        values: np.ndarray,
        row_labels: Sequence[str] | None = None,
        col_labels: Sequence[str] | None = None,
        name: str | None = None,
        color: ManimColor = palette.TEXT,
        places: int | None = None,
        font_size: float = 30,
        max_rows: int = 12,
        max_cols: int = 8,
        show_digits: bool = True,
        **kwargs,
    ) -> None:
        super().__init__(**kwargs)
        self.values = np.asarray(values, dtype=float)
        self.places = places_for(self.values, 2) if places is None else places
        self.color_role = ManimColor(color)
        self.font_size_digits = font_size
        self.shown_rows = shown_indices(self.values.shape[0], max_rows)
        self.shown_cols = shown_indices(self.values.shape[1], max_cols)
        self.cell_width, self.cell_height = self._cell_size(show_digits)
        self.entries: dict[tuple[int, int], Mobject] = {}
        self.cells = VGroup(*self._build_cells(show_digits))
        self.ellipses = VGroup(*self._build_ellipses())
        height = len(self.shown_rows) * self.cell_height
        self.brackets = VGroup(
            bracket(height, LEFT, self.color_role).next_to(self._grid_box(), LEFT, buff=0.04),
            bracket(height, RIGHT, self.color_role).next_to(self._grid_box(), RIGHT, buff=0.04),
        )
        self.row_labels = self._build_row_labels(row_labels)
        self.col_labels = self._build_col_labels(col_labels)
        self.name = self._build_name(name)
        self.add(self.cells, self.ellipses, self.brackets, self.row_labels, self.col_labels, self.name)

    # --- construction ------------------------------------------------------------

    def number_size(self) -> float:
        """Font size of the digits: as tall as TeX digits of ``font_size``, at least the minimum."""
        return max(MIN_FONT_SIZE, TEX_TO_TEXT * self.font_size_digits)

    def _digit(self, value: float) -> Number:
        return Number(value, num_decimal_places=self.places, font_size=self.number_size(), color=self.color_role)

    def _cell_size(self, show_digits: bool) -> tuple[float, float]:
        height = 0.024 * self.font_size_digits
        if not show_digits:
            return height, height
        widest = self._digit(-np.abs(self.values).max() if (self.values < 0).any() else self.values.max())
        return widest.width + 0.011 * self.font_size_digits, height

    def _cell_center(self, row: int, col: int) -> np.ndarray:
        return np.array([col * self.cell_width, -row * self.cell_height, 0.0])

    def _build_cells(self, show_digits: bool) -> list[Mobject]:
        top = np.abs(self.values).max() or 1.0
        cells = []
        for r, i in enumerate(self.shown_rows):
            for c, j in enumerate(self.shown_cols):
                if i is None or j is None:
                    continue
                value = self.values[i, j]
                if show_digits:
                    cell = self._digit(value)
                else:
                    cell = Square(self.cell_height * 0.9, stroke_width=0)
                    cell.set_fill(self.color_role, opacity=0.15 + 0.85 * abs(value) / top)
                cell.move_to(self._cell_center(r, c))
                self.entries[(i, j)] = cell
                cells.append(cell)
        return cells

    def _build_ellipses(self) -> list[Mobject]:
        marks = []
        for r, i in enumerate(self.shown_rows):
            for c, j in enumerate(self.shown_cols):
                if i is None or j is None:
                    mark = "⋱" if i is None and j is None else ("⋮" if i is None else "⋯")
                    text = caption(mark, self.number_size(), palette.MUTED)
                    marks.append(text.move_to(self._cell_center(r, c)))
        return marks

    def _grid_box(self) -> Rectangle:
        rows, cols = len(self.shown_rows), len(self.shown_cols)
        box = Rectangle(width=cols * self.cell_width, height=rows * self.cell_height)
        return box.move_to((self._cell_center(0, 0) + self._cell_center(rows - 1, cols - 1)) / 2)

    def _build_row_labels(self, labels: Sequence[str] | None) -> VGroup:
        group = VGroup()
        if labels is None:
            return group
        left = self.brackets.get_left()[0] - 0.24  # clear of the bracket: "I[" must not read as one glyph
        for r, i in enumerate(self.shown_rows):
            text = "⋮" if i is None else labels[i]
            color = palette.MUTED if i is None else palette.TEXT
            label = TokenLabel(text, font_size=self.label_size(), color=color)
            label.move_to(self._cell_center(r, 0)).align_to(np.array([left, 0, 0]), RIGHT)
            group.add(label)
        return group

    def _build_col_labels(self, labels: Sequence[str] | None) -> VGroup:
        group = VGroup()
        if labels is None:
            return group
        top = self._grid_box().get_top()[1] + 0.12
        for j in self.shown_cols:
            text = "⋯" if j is None else labels[j]
            group.add(TokenLabel(text, font_size=max(MIN_FONT_SIZE, self.label_size() * 0.85), color=palette.MUTED))
        xs = [self._cell_center(0, c)[0] for c in range(len(self.shown_cols))]
        stagger(group, xs, top, self.cell_width)
        return group

    def label_size(self) -> float:
        """Font size of the token labels: Pango text looks larger than TeX digits of equal size."""
        return max(MIN_FONT_SIZE, 0.8 * self.font_size_digits)

    def _build_name(self, name: str | None) -> VGroup:
        if name is None:
            return VGroup()
        words = re.fullmatch(r"\\text\{([^{}\\]*)\}", name)  # plain words are text, not a formula
        size = self.font_size_digits * 1.6  # its sub- and superscripts (70 %) stay legible with the smallest digits
        tex = notation(
            caption(words[1], size * TEX_TO_TEXT, self.color_role)
            if words
            else formula(name, size=size, color=self.color_role)
        )
        above = self.col_labels if len(self.col_labels) else self._grid_box()
        return VGroup(tex.next_to(above, UP, buff=0.15))

    # --- accessors ---------------------------------------------------------------

    def get_entry(self, row: int, col: int) -> Mobject:
        """The cell of entry (``row``, ``col``); ``KeyError`` if the ellipsis hides it."""
        return self.entries[(row, col)]

    def get_entries(self) -> VGroup:
        """Every drawn cell, row by row."""
        return self.cells

    def is_shown(self, row: int, col: int) -> bool:
        """Whether entry (``row``, ``col``) is drawn (not hidden by an ellipsis)."""
        return (row, col) in self.entries

    def get_row_label(self, row: int) -> Mobject | None:
        """The label of row ``row``; ``None`` if the ellipsis hides the row."""
        return self.row_labels[self.shown_rows.index(row)] if row in self.shown_rows else None

    def get_row(self, row: int) -> VGroup:
        """The drawn cells of row ``row``."""
        return VGroup(*(self.entries[(row, j)] for j in self.shown_cols if j is not None and (row, j) in self.entries))

    def get_column(self, col: int) -> VGroup:
        """The drawn cells of column ``col``."""
        return VGroup(*(self.entries[(i, col)] for i in self.shown_rows if i is not None and (i, col) in self.entries))

    def get_row_labels(self) -> VGroup:
        return self.row_labels

    def get_column_labels(self) -> VGroup:
        return self.col_labels

    def get_brackets(self) -> VGroup:
        return self.brackets

    def get_name(self) -> VGroup:
        return self.name

    def get_frame(self) -> VGroup:
        """Everything but the entries: brackets, ellipses, labels, name (to fill the cells in later)."""
        frame = VGroup(self.brackets, self.ellipses, self.row_labels, self.col_labels, self.name)
        frame.reading_hold = True  # the figure arrives with its frame
        return frame

    def slot(self, row: int, col: int) -> np.ndarray:
        """Where the cell of entry (``row``, ``col``) sits on screen (also before it is drawn)."""
        return self.entries[(row, col)].get_center()

    # --- highlights --------------------------------------------------------------

    def _zoom(self) -> float:
        """How much the matrix has been scaled since it was built."""
        return self.brackets[0].height / (len(self.shown_rows) * self.cell_height)

    def _span(self, cells: VGroup, color: ManimColor, pad_x: float, pad_y: float) -> Rectangle:
        """A frame round the slots of ``cells`` (centred on them, not on their glyphs: a thin "1" at one end of a
        row and a wide "0" at the other would leave one side tight), clear of them by ``pad_x`` cells left and
        right and ``pad_y`` above and below."""
        zoom = self._zoom()
        centres = np.array([c.get_center() for c in cells])
        low, high = centres.min(axis=0), centres.max(axis=0)
        slots_x = high[0] - low[0] + 0.9 * self.cell_width * zoom
        slots_y = high[1] - low[1] + 0.8 * self.cell_height * zoom
        width = max(cells.width, slots_x) + 2 * pad_x * self.cell_width * zoom
        height = max(cells.height, slots_y) + 2 * pad_y * self.cell_height * zoom
        return Rectangle(width=width, height=height, color=color, stroke_width=3).move_to((low + high) / 2)

    def row_frame(self, row: int, color: ManimColor = palette.HIGHLIGHT) -> Rectangle:
        """A rectangle around row ``row`` (animate it with Create, or Transform it to another frame)."""
        return self._span(self.get_row(row), color, pad_x=0.05, pad_y=0.05)

    def column_frame(self, col: int, color: ManimColor = palette.HIGHLIGHT) -> Rectangle:
        """A rectangle around column ``col``."""
        return self._span(self.get_column(col), color, pad_x=0.08, pad_y=0.05)  # clear of the brackets' ends

    def entry_frame(self, row: int, col: int, color: ManimColor = palette.HIGHLIGHT) -> Rectangle:
        """A rectangle around entry (``row``, ``col``)."""
        return self._span(VGroup(self.get_entry(row, col)), color, pad_x=0.03, pad_y=0.1)  # inside its cell

    def highlight_row(self, row: int, color: ManimColor = palette.HIGHLIGHT) -> Animation:
        """An animation drawing a frame around row ``row``."""
        return Create(self.row_frame(row, color))

    def fill_in(self, lag_ratio: float = 0.08, **kwargs) -> Animation:
        """An animation fading the entries in, row by row."""
        return LaggedStart(*(FadeIn(c, shift=0.1 * DOWN) for c in self.cells), lag_ratio=lag_ratio, **kwargs)

    def fit_within(self, width: float, height: float) -> LabelledMatrix:
        """Scale down to fit ``width`` × ``height``, but never below legible digits."""
        factor = min(1.0, width / self.width, height / self.height)
        factor = max(factor, MIN_FONT_SIZE / self.number_size())
        return self.scale(factor)
