"""Reading the weights in words: a row of the worked example as percentages (and what head 1 does with
"apple"), one word's rows in two sentences side by side, and the train's context vector as a weighted sum."""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    AnimationGroup,
    Create,
    FadeIn,
    FadeOut,
    Indicate,
    LaggedStart,
    SurroundingRectangle,
    VGroup,
    Write,
)

from scenes.kit import (
    BODY,
    CAPTION,
    FORMULA,
    LABEL,
    LEAD,
    LabelledMatrix,
    LessonScene,
    SoftmaxBars,
    caption,
    formula,
    notation,
    palette,
)
from scenes.kit.layout import CAPTION_TOP, caption_band, fit_content, fit_width
from scenes.kit.motion import give_way
from scenes.kit.numbers import fmt, places_for, vector_text

STORY_WORD = "apple"  # the slide deck's story is about this word's row; any other example reads its middle word


def percent(weight: float) -> str:
    """A weight as a whole percentage: 0.2604 → "26%"."""
    return f"{fmt(weight * 100, 0)}%"


def in_words(tokens: list[str], row: np.ndarray, i: int) -> list[str]:
    """Row ``i`` of the weights read aloud: "itself" for the word's own share."""
    return [
        f"{percent(w)} to {'itself' if j == i else repr(t)}" for j, (t, w) in enumerate(zip(tokens, row, strict=True))
    ]


class ReadWeightRow(LessonScene):
    """Head 1's first row in words, then both heads' rows of the story word, read as they are."""

    def construct(self) -> None:
        we = self.values.worked_example
        tokens = we.tokens
        title = self.show_title()
        row = we.heads[0].weights[0]
        lines = VGroup(*(caption(s, LEAD) for s in in_words(tokens, row, 0)))
        if len(lines) > 6:  # a long sentence: two columns, read down the first, then the second
            lines.arrange_in_grid(
                rows=(len(lines) + 1) // 2, cols=2, col_alignments="ll", flow_order="dr", buff=(0.6, 0.2)
            )
        else:
            lines.arrange(DOWN, aligned_edge=LEFT)
        heading = notation(caption(f"head 1, the row of “{tokens[0]}” gives", BODY, palette.MUTED))
        block = VGroup(heading, lines).arrange(DOWN, aligned_edge=LEFT, buff=0.3)
        block.scale(1.4)  # read with the bars beside it: large
        fit_width(block, 5.8).next_to(title, DOWN, buff=0.6).to_edge(LEFT, buff=0.8)
        bars = SoftmaxBars(row, tokens, height=4.4, bar_width=min(0.9, 5.0 / len(tokens)), places=2, weights=True)
        bars.next_to(title, DOWN, buff=0.8).to_edge(RIGHT, buff=0.8)
        beside = bars.get_left()[0] > block.get_right()[0] + 0.4  # the row as bars, where the words leave room
        said = ", ".join(in_words(tokens, row, 0)[:2])
        self.narrate(f"Read a row of weights in words. In head 1, '{tokens[0]}' gives {said}, and so on.")
        self.play(FadeIn(heading), *([FadeIn(VGroup(bars.baseline, bars.get_labels()))] if beside else []))
        shares = LaggedStart(*(FadeIn(line, shift=RIGHT * 0.2) for line in lines), lag_ratio=0.6)
        self.on_words(f"'{tokens[0]}' gives", shares, *([bars.grow(axes_shown=True)] if beside else []), run_time=3)
        if beside:
            block.add(bars)
        total = caption(" + ".join(percent(w) for w in row) + f" = {percent(row.sum())}", BODY, palette.HIGHLIGHT)
        caption_band(fit_width(total, 12))
        self.narrate("Each share is a weight times 100: the row adds up to all of its attention.")
        self.play(FadeIn(total, shift=UP * 0.1))
        self.finish_narration()
        self.play(FadeOut(total))
        self.read_story_word(we.heads, tokens, block)
        self.wait(1.5)

    def read_story_word(self, heads, tokens: list[str], left: VGroup) -> None:
        """Each head's row of the story word as bars, its top word framed, and the honest verdict."""
        i = tokens.index(STORY_WORD) if STORY_WORD in tokens else len(tokens) // 2
        charts = VGroup()
        for n, head in enumerate(heads[:2]):
            width = min(0.9, 3.4 / len(tokens))  # two charts side by side; 4 tokens stand upright under their bars
            tall = 3.8 if len(tokens) <= 6 else 3.2  # a long sentence's turned labels take the rest
            bars = SoftmaxBars(head.weights[i], tokens, height=tall, bar_width=width, places=2, weights=True)
            name = notation(caption(f"head {n + 1}: the row of “{tokens[i]}”", CAPTION, palette.MUTED))
            charts.add(VGroup(name, bars).arrange(DOWN, buff=0.3))
        fit_width(charts.arrange(RIGHT, buff=1.5), 13).move_to(UP * 0.2)
        tops = [int(np.argmax(head.weights[i])) for head in heads[:2]]
        said = ", and in ".join(f"head {n + 1} to '{tokens[t]}'" for n, t in enumerate(tops))
        axes = [AnimationGroup(FadeIn(c[0]), FadeIn(VGroup(c[1].baseline, c[1].get_labels()))) for c in charts]
        tops_shown = [VGroup(c[1].get_bars()[t], c[1].get_numbers()[t]) for c, t in zip(charts, tops, strict=True)]
        # each top bar with its value, framed as its head's largest share is said
        marks = [Create(SurroundingRectangle(m, color=palette.HIGHLIGHT, buff=0.08)) for m in tops_shown]
        if len(tops) > 1:
            self.narrate(f"Now the row of '{tokens[i]}', in head 1 and in a second head, with matrices of its own.")
            self.play(give_way(left, *axes), run_time=1.0)  # never the old words under the new headings
            # each head's row as it is named
            self.on_words("in head 1", charts[0][1].grow(axes_shown=True, run_time=1.0))
            self.on_words("a second head", charts[1][1].grow(axes_shown=True, run_time=1.0))
            self.narrate(f"The largest share goes in {said}. A later step joins the two heads.")
            for n, mark in enumerate(marks):
                self.on_words(f"head {n + 1} to", mark)
        else:
            self.narrate(f"Now the row of '{tokens[i]}'. The largest share goes in {said}.")
            self.play(give_way(left, *axes), run_time=1.0)
            self.play(charts[0][1].grow(axes_shown=True, run_time=1.0))
            self.play(marks[0])
        note = caption(
            "these toy heads are small enough to check by hand: a trained model's heads come later",
            LABEL,
            palette.MUTED,
        )
        caption_band(fit_width(note, 12.5))
        self.narrate(
            "These toy heads are small enough to check by hand: later we look at the heads of a trained model."
        )
        self.play(FadeIn(note))


class CompareContexts(LessonScene):
    """One word's attention row in two sentences, side by side: the weights depend on the context."""

    def construct(self) -> None:
        ss = self.values.semantic_shift
        title = self.show_title(f"“{ss.cases[0].word}” in two sentences")
        charts = VGroup()
        cases = ss.cases[:2]  # the file may give only one sentence
        for case in cases:
            bars = SoftmaxBars(case.weights, case.tokens, height=3.2, bar_width=0.8, weights=True)
            name = caption(f"{case.sentence}  ·  head {ss.head}", LEAD)  # the head whose row this is
            charts.add(VGroup(name, bars).arrange(DOWN, buff=0.4))
        charts.arrange(RIGHT, buff=1.2)
        for chart in charts[1:]:  # one baseline, so the two rows read as one comparison
            chart.shift((charts[0][1].baseline.get_y() - chart[1].baseline.get_y()) * UP)
        fit_width(charts, 13).next_to(title, DOWN, buff=0.8)
        word = ss.cases[0].word
        self.narrate(
            f"The same word, '{word}', in two sentences. Here is its row of weights in each, in head {ss.head}."
        )
        for chart in charts:
            self.play(FadeIn(chart[0]), FadeIn(VGroup(chart[1].baseline, chart[1].get_labels())))
            self.play(chart[1].grow(axes_shown=True, run_time=1.0))
        others = [self.strongest_other(case) for case in cases]
        said = "; in the second, ".join(
            f"{percent(c.weights[j])} to '{c.tokens[j]}'" for c, j in zip(cases, others, strict=True)
        )
        self.narrate(f"Of the other words, it gives the most: {said}.")
        for chart, j in zip(charts, others, strict=True):
            self.play(Create(chart[1].frame(j)))  # the bar and its value, both clear
        verdict = VGroup(
            caption("the weights are computed from the words around it", LEAD),
            caption("fixed mixing weights would mix every sentence the same way", BODY, palette.MUTED),
        ).arrange(DOWN, buff=0.15)
        caption_band(fit_width(verdict, 12))
        self.narrate("The weights come from the context: fixed mixing weights would mix every sentence the same way.")
        self.play(Write(verdict[0]))
        self.play(FadeIn(verdict[1]))
        self.wait(1.5)

    @staticmethod
    def strongest_other(case) -> int:
        others = np.where(np.arange(len(case.tokens)) == case.focus, -np.inf, case.weights)
        return int(np.argmax(others))


class SumTrainContext(LessonScene):
    """The focus word's new vector: each word's embedding times its weight, added up."""

    def construct(self) -> None:
        ts = self.values.train_station
        f, tokens = ts.focus, ts.tokens
        self.show_title(f"“{tokens[f]}” in context: the weighted sum")
        # its row of weights, αᵢⱼ for i the focus word; the words' own vectors stand where values will (white:
        # no values yet, no value colour)
        weights = LabelledMatrix(ts.weights[f][:, None], row_labels=tokens, name=r"\alpha_{ij}", font_size=26, places=3)
        terms = LabelledMatrix(ts.focus_terms, name=r"\alpha_{ij}\, x_j", font_size=26)
        total = LabelledMatrix(ts.output[f][None, :], name=r"z_i = \sum_j \alpha_{ij} x_j", font_size=30)
        alone = vector_text(ts.embeddings[f], places_for(ts.embeddings))
        before = caption(f"“{tokens[f]}” on its own: {alone}", LABEL, palette.MUTED)
        VGroup(weights, terms, total).arrange(RIGHT, buff=1.0)
        before.next_to(total, DOWN, buff=0.4)
        figure = VGroup(weights, terms, total, before)
        grown = figure.width
        fit_content(figure, width=12.4, bottom=CAPTION_TOP)  # as large as the frame allows, the caption band free
        vectors = LabelledMatrix(ts.embeddings, name="X", font_size=26).scale(figure.width / grown)  # rows xⱼ
        vectors.move_to(terms, aligned_edge=UP)
        # a × on every row, each row by its own weight: one × read as a matrix product, whose sizes clash
        middle = (weights.get_right()[0] + vectors.get_left()[0]) / 2
        rows = [j for j in range(len(tokens)) if weights.is_shown(j, 0)]
        times = VGroup(
            *(formula(r"\times", size=FORMULA).move_to([middle, weights.get_entry(j, 0).get_y(), 0]) for j in rows)
        )
        self.narrate(f"Now finish what '{tokens[f]}' reads: its weights, and each word's vector.")
        self.play(FadeIn(weights), FadeIn(vectors))  # the two factors side by side from the first frame
        self.on_words("each word's vector", Indicate(vectors.get_name(), color=palette.HIGHLIGHT))
        self.narrate("Each word's vector is scaled by its weight.")
        self.on_words("scaled", FadeIn(times))
        self.play(give_way(vectors, FadeIn(terms)), run_time=1.2)  # a fade: morphing digits garbles them
        self.play(FadeOut(times), run_time=0.4)
        self.narrate(
            f"Add the scaled vectors up, unrounded: that sum is the new, context-aware vector of '{tokens[f]}'."
        )
        self.play(Write(total))
        self.on_words("the new", FadeIn(before, shift=UP * 0.1))  # what it was, to compare
        self.honest_top(ts, weights)
        self.wait(1.5)

    def honest_top(self, ts, weights: LabelledMatrix) -> None:
        """Which word the focus row weighs most, itself included, said as it is."""
        f, tokens, top = ts.focus, ts.tokens, ts.strongest
        self.play(Create(weights.entry_frame(top, 0)))
        if top == f:
            text = f"“{tokens[f]}” weighs itself most; next comes “{tokens[ts.strongest_other]}”"
        else:
            mine, theirs = fmt(ts.weights[f, f], 3), fmt(ts.weights[f, top], 3)
            text = f"“{tokens[top]}” ({theirs}) outweighs “{tokens[f]}” itself ({mine})"
        line = caption(text, BODY)
        caption_band(fit_width(line, 7.0)).to_edge(RIGHT, buff=0.6)
        self.narrate(f"Look at the weights: {text.replace('“', chr(39)).replace('”', chr(39))}.")
        self.play(FadeIn(line))
