"""The worked example, step 7: the other heads the same way, their outputs side by side, joined (· W_O).

Every number comes from ``attention_math`` (section ``worked_example``); the scene lays itself out for 2 to
12 tokens, d_model up to 8 and 1 to 4 heads. Step 6 is in ``worked_outputs.py``.
"""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    AnimationGroup,
    Brace,
    Create,
    FadeIn,
    FadeOut,
    LaggedStart,
    MathTex,
    Mobject,
    ReplacementTransform,
    Restore,
    VGroup,
    Write,
)

from attention_math.types import Head, WorkedExample
from scenes.kit import (
    BODY,
    FORMULA,
    FORMULA_LARGE,
    LABEL,
    LEAD,
    MIN_FONT_SIZE,
    TITLE,
    Heatmap,
    LabelledMatrix,
    LessonScene,
    caption,
    formula,
    notation,
    palette,
    token_cell,
)
from scenes.kit.base import READ_HOLD
from scenes.kit.diagrams import joined
from scenes.kit.layout import (
    MAX_ROWS,
    MIDDLE,
    SUBTITLE_TOP,
    TOP,
    below_title,
    drawn_to_fit,
    grow_within,
    matrix_font,
    token_matrix,
)
from scenes.kit.motion import give_way
from scenes.kit.numbers import fmt

MATRIX_FONT = 28  # a head's own projections, beside its weights


ROW_GAP = 0.8  # between the joined heads and their first row read out
MIN_SHRINK = 0.8  # the heads' outputs shrink no more than this to make room for that row
JOIN_GAP = 1.2  # between the heads' outputs before they are joined: the join is seen to close it
OWN_GROWTH = 1.6  # how much a head's own matrices may grow into the room below the rule


class CombineHeads(LessonScene):
    """Steps 9–10: every other head the same way, the heads side by side, concatenated (· W_O)."""

    def construct(self) -> None:
        we = self.values.worked_example
        tokens, heads = we.tokens, we.heads
        self.show_title()
        head_formula = r"Z = \mathrm{softmax}\!\left(\frac{QK^{T}}{\sqrt{d_k}}\right) V"  # each head's output
        rule = formula(head_formula, size=FORMULA_LARGE)
        rule.to_edge(LEFT, buff=0.6).shift(UP * 1.7)  # high: room below it for a head's own matrices
        glimpses = [self.head_glimpse(heads[n], tokens, n, rule) for n in range(1, len(heads))]
        rule.save_state()  # its place beside the next head's matrices
        grow_within(rule, 10, 2.6).move_to(UP * MIDDLE)  # alone, it is the picture: large, in the middle
        self.narrate("The other heads run the same steps with their own W_Q, W_K and W_V.")
        self.play(Write(rule))
        if glimpses:  # the next head's own matrices, as they are named, the rule making room for them
            self.on_words("their own", Restore(rule), FadeIn(glimpses[0][0]), run_time=0.8)
        outputs = self.head_outputs(heads, tokens)
        concat = self.concat_matrix(we, tokens)
        row = self.row_readout(concat, tokens[0])  # one token's d_model numbers, right of the joined heads
        heads_out, room = VGroup(*outputs), 12.8 - ROW_GAP - row.width
        shrink = min(1.0, room / heads_out.width)  # a little smaller, if they must, to leave the row its room
        digits = min(entry.font_size for out in outputs for entry in out.entries.values())
        if shrink >= MIN_SHRINK and digits * shrink >= MIN_FONT_SIZE:
            heads_out.scale(shrink, about_edge=UP).shift(LEFT * (ROW_GAP + row.width) / 2)
        else:
            row = VGroup()
        for n, (own, weights, name) in enumerate(glimpses, start=1):
            self.narrate(f"Head {n + 1}, with its own matrices, weighs the tokens differently.")
            self.play(*([] if n == 1 else [FadeIn(own)]), FadeIn(name), FadeIn(weights), run_time=0.8)
            pair = self.beside_head_1(heads, tokens, n)  # "differently": than head 1, shown beside it
            leaving = VGroup(own, name, weights, *([rule] if n == 1 else []))  # the rule, once: gone, it stays gone
            self.on_words("weighs", give_way(leaving, FadeIn(pair)), run_time=0.9)  # there while "differently" is said
            self.finish_narration()
            self.wait(READ_HOLD)
            leaving = VGroup(pair)
            if n < len(glimpses):
                self.play(FadeOut(pair), run_time=0.5)
        self.narrate("Side by side, each head has its own output Z: one row per token, d_v columns each.")
        if not glimpses:  # one head: the rule is still up
            leaving = VGroup(rule)
        # the last picture gives way as the outputs come: no empty frame between them
        self.play(give_way(leaving, LaggedStart(*(FadeIn(o) for o in outputs), lag_ratio=0.3)))
        widths = self.width_braces(outputs)
        self.on_words("dᵥ columns", FadeIn(widths))
        self.finish_narration()
        self.wait(1)
        concat.scale(outputs[0].brackets.height / concat.brackets.height).move_to(VGroup(*outputs))  # same cells
        if len(row):
            row.next_to(concat, RIGHT, buff=ROW_GAP).set_y(concat.cells.get_y())
        self.narrate(f"Concatenating the heads gives back d_model = {we.d_model} numbers per token.")
        self.play(*(FadeOut(o.get_name()) for o in outputs))
        self.play(self.join(outputs, concat, we.d_k), FadeOut(widths), run_time=1.5)
        braces = self.head_braces(concat, len(heads), we.d_k)
        self.play(FadeIn(braces))  # each head's columns, where they landed
        frame = concat.row_frame(0) if len(row) else VGroup()
        self.play(Create(frame), FadeIn(row, shift=LEFT * 0.2))  # "per token": one row, d_model numbers
        if we.W_O is not None:
            self.wait(1)
            self.play(FadeOut(braces), FadeOut(frame), FadeOut(row))
            self.project(we, tokens, concat)
        else:
            later = formula(
                rf"\text{{full block: output}} = {joined(len(heads))}\, W_{{O}}"
                r"\quad \text{(not in our example)}",
                size=FORMULA,
            )
            later.next_to(braces, DOWN, buff=0.25).set_x(0)  # under the joined heads and their row
            self.narrate(
                "A full attention block then multiplies this by one more learned matrix, W_O, which mixes the heads."
                " Our example leaves W_O out."
            )
            self.play(Write(later))
        self.wait(2)

    def head_outputs(self, heads: list[Head], tokens: list[str]) -> list[LabelledMatrix]:
        """Each head's output matrix, named, side by side."""
        font = matrix_font(len(tokens))
        outs = [
            LabelledMatrix(
                h.output,
                row_labels=tokens if n == 0 else None,
                name=rf"Z^{{({n + 1})}}",  # head n + 1's output
                font_size=font,
                max_rows=MAX_ROWS,
                max_cols=4,
            )
            for n, h in enumerate(heads)
        ]
        group = grow_within(VGroup(*outs).arrange(RIGHT, buff=0.5, aligned_edge=DOWN), 12, 4.4)  # braces, W_O below
        if group.width + (len(outs) - 1) * (JOIN_GAP - 0.5) <= 12:  # a wider gap where the frame has room for it
            group.arrange(RIGHT, buff=JOIN_GAP, aligned_edge=DOWN)
        below_title(group.set_x(0))
        return outs

    def head_glimpse(self, head: Head, tokens: list[str], n: int, rule: MathTex) -> tuple[VGroup, Heatmap, Mobject]:
        """Head ``n`` laid out beside the rule: its own matrices (an empty group if they have no room to be read
        at their size), its weights heatmap and that heatmap's name."""
        cell = token_cell(len(tokens))
        name = notation(caption(f"head {n + 1}: attention weights", BODY))
        weights = Heatmap(head.weights, tokens, cell=cell)
        room = 7.1 - 0.3 - rule.get_right()[0] - 0.8
        if weights.width <= room and weights.height <= TOP - SUBTITLE_TOP:  # beside the rule, at full size
            weights.next_to(rule, RIGHT, buff=0.8).shift(min(0.0, TOP - weights.get_top()[1]) * UP)
        else:  # a long sentence: the whole right side, below the title
            below_title(weights).to_edge(RIGHT, buff=0.6)
        name.next_to(weights, DOWN, buff=0.3).match_x(weights)
        own = self.head_matrices(head, n)  # its own W_Q, W_K, W_V: every number of head n can be checked
        width = weights.get_left()[0] - rule.get_left()[0] - 0.5
        height = rule.get_bottom()[1] - 0.4 - (SUBTITLE_TOP + 0.1)
        fits = min(OWN_GROWTH, width / own.width, height / own.height)  # as large as their room allows
        if fits < 0.95:  # no room to read them at their size (a long sentence): the weights alone
            own = VGroup()
        else:
            own.scale(fits).next_to(rule, DOWN, buff=0.4).align_to(rule, LEFT)
        return own, weights, name

    @staticmethod
    def beside_head_1(heads: list[Head], tokens: list[str], n: int) -> VGroup:
        """Head 1's weights and head ``n``'s side by side, each named, as large as the frame allows."""

        def pair_at(cell: float) -> VGroup:
            maps = (
                Heatmap(heads[k].weights, tokens, cell=cell, legend=k == n) for k in (0, n)
            )  # one scale: one legend
            named = (  # each name in its map's top-left corner, above the row labels: no height of its own
                VGroup(m, notation(caption(f"head {k + 1}", BODY)).next_to(m.cells, UP + LEFT, buff=0.15))
                for k, m in zip((0, n), maps, strict=True)
            )
            return VGroup(*named).arrange(RIGHT, buff=0.5)

        def fits(pair: VGroup) -> bool:
            return pair.width <= 13 and pair.height <= TOP - SUBTITLE_TOP - 0.2

        # a little wider than one grid's cells: two grids share the width, and their column names need the room
        return drawn_to_fit(pair_at, 1.05 * token_cell(len(tokens)), fits).move_to([0, MIDDLE, 0])

    @staticmethod
    def head_matrices(head: Head, n: int) -> VGroup:
        """Head ``n``'s three projections, side by side, in their roles' colours."""
        roles = ((head.W_q, "Q", palette.QUERY), (head.W_k, "K", palette.KEY), (head.W_v, "V", palette.VALUE))
        return VGroup(
            *(
                LabelledMatrix(w, name=rf"W_{{{r}}}^{{({n + 1})}}", color=c, font_size=MATRIX_FONT, max_rows=MAX_ROWS)
                for w, r, c in roles
            )
        ).arrange(RIGHT, buff=0.35, aligned_edge=UP)

    def join(self, outputs: list[LabelledMatrix], concat: LabelledMatrix, d_k: int) -> AnimationGroup:
        """Each head's entries slide into their columns of the concatenation."""
        moves, landed = [], set()
        for n, out in enumerate(outputs):
            for (i, c), cell in out.entries.items():
                if concat.is_shown(i, n * d_k + c):
                    moves.append(ReplacementTransform(cell, concat.get_entry(i, n * d_k + c)))
                    landed.add((i, n * d_k + c))
                else:
                    moves.append(FadeOut(cell))
        rest = [FadeIn(cell) for key, cell in concat.entries.items() if key not in landed]
        first, last = outputs[0], outputs[-1]
        # the outer brackets and the row labels become the concatenation's; the inner brackets go
        kept = [(first.brackets[0], concat.brackets[0]), (last.brackets[-1], concat.brackets[-1])]
        kept.append((first.row_labels, concat.row_labels))
        inner = [b for o in outputs for b in o.brackets if b not in (first.brackets[0], last.brackets[-1])]
        others = [o.row_labels for o in outputs[1:]] + [o.ellipses for o in outputs]
        frame = VGroup(concat.ellipses, concat.col_labels, concat.name)
        return AnimationGroup(
            *moves,
            *rest,
            *(ReplacementTransform(a, b) for a, b in kept),
            FadeOut(VGroup(*inner, *others)),
            FadeIn(frame),
        )

    @staticmethod
    def row_readout(concat: LabelledMatrix, token: str) -> VGroup:
        """The first token's row of the joined heads, read out: d_model numbers."""
        values = ", ".join(fmt(v, concat.places) for v in concat.values[0])
        return VGroup(
            caption(f"the row of “{token}”:", LEAD, palette.MUTED),
            caption(f"[{values}]", TITLE),
            formula(rf"d_{{\text{{model}}}} = {concat.values.shape[1]}", size=TITLE),
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.25)

    @staticmethod
    def width_braces(outputs: list[LabelledMatrix]) -> VGroup:
        """Under each head's output, its width: d_v columns."""
        return VGroup(*(brace_under(out, out.cells, f"dᵥ = {out.values.shape[1]}") for out in outputs))

    def head_braces(self, concat: LabelledMatrix, h: int, d_k: int) -> VGroup:
        """Under the concatenation, which columns came from which head."""
        braces = VGroup()
        for n in range(h):
            cells = VGroup(*(concat.get_column(c) for c in range(n * d_k, (n + 1) * d_k) if len(concat.get_column(c))))
            if len(cells):
                braces.add(brace_under(concat, cells, f"head {n + 1}"))
        return braces

    def concat_matrix(self, we: WorkedExample, tokens: list[str]) -> LabelledMatrix:
        return token_matrix(we.concat, tokens, joined(len(we.heads)), max_cols=8)

    def project(self, we: WorkedExample, tokens: list[str], concat: LabelledMatrix) -> None:
        """Multiply the concatenation by W_O: the attention block's output."""
        self.narrate("Finally the output projection W_O mixes the heads into the attention block's output.")
        out = token_matrix(we.output, tokens, rf"{joined(len(we.heads))}\, W_{{O}}", max_cols=8).move_to(concat)
        self.play(ReplacementTransform(concat, out), run_time=1.2)


def brace_under(matrix: LabelledMatrix, cells: Mobject, name: str) -> VGroup:
    """A brace under ``cells`` of ``matrix``, clear of its brackets, and ``name`` under the brace."""
    below = cells.get_bottom()[1] - matrix.get_brackets().get_bottom()[1] + 0.12
    brace = Brace(cells, DOWN, buff=below, color=palette.MUTED)
    return VGroup(brace, notation(caption(name, LABEL, palette.MUTED)).next_to(brace, DOWN, buff=0.1))
