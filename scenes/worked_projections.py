"""The worked example, steps 1–2: "I love apple phones" from embeddings to Q, K and V (the model's sizes between
them: ``model_configuration.py``).

Every number comes from ``attention_math`` (section ``worked_example``); the scenes lay
themselves out for 2 to 12 tokens, d_model up to 8 and 1 to 4 heads. The layout helpers
the chapter's modules share are in ``scenes/kit/layout.py``.
Step 3 is in ``dot_products.py``, 4–5 in ``worked_scores.py``, 6 in ``worked_outputs.py``, 7 in
``multi_head.py``.
"""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    AnimationGroup,
    Brace,
    Create,
    DecimalNumber,
    FadeIn,
    FadeOut,
    Indicate,
    LaggedStart,
    ReplacementTransform,
    SurroundingRectangle,
    Transform,
    VGroup,
    Write,
    config,
)

from scenes.kit import (
    HERO,
    LABEL,
    LEAD,
    MIN_FONT_SIZE,
    READOUT,
    TITLE,
    LabelledMatrix,
    LessonScene,
    TokenRow,
    caption,
    formula,
    palette,
    product_sign,
)
from scenes.kit.diagrams import roadmap, step_names
from scenes.kit.layout import (
    GAP,
    MAX_COLS,
    MAX_ROWS,
    MIDDLE,
    SAFE_MARGIN,
    SUBTITLE_TOP,
    TOP,
    below_title,
    fit_content,
    fit_width,
    grow_within,
    matrix_font,
    token_matrix,
)
from scenes.kit.motion import give_way
from scenes.kit.numbers import fmt, places_for, vector_text


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


class ShowEmbeddings(LessonScene):
    """Step 1: each token becomes a row of X, d_model numbers long."""

    def construct(self) -> None:
        we = self.values.worked_example
        tokens, x = we.tokens, we.X
        self.show_title()
        sentence = TokenRow(tokens, font_size=HERO).move_to(UP * 0.5)
        sentence = fit_width(sentence, 12)
        steps = roadmap(step_names(we.W_O is not None), current=0).scale(1.3).move_to(UP * MIDDLE)
        self.narrate("Now all of multi-head self-attention, in seven steps.", FadeIn(steps))
        self.narrate("The first: we start from a sentence.")
        self.play(give_way(steps, LaggedStart(*(FadeIn(t, shift=DOWN * 0.2) for t in sentence), lag_ratio=0.2)))
        matrix = token_matrix(x, tokens, "X", max_cols=8)
        brace = Brace(matrix.cells, DOWN, color=palette.MUTED)
        width = formula(rf"d_{{\text{{model}}}} = {we.d_model}", size=TITLE).next_to(brace, DOWN, buff=0.1)
        row = VGroup(  # the row read out beside X, as large as the matrix's own digits or more
            caption("one vector per token:", LEAD, palette.MUTED),
            caption(f"x({tokens[0]}) = [{', '.join(fmt(v, matrix.places) for v in x[0])}]", TITLE),
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.25)
        figure = fit_content(VGroup(matrix, brace, width))  # X with its width brace, as large as the frame allows
        beside = VGroup(figure, row.next_to(figure, RIGHT, buff=0.9))
        if beside.width <= config.frame_width - 2 * SAFE_MARGIN:  # the row beside X, where X leaves room
            beside.set_x(0)
        else:
            row = VGroup()
        self.narrate("Each token is looked up as a vector of numbers: its embedding.")
        labels = matrix.get_row_labels()
        self.play(ReplacementTransform(sentence, labels))  # each token to the line its numbers will fill
        looked_up = [
            AnimationGroup(Indicate(labels[r], color=palette.HIGHLIGHT, scale_factor=1), FadeIn(matrix.get_row(i)))
            for r, i in enumerate(matrix.shown_rows)
            if i is not None
        ]
        self.play(LaggedStart(*looked_up, lag_ratio=0.5), run_time=2.5)
        if len(row):  # one token's vector read out: what "a vector of numbers" is
            self.play(FadeIn(row, shift=LEFT * 0.2))
        self.narrate("Stacked one row per token, the embeddings form the input matrix X.")
        self.play(FadeIn(matrix.get_brackets()), FadeIn(matrix.get_name()), FadeIn(matrix.ellipses))
        self.narrate(f"Every row has d_model = {we.d_model} numbers: the width of the model.")
        self.play(FadeIn(brace), Write(width))
        frame = matrix.row_frame(0)
        self.narrate(f"Row by row, X holds one vector per token: here the row of '{tokens[0]}'.")
        shown = [Indicate(row[1], color=palette.HIGHLIGHT, scale_factor=1)] if len(row) else []  # the vector is the row
        self.play(Create(frame), *shown)
        self.wait(1.5)


class IntroduceProjections(LessonScene):
    """Step 3: head 1's learned W_Q, W_K, W_V, each d_model × d_k, and what each is for."""

    def construct(self) -> None:
        we = self.values.worked_example
        head = we.heads[0]
        self.show_title()
        shorter = "a shorter one" if we.d_k < we.d_model else "a new one"  # one head: d_k is the whole width
        self.narrate(f"Head 1 owns three matrices, which training learns. Each turns a token's vector into {shorter}.")
        font = matrix_font(we.d_model)
        mats = VGroup(
            *(
                LabelledMatrix(w, name=name, color=palette.ROLE[role], font_size=font, max_cols=MAX_COLS)
                for name, w, role in (("W_{Q}", head.W_q, "Q"), ("W_{K}", head.W_k, "K"), ("W_{V}", head.W_v, "V"))
            )
        )
        roles = ("query:\nwhat am I looking for?", "key:\nwhat do I offer?", "value:\nwhat do I pass on?")
        notes = VGroup(*(caption(text, LABEL, mat.color_role) for text, mat in zip(roles, mats, strict=True)))
        columns = VGroup(*(VGroup(m, n.next_to(m, DOWN, buff=0.35)) for m, n in zip(mats, notes, strict=True)))
        columns.arrange(RIGHT, buff=0.8, aligned_edge=UP)
        size = rf"\text{{each: }} d_{{\text{{model}}}} \times d_k = {we.d_model} \times {we.d_k}"
        shape = formula(size, size=TITLE, color=palette.MUTED)
        token = we.tokens[0]  # one row through W_Q: d_model numbers in, d_k out
        x = vector_text(we.X[0], most=4)  # a long row, its first numbers: the line shares its row with the shape
        through = caption(
            f"x({token}) = {x}  →  q({token}) = {vector_text(head.Q[0])}", LABEL, t2c={f"q({token})": palette.QUERY}
        )
        VGroup(shape, through).arrange(RIGHT, buff=0.8).next_to(notes, DOWN, buff=0.35)
        figure = VGroup(columns, shape, through)
        fit = min(12.5 / figure.width, (TOP - SUBTITLE_TOP - GAP) / figure.height)  # as large as the frame allows,
        below_title(figure.scale(max(fit, MIN_FONT_SIZE / mats[0].number_size()))).set_x(
            0
        )  # digits never below the floor
        for n, column in enumerate(columns):  # ... and spread across it: tall matrices leave the width free
            column.set_x((n - 1) * max(4.4, column.width + 0.6))
            column.shift((mats[1].get_brackets().get_top()[1] - mats[n].get_brackets().get_top()[1]) * UP)  # level
        say = (
            "W_Q makes queries: what each token is looking for.",
            "W_K makes keys: what each token offers to be found by.",
            "W_V makes values: what each token passes on when it is chosen.",
        )
        self.play(*(FadeIn(mat.get_frame()) for mat in mats))  # the opening frame: the three matrices' frames
        self.play(LaggedStart(*(mat.fill_in() for mat in mats), lag_ratio=0.4), run_time=2.5)  # ... filled at once
        learned = (Indicate(mat.get_entries(), color=palette.HIGHLIGHT, scale_factor=1.05) for mat in mats)
        self.on_words("which training learns", LaggedStart(*learned, lag_ratio=0.3), run_time=1.5)  # their numbers
        self.finish_narration()
        focus = None
        for mat, note, text in zip(mats, notes, say, strict=True):
            self.narrate(text)
            frame = SurroundingRectangle(mat, color=palette.HIGHLIGHT, buff=0.12)  # the matrix the voice is on
            self.play(Create(frame) if focus is None else Transform(focus, frame), FadeIn(note))
            focus = focus or frame
            self.wait(0.6)
        self.narrate(
            f"Each is d_model × d_k = {we.d_model} × {we.d_k}: {we.d_model} numbers in, {we.d_k} out, "
            f"as when W_Q turns the vector of '{token}' into its query."
        )
        self.play(FadeOut(focus), Write(shape))
        w_q = mats[0]  # counted on W_Q: its rows take the numbers in, its columns give the numbers out
        rows = [w_q.get_row(r) for r in range(we.d_model) if w_q.is_shown(r, 0)]
        columns = [w_q.get_column(c) for c in range(we.d_k) if w_q.is_shown(0, c)]
        for words, lines in (("numbers in", rows), ("out,", columns)):
            self.on_words(words, LaggedStart(*(Indicate(line, color=palette.HIGHLIGHT) for line in lines)))
        self.on_words("as when", FadeIn(through, shift=0.1 * UP))  # a token's row through W_Q, as an instance
        self.narrate("These numbers are made up for our example; in a real model, training sets them.")
        self.play(Indicate(VGroup(*(m.get_entries() for m in mats)), color=palette.HIGHLIGHT, scale_factor=1.05))
        self.wait(1)


class MultiplyQueries(LessonScene):
    """Step 4: Q = X·W_Q entry by entry (products and running sum), then K and V faster."""

    def construct(self) -> None:
        we = self.values.worked_example
        head, tokens, x = we.heads[0], we.tokens, we.X
        self.show_title()
        self.narrate("Queries come from a matrix product: Q = X · W_Q.")
        parts = self.product_layout(x, head.W_q, head.Q, tokens, "Q")
        x_mat, w_mat, q_mat = parts[0], parts[2], parts[4]
        self.play(FadeIn(VGroup(*parts[:4])), FadeIn(q_mat.get_frame()))
        self.multiply_first_row(x_mat, w_mat, q_mat, head.Q_terms, head.Q_partial_sums)
        self.narrate("Every other row works the same way: one token's row times each column.")
        self.fill_rows(x_mat, q_mat, skip_first=True, run_time=0.6)
        self.wait(0.8)
        for role, w, result in (("K", head.W_k, head.K), ("V", head.W_v, head.V)):
            self.narrate(
                "Keys and values are made the same way, with W_K and W_V."
                if role == "K"
                else "And V = X · W_V: the values each token will hand on."
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
            w, name=f"W_{{{role}}}", color=palette.ROLE[role], font_size=font, max_rows=MAX_ROWS, max_cols=MAX_COLS
        )
        r_mat = LabelledMatrix(
            result, name=role, color=palette.ROLE[role], font_size=font, max_rows=MAX_ROWS, max_cols=MAX_COLS
        )
        dot, equals = product_sign(READOUT), formula("=", size=READOUT)
        row = [x_mat, dot, w_mat, equals, r_mat]
        group = VGroup(*row).arrange(RIGHT, buff=0.35)
        for mob in (dot, equals):
            mob.match_y(x_mat.cells)
        grow_within(group, 13, 4.2).next_to(UP * 3.0, DOWN, buff=0.2)  # the product line goes below
        return row

    def multiply_first_row(self, x_mat, w_mat, q_mat, terms: np.ndarray, partial: np.ndarray) -> None:
        """Row 1 of Q in full: row and column framed, products written, the running sum counting up."""
        x, w = x_mat.values, w_mat.values
        row_frame = x_mat.row_frame(0)
        col_frame = w_mat.column_frame(0, palette.QUERY)
        self.play(Create(row_frame), Create(col_frame))
        self.narrate("Entry (1, 1): multiply the first row of X with the first column of W_Q, term by term, and add.")
        shown_cols = [j for j in q_mat.shown_cols if j is not None]
        for n, j in enumerate(shown_cols):
            line = product_line(x[0], w[:, j], places_for(x), places_for(w), size=LEAD)
            line.add(caption("=", LEAD)).arrange(RIGHT, buff=0.12)
            fit_width(line, 11.5).next_to(x_mat, DOWN, buff=0.7).set_x(-0.6)
            running = DecimalNumber(0, num_decimal_places=q_mat.places, font_size=40, color=palette.QUERY)
            running.next_to(line, RIGHT, buff=0.2)
            if n:  # the sum at once: a counting number would pass through values that are no partial sum
                self.play(Transform(col_frame, w_mat.column_frame(j, palette.QUERY)), FadeIn(line), run_time=0.5)
                running.set_value(partial[0, j, -1])
                self.play(FadeIn(running), run_time=0.6)
            else:
                self.play(FadeIn(line))
                self.count_up(line, running, partial[0, j], terms[0, j])
            self.play(ReplacementTransform(running, q_mat.get_entry(0, j)), FadeOut(line), run_time=0.6)
        self.play(FadeOut(col_frame), FadeOut(row_frame))

    def count_up(self, line: VGroup, running: DecimalNumber, partial: np.ndarray, terms: np.ndarray) -> None:
        """Light each product in turn while the running sum adds it."""
        self.narrate("Each product adds to the running sum; the last sum is the entry.")
        for k, (term, value) in enumerate(zip(line.terms, partial, strict=True)):
            lit = Indicate(term, color=palette.HEAT_LOW, scale_factor=1.0)  # colour only: it keeps clear of the "+"
            if k == 0:  # the sum appears with its first product: never "= 0" beside a line not yet added
                running.set_value(value)
                self.play(lit, FadeIn(running), run_time=0.7)
            else:  # each partial sum exactly, as its product lights: no tween through sums that never occur
                running.set_value(value)
                self.play(lit, Indicate(running, color=palette.HEAT_LOW, scale_factor=1.0), run_time=0.7)

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
