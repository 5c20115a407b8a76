"""Frames from manim's camera to libx264 as what changed: a frame leaves the main thread as the box of it that
differs from the frame before (a delta), and the encoder's thread converts only that box into the YUV frame it
keeps. Memory follows the change, so the camera can draw ahead of the encoder through a narrated hold.

render.encoding connects these to manim; part of every scene's fingerprint.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, NamedTuple

import av
import numpy as np

from scenes.kit.camera import UNKNOWN, Box, Ink

#: pixels around a changed box whose colour changes with it: swscale's 4:2:0 chroma filter spreads a change
#: over its neighbours (2 measured; a random-edit test checks the result against a full conversion)
REACH = 4
#: pixels converted around those and then dropped, so that the filter reads the same neighbours as in a full frame
MARGIN = 8


def changed_box(previous: np.ndarray, frame: np.ndarray) -> Box | None:
    """The smallest box holding every pixel that differs between two RGBA frames; ``None`` if they are equal."""
    height = frame.shape[0]
    # two pixels per comparison: a 1080p frame is compared in well under a millisecond
    differs = previous.reshape(height, -1).view(np.uint64) != frame.reshape(height, -1).view(np.uint64)
    rows = np.flatnonzero(differs.any(axis=1))
    if not rows.size:
        return None
    columns = np.flatnonzero(differs[rows[0] : rows[-1] + 1].any(axis=0))
    return Box(int(rows[0]), int(rows[-1]) + 1, 2 * int(columns[0]), 2 * int(columns[-1]) + 2)


def widened(box: Box, by: int, height: int, width: int) -> Box:
    """``box`` grown by ``by`` pixels and out to even edges (4:2:0 chroma covers 2 x 2 pixels), within the frame."""
    return Box(
        max(0, (box.top - by) // 2 * 2),
        min(height, -(-(box.bottom + by) // 2) * 2),
        max(0, (box.left - by) // 2 * 2),
        min(width, -(-(box.right + by) // 2) * 2),
    )


def pixels(frame: av.VideoFrame) -> list[np.ndarray]:
    """Writable views of a frame's planes without their line padding: rows × columns (× 4 for RGBA)."""
    depth = 4 if frame.format.name == "rgba" else 1
    views = []
    for plane in frame.planes:
        lines = np.frombuffer(memoryview(plane), np.uint8).reshape(plane.height, plane.line_size)
        rows = lines[:, : plane.width * depth]
        views.append(rows.reshape(plane.height, plane.width, 4) if depth == 4 else rows)
    return views


def to_yuv420(array: np.ndarray) -> av.VideoFrame:
    """An RGBA array as a YUV 4:2:0 frame, as libx264 takes it (swscale on one thread: the encoder has the rest).

    The array is copied into a frame first: PyAV's ``from_ndarray`` is 25 times slower at 1080p.
    """
    rgba = av.VideoFrame(array.shape[1], array.shape[0], "rgba")
    np.copyto(pixels(rgba)[0], array)
    return rgba.reformat(format="yuv420p", threads=1)


class Delta(NamedTuple):
    """A frame as what changed since the frame before: ``rgba`` covers ``outer``, of which ``inner`` is kept.

    The whole frame when there is no frame before; ``rgba`` is ``None`` when nothing changed.
    """

    inner: Box
    outer: Box
    rgba: np.ndarray | None

    @property
    def size(self) -> int:
        return 0 if self.rgba is None else self.rgba.nbytes


def whole(frame: np.ndarray) -> Delta:
    box = Box(0, frame.shape[0], 0, frame.shape[1])
    return Delta(box, box, frame.copy())


def delta(previous: np.ndarray | None, frame: np.ndarray, within: Box | None = None) -> Delta:
    """``frame`` as a change of ``previous``, looking for changes ``within`` a box only (the camera's ink: nothing
    outside it can differ). The whole frame without a ``previous``, or when boxes cannot be used."""
    height, width = frame.shape[:2]
    if previous is None or previous.shape != frame.shape or height % 2 or width % 2:  # 4:2:0 boxes: even edges
        return whole(frame)
    area = widened(within, 0, height, width) if within else Box(0, height, 0, width)  # even: pixels go in pairs
    part = (slice(area.top, area.bottom), slice(area.left, area.right))
    box = changed_box(previous[part], frame[part]) if area.top < area.bottom and area.left < area.right else None
    if box is None:
        return Delta(Box(0, 0, 0, 0), Box(0, 0, 0, 0), None)
    box = Box(box.top + area.top, box.bottom + area.top, box.left + area.left, box.right + area.left)
    inner, outer = widened(box, REACH, height, width), widened(box, REACH + MARGIN, height, width)
    return Delta(inner, outer, frame[outer.top : outer.bottom, outer.left : outer.right].copy())


def search_box(ink: Ink, before: Ink) -> Box | None:
    """Where a frame can differ from the one before: inside their ink, over one background (``None``: anywhere)."""
    if ink.background is None or ink.background is not before.background:
        return None
    if ink.box is None and before.box is None:
        return Box(0, 0, 0, 0)  # nothing drawn on either: equal
    return ink.box.union(before.box) if ink.box else before.box


class Handover:
    """On the main thread: the camera's frames become deltas, and their buffers go back to it.

    manim copies the camera's 8 MB frame for the encoder, frame after frame. Here a lesson camera hands its buffer
    over with what it holds (:meth:`scenes.kit.camera.LessonCamera.hand_over`); the buffer is kept as the frame
    to compare the next one with, within their ink, and then goes back to the camera to draw into. Another
    camera's frame is copied, as manim does, and compared whole.
    """

    def __init__(self) -> None:
        self.handed: tuple[np.ndarray, Ink, Any] | None = None  # the camera's last frame, its ink, the camera
        self.previous: tuple[np.ndarray, Ink, Any] | None = None
        self.stream: object = None

    def hand_over(self, camera: Any) -> np.ndarray:
        """The camera's frame for manim's renderer (``get_frame``)."""
        frame: np.ndarray
        if hasattr(camera, "hand_over"):
            frame, ink = camera.hand_over()
        else:
            frame, ink = camera.pixel_array.copy(), UNKNOWN
        self.handed = (frame, ink, camera)
        return frame

    def delta(self, frame: np.ndarray, stream: object) -> Delta:
        """``frame`` (handed over by the camera) as a change of the last frame of the same ``stream``."""
        ink, camera = (self.handed[1], self.handed[2]) if self.handed and self.handed[0] is frame else (UNKNOWN, None)
        before = self.previous if stream is self.stream else None
        if before is not None and before[0] is frame:  # the same buffer again: nothing changed
            return delta(frame, frame)
        change = delta(before[0], frame, search_box(ink, before[1])) if before else whole(frame)
        if self.previous is not None and hasattr(self.previous[2], "take_back"):
            self.previous[2].take_back(self.previous[0], self.previous[1])
        self.previous, self.stream = (frame, ink, camera), stream
        return change


class YuvFrame:
    """On an encoder's thread: the YUV 4:2:0 frame of one partial movie, updated by each delta in turn.

    It is the same frame object every time, changed in place: libx264 copies each picture as it is given, so a
    frame can change once the encoder has taken it (not true of every encoder).
    """

    def __init__(self) -> None:
        self.yuv: av.VideoFrame | None = None

    def apply(self, change: Delta) -> av.VideoFrame:
        if change.rgba is not None:
            converted = to_yuv420(change.rgba)
            if self.yuv is None or change.outer == Box(0, self.yuv.height, 0, self.yuv.width):
                self.yuv = converted
            else:
                self.paste(converted, change)
        assert self.yuv is not None, "a partial movie's first frame is whole"
        return self.yuv

    def paste(self, converted: av.VideoFrame, change: Delta) -> None:
        """Copy the kept part of a converted box into the frame (chroma planes at half the resolution)."""
        assert self.yuv is not None
        inner, outer = change.inner, change.outer
        for scale, source, target in zip((1, 2, 2), pixels(converted), pixels(self.yuv), strict=True):
            rows = slice((inner.top - outer.top) // scale, (inner.bottom - outer.top) // scale)
            columns = slice((inner.left - outer.left) // scale, (inner.right - outer.left) // scale)
            place = (slice(inner.top // scale, inner.bottom // scale), slice(inner.left // scale, inner.right // scale))
            target[place] = source[rows, columns]


class Budget:
    """Bytes of deltas waiting for an encoder: the camera draws ahead until they reach ``limit``."""

    def __init__(self, limit: int) -> None:
        self.limit, self.used = limit, 0
        self.changed = threading.Condition()

    def take(self, size: int, failed: Callable[[], bool]) -> None:
        """Wait until ``size`` more bytes fit (one delta always fits when nothing waits), or the encoder ``failed``
        (it then drops what waits without giving it back; manim reports the failure at the next frame)."""
        with self.changed:
            while self.used and self.used + size > self.limit and not failed():
                self.changed.wait(0.5)
            self.used += size

    def give_back(self, size: int) -> None:
        with self.changed:
            self.used -= size
            self.changed.notify_all()
