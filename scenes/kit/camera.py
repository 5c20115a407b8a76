"""The lesson's camera: manim's Cairo camera, which also knows where it drew since its last reset.

A frame is a background (the scene's, or the static image of a ``play``) with the moving mobjects drawn over it.
Keeping the box they covered (the ink) lets the camera reset a frame by copying that box back instead of the
whole 8 MB frame, and tells the renderer (render.encoding) where a frame can differ from the one before. The
camera can also hand its buffer over instead of copying it, and take buffers back to draw into.

Images are composited over the pixels they cover: manim 0.21 builds a frame-sized canvas per image, and the 72
heatmaps of a real model's heads cost seconds per frame at 1080p.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import cairo
import numpy as np
from manim import Camera
from manim.mobject.types.image_mobject import AbstractImageMobject
from manim.mobject.types.vectorized_mobject import VMobject
from PIL import Image

ANTIALIAS = 2  # pixels past a shape's exact edges that Cairo's antialiasing may touch


class Box(NamedTuple):
    """Rows ``top:bottom`` and columns ``left:right`` of a frame."""

    top: int
    bottom: int
    left: int
    right: int

    def union(self, other: Box | None) -> Box:
        if other is None:
            return self
        return Box(min(self.top, other.top), max(self.bottom, other.bottom),
                   min(self.left, other.left), max(self.right, other.right))  # fmt: skip


class Ink(NamedTuple):
    """What a frame buffer holds: ``background`` (an array never drawn into) with ink inside ``box`` only.

    ``background`` is ``None`` when the buffer's content is not known (then every pixel may differ).
    """

    background: np.ndarray | None
    box: Box | None


UNKNOWN = Ink(None, None)


class LessonCamera(Camera):
    """manim's camera that resets and hands over only what it drew; images cost what they cover."""

    ink: Ink = UNKNOWN

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.spare: list[tuple[np.ndarray, Ink]] = []  # buffers taken back, with what they hold
        super().__init__(*args, **kwargs)

    # --- where it drew ----------------------------------------------------------------------------------------

    def set_pixel_array(self, pixel_array: Any, convert_from_floats: bool = False) -> None:
        """A reset to ``pixel_array`` (the background, or a static image) copies back only the ink over it."""
        current = getattr(self, "pixel_array", None)
        known = self.ink.background is pixel_array and pixel_array is not current and not convert_from_floats
        if known and current is not None and self.ink.box is not None:
            top, bottom, left, right = self.ink.box
            current[top:bottom, left:right] = pixel_array[top:bottom, left:right]
        elif not known:
            super().set_pixel_array(pixel_array, convert_from_floats)
        fixed = isinstance(pixel_array, np.ndarray) and pixel_array is not self.pixel_array and not convert_from_floats
        self.ink = Ink(pixel_array if fixed else None, None)

    def inked(self, box: Box | None) -> None:
        """Note that pixels inside ``box`` may have been drawn (``None``: anywhere)."""
        if box is None:
            self.ink = Ink(self.ink.background, self.whole())
        elif box.top < box.bottom and box.left < box.right:
            self.ink = Ink(self.ink.background, box.union(self.ink.box))

    def whole(self) -> Box:
        return Box(0, self.pixel_height, 0, self.pixel_width)

    def display_vectorized(self, vmobject: VMobject, ctx: cairo.Context) -> LessonCamera:
        super().display_vectorized(vmobject, ctx)
        self.inked(self.path_box(vmobject, ctx))
        return self

    def path_box(self, vmobject: VMobject, ctx: cairo.Context) -> Box | None:
        """The pixels the path just filled and stroked can touch (the path is still set: manim preserves it)."""
        extents = [ctx.path_extents()]
        for background in (True, False):
            width = vmobject.get_stroke_width(background)
            if width > 0:  # joins and caps are as the stroke left them
                ctx.set_line_width(width * self.cairo_line_width_multiple)
                extents.append(ctx.stroke_extents())
        corners = [ctx.user_to_device(x, y) for x1, y1, x2, y2 in extents for x, y in ((x1, y1), (x2, y2))]
        if not corners:
            return None
        xs, ys = [x for x, _ in corners], [y for _, y in corners]
        return self.clipped(min(ys), max(ys), min(xs), max(xs))

    def clipped(self, top: float, bottom: float, left: float, right: float) -> Box:
        """Device coordinates as whole pixels, widened by :data:`ANTIALIAS`, within the frame."""
        return Box(
            max(0, int(np.floor(top)) - ANTIALIAS),
            min(self.pixel_height, int(np.ceil(bottom)) + ANTIALIAS),
            max(0, int(np.floor(left)) - ANTIALIAS),
            min(self.pixel_width, int(np.ceil(right)) + ANTIALIAS),
        )

    def display_multiple_point_cloud_mobjects(self, *args: Any, **kwargs: Any) -> None:
        super().display_multiple_point_cloud_mobjects(*args, **kwargs)
        self.inked(None)  # not tracked: anywhere

    def display_multiple_background_colored_vmobjects(self, *args: Any, **kwargs: Any) -> Any:
        self.inked(None)  # not tracked: anywhere
        return super().display_multiple_background_colored_vmobjects(*args, **kwargs)

    # --- handing buffers over ---------------------------------------------------------------------------------

    def hand_over(self) -> tuple[np.ndarray, Ink]:
        """The current frame itself, with what it holds; the camera goes on in a buffer taken back (or a new one),
        over which every frame is drawn after a reset."""
        frame, ink = self.pixel_array, self.ink
        # Cairo contexts are cached by the buffer's id: one left behind could draw into a later array's memory
        self.pixel_array_to_cairo_context.pop(id(frame), None)
        while self.spare:
            buffer, held = self.spare.pop()
            if buffer.shape == frame.shape and buffer.dtype == frame.dtype:
                self.pixel_array, self.ink = buffer, held
                return frame, ink
        self.pixel_array, self.ink = np.empty_like(frame), UNKNOWN
        return frame, ink

    def take_back(self, frame: np.ndarray, ink: Ink) -> None:
        """A buffer handed over before, unchanged since, to draw into again."""
        self.spare.append((frame, ink))

    # --- images -----------------------------------------------------------------------------------------------

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
        self.inked(Box(y0, y1, x0, x1))

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
