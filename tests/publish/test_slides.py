"""The slide decks of a small real lesson: the PPTX (python-pptx, ffprobe) and the offline reveal.js deck (Chromium).

``render.py --slides`` renders two real scenes at low quality; every slide is one narrated step.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pptx
import pytest
import srt
from bs4 import BeautifulSoup
from pptx.opc.constants import RELATIONSHIP_TYPE

from publish.slides import SlidesError, write_decks
from scenes.lesson import LESSON
from tests.browser.helpers import SCENES, chromium, render_lesson

FRAME = 1 / 15  # low quality: 15 frames per second


def manifest(lesson: Path) -> dict:
    return json.loads((lesson / "manifest.json").read_text(encoding="utf-8"))


def narrations(lesson: Path) -> list[str]:
    """Every narration of the rendered clips, in lesson order (from their subtitles)."""
    lines = []
    for record in manifest(lesson)["scenes"]:
        lines += [cue.content for cue in srt.parse((lesson / record["subtitles"]).read_text(encoding="utf-8"))]
    return lines


def probe(video: Path) -> dict:
    result = subprocess.run(
        ["ffprobe", "-v", "error", "-of", "json", "-show_streams", "-show_format", str(video)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, f"ffprobe cannot read {video}: {result.stderr}"
    return json.loads(result.stdout)


def assert_decodes(video: Path) -> float:
    """Decode every frame of ``video`` with ffmpeg; return its duration."""
    result = subprocess.run(
        ["ffmpeg", "-v", "error", "-i", str(video), "-f", "null", "-"], capture_output=True, text=True
    )
    assert result.returncode == 0 and not result.stderr.strip(), f"{video.name} does not decode: {result.stderr}"
    info = probe(video)
    assert [s["codec_type"] for s in info["streams"]] == ["video"], info["streams"]
    return float(info["format"]["duration"])


def test_pptx_has_one_slide_per_narrated_step_with_its_notes(lesson: Path) -> None:
    deck = pptx.Presentation(str(lesson / "slides" / "lesson.pptx"))
    notes = [slide.notes_slide.notes_text_frame.text for slide in deck.slides]
    assert len(narrations(lesson)) >= 2 * len(SCENES)
    assert notes == narrations(lesson)


def test_every_pptx_slide_holds_a_decodable_video(lesson: Path, tmp_path: Path) -> None:
    deck = pptx.Presentation(str(lesson / "slides" / "lesson.pptx"))
    for number, slide in enumerate(deck.slides, 1):
        media = [rel.target_part for rel in slide.part.rels.values() if rel.reltype == RELATIONSHIP_TYPE.MEDIA]
        assert len(media) == 1, f"slide {number} has {len(media)} media parts"
        video = tmp_path / f"slide{number}{Path(media[0].partname).suffix}"
        video.write_bytes(media[0].blob)
        assert assert_decodes(video) > 0


def test_slides_replay_the_same_scenes_as_the_clips(lesson: Path) -> None:
    """Not a fork: a scene's slides, one after another, last as long as its clip."""
    index = json.loads((lesson / "slides" / "slides.json").read_text(encoding="utf-8"))
    clips = {record["id"]: record for record in manifest(lesson)["scenes"]}
    assert [scene["id"] for scene in index["scenes"]] == list(SCENES)
    assert [scene["first"] for scene in index["scenes"]] == [0, index["scenes"][0]["count"]]
    for scene in index["scenes"]:
        subtitles = (lesson / clips[scene["id"]]["subtitles"]).read_text(encoding="utf-8")
        assert scene["count"] == len(list(srt.parse(subtitles)))
        cls = next(entry.cls for entry in LESSON if entry.id == scene["id"])
        slides = json.loads((lesson / "slides" / ".scenes" / f"{cls}.json").read_text(encoding="utf-8"))["slides"]
        files = [Path(slide["file"]) for slide in slides]
        total = sum(assert_decodes(f) for f in files)
        assert abs(total - clips[scene["id"]]["duration"]) <= (len(files) + 1) * FRAME


def test_html_deck_opens_offline_from_disk(lesson: Path, tmp_path: Path) -> None:
    deck = lesson / "slides" / "lesson.html"
    soup = BeautifulSoup(deck.read_text(encoding="utf-8"), "html.parser")
    links = [
        tag.get(attr) for attr in ("src", "href", "data-background-video") for tag in soup.find_all(attrs={attr: True})
    ]
    assert len(links) > len(narrations(lesson)), links
    for link in links:
        assert "//" not in link, f"{link} is not a local file: the deck must work offline"
        assert (deck.parent / link).is_file(), f"{link} is missing beside the deck"
    problems: list[str] = []
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.on("console", lambda m: m.type == "error" and problems.append(m.text))
        page.on("requestfailed", lambda r: problems.append(f"failed: {r.url}"))
        page.goto(deck.as_uri())
        page.wait_for_function("() => window.Reveal && Reveal.isReady()")
        page.wait_for_function("() => document.querySelector('.slide-background.present video')?.readyState >= 2")
        assert page.evaluate("Reveal.getTotalSlides()") == len(narrations(lesson))
        notes = page.evaluate("Reveal.getSlides().map(slide => Reveal.getSlideNotes(slide).trim())")
        assert [BeautifulSoup(n, "html.parser").get_text() for n in notes] == narrations(lesson)
        page.keyboard.press("ArrowRight")
        page.wait_for_function("() => Reveal.getIndices().h === 1")
        page.screenshot(path=str(tmp_path / "deck.png"))
    assert problems == []


def test_slides_render_through_the_workers_with_progress_and_a_summary(lesson: Path) -> None:
    printed = lesson.with_name(f"{lesson.name}.stdout").read_text(encoding="utf-8")
    ids = [e.id for e in LESSON]
    for scene in SCENES:
        assert f"rendered {ids.index(scene) + 1:02d}-{scene}-slides in" in printed, printed
    slide_count = len(narrations(lesson))
    assert f"slides: slides/lesson.html and slides/lesson.pptx, {slide_count} slides from 2 scenes" in printed


def test_unchanged_scenes_are_not_rendered_again_as_slides(lesson: Path) -> None:
    scenes = sorted((lesson / "slides" / ".scenes").glob("*.json"))
    before = {path: path.stat().st_mtime_ns for path in scenes}
    render_lesson(lesson)
    assert {path: path.stat().st_mtime_ns for path in scenes} == before
    assert "-slides in" not in lesson.with_name(f"{lesson.name}.stdout").read_text(encoding="utf-8")
    assert (lesson / "slides" / "lesson.pptx").is_file() and not list((lesson / "slides").glob("*.part.*"))


def test_no_clip_to_make_slides_from_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(SlidesError, match="manifest.json lists no rendered clip"):
        write_decks(tmp_path, [])


pytestmark = [pytest.mark.render, pytest.mark.browser]  # a rendered lesson, opened in Chromium
