"""The lesson's component kit: tokens, labelled matrices, heatmaps, softmax bars, vector planes."""

from .bars import SoftmaxBars
from .base import LessonScene, notation
from .heatmap import CONVENTION, Heatmap
from .matrices import LabelledMatrix, shown_indices
from .tokens import TOKEN_FONT, TokenLabel, TokenRow
from .vectors import VectorPlane, nice_extent

__all__ = [
    "CONVENTION",
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
]
