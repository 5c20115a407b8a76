"""A 2-D plane for query, key and value vectors: arrows in role colours, sums tip to tail."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import Arrow, ManimColor, NumberPlane, VGroup

from . import palette


def nice_extent(points: np.ndarray, margin: float = 0.15) -> tuple[float, float, float, float]:
    """Axis ranges (x_min, x_max, y_min, y_max) holding the origin and every point, with a margin."""
    pts = np.vstack([np.zeros((1, 2)), np.asarray(points, dtype=float).reshape(-1, 2)])
    low, high = pts.min(axis=0), pts.max(axis=0)
    pad = margin * max(float((high - low).max()), 1e-6)
    return low[0] - pad, high[0] + pad, low[1] - pad, high[1] + pad


class VectorPlane(NumberPlane):
    """A faint grid on which 2-D vectors are drawn as arrows from the origin or tip to tail.

    No coordinates are written on the axes: the numbers of the lesson are the vectors'
    own, shown beside them by the scene.

    Parameters
    ----------
    extent
        (x_min, x_max, y_min, y_max) in the vectors' units (see :func:`nice_extent`).
    width, height
        Size on screen; one unit keeps the same length on both axes (the smaller fits).

    Examples
    --------
    >>> plane = VectorPlane((-1, 2, -1, 2), width=3, height=3)
    >>> plane.arrow([1, 1]).get_end().round(6).tolist() == plane.c2p(1, 1).round(6).tolist()
    True
    """

    reading_hold = True  # a new one earns a quiet hold to read it (LessonScene.hold_to_read)

    def __init__(
        self,
        extent: Sequence[float] = (-1.0, 2.0, -1.0, 2.0),
        width: float = 4.0,
        height: float = 4.0,
        **kwargs,
    ) -> None:
        x_min, x_max, y_min, y_max = extent
        unit = min(width / (x_max - x_min), height / (y_max - y_min))
        step = 10 ** np.floor(np.log10(max(x_max - x_min, y_max - y_min) / 2))
        kwargs.setdefault(
            "background_line_style", {"stroke_color": palette.MUTED, "stroke_width": 1, "stroke_opacity": 0.25}
        )
        super().__init__(
            x_range=(x_min, x_max, step),
            y_range=(y_min, y_max, step),
            x_length=unit * (x_max - x_min),
            y_length=unit * (y_max - y_min),
            axis_config={"stroke_color": palette.MUTED, "stroke_width": 2, "include_ticks": False},
            **kwargs,
        )

    @classmethod
    def fitting(cls, vectors: np.ndarray, width: float = 4.0, height: float = 4.0, **kwargs) -> VectorPlane:
        """A plane just large enough for ``vectors`` (rows of 2 numbers, as arrows or points)."""
        return cls(nice_extent(vectors), width=width, height=height, **kwargs)

    def arrow(
        self, vector: Sequence[float], color: ManimColor = palette.TEXT, start: Sequence[float] = (0.0, 0.0)
    ) -> Arrow:
        """An arrow for ``vector``, drawn from ``start`` (the origin by default)."""
        tail = np.asarray(start, dtype=float)
        head = tail + np.asarray(vector, dtype=float)
        return Arrow(
            self.c2p(*tail),
            self.c2p(*head),
            buff=0,
            color=color,
            stroke_width=5,
            max_tip_length_to_length_ratio=0.2,
        )

    def polar_arrow(self, length: float, angle: float, color: ManimColor = palette.TEXT) -> Arrow:
        """An arrow of ``length`` at ``angle`` (radians from the x-axis), from the origin."""
        return self.arrow(length * np.array([np.cos(angle), np.sin(angle)]), color)

    def tip_to_tail(self, vectors: np.ndarray, colors: Sequence[ManimColor] | None = None) -> VGroup:
        """Arrows for the rows of ``vectors``, each starting where the previous one ends."""
        vectors = np.asarray(vectors, dtype=float)
        tails = np.vstack([np.zeros((1, 2)), np.cumsum(vectors, axis=0)[:-1]])
        colors = colors or [palette.VALUE] * len(vectors)
        return VGroup(*(self.arrow(v, c, t) for v, t, c in zip(vectors, tails, colors, strict=True)))
