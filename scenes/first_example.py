"""A first example, from the handwritten notes: "the cat sat" with identity projections (why scores are divided
by √d_k, on the notes' other example: ``scaling_demo.py``)."""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Animation,
    Arrow,
    Create,
    FadeIn,
    FadeOut,
    GrowArrow,
    Indicate,
    LaggedStart,
    Mobject,
    ReplacementTransform,
    SurroundingRectangle,
    Transform,
    VGroup,
    Write,
    config,
)

from attention_math.types import CatSat
from scenes.kit import (
    CAPTION,
    DISPLAY,
    FORMULA,
    HEADING,
    LABEL,
    READOUT,
    Heatmap,
    LabelledMatrix,
    LessonScene,
    caption,
    formula,
    palette,
    product_sign,
)
from scenes.kit.base import READ_HOLD
from scenes.kit.layout import GAP, MIDDLE, SUBTITLE_TOP, TOP, fit_width
from scenes.kit.motion import give_way
from scenes.kit.numbers import fmt, places_for, vector_text

STAGE = 40  # digits of the matrices a stage is about (X, Q, K, V, the four together, stay smaller)
OUTPUT = 30  # the output stage's: V, the weighted rows and Z stacked with a sum line below
SPELLED_OUT = 4  # tokens up to which a weighted sum is written term by term


def number_text(value: float) -> str:
    """One value with the decimals it needs (at most 2)."""
    return fmt(value, places_for(np.array([value]), 2))


def weights_grid(cs: CatSat, cell: float, caption: bool = False) -> Heatmap:
    """The weights α as a heat map named α, its cells at most ``cell`` wide."""
    heat = Heatmap(cs.weights, cs.tokens, cell=min(cell, 3.6 / len(cs.tokens)), caption=caption)
    return heat.add(formula(r"\alpha", size=DISPLAY).next_to(heat.col_labels, UP, buff=0.15))


def is_identity(matrix: np.ndarray) -> bool:
    """Whether a projection leaves vectors unchanged."""
    return bool(np.allclose(matrix, np.eye(*np.shape(matrix))))


class WorkCatSat(LessonScene):
    """ "The cat sat" by hand: embeddings, Q = K = V, scores, ÷√d_k, row softmax, Z of "the", then the other rows."""

    def construct(self) -> None:
        cs = self.values.cat_sat
        sentence = " ".join(cs.tokens)
        self.show_title(f"{sentence[:1].upper()}{sentence[1:]}, step by step")
        q_mat, k_mat = self.project(cs)
        scores = self.score_grid(cs, q_mat, k_mat)
        self.finish_narration()
        self.play(FadeOut(VGroup(q_mat, k_mat)))
        scaled = self.scale(cs, scores)
        weights = self.softmax_rows(cs, scaled)
        self.finish_narration()
        self.play(FadeOut(scaled), FadeOut(weights.get_caption()))
        weights.remove(weights.get_caption())
        self.build_output(cs, weights)  # the weights stay up: the output is made from their first row

    def project(self, cs: CatSat) -> tuple[LabelledMatrix, LabelledMatrix]:
        """X, then Q, K and V from it (the notes' identity projections make all three equal X)."""
        tokens = cs.tokens
        e_mat = LabelledMatrix(cs.E, row_labels=tokens, name="X", font_size=30)
        roles = (("Q", cs.Q), ("K", cs.K), ("V", cs.V))
        mats = VGroup(*(LabelledMatrix(m, name=r, color=palette.ROLE[r], font_size=30) for r, m in roles))
        mats.arrange(RIGHT, buff=0.6)
        fit_width(VGroup(e_mat, mats).arrange(RIGHT, buff=1.0), 13).move_to(UP * 0.6)
        alone = e_mat.copy().scale(1.6).move_to(UP * 0.2)  # large while it is the only thing to read
        self.narrate(f"{len(tokens)} tokens, each embedded as a vector of {cs.E.shape[1]} numbers: the rows of X.")
        self.play(FadeIn(alone.get_frame()), alone.fill_in(run_time=1.2))
        identity = all(is_identity(w) for w in (cs.W_q, cs.W_k, cs.W_v))
        how = (
            r"W_{Q} = W_{K} = W_{V} = \text{identity}"
            if identity
            else r"Q = X \cdot W_{Q},\; K = X \cdot W_{K},\; V = X \cdot W_{V}"
        )
        rule = formula(how, size=FORMULA).next_to(VGroup(e_mat, mats), DOWN, buff=0.6)
        self.narrate(
            "This example keeps it simple: all three projections are the identity, so Q, K and V all equal X."
            if identity
            else "Each projection turns X into its own matrix: Q, K and V."
        )
        self.play(ReplacementTransform(alone, e_mat))  # to its place in the row Q, K and V will fill
        self.play(Write(rule))
        frames = VGroup(*(m.get_frame() for m in mats))
        self.play(*(ReplacementTransform(e_mat.cells.copy(), m.cells) for m in mats), FadeIn(frames))
        self.wait(1)
        q_mat, k_mat, v_mat = mats
        q_target = LabelledMatrix(cs.Q, row_labels=tokens, name="Q", color=palette.QUERY, font_size=36)
        k_target = LabelledMatrix(cs.K, row_labels=tokens, name="K", color=palette.KEY, font_size=36)
        pair = VGroup(q_target, k_target).arrange(DOWN, buff=0.5)
        pair.scale(min(1.0, (TOP - SUBTITLE_TOP - GAP) / pair.height)).to_edge(LEFT, buff=0.6)
        pair.set_y((TOP + SUBTITLE_TOP + GAP) / 2)  # centred in the content area, clear of the subtitle band
        self.finish_narration()  # X, V and the rule stay while "Q, K and V all equal X" is said
        self.play(
            FadeOut(VGroup(e_mat, rule, v_mat)),
            ReplacementTransform(q_mat, q_target),
            ReplacementTransform(k_mat, k_target),
        )
        return q_target, k_target

    def score_grid(self, cs: CatSat, q_mat: LabelledMatrix, k_mat: LabelledMatrix) -> LabelledMatrix:
        """QKᵀ: each cell the dot product of a query row and a key row, written out for the first row."""
        tokens = cs.tokens
        grid = LabelledMatrix(cs.scores, row_labels=tokens, col_labels=tokens, name=r"QK^{T}", font_size=STAGE)
        grid.move_to(RIGHT * 2.2 + UP * 0.45)  # room above for the taller name of the scaled scores
        note = caption("rows are queries · columns are keys", LABEL, palette.MUTED).next_to(grid, DOWN, buff=0.35)
        self.narrate("Scores: the query of each row is dotted with the key of each column.")
        self.play(FadeIn(grid.get_frame()), FadeIn(note))
        q_frame, k_frame = q_mat.row_frame(0, palette.QUERY), k_mat.row_frame(0, palette.KEY)
        self.play(Create(q_frame), Create(k_frame))
        for j in range(len(tokens)):
            pairs = zip(cs.Q[0], cs.K[j], strict=True)
            products = " + ".join(f"{number_text(a)}×{number_text(b)}" for a, b in pairs)
            line = caption(f"{products} = {number_text(cs.scores[0, j])}", CAPTION)
            fit_width(line, 8).next_to(note, DOWN, buff=0.4)
            if j:
                self.play(Transform(k_frame, k_mat.row_frame(j, palette.KEY)), run_time=0.4)
            self.play(FadeIn(line), run_time=0.4)
            self.play(FadeIn(grid.get_entry(0, j), scale=1.5), run_time=0.6)
            self.play(FadeOut(line), run_time=0.3)
        self.narrate("The other rows work the same way: one row per query.")
        for i in range(1, len(tokens)):
            self.play(
                Transform(q_frame, q_mat.row_frame(i, palette.QUERY)),
                *([FadeOut(k_frame)] if i == 1 else []),  # once: a fade-out of what is gone brings it back for it
                LaggedStart(*(FadeIn(c) for c in grid.get_row(i)), lag_ratio=0.2),
                run_time=0.7,
            )
        self.play(FadeOut(q_frame), FadeOut(note))
        self.wait(0.5)
        return grid

    def scale(self, cs: CatSat, scores: LabelledMatrix) -> LabelledMatrix:
        """Every score divided by √d_k, with d_k from the key vectors' length."""
        tokens = cs.tokens
        self.play(scores.animate.to_edge(LEFT, buff=0.8))
        divide = formula(
            rf"\div \sqrt{{d_k}} = \div \sqrt{{{cs.d_k}}} = \div {number_text(cs.sqrt_d_k)}", size=FORMULA
        ).next_to(scores, DOWN, buff=0.4)
        self.narrate(
            f"Scale: the keys have d_k = {cs.d_k} numbers, so every score is divided by √{cs.d_k}"
            f" = {number_text(cs.sqrt_d_k)}."
        )
        self.play(Write(divide))
        scaled = LabelledMatrix(
            cs.scaled_scores, row_labels=tokens, col_labels=tokens, name=r"QK^{T} / \sqrt{d_k}", font_size=STAGE
        )
        scaled.next_to(scores, RIGHT, buff=1.6).align_to(scores, DOWN)  # beside the scores it comes from
        arrow = Arrow(scores.get_right(), scaled.get_left(), buff=0.2, color=palette.MUTED)
        self.play(GrowArrow(arrow), FadeIn(scaled, shift=0.4 * RIGHT), run_time=1.2)  # a morph garbled the digits
        self.finish_narration()
        self.wait(READ_HOLD)
        self.play(FadeOut(VGroup(scores, divide, arrow)), scaled.animate.move_to(scores, aligned_edge=LEFT + DOWN))
        return scaled

    def softmax_rows(self, cs: CatSat, scaled: LabelledMatrix) -> Heatmap:
        """Softmax along each row: the row's scaled scores become weights α that add up to 1."""
        tokens = cs.tokens
        heat = weights_grid(cs, cell=1.1, caption=True).align_to(scaled, DOWN)
        heat.set_x((scaled.get_right()[0] + config.frame_width / 2) / 2)  # in the room right of the scores
        self.narrate("Softmax runs along each row: every query shares out its attention over the keys.")
        self.play(FadeIn(heat.get_labels()), FadeIn(heat.get_caption()), FadeIn(heat[-1]))
        frame = scaled.row_frame(0)
        self.play(Create(frame))
        line = None
        for i in range(len(tokens)):
            fresh = caption(f"softmax({vector_text(cs.scaled_scores[i])}) = {vector_text(cs.weights[i], 2)}", CAPTION)
            self.below(fresh, VGroup(scaled, heat))
            swap = [FadeOut(line), FadeIn(fresh)] if line else [FadeIn(fresh)]
            self.play(frame.animate.move_to(scaled.row_frame(i)), *swap, heat.fill_row(i), run_time=1.0)
            self.wait(1.0)
            line = fresh
        row = cs.weights[0]
        most = " and ".join(f"'{t}'" for t, w in zip(tokens, row, strict=True) if np.isclose(w, row.max()))
        self.narrate(f"Each row adds up to 1. '{tokens[0]}' attends most to {most}.")
        first = SurroundingRectangle(heat.get_row(0), color=palette.HIGHLIGHT, buff=0.04)
        shown = np.round(row, 2)
        total = caption(f"{' + '.join(fmt(w) for w in shown)} {'=' if np.isclose(shown.sum(), 1) else '≈'} 1", CAPTION)
        self.below(total, VGroup(scaled, heat))
        self.play(FadeOut(VGroup(frame, line)), Create(first), FadeIn(total))  # the first row, summed
        self.on_words(f"'{tokens[0]}' attends", Indicate(first, color=palette.HIGHLIGHT, scale_factor=1.0))
        self.wait(1.5)
        self.play(FadeOut(VGroup(first, total)))
        return heat

    @staticmethod
    def below(line: Mobject, figure: Mobject) -> Mobject:
        """A caption line centred under ``figure``, no wider than the frame."""
        return fit_width(line, 12.5).next_to(figure, DOWN, buff=0.4).set_x(0)

    def product_layout(self, cs: CatSat) -> tuple[VGroup, float]:
        """Where α V = Z stands at the end (V and Z at OUTPUT size), and the scale that fits it to the frame."""
        tokens = cs.tokens
        v_mat = LabelledMatrix(
            cs.V, row_labels=[f"v({t})" for t in tokens], name="V", color=palette.VALUE, font_size=OUTPUT
        )
        z = LabelledMatrix(cs.output, row_labels=[f"z({t})" for t in tokens], name="Z", font_size=OUTPUT, places=2)
        times, equals = product_sign(READOUT), formula("=", size=READOUT)
        weights = weights_grid(cs, cell=0.9)
        weights.remove(weights.legend)  # α · V = Z: no colour scale between α and the product's sign
        product = VGroup(weights, times, v_mat, equals, z).arrange(RIGHT, buff=0.3)
        for sign in (times, equals):  # on the line of V's middle row, not of its name's and cells' middle
            sign.match_y(v_mat.cells)
        zoom = min(1.0, 13.6 / product.width, 3.6 / product.height)
        product.scale(zoom).move_to([0, MIDDLE + 0.6, 0])  # room below for the first row's sum
        return product, zoom

    @staticmethod
    def weigh_rows(weights: VGroup, v_mat: LabelledMatrix, weighted: LabelledMatrix) -> list[Animation]:
        """Each weight flies from its cell to the front of its value row's label and "v(t)" slides after it,
        glyph to like glyph (morphing one number into another garbles the digits); each value goes to where its
        scaled value will be written."""
        moves: list[Animation] = [ReplacementTransform(v_mat.brackets, weighted.brackets)]
        for w, old, new in zip(weights, v_mat.row_labels, weighted.row_labels, strict=True):
            times = len(new) - len(old) - 1  # the glyphs of "w × v(t)": w, then ×, then those of "v(t)"
            moves += [
                ReplacementTransform(w.copy(), new[:times], path_arc=-0.6),  # over the colour scale, not through it
                FadeIn(new[times]),
                ReplacementTransform(old, new[times + 1 :]),
            ]
        moves += [old.animate.move_to(new) for old, new in zip(v_mat.cells, weighted.cells, strict=True)]
        return moves

    def build_output(self, cs: CatSat, heat: Heatmap) -> None:
        """Z of the first token: each value row scaled by its weight, then added up column by column;
        then every other token's row of Z, with α · V = Z drawn whole."""
        tokens, weights, i = cs.tokens, cs.weights[0], 0
        product, zoom = self.product_layout(cs)
        small, times, v_mat, equals, z_all = product
        self.narrate(f"Finally the output of '{tokens[i]}': every value row, scaled by its weight, added up.")
        v_home = v_mat.copy()  # V again once the first row's sum is done
        # to where the weights are used, whole: a grid rebuilt at another size would melt its labels on the way
        legend = heat.legend  # read in the softmax step; here it would stand inside α · V = Z
        heat.remove(legend)
        self.play(FadeOut(legend), heat.animate.scale(small.width / heat.width).move_to(small))
        self.play(FadeIn(v_mat.get_frame()), v_mat.fill_in(run_time=1))
        weighted = LabelledMatrix(
            cs.weighted_values[i],
            row_labels=[f"{fmt(w)} × v({t})" for w, t in zip(weights, tokens, strict=True)],
            color=palette.VALUE,
            font_size=OUTPUT,
            places=2,
        ).scale(zoom)
        weighted.move_to(v_mat.cells, aligned_edge=DOWN).align_to(v_mat.row_labels, LEFT)
        self.narrate(f"Weights from the row of '{tokens[i]}' scale the value rows.")
        row = SurroundingRectangle(heat.get_row(i), color=palette.HIGHLIGHT, buff=0.04)
        self.play(Create(row))
        self.play(FadeOut(v_mat.get_name()), *self.weigh_rows(heat.get_row_digits(i), v_mat, weighted), run_time=1.2)
        self.play(FadeOut(v_mat.cells), FadeIn(weighted.cells), run_time=0.8)  # each row, times its weight
        z = LabelledMatrix(cs.output[i : i + 1], row_labels=[f"z({tokens[i]})"], font_size=OUTPUT, places=2)
        z.scale(zoom).next_to(weighted, DOWN, buff=0.5).align_to(weighted.cells, RIGHT)
        self.play(FadeIn(z.get_frame()))
        self.narrate("Add the scaled rows one component at a time: each column sums into one number of Z.")
        self.sum_columns(cs.output_partial_sums[i], weighted, z)
        summary = caption(f"{tokens[i]}:  {vector_text(cs.E[i])}  →  {vector_text(cs.output[i], 2)}", HEADING)
        self.below(summary, z)
        self.narrate(f"'{tokens[i]}' went in as its fixed embedding and comes out as a contextual vector.")
        self.play(FadeIn(summary, shift=UP * 0.2))
        self.play(Indicate(z.cells, color=palette.HEAT_LOW, scale_factor=1.0))
        self.wait(2)
        self.play(FadeOut(summary))
        self.other_outputs(cs, heat, row, (weighted, v_home), (z, z_all), VGroup(times, equals))

    def sum_columns(self, sums: np.ndarray, weighted: LabelledMatrix, z: LabelledMatrix) -> None:
        """Each column of the weighted rows added up into its entry of ``z``, partial sum by partial sum."""
        for c in range(sums.shape[1]):
            frame = weighted.column_frame(c)
            entry = z.get_entry(0, c)
            running = entry.copy().set_value(sums[0, c])
            self.play(Create(frame), FadeIn(running), run_time=0.5)
            for j in range(1, sums.shape[0]):  # each partial sum exactly: no tween through numbers that are no sum
                running.set_value(sums[j, c])
                lit = Indicate(weighted.get_entry(j, c), color=palette.HIGHLIGHT, scale_factor=1.0)
                self.play(lit, run_time=0.6 if c == 0 else 0.3)
            self.play(FadeOut(frame), run_time=0.3)
            self.remove(running)
            self.add(entry)

    def other_outputs(
        self,
        cs: CatSat,
        heat: Heatmap,
        row: Mobject,
        values: tuple[LabelledMatrix, LabelledMatrix],
        outputs: tuple[LabelledMatrix, LabelledMatrix],
        equals: Mobject,
    ) -> None:
        """z(cat), z(sat), …: the same sum with each token's own row of weights, so the whole of Z is α · V."""
        tokens = cs.tokens
        (weighted, v_mat), (z, z_all) = values, outputs
        self.narrate("Every other token works the same way, with its own row of weights: one row of Z per token.")
        first_row = VGroup(*(z_all.get_entry(0, c) for c in range(z.values.shape[1])))
        leaving = VGroup(weighted, z.get_brackets(), z.get_row_labels())
        self.play(  # V again in the weighted rows' place; once they are gone, z's numbers move into Z's first row
            give_way(leaving, FadeIn(v_mat), FadeIn(z_all.get_frame()), ReplacementTransform(z.cells, first_row)),
            FadeIn(equals),
        )
        line, figure = None, VGroup(heat, v_mat, z_all)
        for i in (r for r in z_all.shown_rows[1:] if r is not None):
            terms = " + ".join(f"{fmt(w)} × v({t})" for w, t in zip(cs.weights[i], tokens, strict=True))
            written_out = f" = {terms}" if len(tokens) <= SPELLED_OUT else ""  # a longer sum would not be legible
            fresh = caption(f"z({tokens[i]}){written_out} = {vector_text(cs.output[i], 2)}", CAPTION)
            self.below(fresh, figure)
            swap = [FadeOut(line), FadeIn(fresh)] if line else [FadeIn(fresh)]
            lit = SurroundingRectangle(heat.get_row(i), color=palette.HIGHLIGHT, buff=0.04)
            self.play(*swap, Transform(row, lit), LaggedStart(*(FadeIn(c) for c in z_all.get_row(i)), lag_ratio=0.1))
            self.wait(1.5)
            line = fresh
        self.narrate("Each row of Z is its token's context-aware vector, all computed side by side.")
        self.play(FadeOut(VGroup(row, line)), Indicate(z_all.cells, color=palette.HEAT_LOW, scale_factor=1.0))
        self.wait(1)
