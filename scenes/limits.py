"""Chapter "Limitations": four weak spots of self-attention, then the O(n²) cost in numbers (n: the sequence length)."""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UL,
    UP,
    AnimationGroup,
    ArcBetweenPoints,
    Create,
    DashedLine,
    Dot,
    FadeIn,
    FadeOut,
    Indicate,
    LaggedStart,
    ReplacementTransform,
    Square,
    SurroundingRectangle,
    Text,
    VGroup,
    Write,
)

from attention_math.types import Complexity
from scenes.kit import (
    BODY,
    CAPTION,
    DISPLAY,
    FORMULA,
    HEADING,
    LABEL,
    SERIF,
    SMALL,
    TITLE,
    LessonScene,
    caption,
    formula,
    notation,
    palette,
)
from scenes.kit.charts import cell_grid, panel
from scenes.kit.diagrams import Sentence
from scenes.kit.layout import TOP, fit_content, fit_width
from scenes.kit.motion import give_way
from scenes.kit.numbers import fmt_bytes, fmt_count, fmt_int


def _same_set() -> VGroup:
    """Two orders of the same words: without positions, attention sees one set."""
    first = caption("dog bites man", HEADING, font=SERIF)
    same = caption("to attention: the same set of words", LABEL, palette.MUTED, font=SERIF)
    second = caption("man bites dog", HEADING, font=SERIF)
    return VGroup(first, same, second).arrange(DOWN, buff=0.12)


def _everyone_to_everyone() -> VGroup:
    cost = caption("n × n", TITLE, palette.HEAT_HIGH, font=SERIF)  # O(n²) is named in the next clip
    return VGroup(cost, cell_grid(6, 1.5, palette.TEXT, 0.45)).arrange(RIGHT, buff=0.5)  # as the next clip's grids


def _attends_everywhere() -> VGroup:
    """One token (a query) linked to every other one, relevant or not."""
    dots = VGroup(*(Dot(radius=0.09, color=palette.MUTED) for _ in range(7))).arrange(RIGHT, buff=0.55)
    focus = dots[2].set_color(palette.QUERY).scale(1.4)
    links = VGroup(
        *(
            ArcBetweenPoints(focus.get_top(), d.get_top(), angle=-1.2 if d.get_x() > focus.get_x() else 1.2).set_stroke(
                palette.HEAT_LOW, width=3, opacity=0.8
            )
            for d in dots
            if d is not focus
        )
    )
    return VGroup(links, dots)


def _flat_tokens() -> VGroup:
    """A phrase tree drawn dashed above flat tokens: the structure is not built in."""
    sentence = Sentence(["the", "old", "dog", "slept"], font_size=BODY)  # one baseline
    words = sentence.words
    foot = sentence.get_top()[1] + 0.12  # every branch stops on one line, clear of the letters
    ends = [np.array([w.get_x(), foot, 0]) for w in words]
    phrase = np.array([(ends[0][0] + ends[2][0]) / 2, foot + 0.8, 0])  # "the old dog", above its middle word
    root = np.array([(phrase[0] + ends[3][0]) / 2, foot + 1.4, 0])
    branches = [(phrase, end) for end in ends[:3]] + [(root, phrase), (root, ends[3])]
    tree = VGroup(*(DashedLine(a, b, color=palette.MUTED, stroke_width=2) for a, b in branches))
    query = caption("?", HEADING, palette.HIGHLIGHT, font=SERIF).next_to(root, RIGHT, buff=0.15)
    return VGroup(tree, query, sentence)


class ListLimitations(LessonScene):
    """No inherent order, quadratic cost, too global, no hierarchy: one card each."""

    def construct(self) -> None:
        self.show_title()
        cards = VGroup(
            panel("No inherent order", _same_set(), "An unordered set of tokens: positions must be added"),
            panel("Quadratic cost", _everyone_to_everyone(), "Every token is compared with every token"),
            panel("Attention can be too global", _attends_everywhere(), "Even irrelevant tokens mix in: noise"),
            panel("No built-in hierarchy", _flat_tokens(), "Tokens are flat: phrases and syntax are not built in"),
        ).arrange_in_grid(rows=2, cols=2, buff=(0.35, 0.15))
        fit_content(cards)
        narration = (
            "Self-attention has no sense of order: shuffle the words and it sees the same set.",
            "It compares every token with every token, so its cost grows with the square of the length.",
            "Every token can attend to everything, even irrelevant words, which adds noise.",
            "And tokens are flat: phrases and syntax are not built into attention itself.",
        )
        large = VGroup()  # one card at a time fills the frame; then the four side by side, to read again
        for card, line in zip(cards, narration, strict=True):
            gone, large = large, fit_content(card.copy())
            frame, heading, picture, note = large
            self.narrate(line)
            # the whole card as its sentence starts: no empty card while the voice already names its picture
            arrive = AnimationGroup(Create(frame), Write(heading), FadeIn(picture, shift=UP * 0.2), FadeIn(note))
            self.play(give_way(gone, arrive) if len(gone) else arrive, run_time=1.2)  # the first opens the clip
        self.finish_narration()
        self.play(ReplacementTransform(large, cards[-1]), FadeIn(cards[:-1]), run_time=1.2)
        self.wait(2)


GRID = 4.3  # side of the largest query-key grid; every grid's cells are that grid's size


class GrowQuadratically(LessonScene):
    """n tokens make n × n attention cells: a growing grid, then real sequence lengths."""

    def construct(self) -> None:
        cost = self.values.complexity
        self.show_title()
        grids = self.grow_grid(cost.grid_lengths, cost.grid_cells, cost.doubling_factor)
        self.tabulate(cost, grids)

    def grow_grid(self, lengths: list[int], cells: list[int], doubling: int) -> VGroup:
        """Each token length as a grid of query-key cells, with its cell count. The cells keep one size, so the
        grid's area grows as its cell count does; the grid before stays framed in its corner. In the middle of
        the frame while it is the whole picture; returns all of it, to move aside for the table."""
        cell = GRID / max(lengths)
        room = Square(GRID).move_to(UP * (TOP - 0.45 - GRID / 2))  # where the largest grid will stand
        corner = room.get_corner(UL)
        axes = VGroup(
            caption("keys →", SMALL, palette.KEY, font=SERIF).next_to(room, UP, buff=0.15).align_to(room, LEFT),
            caption("queries ↓", SMALL, palette.QUERY, font=SERIF).next_to(room, LEFT, buff=0.12).align_to(room, UP),
            # the largest grid's cells as empty slots: the room the grids grow into, read as cells to be filled
            cell_grid(max(lengths), GRID, palette.BACKGROUND, 0)
            .set_stroke(palette.MUTED, 1, opacity=0.4)
            .move_to(room),
        )
        grid = cell_grid(lengths[0], lengths[0] * cell, palette.TEXT, 0.45).move_to(corner, aligned_edge=UL)
        label = self.grid_label(lengths[0], cells[0], room)
        self.narrate("Every token meets every token: n tokens, n being the sequence length, make n times n cells.")
        self.play(FadeIn(grid), FadeIn(axes), FadeIn(label), run_time=1.2)
        self.narrate(f"Each time n doubles, the grid holds {fmt_int(doubling)} times as many cells.")
        before = VGroup()
        for n, count in zip(lengths[1:], cells[1:], strict=True):
            bigger = cell_grid(n, n * cell, palette.TEXT, 0.45).move_to(corner, aligned_edge=UL)
            was = SurroundingRectangle(grid, color=palette.HIGHLIGHT, buff=0, stroke_width=4)  # the grid before
            fresh = self.grid_label(n, count, room)
            self.add(bigger, grid)  # the old cells on top of their copies: the new ones grow around them
            self.play(
                FadeIn(bigger),
                FadeOut(before),
                Create(was),
                give_way(label, FadeIn(fresh)),  # the count switches, never morphs digit by digit
                run_time=1.2,
            )
            self.remove(grid)
            grid, before, label = bigger, was, fresh
            self.wait(0.8)
        times = caption(f"double n  →  ×{fmt_int(doubling)} cells", BODY, palette.HEAT_HIGH, font=SERIF)
        self.play(FadeIn(times.next_to(label, DOWN, buff=0.2)), run_time=0.8)
        self.narrate("The title writes this growth as big O of n squared: the cost grows as the square of n.")
        if self.title is not None:  # the title's O(n²), named here for the first time
            self.play(Indicate(self.title, color=palette.HIGHLIGHT, scale_factor=1.05))
        self.wait(1.0)
        return VGroup(axes, grid, before, label, times)

    @staticmethod
    def grid_label(n: int, cells: int, room: VGroup) -> Text:
        line = caption(f"n = {fmt_int(n)} tokens: {fmt_int(cells)} cells", CAPTION, font=SERIF)
        return line.next_to(room, DOWN, buff=0.25)

    def tabulate(self, cost: Complexity, grids: VGroup) -> None:
        """Real sequence lengths: comparisons and the memory of one attention matrix (the grids move aside)."""
        header = [
            caption("tokens n", LABEL, palette.MUTED, font=SERIF),
            notation(caption("comparisons n²", BODY, palette.MUTED, font=SERIF)),
            caption(f"memory, {fmt_int(cost.bytes_per_weight)} bytes each", LABEL, palette.MUTED, font=SERIF),
        ]
        last = len(cost.sequence_lengths) - 1
        rows = [
            [
                caption(fmt_int(n), TITLE, font=SERIF),
                caption(fmt_count(c), TITLE, font=SERIF),
                caption(fmt_bytes(b), TITLE, palette.HEAT_HIGH if k == last else palette.TEXT, font=SERIF),
            ]  # only the memory the lesson warns about in the warning colour
            for k, (n, c, b) in enumerate(zip(cost.sequence_lengths, cost.comparisons, cost.memory_bytes, strict=True))
        ]
        table = VGroup(*header, *(cell for row in rows for cell in row)).arrange_in_grid(
            cols=3, buff=(0.4, 0.5), col_alignments="rrr"
        )
        fit_width(table, 7.2).to_edge(RIGHT, buff=0.5).set_y(0.3)  # its frame clear of the grid
        scope = caption("one attention matrix: one head of one layer", BODY, palette.MUTED, font=SERIF)
        scope.next_to(table, UP, buff=0.35).align_to(table, RIGHT)
        self.narrate("Real texts are far longer. One attention matrix needs one weight per pair of tokens.")
        self.play(grids.animate.scale(0.95).to_edge(LEFT, buff=0.5), run_time=1.0)
        self.play(FadeIn(scope), FadeIn(VGroup(*header)), run_time=0.8)
        last = rows[-1]
        self.narrate(
            f"At {fmt_int(cost.sequence_lengths[-1])} tokens that is {fmt_count(cost.comparisons[-1])} "
            f"comparisons and, if the whole matrix is stored, {fmt_bytes(cost.memory_bytes[-1])}, "
            "for one head of one layer."
        )
        for row in rows:
            self.play(LaggedStart(*(FadeIn(cell, shift=LEFT * 0.2) for cell in row), lag_ratio=0.3), run_time=1.2)
            self.wait(0.6)
        box = SurroundingRectangle(VGroup(*last), color=palette.HEAT_HIGH, buff=0.15)
        self.play(Create(box), run_time=0.8)
        self.on_words("one head of one layer", Indicate(scope, color=palette.TEXT, scale_factor=1.05))
        order = formula(
            r"O(n^{2} \cdot d_{\text{model}})", r"\; + \; O(n \cdot d_{\text{model}}^{2})", size=DISPLAY
        ).next_to(table, DOWN, buff=0.45)
        self.narrate(
            "Each comparison is a dot product d_k numbers long, in every head; the heads together hold d_model,"
            " so the scores cost order n squared times d_model."
        )
        per_head = formula(r"n^{2} \cdot d_k", r"\cdot h", size=FORMULA).move_to(order[0])
        heads = formula(r"h \cdot d_k = d_{\text{model}}", size=FORMULA, color=palette.MUTED)
        heads.next_to(per_head, RIGHT, buff=0.8)
        self.play(Write(per_head[0]), run_time=0.8)  # pairs, numbers per pair, heads: as the sentence counts them
        self.on_words("in every head", Write(per_head[1]), run_time=0.6)
        self.on_words("the heads together", FadeIn(heads), run_time=0.6)
        self.on_words("so the scores", FadeOut(per_head), FadeOut(heads), run_time=0.4)
        self.play(FadeIn(order[0]), run_time=0.4)
        self.narrate(
            "The projections add order n times d_model squared: they cost more for short inputs, "
            "the n squared term wins once n passes d_model."
        )
        self.play(Write(order[1]), run_time=0.8)
        wins = formula(  # the comparison the sentence makes, written out
            r"n > d_{\text{model}} \;\Rightarrow\; n^{2} \cdot d_{\text{model}} > n \cdot d_{\text{model}}^{2}",
            size=DISPLAY,  # the point of the sentence: as large and as bright as the orders it compares
        ).next_to(order, DOWN, buff=0.3)
        self.on_words("the n squared term wins", FadeIn(wins), run_time=0.6)
