"""The worked example's model configuration: its sizes, its heads, and why h · d_k = d_model."""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arrow,
    Brace,
    FadeIn,
    Indicate,
    LaggedStart,
    ReplacementTransform,
    Square,
    SurroundingRectangle,
    VGroup,
    Write,
)

from scenes.kit import (
    BODY,
    CELL,
    DISPLAY_LARGE,
    LABEL,
    LessonScene,
    caption,
    formula,
    notation,
    palette,
)
from scenes.kit.diagrams import EVEN_ARROW
from scenes.kit.layout import (
    fit_content,
)
from scenes.kit.numbers import fmt, places_for


class ConfigureModel(LessonScene):
    """Step 2: d_model and h are chosen (hyperparameters, so that the shapes fit); d_k = d_model / h is derived.

    Drawn as one token's vector (d_model cells) read whole by h heads, each writing d_k cells, and the heads'
    cells side by side filling d_model again; the sizes' formulas build beside it."""

    SPREAD = 0.6  # least gap between two heads' boxes: spread wider than the vector, they read as its readers

    def construct(self) -> None:
        we = self.values.worked_example
        d_model, h, d_k = we.d_model, we.h, we.d_k
        one = h == 1
        self.show_title()
        side = min(1.0, 5.6 / d_model)
        vector = self.token_vector(we.tokens[0], we.X[0], side)
        whole = Brace(vector.cells, DOWN, buff=0.08, color=palette.MUTED)  # all the cells gathered: each head reads all
        heads = self.head_boxes(h, d_k, side, gap=max(self.SPREAD, side)).next_to(whole, DOWN, buff=0.7)
        heads.match_x(vector.cells)
        arrows = VGroup(
            whole,
            *(Arrow(whole.get_tip(), box.get_top(), buff=0.1, color=palette.MUTED, **EVEN_ARROW) for box in heads),
        )
        outputs = VGroup(*(cell.copy() for box in heads for cell in box.cells))
        outputs.arrange(RIGHT, buff=0).next_to(heads, DOWN, buff=0.35).match_x(vector.cells)  # below d_k's brace
        again = caption(
            f"the head writes {d_k} numbers" if one else f"each head writes {d_k}: side by side, {d_model} again",
            BODY,
            palette.MUTED,
        ).next_to(outputs, DOWN, buff=0.2)
        figure = VGroup(vector, arrows, heads, outputs, again)
        sizes = self.size_lines(d_model, h, d_k, figure.height)
        fit_content(VGroup(figure, sizes).arrange(RIGHT, buff=1.0))

        self.narrate(f"The model has width d_model = {d_model}.")
        self.play(FadeIn(vector), Write(sizes[0]))
        self.narrate(
            f"It runs h = {h} attention head: one whole attention."
            if one
            else f"It runs h = {h} attention heads side by side: each head is a whole attention of its own."
        )
        self.play(  # each head with the arrows from the whole vector: no head reads a slice of it
            LaggedStart(*(FadeIn(box.frame, box.name) for box in heads), lag_ratio=0.3),
            FadeIn(arrows),
            Write(sizes[1]),
        )
        self.narrate(
            f"Each head works in d_k = d_model / h = {d_k} dimensions"
            + (": with one head, d_k is the whole width." if one else ".")
        )
        self.play(*(FadeIn(box.cells) for box in heads), FadeIn(heads[0].brace), Write(sizes[2]), run_time=1.5)
        self.narrate(
            "d_model and h are hyperparameters, chosen before training; in the usual design "
            "each head gets d_k = d_model / h, so h must divide d_model."
        )
        self.play(*(Indicate(line[0], color=palette.HIGHLIGHT) for line in sizes[:2]))
        self.on_words("each head gets", Indicate(sizes[2], color=palette.HIGHLIGHT, scale_factor=1.0))  # its d_k
        self.on_words("must divide", Write(sizes[3]))
        self.narrate(
            "The head reads all d_model numbers of a token and writes d_k: as many as it read."
            if one
            else "Each head reads all d_model numbers of a token but writes only d_k: "
            "side by side, the heads' outputs fill d_model again."
        )
        self.on_words("reads all", Indicate(arrows, color=palette.HIGHLIGHT, scale_factor=1.0), run_time=1)
        self.on_words(
            "writes",
            *(Indicate(box.cells, color=palette.HIGHLIGHT, scale_factor=1.0) for box in heads),
            Indicate(heads[0].brace, color=palette.HIGHLIGHT, scale_factor=1.0),  # d_k: what each writes
            run_time=1,
        )
        written_cells = [cell.copy() for box in heads for cell in box.cells]
        self.on_words(
            "as many" if one else "side by side",
            *(ReplacementTransform(cell, slot) for cell, slot in zip(written_cells, outputs, strict=True)),
            FadeIn(again),
            run_time=1.5,
        )
        self.wait(2)

    def token_vector(self, token: str, row: np.ndarray, side: float) -> VGroup:
        """The token's d_model numbers, one cell each, its name on the left."""
        places = places_for(row)
        cells = VGroup(*(Square(side, stroke_color=palette.TEXT, stroke_width=2) for _ in row)).arrange(RIGHT, buff=0)
        digits = VGroup(
            *(
                caption(fmt(v, places), min(CELL * side / 0.63, LABEL + 6)).move_to(c)
                for v, c in zip(row, cells, strict=True)
            )
        )
        name = caption(token, BODY).next_to(cells, LEFT, buff=0.3)
        vector = VGroup(name, cells, digits)
        vector.cells = cells
        return vector

    def head_boxes(self, h: int, d_k: int, side: float, gap: float) -> VGroup:
        """h boxes side by side, each named and holding d_k cells (shaded by head); a brace gives head 1's d_k."""
        boxes = []
        for n in range(h):
            cells = VGroup(*(Square(side, stroke_color=palette.TEXT, stroke_width=2) for _ in range(d_k)))
            cells.arrange(RIGHT, buff=0).set_fill(palette.TEXT, opacity=0.4 if n % 2 == 0 else 0.2)
            name = notation(caption(f"head {n + 1}", LABEL)).next_to(cells, UP, buff=0.15)
            frame = SurroundingRectangle(VGroup(name, cells), color=palette.MUTED, buff=0.15, corner_radius=0.1)
            box = VGroup(frame, name, cells)
            box.frame, box.name, box.cells = frame, name, cells
            boxes.append(box)
        heads = VGroup(*boxes).arrange(RIGHT, buff=gap)
        first = heads[0]
        brace = Brace(first.cells, DOWN, buff=0.3, color=palette.MUTED)  # below the frame round the cells
        first.brace = VGroup(brace, formula("d_k", size=DISPLAY_LARGE).next_to(brace, DOWN, buff=0.05))
        first.add(first.brace)
        return heads

    def size_lines(self, d_model: int, h: int, d_k: int, height: float) -> VGroup:
        """The sizes, each with what it is: two chosen, one derived, and why h must divide d_model; spread
        down ``height``, the figure's."""
        lines = (
            (rf"d_{{\text{{model}}}} = {d_model}", "chosen: each token's width"),
            (rf"h = {h}", "chosen: how many heads"),
            (
                rf"d_k = \frac{{d_{{\text{{model}}}}}}{{h}} = \frac{{{d_model}}}{{{h}}} = {d_k}",
                "derived: each head's width",
            ),
            (rf"h \cdot d_k = {h} \cdot {d_k} = {d_model}", "whole heads fill the width"),
        )
        sizes = VGroup(
            *(
                VGroup(formula(tex, size=DISPLAY_LARGE), caption(note, BODY, palette.MUTED)).arrange(
                    DOWN, aligned_edge=LEFT, buff=0.15
                )
                for tex, note in lines
            )
        )
        room = (height - sum(line.height for line in sizes)) / (len(sizes) - 1)
        return sizes.arrange(DOWN, aligned_edge=LEFT, buff=max(0.4, room))
