"""The projections as a model has them: one learned W_q applied to every token, and real models' sizes
(d_model, heads, d_k) beside the toy's, with every head reading all of d_model."""

from __future__ import annotations

from manim import DOWN, LEFT, RIGHT, UP, Create, FadeIn, FadeOut, LaggedStart, SurroundingRectangle, VGroup, Write

from attention_math.types import ModelSize
from scenes.kit import (
    BODY,
    CAPTION,
    LEAD,
    SMALL,
    LabelledMatrix,
    LessonScene,
    caption,
    formula,
    notation,
    palette,
)
from scenes.kit.layout import below_title, caption_band, fit_width
from scenes.kit.numbers import fmt


class ShareProjection(LessonScene):
    """The same W_q turns every row of X into its query; its entries are learned, not chosen per word."""

    def construct(self) -> None:
        we = self.values.worked_example
        head, tokens = we.heads[0], we.tokens
        self.show_title()
        x = LabelledMatrix(we.X, row_labels=tokens, name="X", font_size=28)
        w = LabelledMatrix(head.W_q, name="W_q", color=palette.QUERY, font_size=28)
        q = LabelledMatrix(head.Q, name="Q", color=palette.QUERY, font_size=28)
        times, equals = formula(r"\times", size=LEAD), formula("=", size=LEAD)
        row = VGroup(x, times, w, equals, q).arrange(RIGHT, buff=0.4)
        fit_width(below_title(row), 12.5)
        self.narrate("Every token goes through the same W_q: there is one matrix, not one per word.")
        self.play(FadeIn(row))
        shared = SurroundingRectangle(w.get_entries(), color=palette.QUERY, buff=0.1)
        self.play(Create(shared))
        for i in range(len(tokens)):
            pair = VGroup(x.row_frame(i, palette.QUERY), q.row_frame(i, palette.QUERY))
            self.play(FadeIn(pair), run_time=0.4)
            self.play(FadeOut(pair), run_time=0.3)
        learned = VGroup(
            caption("its entries start as random numbers", BODY, palette.MUTED),
            caption("and are tuned by backpropagation, with W_k and W_v:", BODY, palette.MUTED),
            caption("the gradients that ÷√dₖ keeps alive flow into them", BODY),
        ).arrange(DOWN, buff=0.15)
        caption_band(fit_width(learned, 12))
        self.narrate(
            "In a real model its entries start as random numbers, and backpropagation tunes them, with W_k and W_v."
        )
        self.play(LaggedStart(*(FadeIn(line, shift=UP * 0.1) for line in learned[:2]), lag_ratio=0.4))
        self.narrate("Those are the gradients that dividing by √d_k keeps from vanishing.")
        self.play(FadeIn(learned[2], shift=UP * 0.1))
        self.wait(1.5)


class CompareSizes(LessonScene):
    """The toy's sizes beside the original Transformer's and MiniLM's: d_k = d_model ÷ heads, and √d_k."""

    def construct(self) -> None:
        we, rm = self.values.worked_example, self.values.real_model
        title = self.show_title()
        toy = ModelSize("this lesson's toy", we.d_model, we.h, we.d_k, we.heads[0].sqrt_d_k)
        rows = [toy, *rm.sizes]
        table = self.table(rows)
        table.next_to(title, DOWN, buff=0.6)
        self.narrate(f"Our toy has d_model {toy.d_model} and {toy.heads} heads. Real models are far wider.")
        self.play(FadeIn(table[0]), FadeIn(table[1]))
        for model, line in zip(rows[1:], table[2:], strict=True):
            self.narrate(
                f"{model.name}: d_model {model.d_model}, {model.heads} heads, so d_k = {model.d_k} "
                f"and the scores are divided by {fmt(model.sqrt_d_k)}."
            )
            self.play(FadeIn(line, shift=RIGHT * 0.2))
        self.every_head_reads_all(rows[1], table)
        self.wait(1.5)

    @staticmethod
    def table(rows: list[ModelSize]) -> VGroup:
        """One line per model under a heading line; columns aligned by position."""
        xs = (-4.2, -0.9, 1.1, 3.1, 5.2)
        heading = ["model", "d_model", "heads", "d_k", "√d_k"]
        lines = [VGroup(*(caption(h, CAPTION, palette.MUTED) for h in heading))]
        for m in rows:
            name = notation(caption(m.name, BODY))  # the year in a model's name is not a computed value
            cells = [str(m.d_model), str(m.heads), str(m.d_k), fmt(m.sqrt_d_k)]
            lines.append(VGroup(name, *(caption(c, LEAD) for c in cells)))
        for n, line in enumerate(lines):
            for cell, x in zip(line, xs, strict=True):
                cell.move_to([x, -0.7 * n, 0])
        return VGroup(*lines)

    def every_head_reads_all(self, model: ModelSize, table: VGroup) -> None:
        """Each head's W_q is d_model × d_k: it reads the whole embedding; the outputs concatenate back."""
        lines = VGroup(
            caption(
                f"each head's W<sub>q</sub> is {model.d_model} × {model.d_k}: it reads all {model.d_model} numbers",
                BODY,
                markup=True,
            ),
            caption(f"{model.heads} heads × {model.d_k} numbers = {model.d_model}: only the outputs are split", BODY),
        ).arrange(DOWN, buff=0.2)
        fit_width(lines, 12.5).next_to(table, DOWN, buff=0.6)
        self.narrate(
            f"A head does not read a slice of the embedding: its W_q is {model.d_model} by {model.d_k}, "
            f"so it reads all {model.d_model} numbers and writes {model.d_k}."
        )
        self.play(Write(lines[0]))
        self.narrate(
            f"Only the outputs are split: {model.heads} heads of {model.d_k} concatenate back to {model.d_model}."
        )
        self.play(FadeIn(lines[1]))
        note = caption("sizes: the 2017 paper's base model; MiniLM from the model-data file", SMALL, palette.MUTED)
        self.play(FadeIn(caption_band(notation(note)).to_edge(LEFT, buff=0.4)))
