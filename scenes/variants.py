"""Chapter "Masks, two sentences and order": head 1 of the worked example masked for a decoder, reading
another sentence (cross-attention), and blind to word order (why Transformers add positions).

Every number comes from ``attention_math.variants`` through ``worked_example.variants``.
"""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arrow,
    Brace,
    Create,
    FadeIn,
    FadeOut,
    GrowArrow,
    Indicate,
    LaggedStart,
    Rectangle,
    ReplacementTransform,
    Transform,
    TransformFromCopy,
    VGroup,
    Write,
    config,
)

from attention_math.types import WorkedExample
from scenes.kit import (
    BODY,
    CAPTION,
    FORMULA,
    LABEL,
    LEAD,
    Heatmap,
    LabelledMatrix,
    LessonScene,
    TokenRow,
    caption,
    palette,
    token_cell,
)
from scenes.kit.diagrams import LabelBox, Sentence, connect
from scenes.kit.layout import (
    GAP,
    MAX_COLS,
    MAX_ROWS,
    MIDDLE,
    SUBTITLE_TOP,
    TOP,
    below_title,
    caption_band,
    drawn_to_fit,
    fit_width,
    grow_within,
)
from scenes.kit.motion import give_way
from scenes.kit.text import formula
from scenes.kit.tokens import baseline


def _stack(name: str, blocks: tuple[str, ...], note: str, color) -> VGroup:
    """A Transformer stack drawn as its name, its attention blocks, and what it does."""
    boxes = VGroup(*(LabelBox(b, color=color, width=4.4, height=0.8, font_size=BODY) for b in blocks))
    lines = VGroup(*(caption(line, BODY, palette.MUTED) for line in note.split("\n"))).arrange(DOWN, buff=0.12)
    return VGroup(caption(name, LEAD), boxes.arrange(DOWN, buff=0.25), lines).arrange(DOWN, buff=0.35)


def _frame(mob, color=palette.QUERY, pad: float = 0.06) -> Rectangle:
    """A rectangle ``pad`` clear of ``mob`` (inside it, when negative: a cell's frame leaves its neighbours)."""
    return Rectangle(width=mob.width + 2 * pad, height=mob.height + 2 * pad, color=color).move_to(mob)


MASK_SHOWN = 6  # rows and columns of the scores drawn: a long sentence's stand for the rest by an ellipsis


class MaskFuture(LessonScene):
    """The causal mask: −∞ above the diagonal of head 1's scaled scores, then each row's softmax over the past."""

    def construct(self) -> None:
        we = self.values.worked_example
        m, tokens = we.variants.masked, we.tokens
        self.show_title()
        stacks = self.encoder_and_decoder()
        scores = LabelledMatrix(
            m.scaled_scores,
            row_labels=tokens,
            col_labels=tokens,
            name=r"QK^{T}/\sqrt{d_k}",
            font_size=36,
            max_rows=MASK_SHOWN,
            max_cols=MASK_SHOWN,
        )
        heat = drawn_to_fit(  # a long sentence's grid: smaller cells, its labels still legible
            lambda cell: Heatmap(m.weights, tokens, cell=cell, caption=True),
            token_cell(len(tokens)),
            lambda h: h.height <= TOP - SUBTITLE_TOP - GAP,
        )
        below_title(heat).to_edge(RIGHT, buff=0.6)
        left, right = -config.frame_width / 2 + 0.5, heat.get_left()[0] - 0.6  # the scores' column, and its notes'
        note = self.column_note(
            ("so the weights (right) above the diagonal", "are exactly 0 (grey); each row still sums to 1"), left, right
        )
        training = self.column_note(
            ("in training: every row at once,", "none sees the word it must predict"), left, right
        )
        scores.fit_within(right - left, TOP - note.get_top()[1] - 0.3)
        home = below_title(scores.copy()).set_x((left + right) / 2).get_center()  # beside the weights, once they come
        zoom = min(1.5, 12.5 / scores.width, (TOP - SUBTITLE_TOP - GAP) / scores.height)
        below_title(scores.scale(zoom)).set_x(0)  # alone until then: large, in the middle
        self.narrate(
            "A decoder writes one word at a time, so while it reads a word it must not see the words after it."
        )
        self.play(give_way(stacks, FadeIn(scores)))  # the stacks give way to the block's scores
        hidden = [(i, j) for i in range(len(tokens)) for j in range(len(tokens)) if not m.visible[i, j]]
        hidden = [(i, j) for i, j in hidden if scores.is_shown(i, j)]  # a long sentence's matrix is abbreviated
        minus = [caption("−∞", scores.number_size(), palette.MUTED).move_to(scores.get_entry(i, j)) for i, j in hidden]
        vanish = formula(r"e^{-\infty} = 0", size=FORMULA).next_to(scores, RIGHT, buff=0.5)  # what softmax makes of it
        self.narrate("The mask sets every score above the diagonal to minus infinity: e to minus infinity is 0.")
        self.play(
            LaggedStart(
                *(ReplacementTransform(scores.get_entry(i, j), t) for (i, j), t in zip(hidden, minus, strict=True))
            ),
            run_time=1.5,
        )
        self.on_words("e to minus", Write(vanish))
        self.narrate("Softmax then shares each row among the words up to that one only.")
        scores.cells.remove(*(scores.get_entry(i, j) for i, j in hidden))  # each is a −∞ now
        masked = VGroup(scores, *minus)
        aside = masked.copy().scale(1 / zoom).move_to(home)
        self.play(Transform(masked, aside), FadeOut(vanish), FadeIn(heat.get_labels()), FadeIn(heat.get_caption()))
        n = len(tokens)
        for i, j in zip(*np.triu_indices(n, 1), strict=True):  # masked: no weight at all, not a small one
            heat.get_cell(i, j).set_fill(palette.MASKED)  # grey as it fills in, not a weight's colour first
            if len(heat.get_digits()):
                heat.get_row_digits(i)[j].set_color(palette.MUTED)
        self.play(LaggedStart(*(heat.fill_row(i) for i in range(n)), lag_ratio=0.3, run_time=2.0))
        self.play(FadeIn(note))
        first, last = _frame(heat.get_row(0), palette.HIGHLIGHT), _frame(heat.get_row(n - 1), palette.HIGHLIGHT)
        self.narrate(
            f"'{tokens[0]}' can only weigh itself, so its weight is 1; '{tokens[-1]}', the last word, "
            "sees the whole sentence, and its row is the same as without the mask."
        )
        self.play(Create(first))
        self.on_words(f"'{tokens[-1]}', the last word", Create(last))
        self.narrate(
            "In training the whole target sentence is known,"
            " so every position learns to predict its next word at once, without peeking."
        )
        self.play(FadeOut(first), FadeOut(last))
        self.on_words("whole target", FadeOut(note), run_time=0.5)
        self.play(FadeIn(training), run_time=0.5)
        self.wait(3)  # read after the voice ends

    @staticmethod
    def column_note(lines: tuple[str, ...], left: float, right: float) -> VGroup:
        """A muted note under the scores, in their column: the weights' grid takes the right down to the subtitles."""
        note = VGroup(*(caption(line, LABEL, palette.MUTED) for line in lines)).arrange(DOWN, buff=0.12)
        return caption_band(fit_width(note, right - left)).set_x((left + right) / 2)

    def encoder_and_decoder(self) -> VGroup:
        """The two stacks of a translating Transformer: what the lesson built is the encoder's; the decoder's two."""
        figure = encoder_and_decoder_figure()
        encoder, decoder = figure[0]
        self.narrate("Everything so far was an encoder: each word reads the whole sentence.")
        self.play(FadeIn(encoder))
        self.narrate("A translating Transformer also has a decoder, which writes the output.")
        self.play(FadeIn(decoder[0]), FadeIn(decoder[2]))
        self.narrate(
            "Its layers have two attention blocks: masked self-attention, then cross-attention to the encoder."
        )
        self.play(LaggedStart(*(FadeIn(b) for b in decoder[1]), lag_ratio=0.4), GrowArrow(figure[1]))
        self.narrate("First, the mask, shown on our own sentence as if the decoder were writing it.")
        self.play(decoder[1][0].animate.highlight(palette.HIGHLIGHT))  # the block this half of the scene is about
        return figure


def encoder_and_decoder_figure() -> VGroup:
    encoder = _stack("Encoder", ("self-attention",), "reads the whole\ninput sentence", palette.MUTED)
    decoder = _stack(
        "Decoder", ("masked self-attention", "cross-attention"), "writes the output,\none word at a time", palette.TEXT
    )
    pair = VGroup(encoder, decoder).arrange(RIGHT, buff=1.4, aligned_edge=UP)
    link = connect(encoder[1][0], decoder[1][1])
    figure = grow_within(VGroup(pair, link), 12.5, 4.6)  # as large as the frame allows: it is the scene's figure
    return figure.move_to(UP * MIDDLE)


def _wrapped(tokens: list[str], color, width: float) -> VGroup:
    """A sentence in lines of at most ``width``: a long one wraps rather than shrinking its words."""
    lines: list[list[str]] = [[]]
    for token in tokens:
        if lines[-1] and TokenRow([*lines[-1], token], font_size=24).width > width:
            lines.append([])
        lines[-1].append(token)
    rows = VGroup(*(TokenRow(line, font_size=24, color=color) for line in lines))
    for k, row in enumerate(rows):  # baselines evenly apart: a line without descenders does not ride closer
        row.shift((-LINE_PITCH * k - min(baseline(t) for t in row)) * UP)
    return rows


LINE_PITCH = 0.42  # baseline to baseline of a wrapped sentence at size 24


OPENING = 1.5  # the two source diagrams' scale while they are the whole picture
HALF = 6.0  # ... and their widest: a long sentence's row keeps each in its half of the frame


def _opening(diagram: VGroup) -> VGroup:
    """A source diagram at its opening size, within its half of the frame and the content area's height."""
    diagram.scale(min(OPENING, HALF / diagram.width, (TOP - SUBTITLE_TOP - GAP) / diagram.height))
    return diagram.set_y(MIDDLE)


class AttendAcross(LessonScene):
    """Self-attention (Q, K, V from one sentence) beside cross-attention (Q from a decoder, K, V from the encoder)."""

    def construct(self) -> None:
        we = self.values.worked_example
        title = self.show_title()
        own = _opening(self.sources(we.tokens, None, "self-attention")).to_edge(LEFT, buff=0.8)
        self.narrate("In self-attention, queries, keys and values all come from one sentence.")
        self.play(FadeIn(own, lag_ratio=0.1))
        cross = we.variants.cross
        if cross is None:
            self.narrate("This example file gives no decoder sentence, so there is no cross-attention to compute.")
            self.wait(1)
            return
        pair = self.sources(we.tokens, cross.decoder_tokens, "cross-attention")
        corner = pair.copy().next_to(title, DOWN, buff=0.45).to_edge(RIGHT, buff=0.6)  # beside the weights, later
        _opening(pair).to_edge(RIGHT, buff=0.8).match_y(own)
        own.shift(UP * (pair.get_top()[1] - own.get_top()[1]))  # the two headings level
        self.narrate(
            "In cross-attention, a decoder writing a translation asks the questions: "
            "queries from its words, keys and values from the encoder's."
        )
        self.play(FadeIn(pair, lag_ratio=0.1))
        self.show_weights(we, own, pair, corner)
        self.wait(1.5)

    def sources(self, encoder: list[str], decoder: list[str] | None, name: str) -> VGroup:
        """A sentence (or two) with arrows into the Q, K and V boxes they feed."""
        boxes = VGroup(*(LabelBox(formula(n, size=LEAD), color=palette.ROLE[n]) for n in ("Q", "K", "V"))).arrange(
            RIGHT, buff=0.5
        )
        enc = _wrapped(encoder, palette.TEXT, 1.3 * boxes.width).next_to(boxes, DOWN, buff=0.9)
        whole = Brace(enc, UP, buff=0.06, color=palette.MUTED)  # every word of the sentence, not the middle one
        arrows = [whole, connect(whole, boxes[1], vertical=True), connect(whole, boxes[2], vertical=True)]
        rows = VGroup(enc)
        if decoder is None:
            arrows.insert(1, connect(whole, boxes[0], vertical=True))
        else:
            dec = _wrapped(decoder, palette.QUERY, 1.3 * boxes.width).next_to(boxes, UP, buff=0.7)
            asks = Brace(dec, DOWN, buff=0.06, color=palette.MUTED)
            arrows[1:1] = [asks, connect(asks, boxes[0], vertical=True)]
            rows.add(dec)
        heading = caption(name, LEAD).next_to(VGroup(boxes, rows), UP, buff=0.3)
        return VGroup(heading, rows, boxes, VGroup(*arrows))

    def show_weights(self, we: WorkedExample, old: VGroup, pair: VGroup, corner: VGroup) -> None:
        """The cross weights: one row per decoder word, one column per encoder word, each row's top key marked."""
        cross = we.variants.cross
        assert cross is not None
        heat = Heatmap(cross.weights, cross.decoder_tokens, we.tokens, cell=token_cell(len(we.tokens)), caption=True)
        heat.row_labels.set_color(palette.QUERY)  # rows are the decoder's words: its queries, blue as in the diagram
        below_title(heat).to_edge(LEFT, buff=1.4).shift(DOWN * 0.6)
        self.narrate("The weights form a grid with one row per decoder word and one column per encoder word.")
        self.play(FadeOut(old), pair.animate.become(corner))  # cross-attention's sources stay, beside its weights
        self.play(FadeIn(heat.get_labels()), FadeIn(heat.get_caption()))
        self.play(LaggedStart(*(heat.fill_row(i) for i in range(len(cross.decoder_tokens))), lag_ratio=0.3))
        best = [int(np.argmax(row)) for row in cross.weights]
        self.narrate("Each row's largest weight is framed: the encoder word that decoder word reads most.")
        frames = (Create(_frame(heat.get_cell(i, j), palette.HIGHLIGHT, pad=-0.05)) for i, j in enumerate(best))
        self.play(LaggedStart(*frames, lag_ratio=0.6), run_time=3)  # row by row: each row has its own largest
        self.narrate(  # our rows are the example file's, not a trained model's: say so before generalising
            "Our decoder's rows are made up; a trained translator learns to read the words it is translating."
        )
        self.on_words("made up", Indicate(heat.row_labels, color=palette.HIGHLIGHT, scale_factor=1.0))
        link = VGroup(
            caption("the RNN translator's attention,", CAPTION, palette.MUTED),
            caption("now with Q, K and V:", CAPTION, palette.MUTED),
            caption("the decoder's state asks,", BODY),
            caption("the encoder's states answer", BODY),
        ).arrange(DOWN, buff=0.15, aligned_edge=LEFT)
        fit_width(link, 4.6).next_to(pair, DOWN, buff=0.5).to_edge(RIGHT, buff=0.6)
        if link.get_bottom()[1] < SUBTITLE_TOP + GAP:  # a long sentence's sources leave no room: two lines, under
            lines = VGroup(VGroup(*link[:2]).arrange(RIGHT, buff=0.12), VGroup(*link[2:]).arrange(RIGHT, buff=0.15))
            lines.arrange(DOWN, buff=0.15, aligned_edge=LEFT).next_to(heat, DOWN, buff=0.3).align_to(heat, LEFT)
        self.narrate(
            "This is the attention of the RNN translators, now with queries, keys and values: "
            "the decoder's state asks, and the encoder's states answer."
        )
        self.play(FadeIn(link[:2], shift=UP * 0.1))
        self.on_words("the decoder's state asks", FadeIn(link[2], shift=UP * 0.1))  # each role as it is said
        self.on_words("the encoder's states", FadeIn(link[3], shift=UP * 0.1))


def distinct_row(rows: np.ndarray, among: list[int]) -> int:
    """Of the rows ``among``, the one farthest from its nearest neighbour: the one a viewer can follow."""
    gaps = [min((np.abs(rows[i] - rows[j]).max() for j in among if j != i), default=0.0) for i in among]
    return among[int(np.argmax(gaps))]


class ShuffleTokens(LessonScene):
    """Reverse the words: every word keeps its output, only its place moves, so attention alone is blind to order."""

    def construct(self) -> None:
        we = self.values.worked_example
        s = we.variants.shuffled
        title = self.show_title()
        before, after = (
            LabelledMatrix(
                out, row_labels=tokens, font_size=28 if we.T <= 5 else 22, max_rows=MAX_ROWS, max_cols=MAX_COLS
            )
            for out, tokens in ((we.output, we.tokens), (s.output, s.tokens))
        )
        pair = VGroup(before, after).arrange(RIGHT, buff=2.6)
        pair.scale(max(1.0, min(12.8 / pair.width, 3.8 / pair.height)))  # grown only
        heads, shown = VGroup(), []  # above each output, the sentence attention ran on: "output for I love …"
        for tokens, out, outer in zip((we.tokens, s.tokens), pair, (LEFT, RIGHT), strict=True):
            name = caption("output for", LABEL, palette.MUTED)
            line, indices = sentence_line(tokens, out.width + 1.0 - name.width - 0.2)  # 1.0 into the gap between
            head = VGroup(name, line).arrange(RIGHT, buff=0.2, aligned_edge=DOWN)
            heads.add(head.next_to(out, UP, buff=0.3).align_to(out, outer))
            shown.append(indices)
        VGroup(heads, pair).next_to(title, DOWN, buff=0.5)
        self.narrate("Here is the output of every head for each word, in the sentence's order.")
        self.play(FadeIn(heads[0]), FadeIn(before))
        self.narrate("Now reverse the words and run attention again.")
        words, reversed_words = heads[0][1], heads[1][1]
        self.on_words(  # each word to its reversed place
            "reverse",
            FadeIn(heads[1][0]),
            *(
                TransformFromCopy(words.words[shown[0].index(old)], reversed_words.words[shown[1].index(new)])
                if old in shown[0] and new in shown[1]
                else FadeIn(reversed_words.words[shown[1].index(new)])
                for new, old in enumerate(s.order)
                if new in shown[1]
            ),
            FadeIn(VGroup(*(reversed_words.words[k] for k, i in enumerate(shown[1]) if i is None))),  # the …
            run_time=1.5,
        )
        self.on_words("run attention", FadeIn(after))
        pairs = [(before.get_row(old), after.get_row_label(new)) for new, old in enumerate(s.order)]
        edge = before.get_brackets().get_right()[0] + 0.15  # from outside the bracket, not through the digits
        drawn = [(row, label) for row, label in pairs if len(row) and label is not None]  # rows drawn in both
        end = min(label.get_left()[0] for _, label in drawn) - 0.12  # short of the longest label: through none
        arrows = VGroup(
            *(
                Arrow([edge, row.get_y(), 0], [end, label.get_y(), 0], buff=0, color=palette.MUTED, stroke_width=4)
                for row, label in drawn
            )
        )
        self.narrate("Every word gets exactly the same output as before: only its place has moved.")
        self.play(LaggedStart(*map(GrowArrow, arrows), lag_ratio=0.2))
        old = distinct_row(we.output, [i for i in before.shown_rows if i is not None])  # the row easiest to tell apart
        new = s.order.index(old)
        if after.is_shown(new, 0):  # followed to its new place: the same numbers, in both frames
            frames = (before.row_frame(old), after.row_frame(new))
            self.on_words("only its place", *(Create(f) for f in frames), run_time=0.8)
        verdict = VGroup(
            caption("attention alone sees a set of words, not an order", LEAD),
            caption(
                "so Transformers add position information: to the embeddings, or inside attention", BODY, palette.MUTED
            ),
        ).arrange(DOWN, buff=0.15)
        fit_width(verdict, 12).next_to(VGroup(before, after), DOWN, buff=0.9)
        self.narrate(
            "Attention alone cannot tell word order: that is why Transformers add position information, "
            "to the embeddings or inside attention."
        )
        self.play(Write(verdict[0]))
        self.play(FadeIn(verdict[1]))
        self.wait(1.5)


def sentence_line(tokens: list[str], width: float) -> tuple[Sentence, list[int | None]]:
    """``tokens`` set as one line of text no wider than ``width`` (spaced as tokens, it read as column labels):
    the whole sentence, or its first words, an ellipsis (None) and its last word. Returns the line and, for each of
    its words, the token's index."""
    for keep in range(len(tokens), 0, -1):
        shown = list(range(len(tokens))) if keep == len(tokens) else [*range(keep), None, len(tokens) - 1]
        line = Sentence(["…" if i is None else tokens[i] for i in shown], font_size=BODY)
        if line.width <= width:
            break
    return line, shown
