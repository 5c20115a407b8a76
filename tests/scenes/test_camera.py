"""The lesson's camera (scenes.kit.camera) draws images exactly as manim's own camera does, and only where
they land."""

from __future__ import annotations

import numpy as np
import pytest
from manim import RESAMPLING_ALGORITHMS, Camera, ImageMobject, tempconfig

from scenes.kit.camera import LessonCamera


def images(seed: int) -> list[ImageMobject]:
    """Random images: sizes, places (some partly or wholly off the frame), turns, see-through pixels."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(12):
        rgba = rng.integers(0, 256, (int(rng.integers(1, 9)), int(rng.integers(1, 9)), 4), dtype=np.uint8)
        image = ImageMobject(rgba)
        image.set_resampling_algorithm(RESAMPLING_ALGORITHMS[str(rng.choice(["nearest", "bilinear"]))])
        image.height = float(rng.uniform(0.05, 3))
        image.move_to([rng.uniform(-9, 9), rng.uniform(-5, 5), 0])
        if rng.random() < 0.5:
            image.rotate(float(rng.uniform(-1, 1)))
        out.append(image)
    return out


def drawn(camera_class: type[Camera], mobjects: list[ImageMobject]) -> np.ndarray:
    camera = camera_class()
    pattern = np.indices((camera.pixel_height, camera.pixel_width)).sum(axis=0) % 251  # a varied background
    camera.set_pixel_array(np.dstack([pattern, pattern[::-1], pattern[:, ::-1], np.full_like(pattern, 255)]))
    camera.capture_mobjects(mobjects)
    return camera.pixel_array.copy()


@pytest.mark.parametrize("seed", range(4))
def test_images_land_as_with_manims_camera(seed):
    with tempconfig({"pixel_width": 320, "pixel_height": 180}):
        mobjects = images(seed)
        np.testing.assert_array_equal(drawn(LessonCamera, mobjects), drawn(Camera, mobjects))


def test_an_image_changes_only_the_pixels_it_covers():
    with tempconfig({"pixel_width": 320, "pixel_height": 180}):
        image = ImageMobject(np.full((4, 4, 4), 200, np.uint8))
        image.height = 1.0
        before = drawn(LessonCamera, [])
        after = drawn(LessonCamera, [image])
        changed = np.argwhere((before != after).any(axis=2))
        # a unit square in the middle of a 320 x 180 frame whose height is 8 units: about 22 pixels across
        assert changed.size and (changed.max(axis=0) - changed.min(axis=0)).max() <= 24
