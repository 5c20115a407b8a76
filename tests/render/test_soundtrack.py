"""The narration track: speech at its cues, levelled to -16 LUFS, exactly the clip's length (real ffmpeg)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from render.manifest import SceneRecord
from render.media import concatenate
from render.soundtrack import Cue, add_soundtrack

FPS = 60
FRAME = 1 / FPS


def ffmpeg(*args: str) -> str:
    result = subprocess.run(["ffmpeg", "-hide_banner", "-nostats", *args], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stderr


def video(path: Path, seconds: float, extension: str = "mp4") -> Path:
    codec = ["-c:v", "libvpx-vp9"] if extension == "webm" else ["-c:v", "libx264", "-pix_fmt", "yuv420p"]
    target = path / f"video-{seconds}.{extension}"
    ffmpeg("-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc=size=160x90:rate={FPS}", "-t", str(seconds), *codec,
           str(target))  # fmt: skip
    return target


def tone(path: Path, seconds: float, frequency: int = 440) -> Path:
    """A quiet tone (far from the target loudness), mono at 22,050 Hz like the voice."""
    target = path / f"tone-{frequency}-{seconds}.wav"
    source = f"sine=frequency={frequency}:duration={seconds}:sample_rate=22050"
    ffmpeg("-v", "error", "-y", "-f", "lavfi", "-i", source, "-af", "volume=-30dB", str(target))
    return target


def streams(path: Path) -> dict[str, dict]:
    command = ["ffprobe", "-v", "error", "-of", "json", "-show_streams", str(path)]
    info = json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)
    return {s["codec_type"]: s for s in info["streams"]}


def onsets(path: Path) -> list[float]:
    """Where sound starts after silence (ffmpeg's silencedetect)."""
    log = ffmpeg("-i", str(path), "-af", "silencedetect=n=-50dB:d=0.1", "-f", "null", "-")
    return [float(x) for x in re.findall(r"silence_end: ([\d.]+)", log)]


def loudness(path: Path) -> tuple[float, float]:
    """Integrated loudness (LUFS) and true peak (dBTP), measured by ffmpeg's ebur128 scanner."""
    log = ffmpeg("-i", str(path), "-af", "ebur128=peak=true", "-f", "null", "-").split("Summary:")[-1]
    integrated = float(re.search(r"I:\s+(-?[\d.]+) LUFS", log).group(1))
    peak = float(re.search(r"Peak:\s+(-?[\d.]+) dBFS", log).group(1))
    return integrated, peak


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("soundtrack")


def test_speech_starts_at_its_cue_and_the_track_is_as_long_as_the_clip(folder: Path):
    clip = video(folder, 4.25)
    target = folder / "voiced.mp4"
    add_soundtrack(clip, [Cue(1.0, tone(folder, 0.8)), Cue(2.5, tone(folder, 1.0, 660))], 4.25, target)
    found = streams(target)
    assert found["audio"]["codec_name"] == "aac" and found["audio"]["sample_rate"] == "48000"
    assert found["video"]["codec_name"] == "h264"
    assert abs(float(found["audio"]["duration"]) - 4.25) <= FRAME
    first, second = onsets(target)[:2]
    assert abs(first - 1.0) <= FRAME and abs(second - 2.5) <= FRAME


def test_the_track_is_levelled_to_minus_16_lufs_under_minus_1_dbtp(folder: Path):
    clip = video(folder, 6.0)
    target = folder / "levelled.mp4"
    cues = [Cue(0.5 + 1.4 * i, tone(folder, 1.2, 300 + 100 * i)) for i in range(4)]
    add_soundtrack(clip, cues, 6.0, target)
    integrated, peak = loudness(target)
    assert abs(integrated - -16.0) <= 1.0, integrated
    assert peak <= -1.0, peak


def test_a_clip_without_narration_gets_silence_of_its_length(folder: Path):
    clip = video(folder, 2.0)
    target = folder / "silent.mp4"
    add_soundtrack(clip, [], 2.0, target)
    audio = streams(target)["audio"]
    assert abs(float(audio["duration"]) - 2.0) <= FRAME
    log = ffmpeg("-i", str(target), "-af", "volumedetect", "-f", "null", "-")
    assert "max_volume: -91" in log, log  # digital silence


def test_webm_clips_carry_opus(folder: Path):
    clip = video(folder, 1.5, "webm")
    target = folder / "voiced.webm"
    add_soundtrack(clip, [Cue(0.2, tone(folder, 0.5))], 1.5, target)
    assert streams(target)["audio"]["codec_name"] == "opus"


def test_the_joined_lesson_keeps_every_chapter_in_sync(folder: Path):
    """A tone at the start of each clip must start its chapter, to one frame, over the whole lesson."""
    lengths = [3.5, 137 / FPS, 241 / FPS, 2.0]  # whole frames, not whole milliseconds
    records = []
    for i, seconds in enumerate(lengths):
        voiced = folder / f"clip{i}.mp4"
        add_soundtrack(video(folder, seconds), [Cue(0.0, tone(folder, 0.5, 500))], seconds, voiced)
        records.append(SceneRecord(f"s{i}", f"S{i}", "C", file=voiced.name, frames=round(seconds * FPS), audio=True))
    lesson = folder / "lesson.mp4"
    concatenate(records, folder, lesson, FPS)
    starts = [sum(lengths[:i]) for i in range(1, len(lengths))]
    found = onsets(lesson)
    assert len(found) >= len(starts)
    for start, onset in zip(starts, found, strict=False):
        assert abs(onset - start) <= FRAME, (start, onset)
    info = streams(lesson)
    assert abs(float(info["audio"]["duration"]) - sum(lengths)) <= FRAME
    assert int(info["video"]["nb_frames"]) == sum(r.frames for r in records), "every frame copied once"
