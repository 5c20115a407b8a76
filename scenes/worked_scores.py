"""The worked example, steps 4 and 5: the scores scaled, then softmax row by row.

Every number comes from ``attention_math`` (section ``worked_example``); the scenes lay
themselves out for 2 to 12 tokens, d_model up to 8 and 1 to 4 heads. The layout helpers
the chapter's modules share are in ``scenes/kit/layout.py``.
Steps 1–2 are in ``worked_projections.py``, step 3 in ``dot_products.py``, steps 6–7 in
``worked_outputs.py`` and ``multi_head.py``.
"""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    FadeIn,
    FadeOut,
    Mobject,
    ReplacementTransform,
    Transform,
    VGroup,
    Write,
)

from attention_math.types import Head
from scenes.kit import (
    FORMULA,
    TITLE,
    Heatmap,
    LabelledMatrix,
    LessonScene,
    SoftmaxBars,
    formula,
    palette,
    token_cell,
)
from scenes.kit.layout import GAP, SUBTITLE_TOP, TOP, below_title
from scenes.kit.motion import give_way
from scenes.kit.numbers import fmt

MIN_BAR_HEIGHT = 0.8  # shorter, and the bars' scale and value labels collide


class NormalizeScores(LessonScene):
    """Steps 6–7: scores ÷ √d_k, exponentials, bars normalized to sum 1, landing in the heatmap."""

    def construct(self) -> None:
        we = self.values.worked_example
        head, tokens = we.heads[0], we.tokens
        self.show_title()
        font = 28 if len(tokens) <= 5 else 22
        rows = 6 if len(tokens) <= 6 else 5  # leave room for the bars below
        scores = self.grid(head.scores, tokens, r"QK^{T}", font, rows)
        scale = formula(rf"\div \sqrt{{d_k}} = \div \sqrt{{{head.d_k}}} = \div {fmt(head.sqrt_d_k)}", size=TITLE)
        room = TOP - SUBTITLE_TOP - GAP - scale.height - 0.4
        zoom = min(1.6, room / scores.height, 12 / scores.width)  # alone on screen until softmax: large, centred
        below_title(scores.scale(zoom)).set_x(0)
        self.play(FadeIn(scores))
        scale.next_to(scores, DOWN, buff=0.3)
        self.narrate(f"First divide every score by √d_k = {fmt(head.sqrt_d_k)}, so scores stay in a gentle range.")
        self.play(Write(scale))
        scaled = self.grid(head.scaled_scores, tokens, r"QK^{T} / \sqrt{d_k}", font, rows)
        home = scaled.copy()  # at the left, where the bars and the weights' grid leave it room
        below_title(scaled.scale(zoom)).set_x(0)
        self.wait(1.5)  # the raw scores, read once more before they change
        self.play(give_way(scores, FadeIn(scaled)), run_time=1.2)  # a fade: morphing digits garbles them
        heatmap = self.heatmap(head, tokens, left_of=home)
        self.finish_narration()  # the divisor stays while it is said
        self.play(FadeOut(scale), Transform(scaled, home))
        row_frame = scaled.row_frame(0)
        self.narrate(f"Softmax, one row at a time. Take the row of '{tokens[0]}'.")
        self.play(Create(row_frame))
        bars = self.softmax_row(head, tokens, 0, scaled, heatmap)
        low, high = fmt(head.weights.min()), fmt(head.weights.max())
        self.narrate("The bars land in the first row of the weights, coloured from blue at 0 to yellow at 1.")
        rest = VGroup(bars.baseline, bars.get_numbers(), bars.get_labels(), bars.get_total())
        self.play(ReplacementTransform(bars.get_bars(), heatmap.get_row(0)), FadeOut(rest), run_time=1.2)
        self.play(FadeIn(heatmap.get_row_digits(0)))
        self.narrate(
            f"Every other row goes through the same softmax: this head's weights all lie between {low} and {high}."
        )
        for i in range(1, len(tokens)):
            target = scaled.row_frame(i) if scaled.is_shown(i, 0) else row_frame
            self.play(row_frame.animate.move_to(target), heatmap.fill_row(i), run_time=0.45)
        self.play(FadeOut(row_frame))
        self.wait(2)

    def grid(self, values, tokens, name: str, font: float, rows: int) -> LabelledMatrix:
        m = LabelledMatrix(values, row_labels=tokens, name=name, font_size=font, max_rows=rows, max_cols=6)
        return below_title(m).to_edge(LEFT, buff=0.4)

    def heatmap(self, head: Head, tokens: list[str], left_of: Mobject) -> Heatmap:
        """The weights' grid, named α as the formula names them: "α =" before it where the scores on its left
        (``left_of``) leave room, else "α" in its free corner above the row labels."""
        heatmap = below_title(Heatmap(head.weights, tokens, cell=token_cell(len(tokens)), caption=True))
        heatmap.to_edge(RIGHT, buff=0.4)
        name = formula(r"\alpha =", size=FORMULA).next_to(heatmap.row_labels, LEFT, buff=0.3).match_y(heatmap.cells)
        if name.get_left()[0] < left_of.get_right()[0] + 0.3:
            name = formula(r"\alpha", size=FORMULA).next_to(heatmap.row_labels, UP, buff=0.3)
            name.align_to(heatmap.row_labels, RIGHT)
        heatmap.caption.add(name)  # shown with the caption, as the grid comes in
        return heatmap

    def softmax_row(
        self, head: Head, tokens: list[str], i: int, scaled: LabelledMatrix, heatmap: Heatmap
    ) -> SoftmaxBars:
        """Exponentials as bars (their sum shown, exp(score) written above them), large where the weights' grid will be;
        then the same bars divided by that sum; then, as the grid comes in, the bars move under the scores,
        ready to land in it. Returns those bars."""

        def bars(values, total, height: float, width: float, **style) -> SoftmaxBars:
            return SoftmaxBars(values, tokens, total=total, height=height, bar_width=width, total_at=UP, **style)

        def weights(height: float, width: float) -> SoftmaxBars:  # drawn to the exponentials' top, not to 1
            top = head.exp_scores[i].max() / head.exp_sums[i]
            return bars(head.weights[i], head.weight_sums[i], height, width, max_value=top, weights=True, legend=False)

        def under_scores(height: float) -> SoftmaxBars:
            return weights(height, width).next_to(scaled, DOWN, buff=0.35).align_to(scaled, LEFT)

        large, tall = min(1.0, 6.0 / len(tokens) * 0.75), 2.6 if len(tokens) <= 6 else 1.8
        exp = bars(head.exp_scores[i], head.exp_sums[i], tall, large, color=palette.MUTED)  # not weights yet
        norm = weights(tall, large).move_to(exp, aligned_edge=DOWN + LEFT)
        VGroup(exp, norm).move_to(heatmap.get_cells())  # the grid's place, while the grid is not there
        width, height = min(0.7, 5.4 / len(tokens) * 0.75), 1.6 if len(tokens) <= 6 else 1.0
        small = under_scores(height)
        if (overflow := SUBTITLE_TOP + GAP - small.get_bottom()[1]) > 0:  # shorter bars, clear of the subtitle band
            small = under_scores(max(height - overflow, MIN_BAR_HEIGHT))
        rule = formula(r"\exp(\text{score})", size=TITLE)  # as the softmax primer wrote it (s is an RNN's state)
        rule.next_to(exp, UP, buff=0.3).align_to(exp.get_bars(), LEFT)
        divided = formula(r"\exp(\text{score}) / \text{sum}", size=TITLE).move_to(rule, aligned_edge=LEFT)
        stage = VGroup(exp, norm, rule, divided)
        stage.shift(min(0.0, TOP - stage.get_top()[1]) * UP)  # below the title, however few the tokens
        self.play(FadeIn(VGroup(exp.baseline, exp.labels, exp.legend)))  # the row's words, where its bars will stand
        self.narrate("Raise e to each scaled score: every result is positive. Then add them up.")
        self.play(exp.grow(axes_shown=True, run_time=1.4), Write(rule))
        self.play(FadeIn(exp.get_total()))
        self.wait(0.6)
        self.narrate("Divide each by the sum: the bars now add up to exactly 1. These are the attention weights.")
        numbers = VGroup(exp.get_numbers(), exp.get_total(), rule)  # words and digits switch; the bars reshape
        self.play(
            ReplacementTransform(exp.get_bars(), norm.get_bars()),
            give_way(numbers, FadeIn(VGroup(norm.get_numbers(), norm.get_total(), divided))),
            run_time=1.5,
        )
        grid = VGroup(heatmap.get_labels(), heatmap.get_caption(), heatmap.get_slots())  # where the weights go
        # the bars and the axis and words on screen (the exponentials') move; the digits switch, never morph
        moving = VGroup(norm.get_bars(), exp.baseline, exp.labels)
        landing = VGroup(small.get_bars(), small.baseline, small.labels)
        digits = [VGroup(b.get_numbers(), b.get_total()) for b in (norm, small)]
        self.on_words(
            "These are",
            ReplacementTransform(moving, landing),
            give_way(VGroup(digits[0], divided), FadeIn(digits[1]), FadeIn(grid)),  # the rule gone as labels come
            run_time=1.2,
        )
        self.wait(1)
        return small
