"""Chapter "Why divide by √d_k": dot products grow with dimension, softmax saturates, the fix."""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Animation,
    Create,
    DashedLine,
    Dot,
    FadeIn,
    FadeOut,
    FadeTransform,
    GrowFromEdge,
    Indicate,
    LaggedStart,
    Line,
    ManimColor,
    Rectangle,
    SurroundingRectangle,
    Text,
    Transform,
    VGroup,
    Write,
)

from attention_math.types import SaturationDemo, VarianceDemo
from scenes.kit import (
    BODY,
    CAPTION,
    DISPLAY,
    LABEL,
    SERIF,
    TITLE,
    LessonScene,
    SoftmaxBars,
    caption,
    formula,
    notation,
    number,
    palette,
)
from scenes.kit.base import READ_HOLD
from scenes.kit.charts import baseline, value_bars
from scenes.kit.layout import caption_band
from scenes.kit.numbers import fmt, fmt_int

CHART_WIDTH = 8.0
CHART_HEIGHT = 3.4
GAUGE_WIDTH = 3.0


def bar_labels(bars: VGroup, texts: list[str], color: ManimColor = palette.TEXT) -> VGroup:
    """One number above each bar."""
    return VGroup(
        *(caption(t, CAPTION, color, font=SERIF).next_to(bar, UP, buff=0.1) for bar, t in zip(bars, texts, strict=True))
    )


def row_under(bars: VGroup, texts: list[str], y: float, color: ManimColor = palette.TEXT) -> VGroup:
    """One label under each bar, on the line ``y``."""
    return VGroup(
        *(
            caption(t, CAPTION, color, font=SERIF).move_to([bar.get_x(), y, 0])
            for bar, t in zip(bars, texts, strict=True)
        )
    )


class ExplodeDotProducts(LessonScene):
    """Variance of q·k for random vectors: about d_k raw, about 1 after ÷√d_k."""

    def construct(self) -> None:
        demo = self.values.variance_demo
        title = self.show_title()
        rule = notation(formula(r"q \cdot k = \sum_{m=1}^{d_k} q[m]\, k[m]", size=DISPLAY)).next_to(
            title,
            DOWN,
            buff=0.15,  # clear of the chart's name under it
        )
        raw, scaled = demo.variance_raw, demo.variance_scaled
        unit = CHART_HEIGHT / raw.max()
        origin = np.array([-5.2, -2.1, 0])
        axis = baseline(CHART_WIDTH).shift(origin)
        bars = value_bars(raw * unit, CHART_WIDTH, color=palette.HEAT_HIGH).shift(origin)
        numbers = bar_labels(bars, [fmt(v, 1) for v in raw], palette.HEAT_HIGH)
        dims = row_under(bars, [fmt_int(d) for d in demo.dimensions], origin[1] - 0.35)
        dims_name = formula("d_k", size=TITLE).next_to(dims, LEFT, buff=0.4)
        ratios = set(np.round(np.divide(demo.dimensions[1:], demo.dimensions[:-1]), 6))
        ratio = ratios.pop() if len(ratios) == 1 else 1.0
        if ratio > 1 and ratio == int(ratio):  # equal steps along the axis, not equal amounts: say by how much
            step = caption(f"(×{fmt_int(int(ratio))} a step)", CAPTION, palette.MUTED, font=SERIF)
            dims_name = VGroup(dims_name, step.next_to(dims, RIGHT, buff=0.4))
        axis_name = caption(
            f"variance of q·k over {fmt_int(demo.samples)} random pairs", CAPTION, palette.MUTED, font=SERIF
        ).next_to(axis, UP, buff=3.9)
        axis_name.align_to(axis, LEFT).align_to(numbers[-1], UP)
        spread = entry_strip(demo.entries, left=-6.2, right=6.2, y=-1.6)  # the whole width: the spread is the picture
        self.narrate("A dot product adds up d_k products. Give q and k random entries: here are q's.")
        self.play(Write(rule), FadeIn(spread.line), run_time=1.0)  # the line the entries will be drawn on
        self.on_words("random entries", LaggedStart(*map(FadeIn, spread.dots), lag_ratio=0.02))
        self.narrate(
            "Their variance measures how widely they spread: the mean of the squared distances from the mean. "
            "These are drawn with variance one."
        )
        self.play(Indicate(spread.dots, color=palette.HIGHLIGHT, scale_factor=1.0))  # the spread being measured
        self.on_words("squared distances", Create(spread.mean), LaggedStart(*map(Create, spread.gaps), lag_ratio=0.02))
        measured = caption(f"these: variance {fmt(float(np.var(demo.entries)), 2)}", CAPTION, font=SERIF)
        measured.next_to(spread.line[2], RIGHT, buff=0.8)  # what "variance one" looks like, measured on them
        self.on_words("These are drawn", FadeIn(measured))
        self.wait(1.0)
        chart = (FadeIn(axis), FadeIn(dims), FadeIn(dims_name), FadeIn(axis_name))  # the empty chart, the strip gone
        self.play(FadeOut(spread), FadeOut(measured), *chart, run_time=0.8)
        self.narrate(f"Over {fmt_int(demo.samples)} random pairs, the variance of q·k grows like d_k itself.")
        self.play(
            LaggedStart(*(GrowFromEdge(b, DOWN) for b in bars), lag_ratio=0.3),
            LaggedStart(*(FadeIn(n) for n in numbers), lag_ratio=0.3),
            run_time=2.5,
        )
        why = VGroup(  # the reason, beside the sum it is about
            caption("each product: variance 1", LABEL, palette.MUTED, font=SERIF),
            caption("dₖ of them added: variance dₖ", LABEL, palette.MUTED, font=SERIF),
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.1)
        pair = VGroup(rule.copy(), why).arrange(RIGHT, buff=0.6).match_y(rule).set_x(0)  # the rule makes room
        self.narrate("Why: each product of two entries has variance one, and d_k independent ones add up to d_k.")
        self.play(rule.animate.move_to(pair[0]), FadeIn(why[0]))
        self.on_words("add up", FadeIn(why[1]))
        largest = self.largest_score(demo, bars)
        self.narrate(
            f"At d_k = {fmt_int(demo.dimensions[-1])}, scores spread as far as {fmt(demo.max_abs_raw[-1])} from zero: "
            "gaps that wide push softmax to all or nothing."
        )
        self.play(FadeIn(largest[:3], shift=LEFT * 0.2), run_time=0.8)
        self.on_words("gaps that wide", FadeIn(largest[3], shift=UP * 0.1))  # what such a score does to softmax

        roots = row_under(bars, [f"÷{fmt(r, 0)}" for r in demo.sqrt_dimensions], origin[1] - 0.8, palette.TEXT)
        roots_name = formula(r"\div\sqrt{d_k}", size=TITLE).next_to(roots, LEFT, buff=0.4)
        self.narrate("Now divide every score by √d_k: that divides their variance by d_k.")
        self.play(FadeIn(roots), FadeIn(roots_name), run_time=0.8)
        tamed = value_bars(np.maximum(scaled * unit, 0.04), CHART_WIDTH, color=palette.HEAT_LOW).shift(origin)
        tamed_numbers = bar_labels(tamed, [fmt(v) for v in scaled], palette.HEAT_LOW)
        renamed = caption("variance of the scaled scores", CAPTION, palette.MUTED, font=SERIF).move_to(
            axis_name, aligned_edge=LEFT
        )
        self.on_words(
            "divides their variance",
            bars.animate.set_fill(opacity=0.2),
            FadeOut(largest),  # a raw score: it goes with the raw bars' numbers
            FadeOut(numbers),
            FadeTransform(axis_name, renamed),  # the bars now measure the scaled scores
            LaggedStart(*(GrowFromEdge(b, DOWN) for b in tamed), lag_ratio=0.2),
            FadeIn(tamed_numbers, shift=DOWN * 0.3),
            run_time=1.5,
        )
        self.narrate("The variance is back to about one, whatever the dimension.")
        self.play(*self.zoom_to_one(demo, tamed, tamed_numbers, bars, renamed, origin), run_time=1.5)
        self.play(FadeIn(SurroundingRectangle(tamed_numbers, color=palette.HEAT_LOW, buff=0.12)), run_time=0.6)
        self.finish_narration()
        self.wait(READ_HOLD + 1.0)  # the lesson's conclusion, read before the clip ends

    @staticmethod
    def zoom_to_one(
        demo: VarianceDemo, tamed: VGroup, numbers: VGroup, raw: VGroup, name: Text, origin
    ) -> list[Animation]:
        """The scaled variances on a scale where 1 is half the chart's height, a dashed line at 1: too low to see
        on the raw scale, each now stands at the line. The raw bars, off this scale, go."""
        unit = CHART_HEIGHT / 2  # of a variance of 1
        target = value_bars(demo.variance_scaled * unit, CHART_WIDTH, color=palette.HEAT_LOW).shift(origin)
        one = DashedLine(origin + [0, unit, 0], origin + [CHART_WIDTH, unit, 0], color=palette.MUTED, dash_length=0.1)
        said = caption("variance 1", LABEL, palette.MUTED, font=SERIF).next_to(one, RIGHT, buff=0.2)
        rescaled = caption("variance of the scaled scores, on a taller scale", CAPTION, palette.MUTED, font=SERIF)
        return [
            FadeOut(raw),
            Transform(tamed, target),
            *(n.animate.next_to(b, UP, buff=0.3) for n, b in zip(numbers, target, strict=True)),  # clear of the line
            Create(one),
            FadeIn(said),
            Transform(name, rescaled.move_to(name, aligned_edge=LEFT)),
        ]

    @staticmethod
    def largest_score(demo: VarianceDemo, bars: VGroup) -> VGroup:
        """The largest |q·k| met at the largest dimension, beside its bar."""
        head = caption("largest |q·k| seen", LABEL, palette.MUTED, font=SERIF)
        at = caption(f"at dₖ = {fmt_int(demo.dimensions[-1])}:", LABEL, palette.MUTED, font=SERIF)
        value = caption(fmt(demo.max_abs_raw[-1]), TITLE, palette.HEAT_HIGH, font=SERIF)
        effect = VGroup(
            caption("softmax of such scores:", LABEL, palette.MUTED, font=SERIF),
            caption("all or nothing", BODY, palette.HEAT_HIGH, font=SERIF),
        ).arrange(DOWN, buff=0.1)
        shown = VGroup(head, at, value, effect).arrange(DOWN, buff=0.12)
        effect.shift(DOWN * 0.2)  # a consequence, set apart from the measurement
        return shown.next_to(bars[-1], RIGHT, buff=0.5).align_to(bars[-1], UP)


def entry_strip(entries: np.ndarray, left: float, right: float, y: float) -> VGroup:
    """Random entries as dots over a line from −3 to 3, stacked in columns a fifth wide (a dot plot); ``mean``
    is a line at their mean and ``gaps`` join the top dot of each column to it: the distances whose squares
    variance averages, one a column."""

    def to_x(v: float) -> float:
        return left + (float(np.clip(v, -3, 3)) + 3) / 6 * (right - left)

    line = Line([left, y, 0], [right, y, 0], color=palette.MUTED, stroke_width=2)
    ticks = VGroup(  # the scale the spread is read on: the same for any example
        *(
            notation(caption(fmt(float(v), 0), LABEL, palette.MUTED)).next_to([to_x(v), y, 0], DOWN, buff=0.1)
            for v in range(-2, 3)
        )
    )
    label = caption("random entries of q", LABEL, palette.MUTED, font=SERIF).next_to(ticks, DOWN, buff=0.1)
    label.set_x((left + right) / 2)
    stacked: dict[int, int] = {}
    dots, gaps = VGroup(), VGroup()
    mean = float(np.mean(entries))
    for v in entries:
        column = int(np.floor(v / 0.2))
        height = stacked.get(column, 0)
        stacked[column] = height + 1
        dot = Dot([to_x((column + 0.5) * 0.2), y + 0.2 + 0.26 * height, 0], radius=0.11, color=palette.QUERY)
        dots.add(dot)
    tops = {round(d.get_x(), 6): d for d in dots}  # the last dot set in a column is its top one
    for dot in tops.values():  # one distance per column, from its top dot: all sixty tangled into a grid
        gaps.add(Line(dot.get_center(), [to_x(mean), dot.get_y(), 0], color=palette.HIGHLIGHT, stroke_width=2))
    top = y + 0.2 + 0.26 * max(stacked.values())
    strip = VGroup(VGroup(line, ticks, label), dots)
    strip.line, strip.dots, strip.gaps = strip[0], dots, gaps
    strip.mean = Line([to_x(mean), y, 0], [to_x(mean), top + 0.1, 0], color=palette.HIGHLIGHT, stroke_width=3)
    strip.add(strip.mean, gaps)
    return strip


BARS_BASE = np.array([-2.8, -2.0, 0.0])  # the middle of SaturateSoftmax's axis, the same at every scale


class SaturateSoftmax(LessonScene):
    """The same scores made larger and larger: softmax goes one-hot and its gradient vanishes."""

    def construct(self) -> None:
        demo = self.values.saturation_demo
        self.show_title()
        labels = [f"k{chr(0x2081 + j)}" for j in range(len(demo.scores))]
        steps = [self.stage(demo, i, labels) for i in range(len(demo.scales))]
        scores, bars, gauge = steps[0]
        self.narrate("Four scores through softmax: the weights are spread, and can still move.")
        heading = caption("softmax weights", CAPTION, palette.MUTED, font=SERIF).move_to(LEFT * 2.8 + UP * 1.5)
        self.play(FadeIn(scores), FadeIn(heading), bars.grow(), run_time=1.5)
        self.narrate(
            "Beside them, the size of softmax's gradient: how much the weights move when the scores move a little."
        )
        self.on_words("the size of", FadeIn(gauge), run_time=1.0)
        self.narrate("Multiply the same scores up, as large dot products do. Softmax piles onto one key.")
        shown = VGroup(scores, gauge[2], bars.get_numbers())  # the numbers on screen: they switch, never morph
        for step in steps[1:]:
            shown = self.switch(shown, step, bars, gauge)
            self.wait(1.0)
        self.narrate(
            "One-hot weights: the gradient through the scores is essentially zero, and W_Q and W_K stop learning."
        )
        stuck = SurroundingRectangle(gauge, color=palette.HEAT_HIGH, buff=0.15)
        self.play(FadeIn(stuck), run_time=0.8)
        fix = formula(r"\text{The fix: } \frac{QK^T}{\sqrt{d_k}}", size=DISPLAY)
        caption_band(fix.match_x(gauge))  # under the gauge, clear of the bars and their labels
        self.narrate("The fix: divide by √d_k, so scores stay in the range where softmax still learns.")
        self.play(Write(fix), FadeOut(stuck), run_time=1.0)
        self.until_words("stay in the range")  # the first scores again: spread weights, a gradient
        self.switch(shown, self.stage(demo, 0, labels), bars, gauge)
        self.wait(READ_HOLD)

    def switch(
        self, shown: VGroup, step: tuple[VGroup, SoftmaxBars, VGroup], bars: SoftmaxBars, gauge: VGroup
    ) -> VGroup:
        """From the scores, weights and gradient on screen (``shown``, their numbers) to ``step``'s: the numbers
        switch, the bars and the gauge's level move. Returns the numbers now shown."""
        nxt_scores, nxt_bars, nxt_gauge = step
        shown.set_opacity(0)  # gone at once, wherever the scene holds them
        self.play(  # the new numbers come with the bars and the level they set, never ahead of them
            Transform(bars.get_bars(), nxt_bars.get_bars()),
            Transform(gauge[3], nxt_gauge[3]),
            FadeIn(nxt_scores),
            FadeIn(nxt_gauge[2]),
            run_time=1.5,
        )
        self.play(FadeIn(nxt_bars.get_numbers()), run_time=0.3)  # each weight's number on its new bar
        return VGroup(nxt_scores, nxt_gauge[2], nxt_bars.get_numbers())

    @staticmethod
    def stage(demo: SaturationDemo, i: int, labels: list[str]) -> tuple[VGroup, SoftmaxBars, VGroup]:
        """Scores × scale i, their softmax bars and the gradient gauge, laid out for Transform."""
        scale, scaled = demo.scales[i], demo.scaled_scores[i]
        times = formula(rf"\text{{scores}} \times {fmt(scale, 0)} =", size=TITLE)
        row = formula(r"[\," + r",\ ".join(fmt(s, 1) for s in scaled) + r"\,]", size=TITLE)  # scores: white
        scores = VGroup(times, row).arrange(RIGHT, buff=0.2).move_to(UP * 2.3)
        bars = SoftmaxBars(demo.weights[i], labels, max_value=1.0, height=3.0, bar_width=1.1, places=3, weights=True)
        bars.shift(BARS_BASE - bars.baseline.get_center())  # every stage on one baseline: bars stand on the axis
        norm, top = demo.gradient_norm[i], demo.gradient_norm[0]
        name = VGroup(  # the gradient named, and said what it measures, where it is first shown
            caption("size of softmax's gradient:", CAPTION, palette.MUTED, font=SERIF),
            caption("how much the weights move", LABEL, palette.MUTED, font=SERIF),
            caption("when the scores move a little", LABEL, palette.MUTED, font=SERIF),
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.1)
        track = Rectangle(width=GAUGE_WIDTH, height=0.35, stroke_color=palette.MUTED, stroke_width=2)
        value = number(norm, 4, size=LABEL)
        gauge = VGroup(name, track, value).arrange(DOWN, buff=0.25, aligned_edge=LEFT).move_to(RIGHT * 3.8 + DOWN * 0.3)
        meter = Rectangle(width=max(GAUGE_WIDTH * norm / top, 0.02), height=0.35, stroke_width=0)
        gauge.add(meter.set_fill(palette.TEXT, opacity=0.9).align_to(track, LEFT).align_to(track, DOWN))
        return scores, bars, gauge
