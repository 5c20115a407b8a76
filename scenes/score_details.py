"""Details of the scores: softmax sees only the gaps between scores (so ÷√d_k sets how sharp the weights are);
large scores make its gradient vanish, not explode; a dot product is not a cosine. The mirrored scores of
W_Q = W_K are ``mirror_scores.py``."""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    ORIGIN,
    RIGHT,
    UP,
    Arc,
    Arrow,
    Create,
    DashedLine,
    Dot,
    FadeIn,
    FadeOut,
    Indicate,
    Line,
    Rectangle,
    Succession,
    Text,
    Transform,
    VGroup,
    Write,
)

from attention_math.types import Alignment, SaturationDemo
from scenes.first_example import number_text
from scenes.kit import (
    BODY,
    DISPLAY_LARGE,
    FORMULA,
    LABEL,
    LEAD,
    PROMINENT,
    LessonScene,
    caption,
    formula,
    notation,
    palette,
)
from scenes.kit.base import speaking_time
from scenes.kit.charts import baseline
from scenes.kit.layout import (
    fit_content,
    fit_width,
)
from scenes.kit.numbers import fmt, fmt_int, vector_text
from scenes.kit.vectors import VectorPlane

SCORE_BAR = 1.8  # height of the largest score's bar
WEIGHT_BAR = 1.8  # height of a weight of 1


def bars(values, unit: float, colour) -> VGroup:
    """One bar per value, ``unit`` high per point, on a baseline at y = 0: up when positive, down when negative."""
    group, values = VGroup(), np.asarray(values, dtype=float)
    pitch = min(0.8, 2.4 / len(values))  # the chart no wider than its column
    for j, v in enumerate(values):
        bar = Rectangle(width=0.7 * pitch, height=max(abs(v) * unit, 1e-3), stroke_width=0)
        group.add(bar.set_fill(colour(v), opacity=0.9).move_to([pitch * j, 0, 0], aligned_edge=DOWN if v >= 0 else UP))
    group.shift(group.get_x() * LEFT)  # centred on x = 0
    return VGroup(baseline(group.width + 0.2).move_to(ORIGIN), *group)


class ReadGaps(LessonScene):
    """Softmax of the notes' scores equals softmax of their gaps below the top; ÷√d_k shrinks the gaps."""

    def construct(self) -> None:
        sd = self.values.scaling_demo
        self.show_title()
        unit = SCORE_BAR / float(np.abs(sd.raw).max())  # both rows on one scale: the scaled gaps are visibly smaller
        depth = unit * float(-sd.raw_shifted.min())
        raw = self.row("raw scores", sd.raw, sd.raw_shifted, sd.softmax_raw, unit, depth)
        scaled = self.row(
            f"÷ √dₖ = ÷ √{fmt_int(sd.d_k)} = ÷ {number_text(sd.sqrt_d_k)}",
            sd.scaled,
            sd.scaled_shifted,
            sd.softmax_scaled,
            unit,
            depth,
        )
        scaled.shift((raw.get_bottom()[1] - 0.5 - scaled.get_top()[1]) * UP)  # below, its columns under the first row's
        heads = VGroup(
            caption("scores", BODY, palette.MUTED),
            caption("minus the top score", BODY, palette.MUTED),
            caption("softmax", BODY, palette.MUTED),
        )
        for head, cell in zip(heads, raw[1:], strict=True):  # on one line, above the tallest chart
            head.move_to([cell.get_x(), max(c.get_top()[1] for c in raw[1:]) + 0.3, 0])
        source = caption(  # not the worked example: the scaling example's own query and keys
            f"the scaling example: one query, {fmt_int(len(sd.raw))} keys of {fmt_int(sd.d_k)} numbers",
            LABEL,
            palette.MUTED,
        ).next_to(heads, UP, buff=0.35)
        figure = VGroup(source, heads, raw, scaled)
        rule = self.two_keys_rule() if len(sd.raw) == 2 else VGroup()
        if len(rule):  # right of the weights it gives, between the rows: not read as the first row's name
            charts = VGroup(*raw[1:], *scaled[1:])
            figure.add(rule.next_to(charts, RIGHT, buff=0.7).match_y(charts))
            rule.add(  # the rule worked for each row, under its name
                self.worked(raw, sd.raw_shifted, sd.softmax_raw),
                self.worked(scaled, sd.scaled_shifted, sd.softmax_scaled),
            )
        fit_content(figure, width=13.0)
        self.narrate(f"Take the scores {vector_text(sd.raw)}. Softmax only sees how far each sits below the top.")
        self.play(FadeIn(source), FadeIn(heads[0]), FadeIn(raw[:2]))  # the scores, the top one's level dashed
        self.narrate(
            f"Subtract the top score: {vector_text(sd.raw_shifted)} gives the same weights as "
            f"{vector_text(sd.raw)}, {vector_text(sd.softmax_raw)}."
        )
        same = (
            formula(  # where the scaled row comes next: the two vectors' softmax, one and the same
                rf"\mathrm{{softmax}}({vector_text(sd.raw)}) = \mathrm{{softmax}}({vector_text(sd.raw_shifted)}) = "
                rf"{vector_text(sd.softmax_raw, 2)}",
                size=FORMULA,
            )
            .move_to(scaled[1:])
            .set_x(VGroup(*raw[1:]).get_x())
        )
        self.play(FadeIn(heads[1]), FadeIn(raw[2]))
        self.on_words("gives the same weights", FadeIn(heads[2]), FadeIn(raw[3]), FadeIn(same))
        self.narrate(f"Divide by √d_k: every gap is divided by {number_text(sd.sqrt_d_k)}, and the weights soften.")
        self.play(FadeOut(same), FadeIn(scaled))
        if len(rule):
            self.narrate("With two keys the top weight is one over one plus e to the minus gap: only the gap counts.")
            self.play(FadeIn(rule))
        self.narrate("So dividing by √d_k sets how sharp the weights are: smaller gaps, softer softmax.")
        self.play(Indicate(scaled[0], color=palette.HIGHLIGHT, scale_factor=1.05))  # "dividing by √d_k"
        gaps = [VGroup(*row[1][-2:]) for row in (raw, scaled)]  # each row's gap and its name
        self.on_words("smaller gaps", *(Indicate(g, color=palette.HIGHLIGHT) for g in gaps))
        softer = [row[3] for row in (raw, scaled)] + list(rule[-2:])  # the weights, and the rule's worked lines
        self.on_words("softer softmax", *(Indicate(m, color=palette.HIGHLIGHT, scale_factor=1.1) for m in softer))
        self.finish_narration()
        self.wait(1.5)

    @staticmethod
    def row(name: str, scores, gaps, weights, unit: float, depth: float) -> VGroup:
        """name, scores, the scores minus the top one, the softmax weights: one line of the table, each vector
        drawn as bars over its numbers; scores and gaps ``unit`` high per point, their baseline ``depth`` above
        the numbers (room for the deepest gap), weights on the fixed 0–1 scale in their heatmap colours."""
        shade = 1 / max(unit * SCORE_BAR, 1e-9)  # the diverging colour's full strength at the tallest score bar
        cells = [
            (vector_text(scores), palette.TEXT, bars(scores, unit, lambda v: palette.diverging(v * unit * shade))),
            (vector_text(gaps), palette.TEXT, bars(gaps, unit, lambda v: palette.diverging(v * unit * shade))),
            (vector_text(weights, 2), palette.HIGHLIGHT, bars(weights, WEIGHT_BAR, palette.heat)),
        ]
        row = VGroup(caption(name, BODY).move_to(LEFT * 4.6))  # room above it for the two-key rule
        for i, (text, colour, chart) in enumerate(cells, start=1):
            numbers = formula(text, size=FORMULA, color=colour).move_to(RIGHT * (-3.9 + 3.1 * i))
            chart.shift(numbers.get_center() * RIGHT + (numbers.get_top()[1] + depth + 0.25) * UP)
            row.add(VGroup(numbers, chart))
        chart = row[1][1]  # the scores' bars, after the chart's zero line
        top, low = chart[1 + int(np.argmax(scores))], chart[1 + int(np.argmin(scores))]
        half = (row[1][1].width + 0.3) / 2
        row[1].add(DashedLine(LEFT * half, RIGHT * half, color=palette.MUTED, dash_length=0.06))
        row[1][-1].move_to([row[1][1].get_x(), top.get_top()[1], 0])  # the top score's level
        x = chart.get_right()[0] + 0.12  # the largest gap, from that level down to the lowest score
        below = palette.diverging(-1.0)  # a gap's colour: the negative end of the scores' scale
        gap = Line([x, top.get_top()[1], 0], [x, low.get_top()[1], 0], color=below, stroke_width=6)
        row[1].add(gap, caption("gap", BODY, below).next_to(gap, RIGHT, buff=0.08))
        return row

    @staticmethod
    def two_keys_rule() -> VGroup:
        """With two keys the top weight is 1 / (1 + e^−gap)."""
        return VGroup(
            caption("two keys:", BODY),
            caption("the top weight is", BODY),
            notation(formula(r"\frac{1}{1 + e^{-\mathrm{gap}}}", size=DISPLAY_LARGE)),  # its exponent legible
        ).arrange(DOWN, buff=0.2)

    @staticmethod
    def worked(row: VGroup, gaps: np.ndarray, weights: np.ndarray) -> Text:
        """Under a row's name, what the two-key rule gives for its gap: the top weight of its softmax."""
        said = caption(f"gap {number_text(-gaps.min())} → top weight {fmt(weights.max())}", LABEL)
        return said.next_to(row[0], DOWN, buff=0.2)


class CorrectGradientClaim(LessonScene):
    """Large scores make softmax's gradient vanish, not explode: the sources' "exploding" claim, corrected."""

    def construct(self) -> None:
        demo = self.values.saturation_demo
        self.show_title()
        claim = caption("often read: scaling prevents “exploding” gradients", LEAD, palette.MUTED)
        rows = self.gradient_bars(demo)
        verdict = caption("large scores make the gradient vanish, not explode", PROMINENT, palette.TEXT)
        fit_width(verdict, 12)
        given = caption(f"the scores we just made larger: {vector_text(demo.scores, 2)}", LABEL, palette.MUTED)
        meaning = caption(
            "gradient size: how much the weights move when the scores move a little", LABEL, palette.MUTED
        )
        figure = VGroup(claim, VGroup(given, rows, meaning).arrange(DOWN, buff=0.35), verdict).arrange(DOWN, buff=0.5)
        fit_content(figure, width=13.0)  # clear of the edges
        self.narrate("You may read that the scaling prevents exploding gradients. Check it against the numbers.")
        self.play(FadeIn(claim), FadeIn(given), *(FadeIn(row[0]) for row in rows))  # the check's rows, from the start
        said = self.narrate("As the same scores grow, the size of softmax's gradient shrinks toward zero.")
        self.play(FadeIn(meaning), run_time=0.6)
        for row in rows:  # one play a row: a row already in is not drawn again in every frame of the others
            self.play(FadeIn(row[1:], shift=RIGHT * 0.2), run_time=speaking_time(said) / len(rows))
        self.narrate("So the danger is vanishing gradients, not exploding ones: dividing by √d_k keeps them alive.")
        struck = Line(claim.get_left(), claim.get_right(), color=palette.ALERT, stroke_width=4)  # the claim, corrected
        self.play(Write(verdict), Create(struck))
        self.wait(1.5)

    @staticmethod
    def gradient_bars(demo: SaturationDemo) -> VGroup:
        """One row per scale: the scaled scores' name, a bar as long as softmax's gradient, its size."""
        longest = float(max(demo.gradient_norm))
        rows = []
        for scale, norm in zip(demo.scales, demo.gradient_norm, strict=True):
            name = formula(rf"\text{{scores}} \times {fmt(scale, 0)}", size=FORMULA)
            bar = Rectangle(width=max(7.0 * norm / longest, 0.02), height=0.6, stroke_width=0)
            bar.set_fill(palette.TEXT, opacity=0.8)
            size = caption(f"gradient size {fmt(norm, 4)}", LEAD)
            rows.append(VGroup(name, bar, size))
        for n, row in enumerate(rows):  # names right-aligned, bars starting on one line
            row[0].move_to(1.0 * n * DOWN, aligned_edge=RIGHT)
            row[1].next_to(row[0], RIGHT, buff=0.4).align_to(ORIGIN + 0.4 * RIGHT, LEFT)
            row[2].next_to(row[1], RIGHT, buff=0.3)
        return VGroup(*rows)


class SeparateCosine(LessonScene):
    """The score is the dot product, not the cosine: cos(angle) times both lengths, for the dot-product demo's pair,
    drawn as two arrows in the plane they span; then the key stretched: the cosine stays, the dot product grows."""

    def construct(self) -> None:
        we = self.values.worked_example
        al, tokens = we.alignment, we.tokens
        self.show_title()
        picture = self.picture(al)
        plane, key, key_name = picture[0], picture[2], picture[5][1]
        pair = caption(f"q of “{tokens[al.query_token]}”, k of “{tokens[al.key_token]}” (head 1)", BODY, palette.MUTED)
        lines = VGroup(
            formula(rf"\cos\theta = {fmt(al.cosine, 3)}", size=FORMULA),  # 3 places: the product below checks
            formula(rf"|q| = {fmt(al.norm_query)}, \quad |k| = {fmt(al.norm_key)}", size=FORMULA),
            formula(r"q \cdot k = |q|\,|k| \cos\theta", size=FORMULA),
            formula(
                rf"= {fmt(al.norm_query)} \cdot {fmt(al.norm_key)} \cdot {fmt(al.cosine, 3)} \approx {fmt(al.dot)}",
                size=FORMULA,
            ),
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.35)
        stretched = VGroup(
            caption(f"k × {fmt_int(al.stretch)}: same angle, cos θ = {fmt(al.cosine, 3)}", BODY, palette.HIGHLIGHT),
            formula(
                rf"|k| = {fmt(al.stretched_norm_key)}, \quad q \cdot k \approx {fmt(al.stretched_dot)}",
                size=FORMULA,
                color=palette.HIGHLIGHT,
            ),
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.2)
        why = VGroup(
            caption("a cosine stays in [−1, 1], in any dimension;", BODY, palette.MUTED),
            caption("a dot product keeps the lengths:", BODY),
            caption("random entries: variance like dₖ, size like √dₖ: ÷√dₖ", BODY),
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.12)
        panel = VGroup(notation(pair), lines, stretched, notation(why)).arrange(DOWN, aligned_edge=LEFT, buff=0.45)
        fit_content(VGroup(picture, panel).arrange(RIGHT, buff=0.9), width=13.0)  # clear of the frame's edges
        longer = plane.polar_arrow(al.stretched_norm_key, al.angle_key, palette.KEY)
        self.narrate(
            "You may read that the score is a cosine similarity. The cosine only measures the angle.",
            FadeIn(picture),
            FadeIn(pair),
            Write(lines[0]),
        )
        self.narrate(
            "The score is the dot product: the cosine times the lengths of the query and the key.",
            Succession(Write(lines[1]), Write(lines[2]), Write(lines[3])),
        )
        self.narrate(
            f"Make the key {fmt_int(al.stretch)} times as long: the angle and the cosine stay, "
            f"the dot product grows to {fmt(al.stretched_dot)}."
        )
        ghost = self.ghost(key, picture[1])
        self.play(FadeIn(ghost), run_time=0.6)  # the key's old length, under the stretched one
        self.bring_to_front(key, key_name)
        self.on_words(
            "times as long",
            Transform(key, longer),
            key_name.animate.next_to(longer.get_end(), UP + RIGHT, buff=0.1),
            FadeIn(stretched[0]),
            run_time=1.5,
        )
        self.on_words("the dot product grows", Write(stretched[1]))
        self.narrate("A cosine stays between minus one and one; a dot product keeps the lengths.")
        self.play(FadeIn(why[0]))
        self.on_words("a dot product keeps", FadeIn(why[1]))  # each reason as it is said
        self.narrate(  # variance, as the scaling chapter measured it: d_k; the size, its square root
            "For random entries its variance grows like d_k, its size like √d_k: hence the division by √d_k."
        )
        self.play(FadeIn(why[2]))
        self.on_words("hence", Indicate(why[2], color=palette.HIGHLIGHT, scale_factor=1.05))  # the lesson's ÷√d_k
        self.finish_narration()
        self.wait(1.5)

    @staticmethod
    def ghost(key: Arrow, query: Arrow) -> VGroup:
        """The key's length before: a faint band along its line, under the key, and a dot at its old tip, named
        across the line from the query (a second arrow, set off the line, read as another vector)."""
        start, end = key.get_start(), key.get_end()
        band = Line(start, end, color=palette.KEY, stroke_width=16, stroke_opacity=0.35)
        tip = Dot(end, radius=0.07, color=palette.KEY)
        name = caption("k before", LABEL, palette.KEY)
        along = (end - start) / np.linalg.norm(end - start)
        across = np.array([-along[1], along[0], 0])
        if np.dot(across, query.get_end() - query.get_start()) > 0:  # the side away from the query
            across = -across
        reach = abs(across[0]) * name.width / 2 + abs(across[1]) * name.height / 2  # its half-extent across the line
        return VGroup(band, tip, name.move_to(end + across * (0.15 + reach)))

    @staticmethod
    def picture(al: Alignment) -> VGroup:
        """q and k as arrows from the origin of their plane, the angle between them marked θ."""
        reach = np.array([al.plane_query, al.plane_key * al.stretch])  # room for the key stretched
        plane = VectorPlane.fitting(reach, width=6.5, height=6.5)
        query = plane.polar_arrow(al.norm_query, al.angle_query, palette.QUERY)
        key = plane.polar_arrow(al.norm_key, al.angle_key, palette.KEY)
        start, turn = sorted((al.angle_query, al.angle_key))[0], abs(al.angle_key - al.angle_query)
        arc = Arc(radius=0.9, start_angle=start, angle=turn, arc_center=plane.c2p(0, 0), color=palette.HIGHLIGHT)
        middle = start + turn / 2
        theta = formula(r"\theta", size=FORMULA, color=palette.HIGHLIGHT)
        theta.move_to(plane.c2p(0, 0) + 1.3 * np.array([np.cos(middle), np.sin(middle), 0]))
        names = VGroup(
            formula("q", size=FORMULA, color=palette.QUERY).next_to(query.get_end(), UP + RIGHT, buff=0.1),
            formula("k", size=FORMULA, color=palette.KEY).next_to(key.get_end(), UP + RIGHT, buff=0.1),
        )
        return VGroup(plane, query, key, arc, theta, names)
