"""How a worker encodes its clips: manim's RGBA frames into libx264 with our settings, converting to YUV only
the part of each frame that changed (the one place that patches manim; render.workers applies it).

Part of every scene's fingerprint (render.plan): a change here renders every clip again.
"""

from __future__ import annotations

from pathlib import Path
from queue import Empty, SimpleQueue
from types import SimpleNamespace
from typing import Any, NamedTuple

import av
import numpy as np

#: libx264 settings of every MP4/MOV clip (manim 0.21 fixes CRF 23 at preset medium). The fastest preset that
#: keeps H.264 High (ultrafast drops to Baseline) and the quality guard (SSIM >= 0.98, at most 1.5x the size of a
#: medium CRF 18 encode): measured in the README's Benchmark section, as were the tunes.
ENCODER: dict[str, str] = {"preset": "superfast", "crf": "23"}
#: pixels around a changed box whose colour changes with it: swscale's 4:2:0 chroma filter spreads a change
#: over its neighbours (2 measured; a random-edit test checks the result against a full conversion)
REACH = 4
#: pixels converted around those and then dropped, so that the filter reads the same neighbours as in a full frame
MARGIN = 8


class Box(NamedTuple):
    """Rows ``top:bottom`` and columns ``left:right`` of a frame."""

    top: int
    bottom: int
    left: int
    right: int


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


def rgba_frame(array: np.ndarray) -> av.VideoFrame:
    """An RGBA frame holding a copy of ``array`` (PyAV's ``from_ndarray`` is 25 times slower at 1080p)."""
    frame = av.VideoFrame(array.shape[1], array.shape[0], "rgba")
    np.copyto(pixels(frame)[0], array)
    return frame


def to_yuv420(array: np.ndarray) -> av.VideoFrame:
    """An RGBA array as a YUV 4:2:0 frame, as libx264 takes it (swscale, one thread: the encoder has the rest)."""
    return rgba_frame(array).reformat(format="yuv420p", threads=1)


class FramePool:
    """Frame buffers handed from the camera to the encoder and back, so that a frame is never copied.

    manim copies the camera's 8 MB frame for the encoder, frame after frame: instead the camera hands its
    buffer over and draws the next frame into a buffer the encoder has finished with.
    """

    def __init__(self) -> None:
        self.free: SimpleQueue[np.ndarray] = SimpleQueue()

    def take(self, like: np.ndarray) -> np.ndarray:
        """A buffer of ``like``'s shape and type (its pixels are stale: the camera draws over all of them)."""
        while True:
            try:
                buffer = self.free.get_nowait()
            except Empty:
                return np.empty_like(like)
            if buffer.shape == like.shape and buffer.dtype == like.dtype:
                return buffer

    def give_back(self, buffer: np.ndarray) -> None:
        self.free.put(buffer)


class YuvFrames:
    """The frames of one partial movie, as YUV 4:2:0: each converts only the box that changed since the last.

    The frame returned is the same object every time, updated in place: libx264 copies each picture as it
    is given, so a frame can change once the encoder has taken it (not true of every encoder).
    """

    def __init__(self, pool: FramePool) -> None:
        self.pool = pool
        self.last: np.ndarray | None = None
        self.yuv: av.VideoFrame | None = None

    def convert(self, frame: np.ndarray) -> av.VideoFrame:
        odd = frame.shape[0] % 2 or frame.shape[1] % 2  # 4:2:0 boxes need even edges
        if self.last is None or self.yuv is None or self.last.shape != frame.shape or odd:
            self.yuv = to_yuv420(frame)
        elif box := changed_box(self.last, frame):
            self.update(frame, box)
        self.close()
        self.last = frame
        return self.yuv

    def close(self) -> None:
        """The last frame is no longer needed: its buffer goes back to the camera."""
        if self.last is not None:
            self.pool.give_back(self.last)
            self.last = None

    def update(self, frame: np.ndarray, box: Box) -> None:
        """Convert ``box`` of ``frame`` with a margin around it, and copy the box into the held frame."""
        assert self.yuv is not None
        height, width = frame.shape[:2]
        inner, outer = widened(box, REACH, height, width), widened(box, REACH + MARGIN, height, width)
        converted = pixels(to_yuv420(np.ascontiguousarray(frame[outer.top : outer.bottom, outer.left : outer.right])))
        for scale, source, target in zip((1, 2, 2), converted, pixels(self.yuv), strict=True):
            rows = slice((inner.top - outer.top) // scale, (inner.bottom - outer.top) // scale)
            columns = slice((inner.left - outer.left) // scale, (inner.right - outer.left) // scale)
            target[inner.top // scale : inner.bottom // scale, inner.left // scale : inner.right // scale] = source[
                rows, columns
            ]


def use_encoder(options: dict[str, str]) -> None:
    """In a worker: make manim 0.21 encode its clips our way.

    manim's ``SceneFileWriter`` fixes libx264 at CRF 23 with no setting for the preset or tune, converts
    every frame (a held frame too, once per repeat) in full from RGBA to YUV, and writes an MP4's index at its
    end. Here: the camera hands each frame to the encoder without a copy (:class:`FramePool`), ``options``
    reach every libx264 stream before its first frame (the codec opens then), a libx264 frame converts only
    what changed since the frame before (:class:`YuvFrames`), and MP4/MOV files get ``+faststart`` (index
    first, so a browser plays a clip before it has all of it).
    """
    from manim.renderer.cairo_renderer import CairoRenderer
    from manim.scene import scene_file_writer as writer

    av_open: Any = av.open
    open_stream = writer.SceneFileWriter.open_partial_movie_stream
    pool = FramePool()

    def get_frame(self: Any) -> np.ndarray:
        """The camera's frame itself; the camera draws the next one into another buffer (every frame is drawn
        over a reset to the background or the static image first)."""
        camera = self.camera
        frame: np.ndarray = camera.pixel_array
        # Cairo contexts are cached by the buffer's id: one left behind could draw into a later array's memory
        camera.pixel_array_to_cairo_context.pop(id(frame), None)
        camera.pixel_array = pool.take(frame)
        return frame

    def open_partial_movie_stream(self: Any, file_path: Any = None) -> None:
        open_stream(self, file_path)
        job = self._current_encode_job
        context = job.stream.codec_context
        if context.name == "libx264" and job.stream.pix_fmt == "yuv420p":
            context.options = {**context.options, **options}
            job.yuv_frames = YuvFrames(pool)

    def encode_and_write_frame(self: Any, frame: Any, num_frames: int) -> None:
        frames: YuvFrames | None = getattr(self, "yuv_frames", None)
        video = frames.convert(frame) if frames else av.VideoFrame.from_ndarray(frame, format="rgba")
        if num_frames > 1 and not frames:
            video = video.reformat(format=self.stream.pix_fmt)  # converted once, not once per repeat
        for _ in range(num_frames):
            video.pts = None  # numbered by the encoder; a reused frame keeps the number it was given
            for packet in self.stream.encode(video):
                self.container.mux(packet)

    def open_container(file: Any, mode: str = "r", **kwargs: Any) -> Any:
        if mode == "w" and Path(str(file)).suffix in (".mp4", ".mov"):
            kwargs["container_options"] = {**kwargs.get("container_options", {}), "movflags": "+faststart"}
        return av_open(file, mode, **kwargs)

    CairoRenderer.get_frame = get_frame  # type: ignore[method-assign]
    writer.SceneFileWriter.open_partial_movie_stream = open_partial_movie_stream  # type: ignore[method-assign]
    writer._PartialMovieEncodeJob._encode_and_write_frame = encode_and_write_frame  # type: ignore[method-assign]
    vars(writer)["av"] = SimpleNamespace(**{**vars(av), "open": open_container})
