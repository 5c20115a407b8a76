"""How workers turn manim's frames into video (render.frames, render.encoding): the changed box, frames handed over
as changes and converted only where they changed, buffers reused, the byte budget, and a real scene through the
whole path, losslessly, against the frames stock manim draws."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
import pytest
from manim import LEFT, Arc, ImageMobject, LineJointType, Mobject, Polygon, Square, Text, tempconfig

from render.frames import Box, Budget, Handover, YuvFrame, changed_box, pixels, widened
from scenes.kit.camera import LessonCamera

HEIGHT, WIDTH = 72, 128


def blank() -> np.ndarray:
    frame = np.zeros((HEIGHT, WIDTH, 4), np.uint8)
    frame[..., 3] = 255
    return frame


def full_conversion(frame: np.ndarray) -> list[np.ndarray]:
    """PyAV's own RGBA to YUV 4:2:0 conversion of the whole frame: what the encoder got before."""
    converted = av.VideoFrame.from_ndarray(frame, format="rgba").reformat(format="yuv420p")
    return [plane.copy() for plane in pixels(converted)]


def edits(seed: int, count: int) -> list[np.ndarray]:
    """A frame after each of ``count`` random painted rectangles (colour edges anywhere, frame edges included)."""
    rng = np.random.default_rng(seed)
    frame, frames = blank(), []
    for _ in range(count):
        frame = frame.copy()
        top, left = rng.integers(0, HEIGHT), rng.integers(0, WIDTH)
        frame[top : top + rng.integers(1, 30), left : left + rng.integers(1, 50), :3] = rng.integers(0, 256, 3)
        frames.append(frame)
    return frames


def test_no_box_for_equal_frames():
    assert changed_box(blank(), blank()) is None


@pytest.mark.parametrize("seed", range(3))
def test_the_box_holds_every_changed_pixel_and_little_else(seed):
    frames = edits(seed, 40)
    for before, after in zip(frames, frames[1:], strict=False):
        changed = np.argwhere((before != after).any(axis=2))
        box = changed_box(before, after)
        if not changed.size:
            assert box is None
            continue
        assert box is not None
        (top, left), (bottom, right) = changed.min(axis=0), changed.max(axis=0) + 1
        assert (box.top, box.bottom) == (top, bottom)
        # columns are compared two pixels at a time: the box may take one more pixel on either side
        assert left - 1 <= box.left <= left and right <= box.right <= right + 1


def test_a_widened_box_has_even_edges_inside_the_frame():
    for box in (Box(0, 1, 0, 1), Box(5, 7, 9, 11), Box(70, 72, 125, 128)):
        wide = widened(box, 4, HEIGHT, WIDTH)
        assert all(edge % 2 == 0 for edge in wide)
        assert 0 <= wide.top <= box.top and box.bottom <= wide.bottom <= HEIGHT
        assert 0 <= wide.left <= box.left and box.right <= wide.right <= WIDTH


def through_the_handover(pictures: list[np.ndarray]) -> Iterator[av.VideoFrame]:
    """Each picture as the encoder's thread gets it: handed over as a change, applied to the movie's YUV frame."""
    handover, movie = Handover(), YuvFrame()
    for picture in pictures:
        yield movie.apply(handover.delta(picture.copy(), stream="movie"))  # a buffer the camera gave away


@pytest.mark.parametrize("seed", range(5))
def test_converting_only_what_changed_gives_the_full_conversion(seed):
    pictures = edits(seed, 200)
    for picture, frame in zip(pictures, through_the_handover(pictures), strict=True):
        for got, want in zip(pixels(frame), full_conversion(picture), strict=True):
            np.testing.assert_array_equal(got, want)


def encode(frames: Iterable[av.VideoFrame]) -> list[bytes]:
    """The packets libx264 makes of ``frames``, each encoded as it comes (as a partial movie's stream does)."""
    codec = av.CodecContext.create("libx264", "w")
    codec.width, codec.height, codec.pix_fmt, codec.time_base = WIDTH, HEIGHT, "yuv420p", Fraction(1, 60)
    codec.options = {"preset": "superfast", "crf": "23"}
    packets = []
    for index, frame in enumerate(frames):
        frame.pts = index
        packets += [bytes(packet) for packet in codec.encode(frame)]
    return packets + [bytes(packet) for packet in codec.encode(None)]


def test_libx264_takes_a_frame_updated_in_place_as_it_takes_fresh_frames():
    pictures, objects = edits(7, 60), set()

    def in_place() -> Iterator[av.VideoFrame]:
        for frame in through_the_handover(pictures):
            objects.add(id(frame))
            yield frame

    reused = encode(in_place())
    assert len(objects) == 1  # one frame object, changed between encodes
    fresh = encode(av.VideoFrame.from_ndarray(p, format="rgba").reformat(format="yuv420p") for p in pictures)
    assert reused == fresh


def test_a_movie_starts_whole_and_the_camera_gets_each_buffer_back_once_compared():
    with tempconfig({"pixel_width": WIDTH, "pixel_height": HEIGHT}):
        camera, handover = LessonCamera(), Handover()
        first = handover.hand_over(camera)
        assert camera.pixel_array is not first  # handed over, not copied
        assert handover.delta(first, "a").rgba.shape == first.shape  # nothing to compare with: the whole frame
        camera.reset()
        second = handover.hand_over(camera)
        unchanged = handover.delta(second, "a")  # nothing drawn on either: equal, without looking
        assert unchanged.rgba is None and unchanged.size == 0
        assert [buffer for buffer, _ in camera.spare] == [first]  # compared with second, first goes back
        third = handover.hand_over(camera)
        assert camera.pixel_array is first and third is not first
        assert handover.delta(third, "b").rgba.shape == third.shape  # another movie starts whole


def test_a_reset_copies_back_only_the_ink():
    with tempconfig({"pixel_width": WIDTH, "pixel_height": HEIGHT}):
        camera = LessonCamera()
        camera.capture_mobjects([Square(0.5, fill_opacity=1).shift(LEFT)])
        ink = camera.ink.box
        assert ink is not None and ink.right <= WIDTH // 2  # the square is in the left half
        camera.pixel_array[:, WIDTH // 2 :] = 7  # outside the ink: a reset has no reason to touch these
        camera.reset()
        inside = (slice(ink.top, ink.bottom), slice(ink.left, ink.right))
        assert np.array_equal(camera.pixel_array[inside], camera.background[inside])  # the square is gone
        assert (camera.pixel_array[:, WIDTH // 2 :] == 7).all()


def shapes(seed: int) -> list[Mobject]:
    """Random things to draw: fills, thick mitred and round strokes, text, arcs, images, some off the frame."""
    rng = np.random.default_rng(seed)

    def u(low: float, high: float) -> float:
        return float(rng.uniform(low, high))

    made: list[Mobject] = []
    for _ in range(6):
        kind = rng.integers(5)
        if kind == 0:
            made.append(Square(u(0.1, 3), fill_opacity=u(0, 1)))
        elif kind == 1:
            corners = [[*rng.uniform(-2, 2, 2), 0] for _ in range(3)]
            made.append(Polygon(*corners, stroke_width=u(1, 40), joint_type=LineJointType.MITER))
        elif kind == 2:
            made.append(Text("Wq·k", font_size=u(10, 60)))
        elif kind == 3:
            made.append(
                Arc(float(rng.uniform(0.2, 2)), float(rng.uniform(0, 6)), stroke_width=float(rng.uniform(1, 20)))
            )
        else:
            made.append(
                ImageMobject(rng.integers(0, 256, (3, 4, 4), dtype=np.uint8)).set(height=float(rng.uniform(0.2, 2)))
            )
        made[-1].move_to([u(-8, 8), u(-5, 5), 0]).rotate(u(0, 3))
    return made


@pytest.mark.parametrize("seed", range(8))
def test_the_ink_holds_every_pixel_drawn(seed):
    """Nothing outside the ink may differ from the background: resets and the search for changes rely on it."""
    with tempconfig({"pixel_width": 320, "pixel_height": 180}):
        camera = LessonCamera()
        camera.capture_mobjects(shapes(seed))
        drawn = np.argwhere((camera.pixel_array != camera.background).any(axis=2))
        assert drawn.size, "something was drawn"
        ink = camera.ink.box
        assert ink is not None
        assert ink.top <= drawn[:, 0].min() and drawn[:, 0].max() < ink.bottom
        assert ink.left <= drawn[:, 1].min() and drawn[:, 1].max() < ink.right


def test_the_budget_holds_the_camera_until_the_encoder_gives_bytes_back():
    budget, taken = Budget(100), threading.Event()
    budget.take(80, failed=lambda: False)
    waiter = threading.Thread(target=lambda: (budget.take(50, failed=lambda: False), taken.set()))
    waiter.start()
    assert not taken.wait(0.3)  # 80 + 50 > 100: it waits
    budget.give_back(80)
    assert taken.wait(5)
    waiter.join()
    budget.give_back(50)
    budget.take(1000, failed=lambda: False)  # more than the limit, but nothing waits: it must not stall


def test_a_failed_encoder_does_not_hold_the_camera():
    budget = Budget(100)
    budget.take(100, failed=lambda: False)
    started = time.monotonic()
    budget.take(10, failed=lambda: True)  # the encoder failed and drops what waits: no bytes will come back
    assert time.monotonic() - started < 2


# --- real scenes, end to end ---------------------------------------------------------------------------------

MOVING_SCENE = '''
import numpy as np
from manim import *

from scenes.kit import base


class Moving(Scene):
    """Small moves, thick mitred strokes, an image, a flash round a figure, a full-frame fade and a hold."""

    def __init__(self, **kwargs):
        super().__init__(camera_class=base.LessonCamera, **kwargs)  # as lesson scenes: the runner picks it

    def construct(self):
        squares = VGroup(*(Square(0.8, fill_opacity=0.6, color=c) for c in (BLUE, ORANGE, GREEN))).arrange(RIGHT)
        label = Text("softmax", font_size=36).next_to(squares, DOWN)
        spike = Polygon(LEFT, RIGHT, 0.2 * UP + 0.9 * RIGHT, stroke_width=30, joint_type=LineJointType.MITER)
        image = ImageMobject(np.arange(48, dtype=np.uint8).reshape(2, 6, 4) * 5).set(height=1).to_corner(UL)
        self.add(squares, label, spike.to_edge(UP), image)
        self.play(squares[1].animate.shift(0.05 * UP), spike.animate.rotate(0.3), image.animate.shift(0.3 * DOWN))
        self.play(ShowPassingFlash(SurroundingRectangle(squares, color=YELLOW), time_width=0.3), run_time=1)
        self.wait(0.5)
        self.play(FadeOut(squares), Transform(label, Text("attention", font_size=48)), run_time=0.7)
'''
#: stock manim (manim's own camera, also for lesson scenes), or the lesson camera through the workers' encoder
#: at CRF 0: libx264 keeps the YUV it is given exactly
RUNNER = """
import sys
import manim
import scenes.kit.base
if sys.argv[1] == "stock":
    scenes.kit.base.LessonCamera = manim.Camera
else:
    from render.encoding import use_encoder
    use_encoder({"preset": "superfast", "crf": "0"})
from manim.__main__ import main
sys.argv = ["manim", *sys.argv[2:]]
main()
"""


def manim(cwd: Path, way: str, *arguments: str) -> None:
    flags = ["-ql", "--disable_caching", "--progress_bar", "none", "--media_dir", str(cwd / "media")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "ATTENTION_VOICE": "none"}
    subprocess.run([sys.executable, "-c", RUNNER, way, "render", *flags, *arguments], cwd=cwd, env=env, check=True,
                   capture_output=True, timeout=600)  # fmt: skip


def drawn_by_manim(tmp_path: Path, file: Path, scene: str) -> tuple[list, list]:
    """The YUV of every PNG stock manim writes, and every frame of the lesson camera's lossless video."""
    manim(tmp_path, "stock", "--format", "png", str(file), scene)
    manim(tmp_path, "lesson", str(file), scene)
    expected = []
    for png in sorted((tmp_path / "media" / "images").rglob(f"{scene}*.png")):
        with av.open(str(png)) as image:
            expected.append(full_conversion(next(image.decode(video=0)).to_ndarray(format="rgba")))
    video = next(p for p in (tmp_path / "media" / "videos").rglob(f"{scene}.mp4") if "partial" not in str(p))
    with av.open(str(video)) as container:
        return expected, [pixels(frame) for frame in container.decode(video=0)]


def assert_every_drawing_kept(expected: list, decoded: list) -> None:
    """manim writes one PNG for a held frame (a wait) and the video holds it: a frame may repeat the one before."""
    matched = 0
    for index, planes in enumerate(decoded):
        if matched < len(expected) and same(planes, expected[matched]):
            matched += 1
        else:
            assert matched and same(planes, expected[matched - 1]), f"frame {index} is not what manim drew"
    assert matched == len(expected) > 30 and len(decoded) >= len(expected)


def same(planes: list[np.ndarray], others: list[np.ndarray]) -> bool:
    return all(np.array_equal(a, b) for a, b in zip(planes, others, strict=True))


@pytest.mark.render
def test_a_small_scene_through_the_lesson_camera_and_encoder_keeps_every_frame_manim_draws(tmp_path):
    (tmp_path / "moving.py").write_text(MOVING_SCENE)
    expected, decoded = drawn_by_manim(tmp_path, tmp_path / "moving.py", "Moving")
    assert_every_drawing_kept(expected, decoded)
    assert len(decoded) > len(expected)  # the wait is one drawing held


@pytest.mark.render
def test_a_lesson_scene_through_the_lesson_camera_and_encoder_keeps_every_frame_manim_draws(tmp_path):
    """scale-softmax: highlights while it speaks, transforms, numbers counting: every frame as stock manim draws it."""
    from attention_math.example import ROOT

    expected, decoded = drawn_by_manim(tmp_path, ROOT / "scenes" / "worked_scores.py", "NormalizeScores")
    assert_every_drawing_kept(expected, decoded)
