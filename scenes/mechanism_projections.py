"""Chapter "Queries, keys and values", part 2: why three matrices (where attention came from: ``rnn_origin.py``).

Part 1 (the formula, its analogies, why the dot product) is ``mechanism_formula.py``; the shapes attention moves,
``shapes.py``.
"""

from __future__ import annotations

from manim import (
    DOWN,
    RIGHT,
    UP,
    AnimationGroup,
    Create,
    FadeIn,
    GrowArrow,
    LaggedStart,
    SurroundingRectangle,
    VGroup,
    Write,
)

from scenes.kit import (
    BODY,
    DISPLAY,
    FORMULA,
    HERO,
    LEAD,
    SERIF,
    LessonScene,
    TokenLabel,
    caption,
    formula,
    notation,
    palette,
)
from scenes.kit.diagrams import Card, LabelBox, connect
from scenes.kit.layout import CAPTION_TOP, GAP, caption_band
from scenes.kit.motion import give_way


class SeparateRoles(LessonScene):
    """Why three matrices: one vector per word would make "I" look for "I"; projections give it three roles."""

    def construct(self) -> None:
        title = self.show_title()
        problem = VGroup(
            caption("Without projections, a word asks and answers with one vector.", LEAD, font=SERIF),
            formula(r"x_i \cdot x_j = x_j \cdot x_i", size=DISPLAY),
            caption(
                "Every score is mirrored, and the layer has no parameters of its own to learn.", LEAD, palette.MUTED
            ),
            caption("What a word looks for is what it offers.", LEAD, palette.MUTED),
        ).arrange(DOWN, buff=0.25)
        problem.next_to(title, DOWN, buff=0.3)
        mirror = notation(self.score_grid()).next_to(problem, DOWN, buff=0.4)
        self.narrate(  # a recall of the RNN chapter's last step, in one sentence: the new point comes next
            "Recall: with one vector per word, a word asks and answers with the same numbers, "
            "so a pair scores the same both ways."
        )
        self.play(FadeIn(problem[0]), FadeIn(mirror.cells))  # the opening: the problem and its grid of scores
        self.play(Write(problem[1]), FadeIn(problem[2]))
        pair = VGroup(*(SurroundingRectangle(mirror.cells[k], color=palette.HIGHLIGHT) for k in (1, 3)))
        self.on_words("a pair", *map(Create, pair))  # one pair, mirrored across the diagonal
        self.narrate(
            "And what a word looks for could never differ from what it offers to the others.", FadeIn(problem[3])
        )

        word = TokenLabel('"I"', font_size=44)
        matrices = VGroup(
            *(LabelBox(formula(name, size=FORMULA), color=color) for name, color in self.projections())
        ).arrange(DOWN, buff=0.6)
        cards = VGroup(
            Card("Query", ["I am a subject", "looking for a verb."], palette.QUERY, width=4.6, font_size=20),
            Card("Key", ["I am a pronoun", "representing the speaker."], palette.KEY, width=4.6, font_size=20),
            Card(
                "Value",
                ["What I pass on", "to the words that attend to me."],
                palette.VALUE,
                width=4.6,
                font_size=20,
            ),
        ).arrange(DOWN, buff=0.15)
        figure = VGroup(word, matrices, cards).arrange(RIGHT, buff=1.1).next_to(title, DOWN, buff=0.25)
        if (overlap := CAPTION_TOP + GAP - figure.get_bottom()[1]) > 0:  # clear of the takeaway's caption band
            figure.scale((figure.height - overlap) / figure.height, about_edge=UP)
        for box, card in zip(matrices, cards, strict=True):
            box.match_y(card)
        arrows = VGroup(
            *(connect(word, box) for box in matrices), *(connect(m, c) for m, c in zip(matrices, cards, strict=True))
        )

        self.narrate("So we project each word into three roles, with three learned matrices.")
        self.play(give_way(VGroup(problem, mirror, pair), FadeIn(word)), run_time=1.0)
        self.on_words(  # the matrices while the sentence heads for them: in place by "three learned matrices"
            "into three roles",
            LaggedStart(*(AnimationGroup(GrowArrow(arrows[i]), FadeIn(matrices[i])) for i in range(3)), lag_ratio=0.4),
            run_time=1.2,
        )
        for i, said in enumerate(
            (
                'As a query, "I" is a subject looking for a verb.',
                'As a key, "I" is a pronoun that stands for the speaker.',
                'As a value, "I" is what it passes on to the words that attend to it.',
            )
        ):
            self.narrate(said)
            self.play(GrowArrow(arrows[3 + i]), FadeIn(cards[i], shift=RIGHT * 0.2))

        takeaway = caption("The three projections are learned: they decide how words relate.", BODY, font=SERIF)
        caption_band(takeaway)
        self.narrate("These learned matrices separate a word's identity from what it needs and what it offers.")
        self.play(FadeIn(takeaway))
        self.wait(2.5)

    @staticmethod
    def score_grid() -> VGroup:
        """The scores of three words scored with their own vectors, x_i · x_j; the diagonal (a word with itself)
        dimmed, so the pairs either side of it read as mirror images."""
        cells = VGroup(
            *(
                formula(rf"x_{i} \cdot x_{j}", size=HERO, color=palette.MUTED if i == j else palette.TEXT)
                for i in range(1, 4)
                for j in range(1, 4)
            )
        ).arrange_in_grid(rows=3, cols=3, buff=(1.1, 0.4))
        grid = VGroup(cells)
        grid.cells = cells
        return grid

    @staticmethod
    def projections() -> tuple[tuple[str, object], ...]:
        """The three projection matrices' names and role colours."""
        return (("W_{Q}", palette.QUERY), ("W_{K}", palette.KEY), ("W_{V}", palette.VALUE))
