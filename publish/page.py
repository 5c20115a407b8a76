"""The lesson page: ``index.html`` beside render.py's outputs, written from ``manifest.json``.

Static files with relative links only, so the page works opened from disk and from any static server.
"""

from __future__ import annotations

import base64
import html
import json
import os
import re
import shutil
from itertools import groupby
from pathlib import Path
from typing import NamedTuple
from urllib.parse import quote

from scenes.lesson import LESSON

ASSETS = Path(__file__).resolve().parent / "assets"
ASSET_FOLDER = "page"  # the page's CSS and JS, copied beside index.html
TITLE = "Self-attention, animated"
VIDEO_SUFFIXES = (".mp4", ".webm", ".mov")
DOWNLOADS = {".mp4": "MP4", ".webm": "WebM", ".mov": "MOV", ".gif": "GIF"}
#: one SubRip cue: its number, start and end (HH:MM:SS,mmm) and its text up to a blank line
SRT_CUE = re.compile(r"^\d+\n(\d+:\d\d:\d\d),(\d{3}) --> (\d+:\d\d:\d\d),(\d{3})\n(.+?)(?:\n\n|\n?\Z)", re.M | re.S)


# --- subtitles ---------------------------------------------------------------------------


class Cue(NamedTuple):
    """A subtitle: start and end as WebVTT times (HH:MM:SS.mmm), and its text."""

    start: str
    end: str
    text: str


def read_cues(path: Path) -> list[Cue]:
    """The cues of an ``.srt`` file, in order (none when the file is missing)."""
    if not path.is_file():
        return []
    text = path.read_text(encoding="utf-8").replace("\r\n", "\n")
    return [
        Cue(f"{start}.{ms}", f"{end}.{end_ms}", body.strip()) for start, ms, end, end_ms, body in SRT_CUE.findall(text)
    ]


def to_vtt(cues: list[Cue]) -> str:
    """WebVTT (what browsers read in a ``<track>``) of subtitle cues; their text is escaped for VTT."""
    blocks = [f"{c.start} --> {c.end}\n{html.escape(c.text, quote=False)}" for c in cues]
    return "WEBVTT\n\n" + "\n\n".join(blocks) + "\n"


def write_vtt(output: Path, subtitles: str | None) -> tuple[str | None, str]:
    """Write ``<name>.vtt`` beside an ``.srt``; return its name (for download) and a data URL (for the track).

    The ``<track>`` uses the data URL: browsers refuse track files from ``file://`` pages.
    """
    cues = read_cues(output / subtitles) if subtitles else []
    vtt = to_vtt(cues)
    name = None
    if subtitles:
        name = str(Path(subtitles).with_suffix(".vtt"))
        write_text(output / name, vtt)
    return name, "data:text/vtt;base64," + base64.b64encode(vtt.encode()).decode()


# --- html pieces -------------------------------------------------------------------------


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def href(path: str) -> str:
    """A relative link to a file of the output folder, quoted for an attribute."""
    return esc(quote(path))


def clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}:{secs:02d}"


def media(record: dict, track: str) -> str:
    """The clip as a ``<video>`` with its poster and subtitles, or as an image for a GIF clip."""
    title = esc(record["title"])
    if Path(record["file"]).suffix not in VIDEO_SUFFIXES:
        return f'<img class="clip" src="{href(record["file"])}" alt="{title}">'
    poster = f' poster="{href(record["thumbnail"])}"' if record.get("thumbnail") else ""
    return (
        f'<video class="clip" controls preload="metadata"{poster} src="{href(record["file"])}">'
        f'<track kind="subtitles" srclang="en" label="English" src="{track}" default></video>'
    )


def downloads(output: Path, record: dict, vtt: str | None, slides: dict | None) -> str:
    """Links to the clip in every format on disk, its subtitles and its first slide."""
    stem = Path(record["file"]).stem
    links = [
        f'<a href="{href(stem + suffix)}" download>{label}</a>'
        for suffix, label in DOWNLOADS.items()
        if (output / f"{stem}{suffix}").is_file()
    ]
    if vtt:
        links.append(f'<a href="{href(vtt)}" download>Subtitles</a>')
    if slides:
        links.append(f'<a href="{href(slides["html"])}#/{slides["first"]}">Slides</a>')
    return '<p class="downloads">' + " · ".join(links) + "</p>"


def transcript(output: Path, record: dict) -> str:
    cues = read_cues(output / record["subtitles"]) if record.get("subtitles") else []
    lines = "".join(f"<p>{esc(c.text)}</p>" for c in cues)
    return f'<details class="transcript" open><summary>Transcript</summary>{lines}</details>' if cues else ""


def clip(output: Path, position: int, record: dict, slides: dict | None) -> str:
    """One step of the lesson: title, clip, download links and transcript."""
    vtt, track = write_vtt(output, record.get("subtitles"))
    return (
        f'<article class="step" id="{esc(record["id"])}">'
        f'<h3><span class="number">{position}</span> {esc(record["title"])}</h3>'
        f"{media(record, track)}{downloads(output, record, vtt, slides)}{transcript(output, record)}</article>"
    )


def lesson_numbers() -> tuple[dict[str, int], dict[str, int]]:
    """By scene id: its position in the whole lesson, and its chapter's number (as in the clips' names)."""
    chapters = list(dict.fromkeys(entry.chapter for entry in LESSON))
    positions = {entry.id: position for position, entry in enumerate(LESSON, 1)}
    return positions, {entry.id: chapters.index(entry.chapter) + 1 for entry in LESSON}


def chapter_sections(output: Path, records: list[dict], slides: dict) -> str:
    """The clips, grouped by chapter in lesson order, numbered as in the whole lesson."""
    positions, chapter_numbers = lesson_numbers()
    sections = []
    for chapter, group in groupby(records, key=lambda r: r["chapter"]):
        steps = list(group)
        articles = "".join(clip(output, positions[r["id"]], r, slides.get(r["id"])) for r in steps)
        sections.append(
            f'<section class="chapter"><h2><span class="number">{chapter_numbers[steps[0]["id"]]}</span> '
            f'{esc(chapter)}</h2><div class="steps">{articles}</div></section>'
        )
    return "".join(sections)


def seek_link(start: float, text: str) -> str:
    time = f'<span class="time">{clock(start)}</span>'
    return f'<a class="seek" href="#lesson" data-start="{start}">{time} {esc(text)}</a>'


def chapter_marks(marks: list[dict], records: dict[str, dict]) -> str:
    """Chapter navigation: each chapter (seeking to its first step) with links to its steps."""
    items = []
    for chapter, group in groupby(marks, key=lambda mark: records[mark["id"]]["chapter"]):
        steps = list(group)
        links = "".join(f"<li>{seek_link(m['start'], records[m['id']]['title'])}</li>" for m in steps)
        items.append(f'<li>{seek_link(steps[0]["start"], chapter)}<ol class="steps-nav">{links}</ol></li>')
    return f'<nav aria-label="Chapters"><ol class="chapters">{"".join(items)}</ol></nav>'


def lesson_section(output: Path, lesson: dict | None, records: list[dict]) -> str:
    """The whole lesson video with its subtitles and links that seek it to each chapter and step."""
    if not lesson or not (output / lesson["file"]).is_file():
        return ""
    _, track = write_vtt(output, lesson.get("subtitles"))
    by_id = {r["id"]: r for r in records}
    first = by_id.get(lesson["chapters"][0]["id"], {}) if lesson["chapters"] else {}
    poster = f' poster="{href(first["thumbnail"])}"' if first.get("thumbnail") else ""
    return (
        '<section class="lesson"><h2>The whole lesson</h2><div class="player">'
        f'<video id="lesson" controls preload="metadata"{poster} src="{href(lesson["file"])}">'
        f'<track kind="subtitles" srclang="en" label="English" src="{track}" default></video>'
        f"{chapter_marks(lesson['chapters'], by_id)}</div>"
        f'<p class="downloads"><a href="{href(lesson["file"])}" download>Download the lesson</a></p></section>'
    )


def deck_links(slides: dict | None) -> str:
    if not slides:
        return ""
    return (
        f'<p class="decks">Slides with speaker notes: <a href="{href(slides["html"])}">open the deck</a>'
        f' · <a href="{href(slides["pptx"])}" download>PowerPoint</a></p>'
    )


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
    count = f"{len(records)} step{'s' if len(records) != 1 else ''}"
    body = (
        f"<header><h1>{esc(TITLE)}</h1><p>How a Transformer lets every word look at every other word: "
        f"a video lesson in {count}, with subtitles, transcripts and slides.</p>{deck_links(deck)}</header>"
        f"<main>{lesson_section(output, manifest.get('lesson'), records)}"
        f"{chapter_sections(output, records, slides)}</main>"
        f"<footer><p>Rendered with manim {esc(manifest.get('manim', ''))} at {esc(manifest.get('quality', ''))}"
        " quality.</p></footer>"
    )
    page = (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">'
        f'<title>{esc(TITLE)}</title><link rel="stylesheet" href="{ASSET_FOLDER}/page.css">'
        f'<script src="{ASSET_FOLDER}/page.js" defer></script></head>\n<body>{body}</body></html>\n'
    )
    write_text(output / "index.html", page)
    return output / "index.html"
