"""How a worker encodes its clips: manim's frames into libx264 with our settings, as what changed from frame to
frame (render.frames), with an MP4's index first (the one place that patches manim; render.workers applies it).

Part of every scene's fingerprint (render.plan): a change here renders every clip again.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

#: libx264 settings of every MP4/MOV clip (manim 0.21 fixes CRF 23 at preset medium). superfast is the fastest preset
#: that keeps H.264 High (ultrafast drops to Baseline and made files 1.7-1.9x the reference); a fixed B-frame pattern,
#: no scene-cut analysis and full-pixel motion search cut its time a frame by 22 % on these near-still frames (98-99 %
#: of macroblocks skipped), at the same size and SSIM. Measured in docs/benchmark.md, with the guard:
#: SSIM >= 0.98 and at most 1.5x the size of a medium CRF 18 encode of the same frames.
ENCODER: dict[str, str] = {"preset": "superfast", "crf": "23", "x264-params": "b-adapt=0:scenecut=0:subme=0"}
#: bytes of changes the camera may draw ahead of the encoders (a whole 1080p frame is 8 MB; a hold's, kilobytes)
AHEAD = 256 * 2**20


def use_encoder(options: dict[str, str]) -> None:
    """In a worker: make manim 0.21 encode its clips our way.

    manim's ``SceneFileWriter`` fixes libx264 at CRF 23 with no setting for the preset or tune, copies every
    frame for its encoder and converts all of it from RGBA to YUV (a held frame once per repeat), and writes
    an MP4's index at its end. Here: the camera hands each frame over without a copy and a libx264 stream gets
    it as what changed since the frame before (:mod:`render.frames`), bounded by bytes instead of frames;
    ``options`` reach every libx264 stream before its first frame (the codec opens then); MP4/MOV files get
    ``+faststart`` (index first, so a browser plays a clip before it has all of it).
    """
    import av  # in workers only: deciding what to render imports none of this
    from manim.renderer.cairo_renderer import CairoRenderer
    from manim.scene import scene_file_writer as writer

    from .frames import Budget, Handover, YuvFrame

    av_open: Any = av.open
    open_stream = writer.SceneFileWriter.open_partial_movie_stream
    put_frame: Any = writer._PartialMovieEncodeJob.put  # takes our deltas: its queue carries anything
    handover, budget = Handover(), Budget(AHEAD)

    def get_frame(self: Any) -> np.ndarray:
        """The camera's frame itself (a lesson camera draws the next one into another buffer)."""
        return handover.hand_over(self.camera)

    def open_partial_movie_stream(self: Any, file_path: Any = None) -> None:
        open_stream(self, file_path)
        job = self._current_encode_job
        context = job.stream.codec_context
        if context.name == "libx264" and job.stream.pix_fmt == "yuv420p":
            context.options = {**context.options, **options}
            job.yuv = YuvFrame()
            job.queue.maxsize = 0  # waiting frames are bounded by their bytes (budget), not their number

    def put(self: Any, num_frames: int, frame: np.ndarray) -> None:
        """On the main thread: a frame for this partial movie, as a change (libx264) or a copy (other codecs:
        the camera draws into the buffer again)."""
        if not hasattr(self, "yuv"):
            put_frame(self, num_frames, frame.copy())
            return
        change = handover.delta(frame, self)
        budget.take(change.size, lambda: bool(self.failed))
        put_frame(self, num_frames, change)

    def encode_and_write_frame(self: Any, frame: Any, num_frames: int) -> None:
        """On the encoder's thread: a change applied to the movie's YUV frame (or a copy, converted once), encoded
        ``num_frames`` times."""
        if hasattr(self, "yuv"):
            video = self.yuv.apply(frame)
            budget.give_back(frame.size)
        else:
            video = av.VideoFrame.from_ndarray(frame, format="rgba").reformat(format=self.stream.pix_fmt)
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
    writer._PartialMovieEncodeJob.put = put  # type: ignore[method-assign]
    writer._PartialMovieEncodeJob._encode_and_write_frame = encode_and_write_frame  # type: ignore[method-assign]
    vars(writer)["av"] = SimpleNamespace(**{**vars(av), "open": open_container})
