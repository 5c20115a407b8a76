"""Closeness as it is measured: a word's cosine similarity to two centres, one per axis.

A flat (PCA) map keeps 2 of hundreds of directions, so a move that looks "toward" a cluster there can be
a move away from it in the model's space. This plane draws what the cosines say: across, the cosine to
the first centre; up, to the second; above the diagonal the word is closer to the second.
"""

from __future__ import annotations

import numpy as np
from manim import DL, DOWN, DR, LEFT, RIGHT, UL, UP, UR, DashedLine, Line, Square, VGroup

from . import palette
from .meaning_map import cluster_color
from .numbers import fmt
from .text import LABEL, caption, notation

TICK = LABEL - 2  # the axes' round values: a little smaller than the names, as a legend's are


class CosinePlane(VGroup):
    """A square of cosine similarities from ``low`` to ``high`` on both axes, ``side`` units wide.

    Examples
    --------
    >>> plane = CosinePlane(("fruit", "tech"), 0.1, 0.4, side=3.0)
    >>> bool(np.allclose(plane.c2p(0.1, 0.1), plane.frame.get_corner(DL)))
    True
    """

    def __init__(self, names: tuple[str, str], low: float, high: float, side: float = 3.4) -> None:
        super().__init__()
        self.names, self.low, self.high = names, low, high
        self.frame = Square(side, color=palette.MUTED, stroke_width=2)
        self.diagonal = DashedLine(self.frame.get_corner(DL), self.frame.get_corner(UR), color=palette.MUTED)
        across, up = (cluster_color(n) for n in names)
        self.ticks = self.scale_marks()
        self.x_label = caption(f"cosine to {names[0]} →", LABEL, across).next_to(self.ticks, DOWN, buff=0.08)
        self.x_label.match_x(self.frame)
        self.y_label = caption(f"↑ cosine to {names[1]}", LABEL, up)
        self.y_label.next_to(self.frame, UP, buff=0.12).align_to(self.frame, LEFT)
        self.sides = VGroup(
            caption(f"closer to {names[1]}", LABEL, up).move_to(self.c2p(low, high), aligned_edge=UL),
            caption(f"closer to {names[0]}", LABEL, across).move_to(self.c2p(high, low), aligned_edge=DR),
        )
        self.sides[0].shift(0.1 * (RIGHT + DOWN))
        self.sides[1].shift(0.1 * (LEFT + UP))
        self.add(self.frame, self.diagonal, self.ticks, self.x_label, self.y_label, self.sides)

    def scale_marks(self) -> VGroup:
        """Round values on both axes (every 0.1, or 0.05 over a short range): the plot read against the table."""
        step = 0.1 if self.high - self.low >= 0.25 else 0.05
        values = np.arange(np.ceil(self.low / step) * step, self.high, step)
        places = 1 if step == 0.1 else 2
        marks = VGroup()
        for v in values:
            for point, side in ((self.c2p(v, self.low), DOWN), (self.c2p(self.low, v), LEFT)):
                tick = Line(point, point + 0.1 * side, color=palette.MUTED, stroke_width=2)
                label = caption(fmt(v, places), TICK, palette.MUTED).next_to(tick, side, buff=0.06)
                marks.add(tick, notation(label))  # a scale, like a legend's: not a value of the example
        return marks

    def c2p(self, x: float, y: float) -> np.ndarray:
        """The point of cosines (``x`` to the first centre, ``y`` to the second)."""
        corner, side = self.frame.get_corner(DL), self.frame.width
        span = self.high - self.low
        return corner + side * ((x - self.low) / span * RIGHT + (y - self.low) / span * UP)
