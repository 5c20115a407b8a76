"""The projections as a model has them: one learned W_Q applied to every token, and real models' sizes
(d_model, heads, d_k) beside the toy's, with every head reading all of d_model."""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    AnimationGroup,
    Arrow,
    Brace,
    Create,
    FadeIn,
    FadeOut,
    FadeTransform,
    GrowArrow,
    GrowFromCenter,
    Indicate,
    LaggedStart,
    Rectangle,
    ReplacementTransform,
    SurroundingRectangle,
    VGroup,
)

from attention_math.model_types import ModelSize
from scenes.kit import (
    BODY,
    DISPLAY,
    LABEL,
    READOUT,
    TITLE,
    LabelledMatrix,
    LessonScene,
    caption,
    formula,
    notation,
    palette,
    product_sign,
)
from scenes.kit.base import READ_HOLD
from scenes.kit.diagrams import EVEN_ARROW
from scenes.kit.layout import GAP, MIDDLE, SUBTITLE_TOP, TOP, caption_band, fit_content, fit_width
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
        times, equals = product_sign(DISPLAY), formula("=", size=DISPLAY)
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
            self.play(FadeIn(pair), run_time=0.5)  # each row in turn, slow enough to follow
            self.wait(0.4)
            self.play(FadeOut(pair), run_time=0.4)
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
            caption(f"training starts from small random numbers, here between −{bound} and {bound}", BODY),
            caption(
                "each step: every entry − a small step × its gradient (W<sub>K</sub>, W<sub>V</sub> too)",
                BODY,
                markup=True,
            ),
            caption("our toy's entries stand in for that trained result", BODY),
        ).arrange(DOWN, buff=0.15)
        caption_band(fit_width(notes, 12))
        back = [m.copy() for m in learned]
        self.narrate("In a real model, training starts W_Q as random numbers, so the first queries mean nothing yet.")
        self.play(*(FadeTransform(a, b) for a, b in zip(learned, random, strict=True)), run_time=1.2)
        self.play(FadeIn(notes[0], shift=UP * 0.1))
        self.narrate("Training nudges every entry against its gradient, in W_K and W_V too.")
        self.on_words(  # the rule of a step as it is said, on the entries it changes
            "nudges",
            FadeIn(notes[1], shift=UP * 0.1),
            Indicate(random[0].get_entries(), color=palette.HIGHLIGHT, scale_factor=1.0),
            run_time=1.5,
        )
        self.narrate("Our toy's entries stand in for that trained result.")
        self.play(*(FadeTransform(a, b) for a, b in zip(random, back, strict=True)), FadeIn(notes[2]), run_time=1.2)


ROW_STEP = 1.2  # between the sizes table's lines


class CompareSizes(LessonScene):
    """The toy's sizes beside the original Transformer's and MiniLM's: d_k = d_model ÷ heads, and √d_k."""

    def construct(self) -> None:
        we, rm = self.values.worked_example, self.values.real_model
        self.show_title()
        toy = ModelSize("our worked example", we.d_model, we.h, we.d_k, we.heads[0].sqrt_d_k)  # I love apple phones
        rows = [toy, *rm.sizes]
        table = self.table(rows)
        table.move_to([0, MIDDLE + 0.4, 0])  # alone on screen: in the middle, as large as it reads
        self.narrate(f"Our worked example has d_model {toy.d_model} and {toy.heads} heads. Real models are far wider.")
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
        note = caption(f"sizes: the 2017 paper's base model, and {rm.model.split('/')[-1]}", LABEL, palette.MUTED)
        self.play(FadeIn(caption_band(notation(note)).to_edge(LEFT, buff=0.4)))
        self.finish_narration()
        self.wait(READ_HOLD)
        self.every_head_reads_all(rows[1], VGroup(*table, note))
        self.wait(READ_HOLD + 1.5)  # the joined width, the clip's conclusion, read before it ends

    @staticmethod
    def table(rows: list[ModelSize]) -> VGroup:
        """One line per model under a heading line; columns aligned by position."""
        xs = (-4.0, -0.6, 1.5, 3.4, 5.4)
        heading = ["model", "d<sub>model</sub>", "heads", "dₖ", "√dₖ"]
        lines = [VGroup(*(caption(h, TITLE, palette.MUTED, markup=True) for h in heading))]  # subscripts legible
        for m in rows:
            name = notation(caption(m.name, TITLE))  # the year in a model's name is not a computed value
            cells = [str(m.d_model), str(m.heads), str(m.d_k), fmt(m.sqrt_d_k)]
            lines.append(VGroup(name, *(caption(c, DISPLAY) for c in cells)))
        for n, line in enumerate(lines):
            for cell, x in zip(line, xs, strict=True):
                cell.move_to([x, -ROW_STEP * n, 0])
        return VGroup(*lines)

    def every_head_reads_all(self, model: ModelSize, table: VGroup) -> None:
        """One token's d_model numbers, each head's W_Q reading all of them into d_k; the heads' outputs join.
        ``table``: the heading, the toy's, this model's and MiniLM's lines, and the note under them."""
        row = table[2]  # the model's line: where the W_Q's sizes come from; the others make room for the figure
        gone = [m for k, m in enumerate(table) if k not in (0, 2)]  # the other models' lines, the note
        top = TOP - 0.3  # the heading and this model's line move up: the figure hangs below them
        self.play(
            *(FadeOut(m) for m in gone),
            table[0].animate.set_y(top),
            row.animate.set_y(top - 1.0),
        )
        split = HeadSplit(model)
        room = row.get_bottom()[1] - 0.5 - (SUBTITLE_TOP + GAP)
        split.scale(min(1.0, room / split.height)).next_to(row, DOWN, buff=0.5)
        split.shift(-split.token.get_x() * RIGHT)  # the token's bar centred: the rest hangs from it
        self.narrate(
            f"A head does not read a slice of the embedding: its W_Q is {model.d_model} by {model.d_k}, "
            f"so it reads all {model.d_model} numbers and writes {model.d_k}."
        )
        self.play(FadeIn(split.token))
        self.on_words(
            "its W_Q",
            FadeIn(split.feeds[0][0]),  # the brace round all the numbers: the arrow comes with what it writes
            FadeIn(split.reads),  # whole at once: written out, it was half there while the voice had moved on
            *(Indicate(row[k], color=palette.HIGHLIGHT) for k in (1, 3)),
            run_time=1.0,
        )
        self.on_words("reads all", GrowArrow(split.feeds[0][1]), FadeIn(split.slots[0], shift=DOWN * 0.2))
        self.finish_narration()
        self.wait(READ_HOLD)
        self.narrate(
            f"Each head's output has {model.d_k} numbers too: {model.heads} of them concatenate back to "
            f"{model.d_model}."
        )
        others = [FadeIn(VGroup(f, s)) for f, s in zip(split.feeds[1:], split.slots[1:], strict=True)]
        self.on_words(  # head 1's output, made by its attention from the queries above
            "output", FadeOut(split.reads), FadeIn(split.attends), FadeIn(split.outputs[0], shift=DOWN * 0.2)
        )
        outputs = [FadeIn(o, shift=DOWN * 0.2) for o in split.outputs[1:]]
        self.on_words(f"{model.heads} of them", LaggedStart(*others, *outputs, lag_ratio=0.1), run_time=2)
        self.on_words("concatenate", split.join(), run_time=1.2)
        self.play(GrowFromCenter(split.brace), FadeIn(split.total))


class HeadSplit(VGroup):
    """A token's d_model numbers as a bar; below, each head's d_k output as a slot a d_model-th of its width,
    reached by an arrow from a brace round the whole bar (its W_Q reads every number, as in model-configuration);
    lower still, where :meth:`join` puts copies of the slots side by side: the heads' outputs concatenated, as
    wide as the token again."""

    WIDTH = 12.0  # of the token's bar, in scene units
    HIGH = 0.7  # of the bars
    DROP = 2.1  # from the token's bar down to the slots: room for the brace and its arrows
    GAP = 0.25  # between two heads' slots: separate outputs until they are joined
    NARROW = 0.62  # a slot's width, of a d_model-th of the bar's: a row narrower than the bar, never its slices

    def __init__(self, model: ModelSize) -> None:
        super().__init__()
        bar = Rectangle(width=self.WIDTH, height=self.HIGH, color=palette.TEXT, fill_opacity=0.15, stroke_width=2)
        self.token = VGroup(bar, caption(f"one token: {model.d_model} numbers", BODY).move_to(bar))
        piece = self.WIDTH / model.heads
        self.slots, self.feeds = VGroup(), VGroup()
        whole = Brace(bar, DOWN, buff=0.08, color=palette.MUTED)  # all the numbers, gathered: each head reads all
        step = piece * self.NARROW + self.GAP
        for h in range(model.heads):  # centred under the whole bar, not each under "its" part of it
            x = bar.get_x() + step * (h - (model.heads - 1) / 2)
            slot = Rectangle(
                width=piece * self.NARROW, height=self.HIGH, color=palette.QUERY, fill_opacity=0.35, stroke_width=2
            )
            slot.move_to([x, bar.get_y() - self.DROP, 0])
            slot.add(caption(str(model.d_k), BODY).move_to(slot))
            self.slots.add(slot)
            arrow = Arrow(whole.get_tip(), slot.get_top(), buff=0.1, color=palette.QUERY, **EVEN_ARROW)
            self.feeds.add(VGroup(whole, arrow) if h == 0 else arrow)  # the brace with the first head's arrow
        reads = VGroup(  # W_Q in TeX: its subscript large enough that Q does not read as O
            formula("W_Q", size=READOUT, color=palette.QUERY),
            caption(f"of one head: {model.d_model} × {model.d_k}", TITLE, palette.QUERY),
        ).arrange(RIGHT, buff=0.15, aligned_edge=DOWN)
        # where the other heads' slots come later, right, clear of the first arrow: it goes when they come
        self.reads = reads.move_to(self.slots[1:]).align_to(bar, RIGHT)
        below = self.slots.get_y() - self.HIGH - 0.9  # room between for what turns queries into outputs
        # each head's output, d_v = d_k numbers: made by the head (softmax(QKᵀ/√dₖ)V), not a copy of its queries;
        # first under its own head, then edge to edge
        self.outputs = VGroup(*(self.output_of(s).set_y(below) for s in self.slots))
        self.attends = caption(  # the two rows are not one thing copied: attention lies between them
            f"↓ each head's attention: an output of {model.d_k} numbers ↓", BODY, palette.MUTED
        ).move_to((self.slots.get_bottom() + self.outputs.get_top()) / 2)
        self.joined = VGroup(*(self.widened(o, piece, x) for o, x in zip(self.outputs, self.joined_xs(), strict=True)))
        self.brace = Brace(self.joined, DOWN, buff=0.1, color=palette.MUTED)
        total = f"joined: {model.heads} heads × {model.d_k} = {model.d_model} numbers, one token's width again"
        self.total = caption(total, BODY).next_to(self.brace, DOWN, buff=0.1)
        parts = (self.feeds, self.token, self.slots, self.reads, self.attends, self.outputs, self.joined)
        self.add(*parts, self.brace, self.total)

    @staticmethod
    def output_of(slot: Rectangle) -> Rectangle:
        """A head's output, as wide as its slot (d_v = d_k), in the outputs' white, not the queries' blue."""
        out = slot.copy()
        out.set_stroke(palette.TEXT, family=False).set_fill(palette.TEXT, 0.15, family=False)
        return out

    @staticmethod
    def widened(output: Rectangle, width: float, x: float) -> Rectangle:
        """A head's output in the concatenation: a d_model-th of the token's width, its number unstretched."""
        joined = output.copy()
        number = joined.submobjects[0]
        joined.remove(number).stretch_to_fit_width(width).set_x(x)
        return joined.add(number.move_to(joined))

    def join(self) -> AnimationGroup:
        """Each head's output moved into its place in the concatenation, edge to edge."""
        return AnimationGroup(*(ReplacementTransform(o, j) for o, j in zip(self.outputs, self.joined, strict=True)))

    def joined_xs(self) -> list[float]:
        """The slots' centres once joined: edge to edge across the token's width."""
        piece, left = self.WIDTH / len(self.slots), self.token.get_left()[0]
        return [left + piece * (h + 0.5) for h in range(len(self.slots))]
