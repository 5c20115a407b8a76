"""How workers turn manim's frames into video (render.encoding): the changed box, the conversion of only that
box, buffers handed over without copies, and a real scene through the whole path, losslessly, against the
frames stock manim draws."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable, Iterator
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
import pytest

from render.encoding import Box, FramePool, YuvFrames, changed_box, pixels, widened

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


@pytest.mark.parametrize("seed", range(5))
def test_converting_only_what_changed_gives_the_full_conversion(seed):
    frames = YuvFrames(FramePool())
    for frame in edits(seed, 200):
        got = pixels(frames.convert(frame))
        for got_plane, want_plane in zip(got, full_conversion(frame), strict=True):
            np.testing.assert_array_equal(got_plane, want_plane)


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
    pictures = edits(7, 60)
    converter, objects = YuvFrames(FramePool()), set()

    def in_place() -> Iterator[av.VideoFrame]:
        for picture in pictures:
            frame = converter.convert(picture)
            objects.add(id(frame))
            yield frame

    reused = encode(in_place())
    assert len(objects) == 1  # one frame object, changed between encodes
    assert reused == encode(av.VideoFrame.from_ndarray(p, format="rgba").reformat(format="yuv420p") for p in pictures)


def test_a_buffer_given_back_is_taken_again_and_only_for_its_shape():
    pool = FramePool()
    frame = blank()
    pool.give_back(frame)
    assert pool.take(frame) is frame
    pool.give_back(frame)
    other = pool.take(np.zeros((2, 2, 4), np.uint8))
    assert other is not frame and other.shape == (2, 2, 4)


# --- a real scene, end to end ------------------------------------------------------------------------------

MOVING_SCENE = '''
from manim import *


class Moving(Scene):
    """Small moves, a flash travelling round a figure, a full-frame fade and a hold: every kind of frame."""

    def construct(self):
        squares = VGroup(*(Square(0.8, fill_opacity=0.6, color=c) for c in (BLUE, ORANGE, GREEN))).arrange(RIGHT)
        label = Text("softmax", font_size=36).next_to(squares, DOWN)
        self.add(squares, label)
        self.play(squares[1].animate.shift(0.05 * UP), run_time=0.5)
        self.play(ShowPassingFlash(SurroundingRectangle(squares, color=YELLOW), time_width=0.3), run_time=1)
        self.wait(0.5)
        self.play(FadeOut(squares), Transform(label, Text("attention", font_size=48)), run_time=0.7)
'''
RUNNER = (
    "import sys; from render.encoding import use_encoder; use_encoder({'preset': 'superfast', 'crf': '0'})\n"
    "from manim.__main__ import main; sys.argv = ['manim', *sys.argv[1:]]; main()"
)


def manim(tmp_path: Path, *arguments: str, hooked: bool) -> None:
    command = ["-c", RUNNER] if hooked else ["-m", "manim"]
    flags = ["-ql", "--disable_caching", "--progress_bar", "none", "--media_dir", str(tmp_path / "media")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    subprocess.run([sys.executable, *command, "render", *flags, *arguments, str(tmp_path / "moving.py"), "Moving"],
                   cwd=tmp_path, env=env, check=True, capture_output=True)  # fmt: skip


@pytest.mark.render
def test_a_scene_through_the_workers_encoder_keeps_every_frame_manim_draws(tmp_path):
    """Stock manim writes each frame as a PNG; through render.encoding (CRF 0: libx264 keeps the YUV it is
    given exactly) every decoded frame must be PyAV's full conversion of that PNG."""
    (tmp_path / "moving.py").write_text(MOVING_SCENE)
    manim(tmp_path, "--format", "png", hooked=False)
    manim(tmp_path, hooked=True)
    pngs = sorted((tmp_path / "media" / "images" / "moving").glob("Moving*.png"))
    expected = []
    for png in pngs:
        with av.open(str(png)) as image:
            expected.append(full_conversion(next(image.decode(video=0)).to_ndarray(format="rgba")))
    video = next((tmp_path / "media" / "videos" / "moving" / "480p15").glob("Moving.mp4"))
    with av.open(str(video)) as container:
        decoded = [pixels(frame) for frame in container.decode(video=0)]
    # manim writes one PNG for a held frame (a wait) and the video holds it: a frame may repeat the one before
    matched = 0
    for index, planes in enumerate(decoded):
        if matched < len(expected) and same(planes, expected[matched]):
            matched += 1
        else:
            assert matched and same(planes, expected[matched - 1]), f"frame {index} is not what manim drew"
    assert matched == len(expected) > 30 and len(decoded) > len(expected)  # every drawing, and a held frame


def same(planes: list[np.ndarray], others: list[np.ndarray]) -> bool:
    return all(np.array_equal(a, b) for a, b in zip(planes, others, strict=True))
