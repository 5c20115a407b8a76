"""The tools, part 3: exponentials, softmax, and the gradients that learning follows."""

from __future__ import annotations

import numpy as np
from manim import (
    DL,
    DOWN,
    LEFT,
    RIGHT,
    UP,
    UR,
    Axes,
    Create,
    DashedLine,
    Dot,
    FadeIn,
    Indicate,
    Line,
    Rectangle,
    SurroundingRectangle,
    Transform,
    VGroup,
    Write,
)

from attention_math.types import SoftmaxSteps
from scenes.kit import (
    BODY,
    FORMULA,
    LABEL,
    READOUT,
    LessonScene,
    SoftmaxBars,
    caption,
    formula,
    notation,
    palette,
)
from scenes.kit.layout import SUBTITLE_TOP, TOP, below_title, fit_width
from scenes.kit.motion import give_way
from scenes.primer import value_tex

# exp(·) for e to the ·: an index in an exponent would be a script of a script, too small to read at 480p; "score" in
# words (s is an RNN's state, docs/notation.md)


SOFTMAX = r"\mathrm{softmax}(\text{score})_i = \frac{\exp(\text{score}_i)}{\sum_j \exp(\text{score}_j)}"


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
