"""The worked example's shapes through one head: X·W_Q, Q·Kᵀ, α·V, as blocks whose sides are n, d_model, d_k, d_v."""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    FadeIn,
    Indicate,
    LaggedStart,
    ManimColor,
    ReplacementTransform,
    VGroup,
    Write,
)

from scenes.kit import BODY, DISPLAY, FORMULA, READOUT, LessonScene, caption, formula, palette, product_sign
from scenes.kit.diagrams import ShapeBlock
from scenes.kit.layout import caption_band, drawn_to_fit
from scenes.kit.motion import give_way


def shape_block(we, unit: float, rows: str, cols: str, name: str, color: ManimColor) -> ShapeBlock:
    """A matrix of the worked example as a block ``unit`` per cell, its sides named by their symbols."""
    length = {"n": we.T, "d_{model}": we.d_model, "d_k": we.d_k, "d_v": we.d_v}
    return ShapeBlock(length[rows], length[cols], name, color, unit, sides=(rows, cols), font_size=FORMULA)


def rule_line(name: str, shapes: str) -> VGroup:
    """A product's formula and its shape rule, on one line: the blocks below get the height."""
    return VGroup(formula(name, size=DISPLAY, tex_to_color_map=palette.ROLE), formula(shapes, size=FORMULA)).arrange(
        RIGHT, buff=0.6
    )


def shape_rule(width: str) -> str:
    """The projection's shape rule, for queries and keys (``d_k``) or values (``d_v``)."""
    return rf"(n \times d_{{model}})(d_{{model}} \times {width}) \to n \times {width}"


class TrackShapes(LessonScene):
    """Shape tracking with the worked example's sizes: projections, QKᵀ, the output, and a batch."""

    def construct(self) -> None:
        title = self.show_title()
        we = self.values.worked_example
        T, d_model, d_k, d_v = we.T, we.d_model, we.d_k, we.d_v
        sizes = formula(
            rf"n = {T} \text{{ tokens}},\quad d_{{model}} = {d_model},\quad d_k = {d_k},\quad d_v = {d_v}", size=READOUT
        )
        sizes.scale(0.8).next_to(title, DOWN, buff=0.3)
        words = caption("a batch of B sentences:", BODY)  # words in the text face, the shape in TeX
        batch = VGroup(words, formula(r"B \times n \times d_v", size=FORMULA)).arrange(RIGHT, buff=0.25)
        batch_sizes = formula(rf"= B \times {T} \times {d_v}", size=FORMULA, color=palette.MUTED)
        caption_band(VGroup(batch, batch_sizes).arrange(RIGHT))
        # one product at a time, its blocks as large as the room between the sizes and the batch line allows
        room = sizes.get_bottom()[1] - batch.get_top()[1] - 2 * 0.3
        rows = drawn_to_fit(
            lambda unit: self.product_rows(we, unit),
            3.4 / max(T, d_model),
            lambda rows: all(row.height <= room and row.width <= 12.5 for row in rows),
        )
        for row in rows:
            row.next_to(sizes, DOWN, buff=0.3).set_x(0)
        lines = (
            "Projecting: n by d_model times d_model by d_k gives n by d_k; keys the same. "
            "Values, with W_V, are n by d_v.",
            "Queries times keys transposed: one score for every pair of tokens, n by n.",
            "Softmax, row by row, keeps the n by n shape: the weights α. α times the values gives Z, "
            "one output row of size d_v per token.",
        )
        self.narrate(
            "Let us follow the shapes, with the worked example's sizes: n tokens, each d_model numbers long. "
            "d_v is the length of each value vector."
        )
        x = rows[0][1][0]
        alone = x.copy().scale(1.3).move_to(rows[0][1]).set_x(0)  # the whole picture, for now: larger, centred
        alone.shift(DOWN * max(0.0, alone.get_top()[1] - (sizes.get_bottom()[1] - 0.4)))  # clear of the sizes
        self.play(FadeIn(sizes), FadeIn(alone))  # the opening frame: the sizes, and X
        self.on_words("n tokens", Indicate(alone, color=palette.HIGHLIGHT))  # n tokens, d_model numbers each
        made = VGroup()  # how α was made, once it is
        for i, (row, line) in enumerate(zip(rows, lines, strict=True)):
            self.narrate(line)
            if i:  # the last result moves to where the next product uses it; the rest of the last product goes
                rules, blocks = rows[i - 1]
                carry = ReplacementTransform(blocks[-1], row[1][0])  # Q into Q·Kᵀ; QKᵀ, softmaxed, into α·V
                if i == 2:  # softmax first: the scores become α, their shape kept; α · V only when it is said
                    made = formula(r"\alpha = \mathrm{softmax}\!\left(QK^{T} / \sqrt{d_k}\right)", size=FORMULA)
                    made.next_to(row[1], DOWN, buff=0.35).align_to(row[1][0], LEFT)
                    step = rule_line(r"\mathrm{softmax}", r"(n \times n) \to n \times n").move_to(row[0])
                    self.play(give_way(VGroup(rules, *blocks[:-1]), Write(step)), carry, run_time=1.4)
                    self.play(FadeIn(made))
                    self.until_words("α times")
                    self.play(give_way(step, Write(row[0])))
                else:
                    self.play(give_way(VGroup(rules, *blocks[:-1]), Write(row[0])), carry, run_time=1.4)
            else:  # X to its place in the first product
                self.play(ReplacementTransform(alone, x), Write(row[0]))
            self.play(LaggedStart(*(FadeIn(part) for part in row[1][1:]), lag_ratio=0.4), run_time=1.5)
            if i == 0:  # K and V made the same way, each shown as it is said; then Q again, for the next product
                self.also_keys_and_values(we, row)

        self.narrate("Models read several sentences at once, a batch of B of them: the output is then B by n by d_v.")
        self.play(give_way(made, Write(batch), FadeIn(batch_sizes)))  # the caption band: one line at a time
        self.wait(3)

    def also_keys_and_values(self, we, row: VGroup) -> None:
        """The projection's W_Q and Q turn into W_K and K, then W_V and V, as the sentence names them, and back;
        its formula and shape rule switch with them."""
        rules, blocks = row
        right, result = blocks[2], blocks[4]
        unit = result.cells[0].width

        def like(old: ShapeBlock, rows: str, cols: str, name: str, role: str) -> ShapeBlock:
            new = shape_block(we, unit, rows, cols, name, palette.ROLE[role])
            return new.move_to(old.cells.get_center() - new.cells.get_center() + new.get_center())

        def rule(role: str, width: str) -> VGroup:  # the formula and shape rule of that product, in rules' place
            return rule_line(f"{role} = X \\cdot W_{{{role}}}", shape_rule(width)).move_to(rules, aligned_edge=LEFT)

        back = [right.copy(), result.copy()]  # before they change: each change morphs what it replaces
        shown, said = [right, result], rules
        for words, role, width in (("keys the same", "K", "d_k"), ("Values", "V", "d_v")):
            new = [like(right, "d_{model}", width, f"W_{{{role}}}", role), like(result, "n", width, role, role)]
            line = rule(role, width)
            self.on_words(
                words,
                *(ReplacementTransform(a, b) for a, b in zip(shown, new, strict=True)),
                give_way(said, FadeIn(line)),
            )
            shown, said = new, line
        self.finish_narration()
        moves = (ReplacementTransform(a, b) for a, b in zip(shown, back, strict=True))
        self.play(*moves, give_way(said, FadeIn(rules)), run_time=0.6)
        blocks.submobjects[2], blocks.submobjects[4] = back  # W_Q and Q again, for the next product to carry

    def product_rows(self, we, unit: float) -> list[VGroup]:
        """The three products (projection, scores, output), their blocks ``unit`` per cell."""

        def block(rows: str, cols: str, name: str, color: ManimColor) -> ShapeBlock:
            return shape_block(we, unit, rows, cols, name, color)

        return [
            self.product_row(
                r"Q = X \cdot W_{Q}",
                shape_rule("d_k"),
                block("n", "d_{model}", "X", palette.TEXT),
                block("d_{model}", "d_k", "W_{Q}", palette.QUERY),
                block("n", "d_k", "Q", palette.QUERY),
            ),
            self.product_row(
                r"Q K^{T}",
                r"(n \times d_k)(d_k \times n) \to n \times n",
                block("n", "d_k", "Q", palette.QUERY),
                block("d_k", "n", "K^T", palette.KEY),
                block("n", "n", "QK^T", palette.MUTED),
            ),
            self.product_row(
                r"\alpha V",
                r"(n \times n)(n \times d_v) \to n \times d_v",
                block("n", "n", r"\alpha", palette.MUTED),
                block("n", "d_v", "V", palette.VALUE),
                block("n", "d_v", "Z", palette.TEXT),
            ),
        ]

    @staticmethod
    def product_row(name: str, shapes: str, left: ShapeBlock, right: ShapeBlock, result: ShapeBlock) -> VGroup:
        """The product's formula and shape rule, and below them its blocks (left · right → result)."""
        rules = rule_line(name, shapes)
        blocks = VGroup(left, product_sign(READOUT), right, formula(r"\to", size=READOUT), result)
        blocks.arrange(RIGHT, buff=0.8)
        for block in (left, right, result):
            block.shift((left.cells.get_y() - block.cells.get_y()) * UP)
        blocks.next_to(rules, DOWN, buff=0.5)
        return VGroup(rules, blocks)
