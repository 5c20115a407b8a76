"""A word's pulls, magnified: each other word's pull drawn tip to tail, labelled with its word and weight, their
sum the word's move. On the meaning map itself the pulls are a fraction of a unit long and start at one point;
here they read one by one."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from manim import DOWN, LEFT, RIGHT, UP, Arrow, Dot, ManimColor, VGroup

from . import palette
from .layout import fit_width
from .meaning_map import overlaps
from .numbers import Number
from .text import CAPTION, LABEL, caption
from .tokens import TokenLabel

LABEL_ROOM = (1.9, 1.3)  # width and height kept around the chain for the labels beside its arrows
STROKE = 5


def magnification(span: np.ndarray, room: tuple[float, float]) -> float:
    """How many times larger than the map the chain is drawn: as large as ``room`` allows (``span`` is its size
    on the map's screen scale), a whole number from 2 on, so the heading can say it plainly."""
    fits = min(r / s for r, s in zip(room, span, strict=True) if s > 1e-9) if np.any(span > 1e-9) else 1.0
    return plain(fits)


def plain(times: float) -> float:
    """``times`` rounded down to a number the heading can say: whole from 2 on, else to a tenth (at least 0.1)."""
    return float(math.floor(times)) if times >= 2 else max(math.floor(times * 10) / 10, 0.1)


class PullChain(VGroup):
    """The pulls of ``tokens`` (all but the focus word) on the focus word, tip to tail from its place.

    ``pulls`` are in map units, ``unit`` is the map's screen length of one map unit; the chain fits ``width`` ×
    ``height`` (heading included), drawn ``times`` larger than the map if given (several chains on one scale), else
    as large as fits. ``colours`` are the pulling words' colours on the map.
    """

    def __init__(
        self,
        word: str,
        tokens: Sequence[str],
        weights: Sequence[float],
        pulls: np.ndarray,
        colours: Sequence[ManimColor],
        unit: float,
        width: float,
        height: float,
        times: float | None = None,
    ) -> None:
        super().__init__()
        self.room = (width, height)
        self.path = np.vstack([np.zeros(2), np.cumsum(pulls, axis=0)])  # after each pull, from the word's place
        span = np.ptp(self.path, axis=0) * unit
        self.times = times or magnification(span, (width - LABEL_ROOM[0], height - LABEL_ROOM[1]))
        while True:  # the labels' room was a guess: smaller until the whole chain, labels and heading fit
            self._draw(word, tokens, weights, colours, unit)
            if (self.width <= width and self.height <= height) or self.times <= 0.1:
                break
            self.times = plain(0.95 * self.times * min(width / self.width, height / self.height))
            self.remove(*self.submobjects)

    def _draw(self, word: str, tokens, weights, colours, unit: float) -> None:
        scale = unit * self.times
        at = [np.array([x * scale, y * scale, 0.0]) for x, y in self.path]
        self.heading = caption(f"the pulls on “{word}”, drawn {self.times:g}× larger", CAPTION, palette.MUTED)
        fit_width(self.heading, self.room[0])  # a long word: smaller type, not a smaller chain
        self.start = VGroup(Dot(at[0], radius=0.08, color=palette.TEXT))
        self.arrows = VGroup(
            *(
                Arrow(a, b, buff=0, color=c, stroke_width=STROKE, tip_length=0.22, max_tip_length_to_length_ratio=0.4)
                for a, b, c in zip(at[:-1], at[1:], colours, strict=True)
            )
        )
        self.move = Arrow(at[0], at[-1], buff=0, color=palette.HIGHLIGHT, stroke_width=3, tip_length=0.2)
        self.labels = VGroup()
        for token, weight, colour, arrow in zip(tokens, weights, colours, self.arrows, strict=True):
            self.labels.add(self._label(token, weight, colour, arrow))
        name = TokenLabel(word, font_size=LABEL, color=palette.TEXT)
        self.start.add(self._beside(name, at[0], -(at[-1] - at[0])))
        self.add(self.start, self.arrows, self.labels, self.move)
        self.heading.next_to(self, UP, buff=0.3)
        self.add(self.heading)

    def _label(self, token: str, weight: float, colour: ManimColor, arrow: Arrow) -> VGroup:
        """The pulling word and its weight, beside the middle of its arrow."""
        label = VGroup(
            TokenLabel(token, font_size=LABEL, color=colour), Number(weight, num_decimal_places=2, font_size=LABEL)
        ).arrange(RIGHT, buff=0.12)
        along = arrow.get_end() - arrow.get_start()
        normal = np.array([-along[1], along[0], 0.0]) / max(float(np.linalg.norm(along)), 1e-9)
        return self._beside(label, arrow.get_center(), normal)

    def _beside(self, label: VGroup, point: np.ndarray, direction: np.ndarray) -> VGroup:
        """``label`` next to ``point`` on the side of ``direction`` (or the other, or above or below) where it
        touches no arrow or label already drawn."""
        taken = [*self.labels, *self.start]
        for side in (direction, -direction, UP, DOWN, RIGHT, LEFT):
            if np.linalg.norm(side) < 1e-9:
                continue
            side = side / np.linalg.norm(side)
            label.move_to(point + side * (0.22 + max(label.width * abs(side[0]), label.height * abs(side[1])) / 2))
            if not any(overlaps(label, other, gap=0.05) for other in taken) and not self._crosses(label):
                break
        return label

    def _crosses(self, label: VGroup) -> bool:
        """Whether an arrow runs through ``label`` (sampled along each arrow: a slanted arrow's box is mostly empty)."""
        (left, bottom), (right, top) = label.get_corner(DOWN + LEFT)[:2] - 0.05, label.get_corner(UP + RIGHT)[:2] + 0.05
        for arrow in (*self.arrows, self.move):
            for t in np.linspace(0, 1, 24):
                x, y = (arrow.get_start() + t * (arrow.get_end() - arrow.get_start()))[:2]
                if left <= x <= right and bottom <= y <= top:
                    return True
        return False
