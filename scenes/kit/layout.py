"""Layout the worked-example scenes share: matrix sizes for the sentence's length, placement below the title."""

from __future__ import annotations

from manim import DOWN, UP

from .matrices import LabelledMatrix

MAX_ROWS = 8  # rows drawn before a matrix abbreviates with an ellipsis
MAX_COLS = 5
TOP = 2.85  # y of the content's top edge, just below the title


def matrix_font(rows: int) -> float:
    """Digit size for a matrix of ``rows`` rows: smaller for long sentences."""
    return 34 if rows <= 5 else 22


def token_matrix(values, tokens: list[str], name: str, max_cols: int = MAX_COLS, **kwargs) -> LabelledMatrix:
    """A matrix with one row per token, its digits sized for the sentence's length."""
    font = matrix_font(len(tokens))
    return LabelledMatrix(
        values, row_labels=tokens, name=name, font_size=font, max_rows=MAX_ROWS, max_cols=max_cols, **kwargs
    )


def below_title(mob):
    """Move ``mob`` so its top edge sits just below the title."""
    return mob.next_to(TOP * UP, DOWN, buff=0)


def fit_width(mob, width: float):
    """Scale ``mob`` down (never up) to ``width``."""
    return mob.scale_to_fit_width(width) if mob.width > width else mob
