"""The lesson's component kit: text, tokens, labelled matrices, heatmaps and scales, bars, planes."""

from .bars import SoftmaxBars
from .base import LessonScene
from .heatmap import CONVENTION, Heatmap, token_cell
from .legend import ColorScale
from .matrices import LabelledMatrix, shown_indices
from .numbers import Number
from .text import (
    BODY,
    CAPTION,
    CELL,
    DISPLAY,
    DISPLAY_LARGE,
    FINE,
    FONT,
    FORMULA,
    FORMULA_LARGE,
    HEADING,
    HERO,
    LABEL,
    LEAD,
    PROMINENT,
    READOUT,
    SANS,
    SERIF,
    SMALL,
    TINY,
    TITLE,
    caption,
    formula,
    notation,
    number,
)
from .tokens import MIN_FONT_SIZE, TOKEN_FONT, TokenLabel, TokenRow, stagger
from .vectors import VectorPlane, nice_extent

__all__ = [
    "BODY",
    "CAPTION",
    "CELL",
    "CONVENTION",
    "DISPLAY",
    "DISPLAY_LARGE",
    "FINE",
    "FONT",
    "FORMULA",
    "FORMULA_LARGE",
    "HEADING",
    "HERO",
    "LABEL",
    "LEAD",
    "MIN_FONT_SIZE",
    "PROMINENT",
    "READOUT",
    "SANS",
    "SERIF",
    "SMALL",
    "TINY",
    "TITLE",
    "TOKEN_FONT",
    "ColorScale",
    "Heatmap",
    "token_cell",
    "LabelledMatrix",
    "LessonScene",
    "Number",
    "SoftmaxBars",
    "TokenLabel",
    "TokenRow",
    "VectorPlane",
    "caption",
    "formula",
    "nice_extent",
    "notation",
    "number",
    "shown_indices",
    "stagger",
]
