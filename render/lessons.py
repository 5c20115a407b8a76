"""Many lessons in one run (``--example a.toml b.toml …`` or a folder): each example renders into its own
subfolder of ``--output``, one after another, with one voice cache, one cluster connection, and every
scene an earlier lesson of the run already rendered with the same fingerprint taken from it, not rendered.
On a cluster, the next lesson's scenes are queued while a lesson renders, so workers do not wait between them.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from attention_math.example import load_example, read_toml
from scenes.lesson import LESSON

from .manifest import OUTPUT_KEYS, SceneRecord, Status, read_manifest
from .plan import Job, fingerprint, select
from .settings import Settings, UsageError


def run_lessons(settings: Settings, run_one: Callable[[Settings], int]) -> int:
    """Render every example of ``settings.lessons`` with ``run_one``; the worst exit status of them all."""
    for example in settings.lessons:  # every file valid before anything renders: ExampleError -> exit 2
        load_example(example)
    if settings.output.exists() and not settings.output.is_dir():
        raise UsageError(f"--output {settings.output} is a file, not a folder; choose a folder for the outputs")
    lessons = [
        replace(settings, example=example, output=settings.output / example.stem, lessons=(), shared=settings.output)
        for example in settings.lessons
    ]
    status, done = 0, list[Path]()
    for lesson, following in zip(lessons, [*lessons[1:], None], strict=True):
        if settings.cluster and following:  # the cluster gets the next lesson's scenes while this one ends
            from . import cluster

            cluster.NEXT_LESSON[:] = [(following, to_render(following))]
        print(f"lesson {lesson.example.stem}: {lesson.example} -> {lesson.output}", flush=True)
        status = max(status, run_one(replace(lesson, reuse_from=tuple(done))))
        done.append(lesson.output)
    return status


def to_render(settings: Settings) -> list[Job]:
    """The scenes a lesson will render, as its run will plan them (without the run's notes)."""
    raw = read_toml(settings.example)
    positions = {e.id: i for i, e in enumerate(LESSON, 1)}
    previous = {r.id: r for r in read_manifest(settings.output).scenes}
    jobs = []
    for entry in select(settings.scenes):
        if any(section not in raw for section in entry.depends_on):
            continue
        scene = fingerprint(entry, raw, settings.fingerprinted())
        record = previous.get(entry.id)
        if settings.force or not (record and record.is_current(scene, settings.output)):
            jobs.append(Job(positions[entry.id], entry, scene, SceneRecord(entry.id, entry.title, entry.chapter)))
    return jobs


def reuse(jobs: list[Job], output: Path, sources: tuple[Path, ...]) -> None:
    """Give each scene still to render the files of an earlier lesson of this run with the same fingerprint.

    A scene's fingerprint covers only the example sections it reads, so a scene that reads none (or
    reads sections both files share) has one fingerprint for every example: rendered once, then
    hard-linked (copied where links cannot be made). It counts as skipped in this lesson.
    """
    records = {source: {r.id: r for r in read_manifest(source).scenes} for source in sources}
    for job in jobs:
        if job.record.status is not Status.TODO:
            continue
        for source, known in records.items():
            record = known.get(job.entry.id)
            if record and record.is_current(job.fingerprint, source):
                take(job, record, source, output)
                print(f"reused {job.stem} from {source.name}/ (same fingerprint)", flush=True)
                break


def take(job: Job, source_record: SceneRecord, source: Path, output: Path) -> None:
    """Link the source's files into ``output`` (the clip last: it marks the scene done) and record them."""
    record = job.record
    for key in ("subtitles", "thumbnail", "file"):
        name = source_record.output(key)
        if name:
            link(source / name, output / name)
        setattr(record, key, name)
    if job.previous:  # files of another format that the new ones do not replace
        for key in OUTPUT_KEYS:
            old = job.previous.output(key)
            if old and old != record.output(key):
                (output / old).unlink(missing_ok=True)
    record.fingerprint, record.stamps = job.fingerprint, dict(source_record.stamps)
    record.duration, record.frames = source_record.duration, source_record.frames
    record.audio, record.voice = source_record.audio, source_record.voice
    record.status, record.seconds = Status.SKIPPED, 0.0


def link(source: Path, target: Path) -> None:
    """``target`` becomes the same file as ``source``, atomically: a hard link, else a copy."""
    temporary = target.with_name(f".{target.name}.part")
    temporary.unlink(missing_ok=True)
    try:
        os.link(source, temporary)
    except OSError:  # another file system, or one without hard links
        shutil.copy2(source, temporary)
    os.replace(temporary, target)
