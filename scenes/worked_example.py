"""The worked example, steps 1–8: "I love apple phones" from embeddings to multi-head output.

Every number comes from ``attention_math`` (section ``worked_example``); the scenes lay
themselves out for 2 to 12 tokens, d_model up to 8 and 1 to 4 heads.
"""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    AnimationGroup,
    Arc,
    Brace,
    ChangeDecimalToValue,
    Create,
    DecimalNumber,
    FadeIn,
    FadeOut,
    GrowArrow,
    Indicate,
    LaggedStart,
    MathTex,
    ReplacementTransform,
    Rotate,
    Square,
    Transform,
    VGroup,
    Write,
)

from attention_math.types import Head, WorkedExample
from scenes.kit import (
    BODY,
    DISPLAY_LARGE,
    FORMULA_LARGE,
    HEADING,
    LABEL,
    LEAD,
    READOUT,
    SMALL,
    TITLE,
    Heatmap,
    LabelledMatrix,
    LessonScene,
    SoftmaxBars,
    TokenRow,
    VectorPlane,
    caption,
    formula,
    notation,
    palette,
)
from scenes.kit.numbers import fmt, places_for

MAX_ROWS = 8  # rows drawn before a matrix abbreviates with an ellipsis
MAX_COLS = 5
MAX_PAIRS = 4  # query-key pairs spelled out one by one before the whole grid


TOP = 2.85  # y of the content's top edge, just below the title


def matrix_font(rows: int) -> float:
    """Digit size for a matrix of ``rows`` rows: smaller for long sentences."""
    return 34 if rows <= 5 else 22


def token_matrix(values, tokens: list[str], name: str, max_cols: int = MAX_COLS, **kwargs) -> LabelledMatrix:
    """A matrix with one row per token, its digits sized for the sentence's length."""
    font = matrix_font(len(tokens))
    return LabelledMatrix(
        values, row_labels=tokens, name=name, font_size=font, max_rows=MAX_ROWS, max_cols=max_cols, **kwargs
    )


def below_title(mob):
    """Move ``mob`` so its top edge sits just below the title."""
    return mob.next_to(TOP * UP, DOWN, buff=0)


def product_line(a: np.ndarray, b: np.ndarray, places_a: int, places_b: int, size: float = LABEL) -> VGroup:
    """The products a_k × b_k of one entry, written "a₁×b₁ + a₂×b₂ + …", one Text per term."""
    terms = [caption(f"{fmt(x, places_a)}×{fmt(y, places_b)}", size) for x, y in zip(a, b, strict=True)]
    parts = []
    for i, term in enumerate(terms):
        if i:
            parts.append(caption("+", size))
        parts.append(term)
    line = VGroup(*parts).arrange(RIGHT, buff=0.12)
    line.terms = terms
    return line


def fit_width(mob, width: float):
    """Scale ``mob`` down (never up) to ``width``."""
    return mob.scale_to_fit_width(width) if mob.width > width else mob


class ShowEmbeddings(LessonScene):
    """Step 1: each token becomes a row of X, d_model numbers long."""

    def construct(self) -> None:
        we = self.values.worked_example
        tokens, x = we.tokens, we.X
        self.show_title()
        self.narrate("We start from a sentence. Each token is looked up as a vector of numbers: its embedding.")
        sentence = TokenRow(tokens, font_size=36).move_to(UP * 1.5)
        sentence = fit_width(sentence, 12)
        self.play(LaggedStart(*(FadeIn(t, shift=DOWN * 0.2) for t in sentence), lag_ratio=0.2))
        self.wait(0.5)
        matrix = token_matrix(x, tokens, "X", max_cols=8)
        matrix.move_to(DOWN * 0.4)
        self.narrate("Stacked one row per token, the embeddings form the input matrix X.")
        self.play(
            ReplacementTransform(sentence, matrix.get_row_labels()),
            FadeIn(matrix.get_brackets()),
            FadeIn(matrix.get_name()),
            FadeIn(matrix.ellipses),
        )
        self.play(matrix.fill_in(run_time=1.5))
        brace = Brace(matrix.cells, DOWN, color=palette.MUTED)
        width = formula(rf"d_{{\text{{model}}}} = {we.d_model}", size=TITLE).next_to(brace, DOWN, buff=0.1)
        self.narrate(f"Every row has d_model = {we.d_model} numbers: the width of the model.")
        self.play(FadeIn(brace), Write(width))
        frame = matrix.row_frame(0)
        self.narrate(f"Row by row, X holds one vector per token: here the row of '{tokens[0]}'.")
        self.play(Create(frame))
        self.wait(1.5)


class ConfigureModel(LessonScene):
    """Step 2: d_model and h are chosen; d_k = d_model / h is derived."""

    def construct(self) -> None:
        we = self.values.worked_example
        d_model, h, d_k = we.d_model, we.h, we.d_k
        self.show_title()
        lines = VGroup(
            formula(rf"d_{{\text{{model}}}} = {d_model}", size=DISPLAY_LARGE),
            formula(rf"h = {h}", size=DISPLAY_LARGE),
            formula(
                rf"d_k = \frac{{d_{{\text{{model}}}}}}{{h}} = \frac{{{d_model}}}{{{h}}} = {d_k}",
                size=DISPLAY_LARGE,
            ),
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.45)
        notes = VGroup(
            caption("the size of each token's vector", color=palette.MUTED),
            caption("attention heads, running in parallel", color=palette.MUTED),
            caption("the size of each head's query, key and value", color=palette.MUTED),
        )
        for line, note in zip(lines, notes, strict=True):
            note.next_to(lines, RIGHT, buff=0.6).match_y(line)
        VGroup(lines, notes).move_to(UP * 0.7)
        narration = (
            f"The model has width d_model = {d_model}.",
            f"It runs h = {h} attention heads side by side.",
            f"Each head works in d_k = d_model / h = {d_k} dimensions.",
        )
        for line, note, text in zip(lines, notes, narration, strict=True):
            self.narrate(text)
            self.play(Write(line), FadeIn(note), run_time=1.2)
            self.wait(0.5)
        self.narrate("The model's width is split evenly: each head gets its own d_k slice.")
        self.play(LaggedStart(*map(FadeIn, self.split_bar(d_model, h, d_k)), lag_ratio=0.15))
        self.wait(2)

    def split_bar(self, d_model: int, h: int, d_k: int) -> list[VGroup]:
        """d_model squares, grouped into h heads of d_k, each head labelled."""
        side = min(0.6, 9 / d_model)
        squares = VGroup(*(Square(side, stroke_color=palette.TEXT, stroke_width=2) for _ in range(d_model)))
        squares.arrange(RIGHT, buff=0).move_to(DOWN * 2.1)
        groups = []
        for head in range(h):
            cells = VGroup(*squares[head * d_k : (head + 1) * d_k])
            cells.set_fill(palette.TEXT, opacity=0.35 if head % 2 == 0 else 0.12)
            name = notation(caption(f"head {head + 1}", SMALL))
            groups.append(VGroup(cells, name.next_to(cells, DOWN, buff=0.15)))
        return groups


class IntroduceProjections(LessonScene):
    """Step 3: head 1's learned W_q, W_k, W_v, each d_model × d_k, and what each is for."""

    def construct(self) -> None:
        we = self.values.worked_example
        head = we.heads[0]
        self.show_title()
        self.narrate("Head 1 owns three learned matrices. Each turns a token's vector into a shorter one.")
        font = matrix_font(we.d_model)
        mats = VGroup(
            *(
                LabelledMatrix(w, name=name, color=palette.ROLE[role], font_size=font, max_cols=MAX_COLS)
                for name, w, role in (("W_q", head.W_q, "Q"), ("W_k", head.W_k, "K"), ("W_v", head.W_v, "V"))
            )
        )
        roles = ("query:\nwhat am I looking for?", "key:\nwhat do I offer?", "value:\nwhat do I pass on?")
        notes = VGroup(*(caption(text, LABEL, mat.color_role) for text, mat in zip(roles, mats, strict=True)))
        columns = VGroup(*(VGroup(m, n.next_to(m, DOWN, buff=0.35)) for m, n in zip(mats, notes, strict=True)))
        below_title(fit_width(columns.arrange(RIGHT, buff=0.8, aligned_edge=UP), 12.5))
        size = rf"\text{{each: }} d_{{\text{{model}}}} \times d_k = {we.d_model} \times {we.d_k}"
        shape = formula(size, size=TITLE, color=palette.MUTED).next_to(notes, DOWN, buff=0.35)
        say = (
            "W_q makes queries: what each token is looking for.",
            "W_k makes keys: what each token offers to be found by.",
            "W_v makes values: what each token passes on when it is chosen.",
        )
        for mat, note, text in zip(mats, notes, say, strict=True):
            self.narrate(text)
            self.play(FadeIn(mat.get_frame()), mat.fill_in(run_time=1), FadeIn(note))
            self.wait(0.6)
        self.narrate(f"Each is d_model × d_k = {we.d_model} × {we.d_k}: {we.d_model} numbers in, {we.d_k} out.")
        self.play(Write(shape))
        self.wait(2)


class MultiplyQueries(LessonScene):
    """Step 4: Q = X·W_q entry by entry (products and running sum), then K and V faster."""

    def construct(self) -> None:
        we = self.values.worked_example
        head, tokens, x = we.heads[0], we.tokens, we.X
        self.show_title()
        self.narrate("Queries come from a matrix product: Q = X · W_q.")
        parts = self.product_layout(x, head.W_q, head.Q, tokens, "Q")
        x_mat, w_mat, q_mat = parts[0], parts[2], parts[4]
        self.play(FadeIn(VGroup(*parts[:4])), FadeIn(q_mat.get_frame()))
        self.multiply_first_row(x_mat, w_mat, q_mat, head.Q_terms, head.Q_partial_sums)
        self.narrate("Every other row works the same way: one token's row times each column.")
        self.fill_rows(x_mat, q_mat, skip_first=True, run_time=0.6)
        self.wait(0.8)
        for role, w, result in (("K", head.W_k, head.K), ("V", head.W_v, head.V)):
            self.narrate(
                "Keys and values are made the same way, with W_k and W_v."
                if role == "K"
                else "And V = X · W_v: the values each token will hand on."
            )
            new = self.product_layout(x, w, result, tokens, role)
            self.play(
                *(ReplacementTransform(old, fresh) for old, fresh in zip(parts[1:4], new[1:4], strict=True)),
                FadeOut(parts[4]),
                FadeIn(new[4].get_frame()),
            )
            parts = [parts[0], *new[1:]]
            self.fill_rows(x_mat, parts[4], skip_first=False, run_time=0.35)
        self.wait(1.5)

    def product_layout(self, x, w, result, tokens, role: str) -> list:
        """X · W = R laid out across the top of the frame."""
        font = matrix_font(max(len(tokens), w.shape[0]))
        x_mat = LabelledMatrix(x, row_labels=tokens, name="X", font_size=font, max_rows=MAX_ROWS, max_cols=MAX_COLS)
        w_mat = LabelledMatrix(
            w, name=f"W_{role.lower()}", color=palette.ROLE[role], font_size=font, max_rows=MAX_ROWS, max_cols=MAX_COLS
        )
        r_mat = LabelledMatrix(
            result, name=role, color=palette.ROLE[role], font_size=font, max_rows=MAX_ROWS, max_cols=MAX_COLS
        )
        dot, equals = formula(r"\cdot", size=READOUT), formula("=", size=READOUT)
        row = [x_mat, dot, w_mat, equals, r_mat]
        group = VGroup(*row).arrange(RIGHT, buff=0.35)
        for mob in (dot, equals):
            mob.match_y(x_mat.cells)
        fit_width(group, 13).next_to(UP * 3.0, DOWN, buff=0.2)
        return row

    def multiply_first_row(self, x_mat, w_mat, q_mat, terms: np.ndarray, partial: np.ndarray) -> None:
        """Row 1 of Q in full: row and column framed, products written, the running sum counting up."""
        x, w = x_mat.values, w_mat.values
        row_frame = x_mat.row_frame(0)
        col_frame = w_mat.column_frame(0, palette.QUERY)
        self.play(Create(row_frame), Create(col_frame))
        self.narrate("Entry (1, 1): multiply the first row of X with the first column of W_q, term by term, and add.")
        shown_cols = [j for j in q_mat.shown_cols if j is not None]
        for n, j in enumerate(shown_cols):
            line = product_line(x[0], w[:, j], places_for(x), places_for(w), size=LEAD)
            line.add(caption("=", LEAD)).arrange(RIGHT, buff=0.12)
            fit_width(line, 11.5).next_to(x_mat, DOWN, buff=0.7).set_x(-0.6)
            running = DecimalNumber(0, num_decimal_places=q_mat.places, font_size=40, color=palette.QUERY)
            running.next_to(line, RIGHT, buff=0.2)
            if n:
                self.play(Transform(col_frame, w_mat.column_frame(j, palette.QUERY)), FadeIn(line), run_time=0.5)
                self.add(running)
                self.play(ChangeDecimalToValue(running, partial[0, j, -1]), run_time=0.6)
            else:
                self.play(FadeIn(line))
                self.add(running)
                self.count_up(line, running, partial[0, j], terms[0, j])
            self.play(ReplacementTransform(running, q_mat.get_entry(0, j)), FadeOut(line), run_time=0.6)
        self.play(FadeOut(col_frame), FadeOut(row_frame))

    def count_up(self, line: VGroup, running: DecimalNumber, partial: np.ndarray, terms: np.ndarray) -> None:
        """Light each product in turn while the running sum adds it."""
        self.narrate("Each product adds to the running sum; the last sum is the entry.")
        for term, value in zip(line.terms, partial, strict=True):
            self.play(Indicate(term, color=palette.HEAT_LOW), ChangeDecimalToValue(running, value), run_time=0.7)

    def fill_rows(self, x_mat, r_mat, skip_first: bool, run_time: float) -> None:
        """A frame slides down X while each shown row of the result appears."""
        rows = [i for i in r_mat.shown_rows if i is not None][1 if skip_first else 0 :]
        frame = x_mat.row_frame(rows[0]) if rows else None
        if frame is None:
            return
        self.play(Create(frame), run_time=0.3)
        for i in rows:
            self.play(
                frame.animate.move_to(x_mat.row_frame(i)),
                LaggedStart(*(FadeIn(c) for c in r_mat.get_row(i)), lag_ratio=0.2),
                run_time=run_time,
            )
        self.play(FadeOut(frame), run_time=0.3)


class AlignDotProducts(LessonScene):
    """Step 5: q·k as alignment, a query swept past a key, then the QKᵀ score grid cell by cell."""

    def construct(self) -> None:
        we = self.values.worked_example
        head, tokens = we.heads[0], we.tokens
        self.show_title()
        plane = VectorPlane(self.extent(head), width=6.0, height=5.6).to_edge(LEFT, buff=0.6).shift(DOWN * 0.55)
        note = caption("each key drawn at its true\nangle to the query", SMALL, palette.MUTED)
        fit_width(note, plane.width).next_to(plane, UP, buff=0.15)
        query = plane.polar_arrow(head.query_norms[0], 0.0, palette.QUERY)
        q_name = TokenRow([f"q: {tokens[0]}"], font_size=28, color=palette.QUERY).next_to(query.get_end(), DOWN)
        self.narrate(f"A score asks: how well does the query of '{tokens[0]}' line up with each key?")
        self.play(Create(plane), FadeIn(note), GrowArrow(query), FadeIn(q_name))
        keys = VGroup(
            *(
                plane.polar_arrow(head.key_norms[j], head.qk_angles[0, j], palette.KEY).set_opacity(0.45)
                for j in range(len(tokens))
            )
        )
        self.play(LaggedStart(*map(GrowArrow, keys), lag_ratio=0.15))
        readout = self.readout(head, 0).next_to(plane, RIGHT, buff=0.8).align_to(plane, UP)
        best = int(np.argmax(head.scores[0]))
        self.narrate(f"The dot product q·k is largest for the key pointing most the same way: '{tokens[best]}'.")
        self.play(FadeIn(readout))
        for j in sorted({*range(min(len(tokens), MAX_PAIRS)), best}):
            self.show_pair(keys, readout, head, j, tokens)
        self.sweep(plane, query, keys[best], readout, head, best)
        self.fill_scores(head, tokens, VGroup(plane, note, query, q_name, keys, readout))

    def extent(self, head: Head) -> tuple[float, float, float, float]:
        """Room for every key around the query, and for the query turned fully around."""
        reach = max(head.query_norms[0], head.key_norms.max()) * 1.05
        return (-reach, reach, -reach, reach)

    def readout(self, head: Head, j: int) -> VGroup:
        """ "q·k = " with the score of key ``j`` as a DecimalNumber."""
        lhs = formula(r"q \cdot k =", size=READOUT)
        value = DecimalNumber(head.scores[0, j], num_decimal_places=2, font_size=48)
        return VGroup(lhs, value.next_to(lhs, RIGHT, buff=0.2))

    def show_pair(self, keys: VGroup, readout: VGroup, head: Head, j: int, tokens: list[str]) -> None:
        """Light key ``j`` and show its score, written out as its products."""
        terms = head.score_terms[0, j]
        line = caption(" + ".join(fmt(t) for t in terms), LEAD)
        fit_width(line, 5.5).next_to(readout, DOWN, buff=0.3).align_to(readout, LEFT)
        name = TokenRow([f"k: {tokens[j]}"], font_size=28, color=palette.KEY)
        name.next_to(line, DOWN, buff=0.2).align_to(readout, LEFT)
        self.play(
            keys[j].animate.set_opacity(1),
            ChangeDecimalToValue(readout[1], head.scores[0, j]),
            FadeIn(line),
            FadeIn(name),
            run_time=0.7,
        )
        self.wait(0.4)
        self.play(keys[j].animate.set_opacity(0.45), FadeOut(line), FadeOut(name), run_time=0.4)

    def sweep(self, plane, query, key, readout, head: Head, best: int) -> None:
        """Turn a copy of the query onto the key, then square to it, then against it."""
        ghost = query.copy().set_opacity(0.9)
        key.set_opacity(1)
        start = head.qk_angles[0, best]
        stops = (
            (start, head.aligned_dots[0, best], "aligned: the largest score"),
            (start + np.pi / 2, head.orthogonal_dot, "orthogonal: zero"),
            (start + np.pi, head.opposite_dots[0, best], "opposite: the most negative"),
        )
        self.narrate("Turn the query: aligned gives the largest score, at right angles zero, opposite negative.")
        self.add(ghost)
        angle, name = 0.0, None
        for target, value, text in stops:
            fresh = caption(text, LEAD).next_to(readout, DOWN, buff=0.9).align_to(readout, LEFT)
            arc = Arc(radius=0.6, start_angle=0, angle=target, arc_center=plane.c2p(0, 0), color=palette.MUTED)
            self.play(
                Rotate(ghost, target - angle, about_point=plane.c2p(0, 0)),
                ChangeDecimalToValue(readout[1], value),
                FadeIn(fresh),
                FadeOut(name) if name else FadeIn(arc),
                run_time=1.2,
            )
            self.remove(arc)
            self.wait(0.6)
            angle, name = target, fresh
        self.play(FadeOut(ghost), FadeOut(name), key.animate.set_opacity(0.45))

    def fill_scores(self, head: Head, tokens: list[str], old: VGroup) -> None:
        """The QKᵀ grid: row 1 cell by cell, then the other rows."""
        self.narrate("Every query meets every key: the scores fill the grid QKᵀ, one row per query.")
        grid = token_matrix(head.scores, tokens, r"QK^{\top}", col_labels=tokens, max_cols=MAX_ROWS)
        fit_width(grid, 12).move_to(DOWN * 0.3)
        self.play(FadeOut(old), FadeIn(grid.get_frame()))
        pair = formula(r"q_i \cdot k_j", size=HEADING, color=palette.MUTED)
        for i in (i for i in grid.shown_rows if i is not None):
            cells = grid.get_row(i)
            if i == 0:
                for cell in cells:
                    self.play(FadeIn(cell, scale=1.4), pair.animate.next_to(cell, DOWN, buff=0.05), run_time=0.35)
                self.remove(pair)
            else:
                self.play(LaggedStart(*(FadeIn(c) for c in cells), lag_ratio=0.15), run_time=0.5)
        self.narrate("Rows are queries, columns are keys: row i says how much token i cares about each token.")
        self.wait(2)


class NormalizeScores(LessonScene):
    """Steps 6–7: scores ÷ √d_k, exponentials, bars normalized to sum 1, landing in the heatmap."""

    def construct(self) -> None:
        we = self.values.worked_example
        head, tokens = we.heads[0], we.tokens
        self.show_title()
        font = 28 if len(tokens) <= 5 else 20
        rows = 6 if len(tokens) <= 6 else 5  # leave room for the bars below
        scores = self.grid(head.scores, tokens, r"QK^{\top}", font, rows)
        self.play(FadeIn(scores))
        scale = formula(
            rf"\div \sqrt{{d_k}} = \div \sqrt{{{head.d_k}}} = \div {fmt(head.sqrt_d_k)}", size=TITLE
        ).next_to(scores, DOWN, buff=0.3)
        self.narrate(f"First divide every score by √d_k = {fmt(head.sqrt_d_k)}, so scores stay in a gentle range.")
        self.play(Write(scale))
        scaled = self.grid(head.scaled_scores, tokens, r"QK^{\top} / \sqrt{d_k}", font, rows)
        self.play(ReplacementTransform(scores, scaled), run_time=1.2)
        self.play(FadeOut(scale))
        heatmap = below_title(self.heatmap(head, tokens)).to_edge(RIGHT, buff=0.4)
        self.play(FadeIn(heatmap.get_labels()), FadeIn(heatmap.get_caption()))
        row_frame = scaled.row_frame(0)
        self.narrate(f"Softmax, one row at a time. Take the row of '{tokens[0]}'.")
        self.play(Create(row_frame))
        bars = self.softmax_row(head, tokens, 0, scaled)
        self.narrate("The bars land in the first row of the weights: yellow is little attention, vermillion most.")
        rest = VGroup(bars.baseline, bars.get_numbers(), bars.get_labels(), bars.get_total())
        self.play(ReplacementTransform(bars.get_bars(), heatmap.get_row(0)), FadeOut(rest), run_time=1.2)
        self.play(FadeIn(heatmap.get_row_digits(0)))
        self.narrate("Every other row goes through the same softmax.")
        for i in range(1, len(tokens)):
            target = scaled.row_frame(i) if scaled.is_shown(i, 0) else row_frame
            self.play(row_frame.animate.move_to(target), heatmap.fill_row(i), run_time=0.45)
        self.play(FadeOut(row_frame))
        self.wait(2)

    def grid(self, values, tokens, name: str, font: float, rows: int) -> LabelledMatrix:
        m = LabelledMatrix(values, row_labels=tokens, name=name, font_size=font, max_rows=rows, max_cols=6)
        return below_title(m).to_edge(LEFT, buff=0.4)

    def heatmap(self, head: Head, tokens: list[str]) -> Heatmap:
        cell = min(0.85, 4.4 / len(tokens))
        return Heatmap(head.weights, tokens, cell=cell, caption=True)

    def softmax_row(self, head: Head, tokens: list[str], i: int, scaled: LabelledMatrix) -> SoftmaxBars:
        """Exponentials as bars (their sum shown), then the same bars divided by that sum."""
        width = min(0.7, 5.4 / len(tokens) * 0.75)
        height = 1.6 if len(tokens) <= 6 else 1.0
        exp = SoftmaxBars(
            head.exp_scores[i], tokens, total=head.exp_sums[i], height=height, bar_width=width, total_at=UP
        )
        exp.next_to(scaled, DOWN, buff=0.35).align_to(scaled, LEFT)
        self.narrate("Raise e to each scaled score: every result is positive. Then add them up.")
        self.play(exp.grow(run_time=1.4))
        self.play(FadeIn(exp.get_total()))
        self.wait(0.6)
        norm = SoftmaxBars(
            head.weights[i],
            tokens,
            total=head.weight_sums[i],
            height=height,
            bar_width=width,
            max_value=head.exp_scores[i].max() / head.exp_sums[i],
            total_at=UP,
        )
        norm.move_to(exp, aligned_edge=DOWN + LEFT)
        self.narrate("Divide each by the sum: the bars now add up to exactly 1. These are the attention weights.")
        self.play(ReplacementTransform(exp, norm), run_time=1.5)
        self.wait(1)
        return norm


class SumValues(LessonScene):
    """Step 8: one token's output = its weights times the value vectors, added tip to tail."""

    def construct(self) -> None:
        we = self.values.worked_example
        head, tokens = we.heads[0], we.tokens
        self.show_title()
        i = 0
        self.narrate(f"The output of '{tokens[i]}' mixes every value vector, each scaled by its attention weight.")
        weighted = LabelledMatrix(
            head.weighted_values[i],
            row_labels=[f"{w} × value of {t}" for w, t in zip(map(fmt, head.weights[i]), tokens, strict=True)],
            name=r"\text{weight} \times \text{value}",
            color=palette.VALUE,
            font_size=matrix_font(len(tokens)),
            max_rows=MAX_ROWS,
            max_cols=MAX_COLS,
        )
        below_title(weighted).to_edge(LEFT, buff=0.5)
        self.play(FadeIn(weighted.get_frame()))
        scenery = self.plane(head, i) if head.d_k == 2 else VGroup()
        plane = scenery[0] if len(scenery) else None
        sums = head.output_partial_sums[i]
        total = LabelledMatrix(
            sums[:1], name=r"\text{running sum}", color=palette.TEXT, font_size=34, max_cols=MAX_COLS
        )
        total.next_to(weighted, DOWN, buff=0.6).align_to(weighted.cells, LEFT)
        self.play(FadeIn(total.get_frame()), FadeIn(total.cells))
        arrows = plane.tip_to_tail(head.weighted_values[i]) if plane else VGroup()
        shown = [j for j in weighted.shown_rows if j is not None]
        current = total.cells
        for j in range(len(tokens)):
            fresh = self.row_cells(total, sums[j])
            anims = [ReplacementTransform(current, fresh)]
            current = fresh
            if j in shown:
                anims.append(LaggedStart(*(FadeIn(c) for c in weighted.get_row(j)), lag_ratio=0.2))
            if plane:
                anims.append(GrowArrow(arrows[j]))
            self.play(*anims, run_time=0.9 if j < 3 else 0.4)
        self.narrate(f"The last running sum is the output of '{tokens[i]}': a blend, pulled toward heavy weights.")
        if plane:
            out = plane.arrow(head.output[i], palette.TEXT)
            name = TokenRow([f"output of {tokens[i]}"], font_size=24).next_to(out.get_end(), RIGHT, buff=0.1)
            scenery.add(out, name)
            self.play(GrowArrow(out), FadeIn(name))
        self.play(Indicate(current, color=palette.HEAT_LOW))
        self.wait(1)
        self.show_all_outputs(head, tokens, VGroup(weighted, total.get_frame(), current, scenery, arrows))

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
            fresh = DecimalNumber(values[j], num_decimal_places=total.places, font_size=cell.font_size)
            cells.add(fresh.set_color(palette.TEXT).move_to(cell))
        return cells

    def show_all_outputs(self, head: Head, tokens: list[str], old: VGroup) -> None:
        """Every token's output, one row each: the head's output matrix."""
        self.narrate("Every token does the same. Together the rows form this head's output.")
        out = token_matrix(head.output, tokens, r"\text{head 1 output}")
        out.move_to(DOWN * 0.3)
        self.play(FadeOut(old), FadeIn(out.get_frame()))
        self.play(out.fill_in(run_time=1.5))
        self.wait(2)


class CombineHeads(LessonScene):
    """Steps 9–10: every other head the same way, the heads side by side, concatenated (· W_O)."""

    def construct(self) -> None:
        we = self.values.worked_example
        tokens, heads = we.tokens, we.heads
        self.show_title()
        head_formula = r"\text{head} = \mathrm{softmax}\!\left(\frac{QK^{\top}}{\sqrt{d_k}}\right) V"
        rule = formula(head_formula, size=FORMULA_LARGE)
        rule.to_edge(LEFT, buff=0.6).shift(UP * 0.8)
        self.narrate("The other heads run the same steps with their own W_q, W_k and W_v.")
        self.play(Write(rule))
        outputs = self.head_outputs(heads, tokens)
        for n in range(1, len(heads)):
            self.quick_head(heads[n], tokens, n, rule)
        self.narrate("Side by side, each head has its own output: one row per token, d_k columns each.")
        self.play(FadeOut(rule))
        self.play(LaggedStart(*(FadeIn(o) for o in outputs), lag_ratio=0.3))
        self.wait(1)
        concat = self.concat_matrix(we, tokens).move_to(VGroup(*outputs))
        self.narrate(f"Concatenating the heads gives back d_model = {we.d_model} numbers per token.")
        self.play(*(FadeOut(o.get_name()) for o in outputs))
        self.play(self.join(outputs, concat, we.d_k), run_time=1.5)
        braces = self.head_braces(concat, len(heads), we.d_k)
        self.play(FadeIn(braces))
        if we.W_O is not None:
            self.wait(1)
            self.play(FadeOut(braces))
            self.project(we, tokens, concat)
        self.wait(2)

    def head_outputs(self, heads: list[Head], tokens: list[str]) -> list[LabelledMatrix]:
        """Each head's output matrix, named, side by side."""
        font = matrix_font(len(tokens))
        outs = [
            LabelledMatrix(
                h.output,
                row_labels=tokens if n == 0 else None,
                name=rf"\text{{head {n + 1}}}",
                font_size=font,
                max_rows=MAX_ROWS,
                max_cols=4,
            )
            for n, h in enumerate(heads)
        ]
        group = VGroup(*outs).arrange(RIGHT, buff=0.5, aligned_edge=DOWN)
        below_title(fit_width(group, 12)).shift(DOWN * 0.2)
        return outs

    def quick_head(self, head: Head, tokens: list[str], n: int, rule: MathTex) -> None:
        """A glimpse of head ``n``: its weights heatmap, briefly."""
        cell = min(0.7, 4.4 / len(tokens))
        name = notation(caption(f"head {n + 1}: attention weights", BODY))
        name.next_to(rule, DOWN, buff=0.5).align_to(rule, LEFT)
        weights = below_title(Heatmap(head.weights, tokens, cell=cell)).to_edge(RIGHT, buff=0.6)
        self.narrate(f"Head {n + 1} weighs the tokens differently: it noticed other relationships.")
        self.play(FadeIn(weights), FadeIn(name), run_time=0.8)
        self.wait(1.2)
        self.play(FadeOut(weights), FadeOut(name), run_time=0.5)

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
        frames = [FadeOut(VGroup(o.brackets, o.row_labels, o.ellipses)) for o in outputs]
        return AnimationGroup(*moves, *rest, *frames, FadeIn(concat.get_frame()))

    def head_braces(self, concat: LabelledMatrix, h: int, d_k: int) -> VGroup:
        """Under the concatenation, which columns came from which head."""
        braces = VGroup()
        for n in range(h):
            cells = VGroup(*(concat.get_column(c) for c in range(n * d_k, (n + 1) * d_k) if len(concat.get_column(c))))
            if len(cells):
                brace = Brace(cells, DOWN, buff=0.1, color=palette.MUTED)
                name = notation(caption(f"head {n + 1}", SMALL, palette.MUTED)).next_to(brace, DOWN, buff=0.08)
                braces.add(VGroup(brace, name))
        return braces

    def concat_matrix(self, we: WorkedExample, tokens: list[str]) -> LabelledMatrix:
        return token_matrix(we.concat, tokens, r"\text{concat}", max_cols=8)

    def project(self, we: WorkedExample, tokens: list[str], concat: LabelledMatrix) -> None:
        """Multiply the concatenation by W_O: the layer's output."""
        self.narrate("Finally the output projection W_O mixes the heads into the layer's output.")
        out = token_matrix(we.output, tokens, r"\text{concat} \cdot W_O", max_cols=8).move_to(concat)
        self.play(ReplacementTransform(concat, out), run_time=1.2)
