"""Attention across a sentence (the blog post): "the train left the station on time" as a heatmap,
and the row of "train" read as a query."""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Brace,
    Create,
    FadeIn,
    Indicate,
    LaggedStart,
    Rectangle,
    Transform,
    VGroup,
    Write,
)

from attention_math.claims import row_meaning
from scenes.kit import (
    BODY,
    DISPLAY_LARGE,
    HEADING,
    LABEL,
    Heatmap,
    LabelledMatrix,
    LessonScene,
    SoftmaxBars,
    caption,
    formula,
    palette,
)
from scenes.kit.layout import GAP, MIDDLE, SUBTITLE_TOP, TOP
from scenes.kit.motion import give_way

DIMMED = 0.25  # opacity of the rows that are not the focus word's
ALONE_GROWTH = 1.25  # the grid, while it is the whole picture, at most this much larger than beside the bars


class AttendTrainStation(LessonScene):
    """The sentence's attention matrix (rows are queries), then the focus word's row and its strongest other word."""

    def construct(self) -> None:
        ts = self.values.train_station
        tokens, weights = ts.tokens, ts.weights
        focus, other = ts.focus, ts.strongest_other
        sentence = " ".join(tokens)
        title = self.show_title(sentence[:1].upper() + sentence[1:])
        cell = min(0.75, 5.2 / len(tokens))
        heat = Heatmap(weights, tokens, cell=cell, places=3)  # three places: the claims below compare 0.244, 0.235
        heat.next_to(title, DOWN, buff=0.3).to_edge(LEFT, buff=0.6)
        beside = heat.get_center()
        # in the middle and as tall as the content area while it is the whole picture; to the left, at its first
        # size, when the bars come
        alone = min(ALONE_GROWTH, (heat.get_top()[1] - SUBTITLE_TOP - GAP) / heat.height, 12.8 / heat.width)
        heat.scale(alone, about_edge=UP).set_x(0)
        n = len(tokens)
        rule = formula(  # its parts lit as they are said
            r"\alpha_{ij} = \mathrm{softmax}_j\!\left(",
            r"x_i \cdot x_j",
            rf"/ \sqrt{{{ts.d}}}",
            r"\right)",
            size=DISPLAY_LARGE,
        )
        vectors = LabelledMatrix(ts.embeddings, row_labels=tokens, name="X", font_size=26)  # the made-up vectors
        brace = Brace(vectors.cells, DOWN, color=palette.MUTED)
        width = caption(f"{ts.d} numbers per word", LABEL, palette.MUTED).next_to(brace, DOWN, buff=0.1)
        opening = VGroup(VGroup(vectors, brace, width), rule).arrange(RIGHT, buff=0.8)  # the vectors, what is done
        opening.scale(min(1.3, (TOP - SUBTITLE_TOP - 0.3) / opening.height, 12.8 / opening.width))
        opening.move_to(UP * MIDDLE)
        self.narrate(
            f"Each word's vector, {ts.d} made-up numbers, is dotted with every word's and divided by √{ts.d}: "
            "why, a few scenes on."
        )
        self.play(FadeIn(vectors), Write(rule))
        self.on_words("made-up numbers", FadeIn(brace), FadeIn(width))
        for words, part in (("dotted", 1), ("divided", 2)):
            self.on_words(words, Indicate(rule[part], color=palette.HIGHLIGHT, scale_factor=1.1))
        self.narrate("Then softmax runs along each row. No learned matrices yet.")
        self.on_words("softmax", Indicate(rule[0], color=palette.HIGHLIGHT, scale_factor=1.1))
        self.on_words("each row", give_way(opening, FadeIn(heat.get_labels())))
        self.play(LaggedStart(*(heat.fill_row(i) for i in range(n)), lag_ratio=0.3, run_time=2.5))  # row by row
        self.narrate(f"Every word of this sentence attends to every word: a {n} × {n} grid of weights.")
        names = VGroup(heat.row_labels, heat.col_labels)  # n words by n words
        self.on_words("every word:", Indicate(names, color=palette.HIGHLIGHT, scale_factor=1.05))
        self.narrate("Each row is one word asking how much each word, itself included, matters to it.")
        frame = self.focus_row(heat, focus)
        bars = self.row_bars(heat, focus)
        heading = caption(f"the row of “{tokens[focus]}”", BODY).next_to(bars, UP, buff=0.4)
        VGroup(bars, heading).next_to(title, DOWN, buff=0.5).to_edge(RIGHT, buff=0.45)
        self.narrate(f"Read the row of '{tokens[focus]}' as bars: its attention, shared out over the sentence.")
        self.play(
            VGroup(heat, frame).animate.scale(1 / alone, about_edge=UP).move_to(beside),
            FadeIn(heading),
            FadeIn(VGroup(bars.baseline, bars.get_labels())),
        )
        self.play(bars.grow(axes_shown=True, run_time=1.5))
        self.call_out(heat, VGroup(heading, bars), frame, tokens, focus, other)
        self.finish_narration()
        self.wait(1.5)

    def focus_row(self, heat: Heatmap, focus: int) -> Rectangle:
        """Dim every row but the focus word's, and frame it; the frame."""
        others = VGroup(*(heat.get_row(i) for i in range(len(heat.row_labels)) if i != focus))
        digits = VGroup(*(heat.get_row_digits(i) for i in range(len(heat.row_labels)) if i != focus))
        frame = Rectangle(
            width=heat.get_row(focus).width + 0.1, height=heat.get_row(focus).height + 0.1, color=palette.QUERY
        ).move_to(heat.get_row(focus))
        self.play(
            others.animate.set_fill(opacity=DIMMED),
            digits.animate.set_color(palette.TEXT).set_opacity(DIMMED),  # one colour: black ones would vanish
            Create(frame),
            heat.row_labels[focus].animate.set_color(palette.QUERY),
        )
        return frame

    def row_bars(self, heat: Heatmap, row: int) -> SoftmaxBars:
        """One row of the weights as bars, coloured on the heatmap's scale: one weight, one colour."""
        n = len(heat.row_labels)
        weights, tokens = self.values.train_station.weights, self.values.train_station.tokens
        return SoftmaxBars(
            weights[row],
            tokens,
            bar_width=min(0.62, 4.3 / n),  # numbers a space apart at 7 tokens, the frame round one clear of the next
            height=2.8,
            places=3,
            vmin=heat.low,
            vmax=heat.high,
            legend=False,
        )

    def call_out(
        self, heat: Heatmap, panel: VGroup, reading: Rectangle, tokens: list[str], focus: int, other: int
    ) -> None:
        """The focus row's strongest other word, then the row of that word, in the bars' place: the row that
        shapes its meaning."""
        heading, bars = panel
        looks, back = row_meaning(tokens, self.values.train_station.weights, focus)
        mark = bars.frame(other)  # on the bars: their three places tell apart what the grid rounds alike
        self.narrate(looks.text)
        self.play(Create(mark), Indicate(bars.get_labels()[other], color=palette.HIGHLIGHT))
        answer = back.about[1] if back.about else focus
        weights = self.values.train_station.weights
        after_itself = ", after itself" if weights[other][other] >= weights[other][answer] else ""
        row = heat.get_row(other)
        frame = Rectangle(width=row.width + 0.1, height=row.height + 0.1, color=palette.QUERY).move_to(row)
        lines = VGroup(
            caption(f"“{tokens[other]}” looks most", BODY),
            caption(f"at “{tokens[answer]}”{after_itself}", BODY),
        )
        if back.holds:
            lines.add(caption(f"a {tokens[focus]} {tokens[other]}", HEADING, palette.HIGHLIGHT))
        lines.arrange(DOWN, buff=0.2).next_to(bars, DOWN, buff=0.5).match_x(bars.baseline)
        its_bars = self.row_bars(heat, other).move_to(bars, aligned_edge=DOWN)
        its_heading = caption(f"the row of “{tokens[other]}”", BODY).move_to(heading)
        self.narrate(back.text)
        for digit, cell in zip(heat.get_row_digits(other), row, strict=True):  # faint still: the colour that reads
            digit.set_color(palette.text_on(cell.get_fill_color()))  # on its cell, once the row is lit
        self.play(
            Transform(mark, its_bars.frame(answer)),  # the weight the sentence names, in that row
            Transform(bars.get_bars(), its_bars.get_bars()),  # the bars now read the row the sentence is about
            give_way(VGroup(heading, bars.get_numbers()), FadeIn(its_heading), FadeIn(its_bars.get_numbers())),
            Create(frame),
            heat.row_labels[other].animate.set_color(palette.QUERY),  # now the row doing the reading
            heat.row_labels[focus].animate.set_color(palette.TEXT),
            reading.animate.set_stroke(opacity=DIMMED),
            row.animate.set_fill(opacity=1.0),  # out of the dimmed rows: this row is the one read now
            heat.get_row_digits(other).animate.set_opacity(1.0),  # a new group: drawn over the cells
        )
        self.play(LaggedStart(*(FadeIn(line, shift=UP * 0.1) for line in lines), lag_ratio=0.5))
