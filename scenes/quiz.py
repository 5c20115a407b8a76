"""The lesson's last scene: five questions, each with time to think, then its answer beside a picture of it."""

from __future__ import annotations

from collections.abc import Callable

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    AnimationGroup,
    Brace,
    FadeIn,
    FadeOut,
    Line,
    ReplacementTransform,
    Square,
    VGroup,
    linear,
)

from attention_math.claims import SATURATED
from attention_math.types import SaturationDemo
from scenes.kit import (
    BODY,
    CAPTION,
    LABEL,
    READOUT,
    SERIF,
    LessonScene,
    SoftmaxBars,
    caption,
    formula,
    notation,
    palette,
)
from scenes.kit.base import READ_HOLD, speaking_time
from scenes.kit.charts import cell_grid
from scenes.kit.diagrams import LabelBox, all_pairs, connect
from scenes.kit.layout import GAP, MIDDLE, SUBTITLE_TOP, TOP
from scenes.kit.motion import give_way
from scenes.kit.numbers import fmt_int

#: The five questions of the Q&A notes: question, answer (Pango markup), spoken answer.
QUIZ = [
    (
        "What is the difference between\nself-attention and cross-attention?",
        "Self-attention takes <span fgcolor='{q}'>Q</span>, <span fgcolor='{k}'>K</span> and "
        "<span fgcolor='{v}'>V</span>\nfrom the same sequence.\nCross-attention takes <span fgcolor='{q}'>Q</span> "
        "from one\n(the decoder), <span fgcolor='{k}'>K</span> and <span fgcolor='{v}'>V</span> "
        "from\nanother (the encoder).",
        "Self-attention: Q, K and V from one sequence. Cross-attention: queries from the decoder, "
        "keys and values from the encoder.",
    ),
    (
        "How does multi-head attention\nrelate to self-attention?",
        "It runs several self-attentions in parallel,\neach with its own learned projections,\n"
        "so each head can learn its own relation;\ntheir outputs are joined, then mixed by W<sub>O</sub>.",
        "Multi-head attention runs several self-attentions in parallel, each learning its own kind of relation.",
    ),
    (
        "What is the computational complexity\nof self-attention?",
        "<span fgcolor='{heat}'>O(n²·d<sub>model</sub>)</span> for the scores, n the length:\n"
        "QKᵀ compares all n × n pairs in every head,\n"
        "each a dot product dₖ long (h · dₖ = d<sub>model</sub>).\n"
        "Projections add O(n·d<sub>model</sub>²):\nthe n² term wins for long inputs.",
        "Order n squared times d model for the scores, every pair of tokens compared in every head; "
        "the projections add order n times d model squared.",
    ),
    (
        "Why do we divide the dot products by √dₖ?",
        "Dot products grow with dₖ: softmax\nsaturates and its gradients vanish.\n"
        "Dividing by √dₖ keeps their variance\nnear one: training keeps learning.",
        "Large dot products saturate softmax and kill its gradients; dividing by √d_k keeps them in range.",
    ),
    (
        "What is the main purpose of self-attention?",
        "To let each token gather context\nfrom every token, itself included,\nwherever it is in the sequence.",
        "To let every token gather context from every token, wherever it sits in the sequence.",
    ),
]

QUESTION = 40  # a quiz question: the clip's one line to read
ANSWER = 30  # its answer, a few lines
PICTURE_GAP = 0.6  # between the answer and its picture, and the question above it
MAX_GROWTH = 1.25  # a picture's labels grow no larger than the answer's text
ASKED_GROWTH = 1.5  # a question, while it is asked, at most this much larger than beside its answer


class QuizAttention(LessonScene):
    """Five questions; each answer appears after a pause to think, its picture beside it."""

    THINK_SECONDS = 4.5  # of silence once the question has been said, the timer running out

    def construct(self) -> None:
        self.show_title()
        pictures = answer_pictures(self.values.saturation_demo)
        shown = VGroup()
        for i, (question, answer, said) in enumerate(QUIZ):
            shown = self.ask(i, question, answer, said, pictures[i](), shown)

    def ask(self, index: int, question: str, answer: str, said: str, picture: VGroup, leaving: VGroup) -> VGroup:
        """Show the question (as ``leaving``, the last answer, goes), let a timer bar run out, then reveal the answer
        and its picture (left on screen)."""
        count = notation(caption(f"Question {index + 1} of {len(QUIZ)}", CAPTION, palette.MUTED, font=SERIF))
        asked = caption(question, QUESTION, font=SERIF, line_spacing=1.1)
        card = VGroup(count, asked).arrange(DOWN, buff=0.3, aligned_edge=LEFT)
        # while it is asked, the question alone fills the frame; it steps up to the corner for its answer
        asking = card.copy()
        asking.scale(min(ASKED_GROWTH, 12.5 / asking.width)).move_to([0, MIDDLE + 1.0, 0])
        timer = Line(LEFT, RIGHT, color=palette.HEAT_LOW, stroke_width=8).scale_to_fit_width(max(6.0, asking.width))
        think = caption("time to think", CAPTION, palette.MUTED, font=SERIF).next_to(timer, DOWN, aligned_edge=RIGHT)
        clock = VGroup(timer, think).move_to([0, SUBTITLE_TOP + GAP + 1.2, 0])  # a countdown across the frame's foot
        colours = {
            "q": palette.QUERY.to_hex(),
            "k": palette.KEY.to_hex(),
            "v": palette.VALUE.to_hex(),
            "heat": palette.HIGHLIGHT.to_hex(),  # the answer's key term (red would read as wrong)
        }
        lines = answer.format(**colours).split("\n")
        reply = VGroup(*(caption(line, ANSWER, font=SERIF, markup=True) for line in lines))
        reply.arrange(DOWN, aligned_edge=LEFT, buff=0.12)  # a raised ² makes its line taller
        reply.next_to(card, DOWN, buff=1.0, aligned_edge=LEFT)  # where the clock stood
        whole = VGroup(card, reply)  # one left edge for every question: the answers never jump sideways
        whole.move_to(UP * MIDDLE).to_edge(LEFT, buff=0.6)
        whole.shift(UP * max(0.0, SUBTITLE_TOP + GAP - whole.get_bottom()[1]))
        whole.shift(DOWN * max(0.0, whole.get_top()[1] - TOP))
        place_beside(picture, reply, card)
        self.narrate(question.replace("\n", " ") + " Pause and think.")
        arriving = (FadeIn(asking, shift=0.2 * DOWN), FadeIn(clock))
        self.play(give_way(leaving, *arriving) if len(leaving) else AnimationGroup(*arriving), run_time=1.0)
        self.finish_narration()
        self.play(timer.animate.scale(0.001, about_edge=LEFT), run_time=self.THINK_SECONDS, rate_func=linear)
        speaking = speaking_time(self.narrate(said))
        self.play(FadeOut(clock), ReplacementTransform(asking, card), run_time=0.8)
        self.play(FadeIn(reply[0], shift=0.2 * UP), FadeIn(picture), run_time=0.6)
        between = max(0.0, speaking - 1.4) / len(reply) - 0.5
        for line in reply[1:]:  # the answer line by line while it is said
            self.wait(max(0.1, between))
            self.play(FadeIn(line, shift=0.1 * UP), run_time=0.5)
        self.finish_narration()
        self.wait(READ_HOLD)  # time to compare the answer with one's own before the next question
        return VGroup(card, reply, picture)


def place_beside(picture: VGroup, reply: VGroup, question: VGroup) -> None:
    """``picture`` right of ``reply``, below ``question``, as large as that room allows (its text no larger than
    the answer's), its middle level with the answer's where the room lets it."""
    width = 7.1 - 0.5 - (reply.get_right()[0] + PICTURE_GAP)  # well clear of the frame's right edge
    top, bottom = question.get_bottom()[1] - PICTURE_GAP, SUBTITLE_TOP + GAP
    picture.scale(min(width / picture.width, (top - bottom) / picture.height, MAX_GROWTH))
    picture.next_to(reply, RIGHT, buff=PICTURE_GAP).set_y(reply.get_y())
    picture.shift(DOWN * max(0.0, picture.get_top()[1] - top))
    picture.shift(UP * max(0.0, bottom - picture.get_bottom()[1]))


def answer_pictures(demo: SaturationDemo) -> list[Callable[[], VGroup]]:
    """A picture per answer, in the questions' order (built when asked: each is laid out beside its answer)."""
    return [self_and_cross, heads_joined, all_pairs_grid, lambda: saturated_weights(demo), every_token]


def dots(count: int) -> VGroup:
    """A sequence of ``count`` tokens, as small squares."""
    return VGroup(*(Square(0.32, color=palette.TEXT) for _ in range(count))).arrange(RIGHT, buff=0.18)


def roles(names: str) -> VGroup:
    """Q, K, V (or some of them) in their roles' colours."""
    return VGroup(*(formula(n, size=36, color=palette.ROLE[n]) for n in names)).arrange(RIGHT, buff=0.5)


def self_and_cross() -> VGroup:
    """One sequence feeding Q, K and V; right of it, the decoder feeding Q and the encoder K and V."""
    one, decoder, encoder = dots(4), dots(3), dots(4)
    VGroup(one, VGroup(decoder, encoder).arrange(RIGHT, buff=0.5)).arrange(RIGHT, buff=0.9)
    qkv, q, kv = roles("QKV"), roles("Q"), roles("KV")
    for feeds, rows in ((qkv, one), (q, decoder), (kv, encoder)):
        feeds.next_to(rows, DOWN, buff=0.9)
    names = VGroup(
        caption("decoder", LABEL, palette.MUTED).next_to(decoder, UP, buff=0.15),
        caption("encoder", LABEL, palette.MUTED).next_to(encoder, UP, buff=0.15),
    )
    across = caption("cross-attention", LABEL, palette.MUTED).next_to(names, UP, buff=0.2)
    alone = caption("self-attention", LABEL, palette.MUTED).next_to(one, UP).match_y(across)
    arrows = VGroup(*(connect(one, r) for r in qkv), connect(decoder, q), *(connect(encoder, r) for r in kv))
    return VGroup(alone, across, names, one, decoder, encoder, qkv, q, kv, arrows)


def heads_joined() -> VGroup:
    """Three heads side by side, their outputs concatenated, then mixed by W_O."""
    heads = VGroup(*(LabelBox(f"head {i}", width=1.6, height=0.9) for i in (1, 2, 3))).arrange(RIGHT, buff=0.3)
    concat = LabelBox("concat", width=heads.width, height=0.6).next_to(heads, DOWN, buff=0.55)
    inputs = LabelBox("X", width=heads.width, height=0.6).next_to(heads, UP, buff=0.55)
    mixed = LabelBox(formula(r"\cdot\, W_{O}", size=READOUT), width=heads.width, height=0.6)  # TeX sets smaller
    mixed.next_to(concat, DOWN, buff=0.4)
    arrows = VGroup(
        *(connect(inputs, h, vertical=True) for h in heads),
        *(connect(h, concat, vertical=True) for h in heads),
        connect(concat, mixed, vertical=True),
    )
    return VGroup(inputs, heads, concat, mixed, arrows)


def all_pairs_grid(n: int = 6) -> VGroup:
    """An n × n grid of scores, its two sides braced n."""
    grid = cell_grid(n, 3.0, color=palette.MUTED, opacity=0.45)
    top = Brace(grid, UP, color=palette.MUTED)
    left = Brace(grid, LEFT, color=palette.MUTED)
    return VGroup(
        grid,
        top,
        formula("n", size=36).next_to(top, UP, buff=0.1),
        left,
        formula("n", size=36).next_to(left, LEFT, buff=0.1),
        caption("one score per pair", LABEL, palette.MUTED).next_to(grid, DOWN, buff=0.25),
    )


def saturating_scale(demo: SaturationDemo) -> int:
    """The first of the saturation chapter's scales at which softmax's top weight reaches ``SATURATED`` (else the
    largest): the picture of "softmax saturates"."""
    return next((i for i, top in enumerate(demo.max_weight) if top >= SATURATED), len(demo.scales) - 1)


def saturated_weights(demo: SaturationDemo) -> VGroup:
    """The saturation chapter's scores made large: softmax puts everything on one key (weights' colour scale)."""
    large = saturating_scale(demo)
    keys = [f"k{chr(0x2081 + j)}" if j < 9 else f"k{j + 1}" for j in range(len(demo.scores))]
    chart = SoftmaxBars(demo.weights[large], keys, height=2.2, bar_width=0.85, weights=True, legend=False)
    name = caption(f"softmax(scores × {fmt_int(demo.scales[large])})", BODY).next_to(chart, DOWN, buff=0.35)
    return VGroup(chart, name)


def every_token() -> VGroup:
    """Every token looking at every token, itself included."""
    pairs = all_pairs()
    return VGroup(pairs, caption("every token, itself included", LABEL, palette.MUTED).next_to(pairs, DOWN, buff=0.4))
