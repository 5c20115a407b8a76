"""Diagram pieces for the concept chapters: labelled boxes, arrows between them, stacks, cards."""

from __future__ import annotations

from collections.abc import Sequence

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    TAU,
    UL,
    UP,
    ArcBetweenPoints,
    Arrow,
    Circle,
    CurvedArrow,
    Dot,
    ManimColor,
    Mobject,
    Rectangle,
    RoundedRectangle,
    Square,
    VGroup,
)

from . import palette
from .text import HEADING, LABEL, LEAD, caption, formula, notation
from .tokens import TokenLabel


class LabelBox(VGroup):
    """A rounded box around a centred label (text or any mobject), sized to fit unless ``width`` is given.

    Examples
    --------
    >>> box = LabelBox("Feed-forward", color=palette.MUTED)
    """

    def __init__(
        self,
        label: str | Mobject,
        color: ManimColor = palette.MUTED,
        width: float | None = None,
        height: float = 0.7,
        font_size: float = 26,
        fill_opacity: float = 0.15,
    ) -> None:
        self.label = caption(label, font_size) if isinstance(label, str) else label
        box_width = width if width is not None else self.label.width + 0.6
        self.box = RoundedRectangle(
            corner_radius=0.12, width=box_width, height=height, color=color, fill_color=color
        ).set_fill(opacity=fill_opacity)
        self.label.move_to(self.box)
        super().__init__(self.box, self.label)

    def highlight(self, color: ManimColor, fill_opacity: float = 0.35) -> LabelBox:
        """Recolour the box (stroke and fill) to mark it as the one that matters."""
        self.box.set_stroke(color, width=6).set_fill(color, opacity=fill_opacity)
        return self


LOOP = 0.2  # radius of the loop by which a token attends to itself
EVEN_ARROW = {"stroke_width": 4, "tip_length": 0.22, "max_stroke_width_to_length_ratio": 20}  # any length


def connect(
    start: Mobject, end: Mobject, color: ManimColor = palette.MUTED, buff: float = 0.04, vertical: bool = False
) -> Arrow:
    """An arrow between facing edges of ``start`` and ``end`` (top/bottom or right/left, whichever face; always
    top/bottom when ``vertical``: a wide row above or below a box is left by its middle, not through a word)."""
    dx, dy = (end.get_center() - start.get_center())[:2]
    if vertical or abs(dy) >= abs(dx):
        ends = (start.get_top(), end.get_bottom()) if dy > 0 else (start.get_bottom(), end.get_top())
    else:
        ends = (start.get_right(), end.get_left()) if dx > 0 else (start.get_left(), end.get_right())
    return Arrow(*ends, buff=buff, color=color, stroke_width=4, tip_length=0.16, max_tip_length_to_length_ratio=0.6)


def stack(boxes: Sequence[Mobject], gap: float = 0.35, upward: bool = True) -> tuple[VGroup, VGroup]:
    """Arrange ``boxes`` in a column (first at the bottom when ``upward``) joined by arrows.

    Returns
    -------
    tuple
        The boxes as a ``VGroup`` and the arrows between consecutive boxes.
    """
    column = VGroup(*boxes).arrange(UP if upward else DOWN, buff=gap)
    arrows = VGroup(*(connect(a, b) for a, b in zip(boxes, boxes[1:], strict=False)))
    return column, arrows


class Card(VGroup):
    """A card with a coloured heading over a few lines of text: a role, a question, its answer.

    Examples
    --------
    >>> Card("Query (Q)", ["What am I looking for?"], color=palette.QUERY)
    """

    def __init__(
        self,
        heading: str,
        lines: Sequence[str],
        color: ManimColor = palette.TEXT,
        width: float = 4.2,
        font_size: float = 22,
        height: float | None = None,
    ) -> None:
        self.heading = caption(heading, font_size + 6, color, weight="BOLD")
        self.body = VGroup(*(caption(line, font_size) for line in lines))
        self.body.arrange(DOWN, aligned_edge=LEFT, buff=0.15)
        content = VGroup(self.heading, self.body).arrange(DOWN, aligned_edge=LEFT, buff=0.3)
        if content.width > width - 0.5:
            content.scale_to_fit_width(width - 0.5)
        self.frame = RoundedRectangle(
            corner_radius=0.15, width=width, height=max(content.height + 0.5, height or 0), color=color
        ).set_fill(color, opacity=0.08)
        content.align_to(self.frame, UP + LEFT).shift(0.25 * (DOWN + RIGHT))
        super().__init__(self.frame, content)


class Sentence(VGroup):
    """A sentence set as one line of text, its words addressable as ``sentence.words[i]``.

    One ``Text`` in the token font keeps the words on a common baseline; the words are slices of its glyphs.
    """

    def __init__(self, words: Sequence[str], font_size: float = 34, color: ManimColor = palette.TEXT) -> None:
        self.text = caption(" ".join(words), font_size, color)
        self.words = VGroup()
        start = 0
        for word in words:
            glyphs = len("".join(word.split()))
            self.words.add(VGroup(*self.text[start : start + glyphs]))
            start += glyphs
        super().__init__(self.text)


def arc_between(
    start: Mobject, end: Mobject, color: ManimColor, height: float = 0.25, bend: float = TAU / 4
) -> CurvedArrow:
    """A curved arrow over the tops of two words, from ``start`` to ``end``, bending by ``bend`` radians."""
    a, b = start.get_top() + height * UP, end.get_top() + height * UP
    angle = bend if a[0] > b[0] else -bend
    return CurvedArrow(a, b, angle=angle, color=color, stroke_width=4, tip_length=0.18)


JOINED = r"[\,Z^{(1)} \cdots Z^{(h)}\,]"  # the heads' outputs side by side: their concatenation (docs/notation.md)


def joined(heads: int) -> str:
    """TeX of ``heads`` heads' outputs side by side, written out for up to three: ``[Z⁽¹⁾ Z⁽²⁾]``."""
    if heads == 1:
        return "Z"
    if heads > 3:
        return rf"[\,Z^{{(1)}} \cdots Z^{{({heads})}}\,]"
    return r"[\," + r"\ ".join(f"Z^{{({n + 1})}}" for n in range(heads)) + r"\,]"


def step_names(output_projection: bool) -> list[str]:
    """The seven steps of multi-head self-attention, as the worked example's chapter and the recap name them."""
    last = "Output" if output_projection else "Join the heads"
    return ["Input embeddings", "Project to Q, K, V", "Dot products", "Scale", "Softmax per row", "Weighted sum", last]


def roadmap(names: Sequence[str], current: int) -> VGroup:
    """The steps as a numbered list, step ``current`` (from 0) lit and the others dim: where the chapter stands."""
    numbers = VGroup(*(notation(caption(f"{i + 1}.", LEAD, palette.MUTED)) for i in range(len(names))))  # ordinals
    steps = VGroup(*(caption(n, LEAD, palette.TEXT if i == current else palette.MUTED) for i, n in enumerate(names)))
    for i, step in enumerate(steps):  # one line height, whatever the letters' descenders
        step.move_to(i * 0.62 * DOWN, aligned_edge=UL)
    for number, step in zip(numbers, steps, strict=True):  # right-aligned, level with the name's capitals
        number.next_to(step, LEFT, buff=0.3).align_to(step, UP)
        number.align_to(steps.get_left() + 0.3 * LEFT, RIGHT)
    return VGroup(numbers, steps)


def all_pairs(count: int = 4) -> VGroup:
    """Tokens as dots, an arc between every two of them and a loop on each: every token looks at every token,
    itself included. Its parts: the dots, the arcs, the loops."""
    dots = VGroup(*(Dot(radius=0.11, color=palette.TEXT) for _ in range(count))).arrange(RIGHT, buff=0.8)
    arcs = VGroup(
        *(
            ArcBetweenPoints(dots[a].get_center(), dots[b].get_center(), angle=-TAU / 4, color=palette.HEAT_LOW)
            for a in range(count)
            for b in range(a + 1, count)
        )
    )
    # a loop hangs from each dot, through its centre: the token back to itself (tangent below it, it read as a ring)
    loops = VGroup(*(Circle(radius=LOOP, color=palette.HEAT_LOW).move_to(d.get_center() + LOOP * DOWN) for d in dots))
    return VGroup(dots, arcs, loops)


class ShapeBlock(VGroup):
    """A matrix drawn as its grid of cells (no numbers), named inside and sized ``rows × cols`` below.

    Examples
    --------
    >>> ShapeBlock(4, 2, "Q", palette.QUERY).cells.height
    0.88
    """

    def __init__(
        self,
        rows: int,
        cols: int,
        name: str,
        color: ManimColor,
        unit: float = 0.22,
        sides: tuple[str, str] = ("", ""),
        font_size: float = HEADING,
    ) -> None:
        self.cells = VGroup(
            *(
                Square(unit, stroke_color=color, stroke_width=1.5)
                .set_fill(color, opacity=0.25)
                .move_to([c * unit, -r * unit, 0])
                for r in range(rows)
                for c in range(cols)
            )
        )
        self.name = formula(name, size=font_size).next_to(self.cells, UP, buff=0.1)
        # the sides' names where given (which side is n, which d_model: their numbers can be equal)
        size = rf"{sides[0]} \times {sides[1]}" if all(sides) else rf"{rows} \times {cols}"
        self.size = formula(size, size=font_size, color=color).next_to(self.cells, DOWN, buff=0.1)
        super().__init__(self.cells, self.name, self.size)


class ModelFlow(VGroup):
    """A word through a trained model, left to right: its token, the model's ``layers``, the vector they leave
    (``width`` numbers), and that vector flattened to 2 numbers for a drawing. Parts: ``token``, ``stack``,
    ``vector``, ``flat`` (each with its label) and ``arrows`` between them."""

    def __init__(self, word: str, layers: int, width: int, color: ManimColor = palette.TEXT) -> None:
        super().__init__()
        self.token = VGroup(TokenLabel(word, font_size=LEAD, color=color))
        boxes = [RoundedRectangle(corner_radius=0.06, width=0.28, height=1.8) for _ in range(layers)]
        for box in boxes:
            box.set_stroke(palette.MUTED, 2).set_fill(palette.MUTED, 0.2)
        self.stack = self._labelled(VGroup(*boxes).arrange(RIGHT, buff=0.08), f"{layers}\nlayers")
        bar = Rectangle(width=0.4, height=2.4).set_stroke(color, 2).set_fill(color, 0.15)
        self.vector = self._labelled(bar, f"{width}\nnumbers")
        pair = VGroup(*(Square(0.4).set_stroke(color, 2).set_fill(color, 0.15) for _ in range(2))).arrange(DOWN, buff=0)
        self.flat = notation(self._labelled(pair, "2\nnumbers"))  # a drawing's two axes, for any model
        parts = VGroup(self.token, self.stack, self.vector, self.flat).arrange(RIGHT, buff=0.9)
        for part in parts[1:]:  # the drawn shapes on one line, labels hanging below
            part.shift(UP * (parts[0].get_y() - part[0].get_y()))
        self.arrows = VGroup(
            *(
                Arrow(a[0].get_right(), b[0].get_left(), buff=0.15, color=palette.MUTED, stroke_width=3)
                for a, b in zip(parts, parts[1:], strict=False)
            )
        )
        self.add(parts, self.arrows)

    @staticmethod
    def _labelled(shape: Mobject, label: str) -> VGroup:
        lines = VGroup(*(caption(line, LABEL, palette.MUTED) for line in label.split("\n"))).arrange(DOWN, buff=0.08)
        return VGroup(shape, lines.next_to(shape, DOWN, buff=0.15))
