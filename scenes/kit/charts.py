"""Chart pieces of the scaling, limits and recap chapters: cell grids, value bars, panels."""

from __future__ import annotations

from collections.abc import Sequence

from manim import (
    DOWN,
    UP,
    Line,
    ManimColor,
    Rectangle,
    RoundedRectangle,
    Square,
    VGroup,
)

from . import palette
from .text import LEAD, SMALL, caption


def cell_grid(n: int, side: float, color: ManimColor = palette.HIGHLIGHT, opacity: float = 0.8) -> VGroup:
    """An ``n`` × ``n`` grid of attention cells filling a square of width ``side``: ``n`` rows of ``n``
    squares, row-major (rows are queries)."""
    return block_grid(n, n, side / n, color, opacity)


def block_grid(rows: int, cols: int, cell: float, color: ManimColor, opacity: float = 0.8) -> VGroup:
    """A ``rows`` × ``cols`` matrix drawn as its cells (squares of side ``cell``), without values: its shape."""
    grid = VGroup(
        *(
            VGroup(
                *(
                    Square(cell, stroke_width=1, stroke_color=palette.BACKGROUND).set_fill(color, opacity)
                    for _ in range(cols)
                )
            ).arrange(buff=0)
            for _ in range(rows)
        )
    )
    return grid.arrange(DOWN, buff=0)


def panel(heading: str, picture: VGroup, note: str, width: float = 6.6, height: float = 3.1) -> VGroup:
    """A framed card: a heading, a small picture and a one-line note below it.

    Parameters
    ----------
    heading
        The card's title.
    picture
        The illustration, scaled (up or down) to fill the room between heading and note.
    note
        One short explanatory line.
    width, height
        Size of the frame.

    Returns
    -------
    VGroup
        ``frame, heading, picture, note``.
    """
    frame = RoundedRectangle(corner_radius=0.15, width=width, height=height, stroke_color=palette.MUTED, stroke_width=2)
    title = caption(heading, LEAD, weight="BOLD")
    title.next_to(frame.get_top(), DOWN, buff=0.2)
    line = caption(note, SMALL, palette.MUTED)
    line.scale_to_fit_width(min(line.width, width - 0.4)).next_to(frame.get_bottom(), UP, buff=0.2)
    room = title.get_bottom()[1] - line.get_top()[1] - 0.3
    picture.scale(min(room / picture.height, (width - 0.6) / picture.width))  # as large as the card allows
    picture.move_to((title.get_bottom() + line.get_top()) / 2)
    return VGroup(frame, title, picture, line)


def value_bars(
    heights: Sequence[float],
    width: float,
    bar_width: float = 0.7,
    color: ManimColor = palette.ALERT,
) -> VGroup:
    """Bars standing on a common baseline (origin at the baseline's left end).

    Parameters
    ----------
    heights
        Height of each bar, in scene units (scale the data before calling).
    width
        Length of the baseline; the bars are spread evenly along it.
    bar_width
        Width of one bar.
    color
        Fill colour of the bars.

    Returns
    -------
    VGroup
        One Rectangle per value, bottoms on y = 0.
    """
    step = width / len(heights)
    bars = VGroup()
    for i, h in enumerate(heights):
        bar = Rectangle(width=bar_width, height=max(h, 1e-3), fill_color=color, fill_opacity=0.85, stroke_width=0)
        bar.move_to([step * (i + 0.5), 0, 0], aligned_edge=DOWN)
        bars.add(bar)
    return bars


def baseline(width: float) -> Line:
    """The axis line under :func:`value_bars` of the same width."""
    return Line([0, 0, 0], [width, 0, 0], color=palette.MUTED, stroke_width=2)
