"""A real transformer's view: MiniLM's attention over the worked example's sentence, every layer and head, then
one head beside the toy's (numbers from the committed model-data file). Where it puts "apple": ``real_shift.py``."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import (
    DOWN,
    RIGHT,
    UP,
    BackgroundRectangle,
    Create,
    FadeIn,
    FadeOut,
    Indicate,
    LaggedStart,
    Mobject,
    ReplacementTransform,
    SurroundingRectangle,
    Text,
    VGroup,
)

from attention_math.claims import toy_match
from scenes.kit import (
    CELL,
    HERO,
    LABEL,
    Heatmap,
    LessonScene,
    TokenRow,
    caption,
    notation,
    palette,
)
from scenes.kit.head_grid import HeadGrid
from scenes.kit.layout import MIDDLE, caption_band, fit_width
from scenes.kit.numbers import fmt


def model_line(rm: dict) -> VGroup:
    """The model's name (its digits are part of the name) and its sizes, from the data file."""
    name = notation(caption(f"{rm.model}", CELL, palette.MUTED))
    size = caption(f"{rm.layers} layers × {rm.heads} heads · {rm.hidden_size}-dimensional states", CELL, palette.MUTED)
    return VGroup(name, size).arrange(RIGHT, buff=0.35)


def pieces_heatmap(weights: np.ndarray, pieces: Sequence[str], cell: float) -> Heatmap:
    """A full heatmap with digits, on the grid's fixed 0 → 1 scale (so the toy and the model compare)."""
    return Heatmap(weights, list(pieces), cell=cell, vmin=0.0, vmax=1.0)


class ReadRealAttention(LessonScene):
    """The worked example's sentence through MiniLM: every layer and head, then one head beside the toy."""

    def construct(self) -> None:
        rm, we = self.values.real_model, self.values.worked_example
        sentence = rm.sentences[0]
        title = self.show_title()
        pieces = self.show_pieces(rm, sentence, title)
        grid = self.show_grid(rm, sentence, pieces)
        self.compare_with_toy(rm, we, sentence, grid, VGroup(title, pieces))
        self.finish_narration()
        self.wait(1.5)

    def show_pieces(self, rm: dict, sentence: dict, title: Text) -> VGroup:
        """The sentence's pieces, large in the middle, each special piece as it is named; then small under the
        title, where the grid's rows and columns will read them."""
        model = model_line(rm).next_to(title, DOWN, buff=0.2)
        row = TokenRow(sentence.pieces, font_size=24).next_to(model, DOWN, buff=0.3)
        large = fit_width(TokenRow(sentence.pieces, font_size=HERO), 13).move_to(MIDDLE * UP)
        self.narrate(f"Now the same sentence through a real, trained transformer: {rm.model.split('/')[-1]}.")
        self.play(FadeIn(VGroup(*large[1:-1])))
        self.on_words("transformer", FadeIn(model, shift=0.2 * DOWN), run_time=0.8)
        self.narrate(
            "It reads word pieces, and adds two special pieces of its own: [CLS] at the start, [SEP] at the end."
        )
        for special, piece in (("[CLS]", large[0]), ("[SEP]", large[-1])):
            self.on_words(special, FadeIn(piece, scale=1.3), run_time=0.6)
            self.play(Indicate(piece, color=palette.HIGHLIGHT, scale_factor=1), run_time=0.6)
        self.finish_narration()
        self.play(ReplacementTransform(large, row), run_time=0.8)  # up, out of the grid's way
        return VGroup(model, row)

    def show_grid(self, rm: dict, sentence: dict, above: VGroup) -> HeadGrid:
        grid = HeadGrid(sentence.attention).next_to(above, DOWN, buff=0.35)
        self.narrate(
            f"Every layer has {rm.heads} heads, each with its own attention heatmap: "
            f"{rm.head_count} heatmaps for one sentence."
        )
        self.play(
            FadeIn(grid.layer_labels), FadeIn(grid.head_labels), FadeIn(grid.heads_title), FadeIn(grid.color_scale)
        )
        self.play(LaggedStart(*(FadeIn(row) for row in grid.body), lag_ratio=0.25, run_time=2.5))
        share = caption(  # at label size: the columns themselves show where [CLS] and [SEP] are
            f"averaged over all {rm.head_count} heads, “{rm.focus}” gives {fmt(sentence.special_share)} "
            "of its attention to [CLS] and [SEP]",
            LABEL,
        )
        fit_width(share, 13).next_to(grid, DOWN, buff=0.25)
        self.narrate("Many heads park most of their weight on the special pieces: a learned way of looking at nothing.")
        self.play(FadeIn(share))
        self.finish_narration()
        self.play(FadeOut(share))
        return grid

    def compare_with_toy(self, rm: dict, we: dict, sentence: dict, grid: HeadGrid, keep: VGroup) -> None:
        layer, head = sentence.featured
        positional = VGroup()
        if sentence.positional is not None:
            p_layer, p_head = sentence.positional
            positional = SurroundingRectangle(grid.head(p_layer, p_head), color=palette.MUTED, buff=0.04)
            self.narrate(
                f"Some heads read position, not meaning: layer {p_layer + 1}, head {p_head + 1} looks at a fixed "
                "neighbour of every word, whatever the words are."
            )
            self.play(Create(positional))
            self.zoom_on(grid, grid.head(p_layer, p_head), sentence.attention[p_layer, p_head], sentence.pieces)
        chosen = grid.head(layer, head)
        frame = SurroundingRectangle(chosen, color=palette.HIGHLIGHT, buff=0.04)
        self.narrate(
            f"Of the heads that read the words, take the one in which “{rm.focus}” looks hardest at another word: "
            f"layer {layer + 1}, head {head + 1}."
        )
        self.play(Create(frame), FadeOut(positional))
        strongest = sentence.pieces[sentence.featured_strongest]
        match = toy_match(we.tokens, [h.weights for h in we.heads], rm.focus, strongest)
        real = pieces_heatmap(sentence.attention[layer, head], sentence.pieces, cell=0.62)
        toy = pieces_heatmap(we.heads[match.about[0]].weights, we.tokens, cell=0.62)
        # the heatmaps' labels repeat the pieces and the heading names the model: the lines above make way
        weight = caption_band(self.focus_line(rm, sentence))
        VGroup(toy, real).arrange(RIGHT, buff=1.4, aligned_edge=DOWN).next_to(weight, UP, buff=0.35)
        names = VGroup(
            notation(caption(f"toy example, head {match.about[0] + 1}", CELL, palette.MUTED)).next_to(
                VGroup(toy.cells, toy.col_labels), UP, buff=0.15
            ),
            notation(
                caption(f"{rm.model.split('/')[-1]}, layer {layer + 1}, head {head + 1}", CELL, palette.MUTED)
            ).next_to(VGroup(real.cells, real.col_labels), UP, buff=0.15),
        )
        self.play(FadeOut(grid), FadeOut(keep), ReplacementTransform(frame, real.cells), run_time=1.2)
        self.play(FadeIn(real.get_labels()), FadeIn(real.get_digits()), FadeIn(names[1]))
        self.narrate(match.text)
        self.play(FadeIn(toy), FadeIn(names[0]))
        self.point_at_focus(rm, we, sentence, toy, real, weight)
        self.narrate(
            "The toy's matrices were made up to be checked by hand; these were learned from data. "
            "The mechanism is the same."
        )
        self.play(Indicate(names[0], color=palette.HIGHLIGHT))
        self.play(Indicate(names[1], color=palette.HIGHLIGHT))

    def zoom_on(self, grid: HeadGrid, thumbnail: Mobject, weights: np.ndarray, pieces: Sequence[str]) -> None:
        """One head of the grid, large and labelled, grown from its thumbnail over the dimmed grid (a cell of a
        thumbnail is a few pixels: what the head reads is seen only here); then back to its place."""
        large = pieces_heatmap(weights, pieces, cell=0.5).move_to(grid.body)
        backdrop = BackgroundRectangle(grid, color=palette.BACKGROUND, fill_opacity=1.0, buff=0.1)  # alone on screen
        self.play(FadeIn(backdrop), FadeIn(large, target_position=thumbnail, scale=0.2), run_time=1.0)
        self.finish_narration()  # held while the voice talks about it
        self.play(FadeOut(large, target_position=thumbnail, scale=0.2), FadeOut(backdrop), run_time=0.8)

    @staticmethod
    def focus_line(rm: dict, sentence: dict) -> Text:
        """How much of its attention the focus word gives its strongest piece, in the featured head."""
        strongest = sentence.featured_strongest
        return caption(
            f"“{rm.focus}” gives {fmt(sentence.featured_row[strongest])} of its attention "
            f"to “{sentence.pieces[strongest]}”",
            LABEL,
        )  # white: the frames round the rows are the query's blue, the sentence says what they hold

    def point_at_focus(self, rm: dict, we: dict, sentence: dict, toy: Heatmap, real: Heatmap, weight: Text) -> None:
        focus = sentence.focus_pieces[0]
        strongest = sentence.featured_strongest
        toy_row = we.tokens.index(next(t for t in we.tokens if t.lower() == rm.focus.lower()))
        frames = VGroup(
            SurroundingRectangle(toy.get_row(toy_row), color=palette.QUERY, buff=0.03),
            SurroundingRectangle(real.get_row(focus), color=palette.QUERY, buff=0.03),
        )
        self.narrate(f"The row of “{rm.focus}”, in both: in the real head it looks at “{sentence.pieces[strongest]}”.")
        self.play(Create(frames), FadeIn(weight))
