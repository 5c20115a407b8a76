"""The lesson page: ``index.html`` beside render.py's outputs, written from ``manifest.json``.

Static files with relative links only, so the page works opened from disk and from any static server.
The markup is ``templates/lesson.html.j2``, rendered by Jinja2 with autoescaping: titles, chapters and
narration always reach the page as text.
"""

from __future__ import annotations

import base64
import html
import json
import os
import shutil
from datetime import timedelta
from itertools import groupby
from pathlib import Path
from typing import NamedTuple

import jinja2
import srt

from scenes.lesson import LESSON

HERE = Path(__file__).resolve().parent
ASSETS = HERE / "assets"
TEMPLATES = HERE / "templates"
ASSET_FOLDER = "page"  # the page's CSS and JS, copied beside index.html
TITLE = "Self-attention, animated"
VIDEO_SUFFIXES = (".mp4", ".webm", ".mov")
DOWNLOADS = {".mp4": "MP4", ".webm": "WebM", ".mov": "MOV", ".gif": "GIF"}


# --- subtitles ---------------------------------------------------------------------------


class Cue(NamedTuple):
    """A subtitle: start and end as WebVTT times (HH:MM:SS.mmm), and its text."""

    start: str
    end: str
    text: str


def vtt_time(time: timedelta) -> str:
    return srt.timedelta_to_srt_timestamp(time).replace(",", ".")


def read_cues(path: Path) -> list[Cue]:
    """The cues of an ``.srt`` file, in order (none when the file is missing; unreadable blocks are skipped)."""
    if not path.is_file():
        return []
    subtitles = srt.parse(path.read_text(encoding="utf-8"), ignore_errors=True)
    return [Cue(vtt_time(s.start), vtt_time(s.end), s.content.strip()) for s in subtitles]


def to_vtt(cues: list[Cue]) -> str:
    """WebVTT (what browsers read in a ``<track>``) of subtitle cues; their text is escaped for VTT."""
    blocks = [f"{c.start} --> {c.end}\n{html.escape(c.text, quote=False)}" for c in cues]
    return "WEBVTT\n\n" + "\n\n".join(blocks) + "\n"


def write_vtt(output: Path, subtitles: str | None, cues: list[Cue]) -> tuple[str | None, str]:
    """Write ``<name>.vtt`` beside an ``.srt``; return its name (for download) and a data URL (for the track).

    The ``<track>`` uses the data URL: browsers refuse track files from ``file://`` pages.
    """
    vtt = to_vtt(cues)
    name = None
    if subtitles:
        name = str(Path(subtitles).with_suffix(".vtt"))
        write_text(output / name, vtt)
    return name, "data:text/vtt;base64," + base64.b64encode(vtt.encode()).decode()


# --- what the template shows -------------------------------------------------------------


class Link(NamedTuple):
    file: str  # relative to the output folder; the template quotes it
    label: str
    download: bool = True
    fragment: str = ""


def clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}:{secs:02d}"


def step(output: Path, position: int, record: dict, slides: dict | None) -> dict:
    """One step of the lesson: its clip (a video, or an image for a GIF), download links and transcript."""
    cues = read_cues(output / record["subtitles"]) if record.get("subtitles") else []
    vtt, track = write_vtt(output, record.get("subtitles"), cues)
    stem = Path(record["file"]).stem
    links = [Link(stem + suffix, label) for suffix, label in DOWNLOADS.items() if (output / (stem + suffix)).is_file()]
    if vtt:
        links.append(Link(vtt, "Subtitles"))
    if slides:
        links.append(Link(slides["html"], "Slides", download=False, fragment=f"#/{slides['first']}"))
    return {
        **{key: record[key] for key in ("id", "title", "file")},
        "position": position,
        "video": Path(record["file"]).suffix in VIDEO_SUFFIXES,
        "poster": record.get("thumbnail"),
        "track": track,
        "links": links,
        "cues": cues,
    }


def lesson_numbers() -> tuple[dict[str, int], dict[str, int]]:
    """By scene id: its position in the whole lesson, and its chapter's number (as in the clips' names)."""
    chapters = list(dict.fromkeys(entry.chapter for entry in LESSON))
    positions = {entry.id: position for position, entry in enumerate(LESSON, 1)}
    return positions, {entry.id: chapters.index(entry.chapter) + 1 for entry in LESSON}


def chapters(output: Path, records: list[dict], slides: dict) -> list[dict]:
    """The clips, grouped by chapter in lesson order, numbered as in the whole lesson."""
    positions, chapter_numbers = lesson_numbers()
    grouped = []
    for title, group in groupby(records, key=lambda r: r["chapter"]):
        steps = [step(output, positions[r["id"]], r, slides.get(r["id"])) for r in group]
        grouped.append({"number": chapter_numbers[steps[0]["id"]], "title": title, "steps": steps})
    return grouped


def whole_lesson(output: Path, lesson: dict | None, records: list[dict]) -> dict | None:
    """The whole lesson video with its subtitles, and the chapters and steps its links seek to."""
    if not lesson or not (output / lesson["file"]).is_file():
        return None
    subtitles = lesson.get("subtitles")
    _, track = write_vtt(output, subtitles, read_cues(output / subtitles) if subtitles else [])
    by_id = {r["id"]: r for r in records}
    first = by_id.get(lesson["chapters"][0]["id"], {}) if lesson["chapters"] else {}
    marks = []
    for title, group in groupby(lesson["chapters"], key=lambda mark: by_id[mark["id"]]["chapter"]):
        steps = [{"start": m["start"], "title": by_id[m["id"]]["title"]} for m in group]
        marks.append({"start": steps[0]["start"], "title": title, "steps": steps})
    return {"file": lesson["file"], "poster": first.get("thumbnail"), "track": track, "chapters": marks}


def read_slides(output: Path) -> tuple[dict | None, dict]:
    """The slide index written by ``publish.slides`` (when its deck exists) and each scene's entry in it."""
    index_file = output / "slides" / "slides.json"
    if not index_file.is_file():
        return None, {}
    index = json.loads(index_file.read_text(encoding="utf-8"))
    if not (output / index["html"]).is_file():
        return None, {}
    return index, {s["id"]: {"html": index["html"], **s} for s in index["scenes"]}


# --- the page ----------------------------------------------------------------------------


def template() -> jinja2.Template:
    loader = jinja2.FileSystemLoader(TEMPLATES)
    env = jinja2.Environment(loader=loader, autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True)
    env.filters["clock"] = clock
    return env.get_template("lesson.html.j2")


def write_text(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.part")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def write_page(output: Path) -> Path:
    """Write ``output/index.html`` (with ``.vtt`` subtitles and the page's assets) from ``manifest.json``.

    Parameters
    ----------
    output
        render.py's output folder.

    Returns
    -------
    Path
        The page.
    """
    manifest = json.loads((output / "manifest.json").read_text(encoding="utf-8"))
    records = [r for r in manifest.get("scenes", []) if r.get("file")]
    deck, slides = read_slides(output)
    shutil.copytree(ASSETS, output / ASSET_FOLDER, dirs_exist_ok=True)
    page = template().render(
        title=TITLE,
        assets=ASSET_FOLDER,
        count=len(records),
        deck=deck,
        lesson=whole_lesson(output, manifest.get("lesson"), records),
        chapters=chapters(output, records, slides),
        manim=manifest.get("manim", ""),
        quality=manifest.get("quality", ""),
    )
    write_text(output / "index.html", page + "\n")
    return output / "index.html"
