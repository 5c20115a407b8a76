"""The tools: vectors and the dot product, row times column and the transpose, eˣ, softmax and a gradient."""

from __future__ import annotations

import numpy as np
from manim import (
    DL,
    DOWN,
    LEFT,
    RIGHT,
    UP,
    UR,
    Angle,
    AnimationGroup,
    Axes,
    Create,
    DashedLine,
    Dot,
    FadeIn,
    FadeOut,
    GrowArrow,
    Indicate,
    LaggedStart,
    Line,
    Rectangle,
    SurroundingRectangle,
    Transform,
    TransformFromCopy,
    VGroup,
    Write,
)

from attention_math.types import RowByColumn, SoftmaxSteps
from scenes.kit import (
    BODY,
    DISPLAY,
    FORMULA,
    LABEL,
    READOUT,
    LabelledMatrix,
    LessonScene,
    SoftmaxBars,
    VectorPlane,
    caption,
    formula,
    nice_extent,
    notation,
    palette,
    product_sign,
)
from scenes.kit.layout import SUBTITLE_TOP, TOP, below_title, fit_width
from scenes.kit.motion import give_way
from scenes.kit.numbers import fmt, places_for

# exp(·) for e to the ·: an index in an exponent would be a script of a script, too small to read at 480p; "score" in
# words (s is an RNN's state, docs/notation.md)
SOFTMAX = r"\mathrm{softmax}(\text{score})_i = \frac{\exp(\text{score}_i)}{\sum_j \exp(\text{score}_j)}"
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


class NormalizeExponentials(LessonScene):
    """eˣ is positive and grows fast; softmax divides e to each score by their sum; a gradient, in training."""

    def construct(self) -> None:
        self.show_title()
        s = self.values.scaling_demo.softmax_steps
        axes, curve, label = self.exponential(s)
        marks = self.marks(axes, s)
        rule = notation(formula(SOFTMAX, size=READOUT)).next_to(axes, RIGHT, buff=0.6)
        fit_width(rule, 6.8 - rule.get_left()[0]).next_to(axes, RIGHT, buff=0.6).align_to(axes, UP)  # in the frame
        steps = self.steps(s).next_to(rule, DOWN, aligned_edge=LEFT, buff=0.35)
        bars = SoftmaxBars(
            s.weights, [value_tex(z) for z in s.z], total=s.weight_sum, height=1.5, bar_width=0.8, weights=True
        )
        bars.next_to(steps, DOWN, aligned_edge=LEFT, buff=0.3).shift(0.5 * RIGHT)  # its scale left of it

        zoom = self.near_zero(axes)
        self.narrate("e to the x is always positive, and it grows fast.", Create(axes), Create(curve), FadeIn(label))
        self.on_words("always positive", FadeIn(zoom))  # where the curve seems to lie on the axis, drawn taller
        self.narrate(
            "Take any numbers, call them scores. Softmax divides e to each score by the sum of e to every score.",
            Write(rule),
        )
        weights = " and ".join(value_tex(w) for w in s.weights)
        self.narrate(
            f"For the scores {' and '.join(value_tex(z) for z in s.z)}, that gives the weights {weights}.",
            FadeIn(marks),
            FadeIn(steps),
            bars.grow(),
        )
        self.narrate(
            f"The weights are positive, and they always add up to {value_tex(s.weight_sum, 0)}.",
            Indicate(bars.get_total(), color=palette.HIGHLIGHT),
        )
        self.train(leaving=VGroup(axes, curve, label, zoom, marks, rule, steps, bars))
        self.finish_narration()
        self.wait(1.0)

    @staticmethod
    def exponential(s: SoftmaxSteps) -> tuple[Axes, VGroup, VGroup]:
        """Axes from below zero to just past the largest score, e to the x on them, and its name."""
        low, high = min(0.0, float(s.z.min())) - 2.0, float(s.z.max()) + 0.3
        axes = Axes(
            x_range=(low, high, 1),
            y_range=(0, float(np.exp(high)), float(np.exp(high))),
            x_length=4.8,  # the right half is the formula's: its worked numbers and bars need the room
            y_length=TOP - SUBTITLE_TOP - 0.6,
            tips=False,
            axis_config={"stroke_color": palette.MUTED, "include_ticks": False},
        )
        below_title(axes).to_edge(LEFT, buff=0.7)
        curve = axes.plot(np.exp, x_range=(low, high), color=palette.HIGHLIGHT, stroke_width=5)
        label = notation(formula(r"e^{x} = \exp(x)", size=FORMULA, color=palette.HIGHLIGHT))
        label.next_to(axes.c2p(high, np.exp(high)), LEFT, buff=0.5).shift(0.3 * DOWN)  # below the title
        x_name = notation(formula("x", size=FORMULA, color=palette.MUTED)).next_to(axes.x_axis, RIGHT, buff=0.1)
        return axes, VGroup(curve), VGroup(label, x_name)

    @staticmethod
    def near_zero(axes: Axes) -> VGroup:
        """The curve left of x = 1, where at the plot's scale it lies on the axis, in an inset on a scale to
        e: above zero all along, e⁰ = 1 marked; a box round the stretch it enlarges, a line to it."""
        low = axes.x_range[0]
        inset = Axes(
            x_range=(low, 1, 1),
            y_range=(0, np.e, 1),
            x_length=2.6,
            y_length=1.7,
            tips=False,
            axis_config={"stroke_color": palette.MUTED, "include_ticks": False},
        )
        curve = inset.plot(np.exp, x_range=(low, 1), color=palette.HIGHLIGHT, stroke_width=4)
        one = Dot(inset.c2p(0, 1), color=palette.TEXT, radius=0.06)
        named = notation(formula(rf"e^{{0}} = {value_tex(np.exp(0))}", size=FORMULA))
        named.next_to(one, LEFT, buff=0.15).shift(0.3 * UP)  # above the curve's left, where it is lower
        title = caption("near 0, drawn taller", LABEL, palette.MUTED).next_to(inset, UP, buff=0.15)
        frame = SurroundingRectangle(VGroup(inset, named, title), color=palette.MUTED, buff=0.15, corner_radius=0.08)
        frame.set_fill(palette.BACKGROUND, opacity=1)  # the plot's y-axis passes behind it
        figure = VGroup(frame, inset, curve, one, named, title)
        figure.next_to(axes.c2p(low, 0), UR, buff=0.2).shift(1.4 * UP)  # above the flat stretch it enlarges
        stretch = Rectangle(  # that stretch, on the plot: as tall as the inset's whole scale
            width=axes.c2p(1, 0)[0] - axes.c2p(low, 0)[0], height=max(axes.c2p(0, np.e)[1] - axes.c2p(0, 0)[1], 0.12)
        )
        stretch.set_stroke(palette.MUTED, 2).move_to(axes.c2p(low, 0), aligned_edge=DL)
        link = Line(stretch.get_top(), frame.get_bottom(), color=palette.MUTED, stroke_width=2)
        return VGroup(stretch, link, figure)

    @staticmethod
    def marks(axes: Axes, s: SoftmaxSteps) -> VGroup:
        """Each score on the x-axis, a dashed line up to e to the score, a dot there."""
        marks = VGroup()
        for z, e in zip(s.z, s.exp, strict=True):
            foot, top = axes.c2p(z, 0), axes.c2p(z, e)
            name = formula(value_tex(z), size=FORMULA).next_to(foot, DOWN, buff=0.15)
            marks.add(DashedLine(foot, top, color=palette.TEXT, stroke_width=2), Dot(top, color=palette.TEXT), name)
        return marks

    @staticmethod
    def steps(s: SoftmaxSteps) -> VGroup:
        """e to each score, then their sum."""
        lines = VGroup(
            *(formula(rf"e^{{{value_tex(z)}}} = {value_tex(e)}", size=FORMULA) for z, e in zip(s.z, s.exp, strict=True))
        )
        total = notation(formula(r"\sum_j \exp(\text{score}_j)", size=FORMULA))
        value = formula(rf"= {value_tex(s.exp_sum)}", size=FORMULA).next_to(total, RIGHT, buff=0.15)
        lines.add(VGroup(total, value.match_y(total[0][0])))  # on the line of the Σ, not of its subscript
        return lines.arrange(DOWN, aligned_edge=LEFT, buff=0.2)

    def train(self, leaving: VGroup) -> None:
        """An error against one parameter (a drawn bowl, no numbers): the gradient is the slope where the
        parameter stands, and each training step moves the parameter against it, so the slope flattens.
        It comes in, whole, as ``leaving`` (the softmax picture) goes."""
        axes = Axes(
            x_range=(0, 2, 1),
            y_range=(0, 1, 1),
            x_length=9.0,
            y_length=TOP - SUBTITLE_TOP - 1.0,
            tips=False,
            axis_config={"stroke_color": palette.MUTED, "include_ticks": False},
        )
        below_title(axes).set_x(0)
        error = axes.plot(bowl, x_range=(0, 2), color=palette.TEXT, stroke_width=4)
        names = VGroup(
            caption("a parameter", LABEL, palette.MUTED).next_to(axes.x_axis, DOWN, buff=0.15).align_to(axes, RIGHT),
            caption("the error", LABEL, palette.MUTED).next_to(axes.y_axis, RIGHT, buff=0.15).align_to(axes, UP),
        )
        dot = Dot(axes.c2p(STEPS[0], bowl(STEPS[0])), color=palette.HIGHLIGHT, radius=0.12)
        slope = tangent(axes, STEPS[0])
        gradient = caption("gradient: the slope here", BODY, palette.HIGHLIGHT)
        gradient.next_to(slope, LEFT, buff=0.3).shift(0.3 * UP)
        self.play(give_way(leaving, FadeIn(VGroup(axes, error, names, dot))), run_time=1.2)
        self.narrate(
            "A gradient says how a small change of a parameter changes the error, "
            "and training nudges every parameter against it."
        )
        self.on_words("A gradient", Create(slope), FadeIn(gradient), run_time=1)
        for n, x in enumerate(STEPS[1:]):  # the first step as training is named
            step = (dot.animate.move_to(axes.c2p(x, bowl(x))), Transform(slope, tangent(axes, x)))
            if n == 0:
                self.on_words("training nudges", *step, run_time=0.8)
            else:
                self.play(*step, run_time=0.8)


STEPS = (1.8, 1.45, 1.2, 1.07)  # where the drawn parameter stands, step after step (a picture, not a value)


def bowl(x: float) -> float:
    """The drawn error curve: a bowl whose lowest point is at x = 1."""
    return 0.1 + 0.8 * (x - 1) ** 2


def tangent(axes: Axes, x: float) -> Line:
    """A short segment of the bowl's tangent at ``x``: the gradient drawn as a slope."""
    y, slope, half = bowl(x), 1.6 * (x - 1), 0.25
    return Line(axes.c2p(x - half, y - slope * half), axes.c2p(x + half, y + slope * half)).set_stroke(
        palette.HIGHLIGHT, 5
    )
