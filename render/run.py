"""One run of render.py, from its settings to its exit status: plan, render, place, join, publish, summarize."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import time
from pathlib import Path
from typing import Any

from attention_math.errors import ExampleError
from attention_math.example import load_example, read_toml
from scenes.lesson import LESSON, Entry

from . import slides, workers
from .files import describe, locked, stamp, write_atomically
from .lessons import reuse, run_lessons
from .manifest import LessonRecord, SceneRecord, Status, read_manifest, write_manifest
from .media import VIDEO_EXTENSIONS, CheckError, join_lesson, probe_video, write_thumbnail
from .plan import WORK, Job, available, fingerprint, longest_first, plan, select, shared_inputs
from .progress import Progress, plural
from .settings import Settings, UsageError, parse_args
from .soundtrack import Cue, add_soundtrack
from .voice_service import voice_service

LOG_TAIL_LINES = 15


def main(argv: list[str] | None = None) -> int:
    try:
        settings = parse_args(argv)
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:
        if settings.listing:
            try:
                print_lesson(select(settings.scenes), settings.as_json)
                sys.stdout.flush()
            except BrokenPipeError:  # `render.py --list | head`: the reader took what it wanted
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
        return run_lessons(settings, run) if settings.lessons else run(settings)
    except (UsageError, ExampleError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not interrupt the goodbye
        print("interrupted: finished scenes are in place; run again to render the rest", file=sys.stderr)
        return 130
    except OSError as error:  # a full disk, a read-only or vanished output folder
        print(f"error: cannot write the outputs in {settings.output}: {describe(error)}", file=sys.stderr)
        print("earlier outputs are untouched; free some space or choose another --output", file=sys.stderr)
        return 1


def print_lesson(entries: list[Entry], as_json: bool) -> None:
    """The entries with their lesson positions, as text or as a JSON list."""
    rows = [entry.as_dict() for entry in entries]
    if as_json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    width = max(len(e.id) for e in entries)
    positions = {e.id: i for i, e in enumerate(LESSON, 1)}
    for row in rows:
        position, depends = positions[row["id"]], ", ".join(row["depends_on"]) or "-"
        print(f"{position:02d} {row['id']:<{width}}  {row['chapter']} / {row['title']}")
        print(f"   {'':<{width}}  {row['file']}::{row['class']}  depends on: {depends}")


def run(settings: Settings) -> int:
    raw_example = read_toml(settings.example)
    load_example(settings.example)  # validates every section: ExampleError -> exit 2 before anything is touched
    entries = available(select(settings.scenes), raw_example, settings.example)
    if settings.output.exists() and not settings.output.is_dir():
        raise UsageError(f"--output {settings.output} is a file, not a folder; choose a folder for the outputs")
    for note in settings.notes():
        print(f"note: {note}", flush=True)
    settings.output.mkdir(parents=True, exist_ok=True)
    with locked(settings.output):
        return Run(settings, raw_example).render(entries)


class Run:
    """The records of one output folder as this run renders into it."""

    def __init__(self, settings: Settings, raw_example: dict[str, Any]) -> None:
        self.settings, self.output = settings, settings.output
        self.fingerprints = {e.id: fingerprint(e, raw_example, settings.fingerprinted()) for e in LESSON}
        self.previous = read_manifest(self.output)
        self.records = {r.id: r for r in self.previous.scenes}
        self.lesson = self.previous.lesson  # the lesson file on disk until the clips are joined again

    def render(self, entries: list[Entry]) -> int:
        shutil.rmtree(self.output / WORK, ignore_errors=True)  # left by an interrupted run
        jobs = plan(entries, self.records, self.fingerprints, self.output, self.settings.force)
        reuse(jobs, self.output, self.settings.reuse_from)  # scenes an earlier lesson of this run rendered
        todo = longest_first([job for job in jobs if job.record.status is Status.TODO])
        progress = Progress(len(todo), self.settings.jobs, {j.entry.id: j.expected for j in todo if j.expected})
        try:
            if self.settings.cluster:  # imported only here: a local run never loads Dask
                from .cluster import render_on_cluster

                render_on_cluster(self, todo, progress)
            else:
                self.render_queue(todo, progress)
        finally:
            progress.stop()
            shutil.rmtree(self.output / WORK, ignore_errors=True)
        try:
            self.lesson = self.join()
        except CheckError as error:
            print(f"error: the lesson video could not be made: {error}", file=sys.stderr)
            self.save()
            return max(1, summarize(jobs, None))
        self.save()
        status = summarize(jobs, self.lesson)
        if self.settings.slides:
            status = max(status, self.render_slides())
        from publish.page import write_page

        write_page(self.output)
        return status

    def render_slides(self) -> int:
        """Each up-to-date clip's slides through the workers (only those that changed), then the decks."""
        clips = [r for e in LESSON if (r := self.records.get(e.id)) and self.current(r)]
        jobs = slides.slide_jobs(clips, self.settings)
        progress = Progress(len(jobs), self.settings.jobs)
        try:
            self.render_queue(jobs, progress)
        finally:
            progress.stop()
            shutil.rmtree(self.output / WORK, ignore_errors=True)
        report_failures(jobs)
        failed = [job.entry.id for job in jobs if job.record.status is Status.FAILED]
        return slides.write_deck(clips, self.settings, failed)

    def current(self, record: SceneRecord) -> bool:
        return record.is_current(self.fingerprints[record.id], self.output)

    def save(self) -> None:
        """Every scene with outputs in the folder, in lesson order; ``current`` tells which match this run."""
        scenes = [
            (record, record.fingerprint == self.fingerprints[entry.id])
            for entry in LESSON
            if (record := self.records.get(entry.id)) and (record.file or record.status is Status.FAILED)
        ]
        write_manifest(
            self.output,
            scenes,
            self.settings.fingerprinted(),
            self.settings.example,
            shared_inputs()["manim"],
            self.lesson,
        )

    def join(self) -> LessonRecord | None:
        """The lesson video of every up-to-date clip (none for gif clips, which cannot hold chapters)."""
        if self.settings.format == "gif":
            return None
        clips = [r for e in LESSON if (r := self.records.get(e.id)) and self.current(r)]
        return join_lesson(self.output, clips, self.previous.lesson, self.output / WORK, self.settings.fps)

    def render_queue(self, todo: list[Job], progress: Progress) -> None:
        """Keep ``--jobs`` workers busy; on Ctrl-C or SIGTERM stop them and keep what is finished.

        The signals only set a flag, checked between steps, so an interrupt never lands inside
        ``Popen`` or a file move; whatever ends the loop, no worker is left running.
        """
        waiting, running = list(todo), list[Job]()
        with workers.interrupt_flag() as interrupted, voice_service(self.settings, bool(todo)) as service:

            def fill() -> None:
                """Start scenes until every worker is busy (none once interrupted)."""
                while waiting and len(running) < self.settings.jobs and not interrupted:
                    running.append(job := waiting.pop(0))
                    arguments = workers.manim_arguments if job.kind == "clip" else slides.manim_arguments
                    workers.start(job, self.settings, arguments, service)
                progress.running([job.entry.id for job in running])

            try:
                while (waiting or running) and not interrupted:
                    fill()
                    time.sleep(0.05)
                    ended = [j for j in running if j.process and j.process.exitcode is not None]
                    for job in ended:
                        running.remove(job)
                    fill()  # the next scenes render while these are checked, voiced and placed
                    for job in ended:
                        self.finish(job)
                        self.save()
                        progress.report(job)
            finally:
                for job in running:
                    if job.process:  # None when start() itself failed
                        workers.stop_process(job.process)
        if interrupted:
            raise KeyboardInterrupt

    def finish(self, job: Job) -> None:
        """Check what the worker wrote and move it into place, or record the failure with its log."""
        work, record = job.work_dir(self.output), job.record
        record.fingerprint, record.status = job.fingerprint, Status.FAILED
        try:
            assert job.process is not None
            if job.process.exitcode:
                raise CheckError(f"manim exited with status {job.process.exitcode}")
            if job.kind == "clip":
                self.place_outputs(job)
                self.remove_replaced(job)
            else:
                slides.place(job, self.settings)
            record.status = Status.RENDERED
            workers.collect_svgs(work / "media", self.output / workers.CACHE)
            forget_failure(self.output / "logs" / f"{job.stem}.log")
        except CheckError as error:
            self.record_failure(job, str(error))
        shutil.rmtree(work, ignore_errors=True)
        record.seconds = round(time.monotonic() - job.started, 2)  # placing too: a GIF's thumbnail is slow

    def record_failure(self, job: Job, error: str) -> None:
        logs = self.output / "logs"
        logs.mkdir(exist_ok=True)
        log_file = job.work_dir(self.output) / "manim.log"
        log = log_file.read_text(errors="replace") if log_file.is_file() else workers.early_failure()
        write_atomically(logs / f"{job.stem}.log", log)
        record = job.record
        record.file = record.thumbnail = record.subtitles = None
        record.duration, record.frames, record.stamps = None, None, {}
        record.error, record.log = error, f"logs/{job.stem}.log"
        record.log_tail = log.strip().splitlines()[-LOG_TAIL_LINES:]

    def remove_replaced(self, job: Job) -> None:
        """Delete the files of an earlier render that the new one did not overwrite (another format)."""
        if not job.previous:
            return
        for key in ("file", "thumbnail", "subtitles"):
            old = job.previous.output(key)
            if old and old != job.record.output(key):
                (self.output / old).unlink(missing_ok=True)

    def place_outputs(self, job: Job) -> None:
        """Check the clip, make its thumbnail, then move clip, subtitles and thumbnail into place."""
        videos = [
            p
            for p in (job.work_dir(self.output) / "media" / "videos").rglob("*")  # one scene per media folder
            if p.suffix in VIDEO_EXTENSIONS and "partial_movie_files" not in p.parts
        ]
        if len(videos) != 1:
            raise CheckError(f"expected one video, manim wrote {len(videos)}")
        video = made = videos[0]
        fps = self.settings.fps if video.suffix != ".gif" else None
        duration, frames = probe_video(video, fps)
        if self.settings.voice != "none":
            video = self.add_narration(job, made, duration)
        thumbnail = video.with_suffix(".png")
        write_thumbnail(video, thumbnail, fps)
        moves = {"file": (video, f"{job.stem}{video.suffix}"), "thumbnail": (thumbnail, f"{job.stem}.png")}
        if made.with_suffix(".srt").is_file():
            moves["subtitles"] = (made.with_suffix(".srt"), f"{job.stem}.srt")
        record = job.record
        record.file = record.thumbnail = record.subtitles = None
        record.stamps = {}
        for key in ("subtitles", "thumbnail", "file"):  # the clip last: it is what marks the scene done
            if key in moves:
                source, name = moves[key]
                os.replace(source, self.output / name)
                setattr(record, key, name)
                record.stamps[key] = stamp(self.output / name)
        record.duration, record.frames = round(duration, 3), frames
        record.audio = self.settings.voice != "none"
        record.voice = self.settings.voice if record.audio else None

    def add_narration(self, job: Job, video: Path, duration: float) -> Path:
        """The clip with its narration track (silence where nothing is said), from the speech the scene listed."""
        listing = job.work_dir(self.output) / workers.NARRATION
        try:
            said = json.loads(listing.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise CheckError(f"the scene did not list its narration ({listing.name}): {error}") from error
        voiced = video.with_name(f"voiced{video.suffix}")
        add_soundtrack(video, [Cue(float(s["start"]), Path(s["wav"])) for s in said], duration, voiced)
        return voiced


def forget_failure(log: Path) -> None:
    """Remove the log of an earlier failure of a scene that now rendered (and ``logs/`` once empty)."""
    log.unlink(missing_ok=True)
    if log.parent.is_dir() and not any(log.parent.iterdir()):
        log.parent.rmdir()


def summarize(jobs: list[Job], lesson: LessonRecord | None) -> int:
    counts = {s: sum(j.record.status is s for j in jobs) for s in (Status.RENDERED, Status.SKIPPED, Status.FAILED)}
    print(", ".join(f"{n} {s}" for s, n in counts.items()), flush=True)
    if lesson:
        print(f"{lesson.file}: {plural(len(lesson.scenes), 'scene')}, {float(lesson.duration or 0):.1f} s"
              f"{left_out(lesson, jobs)}", flush=True)  # fmt: skip
    report_failures(jobs)
    return 1 if counts[Status.FAILED] else 0


def left_out(lesson: LessonRecord, jobs: list[Job]) -> str:
    """What the lesson video leaves out, in plain words: scenes this run did not include (a deliberate
    ``--scenes`` run, or scenes the example cannot show) and scenes of this run that failed."""
    asked = {job.entry.id for job in jobs}
    outside = sum(m not in asked for m in lesson.missing)
    failed = len(lesson.missing) - outside
    notes = [f"{outside} of the lesson's {len(LESSON)} scenes not in this run"] if outside else []
    notes += [f"{plural(failed, 'failed scene')} left out"] if failed else []
    return f" ({'; '.join(notes)})" if notes else ""


def report_failures(jobs: list[Job]) -> None:
    """Each failed job with the end of its log, on standard error."""
    for job in jobs:
        record = job.record
        if record.status is Status.FAILED:
            what = f"{job.entry.file}::{job.entry.cls}" + (", as slides" if job.kind == "slides" else "")
            print(f"\nFAILED {job.entry.id} ({what}): {record.error}", file=sys.stderr)
            print("\n".join(f"    {line}" for line in record.log_tail or []), file=sys.stderr)
            print(f"    full log: {record.log}", file=sys.stderr)
