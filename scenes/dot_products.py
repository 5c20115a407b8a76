"""The worked example, step 3: each score a dot product, the query against every key drawn to scale, then
the grid QKᵀ.

Every number comes from ``attention_math`` (section ``worked_example``); the scene lays itself out for 2 to
12 tokens, d_model up to 8 and 1 to 4 heads. Steps 4 and 5 are in ``worked_scores.py``.
"""

from __future__ import annotations

from collections.abc import Collection
from html import escape

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    AnimationGroup,
    Arc,
    Create,
    DecimalNumber,
    Dot,
    FadeIn,
    FadeOut,
    GrowArrow,
    LaggedStart,
    Line,
    MathTex,
    ReplacementTransform,
    VGroup,
)

from attention_math.claims import broken_mirror, largest_score
from attention_math.types import Head
from scenes.kit import (
    BODY,
    DISPLAY,
    LABEL,
    LEAD,
    READOUT,
    LessonScene,
    TokenLabel,
    TokenRow,
    VectorPlane,
    caption,
    formula,
    palette,
)
from scenes.kit.base import READ_HOLD
from scenes.kit.clearance import beside_clear_of
from scenes.kit.layout import GAP, MAX_ROWS, SUBTITLE_TOP, TOP, below_title, fit_width, grow_within, token_matrix
from scenes.kit.meaning_map import place_label
from scenes.kit.numbers import fmt

MAX_PAIRS = 4  # query-key pairs spelled out one by one before the whole grid
NOTE_BUFF = 0.15  # between the plane and the note above it
ENTRY_GAP = 1.0  # between the score grid and the rule for one of its cells
CHIPS_BUFF = 0.3  # between the plane and the scores worked out below it
NAMED_KEYS = 6  # up to this many tokens every key is named; beyond, the two the narration compares


def products(head: Head, i: int, j: int, token: str) -> VGroup:
    """Score (i, j) in columns: a heading (q, k: token), one line q_m × k_m = product per number, then their sum,
    every number as attention_math computed it."""
    colours = (palette.QUERY, palette.MUTED, palette.KEY, palette.MUTED, palette.TEXT)
    factors = zip(head.Q[i], head.K[j], head.score_terms[i, j], strict=True)
    lines = [
        VGroup(*(caption(c, LEAD, colour) for c, colour in zip(row, colours, strict=True)))
        for row in ([fmt(a), "×", fmt(b), "=", fmt(term)] for a, b, term in factors)
    ]
    VGroup(*(cell for line in lines for cell in line)).arrange_in_grid(
        rows=len(lines), cols=5, buff=(0.25, 0.18), col_alignments="rcrcr"
    )
    total = caption(fmt(head.scores[i, j]), LEAD).next_to(lines[-1][4], DOWN, buff=0.4).align_to(lines[-1][4], RIGHT)
    word = caption("sum", LEAD, palette.MUTED).next_to(total, LEFT, buff=0.25)
    half = (total.width + 0.2) / 2
    rule = Line(LEFT * half, RIGHT * half, color=palette.MUTED, stroke_width=2)
    rule.move_to(total).set_y((total.get_top()[1] + lines[-1].get_bottom()[1]) / 2)
    heading = VGroup(caption("q", LEAD, palette.QUERY), TokenRow([f"k: {token}"], font_size=26, color=palette.KEY))
    heading[0].next_to(lines[0][0], UP, buff=0.25).align_to(lines[0][0], RIGHT)
    heading[1].next_to(lines[0][2], UP, buff=0.25).align_to(lines[0][2], LEFT)
    return VGroup(heading, *lines, VGroup(rule, word, total))


KEY_DIM = 0.6  # a key not being read: dimmer than the one that is, still 3.7:1 against the background


class AlignDotProducts(LessonScene):
    """Step 5: q·k as alignment, each key named at its tip, then the QKᵀ score grid cell by cell."""

    def construct(self) -> None:
        we = self.values.worked_example
        head, tokens = we.heads[0], we.tokens
        best, closest = int(np.argmax(head.scores[0])), int(np.argmin(np.abs(head.qk_angles[0])))
        self.show_title()
        note = caption("each key drawn at its true\nangle to the query, to scale", LABEL, palette.MUTED)
        worked = {j: self.score_chip(head, tokens, j) for j in sorted({*range(min(len(tokens), MAX_PAIRS)), best})}
        chips = VGroup(*worked.values()).arrange(RIGHT, buff=0.6)  # the scores so far, along the frame's foot
        fit_width(chips, 12.0).to_edge(LEFT, buff=0.6)
        chips.shift((SUBTITLE_TOP + GAP - chips.get_bottom()[1]) * UP)
        # the note above, the scores worked out below: the plane's room between them
        side = TOP - chips.get_top()[1] - note.height - NOTE_BUFF - CHIPS_BUFF
        extent = self.extent(head)
        wide = min(6.2, side * (extent[1] - extent[0]) / (extent[3] - extent[2]))
        plane = VectorPlane(extent, width=wide, height=side).to_edge(LEFT, buff=0.6)
        plane.set_opacity(0)  # turned so the query lies flat: only angles and lengths are true, not coordinates
        plane.set_y((TOP - note.height - NOTE_BUFF + chips.get_top()[1] + CHIPS_BUFF) / 2)  # centred in its room
        fit_width(note, plane.width).next_to(plane, UP, buff=NOTE_BUFF).align_to(plane, LEFT)
        query = plane.polar_arrow(head.query_norms[0], 0.0, palette.QUERY)
        keys = VGroup(
            *(
                plane.polar_arrow(head.key_norms[j], head.qk_angles[0, j], palette.KEY).set_opacity(KEY_DIM)
                for j in range(len(tokens))
            )
        )
        q_name = TokenRow([f"q: {tokens[0]}"], font_size=28, color=palette.QUERY)
        sides = (DOWN + LEFT, UP + LEFT, LEFT, DOWN, UP, DOWN + RIGHT, UP + RIGHT)  # the keys' tips crowd the right
        beside_clear_of(q_name, query.get_start(), keys, sides, buffs=(0.1, 0.3, 0.6))
        self.narrate(f"A score asks: how well does the query of '{tokens[0]}' line up with each key?")
        self.add(plane)  # invisible: it only places the arrows
        self.play(FadeIn(note), GrowArrow(query), FadeIn(q_name))
        named = range(len(tokens)) if len(tokens) <= NAMED_KEYS else {best, closest}
        names = self.key_names(keys, tokens, named, [query, q_name])
        grow = [AnimationGroup(GrowArrow(k), FadeIn(n)) for k, n in zip(keys, names, strict=True)]
        self.play(LaggedStart(*grow, lag_ratio=0.15))
        readout = self.readout(head, best).next_to(plane, RIGHT, buff=0.8).align_to(plane, UP)
        self.narrate("Key by key, each score is the sum of the products of the query's and the key's numbers.")
        readout[1].set_opacity(0)  # no score before its working
        self.play(FadeIn(readout[0]), run_time=0.4)
        for n, (j, chip) in enumerate(worked.items()):
            if n == 1:  # the next keys the same way: said, so the working is not watched in silence
                rest = [f"'{tokens[k]}'" for k in list(worked)[1:]]
                listed = rest[0] if len(rest) == 1 else f"{', '.join(rest[:-1])} and {rest[-1]}"
                self.narrate(f"The same for {listed}: multiply number by number, then add.")
            self.show_pair(keys, names, readout, head, j, tokens, chip)
        # which is largest, and why, once every score it compares is on screen
        claim = largest_score(tokens, head.scores[0], head.qk_angles[0])
        self.narrate(claim.text)
        readout[1].set_value(head.scores[0, best])
        whose = TokenLabel(f"k: {tokens[best]}", font_size=BODY, color=palette.KEY)  # the score read is this key's
        whose.next_to(readout, RIGHT, buff=0.4).align_to(readout[1], DOWN)
        self.play(
            readout[1].animate.set_opacity(1),
            FadeIn(whose),
            keys[best].animate.set_opacity(1),
            names[best].animate.set_opacity(1),
        )
        factors = self.factors(head, tokens, best, closest)
        fit_width(factors, 6.7 - readout.get_left()[0]).next_to(readout, DOWN, buff=0.4).align_to(readout, LEFT)
        said = {best, closest} if "points closer" in claim.text else {best}  # the keys the sentence names, lit
        closer = [m.animate.set_opacity(1) for j in said - {best} for m in (keys[j], names[j])]
        arcs = self.angle_arcs(plane, head, best, closest)  # the angles the lines below multiply by, drawn there
        lines = [AnimationGroup(FadeIn(row), *([Create(arcs[n - 1])] if n else [])) for n, row in enumerate(factors)]
        self.play(LaggedStart(*lines, lag_ratio=1.0), *closer, run_time=3.0)  # line by line
        self.finish_narration()
        self.wait(READ_HOLD)
        self.play(FadeOut(factors), FadeOut(arcs))
        self.fill_scores(head, tokens, VGroup(plane, note, query, q_name, keys, names, readout, whose), worked)

    @staticmethod
    def entry_rule() -> MathTex:
        """(QKᵀ)ᵢⱼ = qᵢ · kⱼ: row i's query against column j's key, in their roles' colours."""
        return formula(
            r"(QK^{T})_{ij}",
            "=",
            "q_i",
            r"\cdot",
            "k_j",
            size=DISPLAY,
            tex_to_color_map={"q_i": palette.QUERY, "k_j": palette.KEY},
        )

    @staticmethod
    def key_names(keys: VGroup, tokens: list[str], named: Collection[int], taken: list) -> VGroup:
        """The ``named`` keys' words at their tips, clear of the query and of each other (dim, as the keys are);
        an empty group for the others."""
        names = VGroup()
        for j, (arrow, token) in enumerate(zip(keys, tokens, strict=True)):
            if j not in named:
                names.add(VGroup())
                continue
            name = TokenLabel(token, font_size=22, color=palette.KEY)
            tip = Dot(arrow.get_end(), radius=0.04)
            place_label(name, tip, taken, away=arrow.get_end() - arrow.get_start())
            taken.append(name)
            names.add(name.set_opacity(KEY_DIM))
        return names

    @staticmethod
    def extent(head: Head) -> tuple[float, float, float, float]:
        """The origin, the query (along x) and every key's tip, with room for their names (the query's on the left)."""
        angles = head.qk_angles[0]
        tips = np.vstack(
            [[head.query_norms[0], 0.0], np.c_[head.key_norms * np.cos(angles), head.key_norms * np.sin(angles)]]
        )
        low, high = np.minimum(tips.min(axis=0), 0.0), np.maximum(tips.max(axis=0), 0.0)
        margin = 0.25 * max(high - low)
        return (low[0] - 2 * margin, high[0] + margin, low[1] - margin, high[1] + margin)

    @staticmethod
    def angle_arcs(plane: VectorPlane, head: Head, best: int, closest: int) -> VGroup:
        """An arc from the query to each key of :meth:`factors`, in the colour of its angle there; the smaller
        angle's arc further out, where it is long enough to see."""
        origin = plane.c2p(0, 0)
        reach = min(
            np.linalg.norm(plane.c2p(head.query_norms[0], 0) - origin),
            *(np.linalg.norm(plane.c2p(head.key_norms[j], 0) - origin) for j in (best, closest)),
        )
        arcs = VGroup()
        for j in dict.fromkeys((best, closest)):
            radius = reach * (0.8 if j == closest and j != best else 0.45)
            angle = head.qk_angles[0, j] if abs(head.qk_angles[0, j]) > 1e-3 else 1e-3
            arcs.add(Arc(radius=radius, start_angle=0, angle=angle, arc_center=origin).set_stroke(palette.HIGHLIGHT, 4))
        return arcs

    @staticmethod
    def factors(head: Head, tokens: list[str], best: int, closest: int) -> VGroup:
        """The score as length times length times cos(angle), for the winning key and the key closest in angle."""
        q, k, h = palette.QUERY.to_hex(), palette.KEY.to_hex(), palette.HIGHLIGHT.to_hex()  # h: the arcs' angles
        rows = [
            caption(  # each length in its role's colour; the angle to a tenth: it checks by hand
                f"<span fgcolor='{k}'>{escape(tokens[j])}</span>:  "
                f"<span fgcolor='{q}'>|q| {fmt(head.query_norms[0])}</span>"
                f" × <span fgcolor='{k}'>|k| {fmt(head.key_norms[j])}</span>"
                f" × cos <span fgcolor='{h}'>{fmt(head.qk_degrees[0, j], 1)}°</span> = {fmt(head.scores[0, j])}",
                LEAD,
                markup=True,
            )
            for j in dict.fromkeys((best, closest))
        ]
        return VGroup(caption("score = length × length × cos(angle)", LEAD), *rows).arrange(
            DOWN, aligned_edge=LEFT, buff=0.2
        )

    def readout(self, head: Head, j: int) -> VGroup:
        """ "q·k = " with the score of key ``j`` as a DecimalNumber."""
        lhs = formula(r"q \cdot k =", size=READOUT)
        value = DecimalNumber(head.scores[0, j], num_decimal_places=2, font_size=48)
        return VGroup(lhs, value.next_to(lhs, RIGHT, buff=0.2))

    @staticmethod
    def score_chip(head: Head, tokens: list[str], j: int) -> VGroup:
        """Key ``j``'s word and its score with the first query, kept once worked out: row 1 of the grid to come."""
        return VGroup(
            TokenLabel(tokens[j], font_size=LABEL, color=palette.KEY), caption(fmt(head.scores[0, j]), BODY)
        ).arrange(DOWN, buff=0.1)

    def show_pair(
        self, keys: VGroup, names: VGroup, readout: VGroup, head: Head, j: int, tokens: list[str], chip: VGroup
    ) -> None:
        """Light key ``j`` and write its score out: the query's and the key's numbers, multiplied row by row; the
        score stays, in ``chip``."""
        table = products(head, 0, j, tokens[j])
        fit_width(table, 6.7 - readout.get_left()[0]).next_to(readout, DOWN, buff=0.35).align_to(readout, LEFT)
        # unseen until its products are: the working comes before the answer, and no sum beside other products
        readout[1].set_value(head.scores[0, j]).set_opacity(0)
        lit = [keys[j].animate.set_opacity(1), names[j].animate.set_opacity(1)]
        first = j == 0  # the first pair row by row, slowly enough to follow; the others whole
        self.play(*lit, FadeIn(table[0]), run_time=0.6)
        rows = [FadeIn(row, shift=RIGHT * 0.1) for row in table[1:]]
        self.play(LaggedStart(*rows, lag_ratio=0.6 if first else 0.1), run_time=2.4 if first else 0.5)
        self.play(readout[1].animate.set_opacity(1), run_time=0.3)
        self.wait(1.0 if first else 0.5)
        dim = [keys[j].animate.set_opacity(KEY_DIM), names[j].animate.set_opacity(KEY_DIM)]
        self.play(*dim, FadeOut(table), FadeIn(chip, shift=DOWN * 0.1), run_time=0.4)

    def fill_scores(self, head: Head, tokens: list[str], old: VGroup, worked: dict[int, VGroup]) -> None:
        """The QKᵀ grid: row 1 from the scores just worked out, each moving into its cell, then the other rows."""
        self.narrate("Every query meets every key: the scores fill the grid QKᵀ, one row per query.")
        grid = token_matrix(head.scores, tokens, r"QK^{T}", col_labels=tokens, max_cols=MAX_ROWS)
        room = TOP - (SUBTITLE_TOP + GAP)
        grow_within(grid, 12, room)  # as large as the content area allows; a long sentence's grid only narrower
        if grid.height <= room:
            below_title(grid).set_x(0)
        else:
            grid.move_to(DOWN * 0.3)
        entry = self.entry_rule()  # what one cell holds, right of the grid where it leaves room
        if grid.width + ENTRY_GAP + entry.width <= 12.8:
            grid.shift(LEFT * (ENTRY_GAP + entry.width) / 2)
            entry.next_to(grid, RIGHT, buff=ENTRY_GAP).set_y(grid.cells.get_y())
        else:
            entry = VGroup()
        shown = {j: chip for j, chip in worked.items() if grid.is_shown(0, j)}
        moved = [ReplacementTransform(chip[1], grid.get_entry(0, j)) for j, chip in shown.items()]
        rest = [FadeIn(grid.get_entry(0, j)) for j in grid.shown_cols if j is not None and j not in worked]
        gone = [FadeOut(chip[0]) for chip in worked.values()]
        gone += [FadeOut(chip[1]) for j, chip in worked.items() if j not in shown]
        # the picture and the chips' words go; then the grid comes round the scores worked out as they move up into
        # row 1: they are that row, never left floating, and no text of the grid prints over text fading out
        self.play(FadeOut(old), *gone, run_time=0.6)
        self.play(FadeIn(grid.get_frame()), LaggedStart(*moved, lag_ratio=0.2), *rest, run_time=1.0)
        for i in (i for i in grid.shown_rows if i not in (None, 0)):
            self.play(LaggedStart(*(FadeIn(c) for c in grid.get_row(i)), lag_ratio=0.15), run_time=0.5)
        self.narrate("Rows are queries, columns are keys: each row scores one query against every key.")
        # the labels take their roles' colours, and keep them: rows are queries, columns keys
        self.play(grid.get_row_labels().animate.set_color(palette.QUERY), FadeIn(entry[:3]), run_time=1.2)
        self.play(grid.get_column_labels().animate.set_color(palette.KEY), FadeIn(entry[3:]), run_time=1.2)
        mirror = broken_mirror(tokens, head.scores)  # W_Q ≠ W_K: the pair that mirrors least, framed both ways
        self.narrate(mirror.text)
        if mirror.about and all(grid.is_shown(*p) for p in (mirror.about, mirror.about[::-1])):
            i, j = mirror.about
            marks = (grid.entry_frame(i, j), grid.entry_frame(j, i))
            self.on_words("scores", *map(Create, marks))
        self.wait(1)
