"""Benchmark rows 8-10: 1080p60 render time against the encoder's floor, the whole lesson against its
running time, and the quality guard of the shipped encoding (bench/compare.py prints them)."""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from attention_math.example import DEFAULT_EXAMPLE, ROOT
from render.encoding import ENCODER
from scenes.lesson import Entry

REFERENCE = {"preset": "medium", "crf": "18"}  # the quality guard's reference encode of the same frames
Row = Callable[[str, float | None, str], None]


def timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Run ``command`` niced from the repository root: its wall-clock and CPU seconds (children included)."""
    before, started = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    result = subprocess.run(["nice", "-n", "10", *command], cwd=ROOT, env=env, capture_output=True, text=True)
    wall, after = time.perf_counter() - started, resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode:
        sys.exit(f"benchmark stopped: {' '.join(command)} exited {result.returncode}\n{result.stderr[-2000:]}")
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def x264_flags(options: dict[str, str]) -> list[str]:
    return ["-c:v", "libx264", *[arg for key, value in options.items() for arg in (f"-{key}", value)]]


def encode_floor(clip: Path) -> tuple[float, float]:
    """Decode the clip's frames and encode them again with the shipped libx264 settings, to nowhere."""
    return timed(["ffmpeg", "-v", "error", "-i", str(clip), *x264_flags(ENCODER), "-f", "null", "-"])


#: a worker's render, timed from after the imports (render.py's workers fork from a server that made them): its
#: wall and CPU seconds, TeX's child processes included, into the file named by BENCH_TIMES
WORKER = """
import json, os, resource, sys, time
from render.encoding import use_encoder
import manim.__main__, scenes.kit
use_encoder(json.loads(sys.argv[1]))

def cpu():
    usage = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    return sum(u.ru_utime + u.ru_stime for u in usage)

started, used = time.perf_counter(), cpu()
sys.argv = ["manim", *sys.argv[2:]]
try:
    manim.__main__.main()
finally:
    with open(os.environ["BENCH_TIMES"], "w") as out:
        json.dump([time.perf_counter() - started, cpu() - used], out)
"""


def manim_clip(entry: Entry, media: Path, encoder: dict[str, str]) -> tuple[float, float, Path]:
    """The scene at 1080p60, silent, cold, as a render.py worker runs it (manim's command line through
    render.encoding's hook, after the imports): wall and CPU seconds, the clip."""
    times = media / "times.json"
    env = {**os.environ, "ATTENTION_EXAMPLE": str(DEFAULT_EXAMPLE), "ATTENTION_VOICE": "none",
           "ATTENTION_VOICE_CACHE": str(media / "voice"), "ATTENTION_NARRATION": str(media / "said.json"),
           "BENCH_TIMES": str(times)}  # fmt: skip
    flags = ["-qh", "--disable_caching", "--progress_bar", "none", "--silent", "--max-inflight-encoders", "2",
             "--config_file", str(ROOT / "manim.cfg"), "--media_dir", str(media)]  # fmt: skip
    media.mkdir(parents=True, exist_ok=True)
    timed([sys.executable, "-c", WORKER, json.dumps(encoder), "render", *flags, entry.file, entry.cls], env)
    wall, cpu = json.loads(times.read_text())
    return wall, cpu, next(p for p in (media / "videos").rglob("*.mp4") if "partial_movie_files" not in p.parts)


def length(clip: Path) -> float:
    probe = ["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", str(clip)]
    return float(subprocess.run(probe, capture_output=True, text=True, check=True).stdout)


def scene_rows(scenes: list[Entry], tmp: Path, row: Row) -> dict[str, Path]:
    """Row 8, one per scene: the render against its encode floor, side by side (wall and CPU); the clips."""
    clips = {}
    for entry in scenes:
        wall, cpu, clip = manim_clip(entry, tmp / "hq" / entry.id, ENCODER)
        floor_wall, floor_cpu = encode_floor(clip)
        clips[entry.id] = clip
        row(f"8. {entry.id} at 1080p60 ({length(clip):.1f} s of video), as a worker renders it", wall,
            f"{wall / floor_wall:.2f}× its encode floor ({floor_wall:.1f} s); CPU {cpu:.0f} s against "
            f"{floor_cpu:.0f} s: {cpu / floor_cpu:.2f}×; target ≤ 1.5×")  # fmt: skip
    return clips


def lesson_row(scenes: list[Entry], tmp: Path, row: Row) -> None:
    """Row 9: the lesson at 1080p60, cold, two workers, with the default voice, against its running time."""
    output = tmp / "lesson-hq"
    command = [sys.executable, "render.py", "--quality", "high", "--jobs", "2", "--force", "--output", str(output),
               "--scenes", *[e.id for e in scenes]]  # fmt: skip
    wall, _ = timed(command)
    running = json.loads((output / "manifest.json").read_text(encoding="utf-8"))["lesson"]["duration"]
    row(f"9. {len(scenes)} scenes at 1080p60, render.py --jobs 2 --force (cold)", wall,
        f"{wall / float(running):.2f}× the lesson's running time ({float(running):.0f} s); target ≤ 0.5×")  # fmt: skip


def ssim(clip: Path, reference: Path) -> float:
    command = ["ffmpeg", "-i", str(clip), "-i", str(reference), "-lavfi", "ssim", "-f", "null", "-"]
    result = subprocess.run(["nice", "-n", "10", *command], capture_output=True, text=True)
    found = re.search(r"All:([0-9.]+)", result.stderr)
    if not found:
        sys.exit(f"benchmark stopped: no SSIM from ffmpeg\n{result.stderr[-1000:]}")
    return float(found.group(1))


def guard_row(entry: Entry, tmp: Path, row: Row, clip: Path | None) -> None:
    """Row 10: the shipped clip (row 8's, if it ran) against a reference encode (medium, CRF 18) of the same
    frames: manim draws them again, deterministically, for the reference encoder."""
    clip = clip or manim_clip(entry, tmp / "guard", ENCODER)[2]
    reference = manim_clip(entry, tmp / "guard-reference", REFERENCE)[2]
    probe = subprocess.run(["ffprobe", "-v", "error", "-of", "json", "-show_entries", "stream=profile,pix_fmt",
                            str(clip)], capture_output=True, text=True, check=True)  # fmt: skip
    stream = json.loads(probe.stdout)["streams"][0]
    score, size = ssim(clip, reference), clip.stat().st_size / reference.stat().st_size
    settings = " ".join(f"{k}={v}" for k, v in ENCODER.items())
    row(f"10. quality guard, {entry.id}: {settings} against medium CRF 18", None,
        f"SSIM {score:.4f} (≥ 0.98), size {size:.2f}× (≤ 1.5×), {stream['profile']} {stream['pix_fmt']}")  # fmt: skip
