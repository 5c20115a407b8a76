"""Chapter "Why self-attention", its last two scenes: all pairs at once against one step per token, and the
RNN's path against attention's one step, row by row."""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    TAU,
    UP,
    Create,
    CurvedArrow,
    FadeIn,
    GrowArrow,
    Indicate,
    LaggedStart,
    Transform,
    VGroup,
)

from attention_math.types import RnnDecay
from scenes.kit import BODY, LEAD, SERIF, LessonScene, TokenLabel, TokenRow, caption, palette, stagger
from scenes.kit.charts import cell_grid
from scenes.kit.diagrams import LabelBox, arc_between, connect
from scenes.kit.layout import GAP, SUBTITLE_TOP, TOP, to_middle
from scenes.kit.numbers import fmt, fmt_int
from scenes.motivation import HOP, spread


def faded(hop: CurvedArrow, signal: float) -> CurvedArrow:
    """``hop`` drawn as strong as the signal it carries (a line and its tip: never a filled crescent)."""
    strength = max(float(signal), 0.1)
    copy = hop.copy().set_stroke(opacity=strength)
    copy.tip.set_fill(opacity=strength)
    return copy


class ConnectGlobally(LessonScene):
    """Global context: "are" reaches "keys" in one step; then the sources' table of an RNN against self-attention
    (path, signal, gradients, order of work, how words are mixed)."""

    def construct(self) -> None:
        self.show_title()
        rnn = self.values.rnn_decay
        tokens = spread(TokenRow(rnn.tokens, font_size=28), 0.9)
        source, target = tokens[rnn.source], tokens[rnn.target]
        source.set_color(palette.KEY), target.set_color(palette.QUERY)
        hops = VGroup(
            *(
                CurvedArrow(a.get_bottom() + 0.1 * DOWN, b.get_bottom() + 0.1 * DOWN, angle=TAU / 5, color=HOP)
                for a, b in zip(tokens[rnn.source : rnn.target], tokens[rnn.source + 1 :], strict=False)
            )
        )
        walk = caption(f"RNN: {fmt_int(rnn.steps)} steps, the signal fading", BODY, palette.MUTED, font=SERIF).next_to(
            hops, DOWN, buff=0.2
        )
        jump = arc_between(target, source, palette.HEAT_LOW, height=0.15, bend=TAU / 6)
        direct = caption(
            f"self-attention: {fmt_int(rnn.attention_path_length)} step", BODY, palette.HEAT_LOW, font=SERIF
        ).next_to(jump.get_top(), DOWN, buff=0.25)
        self.narrate(f"In an RNN, the subject reaches the verb through {fmt_int(rnn.steps)} steps.")
        self.play(FadeIn(tokens))
        self.play(LaggedStart(*(Create(h) for h in hops), lag_ratio=0.5), FadeIn(walk), run_time=2.5)
        self.narrate("With self-attention, the verb looks straight at its subject: one step, whatever the distance.")
        self.play(Create(jump), FadeIn(direct))
        self.wait(1.5)

        picture = VGroup(tokens, hops, walk, jump, direct)
        above = picture.copy().scale(min(1.0, 2.3 / picture.height)).next_to(self.title, DOWN, buff=0.2)
        table = self.side_by_side(rnn)
        room = above.get_bottom()[1] - 0.3 - (SUBTITLE_TOP + GAP)  # the picture stays: the table reads it
        table.scale(min(13.0 / table.width, room / table.height)).next_to(above, DOWN, buff=0.3).set_x(0)
        self.narrate("Side by side, the two ways to carry meaning across a sentence.")
        self.play(Transform(picture, above), FadeIn(table[:3]))
        lines = (  # the first two rows recall the RNN clip in one sentence; the new rows get their own
            (
                f"The first rows recall what we saw: {fmt_int(rnn.steps)} steps and {fmt(rnn.signal_at_target)} "
                "of the signal for the RNN; one step, and a weight that does not fade, for attention.",
                (1, 2),
            ),
            (
                "To learn, training sends error signals, called gradients, back along the same path: multiplied "
                "at every step, they can vanish, or explode.",
                (3,),
            ),
            (f"And, as we saw, attention computes all {fmt_int(rnn.pairs)} pairs at once.", (4,)),
            (
                "An RNN mixes the past through one recurrence; attention chooses, per word, how much of every word "
                "to mix.",
                (5,),
            ),
        )
        fading = [Transform(h, faded(h, s)) for h, s in zip(hops, rnn.signal[rnn.source + 1 :], strict=False)]
        shown = {1: [Indicate(jump, color=palette.HEAT_LOW)], 2: fading}  # the path; the signal left after each step
        cue = {2: "of the signal"}  # a row said within the sentence before it comes as its words are said
        for line, rows in lines:
            self.narrate(line)
            for n in rows:
                row = LaggedStart(*(FadeIn(c, shift=LEFT * 0.2) for c in table[3 * n : 3 * n + 3]), lag_ratio=0.3)
                if n in cue:
                    self.on_words(cue[n], row, *shown[n], run_time=1.5)
                else:
                    self.play(row, *shown.get(n, []), run_time=1.5)
        self.wait(1.5)

    @staticmethod
    def side_by_side(rnn: RnnDecay) -> VGroup:
        """The sources' comparison of an RNN with self-attention, as a table, with this sentence's numbers."""
        source_word, target_word = rnn.tokens[rnn.source], rnn.tokens[rnn.target]
        rows = (
            ("", "RNN", "self-attention"),
            (
                f"from “{source_word}” to “{target_word}”",
                f"{fmt_int(rnn.steps)} steps",
                f"{fmt_int(rnn.attention_path_length)} step",
            ),
            ("signal left", fmt(rnn.signal_at_target), "its weight, at any distance"),
            ("gradients back", "multiplied each step: vanish or explode", "one step, at any distance"),
            ("order of work", "one token at a time", f"all {fmt_int(rnn.pairs)} pairs at once"),
            ("mixing words", "one rule, every step", "a weight for each pair"),
        )
        colours = (palette.MUTED, palette.TEXT, palette.HEAT_LOW)  # row names, the RNN, self-attention
        cells = [
            caption(text, BODY, colours[c], font=SERIF) if text else VGroup()
            for row in rows
            for c, text in enumerate(row)
        ]
        return VGroup(*cells).arrange_in_grid(cols=3, buff=(0.6, 0.3), col_alignments="lll")  # short: read large


class CompareParallelism(LessonScene):
    """An RNN needs one step per token; self-attention compares all pairs of tokens in one parallel step."""

    def construct(self) -> None:
        self.show_title()
        rnn = self.values.rnn_decay
        tokens = spread(TokenRow(rnn.tokens, font_size=24), 2.4)
        cells = VGroup(*(LabelBox("s", width=0.8, height=0.5).next_to(t, DOWN, buff=0.25).set_y(0) for t in tokens))
        cells.set_y(tokens.get_bottom()[1] - 0.25 - cells.height / 2)  # one row, below the deepest descender
        links = VGroup(*(connect(a, b) for a, b in zip(cells, cells[1:], strict=False)))
        sequential = caption(
            f"RNN: {fmt_int(rnn.sequential_steps)} steps, one after another", LEAD, palette.MUTED, font=SERIF
        ).next_to(cells, DOWN, buff=0.3)
        self.narrate("An RNN processes tokens one by one: each step must wait for the one before.")
        rnn_picture = VGroup(tokens, cells, links, sequential)
        opening = to_middle(rnn_picture)  # alone, it is the whole picture
        self.play(FadeIn(tokens), FadeIn(cells))
        for i, cell in enumerate(cells):
            links_in = [GrowArrow(links[i - 1])] if i else []
            self.play(cell.animate.highlight(palette.MUTED, 0.3), *links_in, run_time=0.4)
        self.play(FadeIn(sequential))

        above = rnn_picture.copy().scale(0.8).shift(UP * opening)  # smaller, at the top: the pairs take the room
        above.next_to(UP * TOP, DOWN, buff=0)
        grid, labels = self.pairs_grid(rnn.tokens, top=above.get_bottom()[1] - 0.3)
        parallel = VGroup(
            caption(f"Self-attention: all {fmt_int(rnn.pairs)} pairs", LEAD, palette.HEAT_LOW, font=SERIF),
            caption("in one parallel step", LEAD, palette.HEAT_LOW, font=SERIF),
            caption("GPUs and TPUs are built for this", BODY, palette.MUTED, font=SERIF),
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.2)
        parallel.next_to(grid, RIGHT, buff=0.8)
        self.narrate("Self-attention compares every pair of tokens at once: one big parallel step.")
        self.play(Transform(rnn_picture, above), run_time=0.6)  # up, to make room for the pairs
        self.play(FadeIn(grid), FadeIn(labels))
        self.on_words("at once", grid.animate.set_fill(palette.HEAT_LOW, opacity=0.6), FadeIn(parallel[:2]))
        self.wait(1.5)
        self.narrate("GPUs and TPUs are built for exactly this, so training is much faster.")
        self.play(FadeIn(parallel[2]))
        self.wait(3.5)

    @staticmethod
    def pairs_grid(words: list[str], top: float) -> tuple[VGroup, VGroup]:
        """One cell per pair of words, rows and columns named, from ``top`` down to the subtitle band."""
        side = top - SUBTITLE_TOP - GAP - 0.9  # room above the cells for the turned column names
        grid = cell_grid(len(words), side).set_fill(opacity=0.1)
        grid.move_to([-2.2, SUBTITLE_TOP + GAP + side / 2, 0])
        pitch = side / len(words)
        rows = VGroup(*(TokenLabel(w, font_size=20, color=palette.MUTED) for w in words))
        for label, row in zip(rows, grid, strict=True):
            label.next_to(row, LEFT, buff=0.15)
        columns = [TokenLabel(w, font_size=20, color=palette.MUTED) for w in words]
        stagger(columns, [cell.get_x() for cell in grid[0]], grid.get_top()[1] + 0.1, pitch)
        return grid, VGroup(rows, *columns)
