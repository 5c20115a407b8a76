"""The lesson's component kit: text, tokens, labelled matrices, heatmaps, softmax bars, vector planes."""

from .bars import SoftmaxBars
from .base import LessonScene
from .heatmap import CONVENTION, Heatmap
from .matrices import LabelledMatrix, shown_indices
from .text import (
    BODY,
    CAPTION,
    DISPLAY,
    DISPLAY_LARGE,
    FINE,
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
)
from .tokens import MIN_FONT_SIZE, TOKEN_FONT, TokenLabel, TokenRow, stagger
from .vectors import VectorPlane, nice_extent

__all__ = [
    "BODY",
    "CAPTION",
    "CONVENTION",
    "DISPLAY",
    "DISPLAY_LARGE",
    "FINE",
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
    "Heatmap",
    "LabelledMatrix",
    "LessonScene",
    "SoftmaxBars",
    "TokenLabel",
    "TokenRow",
    "VectorPlane",
    "caption",
    "formula",
    "nice_extent",
    "notation",
    "shown_indices",
    "stagger",
]
