"""The projections as a model has them: one learned W_Q applied to every token, and real models' sizes
(d_model, heads, d_k) beside the toy's, with every head reading all of d_model."""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    FadeIn,
    FadeOut,
    FadeTransform,
    Indicate,
    SurroundingRectangle,
    VGroup,
    Write,
)

from attention_math.model_types import ModelSize
from scenes.kit import (
    BODY,
    DISPLAY,
    SMALL,
    TITLE,
    LabelledMatrix,
    LessonScene,
    caption,
    formula,
    notation,
    palette,
)
from scenes.kit.layout import caption_band, fit_content, fit_width
from scenes.kit.numbers import fmt

ROWS = 5  # rows drawn of X and Q before an ellipsis: three matrices side by side above the notes


class ShareProjection(LessonScene):
    """The same W_Q turns every row of X into its query; its entries start random and are learned."""

    def construct(self) -> None:
        we = self.values.worked_example
        head, tokens = we.heads[0], we.tokens
        self.show_title()
        x = LabelledMatrix(we.X, row_labels=tokens, name="X", font_size=36, max_rows=ROWS)
        w, random_w = (self.query_matrix(m, "W_{Q}") for m in (head.W_q, we.initial.W_q))
        q, random_q = (self.query_matrix(m, "Q") for m in (head.Q, we.initial.Q))
        times, equals = formula(r"\times", size=DISPLAY), formula("=", size=DISPLAY)
        # laid out for the wider random matrices; the learned ones stand in their places
        fit_content(VGroup(x, times, random_w, equals, random_q).arrange(RIGHT, buff=0.45), bottom=-0.9)
        for learned, spot in ((w, random_w), (q, random_q)):
            learned.scale_to_fit_height(spot.height).move_to(spot)
        row = VGroup(x, times, w, equals, q)
        self.narrate("Every token goes through the same W_Q: there is one matrix, not one per word.")
        self.play(FadeIn(row))
        shared = SurroundingRectangle(w.get_entries(), color=palette.QUERY, buff=0.1)
        self.play(Create(shared))
        for i in (i for i in x.shown_rows if i is not None):  # a long sentence: the rows drawn, not the ellipsis
            pair = VGroup(x.row_frame(i, palette.QUERY), q.row_frame(i, palette.QUERY))
            self.play(FadeIn(pair), run_time=0.4)
            self.play(FadeOut(pair), run_time=0.3)
        self.play(FadeOut(shared))
        self.learn((w, q), (random_w, random_q), we.initial.limit)
        self.wait(1.5)

    @staticmethod
    def query_matrix(values: np.ndarray, name: str) -> LabelledMatrix:
        return LabelledMatrix(values, name=name, color=palette.QUERY, font_size=36, max_rows=ROWS)

    def learn(self, learned: tuple[LabelledMatrix, ...], random: tuple[LabelledMatrix, ...], limit: float) -> None:
        """W_Q from random entries to the example's, its queries following: what training does."""
        bound = fmt(limit, 0 if float(limit).is_integer() else 2)
        notes = VGroup(
            caption(f"training starts from random entries, each within ±{bound}", BODY),
            caption(
                "training nudges them against their gradients, with W<sub>K</sub> and W<sub>V</sub>", BODY, markup=True
            ),
            caption("our toy's entries stand in for that trained result", BODY),
        ).arrange(DOWN, buff=0.15)
        caption_band(fit_width(notes, 12))
        back = [m.copy() for m in learned]
        self.narrate("In a real model, training starts W_Q as random numbers, so the first queries mean nothing yet.")
        self.play(*(FadeTransform(a, b) for a, b in zip(learned, random, strict=True)), run_time=1.2)
        self.play(FadeIn(notes[0], shift=UP * 0.1))
        self.narrate(
            "Training nudges every entry against its gradient, for W_K and W_V too: "
            "the gradients that √d_k keeps alive."
        )
        self.play(*(FadeTransform(a, b) for a, b in zip(random, back, strict=True)), run_time=1.2)
        self.play(FadeIn(notes[1], shift=UP * 0.1))
        self.narrate("Our toy's entries stand in for that trained result.", FadeIn(notes[2]))


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
            self.play(FadeIn(line[:2], shift=RIGHT * 0.2))  # each number as it is said
            self.on_words(f"{model.heads} heads", FadeIn(line[2], shift=RIGHT * 0.2))
            self.on_words(f"= {model.d_k} ", FadeIn(line[3], shift=RIGHT * 0.2))
            self.on_words("divided by", FadeIn(line[4], shift=RIGHT * 0.2))
        self.every_head_reads_all(rows[1], table)
        self.wait(1.5)

    @staticmethod
    def table(rows: list[ModelSize]) -> VGroup:
        """One line per model under a heading line; columns aligned by position."""
        xs = (-4.0, -0.6, 1.5, 3.4, 5.4)
        heading = ["model", "d<sub>model</sub>", "heads", "d<sub>k</sub>", "√d<sub>k</sub>"]
        lines = [VGroup(*(caption(h, BODY, palette.MUTED, markup=True) for h in heading))]
        for m in rows:
            name = notation(caption(m.name, BODY))  # the year in a model's name is not a computed value
            cells = [str(m.d_model), str(m.heads), str(m.d_k), fmt(m.sqrt_d_k)]
            lines.append(VGroup(name, *(caption(c, TITLE) for c in cells)))
        for n, line in enumerate(lines):
            for cell, x in zip(line, xs, strict=True):
                cell.move_to([x, -0.9 * n, 0])
        return VGroup(*lines)

    def every_head_reads_all(self, model: ModelSize, table: VGroup) -> None:
        """Each head's W_Q is d_model × d_k: it reads the whole embedding; the outputs concatenate back."""
        lines = VGroup(
            caption(
                f"each head's W<sub>Q</sub> is {model.d_model} × {model.d_k}: it reads all {model.d_model} numbers",
                BODY,
                markup=True,
            ),
            caption(f"{model.heads} heads × {model.d_k} numbers = {model.d_model}: only the outputs are split", BODY),
        ).arrange(DOWN, buff=0.2)
        fit_width(lines, 12.5).next_to(table, DOWN, buff=0.6)
        self.narrate(
            f"A head does not read a slice of the embedding: its W_Q is {model.d_model} by {model.d_k}, "
            f"so it reads all {model.d_model} numbers and writes {model.d_k}."
        )
        self.play(Write(lines[0]))
        self.wait(1.5)
        row = table[2]  # the model's line: where the W_Q's sizes come from
        self.play(*(Indicate(row[k], color=palette.HIGHLIGHT) for k in (1, 3)), run_time=1.2)
        self.narrate(
            f"Only the outputs are split: {model.heads} heads of {model.d_k} concatenate back to {model.d_model}."
        )
        self.play(FadeIn(lines[1]))
        note = caption("sizes: the 2017 paper's base model; MiniLM as the lesson ran it", SMALL, palette.MUTED)
        self.play(FadeIn(caption_band(notation(note)).to_edge(LEFT, buff=0.4)))
