"""Where attention came from: RNN attention's context vector, then self-attention over the sequence itself, then
the learned projections that give it something to learn and break its mirror."""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    AnimationGroup,
    Create,
    DashedVMobject,
    FadeIn,
    FadeOut,
    FadeTransform,
    GrowArrow,
    Indicate,
    LaggedStart,
    MathTex,
    ReplacementTransform,
    TransformFromCopy,
    TransformMatchingTex,
    VGroup,
    Write,
)

from scenes.kit import (
    BODY,
    DISPLAY,
    FORMULA,
    HEADING,
    LABEL,
    SERIF,
    LessonScene,
    TokenLabel,
    caption,
    formula,
    notation,
    palette,
)
from scenes.kit.base import READ_HOLD
from scenes.kit.diagrams import LabelBox, connect
from scenes.kit.layout import caption_band, fit_width
from scenes.kit.motion import give_way
from scenes.kit.text import attention_formula

BOX_HEIGHT = 0.8  # the vectors' boxes: large enough to carry the picture on their own in the opening


class GeneralizeAttention(LessonScene):
    """From RNN attention (a context vector over encoder states) to self-attention over the sequence itself,
    which has no parameters until learned projections give it some."""

    def construct(self) -> None:
        title = self.show_title()
        heading = caption("RNN attention: a decoder reads the encoder states", HEADING, font=SERIF).next_to(
            title, DOWN, buff=0.3
        )
        we = self.values.worked_example
        gap = len(we.tokens) != 4  # four words fill the boxes 1, 2, j (or i) and n: no ellipsis box between
        states = self.sequence("e", "j", gap)  # i is the decoder's step: a source word is j
        context = LabelBox(formula("C(i)", size=DISPLAY), color=palette.HEAT_LOW, height=BOX_HEIGHT)
        decoder = LabelBox(notation(formula("s_{i-1}", size=DISPLAY)), color=palette.MUTED, height=BOX_HEIGHT)
        VGroup(context, decoder).arrange(RIGHT, buff=1.5)
        picture = VGroup(VGroup(context, decoder), states).arrange(DOWN, buff=0.6).next_to(heading, DOWN, buff=0.25)
        context.set_x(states.get_x())
        decoder.next_to(context, RIGHT, buff=1.2)  # a visible link between them
        weights = self.converge(states, context)
        query = DashedVMobject(connect(decoder, context, palette.QUERY), num_dashes=8)  # not summed into C(i)
        rule = self.weighted_sum("C(i)", "e_j", r"\mathrm{score}(s_{i-1}, e_j)").next_to(picture, DOWN, buff=0.35)

        words = self.source_words(we.tokens, states)
        cross = we.variants.cross
        writing = ["decoder state, writing", self.translation(cross.decoder_tokens)] if cross else ["decoder state"]
        roles = VGroup(
            caption("encoder states: one per source word, made by an RNN reading it", LABEL, palette.MUTED, font=SERIF),
            VGroup(  # the decoder state is not summed into C(i): it scores the encoder states
                *(caption(line, LABEL, palette.MUTED, font=SERIF) for line in writing),  # and the translation
                caption("(its scores set the α)", LABEL, palette.MUTED, font=SERIF),
            ).arrange(DOWN, aligned_edge=LEFT, buff=0.08),
        )
        roles[0].next_to(VGroup(states, words), DOWN, buff=0.15)
        fit_width(roles[1], 6.8 - decoder.get_right()[0] - 0.2).next_to(decoder, RIGHT, buff=0.2)
        rule.next_to(roles[0], DOWN, buff=0.25)
        self.narrate(
            "Attention began in RNN translators: one RNN reads the source sentence into encoder states, one per word, "
            "another writes the translation, its state s."
        )
        self.play(FadeIn(heading), FadeIn(states), FadeIn(words), FadeIn(roles[0]))
        self.on_words("another writes", FadeIn(decoder), FadeIn(roles[1][:-1]))
        self.narrate(
            "For the word i it writes, a context vector C(i) is a weighted sum of the encoder states: "
            "αᵢⱼ is the weight it gives source word j."
        )
        self.play(Create(query), FadeIn(context), LaggedStart(*map(GrowArrow, weights)))
        self.on_words("a weighted sum", Write(rule[0]))
        self.narrate(
            "The weights are a softmax of scores between the decoder's state before word i, sᵢ₋₁, "
            "and each encoder state."
        )
        self.play(Write(rule[1]))
        self.on_words("between the decoder's state", FadeIn(roles[1][-1]))  # what its scores do, once α is defined
        self.on_words(
            "each encoder", LaggedStart(*(Indicate(w, color=palette.HIGHLIGHT) for w in weights), lag_ratio=0.3)
        )

        own = self.sequence("x", "i", gap).move_to(states)
        output = LabelBox(formula("z_i", size=DISPLAY), color=palette.HEAT_LOW, height=BOX_HEIGHT).move_to(context)
        new_heading = caption("Self-attention: the sequence attends to itself", HEADING, font=SERIF).move_to(heading)
        new_rule = self.weighted_sum("z_i", "x_j", r"\frac{x_i \cdot x_j}{\mathrm{const}}")
        new_rule.next_to(VGroup(states, words), DOWN, buff=0.3)  # up into the RNN's caption's place: room below
        self.narrate(
            "Self-attention drops the RNN: each x_i scores every x_j of its own sequence by a dot product, "
            "divided by a constant the lesson chooses later."
        )
        self.play(
            ReplacementTransform(heading, new_heading),
            ReplacementTransform(states, own),
            ReplacementTransform(context, output),
            ReplacementTransform(weights, arrows := self.converge(own, output)),  # they follow the narrower box
            FadeOut(VGroup(decoder, query, roles)),
            FadeTransform(rule, new_rule),  # the formula changes with the picture: they never disagree
        )
        here = f", here “{we.tokens[2]}”" if len(words) else ""  # box i stands over the third word
        indices = caption(f"i: the word being read{here};  j: every word, itself included", LABEL, palette.MUTED)
        indices.next_to(new_rule, DOWN, buff=0.3)  # the letters' meaning, not positions
        self.on_words(
            "by a dot product",
            own[2].animate.highlight(palette.QUERY),
            Indicate(new_rule[1], color=palette.HIGHLIGHT),
            FadeIn(indices),
        )
        self.narrate("The output z_i is the same weighted sum, now over the sequence's own vectors.")
        self.play(Indicate(new_rule[0], color=palette.HIGHLIGHT), Indicate(output, color=palette.HIGHLIGHT))

        lack = VGroup(
            caption("nothing of its own to learn, and", BODY, palette.MUTED, font=SERIF),
            formula(r"x_i \cdot x_j = x_j \cdot x_i", size=FORMULA),
        ).arrange(RIGHT, buff=0.3)
        lack.next_to(new_rule, DOWN, buff=0.3)
        self.narrate(
            "As written, this layer has nothing of its own to learn, and its scores are symmetric: "
            "x_i dot x_j equals x_j dot x_i."
        )
        self.play(give_way(indices, FadeIn(lack)))
        note = formula(  # the learned projections, each result in its role's colour
            r"Q", r"= X \cdot W_{Q},\;", r"K", r"= X \cdot W_{K},\;", r"V", r"= X \cdot W_{V}", size=FORMULA
        )
        for part, role in zip(note[::2], "QKV", strict=True):
            part.set_color(palette.ROLE[role])
        final = caption_band(attention_formula(DISPLAY))  # the lesson's formula, on a line of its own
        caption_band(note)  # just above the subtitles, under the rule
        self.narrate(
            "Stack the x_i as the rows of X: learned projections of X into queries, keys and values give it "
            "something to learn."
        )
        stack = self.stacked(own)
        self.play(FadeOut(lack))
        self.on_words(  # the sequence's vectors, one row each, become X
            "rows of X",
            *(TransformFromCopy(own[k], stack[0][r]) for k, r in ((0, 0), (1, 1), (-1, 3))),
            FadeIn(stack[0][2]),
            FadeIn(stack[1]),
            run_time=1.2,
        )
        self.on_words("learned projections", FadeIn(note))  # X made, then what is made of it
        # the same two formulas, each x in the role it plays
        bridged = self.weighted_sum("z_i", "v_j", r"\frac{q_i \cdot k_j}{\mathrm{const}}", roles=True).move_to(new_rule)
        self.narrate(
            "In the score, x_i becomes q_i and x_j becomes k_j; in the sum, x_j becomes v_j. "
            "And q_i·k_j need not equal q_j·k_i."
        )
        values = self.projected(own, gap)  # each token's q, k and v: i's query asks, every key answers
        self.on_words(
            "becomes qᵢ",
            TransformMatchingTex(new_rule, bridged),
            ReplacementTransform(own, values),
            ReplacementTransform(arrows, arrows := self.converge(values, output)),
            *(
                word.animate.next_to(box, DOWN, buff=0.12) for word, box in zip(words, worded(values), strict=False)
            ),  # no words under 3
            FadeOut(stack),  # its rows are in X·W_Q, X·W_K, X·W_V now
            run_time=1.5,
        )
        self.on_words("becomes vⱼ", *(Indicate(box.label[2], color=palette.VALUE) for box in worded(values)))
        colours = {"q_i": palette.QUERY, "k_j": palette.KEY, "q_j": palette.QUERY, "k_i": palette.KEY}
        mirror = VGroup(  # the indices at formula size: they are the point of the line
            formula(r"q_i \cdot k_j", size=FORMULA, tex_to_color_map=colours),
            caption("need not equal", BODY, font=SERIF),
            formula(r"q_j \cdot k_i", size=FORMULA, tex_to_color_map=colours),
            caption(": the mirror is broken", BODY, font=SERIF),
        ).arrange(RIGHT, buff=0.2)
        mirror[3].shift(LEFT * 0.15)
        notation(mirror).move_to(note).set_x(0)  # the answer to xᵢ·xⱼ = xⱼ·xᵢ, for a while in the projections' place
        self.on_words("need not", give_way(note, FadeIn(mirror)))
        self.finish_narration()
        self.wait(READ_HOLD)  # the broken mirror, read before the projections come back
        picture = VGroup(values, arrows, output, words)
        self.narrate(
            "For every i at once, one row each, that is the Transformer's formula; "
            "the chapters ahead take it apart, piece by piece."
        )
        top = bridged.copy().next_to(new_heading, DOWN, buff=0.5)
        final.move_to(VGroup(top, note)).set_x(0)
        bar = max(final[0], key=lambda g: g.width / max(g.height, 1e-3))  # the fraction bar; under it, √d_k
        below = VGroup(
            *(g for g in final[0] if g.get_y() < bar.get_y() and bar.get_left()[0] <= g.get_x() <= bar.get_right()[0])
        ).set_opacity(0.25)  # the constant, dim until it is named: the rule above still says "const"
        self.play(  # the per-token rule up, the matrix formula under it, and what Q, K and V are under that
            LaggedStart(
                AnimationGroup(FadeOut(picture), bridged.animate.move_to(top), give_way(mirror, FadeIn(note))),
                Write(final),
                lag_ratio=0.5,
            ),
            run_time=2,
        )
        self.narrate("Its constant is √d_k, where d_k is how many numbers a key holds: the scaling chapter shows why.")
        # the per-pair formula with the constant named, as in the formula below it
        rooted = self.weighted_sum("z_i", "v_j", r"\frac{q_i \cdot k_j}{\sqrt{d_k}}", roles=True).move_to(bridged)
        self.on_words(
            "constant",
            below.animate.set_opacity(1).set_color(palette.HIGHLIGHT),  # lit, not boxed: a box hid the fraction bar
            TransformMatchingTex(bridged, rooted),
        )
        self.wait(2)

    @staticmethod
    def weighted_sum(total: str, term: str, score: str, roles: bool = False) -> MathTex:
        """``total`` = Σⱼ αᵢⱼ ``term``, αᵢⱼ = softmaxⱼ ``score``: the rule at each stage, RNN to Transformer, in
        two parts (TransformMatchingTex matches them); with ``roles``, q, k and v in their roles' colours."""
        colours = (
            {"tex_to_color_map": {"q_i": palette.QUERY, "k_j": palette.KEY, "v_j": palette.VALUE}} if roles else {}
        )
        return notation(
            formula(
                rf"{total} = \sum_{{j=1}}^{{n}} \alpha_{{ij}}\, {term}",
                rf",\qquad \alpha_{{ij}} = \mathrm{{softmax}}_j\, {score}",
                size=DISPLAY,
                **colours,
            )
        )

    @staticmethod
    def stacked(own: VGroup) -> VGroup:
        """X as the sequence's vectors stacked, one row each (x₁, x₂, ⋮, xₙ), right of the sequence: its rows, its
        name."""
        rows = VGroup(
            *(LabelBox(formula(t, size=FORMULA), width=1.5, height=0.42) for t in ("x_1", "x_2")),
            formula(r"\vdots", size=FORMULA),
            LabelBox(formula("x_n", size=FORMULA), width=1.5, height=0.42),
        ).arrange(DOWN, buff=0.08)
        name = formula("X", size=DISPLAY).next_to(rows, UP, buff=0.15)
        return notation(VGroup(rows, name)).next_to(own, RIGHT, buff=0.45).match_y(own)

    @staticmethod
    def translation(tokens: list[str], most: int = 22) -> str:
        """The decoder's sentence, quoted; a long one cut to its first words and an ellipsis (it sits in a margin)."""
        words = " ".join(tokens)
        while len(words) > most and " " in words:
            words = words.rsplit(" ", 1)[0]
        return f"“{words}{'' if words == ' '.join(tokens) else ' …'}”"

    @staticmethod
    def source_words(tokens: list[str], states: VGroup) -> VGroup:
        """The worked example's words under the encoder states e₁, e₂, e_j, (⋯,) e_n (none for fewer than four)."""
        if len(tokens) < 4:
            return VGroup()
        shown = [tokens[0], tokens[1], tokens[2], *([None] if len(states) == 5 else []), tokens[-1]]
        return VGroup(
            *(
                TokenLabel(t, font_size=24).next_to(box, DOWN, buff=0.12)
                for t, box in zip(shown, states, strict=True)
                if t
            )
        )

    @staticmethod
    def sequence(symbol: str, index: str = "i", gap: bool = True) -> VGroup:
        """Boxes for the vectors symbol_1, symbol_2, symbol_index, (…,) symbol_n of a sequence (indices: notation);
        without ``gap`` no ellipsis box: a four-word sentence has no word for it."""
        labels = [r"\cdots" if i is None else f"{symbol}_{i}" for i in places(index, gap)]
        boxes = VGroup(*(LabelBox(formula(t, size=DISPLAY), width=1.3, height=BOX_HEIGHT) for t in labels))
        return notation(boxes.arrange(RIGHT, buff=0.5))

    @staticmethod
    def projected(own: VGroup, gap: bool) -> VGroup:
        """The sequence's boxes ``own``, each now its token's query, key and value (q_1 k_1 v_1, …): the queries dim
        but token i's, which asks; the ellipsis box stays."""
        boxes = VGroup()
        for box, index in zip(own, places("i", gap), strict=True):
            if index is None:
                boxes.add(box.copy())
                continue
            label = formula(f"q_{index}", rf"\, k_{index}", rf"\, v_{index}", size=DISPLAY)
            query = palette.QUERY if index == "i" else palette.MUTED
            for part, colour in zip(label, (query, palette.KEY, palette.VALUE), strict=True):
                part.set_color(colour)
            new = LabelBox(label, width=label.width + 0.3, height=BOX_HEIGHT)
            boxes.add(new.highlight(palette.QUERY, fill_opacity=0.12) if index == "i" else new)
        return notation(boxes.arrange(RIGHT, buff=0.3).move_to(own))

    @staticmethod
    def converge(sources: VGroup, target: LabelBox) -> VGroup:
        """Weight arrows from every vector of the sequence (the ellipsis excepted) into ``target``."""
        return VGroup(
            *(  # each from its own box's top: a slanted arrow from a side would cross the neighbouring box
                connect(box, target, palette.HEAT_LOW, vertical=True) for box in worded(sources)
            )
        )


def places(index: str, gap: bool) -> list[str | None]:
    """The indices a drawn sequence shows, 1, 2, ``index``, (an ellipsis: None,) n; notation."""
    return ["1", "2", index, *([None] if gap else []), "n"]


def worded(boxes: VGroup) -> list:
    """The boxes of a drawn sequence that stand for a word (all but the ellipsis)."""
    return [box for box in boxes if "cdots" not in box.label.tex_string]
