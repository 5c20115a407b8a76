"""After the heads: Add & Norm, the residual and the layer norm, on the worked example's own numbers.

The architecture scene draws "Add & Norm" after attention; this scene does it: X is added back to the heads'
output (the residual), then each row is shifted to mean 0 and scaled to standard deviation 1 (``attention_math``'s
``worked_example.add_norm``; layer norm's learned scale and shift are named, not applied).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from manim import (
    LEFT,
    RIGHT,
    UP,
    Arrow,
    Create,
    FadeIn,
    FadeOut,
    Indicate,
    Mobject,
    VGroup,
    Write,
)

from attention_math import claims
from attention_math.types import WorkedExample
from scenes.kit import BODY, MIN_FONT_SIZE, LabelledMatrix, LessonScene, caption, formula, palette
from scenes.kit.diagrams import joined
from scenes.kit.layout import (
    MAX_ROWS,
    MIDDLE,
    SUBTITLE_TOP,
    TOP,
    below_title,
    caption_band,
    matrix_font,
    token_matrix,
)
from scenes.kit.motion import give_way
from scenes.kit.numbers import fmt
from scenes.kit.text import FORMULA, READOUT

WIDTH = 13.0  # the matrices' row, clear of the frame's edges


class AddAndNorm(LessonScene):
    """X + output = the residual; then the residual, row by row, to mean 0 and standard deviation 1, one entry
    worked."""

    def construct(self) -> None:
        we = self.values.worked_example
        tokens, an = we.tokens, we.add_norm
        self.show_title()
        output_name = joined(len(we.heads)) + ("" if we.W_O is None else r"\, W_{O}")

        def summed(cols: int) -> VGroup:  # X + output = residual, ``cols`` columns of each at most
            return level(
                VGroup(
                    token_matrix(we.X, tokens, "X", max_cols=cols),
                    formula("+", size=READOUT),
                    self.matrix(we.output, output_name, len(tokens), cols),
                    formula("=", size=READOUT),
                    self.matrix(an.residual, rf"X + {output_name}", len(tokens), cols),
                ).arrange(RIGHT, buff=0.35)
            )

        sum_row = abreast(summed, below=0.1)
        x, plus, out, equals, residual = sum_row
        sum_row.shift((MIDDLE - sum_row.get_y()) * UP)  # alone on screen: centred in the content area
        self.narrate(
            "One more step ends the attention block. The input X is added back to the heads' output, number by number.",
            FadeIn(x),
            FadeIn(plus),
            FadeIn(out),
        )
        self.on_words(
            "number by number", FadeIn(equals), FadeIn(residual.get_frame()), residual.fill_in(), run_time=1.5
        )
        firsts = [m.get_entry(0, 0) for m in (x, out, residual)]  # one number of each: this one plus that one
        self.play(*(Indicate(e, color=palette.HIGHLIGHT) for e in firsts), run_time=1.0)
        self.narrate(
            "This is the residual connection, the 'Add' of Add and Norm: each token keeps its own vector, "
            "and attention adds its context to it."
        )
        frames = [m.row_frame(0) for m in (x, out, residual)]  # the first token's row, through the sum
        self.on_words("keeps its own", Create(frames[0]), run_time=0.8)
        self.on_words("attention adds", Create(frames[1]), run_time=0.8)
        self.on_words("context to it", Create(frames[2]), run_time=0.8)
        self.normalize(we, residual, rf"X + {output_name}", frames[2], VGroup(x, plus, out, equals, *frames[:2]))

    def normalize(
        self, we: WorkedExample, residual: LabelledMatrix, name: str, frame: Mobject, leaving: VGroup
    ) -> None:
        """The residual moves left, its rows named again; its rows, normalized, appear to its right, the first
        row's first entry worked by hand below them."""
        an, tokens = we.add_norm, we.tokens

        def normalized(cols: int) -> VGroup:  # the residual → its rows normalized
            return level(
                VGroup(
                    token_matrix(an.residual, tokens, name, max_cols=cols, places=3),  # as the worked entry reads it
                    Arrow(LEFT, RIGHT, color=palette.MUTED, buff=0),
                    self.matrix(an.normed, r"\text{norm}", len(tokens), cols, places=2),
                ).arrange(RIGHT, buff=0.5)
            )

        r, mean, spread = an.residual[0, 0], an.mean[0], an.spread[0]
        worked = VGroup(
            caption(
                f"row of “{tokens[0]}”, to three places: mean {fmt(mean, 3)}, standard deviation {fmt(spread, 3)}",
                BODY,
                palette.MUTED,
            ),
            formula(
                rf"\frac{{{fmt(r, 3)} - {fmt(mean, 3)}}}{{{fmt(spread, 3)}}} \approx {fmt(an.normed[0, 0])}",
                size=FORMULA,
            ),
        ).arrange(RIGHT, buff=0.5)
        caption_band(worked.scale(min(1.0, WIDTH / worked.width)).set_x(0))
        later = caption_band(
            caption("next: a learned scale and shift, the feed-forward network, Add & Norm again", BODY, palette.MUTED)
        )
        moved, arrow, normed = abreast(normalized, below=worked.height + 0.4)  # the worked line below them
        frames = VGroup(moved.row_frame(0), normed.row_frame(0))
        self.narrate(
            "Then each row is normalized: its mean is subtracted, and it is divided by its standard deviation, "
            "the square root of its variance."
        )
        self.play(FadeOut(leaving), run_time=0.6)  # the sum's other terms go first: the residual moves into their place
        # out, then in at its new place with a digit more and its rows named: a morph garbled the digits, and a
        # cross-fade printed the two over each other
        self.play(FadeOut(residual), FadeOut(frame), run_time=0.4)
        self.play(FadeIn(moved), Create(frames[0]), run_time=0.6)
        self.on_words("its mean is subtracted", FadeIn(worked[0]), run_time=0.8)  # the row's two numbers, as named
        self.on_words("divided", FadeIn(arrow), FadeIn(normed.get_frame()), normed.fill_in(), run_time=1.5)
        self.play(Write(worked[1]), Create(frames[1]), run_time=1.5)  # its first entry worked, as the rule is said
        self.narrate(claims.normalized(an.spread).text)
        row = an.normed[0]  # fmt writes no "−0.000"
        now = caption(
            f"row of “{tokens[0]}” now: mean {fmt(float(np.mean(row)), 3)}, "
            f"standard deviation {fmt(float(np.std(row)), 3)}",
            BODY,
        )
        caption_band(now.scale(min(1.0, WIDTH / now.width)).set_x(0))  # the worked line read: the row's numbers after
        self.play(give_way(worked, FadeIn(now)), run_time=1.0)
        worked = now
        self.narrate(
            "A learned scale and shift follow, left out here. Then comes the feed-forward network, "
            "with an Add and Norm of its own."
        )
        self.on_words("A learned scale", give_way(worked, FadeIn(later)))
        self.wait(2)

    @staticmethod
    def matrix(values, name: str, rows: int, cols: int, places: int | None = None) -> LabelledMatrix:
        """A matrix beside X: the same rows and digit size, no row labels of its own, ``cols`` columns at most."""
        return LabelledMatrix(
            values, name=name, font_size=matrix_font(rows), max_rows=MAX_ROWS, max_cols=cols, places=places
        )


def level(row: VGroup) -> VGroup:
    """Every part of ``row`` moved up or down to the first matrix's rows: names of different heights above
    them (X, [Z⁽¹⁾ Z⁽²⁾]) left their rows a few pixels apart."""
    middle = row[0].cells.get_y()
    for part in row[1:]:
        part.shift((middle - (part.cells if isinstance(part, LabelledMatrix) else part).get_y()) * UP)
    return row


def abreast(row_of: Callable[[int], VGroup], below: float) -> VGroup:
    """``row_of(cols)``, matrices side by side with as many columns each (up to 8) as stay legible once the row is
    scaled to the frame's width and to ``below`` clear above the subtitle band; below the title, that large."""
    room = TOP - (SUBTITLE_TOP + below)

    def scale(row: VGroup) -> float:
        return min(WIDTH / row.width, room / row.height)

    def legible(row: VGroup) -> bool:
        matrices = [m for m in row if isinstance(m, LabelledMatrix)]
        smallest = min(min(m.number_size(), m.label_size()) for m in matrices)
        return scale(row) * smallest >= MIN_FONT_SIZE

    row = next((r for r in map(row_of, range(8, 2, -1)) if legible(r)), None) or row_of(3)
    return below_title(row.scale(scale(row))).set_x(0)
