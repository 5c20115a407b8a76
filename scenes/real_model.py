"""A real transformer's view: MiniLM's attention over the worked example's sentence, every layer and head, then
one head beside the toy's (numbers from the committed model-data file). Where it puts "apple": ``real_shift.py``."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    FadeIn,
    FadeOut,
    FadeTransform,
    Group,
    Indicate,
    LaggedStart,
    Mobject,
    ReplacementTransform,
    SurroundingRectangle,
    Text,
    VGroup,
)

from attention_math.claims import parked, parking, read_as_pieces, strongest_other, toy_match
from attention_math.real_model import neighbour
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
from scenes.kit.base import READ_HOLD
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
        self.compare_with_toy(rm, we, sentence, grid, pieces)
        self.finish_narration()
        self.wait(1.5)

    def show_pieces(self, rm: dict, sentence: dict, title: Text) -> VGroup:
        """The sentence's pieces, large in the middle, each special piece as it is named; then small under the
        title, where the grid's rows and columns will read them."""
        model = model_line(rm).next_to(title, DOWN, buff=0.2)
        row = TokenRow(sentence.pieces, font_size=24).next_to(model, DOWN, buff=0.3)
        large = fit_width(TokenRow(sentence.pieces, font_size=HERO), 13).move_to(MIDDLE * UP)
        typed = fit_width(TokenRow(sentence.text.split(), font_size=HERO), 13).move_to(MIDDLE * UP)
        self.narrate(f"Now the same sentence through a real, trained transformer: {rm.model.split('/')[-1]}.")
        self.play(FadeIn(typed))
        self.on_words("transformer", FadeIn(model, shift=0.2 * DOWN), run_time=0.8)
        reading = read_as_pieces(sentence.text, sentence.pieces)  # lowered, split: as the tokenizer did
        self.narrate(reading.text)
        self.play(FadeTransform(typed, VGroup(*large[1:-1])), run_time=1.0)  # the words, as the model reads them
        if reading.about:
            self.play(Indicate(VGroup(*(large[i] for i in reading.about)), color=palette.HIGHLIGHT, scale_factor=1))
        self.narrate("It adds two special pieces of its own: [CLS] at the start, [SEP] at the end.")
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
        count = sentence.parking_heads  # what the voice counts, written: the heads that park stay bright
        share = caption(  # at label size: the columns themselves show where [CLS] and [SEP] are
            f"bright: the {count} of {rm.head_count} heads where “{rm.focus}” gives [CLS] and [SEP] more than half"
            if count
            else f"no head gives [CLS] and [SEP] more than half of “{rm.focus}”'s attention",
            LABEL,
        )
        fit_width(share, 13).next_to(grid, DOWN, buff=0.25)
        claim = parked(rm.focus, sentence.special_shares)
        self.narrate(claim.text)
        others = [grid.head(*at) for at in np.argwhere(~parking(sentence.special_shares))]
        self.play(FadeIn(share), *(m.animate.set_opacity(0.25) for m in others))  # the heads that park stay bright
        self.wait(READ_HOLD)  # the bright heads counted before one of them is shown large
        top = sentence.special_shares[claim.about]  # the head that parks the most: its [CLS] and [SEP] columns, named
        gives = (f"“{rm.focus}” gives {fmt(top)}", "to [CLS] and [SEP]")
        weights = sentence.attention[claim.about]
        self.zoom_on(grid, claim.about, weights, sentence.pieces, *gives, rows=sentence.focus_pieces, gone=(share,))
        self.play(*(m.animate.set_opacity(1) for m in others))
        return grid

    def compare_with_toy(self, rm: dict, we: dict, sentence: dict, grid: HeadGrid, pieces: VGroup) -> None:
        layer, head = sentence.featured
        positional = VGroup()
        if sentence.positional is not None:
            p_layer, p_head = sentence.positional
            positional = SurroundingRectangle(grid.head(p_layer, p_head), color=palette.MUTED, buff=0.04)
            weights = sentence.attention[p_layer, p_head]
            read = neighbour(weights, sentence.focus_pieces, sentence.context_pieces)
            self.narrate(
                f"Some heads read position, not meaning: in layer {p_layer + 1}, head {p_head + 1}, every word looks "
                f"at {read}, whatever the words are."
            )
            self.play(Create(positional))
            self.zoom_on(grid, sentence.positional, weights, sentence.pieces, behind=(positional,))
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
        # the heatmaps' labels repeat the pieces and their names the model: the lines under the title make way
        weight = caption_band(self.focus_line(rm, sentence))
        VGroup(toy, real).arrange(RIGHT, buff=1.4).next_to(weight, UP, buff=0.35)
        toy.shift((real.cells.get_top()[1] - toy.cells.get_top()[1]) * UP)  # their first rows on one line
        names = VGroup(
            notation(caption(f"toy example, head {match.about[0] + 1}", LABEL, palette.MUTED)).next_to(
                VGroup(toy.cells, toy.col_labels), UP, buff=0.15
            ),
            notation(
                caption(f"{rm.model.split('/')[-1]}, layer {layer + 1}, head {head + 1}", LABEL, palette.MUTED)
            ).next_to(VGroup(real.cells, real.col_labels), UP, buff=0.15),
        )
        top = max(n.get_y() for n in names)
        for n in names:  # the two names on one line, under the title
            n.set_y(top)
        self.play(FadeOut(grid), FadeOut(pieces), ReplacementTransform(frame, real.cells), run_time=1.2)
        self.play(FadeIn(real.get_labels()), FadeIn(real.get_digits()), FadeIn(names[1]))
        hardest = real.get_row(sentence.focus_pieces[0])[sentence.featured_strongest]
        self.play(Create(SurroundingRectangle(hardest, color=palette.HIGHLIGHT, buff=0.02)))  # where it looks hardest
        self.narrate(match.text)
        self.play(FadeIn(toy), FadeIn(names[0]))
        toy_row = [t.lower() for t in we.tokens].index(rm.focus.lower())
        toy_frame = SurroundingRectangle(toy.get_row(toy_row), color=palette.QUERY, buff=0.03)
        if match.holds:  # the row the sentence names, as it names it, and the cell it looks at most
            weights = we.heads[match.about[0]].weights[toy_row]
            cell = toy.get_row(toy_row)[strongest_other(weights, toy_row)]
            named = VGroup(toy_frame, SurroundingRectangle(cell, color=palette.HIGHLIGHT, buff=0.02))
            self.on_words("its row of", Create(named))
        self.point_at_focus(rm, sentence, real, weight, VGroup() if match.holds else toy_frame)
        self.narrate(
            "The toy's matrices were made up to be checked by hand; these were learned from data. "
            "The mechanism is the same."
        )
        self.play(Indicate(names[0], color=palette.HIGHLIGHT))
        self.play(Indicate(names[1], color=palette.HIGHLIGHT))

    def zoom_on(
        self,
        grid: HeadGrid,
        at: tuple[int, ...],
        weights: np.ndarray,
        pieces: Sequence[str],
        *lines: str,
        rows=(),
        behind=(),
        gone=(),
    ) -> None:
        """Head ``at`` (layer, head) of the grid, large, its pieces named, ``rows`` framed and ``lines`` beside it,
        grown from its thumbnail in the place of the grid and ``behind`` (a cell of a thumbnail is a few pixels: what
        the head reads is seen only here); then back to its place, ``gone`` (what was said of the grid) not."""
        thumbnail = grid.head(*at)
        large = pieces_heatmap(weights, pieces, cell=0.5).move_to(grid.body)
        large.add(*(SurroundingRectangle(large.get_row(r), color=palette.QUERY, buff=0.03) for r in rows))
        name = [notation(caption(f"layer {at[0] + 1}, head {at[1] + 1}", LABEL, palette.MUTED))]
        beside = VGroup(*name, *(caption(line, LABEL) for line in lines)).arrange(DOWN, aligned_edge=RIGHT)
        beside.next_to(large, LEFT, buff=0.5)
        grown = FadeIn(large, target_position=thumbnail, scale=0.2)
        hidden = Group(grid, *behind)  # the grid, and what marks it
        self.play(FadeOut(hidden), FadeOut(Group(*gone)), grown, FadeIn(beside), run_time=1.0)  # alone on screen
        self.finish_narration()  # held while the voice talks about it
        self.play(FadeOut(large, target_position=thumbnail, scale=0.2), FadeOut(beside), FadeIn(hidden), run_time=0.8)

    @staticmethod
    def focus_line(rm: dict, sentence: dict) -> Text:
        """How much of its attention the focus word gives its strongest piece, in the featured head."""
        strongest = sentence.featured_strongest
        return caption(
            f"“{rm.focus}” gives {fmt(sentence.featured_row[strongest])} of its attention "
            f"to “{sentence.pieces[strongest]}”",
            LABEL,
        )  # white: the frames round the rows are the query's blue, the sentence says what they hold

    def point_at_focus(self, rm: dict, sentence: dict, real: Heatmap, weight: Text, toy_frame: Mobject) -> None:
        """The focus word's row of the real head framed (with ``toy_frame``, the toy's, if not framed yet)."""
        strongest = sentence.featured_strongest
        row = SurroundingRectangle(real.get_row(sentence.focus_pieces[0]), color=palette.QUERY, buff=0.03)
        frames = VGroup(toy_frame, row)
        self.narrate(f"The row of “{rm.focus}”, in both: in the real head it looks at “{sentence.pieces[strongest]}”.")
        self.play(Create(frames), FadeIn(weight))
