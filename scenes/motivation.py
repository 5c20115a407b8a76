"""Chapter "Why self-attention": where it sits, what RNNs lack, and what attention gives."""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arrow,
    Create,
    FadeIn,
    FadeOut,
    GrowArrow,
    GrowFromEdge,
    Indicate,
    LaggedStart,
    Mobject,
    MoveToTarget,
    Rectangle,
    ReplacementTransform,
    SurroundingRectangle,
    Text,
    VGroup,
    Write,
)

from attention_math.types import CatSat
from scenes.kit import (
    BODY,
    CAPTION,
    HEADING,
    HERO,
    LABEL,
    LEAD,
    SERIF,
    LabelledMatrix,
    LessonScene,
    TokenRow,
    caption,
    palette,
)
from scenes.kit.base import READ_HOLD
from scenes.kit.diagrams import EVEN_ARROW, Card, LabelBox, Sentence, all_pairs, arc_between, connect, stack
from scenes.kit.layout import TOP, below_title, caption_band, fit_content, fit_width, to_middle
from scenes.kit.motion import give_way
from scenes.kit.numbers import fmt, fmt_int, vector_text

COLUMN_SPAN = 12.4  # width over which a sentence's tokens are spread, one column each
HOP = palette.MUTED  # the recurrent path, one arrow per time step


def spread(tokens: TokenRow, y: float) -> TokenRow:
    """Put the tokens in evenly spaced columns at height ``y`` (so boxes and bars can sit under them)."""
    step = COLUMN_SPAN / max(len(tokens) - 1, 1)
    tokens.set_y(y)
    for i, token in enumerate(tokens):
        token.set_x(-COLUMN_SPAN / 2 + i * step)
    return tokens


USES = ("translation", "summarization", "question answering", "and more")  # the sources' examples
TRANSFORMER_LAYER = ("Multi-head self-attention", "Add & Norm", "Feed-forward", "Add & Norm")


class LocateAttention(LessonScene):
    """The Transformer as a block diagram, built bottom-up; the attention block lights up; what it is for."""

    def construct(self) -> None:
        self.show_title()
        tokens = caption("input tokens", BODY, palette.MUTED, font=SERIF)
        inputs = LabelBox("Embeddings + positions", width=5.2, color=palette.MUTED)
        layer = [LabelBox(name, width=5.2, height=0.6, color=palette.MUTED) for name in TRANSFORMER_LAYER]
        outputs = LabelBox("Contextual vectors", width=5.2, color=palette.MUTED)
        column, arrows = stack([tokens, inputs, *layer, outputs], gap=0.36)
        fit_content(VGroup(column, arrows))
        ghost = VGroup(column, arrows).copy().fade(0.6)  # the whole stack, dim as unread steps are, at once

        def lit(k: int) -> list[ReplacementTransform]:  # part k of the column and the arrow into it, as read
            pairs = [(ghost[0][k], column[k])] + ([(ghost[1][k - 1], arrows[k - 1])] if k else [])
            return [ReplacementTransform(dim, shown) for dim, shown in pairs]

        self.narrate("A Transformer turns tokens into vectors: embeddings plus positions go in.")
        self.play(FadeIn(ghost), run_time=0.8)
        self.play(*lit(0), *lit(1))
        self.narrate("Each layer has two parts: self-attention, then a feed-forward network, each with add and norm.")
        for k in range(2, len(column)):
            self.play(*lit(k), run_time=0.6)

        block = SurroundingRectangle(VGroup(*layer), color=palette.TEXT, buff=0.18, corner_radius=0.15)
        repeat = caption("× N layers", HEADING, font=SERIF).next_to(block, RIGHT, buff=0.3)
        self.narrate("The layer is stacked N times; every layer has the same parts, with weights of its own.")
        self.play(Create(block), Write(repeat))
        self.wait(0.5)

        note = caption("this lesson", LEAD, palette.HEAT_LOW, font=SERIF).next_to(block, LEFT, buff=0.3)
        note.match_y(layer[0])
        self.narrate("This lesson is about the first block: multi-head self-attention.")
        self.play(layer[0].animate.highlight(palette.HEAT_LOW), FadeIn(note, shift=RIGHT * 0.2))
        pairs = all_pairs().next_to(block, RIGHT, buff=0.5)
        pairs.shift((layer[0].get_y() - pairs[0].get_y()) * UP)  # the tokens level with the attention block
        self.narrate("It is where every token looks at every token, itself included, to decide what it means here.")
        self.play(FadeIn(pairs[0]), Indicate(layer[0], color=palette.HEAT_LOW, scale_factor=1.05))
        self.on_words("looks at every token", Create(pairs[1], lag_ratio=0.3), run_time=1.2)
        self.on_words("itself included", Create(pairs[2]), run_time=0.8)
        diagram = VGroup(column, arrows, block, repeat, note)
        uses = Card("What it is for", USES, palette.HEAT_LOW, width=4.6, font_size=BODY)
        self.narrate("Keeping context from the whole sequence is what tasks like translation and summarization need.")
        self.play(diagram.animate.scale(0.85).to_edge(LEFT, buff=0.5), FadeOut(pairs))
        uses.next_to(diagram, RIGHT, buff=0.8).set_y(diagram.get_y())
        lines = (FadeIn(line, shift=LEFT * 0.2) for line in uses.body)
        self.on_words("tasks like", FadeIn(uses.frame), LaggedStart(FadeIn(uses.heading), *lines), run_time=2)
        self.wait(2)


class ResolveAmbiguity(LessonScene):
    """The dictionary analogy: "bank" is read through "money" or "water"; "check" through "cashed" and "bank"."""

    def construct(self) -> None:
        title = self.show_title()
        self.narrate('Alone, the word "bank" is ambiguous: a river bank, or a bank that holds money?')
        word = caption("bank ?", HERO, font=SERIF).next_to(title, DOWN, buff=0.4)
        senses = VGroup(  # the two readings fork from the word: the sentences below choose one
            *(
                caption(s, LEAD, palette.MUTED, font=SERIF).move_to(word.get_center() + DOWN * 1.0 + side * 3.4)
                for s, side in (("a river bank", LEFT), ("a bank for money", RIGHT))
            )
        )
        fork = VGroup(
            *(
                Arrow(
                    word.get_bottom() + side * 0.4,
                    sense.get_top() + UP * 0.12,
                    buff=0.1,
                    color=palette.MUTED,
                    stroke_width=4,
                )
                for sense, side in zip(senses, (LEFT, RIGHT), strict=True)
            )
        )
        question = VGroup(word, senses, fork)
        question.generate_target()  # its place once the sentences below come in
        question.scale(1.35).move_to(UP * 0.4)  # until then, the question is the whole picture
        self.play(FadeIn(question))
        self.wait(1)

        money = self.read_in_context(
            ["I", "put", "money", "in", "the", "bank"], reader=5, helpers=[2], meaning="financial bank"
        )
        money.next_to(question.target[1], DOWN, buff=0.3).set_x(0)
        water = self.read_in_context(
            ["we", "sat", "by", "the", "water", "near", "the", "bank"], reader=7, helpers=[4], meaning="river bank"
        )
        water.next_to(money, DOWN, buff=0.2).set_x(0)
        legend = caption(
            "blue: the word being read    orange: the words that settle its meaning",
            LABEL,
            palette.MUTED,
            font=SERIF,
            t2c={"blue:": palette.QUERY, "orange:": palette.KEY},
        )
        caption_band(legend)
        self.narrate('We look at the other words: "money" says finance, "water" says river.')
        self.play(MoveToTarget(question), FadeIn(legend))
        for sentence, sense, other, named in (
            (money, senses[1], senses[0], '"money"'),
            (water, senses[0], senses[1], '"water"'),
        ):
            self.on_words(  # each sentence as its clue is named; the reading it settles lights as it is said
                named,
                LaggedStart(
                    FadeIn(sentence[0]), *(Create(arc) for arc in sentence[1]), FadeIn(sentence[2]), lag_ratio=0.4
                ),
                sense.animate.set_color(palette.QUERY),
                other.animate.set_color(palette.MUTED),
                run_time=1.2,
            )
        self.wait(1.5)

        check = self.read_in_context(
            ["he", "cashed", "the", "check", "at", "the", "bank"],
            reader=3,
            helpers=[1, 6],
            meaning="money, not chess",
        ).move_to(UP * 0.6)
        self.narrate('The same with "check": "cashed" and "bank" make it a cheque, not a chess move.')
        self.play(give_way(VGroup(question, money, water), FadeIn(check[0])))
        self.play(LaggedStart(*(Create(arc) for arc in check[1]), FadeIn(check[2]), lag_ratio=0.5))

        lesson = caption(
            "Self-attention: every word looks at the rest\nof the sentence to clarify its own meaning.",
            HEADING,
            font=SERIF,
            line_spacing=1.2,
        )
        caption_band(lesson)
        self.narrate("Self-attention does this for every word: it reads the rest of the sentence to fix its meaning.")
        self.play(FadeOut(legend), Write(lesson))
        self.wait(2.5)

    @staticmethod
    def read_in_context(words: list[str], reader: int, helpers: list[int], meaning: str) -> VGroup:
        """A sentence with arrows from the ambiguous word to the words that resolve it, and the meaning."""
        sentence = Sentence(words, font_size=40)
        sentence.words[reader].set_color(palette.QUERY)
        for i in helpers:
            sentence.words[i].set_color(palette.KEY)
        arcs = VGroup(*(arc_between(sentence.words[reader], sentence.words[i], palette.KEY) for i in helpers))
        label = caption(f"→ {meaning}", LEAD, palette.QUERY, font=SERIF).next_to(sentence, RIGHT, buff=0.4)
        return VGroup(sentence, arcs, label)


class FadeRecurrentSignal(LessonScene):
    """An RNN reads the sentence step by step while the signal of "keys" fades before "are"."""

    def construct(self) -> None:
        self.show_title()
        rnn = self.values.rnn_decay
        tokens = spread(TokenRow(rnn.tokens, font_size=28), 2.3)
        source, target = tokens[rnn.source], tokens[rnn.target]
        source.set_color(palette.HIGHLIGHT)  # the colour of its full signal, the first bar
        cells = VGroup(*(LabelBox("s", width=1.1, height=0.8, font_size=32).next_to(t, DOWN).set_y(0) for t in tokens))
        cells.set_y(tokens.get_bottom()[1] - 0.35 - cells.height / 2)  # one row, below the deepest descender
        links = VGroup(*(connect(a, b) for a, b in zip(cells, cells[1:], strict=False)))
        self.narrate("A recurrent network reads a sentence one word at a time, passing a memory along: its state, s.")
        baseline_y, full = -2.4, 2.4
        legend = caption(f'signal of\n"{rnn.tokens[rnn.source]}"', CAPTION, palette.HIGHLIGHT, font=SERIF)
        legend.move_to([tokens[0].get_x(), baseline_y + full / 2, 0])
        chain = VGroup(tokens, cells, links)  # as low as the tallest bar allows, once the bars come
        chain.shift((baseline_y + full + 0.8 - chain.get_bottom()[1]) * UP)
        opening = to_middle(chain)  # until then it is the whole picture
        self.play(FadeIn(tokens), FadeIn(cells))

        bars, numbers = VGroup(), VGroup()
        for i, strength in enumerate(rnn.signal):
            said = i == 1 and rnn.source >= 1  # the first memory passed on, while the first sentence says so
            if said:
                self.on_words("passing a memory", GrowArrow(links[0]))
            if i == rnn.source:
                self.narrate(
                    'It reads "keys", the subject. In this illustration each step keeps only part of its signal.'
                )
                shown = self.get_mobject_family_members()
                VGroup(*(link for link in links if link not in shown)).shift(UP * opening)  # not drawn yet: no play
                up = VGroup(tokens, cells, *(link for link in links if link in shown))
                self.play(up.animate.shift(UP * opening), run_time=0.6)  # room for the bars
            animations = [cells[i].animate.highlight(palette.MUTED, 0.3)]
            if i and not said:
                animations.append(GrowArrow(links[i - 1]))
            if i >= rnn.source:
                bar = Rectangle(width=0.7, height=max(full * strength, 0.01), stroke_width=0)
                bar.set_fill(palette.heat(strength), opacity=0.9).move_to([tokens[i].get_x(), baseline_y, 0], DOWN)
                number = caption(fmt(strength), CAPTION, font=SERIF).next_to(bar, UP, buff=0.1)
                bars.add(bar), numbers.add(number)
                animations += [GrowFromEdge(bar, DOWN), FadeIn(number)]
                if i == rnn.source:  # the row's name comes with its first bar
                    animations.append(FadeIn(legend))
            if i == 0 and rnn.source >= 1:  # the first word read as "one word at a time" is said
                self.on_words("one word at a time", *animations, run_time=0.8)
            else:
                self.play(*animations, run_time=0.8)

        rate = caption(
            f"each step passes on {fmt(rnn.retention)} of the signal it gets (made up, to illustrate)",
            BODY,
            palette.MUTED,
            font=SERIF,
        )
        caption_band(rate)
        self.play(FadeIn(rate))
        column = VGroup(target, cells[rnn.target], numbers[-1], bars[-1])  # the word, its state, its signal
        frame = SurroundingRectangle(column, color=palette.HEAT_LOW, buff=0.12)
        self.narrate(f'By "are", {fmt_int(rnn.steps)} steps later, only {fmt(rnn.signal_at_target)} of it is left.')
        self.play(Create(frame))
        self.wait(2)
        lesson = caption("A plain RNN forgets: a word's signal fades, step by step.", LEAD, font=SERIF)
        lesson.move_to(rate)
        self.narrate("Sequential models struggle with long-range dependencies: information decays over steps.")
        self.play(FadeOut(rate), FadeIn(lesson))
        self.wait(3)


class ContrastEmbeddings(LessonScene):
    """Fixed embeddings (the same in any sentence) against the contextual vectors self-attention makes."""

    def construct(self) -> None:
        title = self.show_title()
        example = self.values.cat_sat
        tokens = example.tokens
        fixed = LabelledMatrix(example.E, row_labels=tokens, name="X", font_size=38).fit_within(4.5, 3.6)
        contextual = LabelledMatrix(example.output, row_labels=tokens, name="Z", places=2, font_size=38)
        contextual.fit_within(5.2, 3.6)
        VGroup(fixed, contextual).arrange(RIGHT, buff=2.6).next_to(title, DOWN, buff=0.9)
        headings = VGroup(
            caption("fixed: the same\nin every sentence", BODY, palette.MUTED, font=SERIF).next_to(fixed, DOWN),
            caption("contextual: depends\non the sentence", BODY, palette.HEAT_LOW, font=SERIF).next_to(
                contextual, DOWN
            ),
        )
        same = bool(np.allclose(example.V, example.E))  # V = X here: the mix is of the rows of X themselves
        mix = caption_band(self.mixture(tokens, example.weights[0], "x" if same else "v"))
        figure = VGroup(fixed, contextual, headings)  # as large as the room above the mixture's line allows
        room = TOP - 0.4 - (mix.get_top()[1] + 0.4)
        below_title(figure.scale(min(13.0 / figure.width, room / figure.height))).set_x(0).shift(DOWN * 0.4)
        arrow = connect(fixed, contextual, palette.TEXT)
        step = caption("self-attention", BODY, font=SERIF)
        step.set_x((fixed.get_right()[0] + contextual.get_left()[0]) / 2).match_y(fixed.get_name())

        self.narrate(
            f'An embedding layer gives each word a fixed vector: "{tokens[1]}" gets this row in any sentence, '
            "before position is added."
        )
        self.play(FadeIn(fixed.get_frame()), fixed.fill_in())
        self.play(FadeIn(headings[0]))
        named = fixed.row_frame(1)
        self.on_words(f'"{tokens[1]}" gets', Create(named))

        self.narrate("Self-attention turns these fixed vectors into contextual ones, one per word.")
        self.play(GrowArrow(arrow), FadeIn(step))
        self.play(FadeIn(contextual.get_frame()), contextual.fill_in())
        self.play(FadeIn(headings[1]))
        self.wait(1)

        self.narrate(
            f'Each new row is a weighted mix of all the words\' vectors, shown here for "{tokens[0]}": '
            + (
                "how the weights are found comes later."
                if same
                else "how the weights are found, and what V is, comes later."
            )
        )
        rows = [r for r in fixed.shown_rows if r is not None]
        arrows, tags = self.mixing(fixed, contextual, example.weights[0], rows)
        frames = VGroup(*(fixed.row_frame(r) for r in rows), contextual.row_frame(0))
        self.play(
            FadeOut(named),
            FadeOut(arrow),  # one arrow for the whole step becomes one for each row mixed in
            *map(Create, frames),
        )
        self.play(LaggedStart(*map(GrowArrow, arrows), lag_ratio=0.2), FadeIn(tags))
        self.play(FadeIn(mix, shift=UP * 0.2))
        self.wait(2.5)
        self.cut_short(example, fixed, contextual, VGroup(frames, arrows, tags, mix, headings), arrow)

    def cut_short(
        self, example: CatSat, fixed: LabelledMatrix, contextual: LabelledMatrix, leaving: VGroup, step: Mobject
    ) -> None:
        """A word of the sentence in the sentence without its last word: its row of X the same, its row of Z not;
        ``step``, the arrow for the whole of self-attention, back in the place of the mix's."""
        tokens, shorter = example.tokens, example.shorter
        c = 1 if len(tokens) > 2 else 0  # a word in both: "cat" in "the cat"
        short = " ".join(tokens[:-1])
        changes = not np.allclose(shorter.output[c], example.output[c])
        self.narrate(
            f'In "{short}" alone, "{tokens[c]}" keeps its row of X, but '
            + ("its row of Z changes." if changes else "here its row of Z happens to stay the same.")
        )
        table = caption_band(fit_width(self.both_sentences(example, c), 13.0)).set_x(0)  # in the headings' place
        frames = (Create(fixed.row_frame(c)), Create(contextual.row_frame(c)))
        self.play(FadeOut(leaving), FadeIn(step), *frames, FadeIn(table[:2]))
        self.on_words("keeps its row of X", FadeIn(table[2][:2]))
        self.on_words("row of Z", FadeIn(table[2][2]))
        self.finish_narration()
        self.wait(READ_HOLD)

    @staticmethod
    def both_sentences(example: CatSat, c: int) -> VGroup:
        """Word ``c``'s row of X and of Z in the sentence and in the sentence without its last word, a row each
        under a line of headings: the same x, another z."""
        word, sentences = example.tokens[c], (example.tokens, example.tokens[:-1])
        cells = [
            [caption("", BODY), caption(f"x({word}): fixed", BODY, palette.MUTED)],
            *(
                [caption(f'"{" ".join(s)}"', BODY, palette.MUTED), caption(vector_text(example.E[c]), BODY)]
                for s in sentences
            ),
        ]
        cells[0].append(caption(f"z({word}): contextual", BODY, palette.HEAT_LOW))
        for row, z in zip(cells[1:], (example.output[c], example.shorter.output[c]), strict=True):
            row.append(caption(vector_text(z, 2), BODY))
        lefts = np.cumsum([0] + [max(row[k].width for row in cells) + 0.6 for k in range(2)])
        for r, row in enumerate(cells):  # columns left-aligned, rows on one pitch
            for k, cell in enumerate(row):
                cell.move_to([lefts[k], -0.5 * r, 0], aligned_edge=LEFT)
        return VGroup(*(VGroup(*row) for row in cells))

    @staticmethod
    def mixing(fixed: LabelledMatrix, contextual: LabelledMatrix, weights: np.ndarray, rows: list[int]):
        """Each drawn row of X's weight beside it, and from there an arrow to the first row of Z."""
        end = [contextual.get_row_labels().get_left()[0] - 0.3, contextual.get_row(0).get_y(), 0]
        left = fixed.get_brackets().get_right()[0] + 0.15

        def tag(r: int) -> Text:  # row r's weight, left-aligned just right of X's bracket
            return caption(fmt(weights[r]), LABEL).move_to([left, fixed.get_row(r).get_y(), 0], aligned_edge=LEFT)

        tags = VGroup(*map(tag, rows))
        start = tags.get_right()[0] + 0.1
        arrows = VGroup(*(Arrow([start, t.get_y(), 0], end, buff=0, color=palette.TEXT, **EVEN_ARROW) for t in tags))
        return arrows, tags

    @staticmethod
    def mixture(tokens: list[str], weights: np.ndarray, name: str) -> Text:
        """'z(the) = 0.42 x(the) + 0.16 x(cat) + 0.42 x(sat)': what a contextual row is made of (rows lower-case,
        named by their word: docs/notation.md); v(…) in the values' colour where V is not X."""
        terms = [f"{fmt(w)} {name}({t})" for t, w in zip(tokens, weights, strict=True)]
        colours = {f"{name}({t})": palette.VALUE for t in tokens} if name == "v" else {}
        return caption(f"z({tokens[0]}) = {' + '.join(terms)}", HEADING, t2c=colours)
