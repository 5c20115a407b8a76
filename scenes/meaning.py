"""The meaning map (the slide deck's closing visuals): a static word between two clusters, moved by
attention toward the meaning its sentence gives it."""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    AnimationGroup,
    Create,
    DashedLine,
    FadeIn,
    FadeOut,
    GrowArrow,
    Indicate,
    LaggedStart,
    Line,
    Mobject,
    Transform,
    VGroup,
    Write,
)

from attention_math.claims import map_move
from attention_math.model_types import SemanticShift, ShiftCase
from scenes.kit import (
    CAPTION,
    DISPLAY,
    FORMULA,
    LABEL,
    LEAD,
    LabelledMatrix,
    LessonScene,
    TokenRow,
    caption,
    formula,
    number,
    palette,
)
from scenes.kit.layout import GAP, SUBTITLE_TOP, caption_band
from scenes.kit.meaning_map import MeaningMap, cluster_color
from scenes.kit.motion import give_way
from scenes.kit.numbers import fmt
from scenes.kit.pull_chain import PullChain

TIE = 0.05  # distances within 5 % of each other count as "about as far"


def pulling(case: ShiftCase) -> list[int]:
    """The places of the sentence's other words: each pulls the focus word (its own pull is zero)."""
    return [j for j in range(len(case.tokens)) if j != case.focus]


def meaning_map(ss: SemanticShift, width: float, height: float) -> MeaningMap:
    """The map of the ``semantic_shift`` section."""
    return MeaningMap(ss.words, ss.cluster_words, ss.centroids, width=width, height=height)


def standing(word: str, distances: dict[str, float]) -> tuple[str, str]:
    """Where ``word`` stands: a sentence about its nearest clusters, and the colour to write it in."""
    nearest, second = sorted(distances, key=distances.get)[:2]
    if distances[second] - distances[nearest] <= TIE * distances[second]:
        return f"“{word}” is about as far from {nearest} as from {second}: undecided", palette.TEXT
    return f"“{word}” is closer to {nearest}", cluster_color(nearest)


class MapStaticEmbeddings(LessonScene):
    """Static embeddings: the fruit and tech clusters, and "apple" between them at equal-ish distances."""

    def construct(self) -> None:
        ss = self.values.semantic_shift
        case = ss.cases[0]
        word = case.word
        title = self.show_title()
        meaning = meaning_map(ss, width=11.5, height=5.4).next_to(title, DOWN, buff=0.25)
        self.narrate("Picture meanings as places on a made-up map: words that mean similar things sit close together.")
        self.play(Create(meaning.plane), run_time=1)
        clusters = (
            AnimationGroup(FadeIn(region), LaggedStart(*map(FadeIn, meaning.cluster_marks[name]), lag_ratio=0.2))
            for name, region in meaning.regions.items()
        )
        self.on_words("words that mean", LaggedStart(*clusters, lag_ratio=0.7), run_time=2.5)  # as they are named
        self.narrate("Each cluster has a centre, the ring: the average position of its words.")
        rings = (Indicate(r.centre, color=palette.HIGHLIGHT, scale_factor=2.5) for r in meaning.regions.values())
        self.on_words("the ring", *rings, run_time=1.5)  # the small ring, not the cluster's disc
        words = (Indicate(m, scale_factor=1.3) for marks in meaning.cluster_marks.values() for m in marks)
        self.on_words("its words", *words, run_time=1.2)  # the words it is the average of
        below = np.asarray(case.before) + [0.0, 1.0]  # its label below (or below and aside): the lines go up
        mark = meaning.mark(word, palette.TEXT, at=case.before, away_from=below)
        self.narrate(f"Before attention, '{word}' has one fixed vector, the same in every sentence.")
        self.play(FadeIn(mark, scale=1.5))
        lines = meaning.distance_lines(case.before, case.distance_before)
        self.narrate(f"Measure how far '{word}' is from each centre.")
        self.play(LaggedStart(*(Create(line[0]) for line in lines), lag_ratio=0.3))
        self.play(*(FadeIn(line[1]) for line in lines))
        text, color = standing(word, case.distance_before)
        verdict = caption_band(caption(text, LEAD, color))
        self.narrate(f"{text}. It holds all its meanings at once.")
        self.play(Write(verdict))
        self.finish_narration()
        self.wait(1.5)


class ShiftMeaning(LessonScene):
    """Each sentence pulls the word along its computed path toward the cluster its context means."""

    def construct(self) -> None:
        ss = self.values.semantic_shift
        word = ss.cases[0].word
        title = self.show_title(f"The shift: {word} moves")
        # the map fills the left of the content area below the sentences' rows (tokens and weights)
        top = min(VGroup(*self.sentence(case, title, ss.head)).get_bottom()[1] for case in ss.cases) - 0.3
        meaning = meaning_map(ss, width=8.3, height=5.0)
        meaning.scale(min(1.0, (top - SUBTITLE_TOP - GAP) / meaning.height))
        meaning.next_to(top * UP, DOWN, buff=0).to_edge(LEFT, buff=0.3)
        self.add(meaning)
        left = meaning.get_right()[0] + 0.4  # the room right of the map: the pulls, then the distances
        self.room = (left, top, 7.1 - 0.3, SUBTITLE_TOP + GAP)
        times = min(self.chain(meaning, case).times for case in ss.cases)  # every sentence's pulls on one scale
        mark = meaning.mark(word, palette.TEXT, at=ss.cases[0].before)
        self.narrate(f"Now let attention move '{word}'. Its sentence decides where it goes.")
        self.play(FadeIn(mark, scale=1.5))
        for n, case in enumerate(ss.cases):
            shown, trail = self.show_case(meaning, mark, case, title, first=n == 0, head=ss.head, times=times)
            if n + 1 < len(ss.cases):
                self.reset(meaning, mark, case, shown, trail, n + 1)

    def reset(self, meaning: MeaningMap, mark, case: ShiftCase, shown: VGroup, trail: VGroup, n: int) -> None:
        """Clear the sentence; the word returns to its static place, where it went stays in grey."""
        self.narrate(f"Same static '{case.word}', another sentence. Where the last one took it stays, in grey.")
        self.play(
            FadeOut(shown),
            trail.animate.set_stroke(palette.MUTED, opacity=0.6),
            Transform(mark, meaning.moved(case.word, case.before, away=-np.append(case.pulls.sum(axis=0), 0))),
        )  # its label on the side away from where the last sentence took it: off the grey trail
        ghost = meaning.mark(f"after sentence {n}", palette.MUTED, at=case.after, away_from=case.before)
        self.play(FadeIn(ghost))  # placed once the word has left: its label keeps off the word's

    def show_case(
        self, meaning: MeaningMap, mark, case: ShiftCase, title, first: bool, head: int, times: float
    ) -> tuple[VGroup, VGroup]:
        """One sentence: its weights, the pulls magnified beside the map, the walk, the distances; returns what
        goes when the next sentence comes, and the walk's trail (which stays).
        The first sentence explains each step; the next ones go through the same steps in fewer words."""
        sentence, weights, whose = self.sentence(case, title, head)
        word = case.word
        where, rows = f"In '{case.sentence}', ", self.made_up(case)
        inputs = self.new_rows(case)  # drawn while they are named: the head's input can be checked
        if rows:  # where the head's input comes from, before its weights are read
            self.narrate(where + rows)
            self.play(FadeIn(sentence), FadeIn(inputs))
            where = ""
        weighs = f"'{word}' attends to every word, itself included: head {head}'s weights."
        said = where + (weighs if first else f"head {head} gives these weights.")
        self.narrate(said[0].upper() + said[1:])
        if not rows:
            self.play(FadeIn(sentence))
        self.play(FadeIn(whose), LaggedStart(*(FadeIn(w, shift=DOWN * 0.1) for w in weights), lag_ratio=0.15))
        context = self.context(meaning, case)
        chain = self.chain(meaning, case, times)
        if first:
            self.narrate(
                "Each word pulls it toward its place, by its weight: here a word's place plays its value vector."
            )
        else:  # the same steps again, said in brief while they are drawn
            self.narrate(f"Again each word pulls '{word}' by its weight, and the pulls, added, are its walk.")
        ways = self.ways(meaning, case)  # faint: the whole way to each word, of which its pull is a share
        clear = meaning.moved(word, case.before, away=-np.append(case.pulls.sum(axis=0), 0))  # label off the pulls
        self.play(
            LaggedStart(*map(FadeIn, context), lag_ratio=0.1),
            FadeIn(ways),
            Transform(mark, clear),
            FadeIn(chain.heading),
            FadeIn(chain.start),
            *([FadeOut(inputs)] if rows else []),  # the pulls take their place
        )
        for j, arrow, label in zip(pulling(case), chain.arrows, chain.labels, strict=True):  # one at a time, lit
            token = case.tokens[j]
            lit = [Indicate(meaning.marks[token], color=palette.HIGHLIGHT)] if token in meaning.marks else []
            self.play(GrowArrow(arrow), FadeIn(label), *lit, Indicate(weights[j], color=palette.HIGHLIGHT))
        if first:
            self.narrate(f"Its own weight pulls nowhere: '{word}' is already at its own place.")
            own = caption(f"{fmt(case.weights[case.focus])}: no pull", LABEL).next_to(chain.start, RIGHT, buff=0.25)
            chain.add(own)  # its own weight, written where the walk starts: it leaves with the chain
            self.play(Indicate(weights[case.focus], color=palette.HIGHLIGHT), FadeIn(own, shift=LEFT * 0.1))
        trail = self.walk(meaning, mark, case, first, chain)
        sums = VGroup()  # why the pulls (the word's own one is none) land on the weighted sum of the places
        if first:
            self.narrate(
                "The weights add up to 1, so the start plus the pulls is exactly the weighted sum of the places."
            )
            sums = self.weighted_sum(case)
            self.on_words("exactly", give_way(chain, Write(sums)), run_time=1.5)
            self.narrate("How far is it from each centre now?")
        table = self.distance_table(meaning, case)
        leaving = sums if first else chain
        self.play(give_way(leaving, FadeIn(table.get_frame()), FadeIn(table.get_row(0))))
        self.play(FadeIn(table.get_row(1)))
        verdict = self.verdict(case).next_to(table, DOWN, buff=0.5)
        self.play(Write(verdict))
        names = list(meaning.regions)
        nearest, *others = sorted(case.distance_after, key=case.distance_after.__getitem__)
        said = [(nearest, f"from the {nearest} centre"), *((n, f"from {n}") for n in others[:1])]
        for name, words in said:  # each distance lit as the voice reads it
            if words in self.saying[0]:
                cell = table.get_entry(1, names.index(name))
                self.on_words(words, Indicate(cell, color=cluster_color(name)))
        self.finish_narration()
        self.wait(1.5)
        for token in context.words:
            meaning.forget(token)
        return VGroup(sentence, weights, whose, context, ways, table, verdict), trail

    def weighted_sum(self, case: ShiftCase) -> VGroup:
        """start + Σ αⱼ(pⱼ − start) = Σ αⱼ pⱼ (the weights add up to 1), in the room right of the map."""
        identity = formula(r"p + \sum_j \alpha_j\,(p_j - p) = \sum_j \alpha_j\, p_j", size=FORMULA)
        note = caption(f"p: where '{case.word}' starts,  pⱼ: each word's place", CAPTION, palette.MUTED)
        because = formula(r"\text{as } \sum_j \alpha_j = 1", size=FORMULA)
        shown = VGroup(identity, because, note).arrange(DOWN, buff=0.25)
        left, top, right, bottom = self.room
        shown.scale(min(1.0, (right - left) / shown.width))
        return shown.move_to([(left + right) / 2, (top + bottom) / 2, 0])

    def new_words(self, case: ShiftCase) -> list[int]:
        """The places in the sentence of its words that the worked example's X has no row for (each word once)."""
        known = set(self.values.worked_example.tokens)
        return [j for j, t in enumerate(case.tokens) if t not in known and t not in case.tokens[:j]]

    def new_rows(self, case: ShiftCase) -> VGroup:
        """Those words' made-up rows, at the top of the room right of the map (empty if there are none)."""
        picked = self.new_words(case)
        if not picked:
            return VGroup()
        rows = LabelledMatrix(  # at most four columns: a wide model's rows keep a legible size
            case.rows[picked], row_labels=[case.tokens[j] for j in picked], font_size=30, max_cols=4
        )
        heading = caption("their made-up rows, as X's", CAPTION, palette.MUTED).next_to(rows, UP, buff=0.25)
        shown = VGroup(heading, rows)
        left, top, right, bottom = self.room
        shown.scale(min(1.0, (right - left) / shown.width, (top - bottom) / shown.height))
        return shown.move_to([(left + right) / 2, top - 0.3 - shown.height / 2, 0])

    def made_up(self, case: ShiftCase) -> str:
        """Where the words of a sentence that the worked example's X has no row for get theirs: said before the
        head's weights over them are read."""
        new = [f"'{case.tokens[j]}'" for j in self.new_words(case)]
        if not new:
            return ""
        listed = new[0] if len(new) == 1 else ", ".join(new[:-1]) + " and " + new[-1]
        rows = "gets a made-up row" if len(new) == 1 else "get made-up rows"
        return f"{listed} {rows} of numbers, as X's words did."

    def sentence(self, case: ShiftCase, title, head: int) -> tuple[TokenRow, VGroup, Mobject]:
        """The tokens under the title (the focus word lit: violet is the tech cluster), each one's weight under it,
        named as the head's where the row leaves room on its left."""
        row = TokenRow(case.tokens, font_size=32, spacing=0.45).next_to(title, DOWN, buff=0.3)
        row.get_token(case.focus).set_color(palette.HIGHLIGHT)
        weights = VGroup(
            *(
                number(w, 2, size=LABEL).next_to(token, DOWN, buff=0.15)
                for w, token in zip(case.weights, row, strict=True)
            )
        )
        top = min(token.get_bottom()[1] for token in row) - 0.15  # one line, whatever the words' descenders
        for w in weights:
            w.shift((top - w.get_top()[1]) * UP)
        name = caption(f"head {head}’s weights:", LABEL, palette.MUTED).next_to(weights, LEFT, buff=0.5)
        return row, weights, name if name.get_left()[0] >= -7.1 + 0.3 else VGroup()

    def context(self, meaning: MeaningMap, case: ShiftCase) -> VGroup:
        """Marks for the sentence's words not yet on the map."""
        group = VGroup()
        group.words = []
        for token in case.tokens:
            if token != case.word and token not in meaning.marks:
                arrival = meaning.arrival(case.word, case.after)  # where the word's walk ends: its label goes there
                group.add(meaning.mark(token, palette.MUTED, away_from=case.before, keep_off=[arrival]))
                group.words.append(token)
        return group

    @staticmethod
    def ways(meaning: MeaningMap, case: ShiftCase) -> VGroup:
        """A faint dashed line from the word to each other word of its sentence."""
        start = meaning.point(case.before)
        others = (case.tokens[j] for j in pulling(case))
        return VGroup(
            *(DashedLine(start, meaning.point(meaning.words[t]), color=palette.MUTED, stroke_width=1.5) for t in others)
        ).set_opacity(0.5)

    def chain(self, meaning: MeaningMap, case: ShiftCase, times: float | None = None) -> PullChain:
        """The other words' pulls, tip to tail and magnified (``times``, or as large as fits), right of the map."""
        others = pulling(case)
        tokens = [case.tokens[j] for j in others]
        colours = [meaning.marks[t].dot.get_color() if t in meaning.marks else palette.MUTED for t in tokens]
        unit = float(np.linalg.norm(meaning.point([1, 0]) - meaning.point([0, 0])))
        left, top, right, bottom = self.room
        room = (right - left, top - bottom)
        chain = PullChain(case.word, tokens, case.weights[others], case.pulls[others], colours, unit, *room, times)
        return chain.move_to([(left + right) / 2, (top + bottom) / 2, 0])

    def walk(self, meaning: MeaningMap, mark, case: ShiftCase, first: bool, chain: PullChain) -> VGroup:
        """The word moves along its path of partial sums, one pull at a time (lit in the chain), leaving a trail;
        the chain's sum, its move, is drawn last."""
        word = case.word
        if first:
            self.narrate(f"Adding the pulls one by one, '{word}' walks to its new, contextual position.")
        trail = VGroup()
        others = pulling(case)  # the path's steps they add (the focus word's own step is zero)
        steps = zip(case.path[others], case.path[[j + 1 for j in others]], chain.arrows, strict=True)
        for start, end, arrow in steps:
            step = Line(meaning.point(start), meaning.point(end), color=palette.HEAT_LOW, stroke_width=3)
            trail.add(step)
            self.play(
                Create(step),
                Transform(mark, meaning.moved(word, end, away=np.append(end - start, 0), avoid=trail)),  # off it
                Indicate(arrow, color=arrow.get_color()),
                run_time=0.9,
            )
        self.play(GrowArrow(chain.move))
        return trail

    def distance_table(self, meaning: MeaningMap, case: ShiftCase) -> LabelledMatrix:
        """Distances to each centre, before and after (rows), one column per cluster."""
        names = list(meaning.regions)
        values = np.array([[case.distance_before[n] for n in names], [case.distance_after[n] for n in names]])
        table = LabelledMatrix(values, row_labels=["before", "after"], col_labels=names, font_size=30, places=2)
        for label, name in zip(table.get_column_labels(), names, strict=True):
            label.set_color(cluster_color(name))
        heading = caption("distance to each centre", CAPTION, palette.MUTED).next_to(table, UP, buff=0.25)
        table.name.add(heading)
        left, top, right, bottom = self.room
        return table.move_to([(left + right) / 2, top - 0.3 - table.height / 2, 0])

    def verdict(self, case: ShiftCase) -> VGroup:
        """Which cluster the word moved toward, read from the distances."""
        after = case.distance_after
        nearest = min(after, key=after.__getitem__)
        claim = map_move(case.word, case.distance_before, after)
        self.narrate(claim.text)
        return VGroup(
            caption(f"“{case.word}” {'moved toward' if claim.holds else 'is now nearest to'}", LEAD),
            caption(nearest, DISPLAY, cluster_color(nearest)),
        ).arrange(DOWN, buff=0.15)
