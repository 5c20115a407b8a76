"""Every layer and head of a real model at a glance: one small heatmap per head, on the fixed 0 → 1 scale."""

from __future__ import annotations

import numpy as np
from manim import DOWN, LEFT, RESAMPLING_ALGORITHMS, RIGHT, UP, Group, ImageMobject, VGroup

from . import palette
from .legend import ColorScale
from .text import caption, notation

MINI_CELL = 0.085  # one weight in the grid of every layer and head
MINI_GAP = 0.16


def mini_heatmap(weights: np.ndarray) -> ImageMobject:
    """One head's weights as coloured cells only, on the fixed 0 → 1 heat scale.

    A pixel per weight, scaled up without smoothing: thousands of cells cost one image each
    frame instead of thousands of vector squares.
    """
    rgba = np.array([[palette.heat(w).to_rgba() for w in row] for row in weights])
    image = ImageMobject(np.round(rgba * 255).astype(np.uint8))
    image.set_resampling_algorithm(RESAMPLING_ALGORITHMS["nearest"])
    image.height = MINI_CELL * weights.shape[0]
    return image


class HeadGrid(Group):
    """Every layer (rows) and head (columns) of one sentence, each a small heatmap, with indices."""

    reading_hold = True  # a new one earns a quiet hold to read it (LessonScene.hold_to_read)

    def __init__(self, attention: np.ndarray) -> None:
        super().__init__()
        layers, heads = attention.shape[:2]
        self.maps = [[mini_heatmap(attention[layer, head]) for head in range(heads)] for layer in range(layers)]
        rows = Group(*(Group(*row).arrange(RIGHT, buff=MINI_GAP) for row in self.maps))
        self.body = rows.arrange(DOWN, buff=MINI_GAP)
        self.layer_labels = VGroup(
            *(
                notation(caption(f"layer {layer + 1}", 17, palette.MUTED)).next_to(row, LEFT, buff=0.2)
                for layer, row in enumerate(rows)
            )
        )
        self.head_labels = VGroup(
            *(
                notation(caption(f"{head + 1}", 17, palette.MUTED)).next_to(m, UP, buff=0.12)
                for head, m in enumerate(self.maps[0])
            )
        )
        self.heads_title = notation(caption("head", 17, palette.MUTED)).next_to(self.head_labels, LEFT, buff=0.2)
        # the maps share the fixed 0 → 1 scale of attention weights (the same for any example: notation)
        self.color_scale = ColorScale(0.0, 1.0, height=min(self.body.height, 2.0), places=0)
        notation(self.color_scale.next_to(self.body, RIGHT, buff=0.3).align_to(self.body, UP))
        self.add(self.body, self.layer_labels, self.head_labels, self.heads_title, self.color_scale)

    def head(self, layer: int, head: int) -> ImageMobject:
        return self.maps[layer][head]
