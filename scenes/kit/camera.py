"""The lesson's camera: manim's Cairo camera, with images composited over their own box.

manim 0.21 composites every :class:`~manim.ImageMobject` over a canvas the size of the frame (a frame-sized
float array, a paste and a full-frame alpha composite per image): the 72 heatmaps of a real model's heads
cost seconds per frame at 1080p. Here the same composite is made over the pixels the image covers, with the
same result.
"""

from __future__ import annotations

import numpy as np
from manim import Camera
from manim.mobject.types.image_mobject import AbstractImageMobject
from PIL import Image


class LessonCamera(Camera):
    """manim's camera; an image costs what it covers."""

    def display_image_mobject(self, image_mobject: AbstractImageMobject, pixel_array: np.ndarray) -> None:
        placed = self.transformed_image(image_mobject)
        if placed is None:
            return
        image, (left, top) = placed
        # the part of the image inside the frame
        x0, y0 = max(left, 0), max(top, 0)
        x1, y1 = min(left + image.width, self.pixel_width), min(top + image.height, self.pixel_height)
        if x0 >= x1 or y0 >= y1:
            return
        inside = image.crop((x0 - left, y0 - top, x1 - left, y1 - top))
        region = pixel_array[y0:y1, x0:x1]
        region[:] = np.asarray(Image.alpha_composite(Image.fromarray(region, mode="RGBA"), inside))

    def transformed_image(self, image_mobject: AbstractImageMobject) -> tuple[Image.Image, tuple[int, int]] | None:
        """The image as it lands on the frame (scaled, rotated, in perspective) and its top-left pixel, as
        manim computes them; ``None`` when it covers no pixel."""
        image = Image.fromarray(image_mobject.get_pixel_array(), mode="RGBA")
        source = np.array([[0, 0], [image.width, 0], [0, image.height], [image.width, image.height]])
        target = self.points_to_subpixel_coords(image_mobject, image_mobject.points)
        whole = target.astype(np.int64)  # truncated, as manim does, before the shift to the corner
        corner = whole.min(axis=0)
        target, size = target - corner, (whole - corner).max(axis=0)
        if self.too_thin(target):
            return None
        # the perspective transform that maps the landed corners back onto the image's own corners
        rows = []
        for (x, y), (u, v) in zip(target, source, strict=True):
            rows += [[x, y, 1, 0, 0, 0, -u * x, -u * y], [0, 0, 0, x, y, 1, -v * x, -v * y]]
        try:
            coefficients = np.linalg.solve(np.array(rows, dtype=np.float64), source.reshape(8).astype(np.float64))
        except np.linalg.LinAlgError:  # three corners in a line
            return None
        landed = image.transform(
            size=(int(size[0]), int(size[1])),
            method=Image.Transform.PERSPECTIVE,
            data=coefficients,
            resample=image_mobject.resampling_algorithm,
        )
        return landed, (int(corner[0]), int(corner[1]))

    @staticmethod
    def too_thin(corners: np.ndarray) -> bool:
        """True when the landed quadrilateral is under half a pixel across its longest side (or a point):
        its perspective coefficients would be broken, and it covers no pixel."""
        ordered = corners[[0, 1, 3, 2]]
        sides = np.roll(ordered, -1, axis=0) - ordered
        lengths = np.linalg.norm(sides, axis=1)
        longest = int(np.argmax(lengths))
        if lengths[longest] == 0:
            return True
        base, before = sides[longest], sides[(longest - 1) % 4]
        return bool(abs(base[0] * before[1] - base[1] * before[0]) / lengths[longest] < 0.5)
