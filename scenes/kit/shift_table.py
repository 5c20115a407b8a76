"""The real model's closeness table: each "apple" vector's cosine similarity to each cluster's centre."""

from __future__ import annotations

from collections.abc import Sequence

from manim import LEFT, RIGHT, UP, Create, FadeIn, SurroundingRectangle, VGroup

from . import palette
from .meaning_map import cluster_color
from .numbers import Number
from .text import CELL, TINY, caption


class ShiftTable(VGroup):
    """Cosine similarity of each "apple" vector to each cluster's centroid: one row per case, built
    at once so the columns line up, revealed row by row.

    Parameters
    ----------
    cases
        (tag, text, cosines by cluster) for each row.
    focus
        The word written in white inside each text.
    """

    def __init__(self, cases: Sequence[tuple[str, str, dict[str, float]]], focus: str) -> None:
        super().__init__()
        clusters = list(cases[0][2])
        self.header = VGroup(*(caption(name, CELL, cluster_color(name)) for name in clusters))
        self.title = caption("cosine similarity to the centre of", CELL, palette.MUTED)
        self.rows = VGroup()
        for tag, text, cosines in cases:
            label = VGroup(
                caption(tag, TINY, palette.TEXT),
                caption(text, TINY, palette.MUTED, t2c={focus: palette.TEXT}),
            ).arrange(RIGHT, buff=0.2)
            numbers = VGroup(
                *(Number(cosines[n], num_decimal_places=2, font_size=CELL, color=cluster_color(n)) for n in clusters)
            )
            row = VGroup(label, numbers)
            row.nearest = clusters.index(max(cosines, key=cosines.get))
            self.rows.add(row)
        self._lay_out(max(r[0].width for r in self.rows))
        self.add(self.title, self.header, self.rows)

    def _lay_out(self, text_width: float) -> None:
        column = [text_width + 0.6 + 0.95 * k for k in range(len(self.header))]
        for head, x in zip(self.header, column, strict=True):
            head.move_to([x, 0, 0])
        self.title.next_to(self.header, UP, buff=0.15).align_to(self.header, RIGHT)
        for i, row in enumerate(self.rows):
            y = -0.5 * (i + 1)
            row[0].move_to([0, y, 0], aligned_edge=LEFT)
            for number, x in zip(row[1], column, strict=True):
                number.move_to([x, y, 0])

    def reveal(self, i: int) -> list:
        """Animations showing row ``i``: its label, then its numbers with the larger one framed."""
        row = self.rows[i]
        larger = row[1][row.nearest]
        return [
            FadeIn(row[0]),
            FadeIn(row[1]),
            Create(SurroundingRectangle(larger, color=larger.get_color(), buff=0.06)),
        ]
