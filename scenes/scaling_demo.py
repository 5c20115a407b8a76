"""Chapter "Why divide by √d_k", first scene: the notes' example, q·k₁ and q·k₂ written out; softmax of the raw
scores (leaning hard) against the scaled ones (softer)."""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    FadeIn,
    FadeOut,
    Indicate,
    Restore,
    Transform,
    VGroup,
    Write,
)

from attention_math.claims import lean, softer
from attention_math.types import ScalingDemo
from scenes.first_example import number_text
from scenes.kit import (
    BODY,
    FORMULA,
    LABEL,
    TITLE,
    LessonScene,
    SoftmaxBars,
    caption,
    formula,
    notation,
    palette,
)
from scenes.kit.layout import MIDDLE, caption_band, fit_width
from scenes.kit.numbers import fmt, vector_text

BASELINE_Y = -2.6  # where the softmax bars stand
BAR_HEIGHT = 1.8  # a weight of 1
SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
WORKING_GROWTH = 1.5  # the scores' working, alone in the frame, drawn this much larger


def key_names(count: int) -> list[str]:
    """k₁, k₂, …"""
    return [f"k{str(n + 1).translate(SUBSCRIPTS)}" for n in range(count)]


class CompareScaling(LessonScene):
    """The notes' example: q·k₁ and q·k₂ written out; softmax of the raw scores (leaning hard) vs ÷√d_k (softer)."""

    def construct(self) -> None:
        sd = self.values.scaling_demo
        self.show_title()  # its scores are worked out on screen: a title naming them would tell them first
        vectors = self.vectors(sd).to_edge(UP, buff=1.2)
        products = self.dot_products(sd).next_to(vectors, DOWN, buff=0.4)
        scaling = formula(
            rf"{vector_text(sd.raw)} \div \sqrt{{{sd.d_k}}} = {vector_text(sd.scaled)}", size=FORMULA
        ).next_to(products, DOWN, buff=0.35)
        working = VGroup(vectors, products, scaling).save_state()  # its place once the charts come below it
        working.scale(min(WORKING_GROWTH, 12.5 / working.width)).move_to(UP * MIDDLE)  # alone: as large as it reads
        self.narrate(f"One query and two keys, each d_k = {sd.d_k} numbers long.")
        self.play(FadeIn(vectors))
        self.narrate("Each score is a dot product: multiply matching entries and add.")
        for line in products:
            self.play(Write(line), run_time=1.2)
        self.narrate(f"Scaled, the scores are divided by √d_k = √{sd.d_k} = {number_text(sd.sqrt_d_k)}.")
        self.play(Write(scaling))
        claim = lean(sd.softmax_raw, sd.softmax_scaled)
        raw_verdict = "saturated" if claim.holds else f"leans hard: {fmt(sd.softmax_raw.max())} on one key"
        charts = [
            self.chart(sd.softmax_raw, f"softmax({vector_text(sd.raw)})", raw_verdict, -3.3),
            self.chart(
                sd.softmax_scaled,
                f"softmax({vector_text(sd.scaled)})",
                f"softer: the smallest share {fmt(sd.softmax_raw.min())} → {fmt(sd.softmax_scaled.min())}",
                3.3,
            ),
        ]
        caption_band(VGroup(*charts))  # both charts together, their verdicts just above the subtitle band
        self.narrate(claim.text)
        self.play(Restore(working), run_time=0.8)  # up, to make room for the charts
        self.show_chart(charts[0])
        scaled_named = "once scaled" in claim.text  # the scaled top weight is said here: its chart comes with it
        if scaled_named:
            bars, title, _ = charts[1]
            self.on_words(
                "against", FadeIn(VGroup(bars.baseline, bars.get_labels(), title)), bars.grow(axes_shown=True)
            )
        if "Larger scores" in claim.text:
            self.push(charts[0], sd)
        softer_claim = softer(sd.softmax_raw, sd.softmax_scaled)
        self.narrate(softer_claim.text)
        if scaled_named:
            if softer_claim.holds:  # the two smallest weights, the one it names growing into the other
                lows = [
                    c[0].get_bars()[int(np.argmin(w))]
                    for c, w in zip(charts, (sd.softmax_raw, sd.softmax_scaled), strict=True)
                ]
                self.on_words(
                    "the smallest weight", *(Indicate(b, color=b.get_fill_color()) for b in lows), run_time=1.5
                )
            self.play(FadeIn(charts[1][2], shift=UP * 0.1))
        else:
            self.show_chart(charts[1])
        self.finish_narration()
        self.wait(1.5)

    def push(self, chart: VGroup, sd: ScalingDemo) -> None:
        """ "Larger scores would push it ever closer to 1 and 0", drawn: the raw chart becomes softmax of the scores
        doubled until one weight reaches 0.99 (``sd.push`` times), and comes back when the sentence ends."""
        bars, title, verdict = chart
        pushed = SoftmaxBars(  # four places: close to 1 and 0, never there
            sd.softmax_pushed, key_names(len(sd.raw)), max_value=1.0, height=BAR_HEIGHT, bar_width=1.4, places=4
        )
        pushed.shift(bars.baseline.get_center() - pushed.baseline.get_center())
        name = caption(f"softmax({sd.push} × {vector_text(sd.raw)})", BODY, palette.HIGHLIGHT).move_to(title)
        shown, read = VGroup(bars.get_bars(), title), VGroup(bars.get_numbers(), verdict)  # moved; hidden meanwhile
        before = shown.copy()
        numbers = pushed.get_numbers()  # 0.9997 and 0.0003: "ever closer to 1 and 0"
        self.on_words("Larger scores", FadeOut(read), Transform(shown, VGroup(pushed.get_bars(), name)), run_time=1.2)
        self.play(FadeIn(numbers), run_time=0.4)
        self.finish_narration()
        self.play(FadeOut(numbers), Transform(shown, before), run_time=0.8)
        self.play(FadeIn(read), run_time=0.5)

    def show_chart(self, chart: VGroup) -> None:
        """Axis, heading and key names with the bars growing, then the verdict."""
        bars, title, verdict = chart
        self.play(FadeIn(VGroup(bars.baseline, bars.get_labels(), title)), bars.grow(axes_shown=True, run_time=1.2))
        self.play(FadeIn(verdict, shift=UP * 0.1), run_time=0.8)

    def vectors(self, sd: ScalingDemo) -> VGroup:
        """q in query colour, the keys in key colour, and their length d_k, on one line."""
        parts = [formula(rf"q = {vector_text(sd.query)}", size=FORMULA, color=palette.QUERY)]
        for n, key in enumerate(sd.keys):
            parts.append(formula(rf"k_{{{n + 1}}} = {vector_text(key)}", size=FORMULA, color=palette.KEY))
        parts.append(formula(rf"d_k = {sd.d_k}", size=FORMULA, color=palette.MUTED))  # as the voice says it
        return VGroup(*parts).arrange(RIGHT, buff=0.8)

    def dot_products(self, sd: ScalingDemo) -> VGroup:
        """q·k_n = products = terms = score, one line per key."""
        lines = VGroup()
        q = sd.query
        for n, (key, terms, raw) in enumerate(zip(sd.keys, sd.raw_terms, sd.raw, strict=True)):
            products = " + ".join(rf"{number_text(a)} \times {number_text(b)}" for a, b in zip(q, key, strict=True))
            sums = " + ".join(number_text(t) for t in terms)
            lines.add(formula(rf"q \cdot k_{{{n + 1}}} = {products} = {sums} = {number_text(raw)}", size=TITLE))
        lines.arrange(DOWN, aligned_edge=LEFT, buff=0.25)
        return fit_width(lines, 12.5)

    def chart(self, weights: np.ndarray, heading: str, verdict: str, x: float) -> VGroup:
        """Softmax bars over k₁, k₂, … on a baseline at ``x``, a heading above and a verdict below."""
        bars = SoftmaxBars(
            weights, key_names(len(weights)), max_value=1.0, height=BAR_HEIGHT, bar_width=1.4, weights=True
        )
        notation(bars.get_labels())
        bars.shift(np.array([x, BASELINE_Y, 0]) - bars.baseline.get_center())
        title = caption(heading, BODY).move_to([x, BASELINE_Y + BAR_HEIGHT + 0.75, 0])
        note = caption(verdict, LABEL).next_to(bars, DOWN, buff=0.25)
        return VGroup(bars, title, note)
