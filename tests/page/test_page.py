"""The lesson page in a real browser: Debian's Chromium, headless through Playwright, on a local static server.

``render.py --slides`` renders two real scenes at low quality; the page must load every video and
subtitle track, seek the lesson from its chapter links, and log no error nor failed request.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
import srt

from publish.page import write_page
from tests.browser.helpers import SCENES, chromium, static_server

ALL_LOADED = """() => [...document.querySelectorAll('video')].every(v =>
    v.readyState >= 1 && v.textTracks.length === 1 && v.textTracks[0].cues && v.textTracks[0].cues.length > 0)"""
VIDEOS = """() => [...document.querySelectorAll('video')].map(v => ({
    id: v.id, duration: v.duration, cues: [...v.textTracks[0].cues].map(c => c.getCueAsHTML().textContent)}))"""


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with chromium() as launched:
        yield launched


def failed(request: object) -> bool:
    """A request that really failed: a video's load that the browser itself cancels (it has the data it
    needs, or the source changed) is reported as ERR_ABORTED and is not a failure."""
    return not (request.resource_type == "media" and "ERR_ABORTED" in (request.failure or ""))


@pytest.fixture(scope="module")
def site(lesson: Path, browser: object) -> Iterator[dict]:
    """The page loaded once from the static server, with every problem the browser reports."""
    problems: list[str] = []
    with static_server(lesson) as base:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("console", lambda m: m.type in ("error", "warning") and problems.append(f"console: {m.text}"))
        page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
        page.on("requestfailed", lambda r: failed(r) and problems.append(f"failed: {r.url} {r.failure}"))
        page.on("response", lambda r: r.status >= 400 and problems.append(f"HTTP {r.status}: {r.url}"))
        page.goto(f"{base}/index.html")
        page.wait_for_function(ALL_LOADED, timeout=20_000)
        yield {"page": page, "base": base, "problems": problems}
        page.close()


def manifest(lesson: Path) -> dict:
    return json.loads((lesson / "manifest.json").read_text(encoding="utf-8"))


def cues(path: Path) -> list[str]:
    return [cue.content for cue in srt.parse(path.read_text(encoding="utf-8"))]


def test_page_shows_the_clips_in_lesson_order(site: dict) -> None:
    page = site["page"]
    assert page.eval_on_selector_all("article.step", "items => items.map(a => a.id)") == list(SCENES)
    assert page.inner_text("section.chapter h2") == "1 Why self-attention"


def test_screenshot(site: dict, tmp_path: Path) -> None:
    """Before any chapter link is clicked: the lesson video shows its poster."""
    shot = tmp_path / "lesson-page.png"
    site["page"].screenshot(path=str(shot), full_page=True)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 50_000
    print(f"screenshot: {shot}")


def test_every_video_loads_its_metadata_and_subtitles(site: dict, lesson: Path) -> None:
    videos = site["page"].evaluate(VIDEOS)
    records = manifest(lesson)["scenes"]
    assert len(videos) == len(SCENES) + 1
    lesson_video, clips = videos[0], videos[1:]
    assert lesson_video["id"] == "lesson"
    assert lesson_video["duration"] == pytest.approx(manifest(lesson)["lesson"]["duration"], abs=0.1)
    assert lesson_video["cues"] == cues(lesson / "lesson.srt")
    for video, record in zip(clips, records, strict=True):
        assert video["duration"] == pytest.approx(record["duration"], abs=0.1)
        assert video["cues"] == cues(lesson / record["subtitles"])


def test_transcripts_are_the_narration(site: dict, lesson: Path) -> None:
    for record in manifest(lesson)["scenes"]:
        lines = site["page"].eval_on_selector_all(f"#{record['id']} .transcript p", "ps => ps.map(p => p.textContent)")
        assert lines == cues(lesson / record["subtitles"])


def assert_chapter_links_seek(page: object, lesson: Path) -> None:
    """Every chapter link moves the lesson video to its start, and the chapter playing is highlighted."""
    starts = [mark["start"] for mark in manifest(lesson)["lesson"]["chapters"]]
    links = page.query_selector_all("a.seek")
    assert len(links) == len(starts) + 1  # the chapter, then each of its steps
    for link in reversed(links):  # from the end, so that every click moves the video
        link.click()
        start = float(link.get_attribute("data-start"))
        page.wait_for_function(f"() => Math.abs(document.getElementById('lesson').currentTime - {start}) < 0.05")
    assert sorted({float(link.get_attribute("data-start")) for link in links}) == starts
    assert page.eval_on_selector("a.seek.current", "a => a.dataset.start") == "0.0"


def test_chapter_links_seek_the_lesson(site: dict, lesson: Path) -> None:
    """Through python -m http.server, which has no byte ranges: the page seeks in a local copy."""
    assert_chapter_links_seek(site["page"], lesson)


def test_links_are_relative_and_resolve(site: dict) -> None:
    page = site["page"]
    targets = page.eval_on_selector_all(
        "a[href]:not(.seek), [src], link[href]", "els => els.map(e => e.getAttribute('href') || e.getAttribute('src'))"
    )
    files = [t for t in targets if not t.startswith(("data:", "blob:"))]  # blob: a chapter link's local copy
    assert any(t.endswith(".pptx") for t in files) and any("slides/lesson.html#/" in t for t in files)
    for target in files:
        assert "//" not in target and not target.startswith("/"), f"{target} is not relative"
        response = page.request.get(f"{site['base']}/{target.split('#')[0]}")
        assert response.ok, f"{target}: HTTP {response.status}"


def test_no_console_errors_nor_failed_requests(site: dict) -> None:
    """Last, so that it covers the page's loading and every interaction of the tests above."""
    assert site["problems"] == []


def test_page_works_opened_from_disk(lesson: Path, browser: object) -> None:
    problems: list[str] = []
    page = browser.new_page()
    page.on("console", lambda m: m.type == "error" and problems.append(m.text))
    page.on("requestfailed", lambda r: failed(r) and problems.append(f"failed: {r.url}"))
    page.goto((lesson / "index.html").as_uri())
    page.wait_for_function(ALL_LOADED, timeout=20_000)
    assert all(video["duration"] > 0 for video in page.evaluate(VIDEOS))
    assert_chapter_links_seek(page, lesson)
    page.close()
    assert problems == []


def test_lesson_text_is_escaped(lesson: Path, browser: object, tmp_path: Path) -> None:
    """Titles, chapters and narration are shown as text, never run as markup."""
    record = {**manifest(lesson)["scenes"][0]}
    hostile = '<script>window.hacked = 1</script> & "quoted"'
    record.update(title=hostile, chapter="<b>bold?</b>")
    for key in ("file", "thumbnail"):
        shutil.copy(lesson / record[key], tmp_path / record[key])
    narration = srt.Subtitle(1, timedelta(seconds=0), timedelta(seconds=2), "<i>not</i> & <b>markup</b>")
    (tmp_path / record["subtitles"]).write_text(srt.compose([narration]), encoding="utf-8")
    (tmp_path / "manifest.json").write_text(json.dumps({"scenes": [record], "lesson": None}), encoding="utf-8")
    html = write_page(tmp_path).read_text(encoding="utf-8")
    assert "<script>window" not in html and "<b>" not in html and "<i>" not in html
    page = browser.new_page()
    page.goto((tmp_path / "index.html").as_uri())
    page.wait_for_function(ALL_LOADED, timeout=20_000)
    assert page.evaluate("window.hacked") is None
    assert page.inner_text("article.step h3") == f"1 {hostile}"
    assert page.inner_text("section.chapter h2") == "1 <b>bold?</b>"
    assert page.inner_text(".transcript p") == narration.content
    assert page.evaluate(VIDEOS)[0]["cues"] == [narration.content]
    page.close()


def test_the_page_plays_the_narration(site: dict, lesson: Path) -> None:
    """Every video on the page is unmuted, and Chromium decodes sound from the lesson video as it plays."""
    page = site["page"]
    assert page.eval_on_selector_all("video", "vs => vs.map(v => v.muted)") == [False] * (len(SCENES) + 1)
    page.click("#lesson")  # a real click: the user gesture browsers ask for before playing sound
    page.evaluate("() => document.getElementById('lesson').play()")
    page.wait_for_function("() => document.getElementById('lesson').webkitAudioDecodedByteCount > 0", timeout=10_000)
    page.evaluate("() => document.getElementById('lesson').pause()")


pytestmark = [pytest.mark.render, pytest.mark.browser]  # a rendered lesson, opened in Chromium
