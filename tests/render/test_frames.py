"""The frames of a small real lesson: first frames, thumbnails and slide posters show content; no long stills.

Reads the session's rendered lesson (two real scenes with slides, tests/conftest.py); every scene is also
checked without rendering in tests/scenes/test_scenes.py (scenes.framing).
"""

from __future__ import annotations

import json
import re
import subprocess
from io import BytesIO
from pathlib import Path

import numpy as np
import pptx
import pytest
from PIL import Image
from pptx.opc.constants import RELATIONSHIP_TYPE

from scenes.framing import BACKGROUND_TOLERANCE, MAX_STILL, MIN_FIRST_CONTENT
from scenes.kit.palette import BACKGROUND


def content(image: Image.Image) -> float:
    """Share of the pixels that differ from the lesson's background."""
    pixels = np.asarray(image.convert("RGB"), dtype=int)
    background = np.array(BACKGROUND.to_int_rgb())
    return float((np.abs(pixels - background).max(axis=2) > BACKGROUND_TOLERANCE).mean())


def first_frame(video: Path) -> Image.Image:
    command = ["ffmpeg", "-v", "error", "-i", str(video), "-frames:v", "1", "-f", "image2pipe", "-c:v", "png", "-"]
    return Image.open(BytesIO(subprocess.run(command, capture_output=True, check=True).stdout))


def longest_still(video: Path) -> float:
    """The longest stretch without a changed frame (ffmpeg's mpdecimate keeps only frames that differ)."""
    command = ["ffmpeg", "-nostdin", "-i", str(video), "-vf", "mpdecimate,showinfo", "-an", "-f", "null", "-"]
    log = subprocess.run(command, capture_output=True, text=True, check=True).stderr
    probe = ["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", str(video)]
    duration = float(subprocess.run(probe, capture_output=True, text=True, check=True).stdout)
    shown = [float(t) for t in re.findall(r"pts_time:([\d.]+)", log)] + [duration]
    return max(b - a for a, b in zip(shown, shown[1:], strict=False))


def clips(lesson: Path) -> list[dict]:
    return json.loads((lesson / "manifest.json").read_text(encoding="utf-8"))["scenes"]


def test_every_clip_opens_on_content(lesson: Path) -> None:
    shares = {c["id"]: content(first_frame(lesson / c["file"])) for c in clips(lesson)}
    assert shares and all(share >= MIN_FIRST_CONTENT for share in shares.values()), shares


def test_every_thumbnail_shows_content(lesson: Path) -> None:
    shares = {c["id"]: content(Image.open(lesson / c["thumbnail"])) for c in clips(lesson)}
    assert shares and all(share >= MIN_FIRST_CONTENT for share in shares.values()), shares


def test_every_pptx_poster_shows_content(lesson: Path) -> None:
    deck = pptx.Presentation(str(lesson / "slides" / "lesson.pptx"))
    shares = []
    for slide in deck.slides:
        posters = [rel.target_part for rel in slide.part.rels.values() if rel.reltype == RELATIONSHIP_TYPE.IMAGE]
        shares += [content(Image.open(BytesIO(poster.blob))) for poster in posters]
    assert len(shares) >= len(deck.slides)
    assert min(shares) >= MIN_FIRST_CONTENT, [round(s, 3) for s in shares]


def test_no_clip_holds_a_frame_too_long(lesson: Path) -> None:
    stills = {c["id"]: longest_still(lesson / c["file"]) for c in clips(lesson)}
    assert stills and max(stills.values()) <= MAX_STILL, stills


pytestmark = [pytest.mark.render]  # reads the session's rendered lesson
