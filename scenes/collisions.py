"""Collisions of text with the figure's other marks: pictures (the head grid's heatmaps) and arrows.

The probe (``scenes.probe``) records, after every step, each visible text with its box and each
picture and arrow with its geometry, in the order Cairo draws them. Text against text is
``layout_problems``' own check; this module adds:

- a text on a picture, unless an opaque shape drawn after the picture covers the spot (an inset
  on its backdrop);
- an arrow whose line or tip runs through a text (a curved arrow's box is much larger than its
  line, so the line is sampled rather than boxed).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from manim import Mobject, TipableVMobject, VMobject
from manim.mobject.types.image_mobject import AbstractImageMobject

from scenes.kit.clearance import TOLERANCE, Box, arrow_points, box_of, runs_through

if TYPE_CHECKING:
    from scenes.probe import Snapshot

OPAQUE = 0.9


@dataclass
class Mark:
    """A picture, an arrow or an opaque shape on screen, in drawing order."""

    kind: str  # "picture", "arrow" or "cover"
    order: int
    box: Box
    points: np.ndarray | None = None  # an arrow's line and tip, (n, 2)


def mark_of(m: Mobject, order: int) -> Mark | None:
    """The mark ``m`` makes, if it is one the collision check knows (its family is then not walked)."""
    if isinstance(m, AbstractImageMobject):
        return Mark("picture", order, box_of(m)) if m.pixel_array[..., 3].max() > 12 else None
    if isinstance(m, TipableVMobject) and (m.has_tip() or m.has_start_tip()):
        visible = m.get_stroke_opacity() > 0.05 or any(t.get_fill_opacity() > 0.05 for t in m.get_tips())
        return Mark("arrow", order, box_of(m), arrow_points(m)) if visible else None
    if isinstance(m, VMobject) and m.has_points() and not m.submobjects and m.get_fill_opacity() >= OPAQUE:
        return Mark("cover", order, box_of(m))
    return None


def _intersection(a: Box, b: Box) -> Box | None:
    box = (max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3]))
    return box if box[2] - box[0] > TOLERANCE and box[3] - box[1] > TOLERANCE else None


def _contains(outer: Box, inner: Box) -> bool:
    return outer[0] <= inner[0] and outer[1] <= inner[1] and outer[2] >= inner[2] and outer[3] >= inner[3]


def collision_problems(snapshots: list[Snapshot]) -> list[str]:
    problems = []
    for snap in snapshots:
        where = f"after {snap.call} #{snap.step}"
        covers = [m for m in snap.marks if m.kind == "cover"]
        for s in snap.shown:
            for mark in snap.marks:
                if mark.kind == "picture" and (spot := _intersection(s.box, mark.box)):
                    hidden = any(mark.order < c.order < s.order and _contains(c.box, spot) for c in covers)
                    if not hidden:
                        problems.append(f"{where}: {s.text!r} lies on a picture at {tuple(round(v, 2) for v in spot)}")
                elif mark.kind == "arrow" and mark.points is not None and runs_through(mark.points, s.box):
                    problems.append(f"{where}: an arrow runs through {s.text!r}")
    return problems
