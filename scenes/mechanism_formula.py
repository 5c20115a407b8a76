"""Chapter "Queries, keys and values", part 1: the formula, its analogies, and why the dot product.

Part 2 (why three matrices, RNN attention, the shapes) is ``mechanism_projections.py``.
"""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    PI,
    RIGHT,
    TAU,
    UP,
    Animation,
    Arc,
    Brace,
    Create,
    CurvedArrow,
    DecimalNumber,
    FadeIn,
    FadeOut,
    GrowArrow,
    GrowFromEdge,
    Indicate,
    LaggedStart,
    MathTex,
    Mobject,
    Rectangle,
    Restore,
    Rotate,
    SurroundingRectangle,
    Transform,
    UpdateFromAlphaFunc,
    VGroup,
    Write,
    interpolate,
)

from attention_math.demos import dot_with_turned_key
from attention_math.types import Alignment, Head
from scenes.kit import (
    BODY,
    FORMULA,
    HEADING,
    LABEL,
    LEAD,
    PROMINENT,
    READOUT,
    SERIF,
    TITLE,
    LessonScene,
    TokenLabel,
    TokenRow,
    VectorPlane,
    caption,
    formula,
    notation,
    number,
    palette,
)
from scenes.kit.diagrams import Card
from scenes.kit.layout import caption_band, fit_content
from scenes.kit.matrices import shown_indices
from scenes.kit.motion import give_way
from scenes.kit.numbers import fmt, vector_text
from scenes.kit.text import attention_formula

ROW_BUFF = 0.35  # between a lookup table's rows, in both tables
BAR_UNIT = 2.0  # a weight bar's length for a weight of 1
MAX_LOOKUP_ROWS = 6  # keys listed before a long sentence's middle ones become ⋮


def parts_of(tex: MathTex, part: str) -> VGroup:
    """Every occurrence of ``part`` (one of its isolated substrings) in ``tex``."""
    return VGroup(*(tex.id_to_vgroup_dict[i] for t, i in tex.matched_strings_and_ids if t == part))


def glyphs_of(text: Mobject, word: str) -> VGroup:
    """The glyphs of ``word`` inside a one-line text (its submobjects are its characters but spaces)."""
    letters = "".join(text.original_text.split())
    start = letters.index(word)
    return VGroup(*text.submobjects[start : start + len(word)])


HERO_SCALE = 1.3  # the core formula while it is the whole picture
ANALOGY = ["I", "ate", "an", "apple"]  # the search-engine analogy's sentence: "ate" asks, "apple" answers


class UnpackFormula(LessonScene):
    """The core formula, then Q, K and V as a search engine: "ate" looks for food, "apple" tags itself."""

    def construct(self) -> None:
        title = self.show_title()
        formula = attention_formula()
        home = formula.copy().next_to(title, DOWN, buff=0.5)  # its place above the cards, once they come
        formula.scale(HERO_SCALE).move_to(UP * 0.3)  # alone, large, with room above and below for its braces
        self.narrate("Self-attention is one formula: softmax of QKᵀ over √d_k, times V.")
        self.play(Write(formula), run_time=2)
        top, bottom = fraction_parts(formula)  # each part lit as the voice reads it out
        self.on_words("QKᵀ over", Indicate(top, color=palette.HIGHLIGHT, scale_factor=1.1))
        self.on_words("√dₖ", Indicate(bottom, color=palette.HIGHLIGHT, scale_factor=1.1))
        self.on_words("times V", Indicate(formula[0][-1], color=palette.HIGHLIGHT))  # its last glyph
        self.finish_narration()
        self.name_parts(formula, home)

        self.narrate("Think of every word of 'I ate an apple' as a user of a small search engine.")
        sentence = TokenRow(ANALOGY, font_size=TITLE).next_to(formula, DOWN, buff=0.35)  # the words the cards name
        self.on_words("I ate an apple", FadeIn(sentence, shift=UP * 0.2))
        cards = VGroup(
            Card(
                "Query  Q",
                ["What am I looking for?", '"ate" searches for', "[food, edible objects]"],
                palette.QUERY,
                height=2.1,
            ),
            Card("Key  K", ["What defines me?", '"apple" tags itself', "[fruit, food, red]"], palette.KEY, height=2.1),
            Card(
                "Value  V",
                ["What I hand on:", "a learned projection", 'of the vector of "apple"'],
                palette.VALUE,
                height=2.1,
            ),
        ).arrange(RIGHT, buff=0.3, aligned_edge=UP)
        cards.next_to(sentence, DOWN, buff=0.35)
        named = {"Q": sentence[ANALOGY.index("ate")], "K": sentence[ANALOGY.index("apple")]}  # who asks, who answers
        lines = [
            'The query asks "what am I looking for?": "ate" searches for food.',
            'The key says "what defines me?": "apple" tags itself as fruit, food, red.',
            'The value is what the word hands on when it is matched: its own learned projection of "apple".',
        ]
        for card, letter, line in zip(cards, "QKV", lines, strict=True):
            self.narrate(line)
            letters = (Indicate(glyph, scale_factor=1.3) for glyph in parts_of(formula, letter))  # each in place
            word = [Indicate(named[letter], color=palette.ROLE[letter], scale_factor=1.2)] if letter in named else []
            self.play(FadeIn(card, shift=UP * 0.2), *letters, *word)
            self.wait(2.2)

        takeaway = caption(
            "Match queries against keys; the better the match, the more of that value.", BODY, font=SERIF
        )
        caption_band(takeaway)
        wanted, offered = (glyphs_of(card.body[2], "food") for card in cards[:2])  # the word the two share
        match = [w.animate.set_color(palette.HIGHLIGHT) for w in (wanted, offered)]  # lit, not boxed: no box on "["
        below = [[w.get_x(), c.get_bottom()[1] - 0.08, 0] for w, c in zip((wanted, offered), cards, strict=False)]
        link = CurvedArrow(*below, angle=TAU / 9, color=palette.HIGHLIGHT)  # under the cards, from word to word
        fetch = CurvedArrow(below[1], cards[2].get_bottom() + DOWN * 0.08, angle=TAU / 9, color=palette.VALUE)
        self.narrate(
            "We score how well each query matches each key; the higher the score, the more of that word's value."
        )
        self.on_words("matches", *match, Create(link))  # the match: "food" asked, "food" offered
        self.on_words("the more of", Create(fetch), Indicate(cards[2], color=palette.VALUE, scale_factor=1.05))
        self.play(Write(takeaway))
        self.wait(2.5)

    def name_parts(self, tex: MathTex, home: MathTex) -> None:
        """Brace QKᵀ as the dot product and ÷√d_k as the scaling: the name papers and code use; then the formula
        goes up to ``home``, making room for what follows."""
        top, bottom = fraction_parts(tex)
        dot = Brace(top, UP, color=palette.MUTED)
        scaled = Brace(bottom, DOWN, color=palette.MUTED)
        labels = VGroup(
            caption("dot product", LEAD).next_to(dot, UP, buff=0.1),
            VGroup(
                caption("scaled", LEAD),
                notation(caption("dₖ: the number of entries in a query or key", LABEL, palette.MUTED)),
            )
            .arrange(DOWN, buff=0.16)  # two lines, not one run together
            .next_to(scaled, DOWN, buff=0.1),
        )
        name = caption("scaled dot-product attention", PROMINENT, font=SERIF).to_edge(DOWN, buff=1.0)
        self.narrate(
            "QKᵀ holds the dot products of queries and keys, each d_k numbers long; "
            "dividing by √d_k scales them, and the next chapter shows why."
        )
        self.on_words("dot products", Create(dot), FadeIn(labels[0]))  # each part braced as it is named
        self.on_words("dividing", Create(scaled), FadeIn(labels[1]))
        self.narrate("So papers and code call it scaled dot-product attention.")
        self.play(Write(name))
        self.finish_narration()
        self.play(FadeOut(VGroup(dot, scaled, labels, name)), Transform(tex, home))


def fraction_parts(tex: MathTex) -> tuple[VGroup, VGroup]:
    """The glyphs above and below the formula's fraction bar (its widest, flattest glyph)."""
    glyphs = tex.family_members_with_points()
    bar = max(glyphs, key=lambda g: g.width / max(g.height, 1e-3))
    left, right, y = bar.get_left()[0], bar.get_right()[0], bar.get_y()
    inside = [g for g in glyphs if g is not bar and left <= g.get_x() <= right]
    return VGroup(*(g for g in inside if g.get_y() > y)), VGroup(*(g for g in inside if g.get_y() < y))


class LookUpDatabase(LessonScene):
    """A database returns the value of the one key that matches; attention blends every value by weight.
    The two lookups are drawn as the same table, key → value, side by side: the analogy is in the layout."""

    def construct(self) -> None:
        self.show_title()
        exact, soft = self.database_lookup(), self.soft_lookup()
        VGroup(exact, soft).arrange(RIGHT, buff=1.2, aligned_edge=UP)
        soft[1].align_to(exact[1], UP)  # the two tables level, row by row
        soft[2].next_to(soft[1], DOWN, aligned_edge=LEFT, buff=0.6)
        fit_content(VGroup(exact, soft), width=13.4)
        exact.save_state().set_x(0)  # in the middle while it is the whole picture
        self.narrate("In a database, a query is compared with the keys, and the matching record's value comes back.")
        self.play(FadeIn(exact[0]), FadeIn(exact[1]))
        self.play(Create(exact[2]), FadeIn(exact[3], shift=RIGHT * 0.2))
        self.wait(1.5)
        heading, table, answer = soft
        self.narrate("Attention is a soft lookup: the query matches every key a little, with a weight.")
        self.play(Restore(exact), run_time=0.8)
        self.play(FadeIn(heading), FadeIn(table.keys), FadeIn(table.names[:3]))
        self.play(LaggedStart(*(GrowFromEdge(bar, LEFT) for bar in table.bars), lag_ratio=0.2), FadeIn(table.weights))
        self.narrate(
            "The answer mixes every value by those weights. Each word takes its turn as the query; every word is a key."
        )
        values = (FadeIn(v, shift=RIGHT * 0.2) for v in table.values)
        self.play(FadeIn(table.names[3:]), LaggedStart(*values, lag_ratio=0.2))
        self.play(FadeIn(answer, shift=RIGHT * 0.2))
        self.on_words("its turn as the query", Indicate(table.keys, color=palette.QUERY, scale_factor=1.2))
        self.on_words("every word is a key", Indicate(table.keys, color=palette.KEY, scale_factor=1.2))
        self.wait(1.5)

    def database_lookup(self) -> VGroup:
        """Heading and query, the key → value table, a frame on the one match, and the returned value."""
        heading = caption("Database: exact match", HEADING, font=SERIF)
        query = VGroup(
            caption("query:", LEAD, palette.QUERY, font=SERIF), caption('"Japan"', LEAD, font=SERIF)
        ).arrange(RIGHT)
        names = [caption("key", LABEL, palette.MUTED), VGroup(), caption("value", LABEL, palette.MUTED)]
        records = [
            [caption(k, LEAD, palette.KEY), caption("→", LEAD), caption(v, LEAD, palette.VALUE)]
            for k, v in (("France", "Paris"), ("Japan", "Tokyo"), ("Peru", "Lima"))
        ]
        table = VGroup(*names, *(c for r in records for c in r))
        table.arrange_in_grid(rows=len(records) + 1, cols=3, buff=(0.3, ROW_BUFF), col_alignments="lcl")
        rows = VGroup(*(VGroup(*r) for r in records))
        VGroup(heading, query, table).arrange(DOWN, aligned_edge=LEFT, buff=0.5)
        match = SurroundingRectangle(rows[1], color=palette.HEAT_LOW, buff=0.1)
        rows.add_to_back(VGroup(*names))
        answer = VGroup(
            caption("returns:", LEAD, font=SERIF), caption("Tokyo", LEAD, palette.VALUE, font=SERIF)
        ).arrange(RIGHT)
        answer.next_to(rows, DOWN, aligned_edge=LEFT, buff=0.6)
        return VGroup(VGroup(heading, query), rows, match, answer)

    def soft_lookup(self) -> VGroup:
        """Heading and query token; a table like the database's, one row per key (worked example, head 1): the
        query's weight on it (a bar on the weights' 0–1 scale), the key, its value vector; the blended answer."""
        we = self.values.worked_example
        head, tokens = we.heads[0], we.tokens
        heading = VGroup(
            caption("Attention: soft match", HEADING, font=SERIF),
            VGroup(
                caption("query:", LEAD, palette.QUERY, font=SERIF), TokenLabel(f'"{tokens[0]}"', font_size=LEAD)
            ).arrange(RIGHT),
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.5)
        table = self.weighted_rows(head, tokens).next_to(heading, DOWN, aligned_edge=LEFT, buff=0.5)
        answer = VGroup(
            caption("returns: Σ weight × value", LEAD, font=SERIF),
            caption(f"= {vector_text(head.output[0], 2)}", LEAD),  # an output, white as Z is everywhere
        ).arrange(RIGHT, buff=0.2)
        answer.next_to(table, DOWN, aligned_edge=LEFT, buff=0.6)
        return VGroup(heading, table, answer)

    @staticmethod
    def weighted_rows(head: Head, tokens: list[str]) -> VGroup:
        """weight bar, weight, key → value: one row per key shown (a long sentence's middle rows as ⋮)."""
        shown = shown_indices(len(tokens), MAX_LOOKUP_ROWS)
        names = ("weight", "key", "", "value")
        cells: list = [VGroup(), *(caption(n, LABEL, palette.MUTED) if n else VGroup() for n in names)]
        for j in shown:
            if j is None:
                cells += [VGroup(), caption("⋮", LEAD, palette.MUTED), VGroup(), VGroup(), VGroup()]
                continue
            weight = head.weights[0, j]
            bar = Rectangle(width=max(BAR_UNIT * weight, 0.02), height=0.3, stroke_width=0)
            cells += [
                bar.set_fill(palette.heat(weight), opacity=1),  # the weights' one colour scale
                caption(fmt(weight), LEAD),
                TokenLabel(tokens[j], font_size=LEAD, color=palette.KEY),
                caption("→", LEAD),
                caption(vector_text(head.V[j], 2), LEAD, palette.VALUE),
            ]
        grid = VGroup(*cells).arrange_in_grid(rows=len(shown) + 1, cols=5, buff=(0.3, ROW_BUFF), col_alignments="lrlcl")
        rows = [cells[5 * r : 5 * r + 5] for r in range(1, len(shown) + 1)]
        grid.names = VGroup(*cells[:5])
        grid.bars, grid.weights = VGroup(*(r[0] for r in rows)), VGroup(*(r[1] for r in rows))
        grid.keys = VGroup(*(r[2] for r in rows))
        grid.values = VGroup(*(VGroup(r[3], r[4]) for r in rows))
        return grid


def angle_mark(plane: VectorPlane, start: float, end: float) -> VGroup:
    """The angle θ from the query (at ``start``) to the key (at ``end``): an arc at the origin and its name;
    the name fades out when the angle is too small to hold it."""
    origin, sweep = plane.c2p(0, 0), end - start
    arc = Arc(radius=0.55, start_angle=start, angle=sweep if abs(sweep) > 1e-3 else 1e-3, arc_center=origin)
    arc.set_stroke(palette.HIGHLIGHT, 3)
    middle = start + sweep / 2
    name = formula(r"\theta", size=FORMULA, color=palette.HIGHLIGHT)  # 10 px at 480p
    name.move_to(origin + 0.9 * np.array([np.cos(middle), np.sin(middle), 0]))
    return VGroup(arc, name.set_opacity(min(1.0, abs(sweep) / 0.3)))


def turn_key(
    plane: VectorPlane,
    key: Mobject,
    reading: DecimalNumber,
    demo: Alignment,
    turn: tuple[float, float],
    mark: VGroup,
) -> list[Animation]:
    """The key arrow turns from one angle to the other about the origin (the plane's units are square)
    while ``reading`` shows its dot product with the query.

    Animations, not updaters: a mobject with an updater keeps itself and everything drawn after it
    out of manim's static background, so every frame of the scene would be drawn in full.
    """
    start, end = turn
    return [
        Rotate(key, angle=end - start, about_point=plane.c2p(0, 0)),
        UpdateFromAlphaFunc(reading, lambda m, a: m.set_value(dot_with_turned_key(demo, interpolate(start, end, a)))),
        UpdateFromAlphaFunc(
            mark, lambda m, a: m.become(angle_mark(plane, demo.angle_query, interpolate(start, end, a)))
        ),
    ]


class AlignVectors(LessonScene):
    """Why the dot product: a key turns around a query while their dot product is read live."""

    def construct(self) -> None:
        title = self.show_title()
        example = self.values.worked_example
        demo = example.alignment
        reach = 1.15 * max(demo.norm_query, demo.norm_key)
        plane = VectorPlane((-reach, reach, -reach, reach), width=5.6, height=5.6)
        plane.next_to(title, DOWN, buff=0.3).to_edge(LEFT, buff=1.0)
        query = plane.polar_arrow(demo.norm_query, demo.angle_query, palette.QUERY)
        key = plane.polar_arrow(demo.norm_key, demo.angle_key, palette.KEY)
        names = VGroup(
            self.vector_name("query of", example.tokens[demo.query_token], demo.query, palette.QUERY),
            self.vector_name("key of", example.tokens[demo.key_token], demo.key, palette.KEY),
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.25)

        product = formula(r"q \cdot k =", size=READOUT, tex_to_color_map={"q": palette.QUERY, "k": palette.KEY})
        reading = number(demo.dot, 2, size=TITLE)
        readout = VGroup(product, reading).arrange(RIGHT, buff=0.2)
        panel = VGroup(names, readout).arrange(DOWN, aligned_edge=LEFT, buff=0.6)
        panel.next_to(plane, RIGHT, buff=0.8).align_to(plane, UP).shift(0.4 * DOWN)
        reading.next_to(product, RIGHT, buff=0.2)

        self.narrate("A score is the dot product of a query and a key: here, two short vectors.")
        self.play(Create(plane), FadeIn(names))
        self.play(GrowArrow(query), GrowArrow(key), FadeIn(readout))
        theta = angle_mark(plane, demo.angle_query, demo.angle_key)  # the angle the cosine below is of
        self.play(Create(theta[0]), FadeIn(theta[1]))
        self.wait(1.5)

        verdict, key_angle = VGroup(), demo.angle_key
        own, turned = names[1], caption("the same key, turned", LEAD, palette.KEY, font=SERIF)
        turned.move_to(own, aligned_edge=LEFT)  # turned, it is no longer the key of that word: its numbers change
        renamed = [give_way(own, FadeIn(turned))]  # one after the other: never text printed on text
        for turn, label, said in (
            (0.0, "aligned: strong match", "Turn the key along the query: the largest score, a strong match."),
            (
                PI / 2,
                "orthogonal: zero",
                "At a right angle the score is zero: neither a match nor a mismatch.",
            ),
            (PI, "opposite: strong mismatch", "Pointing away, the score is most negative: a strong mismatch."),
        ):
            new = caption(label, PROMINENT, palette.HEAT_LOW, font=SERIF).next_to(
                readout, DOWN, aligned_edge=LEFT, buff=0.5
            )
            self.narrate(said)
            target = demo.angle_query + turn
            self.play(
                *turn_key(plane, key, reading, demo, (key_angle, target), theta),
                FadeOut(verdict),
                *renamed,
                run_time=1.5,
            )
            key_angle, renamed = target, []
            self.play(FadeIn(new), run_time=0.4)  # the verdict as soon as the key stands still, while it is said
            verdict = new
            self.wait(1.2)

        rule = formula(
            r"q \cdot k = |q|\,|k| \cos\theta", size=READOUT, tex_to_color_map={"q": palette.QUERY, "k": palette.KEY}
        )
        rule.next_to(verdict, DOWN, aligned_edge=LEFT, buff=0.6)
        self.narrate("The score measures how parallel the query is to the key, times how long both are.")
        back = give_way(turned, FadeIn(own.copy()))  # back where it was: the word's own key again
        self.play(
            *turn_key(plane, key, reading, demo, (key_angle, demo.angle_key), theta), FadeOut(verdict), back, run_time=2
        )
        self.play(Write(rule))
        self.wait(2.5)

    @staticmethod
    def vector_name(role: str, token: str, vector: np.ndarray, color) -> VGroup:
        """'query of "I" = [1.20, 0.60]': the role in its colour, the token in the token font, the numbers."""
        numbers = caption(f"= [{', '.join(fmt(v) for v in vector)}]", BODY, color, font=SERIF)
        return VGroup(
            caption(role, LEAD, color, font=SERIF), TokenLabel(f'"{token}"', font_size=28, color=color), numbers
        ).arrange(RIGHT)
