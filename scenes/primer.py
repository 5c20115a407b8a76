"""The tools: vectors and the dot product, row times column and the transpose (eˣ, softmax and a gradient:
``softmax_primer.py``)."""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Angle,
    AnimationGroup,
    Create,
    DashedLine,
    FadeIn,
    FadeOut,
    GrowArrow,
    Indicate,
    LaggedStart,
    Line,
    TransformFromCopy,
    VGroup,
    Write,
)

from attention_math.types import RowByColumn
from scenes.kit import (
    BODY,
    DISPLAY,
    FORMULA,
    LabelledMatrix,
    LessonScene,
    VectorPlane,
    caption,
    formula,
    nice_extent,
    notation,
    palette,
    product_sign,
)
from scenes.kit.layout import SUBTITLE_TOP, TOP, below_title
from scenes.kit.numbers import fmt, places_for

# exp(·) for e to the ·: an index in an exponent would be a script of a script, too small to read at 480p; "score" in
# words (s is an RNN's state, docs/notation.md)
TRANSPOSE = r"^{T}"  # the transpose in TeX (docs/notation.md): a superscript T, n is the length
MATRIX_DIGITS = 38  # the digits of the small matrices of the row-by-column scene


def vector_tex(values: np.ndarray) -> str:
    """A vector in TeX brackets, with the decimals its values need (at most 2)."""
    places = places_for(np.asarray(values, dtype=float), 2)
    return r"\left[" + r",\ ".join(fmt(v, places) for v in values) + r"\right]"


def value_tex(value: float, places: int = 2) -> str:
    """One value with the decimals it needs (at most ``places``)."""
    return fmt(value, places_for(np.array([value]), places))


class MultiplyVectors(LessonScene):
    """A vector as a list and as an arrow, its length; the dot product by arithmetic and by geometry."""

    def construct(self) -> None:
        self.show_title()
        v = self.values.worked_example.vectors
        plane = VectorPlane(nice_extent(np.array([v.a, v.b]), margin=0.2), width=6.2, height=TOP - SUBTITLE_TOP - 0.2)
        below_title(plane).to_edge(LEFT, buff=0.6)
        arrows = VGroup(plane.arrow(v.a, palette.TEXT), plane.arrow(v.b, palette.TEXT))
        names = VGroup(
            *(
                notation(formula(name, size=FORMULA)).next_to(arrow.get_end(), direction, buff=0.12)
                for name, arrow, direction in zip("ab", arrows, (RIGHT, UP), strict=True)
            )
        )
        lists = VGroup(
            formula(rf"a = {vector_tex(v.a)}", size=FORMULA), formula(rf"b = {vector_tex(v.b)}", size=FORMULA)
        ).arrange(RIGHT, buff=0.7)
        length = VGroup(
            notation(formula(r"|a| = \sqrt{a[1]^2 + a[2]^2}", size=FORMULA)),
            formula(
                rf"= \sqrt{{{value_tex(v.squares_a[0])} + {value_tex(v.squares_a[1])}}} = {value_tex(v.norm_a)}",
                size=FORMULA,
            ),
        ).arrange(RIGHT, buff=0.15)
        length_b = formula(rf"|b| = {value_tex(v.norm_b)}", size=FORMULA)
        products = " + ".join(rf"{value_tex(x)} \times {value_tex(y)}" for x, y in zip(v.a, v.b, strict=True))
        arithmetic = VGroup(
            notation(formula(r"a \cdot b = a[1]\,b[1] + a[2]\,b[2]", size=FORMULA)),
            formula(rf"= {products}", size=FORMULA),
            formula(rf"= {' + '.join(value_tex(t) for t in v.terms)} = {value_tex(v.dot)}", size=FORMULA),
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.18)
        cos = formula(r"\cos\theta", size=FORMULA)
        rule = VGroup(formula(r"a \cdot b = |a|\,|b|", size=FORMULA), cos).arrange(RIGHT, buff=0.12)
        geometry = VGroup(
            notation(rule),
            formula(
                rf"= {value_tex(v.norm_a)} \times {value_tex(v.norm_b)} \times {value_tex(v.cosine)} "
                rf"\approx {value_tex(v.geometric)}",  # rounded factors: their product is near, not equal
                size=FORMULA,
            ),
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.18)
        lengths = VGroup(length, length_b).arrange(DOWN, aligned_edge=LEFT, buff=0.18)
        panel = VGroup(lists, lengths, arithmetic, geometry)
        panel.arrange(DOWN, aligned_edge=LEFT, buff=0.5)
        panel.next_to(plane, RIGHT, buff=0.6).align_to(plane, UP)
        origin = plane.c2p(0, 0)
        angle = Angle(Line(origin, arrows[0].get_end()), Line(origin, arrows[1].get_end()), radius=0.7)
        angle.set_stroke(palette.HIGHLIGHT, 4)
        theta = notation(formula(r"\theta", size=FORMULA, color=palette.HIGHLIGHT)).move_to(
            angle.point_from_proportion(0.5) + 0.3 * (angle.point_from_proportion(0.5) - origin)
        )

        self.narrate(
            "A vector is a list of numbers, drawn as an arrow from the origin.",
            Create(plane),
            FadeIn(lists),
            GrowArrow(arrows[0]),
            GrowArrow(arrows[1]),
            FadeIn(names),
        )
        legs = self.legs(plane, v.a)
        self.narrate("Its length, by Pythagoras, is the square root of the sum of the squares.")
        self.on_words("Pythagoras", Create(legs[:2]), FadeIn(legs[2:]), run_time=1.0)
        self.on_words("square root", FadeIn(length), FadeIn(length_b))
        self.narrate(f"The dot product multiplies matching entries, then adds them: {value_tex(v.dot)}.")
        self.play(FadeOut(legs), FadeIn(arithmetic, shift=0.1 * DOWN), run_time=0.8)  # read while it is said
        self.narrate("Geometrically, it is both lengths times the cosine of the angle between the arrows.")
        self.play(Create(angle), FadeIn(theta), FadeIn(geometry, shift=0.1 * DOWN), run_time=0.8)
        self.narrate("So the angle counts, and so do the lengths.")
        self.play(Indicate(VGroup(angle, theta, cos), color=palette.HIGHLIGHT, scale_factor=1), run_time=1.2)
        self.play(Indicate(VGroup(arrows, lengths), color=palette.HIGHLIGHT, scale_factor=1), run_time=1.2)
        self.finish_narration()
        self.wait(1.0)

    @staticmethod
    def legs(plane: VectorPlane, a: np.ndarray) -> VGroup:
        """The right triangle under ``a``: its two entries as legs, dashed and labelled, ``a`` the hypotenuse."""
        corner = plane.c2p(a[0], 0)
        across = DashedLine(plane.c2p(0, 0), corner, color=palette.HIGHLIGHT)
        up = DashedLine(corner, plane.c2p(a[0], a[1]), color=palette.HIGHLIGHT)
        return VGroup(
            across,
            up,
            formula(value_tex(a[0]), size=FORMULA, color=palette.HIGHLIGHT).next_to(across, DOWN, buff=0.1),
            formula(value_tex(a[1]), size=FORMULA, color=palette.HIGHLIGHT).next_to(up, RIGHT, buff=0.1),
        )


class MultiplyMatrices(LessonScene):
    """The transpose turns rows into columns; a matrix product dots each row with each column: Q·Kᵀ."""

    def construct(self) -> None:
        self.show_title()
        cs = self.values.cat_sat
        r = cs.row_by_column
        q = LabelledMatrix(r.left, row_labels=cs.tokens, name="Q", color=palette.QUERY, font_size=MATRIX_DIGITS)
        k = LabelledMatrix(r.right_rows, row_labels=cs.tokens, name="K", color=palette.KEY, font_size=MATRIX_DIGITS)
        kt = LabelledMatrix(
            r.transpose, col_labels=cs.tokens, name=f"K{TRANSPOSE}", color=palette.KEY, font_size=MATRIX_DIGITS
        )
        result = LabelledMatrix(
            r.product,
            row_labels=cs.tokens,
            col_labels=cs.tokens,
            name=f"Q K{TRANSPOSE}",
            font_size=MATRIX_DIGITS,
        )
        times, equals = product_sign(48), notation(formula("=", size=48))  # the lesson's product sign
        row = VGroup(q, times, kt, equals, result).arrange(RIGHT, buff=0.45)
        below_title(row).set_x(0)
        for m in (q, kt, result):
            m.shift((row.get_top()[1] - m.get_top()[1]) * UP)  # names on one line
        k.move_to(q)
        arrow = notation(formula(r"\longrightarrow", size=48)).move_to(times)

        self.narrate("A matrix is a table of numbers: here K, with one row per word.", FadeIn(k))
        rows, cols = r.right_rows.shape
        self.narrate(
            "Its transpose, K transpose, turns each row into a column.",
            FadeIn(arrow),
            FadeIn(kt.get_frame()),
            LaggedStart(  # one row at a time turns into its column: never all the digits through one point
                *(
                    AnimationGroup(*(TransformFromCopy(k.get_entry(i, j), kt.get_entry(j, i)) for j in range(cols)))
                    for i in range(rows)
                ),
                lag_ratio=0.9,
            ),
        )
        self.play(FadeOut(k), FadeOut(arrow), run_time=0.5)
        same = " Here they happen to hold the same numbers." if np.array_equal(r.left, r.right_rows) else ""
        self.narrate("On its left, a second table, Q, also one row per word.")
        self.play(FadeIn(q), FadeIn(times), run_time=0.8)  # as it is named
        self.narrate("Later, Q will hold queries and K keys; for now they are just two tables." + same)
        self.on_words("for now", FadeIn(equals), FadeIn(result.get_frame()), run_time=0.8)  # where their product goes

        i, j = r.row, r.col
        frames = VGroup(q.row_frame(i), kt.column_frame(j))
        line = self.entry_line(r).next_to(row, DOWN, buff=0.3)
        entry_frame = result.entry_frame(i, j)
        self.narrate("A matrix product takes a row on the left and a column on the right, and dots them.")
        self.on_words("a row", Create(frames[0]), run_time=0.6)  # each framed as it is named, then their products
        self.on_words("a column", Create(frames[1]), run_time=0.6)
        self.on_words("dots them", Write(line), run_time=1.2)
        self.narrate(
            f"That dot product, {value_tex(r.entry)}, is one entry of the result.",
            TransformFromCopy(line[-1], result.get_entry(i, j)),
            Create(entry_frame),
        )
        rest = [(a, b) for a, b in np.ndindex(r.product.shape) if (a, b) != (i, j)]
        self.narrate(
            "So Q times K transpose dots every row of Q with every row of K: every pair of rows, at once.",
            FadeOut(frames),
            FadeOut(entry_frame),
            FadeOut(line),
            *(FadeIn(result.get_entry(a, b)) for a, b in rest),
        )
        (n, d), m = r.left.shape, r.transpose.shape[1]
        shapes = VGroup(
            formula(rf"({n} \times {d})\,({d} \times {m}) \to {n} \times {m}", size=DISPLAY),
            caption("the inner sizes must match", BODY, palette.MUTED),
        ).arrange(RIGHT, buff=0.5)
        shapes.next_to(row, DOWN, buff=0.3)  # where the worked entry was: the rule the later chapters lean on
        self.narrate(
            f"In shapes: {n} by {d} times {d} by {m} gives {n} by {m}. The inner sizes must match.",
            Write(shapes[0]),
        )
        self.on_words("inner sizes", FadeIn(shapes[1]))
        self.finish_narration()
        self.wait(1.0)

    @staticmethod
    def entry_line(r: RowByColumn) -> VGroup:
        """row · column = the products = the entry, its last part the entry alone."""
        q_row, k_row = r.left[r.row], r.right_rows[r.col]
        products = " + ".join(rf"{value_tex(x)} \times {value_tex(y)}" for x, y in zip(q_row, k_row, strict=True))
        return VGroup(
            formula(rf"{products} =", size=DISPLAY), formula(value_tex(r.entry), size=DISPLAY, color=palette.HIGHLIGHT)
        ).arrange(RIGHT, buff=0.15)
