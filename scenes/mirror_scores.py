"""The cat sat's scores with W_Q = W_K: a mirror, why it matters, and the weights that do not mirror."""

from __future__ import annotations

from manim import (
    DOWN,
    RIGHT,
    UP,
    Create,
    FadeIn,
    Indicate,
    Mobject,
    Rectangle,
    TransformFromCopy,
    VGroup,
    Write,
)

from attention_math.claims import mirrored
from scenes.first_example import number_text, weights_grid
from scenes.kit import (
    FORMULA_LARGE,
    LEAD,
    LabelledMatrix,
    LessonScene,
    caption,
    formula,
    palette,
)
from scenes.kit.layout import (
    below_title,
    caption_band,
)
from scenes.kit.motion import give_way


def _frame(mob, color) -> Rectangle:
    return Rectangle(width=mob.width + 0.15, height=mob.height + 0.12, color=color).move_to(mob)


class MirrorScores(LessonScene):
    """ "The cat sat" with W_Q = W_K: QKᵀ equals its transpose, so a pair scores the same both ways; its weights
    need not (the worked example's dot products show a mirror broken by W_Q ≠ W_K)."""

    def construct(self) -> None:
        cs = self.values.cat_sat
        tokens, first, last = cs.tokens, 0, len(cs.tokens) - 1
        self.show_title()
        grid = LabelledMatrix(cs.scores, row_labels=tokens, col_labels=tokens, name=r"QK^{T}", font_size=36)
        alphas = weights_grid(cs, cell=1.0)  # on the weights' 0–1 colours, as cat-sat showed them
        rule = formula(r"W_{Q} = W_{K} \;\Rightarrow\; q_i \cdot k_j = q_j \cdot k_i", size=FORMULA_LARGE)
        if not cs.same_query_key:
            rule = formula(r"W_{Q} \neq W_{K}", size=FORMULA_LARGE)
        below_title(rule)
        verdict = caption_band(
            caption("symmetric: QKᵀ equals its transpose" if cs.scores_symmetric else "not symmetric here", LEAD)
        )
        pair = VGroup(grid.copy(), alphas).arrange(RIGHT, buff=1.6)
        room = rule.get_bottom()[1] - 0.3 - (verdict.get_top()[1] + 0.3)
        pair.scale(min(12.5 / pair.width, room / pair.height)).next_to(rule, DOWN, buff=0.3).set_x(0)
        grid.match_height(pair[0]).move_to(pair).match_y(pair[0])  # alone: in the middle, as large as beside α
        claim = mirrored(tokens, cs.scores, cs.weights)
        same = "same matrix for" if cs.same_query_key else "different matrices for"
        self.narrate(f"Look again at the scores of '{' '.join(tokens)}', made with the {same} W_Q and W_K.")
        self.play(FadeIn(grid), Write(rule))
        a, b = grid.get_entry(first, last), grid.get_entry(last, first)
        couple = f"'{tokens[first]}' to '{tokens[last]}' and '{tokens[last]}' to '{tokens[first]}'"
        if cs.scores_symmetric:
            self.narrate(f"The scores mirror: {couple} score the same, {number_text(cs.scores[0, -1])}.")
        else:
            self.narrate("Here the scores do not mirror.")
        frames = VGroup(_frame(a, palette.HIGHLIGHT), _frame(b, palette.HIGHLIGHT))
        self.play(*map(Create, frames), FadeIn(verdict, shift=UP * 0.1))  # one pair, one colour
        self.narrate(claim.text)
        if claim.about:  # the weights beside the scores, the same pair framed: they differ, as said
            i, j = claim.about
            moved = VGroup(*(_frame(alphas.get_row(r)[c], palette.HIGHLIGHT) for r, c in ((i, j), (j, i))))
            shift = pair[0].get_center() - grid.get_center()
            why = caption_band(caption("α = softmax(QKᵀ ÷ √dₖ): softmax normalises each row on its own", LEAD))
            self.on_words("the weights", VGroup(grid, frames).animate.shift(shift), FadeIn(alphas), run_time=1.2)
            self.play(TransformFromCopy(frames, moved))
            self.on_words(
                "Each row",
                give_way(verdict, FadeIn(why)),
                Indicate(alphas.get_row_digits(i), color=palette.HIGHLIGHT),  # not the cells: on top, they hid it
            )
            verdict = why  # on screen in its place
        if cs.same_query_key and cs.scores_symmetric:
            verdict = self.why_it_matters(tokens[first], tokens[last], verdict, frames)
        broken = caption_band(
            caption("learned W<sub>Q</sub> ≠ W<sub>K</sub>: qᵢ·kⱼ may differ from qⱼ·kᵢ", LEAD, markup=True)
        )  # the case to come
        self.narrate(
            "Different, learned matrices for queries and keys break this mirror, as the worked example will show: "
            "one reason for three matrices."
        )
        self.on_words("break this mirror", give_way(verdict, FadeIn(broken)))
        self.wait(1.5)

    def why_it_matters(self, a: str, b: str, verdict: Mobject, frames: VGroup) -> Mobject:
        """One matrix makes a word's query its key: a pair's attraction is the same both ways, as language is not.
        Returns the caption left on screen."""
        same = caption_band(caption("one matrix: what a word looks for is what it offers", LEAD))
        pair = caption_band(caption(f"{a} → {b} scores as {b} → {a}", LEAD, palette.HIGHLIGHT))
        self.narrate(
            "Why does the mirror matter? With one matrix, each word's query is its own key: "
            "what it looks for is what it offers."
        )
        self.play(give_way(verdict, FadeIn(same)))
        self.narrate(
            f"So '{a}' scores '{b}' as '{b}' scores '{a}', though in a sentence what one word needs from another "
            "is rarely what the other needs back."
        )
        self.play(give_way(same, FadeIn(pair)))
        self.on_words("though in a sentence", Indicate(frames, color=palette.HIGHLIGHT))  # the pair, the same both ways
        return pair
