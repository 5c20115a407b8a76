"""A clip's narration track: each sentence's speech placed at its cue, levelled, muxed into the clip.

The track is built after manim has written the video (manim's own sound handling is not used:
its caching drops or repeats audio, manim issues #4005 and #4751). Every clip of a voiced run gets
a track of exactly its video's length, silent where nothing is said, so the lesson joins clips
without re-encoding and stays in sync at every chapter.
"""

from __future__ import annotations

import math
import tempfile
import wave
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from scenes.narration.level import loudness, read, resampled, write

from .media import AUDIO_CODECS, PEAK_LIMITER, RATE, CheckError, run_tool

TARGET_LUFS = -16.0  # integrated loudness of spoken lessons
BOTH_CHANNELS = "pan=stereo|c0=c0|c1=c0"  # the mono track on both channels at full level
BOTH_SPEAKERS = 10 * math.log10(2)  # LU: ... which BS.1770 sums, so the stereo track is 3 dB louder


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
    chain = f"aresample={RATE},{BOTH_CHANNELS},{filters}"
    command = ["ffmpeg", "-v", "error", "-y", "-i", str(video), "-i", str(track), "-map", "0:v", "-map", "1:a",
               "-af", chain, "-c:v", "copy", *AUDIO_CODECS[video.suffix], "-ac", "2", "-ar", str(RATE),
               "-t", f"{duration:.6f}", *(["-movflags", "+faststart"] if video.suffix != ".webm" else []),
               str(target)]  # fmt: skip
    ffmpeg(command, f"could not add the narration to {video.name}")


def mix(cues: list[Cue], duration: float, target: Path) -> tuple[Path, float | None]:
    """Every cue's speech at its start, silence elsewhere, exactly ``duration`` seconds long (a mono 16-bit WAV
    at the voice's rate), and its integrated loudness as the stereo track plays it (``None`` for silence).

    Mixed in numpy: an ffmpeg pass (every sentence resampled, mixed and metered at 48 kHz stereo) took
    20 s of the whole lesson's cold render, this 4 s.
    """
    try:
        speech = [(cue.start, *read(cue.wav)) for cue in cues]
    except (OSError, EOFError, wave.Error) as error:
        raise CheckError(f"could not read the narration's speech: {error}") from error
    rate = speech[0][2] if speech else RATE
    track = np.zeros(round(duration * rate))
    for start, samples, own_rate in speech:
        at = round(start * rate)
        part = resampled(samples, own_rate, rate)[: max(0, len(track) - at)]
        track[at : at + len(part)] += part
    write(target, track, rate)
    measured = loudness(track, rate)
    return target, None if measured is None else measured + BOTH_SPEAKERS


def ffmpeg(command: list[str], failure: str) -> str:
    """Run ``command``; its standard error (where ffmpeg's filters report), or ``failure`` and its end."""
    result = run_tool(command, text=True, process_group=0)  # Ctrl-C is render.py's to handle
    if result.returncode:
        raise CheckError(f"{failure}: {result.stderr.strip()[-300:]}")
    return str(result.stderr)
