"""Video files: probing with ffprobe, thumbnails, and the joined lesson with chapters and subtitles."""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import srt

from scenes.lesson import LESSON

from .files import stamp, write_atomically
from .manifest import Chapter, LessonRecord, SceneRecord

VIDEO_EXTENSIONS = (".mp4", ".mov", ".webm", ".gif")
RATE = 48_000  # Hz, stereo: what every player expects of AAC and Opus
LIMITER_CEILING = -2.0  # dBFS sample peaks: true peaks and the encoder's overshoot stay under -1 dBTP
#: ffmpeg's limiter at :data:`LIMITER_CEILING`, gain untouched (level=0), before every AAC or Opus encode
PEAK_LIMITER = f"alimiter=limit={10 ** (LIMITER_CEILING / 20):.4f}:attack=2:release=50:level=0"
#: AAC with ffmpeg's fast coder (its default, twoloop, took 45 s for the 22-minute lesson's sound, the fast one 20 s),
#: without noise substitution, temporal noise shaping, intensity or mid/side stereo: a quarter faster again (10.5 s
#: against 14.2 for the 35-minute lesson), and closer to the source (25.3 dB SNR against 21.6, the lesson's first
#: 5 minutes decoded), as the track is one voice, the same on both channels
AAC = ["-c:a", "aac", "-aac_coder", "fast", "-b:a", "128k"]
AAC += ["-aac_pns", "0", "-aac_tns", "0", "-aac_is", "0", "-aac_ms", "0"]
AUDIO_CODECS = {".mp4": AAC, ".mov": AAC, ".webm": ["-c:a", "libopus", "-b:a", "96k"]}
TITLE = "Self-attention, animated"


class CheckError(Exception):
    """A file manim or ffmpeg wrote is not a complete, decodable video."""


def run_tool(command: list[str], **options: Any) -> subprocess.CompletedProcess[Any]:
    """Run ffmpeg or ffprobe with its output captured and no terminal input: in a background process
    group, a tool touching the terminal would be stopped (SIGTTIN) and render.py would wait forever."""
    return subprocess.run(command, capture_output=True, stdin=subprocess.DEVNULL, **options)


def ffprobe(path: Path, *options: str) -> dict[str, Any]:
    result = run_tool(["ffprobe", "-v", "error", "-of", "json", *options, str(path)], text=True, process_group=0)
    if result.returncode:
        raise CheckError(f"ffprobe cannot read {path.name}: {result.stderr.strip()[-300:]}")
    info: dict[str, Any] = json.loads(result.stdout)
    return info


def probe_video(path: Path, fps: int | None) -> tuple[float, int]:
    """Duration and frame count of a video, after checking it is complete.

    Counts the packets of the video stream (every frame of these codecs is one packet) and,
    when ``fps`` is given, requires about ``duration * fps`` of them.
    """
    entries = "stream=nb_read_packets,duration:format=duration"
    info = ffprobe(path, "-count_packets", "-select_streams", "v:0", "-show_entries", entries)
    if not info.get("streams"):
        raise CheckError(f"{path.name} has no video stream")
    stream = info["streams"][0]
    frames = int(stream.get("nb_read_packets", 0))
    duration = float(stream.get("duration") or info.get("format", {}).get("duration") or 0)
    if frames < 1 or duration <= 0:
        raise CheckError(f"{path.name} is empty ({frames} frames, {duration:.2f} s)")
    if fps and abs(frames - duration * fps) > 2:
        raise CheckError(f"{path.name} has {frames} frames for {duration:.2f} s at {fps} fps: incomplete")
    return duration, frames


def write_thumbnail(video: Path, png: Path, fps: int | None) -> None:
    """The last frame of ``video`` as a PNG.

    Seeks to one and a half frames before the end, so ffmpeg writes only the last frame or two.
    """
    near_end = ["-sseof", f"-{1.5 / fps:.4f}"] if fps else []
    for seek in (near_end, []):
        command = ["ffmpeg", "-v", "error", "-y", *seek, "-i", str(video), "-update", "1", str(png)]
        run_tool(command, process_group=0)  # Ctrl-C is render.py's to handle
        if png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n":
            return
    raise CheckError(f"no last frame could be decoded from {video.name}")


# --- the joined lesson --------------------------------------------------------------------


def join_lesson(
    output: Path, clips: list[SceneRecord], previous: LessonRecord | None, work: Path, fps: int
) -> LessonRecord | None:
    """Join ``clips`` (up to date, in lesson order) into ``lesson.<ext>`` with chapters and subtitles.

    Returns the lesson's manifest entry (``None`` when there is no clip). The lesson of the previous
    run is kept when it joined the same clips and is intact.
    """
    if not clips:
        return None
    extension = Path(str(clips[0].file)).suffix
    video, subtitles = output / f"lesson{extension}", output / "lesson.srt"
    # the clips' exact bytes: a clip rendered again (--force) is joined again
    key = hashlib.sha256(json.dumps([c.stamps.get("file") for c in clips]).encode()).hexdigest()
    joined = {c.id for c in clips}
    lesson = LessonRecord(
        file=video.name,
        subtitles=subtitles.name,
        fingerprint=key,
        scenes=[c.id for c in clips],
        chapters=chapters(clips, fps),
        missing=[e.id for e in LESSON if e.id not in joined],
    )
    if previous and previous.is_current(key, output):
        lesson.stamps, lesson.duration = previous.stamps, previous.duration
        return lesson
    work.mkdir(exist_ok=True)
    try:
        concatenate(clips, output, work / video.name, fps)
        duration, _ = probe_video(work / video.name, None)
        write_atomically(subtitles, join_subtitles(clips, output))
        os.replace(work / video.name, video)
        for other in VIDEO_EXTENSIONS:  # a lesson of an earlier run in another format
            if other != extension:
                (output / f"lesson{other}").unlink(missing_ok=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    lesson.duration = round(duration, 3)
    lesson.stamps = {"file": stamp(video), "subtitles": stamp(subtitles)}
    return lesson


def length(clip: SceneRecord, fps: int) -> float:
    """A clip's exact length: its frames at the run's rate (its recorded duration is rounded)."""
    return (clip.frames or 0) / fps


def chapters(clips: list[SceneRecord], fps: int) -> list[Chapter]:
    marks, start_at = [], 0.0
    for clip in clips:
        end = start_at + length(clip, fps)
        marks.append(Chapter(clip.id, f"{clip.chapter}: {clip.title}", round(start_at, 3), round(end, 3)))
        start_at = end
    return marks


def concatenate(clips: list[SceneRecord], output: Path, target: Path, fps: int) -> None:
    """The clips one after another with one chapter marker per scene; the video is not re-encoded.

    With narration, the audio is decoded, each clip's cut to its video's exact length, and encoded
    once: copied through ffmpeg's concat, AAC would lag by its priming delay (21 ms, over a frame).
    """
    listing = target.with_name("clips.txt")
    listing.write_text("".join(f"file {_concat_quote(output / str(c.file))}\n" for c in clips), encoding="utf-8")
    metadata = target.with_name("chapters.txt")
    lines = [";FFMETADATA1", f"title={TITLE}"]
    for mark in chapters(clips, fps):
        lines += [
            "[CHAPTER]",
            "TIMEBASE=1/1000",
            f"START={round(mark.start * 1000)}",
            f"END={round(mark.end * 1000)}",
            f"title={_ffmetadata_escape(mark.title)}",
        ]
    metadata.write_text("\n".join(lines) + "\n", encoding="utf-8")
    inputs = ["-f", "concat", "-safe", "0", "-i", str(listing), "-i", str(metadata)]
    mapping = ["-map_metadata", "1", "-map_chapters", "1"]
    if any(clip.audio for clip in clips):
        inputs += joined_audio_inputs(clips, output)
        mapping += ["-map", "0:v", "-c:v", "copy", "-filter_complex", joined_audio_graph(clips, fps), "-map", "[a]",
                    *AUDIO_CODECS[target.suffix], "-ac", "2", "-ar", str(RATE)]  # fmt: skip
    else:
        mapping += ["-map", "0", "-c", "copy"]
    if target.suffix != ".webm":
        mapping += ["-movflags", "+faststart"]
    result = run_tool(["ffmpeg", "-v", "error", "-y", *inputs, *mapping, str(target)], text=True)
    if result.returncode:
        raise CheckError(f"ffmpeg could not join the lesson: {result.stderr.strip()[-300:]}")


def joined_audio_inputs(clips: list[SceneRecord], output: Path) -> list[str]:
    """One input per clip for its sound: the clip itself, or silence for a clip without any."""
    inputs: list[str] = []
    for clip in clips:
        inputs += ["-i", str(output / str(clip.file))] if clip.audio else ["-f", "lavfi", "-i", f"anullsrc=r={RATE}"]
    return inputs


def joined_audio_graph(clips: list[SceneRecord], fps: int) -> str:
    """Each clip's sound (inputs 2, 3, …) cut to its exact length, then all of them in a row, limited again:
    decoded AAC overshoots its clip's peaks, and a second encode would overshoot once more."""
    parts = [
        f"[{i + 2}:a]aformat=sample_rates={RATE}:channel_layouts=stereo,atrim=end={length(clip, fps):.6f},"
        f"asetpts=N/SR/TB[a{i}]"
        for i, clip in enumerate(clips)
    ]
    inputs = "".join(f"[a{i}]" for i in range(len(clips)))
    return ";".join(parts) + f";{inputs}concat=n={len(clips)}:v=0:a=1,{PEAK_LIMITER}[a]"


def _concat_quote(path: Path) -> str:
    """A path quoted for ffmpeg's concat list (single quotes; a quote inside becomes '\\'')."""
    return "'" + str(path).replace("'", "'\\''") + "'"


def _ffmetadata_escape(text: str) -> str:
    for char in "\\=;#\n":
        text = text.replace(char, "\\" + char)
    return text


def join_subtitles(clips: list[SceneRecord], output: Path) -> str:
    """The clips' subtitles, each shifted by the start of its clip in the lesson."""
    lines, offset = [], 0.0
    for clip in clips:
        if clip.subtitles:
            shift = datetime.timedelta(seconds=offset)
            for line in srt.parse((output / clip.subtitles).read_text(encoding="utf-8")):
                lines.append(srt.Subtitle(0, line.start + shift, line.end + shift, line.content))
        offset += float(clip.duration or 0)
    return str(srt.compose(lines))  # renumbers from 1
