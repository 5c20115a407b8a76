"""The slide deck, through the clips' worker path: each scene's slides render in a worker like its clip,
with the same interrupt handling, failure logs, progress and atomic placement, and only when they changed."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from attention_math.example import ROOT
from publish.slides import FOLDER, SCENES, SlidesError, slide_module, slides_fingerprint, write_decks
from scenes.lesson import LESSON

from .files import write_atomically
from .manifest import SceneRecord
from .media import CheckError
from .plan import Job
from .progress import plural
from .settings import Settings

DONE = "fingerprints.json"  # in slides/.scenes/: the slides fingerprint each scene's slides were made from


def scenes_folder(settings: Settings) -> Path:
    return settings.output / FOLDER / SCENES


def slide_jobs(clips: list[SceneRecord], settings: Settings) -> list[Job]:
    """A job for every up-to-date clip whose slides are missing or out of date."""
    folder = scenes_folder(settings)
    done = read_done(folder)
    positions = {e.id: i for i, e in enumerate(LESSON, 1)}
    entries = {e.id: e for e in LESSON}
    jobs = []
    for clip in clips:
        entry, fingerprint = entries[clip.id], slides_fingerprint(str(clip.fingerprint))
        if done.get(entry.id) != fingerprint or not (folder / f"{entry.cls}.json").is_file():
            record = SceneRecord(entry.id, entry.title, entry.chapter)
            jobs.append(Job(positions[entry.id], entry, fingerprint, record, kind="slides"))
    return jobs


def manim_arguments(job: Job, settings: Settings, media: Path) -> list[str]:
    """Write the scene's slide module into the job's work folder; the manim arguments that render it there."""
    work = media.parent
    module = work / f"{job.entry.cls.lower()}_slides.py"
    module.write_text(slide_module(job.entry, work / "slides"), encoding="utf-8")
    options = f"{settings.manim_flag} --disable_caching --progress_bar none --silent"
    return ["render", *options.split(), "--config_file", str(ROOT / "manim.cfg"),
            "--media_dir", str(media), str(module), job.entry.cls]  # fmt: skip


def place(job: Job, settings: Settings) -> None:
    """Move a scene's slides from its work folder into ``slides/.scenes/``; the JSON last (it marks them done).

    manim-slides records the videos' absolute paths, so they are rewritten for their new place.
    """
    made, folder = job.work_dir(settings.output) / "slides", scenes_folder(settings)
    config = made / f"{job.entry.cls}.json"
    if not config.is_file():
        raise CheckError(f"manim-slides wrote no {config.name}")
    folder.mkdir(parents=True, exist_ok=True)
    videos, target = made / "files" / job.entry.cls, folder / "files" / job.entry.cls
    old = target.with_name(f".{target.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        os.replace(target, old)
    target.parent.mkdir(exist_ok=True)
    os.replace(videos, target)
    shutil.rmtree(old, ignore_errors=True)
    text = config.read_text(encoding="utf-8").replace(json.dumps(str(videos))[1:-1], json.dumps(str(target))[1:-1])
    write_atomically(folder / config.name, text)
    done = read_done(folder)
    done[job.entry.id] = job.fingerprint
    write_atomically(folder / DONE, json.dumps(done, indent=2) + "\n")


def read_done(folder: Path) -> dict[str, Any]:
    try:
        done: dict[str, Any] = json.loads((folder / DONE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return done


def write_deck(clips: list[SceneRecord], settings: Settings, failed: list[str]) -> int:
    """The HTML and PPTX decks once every clip has its slides; exit status 1 with a message otherwise."""
    try:
        if failed:
            raise SlidesError(f"{', '.join(failed)} could not be rendered as slides (see the FAILED lines above)")
        entries = [e for e in LESSON if e.id in {c.id for c in clips}]
        index = write_decks(settings.output, entries)
    except SlidesError as error:
        print(f"error: the slide deck could not be made: {error}", file=sys.stderr)
        return 1
    count = sum(scene["count"] for scene in index["scenes"])
    print(
        f"slides: {index['html']} and {index['pptx']}, {plural(count, 'slide')} from {plural(len(entries), 'scene')}",
        flush=True,
    )
    return 0
