"""The lesson's component kit: tokens, labelled matrices, heatmaps, softmax bars, vector planes."""

from .bars import SoftmaxBars
from .base import LessonScene, notation
from .heatmap import CONVENTION, Heatmap
from .matrices import LabelledMatrix, shown_indices
from .tokens import MIN_FONT_SIZE, TOKEN_FONT, TokenLabel, TokenRow, stagger
from .vectors import VectorPlane, nice_extent

__all__ = [
    "CONVENTION",
    "MIN_FONT_SIZE",
    "TOKEN_FONT",
    "Heatmap",
    "LabelledMatrix",
    "LessonScene",
    "SoftmaxBars",
    "TokenLabel",
    "TokenRow",
    "VectorPlane",
    "nice_extent",
    "notation",
    "shown_indices",
    "stagger",
]
