"""The layout grid every scene follows, and the matrix sizes the worked-example scenes share.

The frame (14.2 × 8 units) is cut into bands: the title band at the top, the content area
(the main figure on the left or centre, an optional side panel on the right), a caption band,
and at the bottom the subtitle band, which players cover with the subtitles: nothing goes there.
``scenes.framing`` checks every scene against these numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from manim import DOWN, UP, Mobject

from .matrices import LabelledMatrix

M = TypeVar("M")

MAX_ROWS = 8  # rows drawn before a matrix abbreviates with an ellipsis
MAX_COLS = 5
TOP = 2.85  # y of the content's top edge, just below the title
SAFE_MARGIN = 0.15  # units kept clear inside the frame's edges
SUBTITLE_TOP = -3.1  # y of the subtitle band's top edge: players draw subtitles below it
MIDDLE = (TOP + SUBTITLE_TOP) / 2  # y of the content area's centre
CAPTION_TOP = -2.4  # y of the caption band's top edge (captions sit between it and the subtitle band)
SIDE_PANEL = 2.4  # x where the side panel starts, when a scene has one
GAP = 0.1  # between a band's edge and what sits in it


def matrix_font(rows: int) -> float:
    """Digit size for a matrix of ``rows`` rows: smaller for long sentences."""
    return 34 if rows <= 5 else 22


def token_matrix(values, tokens: list[str], name: str, max_cols: int = MAX_COLS, **kwargs) -> LabelledMatrix:
    """A matrix with one row per token, its digits sized for the sentence's length."""
    font = matrix_font(len(tokens))
    return LabelledMatrix(
        values, row_labels=tokens, name=name, font_size=font, max_rows=MAX_ROWS, max_cols=max_cols, **kwargs
    )


def below_title(mob: Mobject) -> Mobject:
    """Move ``mob`` so its top edge sits just below the title."""
    return mob.next_to(TOP * UP, DOWN, buff=0)


def caption_band(mob: Mobject) -> Mobject:
    """Move ``mob`` (a caption, a legend, a takeaway) up or down so its bottom sits just above the subtitle band."""
    return mob.shift((SUBTITLE_TOP + GAP - mob.get_bottom()[1]) * UP)


def fit_content(mob: Mobject, width: float = 2 * (7.1 - SAFE_MARGIN), bottom: float = SUBTITLE_TOP + GAP) -> Mobject:
    """Scale ``mob`` (up or down) to the largest size that fits ``width`` and the height from below the title
    to ``bottom``, and put it there, centred: the main figure as large as the frame allows."""
    mob.scale(min(width / mob.width, (TOP - bottom) / mob.height))
    return below_title(mob).set_x(0)


def grow_within(mob: Mobject, width: float, height: float) -> Mobject:
    """Scale ``mob`` to ``width`` (down or up), but grow it no taller than ``height``: a figure that fits
    the frame's width fills the room it is given, and one too wide still shrinks to fit."""
    return mob.scale(min(width / mob.width, max(1.0, height / mob.height)))


def drawn_to_fit(draw: Callable[[float], M], size: float, fits: Callable[[M], bool], floor: float = 0.05) -> M:
    """``draw(size)``, with ``size`` (a cell's side) cut by a tenth until the drawing ``fits`` or reaches
    ``floor``: a figure made smaller by drawing its cells smaller, never by scaling its text."""
    drawing = draw(size)
    while size > floor and not fits(drawing):
        size *= 0.9
        drawing = draw(size)
    return drawing


def to_middle(mob: Mobject) -> float:
    """Centre ``mob`` in the content area's height, while it is the whole picture; how far it moved down (to move
    it back up, with an animation, when what goes below it comes in)."""
    drop = float(mob.get_y()) - MIDDLE
    mob.shift(drop * DOWN)
    return drop


def fit_width(mob: Mobject, width: float) -> Mobject:
    """Scale ``mob`` down (never up) to ``width``."""
    return mob.scale_to_fit_width(width) if mob.width > width else mob
