"""A clip's narration track: each sentence's speech placed at its cue, levelled, muxed into the clip.

The track is built after manim has written the video (manim's own sound handling is not used:
its caching drops or repeats audio, manim issues #4005 and #4751). Every clip of a voiced run gets
a track of exactly its video's length, silent where nothing is said, so the lesson joins clips
without re-encoding and stays in sync at every chapter.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .media import AUDIO_CODECS, PEAK_LIMITER, RATE, CheckError, run_tool

TARGET_LUFS = -16.0  # integrated loudness of spoken lessons


@dataclass(frozen=True)
class Cue:
    """One spoken sentence: its speech, and when it starts in the clip (seconds)."""

    start: float
    wav: Path


def add_soundtrack(video: Path, cues: list[Cue], duration: float, target: Path) -> None:
    """Write ``video`` with its narration track to ``target`` (the video stream copied, not re-encoded)."""
    if video.suffix not in AUDIO_CODECS:
        raise CheckError(f"{video.suffix} clips cannot carry sound")
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".track-") as work:
        track, measured = mix(cues, duration, Path(work) / "mixed.wav")
        mux(video, track, duration, target, gain(measured))


def gain(measured: float | None) -> str:
    """The filters that bring a track measured at ``measured`` LUFS to the target, peaks held under the ceiling.

    (ffmpeg's loudnorm falls back to dynamic compression on clips shorter than its 3 s window,
    and a plain gain would leave speech's peaks above -1 dBTP.)
    """
    return "anull" if measured is None else f"volume={TARGET_LUFS - measured:.2f}dB,{PEAK_LIMITER}"


def mux(video: Path, track: Path, duration: float, target: Path, filters: str) -> None:
    """The video copied, the track levelled by ``filters`` and encoded beside it, in one pass."""
    command = ["ffmpeg", "-v", "error", "-y", "-i", str(video), "-i", str(track), "-map", "0:v", "-map", "1:a",
               "-af", filters, "-c:v", "copy", *AUDIO_CODECS[video.suffix], "-ac", "2", "-ar", str(RATE),
               "-t", f"{duration:.6f}", *(["-movflags", "+faststart"] if video.suffix != ".webm" else []),
               str(target)]  # fmt: skip
    ffmpeg(command, f"could not add the narration to {video.name}")


def mix(cues: list[Cue], duration: float, target: Path) -> tuple[Path, float | None]:
    """Every cue's speech at its start, silence elsewhere, exactly ``duration`` seconds long, and its integrated
    loudness (EBU R128, measured in the same pass; ``None`` for silence)."""
    inputs = [arg for cue in cues for arg in ("-i", str(cue.wav))]
    if cues:
        delays = "".join(
            f"[{i}:a]aresample={RATE},aformat=channel_layouts=stereo,adelay={round(cue.start * 1000)}:all=1[a{i}];"
            for i, cue in enumerate(cues)
        )
        joined = "".join(f"[a{i}]" for i in range(len(cues)))
        graph = f"{delays}{joined}amix=inputs={len(cues)}:normalize=0:dropout_transition=0,"
    else:
        inputs = ["-f", "lavfi", "-i", f"anullsrc=r={RATE}:cl=stereo"]
        graph = "[0:a]"
    graph += f"apad=whole_dur={duration:.6f},atrim=end={duration:.6f},aformat=channel_layouts=stereo,"
    graph += "asplit[out][meter];[meter]ebur128[done]"
    command = ["ffmpeg", "-hide_banner", "-nostats", "-y", *inputs, "-filter_complex", graph,
               "-map", "[out]", "-ar", str(RATE), "-c:a", "pcm_f32le", str(target),
               "-map", "[done]", "-f", "null", "-"]  # fmt: skip
    return target, loudness(ffmpeg(command, "could not mix the narration"))


def loudness(log: str) -> float | None:
    """The integrated loudness (LUFS) ffmpeg's ebur128 filter wrote to ``log``; ``None`` for silence."""
    integrated = re.search(r"I:\s+(-?[\d.]+|-inf) LUFS", log.split("Summary:")[-1])
    if not integrated:
        raise CheckError(f"could not measure the narration's loudness: {log.strip()[-300:]}")
    if "inf" in integrated.group(1) or float(integrated.group(1)) <= -70:
        return None
    return float(integrated.group(1))


def ffmpeg(command: list[str], failure: str) -> str:
    """Run ``command``; its standard error (where ffmpeg's filters report), or ``failure`` and its end."""
    result = run_tool(command, text=True, process_group=0)  # Ctrl-C is render.py's to handle
    if result.returncode:
        raise CheckError(f"{failure}: {result.stderr.strip()[-300:]}")
    return str(result.stderr)
