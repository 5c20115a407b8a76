"""Chapter "Queries, keys and values": the formula, its analogies, and the shapes it moves."""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    FadeIn,
    Indicate,
    MathTex,
    SurroundingRectangle,
    Text,
    VGroup,
    Write,
)

from scenes.kit import LessonScene, SoftmaxBars, TokenLabel, palette
from scenes.kit.diagrams import Card

ROLE_COLORS = {"Q": palette.QUERY, "K": palette.KEY, "V": palette.VALUE}


def attention_formula(font_size: float = 44) -> MathTex:
    """softmax(QKᵀ/√d_k)V with Q, K and V in their role colours."""
    return MathTex(
        r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\Big(\frac{Q K^{T}}{\sqrt{d_k}}\Big)\, V",
        tex_to_color_map=ROLE_COLORS,
        font_size=font_size,
    )


def parts_of(tex: MathTex, part: str) -> VGroup:
    """Every occurrence of ``part`` (one of its isolated substrings) in ``tex``."""
    return VGroup(*(tex.id_to_vgroup_dict[i] for t, i in tex.matched_strings_and_ids if t == part))


def caption(text: str, font_size: float = 28, color=palette.TEXT) -> Text:
    """A line of explanatory text."""
    return Text(text, font_size=font_size, color=color)


class UnpackFormula(LessonScene):
    """The core formula, then Q, K and V as a search engine: "ate" looks for food, "apple" tags itself."""

    def construct(self) -> None:
        title = self.show_title()
        formula = attention_formula().next_to(title, DOWN, buff=0.5)
        self.narrate("Self-attention is one formula: softmax of Q times K transposed over root d k, times V.")
        self.play(Write(formula), run_time=2)
        self.wait(1)

        self.narrate("Think of every word as a user of a small search engine.")
        cards = VGroup(
            Card("Query  Q", ["What am I looking for?", '"ate" searches for', "[food, edible objects]"], palette.QUERY),
            Card("Key  K", ["What defines me?", '"apple" tags itself', "[fruit, food, red]"], palette.KEY),
            Card("Value  V", ["My actual content:", "the vector for the", 'concept "apple"'], palette.VALUE),
        ).arrange(RIGHT, buff=0.3, aligned_edge=UP)
        cards.next_to(formula, DOWN, buff=0.6)
        lines = [
            'The query asks "what am I looking for?": "ate" searches for food.',
            'The key says "what defines me?": "apple" tags itself as fruit, food, red.',
            'The value is the word\'s actual content: the vector for "apple".',
        ]
        for card, letter, line in zip(cards, "QKV", lines, strict=True):
            self.narrate(line)
            self.play(FadeIn(card, shift=UP * 0.2), Indicate(parts_of(formula, letter), scale_factor=1.3))
            self.wait(2.2)

        takeaway = caption("Match each query against every key; where they match, fetch the value.")
        takeaway.to_edge(DOWN, buff=0.6)
        self.narrate("We score how well each query matches each key; a high score fetches that word's value.")
        self.play(Write(takeaway))
        self.wait(2.5)


class LookUpDatabase(LessonScene):
    """A database returns the value of the one key that matches; attention blends every value by weight."""

    def construct(self) -> None:
        title = self.show_title()
        exact = self.database_lookup().next_to(title, DOWN, buff=0.6).to_edge(LEFT, buff=0.8)
        self.narrate("In a database, a query is compared with the keys, and the matching record's value comes back.")
        self.play(FadeIn(exact[0]), FadeIn(exact[1]))
        self.play(Create(exact[2]), FadeIn(exact[3], shift=RIGHT * 0.2))
        self.wait(1.5)

        soft = self.soft_lookup().next_to(title, DOWN, buff=0.6).to_edge(RIGHT, buff=0.8)
        self.narrate("Attention is a soft lookup: the query matches every key a little, with a weight.")
        self.play(FadeIn(soft[0]))
        self.play(soft[1].grow(), FadeIn(soft[1].get_labels()), FadeIn(soft[1].baseline))
        self.play(FadeIn(soft[1].get_total()))
        self.narrate("The answer mixes every value by those weights. Each word is a query once; every word is a key.")
        self.play(FadeIn(soft[2], shift=RIGHT * 0.2))
        self.wait(3.5)

    def database_lookup(self) -> VGroup:
        """Heading and query, the key → value table, a frame on the one match, and the returned value."""
        heading = caption("Database: exact match", font_size=30)
        query = VGroup(caption("query:", color=palette.QUERY), caption('"Japan"')).arrange(RIGHT)
        rows = VGroup(
            *(
                VGroup(caption(k, color=palette.KEY), caption("→"), caption(v, color=palette.VALUE)).arrange(RIGHT)
                for k, v in (("France", "Paris"), ("Japan", "Tokyo"), ("Peru", "Lima"))
            )
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.35)
        VGroup(heading, query, rows).arrange(DOWN, aligned_edge=LEFT, buff=0.5)
        match = SurroundingRectangle(rows[1], color=palette.HEAT_LOW, buff=0.1)
        answer = VGroup(caption("returns:"), caption("Tokyo", color=palette.VALUE)).arrange(RIGHT)
        answer.next_to(rows, DOWN, aligned_edge=LEFT, buff=0.6)
        return VGroup(VGroup(heading, query), rows, match, answer)

    def soft_lookup(self) -> VGroup:
        """Heading and query token, the weight of every key (worked example, head 1), and the blended answer."""
        head = self.values["worked_example"]["heads"][0]
        tokens = self.values["worked_example"]["tokens"]
        heading = caption("Attention: soft match", font_size=30)
        query = VGroup(caption("query:", color=palette.QUERY), TokenLabel(tokens[0], font_size=28)).arrange(RIGHT)
        bars = SoftmaxBars(head["weights"][0], tokens, total=head["weight_sums"][0], height=1.8, bar_width=0.95)
        bars.get_labels().set_color(palette.KEY)
        answer = caption("returns: Σ weight × value", color=palette.VALUE)
        VGroup(heading, query, bars, answer).arrange(DOWN, aligned_edge=LEFT, buff=0.5)
        return VGroup(VGroup(heading, query), bars, answer)
