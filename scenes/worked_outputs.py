"""The worked example, step 6: the weighted sum of values.

Every number comes from ``attention_math`` (section ``worked_example``); the scenes lay
themselves out for 2 to 12 tokens, d_model up to 8 and 1 to 4 heads. The layout helpers
the chapter's modules share are in ``scenes/kit/layout.py``.
Steps 1–2 are in ``worked_projections.py``, 3 in ``dot_products.py``, 4–5 in ``worked_scores.py``, 7 in
``multi_head.py``.
"""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    DR,
    LEFT,
    RIGHT,
    UP,
    UR,
    Arrow,
    Create,
    FadeIn,
    FadeOut,
    GrowArrow,
    Indicate,
    LaggedStart,
    ReplacementTransform,
    Transform,
    VGroup,
)

from attention_math import claims
from attention_math.types import Head
from scenes.kit import (
    BODY,
    LABEL,
    Heatmap,
    LabelledMatrix,
    LessonScene,
    TokenRow,
    VectorPlane,
    caption,
    notation,
    number,
    palette,
    token_cell,
)
from scenes.kit.clearance import beside_clear_of
from scenes.kit.layout import (
    MAX_COLS,
    MAX_ROWS,
    MIDDLE,
    SUBTITLE_TOP,
    TOP,
    below_title,
    grow_within,
    matrix_font,
    token_matrix,
)
from scenes.kit.motion import give_way
from scenes.kit.numbers import fmt


class SumValues(LessonScene):
    """Step 8: one token's output = its weights times the value vectors, added tip to tail."""

    def construct(self) -> None:
        we = self.values.worked_example
        head, tokens = we.heads[0], we.tokens
        self.show_title()
        i = 0
        self.narrate(
            f"The output of '{tokens[i]}' mixes every value vector, each scaled by its attention weight. "
            "The products show rounded; the running sum adds their exact values."
        )
        weighted = LabelledMatrix(
            head.weighted_values[i],
            row_labels=[
                # three decimals: a weight rounded to two can multiply out to another product than the one shown
                f"{fmt(w, 3)} × v({t})"  # each weight with the word whose value it scales, as in cat-sat
                for w, t in zip(head.weights[i], tokens, strict=True)
            ],
            name=r"\text{weight} \times \text{value}",
            color=palette.VALUE,
            places=3,  # as the weights: each product is the product of the numbers beside it, to the digit
            font_size=matrix_font(len(tokens)),
            max_rows=MAX_ROWS,
            max_cols=MAX_COLS,
        )
        below_title(weighted).to_edge(LEFT, buff=0.5)
        for label in weighted.get_row_labels():  # each value vector in the values' green, as its arrow is
            letters = "".join(label.token.split())  # a text's glyphs: its characters but the spaces
            if "×" in letters:
                label[letters.index("×") + 1 :].set_color(palette.VALUE)
        self.play(FadeIn(weighted.get_frame()))
        scenery = self.plane(head, i) if head.d_k == 2 else VGroup()
        plane = scenery[0] if len(scenery) else None
        sums = head.output_partial_sums[i]
        total = LabelledMatrix(
            sums[:1], name=r"\text{running sum}", color=palette.TEXT, font_size=34, max_cols=MAX_COLS
        )
        total.next_to(weighted, DOWN, buff=0.4).align_to(weighted.cells, LEFT)
        self.play(FadeIn(total.get_frame()))  # empty: no sum before its first product
        arrows = plane.tip_to_tail(head.weighted_values[i]) if plane else VGroup()
        shown = [j for j in weighted.shown_rows if j is not None]
        current = None
        for j in range(len(tokens)):
            fresh = self.row_cells(total, sums[j])
            if current is not None:  # the sum so far switches at once: morphing digits would garble them
                self.remove(current)
                self.add(fresh)
            anims = [FadeIn(fresh)] if current is None else []
            current = fresh
            if j in shown:
                anims.append(LaggedStart(*(FadeIn(c) for c in weighted.get_row(j)), lag_ratio=0.2))
            if plane:
                anims.append(GrowArrow(arrows[j]))
            if j == 0:  # each value scaled by its weight, from when that is said, at a pace to follow
                self.on_words("each scaled", *anims, run_time=1.4)
            else:
                self.play(*anims, run_time=1.4 if j < 3 else 0.4)
        self.narrate(
            f"The last running sum is the output of '{tokens[i]}': "
            "a blend of the values, each counting as much as its weight."
        )
        if plane:
            out = plane.arrow(head.output[i], palette.TEXT)
            name = TokenRow([f"output of {tokens[i]}"], font_size=24)
            drawn = [m for m in (*scenery.get_family(), *arrows, out) if isinstance(m, Arrow)]  # the faint values too
            beside_clear_of(name, out.get_end(), drawn, (RIGHT, UR, DR, UP, DOWN, LEFT), buffs=(0.1, 0.3))
            scenery.add(out, name)
            self.play(GrowArrow(out), FadeIn(name))
        self.play(Indicate(current, color=palette.HEAT_LOW))
        self.wait(1)
        self.show_all_outputs(head, tokens, i, current, VGroup(weighted, total.get_frame(), scenery, arrows))

    def plane(self, head: Head, i: int) -> VGroup:
        """A plane (first in the group) with the value vectors drawn faint, room for the tip-to-tail path."""
        pts = np.vstack([head.V, head.output_partial_sums[i]])
        plane = VectorPlane.fitting(pts, width=4.6, height=4.8).to_edge(RIGHT, buff=1.6).shift(DOWN * 0.6)
        faint = VGroup(*(plane.arrow(v, palette.VALUE).set_opacity(0.3) for v in head.V))
        note = caption("faint: the value vectors", LABEL, palette.VALUE).next_to(plane, UP, buff=0.1)
        self.play(Create(plane), FadeIn(faint), FadeIn(note))
        return VGroup(plane, faint, note)

    def row_cells(self, total: LabelledMatrix, values: np.ndarray) -> VGroup:
        """Fresh digits for the running-sum row, in the place of the current ones."""
        cells = VGroup()
        for j, cell in zip((j for j in total.shown_cols if j is not None), total.cells, strict=True):
            fresh = number(values[j], total.places, size=cell.font_size)
            cells.add(fresh.set_color(palette.TEXT).move_to(cell))
        return cells

    def show_all_outputs(self, head: Head, tokens: list[str], i: int, current: VGroup, old: VGroup) -> None:
        """Every token's output, one row each: the head's output matrix, the row just summed moving into it."""
        self.narrate("Every token does the same. Together the rows form this head's output.")
        out = token_matrix(head.output, tokens, "Z^{(1)}" if len(self.values.worked_example.heads) > 1 else "Z")
        grow_within(out, 9, TOP - SUBTITLE_TOP - 0.4).move_to(UP * MIDDLE)  # alone in the frame: as large as fits
        cols = [j for j in out.shown_cols if j is not None]
        if out.is_shown(i, cols[0]):  # the output just computed is this row of the matrix
            moved = [ReplacementTransform(c, out.get_entry(i, j)) for j, c in zip(cols, current, strict=False)]
        else:
            moved = [FadeOut(current)]
        self.play(give_way(old, FadeIn(out.get_frame())), *moved, run_time=1.2)
        rest = [out.get_row(r) for r in out.shown_rows if r is not None and r != i]
        self.play(LaggedStart(*(FadeIn(row) for row in rest), lag_ratio=0.3), run_time=1.5)
        if alike := claims.alike_outputs(head.weights, head.V, head.output):  # what a learner sees, explained
            weights = VGroup(  # the even weights, beside
                Heatmap(head.weights, tokens, cell=token_cell(len(tokens))),
                notation(caption("head 1: attention weights", BODY)),
            ).arrange(DOWN, buff=0.3)
            pair = VGroup(out.copy(), weights).arrange(RIGHT, buff=1.0)
            below_title(pair.scale(min(1.0, 12.5 / pair.width, (TOP - SUBTITLE_TOP - 0.2) / pair.height))).set_x(0)
            self.narrate(alike.text)
            self.on_words("this head weighs", Transform(out, pair[0]), FadeIn(weights), run_time=1.2)
        self.wait(2)
