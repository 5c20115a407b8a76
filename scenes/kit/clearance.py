"""Whether a drawn line runs through a text: the geometry scenes use to keep arrows off labels, and the layout
check (``scenes.collisions``) uses to find the ones that do not. A curved arrow's box is much larger than its line,
so the line is sampled rather than boxed."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from manim import Mobject, TipableVMobject

Box = tuple[float, float, float, float]  # left, bottom, right, top
TOLERANCE = 0.03  # scene units a line may graze a text's box (about 2 px at 480p)
SAMPLES = 48  # points along an arrow's line


def box_of(m: Mobject) -> Box:
    left, bottom = m.get_corner([-1, -1, 0])[:2]
    right, top = m.get_corner([1, 1, 0])[:2]
    return (float(left), float(bottom), float(right), float(top))


def arrow_points(arrow: TipableVMobject) -> np.ndarray:
    line = [arrow.point_from_proportion(t) for t in np.linspace(0, 1, SAMPLES)] if arrow.has_points() else []
    tips = [p for tip in arrow.get_tips() for p in (*tip.points, tip.get_center())]
    return np.array([p[:2] for p in [*line, *tips]])


def runs_through(points: np.ndarray, box: Box) -> bool:
    left, bottom, right, top = box
    inside = (
        (points[:, 0] > left + TOLERANCE)
        & (points[:, 0] < right - TOLERANCE)
        & (points[:, 1] > bottom + TOLERANCE)
        & (points[:, 1] < top - TOLERANCE)
    )
    return bool(inside.any())


def crosses(arrows: Iterable[TipableVMobject], texts: Iterable[Mobject]) -> bool:
    """Whether any of ``arrows`` runs through any of ``texts``."""
    boxes = [box_of(t) for t in texts]
    return any(runs_through(arrow_points(a), box) for a in arrows for box in boxes)


def beside_clear_of(
    label: Mobject, point: np.ndarray, arrows: Sequence[TipableVMobject], sides: Sequence[np.ndarray], buffs=(0.1,)
) -> Mobject:
    """``label`` next to ``point``, on the first of ``sides`` (nearest ``buffs`` first) where none of ``arrows`` runs
    through it; on the first side when none is clear."""
    for buff, side in ((buff, side) for buff in buffs for side in sides):
        if not crosses(arrows, [label.next_to(point, side, buff=buff)]):
            return label
    return label.next_to(point, sides[0], buff=buffs[0])
