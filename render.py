"""Render the lesson: one manim process per scene, in parallel, skipping every scene already up to date.

Run ``python render.py --help``; the outputs and exit statuses are described in the README ("Rendering").
"""

from __future__ import annotations

import argparse
import fcntl
import fnmatch
import hashlib
import json
import multiprocessing
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from functools import cache
from importlib.metadata import version
from multiprocessing import forkserver
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from attention_math.errors import ExampleError
from attention_math.example import DEFAULT_EXAMPLE, load_example, read_toml
from scenes.lesson import LESSON, Entry

ROOT = Path(__file__).resolve().parent
#: quality name -> (manim flag, frames per second)
QUALITIES = {"low": ("-ql", 15), "medium": ("-qm", 30), "high": ("-qh", 60), "4k": ("-qk", 60)}
FORMATS = ("mp4", "webm", "gif", "mov")
VIDEO_EXTENSIONS = (".mp4", ".mov", ".webm", ".gif")
#: what every scene shares: a change here re-renders the whole lesson
SHARED_SOURCES = ("scenes/kit", "scenes/lesson.py", "attention_math")
MANIFEST = "manifest.json"
LOCK = ".render.lock"
WORK = ".work"  # per-scene media folders and files not yet checked; removed at the end of every run
CACHE = ".cache"  # TeX and Text SVGs of earlier workers, reused by later ones (manim names them by content)
SVG_FOLDERS = ("Tex", "texts")
LOG_TAIL_LINES = 15
SIGNALS = (signal.SIGINT, signal.SIGTERM)  # a stop request: finish cleanly


class UsageError(Exception):
    """Bad input or usage: exit status 2, nothing rendered."""


class CheckError(Exception):
    """A file manim or ffmpeg wrote is not a complete, decodable video."""


# --- command line -------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="render.py",
        description="Render the self-attention lesson: a clip, subtitles and thumbnail per scene, "
        "lesson.mp4 with chapters, manifest.json. Scenes already up to date are skipped.",
    )
    parser.add_argument("--list", action="store_true", help="print the lesson and exit (with --json: as JSON)")
    parser.add_argument("--json", action="store_true", help="with --list: print a JSON list")
    parser.add_argument("--scenes", nargs="+", metavar="ID", help="render only these scenes (ids or glob patterns)")
    parser.add_argument(
        "--quality",
        choices=QUALITIES,
        default="high",
        help="low 480p15, medium 720p30, high 1080p60 (default), 4k 2160p60",
    )
    parser.add_argument(
        "--jobs", type=positive_int, default=os.cpu_count() or 1, help="parallel scenes (default: the number of cores)"
    )
    parser.add_argument(
        "--example",
        type=Path,
        default=DEFAULT_EXAMPLE,
        help="example-values file (default: assets/examples/default.toml)",
    )
    parser.add_argument("--output", type=Path, default=ROOT / "output", help="output folder (default: output/)")
    parser.add_argument("--force", action="store_true", help="render even the scenes already up to date")
    parser.add_argument("--format", choices=FORMATS, default="mp4", help="clip format (default: mp4)")
    parser.add_argument("--transparent", action="store_true", help="transparent background (mov or webm clips)")
    parser.add_argument("--slides", action="store_true", help="also the slide deck (slides/lesson.html and .pptx)")
    args = parser.parse_args(argv)
    if args.json and not args.list:
        parser.error("--json goes with --list")
    return args


def positive_int(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return int(text)


def print_lesson(as_json: bool) -> None:
    rows = [entry.as_dict() for entry in LESSON]
    if as_json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    width = max(len(e.id) for e in LESSON)
    for position, row in enumerate(rows, 1):
        depends = ", ".join(row["depends_on"]) or "-"
        print(f"{position:02d} {row['id']:<{width}}  {row['chapter']} / {row['title']}")
        print(f"   {'':<{width}}  {row['file']}::{row['class']}  depends on: {depends}")


def select(patterns: list[str] | None) -> list[Entry]:
    """The lesson entries matching any pattern (all when ``None``), in lesson order."""
    if not patterns:
        return list(LESSON)
    for pattern in patterns:
        if not any(fnmatch.fnmatchcase(e.id, pattern) for e in LESSON):
            raise UsageError(f"no scene matches {pattern!r} (python render.py --list shows the ids)")
    return [e for e in LESSON if any(fnmatch.fnmatchcase(e.id, p) for p in patterns)]


def available(entries: list[Entry], raw_example: dict, example: Path) -> list[Entry]:
    """The entries whose example sections are all in the file (an optional one, ``real_model``, may be left out).

    The others are left out of the run with a note; if that leaves nothing, it is a usage error.
    """
    kept, missing = [], {}
    for entry in entries:
        absent = [section for section in entry.depends_on if section not in raw_example]
        for section in absent:
            missing.setdefault(section, []).append(entry.id)
        if not absent:
            kept.append(entry)
    if not missing:
        return entries
    needs = "; ".join(
        f"{', '.join(ids)} need{'s' if len(ids) == 1 else ''} [{section}]" for section, ids in missing.items()
    )
    if not kept:
        raise UsageError(f"{example}: {needs}, which this file does not have; add the section or choose other scenes")
    print(f"note: not rendered: {needs}, which {example.name} does not have", flush=True)
    return kept


# --- fingerprints -------------------------------------------------------------------------


def files_digest(paths: list[Path]) -> str:
    """sha256 over the files' paths (relative to the repository) and contents."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0")
        digest.update(path.read_bytes() if path.is_file() else b"<missing>")
        digest.update(b"\0")
    return digest.hexdigest()


@cache
def shared_inputs() -> dict[str, str]:
    """What every scene depends on: the shared sources (read once per run) and the manim version."""
    files = [p for name in SHARED_SOURCES for p in sorted((ROOT / name).rglob("*")) if p.is_file()]
    return {"shared": files_digest([p for p in files if "__pycache__" not in p.parts]), "manim": version("manim")}


def named_files(value: Any) -> dict[str, str]:
    """sha256 of every file an example section names (a string that is a file's path, from the repository root)."""
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return {name: digest for item in value for name, digest in named_files(item).items()}
    if isinstance(value, str) and (ROOT / value).is_file():
        return {value: hashlib.sha256((ROOT / value).read_bytes()).hexdigest()}
    return {}


def fingerprint(entry: Entry, raw_example: dict, settings: dict) -> str:
    """sha256 over all a scene's output depends on: sources, its example sections and the files they
    name (e.g. a model-data file), settings, manim."""
    sections = {section: raw_example.get(section) for section in entry.depends_on}
    inputs = {
        "scene": files_digest([ROOT / entry.file]),
        "entry": entry.as_dict(),
        "example": sections,
        "named_files": named_files(sections),
        "settings": settings,
        **shared_inputs(),
    }
    return hashlib.sha256(json.dumps(inputs, sort_keys=True, separators=(",", ":"), default=str).encode()).hexdigest()


# --- checking and placing files -----------------------------------------------------------


def run_tool(command: list[str], **options: Any) -> subprocess.CompletedProcess:
    """Run ffmpeg or ffprobe with its output captured and no terminal input: in a background process
    group, a tool touching the terminal would be stopped (SIGTTIN) and render.py would wait forever."""
    return subprocess.run(command, capture_output=True, stdin=subprocess.DEVNULL, **options)


def ffprobe(path: Path, *options: str) -> dict:
    result = run_tool(["ffprobe", "-v", "error", "-of", "json", *options, str(path)], text=True, process_group=0)
    if result.returncode:
        raise CheckError(f"ffprobe cannot read {path.name}: {result.stderr.strip()[-300:]}")
    return json.loads(result.stdout)


def probe_video(path: Path, fps: int | None) -> tuple[float, int]:
    """Duration and frame count of a video, after checking it is complete.

    Counts the packets of the video stream (every frame of these codecs is one packet) and,
    when ``fps`` is given, requires about ``duration * fps`` of them.
    """
    entries = "stream=nb_read_packets,duration:format=duration"
    info = ffprobe(path, "-count_packets", "-select_streams", "v:0", "-show_entries", entries)
    if not info.get("streams"):
        raise CheckError(f"{path.name} has no video stream")
    stream = info["streams"][0]
    frames = int(stream.get("nb_read_packets", 0))
    duration = float(stream.get("duration") or info.get("format", {}).get("duration") or 0)
    if frames < 1 or duration <= 0:
        raise CheckError(f"{path.name} is empty ({frames} frames, {duration:.2f} s)")
    if fps and abs(frames - duration * fps) > 2:
        raise CheckError(f"{path.name} has {frames} frames for {duration:.2f} s at {fps} fps: incomplete")
    return duration, frames


def write_thumbnail(video: Path, png: Path, fps: int | None) -> None:
    """The last frame of ``video`` as a PNG.

    Seeks to one and a half frames before the end, so ffmpeg writes only the last frame or two.
    """
    near_end = ["-sseof", f"-{1.5 / fps:.4f}"] if fps else []
    for seek in (near_end, []):
        command = ["ffmpeg", "-v", "error", "-y", *seek, "-i", str(video), "-update", "1", str(png)]
        run_tool(command, process_group=0)  # Ctrl-C is render.py's to handle
        if png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n":
            return
    raise CheckError(f"no last frame could be decoded from {video.name}")


def stamp(path: Path) -> list[int | str]:
    """Size and sha256 of a file we placed: a file cut short or overwritten on disk no longer matches."""
    with open(path, "rb") as file:
        return [os.fstat(file.fileno()).st_size, hashlib.file_digest(file, "sha256").hexdigest()]


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` under a temporary name, then move it into place; a failed write leaves no trace."""
    temporary = path.with_name(f".{path.name}.part")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


@contextmanager
def locked(output: Path) -> Iterator[None]:
    """Hold ``output``'s lock for the whole run; a second run on the same folder is refused."""
    handle = open(output / LOCK, "a+")  # noqa: SIM115 -- held until the run ends
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        owner = handle.read().strip() or "another process"
        handle.close()
        raise UsageError(
            f"{output} is being rendered by another render.py (pid {owner}); "
            "wait for it to finish or choose another --output"
        ) from None
    handle.truncate(0)
    handle.write(str(os.getpid()))
    handle.flush()
    try:
        yield
    finally:
        handle.close()


# --- one scene ----------------------------------------------------------------------------


@dataclass
class Job:
    """One scene of this run: what it needs, and its record for the manifest."""

    position: int
    entry: Entry
    fingerprint: str
    record: dict = field(default_factory=dict)
    previous: dict = field(default_factory=dict)  # the record of the files this run replaces
    process: multiprocessing.Process | None = None
    started: float = 0.0

    @property
    def stem(self) -> str:
        """The scene's file names: lesson position and id, reduced to letters, digits, ``-`` and ``_``."""
        return f"{self.position:02d}-{re.sub(r'[^A-Za-z0-9_-]+', '_', self.entry.id)}"

    def work_dir(self, output: Path) -> Path:
        return output / WORK / self.stem


def is_current(record: dict | None, fp: str, output: Path) -> bool:
    """Whether a manifest record is this fingerprint's output and its files are still in place."""
    if not record or record.get("fingerprint") != fp or record.get("status") == "failed":
        return False
    for key in ("file", "thumbnail", "subtitles"):
        if record.get(key) is None:
            continue
        path = output / record[key]
        if not path.is_file() or stamp(path) != record.get("stamps", {}).get(key):
            return False
    return True


def manim_arguments(job: Job, args: argparse.Namespace, media: Path) -> list[str]:
    """The plain manim command's arguments, with its own media folder and two encoders overlapping drawing."""
    quality = QUALITIES[args.quality][0]
    options = (
        f"{quality} --disable_caching --progress_bar none --silent --max-inflight-encoders 2 --format {args.format}"
    )
    transparent = ["--transparent"] if args.transparent else []
    return ["render", *options.split(), *transparent, "--config_file", str(ROOT / "manim.cfg"),
            "--media_dir", str(media), job.entry.file, job.entry.cls]  # fmt: skip


def start(job: Job, args: argparse.Namespace, output: Path, example: Path) -> None:
    work = job.work_dir(output)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    seed_media(work / "media", output / CACHE)
    job.started = time.monotonic()
    process = workers().Process(
        target=render_scene,
        args=(manim_arguments(job, args, work / "media"), work / "manim.log", example, lifeline()[0]),
    )
    process.start()
    job.process = process


@cache
def workers() -> multiprocessing.context.BaseContext:
    """A fork server that has imported manim and the scene kit once; every scene renders in a fork of it.

    Each worker is still its own process (a crash takes down one scene), without paying
    ``import manim`` again. The server also imports render.py itself (``__main__``), so the
    workers run the code this run started with.
    """
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["__main__", "manim.__main__", "scenes.kit"])
    with inherited_by_the_server():
        forkserver.ensure_running()
    return context


@contextmanager
def inherited_by_the_server() -> Iterator[None]:
    """What the fork server inherits as it starts.

    Its output goes to /dev/null: manim's consoles, made as it imports manim, must not take
    render.py's terminal for theirs. Ctrl-C and SIGTERM are ignored, by the server and every
    worker forked from it: a stop request to the process group is render.py's to handle (it
    stops the workers and keeps what is finished). Blocked meanwhile, a request that comes as
    the server starts waits for render.py instead of being lost (Linux never discards a blocked signal).
    """
    saved = [os.dup(fd) for fd in (1, 2)]
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
    handlers = {sig: signal.signal(sig, signal.SIG_IGN) for sig in SIGNALS}
    try:
        with open(os.devnull, "w") as devnull:
            for fd in (1, 2):
                os.dup2(devnull.fileno(), fd)
        yield
    finally:
        for fd, copy in zip((1, 2), saved, strict=True):
            os.dup2(copy, fd)
            os.close(copy)
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def render_scene(manim_args: list[str], log: Path, example: Path, render_py: Connection) -> None:
    """In a worker: render one scene with manim's own command line; its exit status is manim's."""
    with open(log, "w") as file:  # first, so that even a failure to start is in the log
        for fd in (1, 2):
            os.dup2(file.fileno(), fd)
    os.setpgid(0, 0)  # its own process group, so that stopping it stops its TeX runs too
    threading.Thread(target=end_with, args=(render_py,), daemon=True).start()
    os.environ.update(ATTENTION_EXAMPLE=str(example), COLUMNS="160")  # COLUMNS: manim's log lines, unwrapped
    os.chdir(ROOT)
    sys.argv = ["manim", *manim_args]
    from manim.__main__ import main as manim_main

    manim_main()


@cache
def lifeline() -> tuple[Connection, Connection]:
    """A pipe render.py never writes to: workers hold its reading end, which reads EOF once render.py has
    ended, even killed (the fork server outlives it while workers run, so they cannot rely on their parent)."""
    return multiprocessing.Pipe(duplex=False)


def end_with(render_py: Connection) -> None:
    """In a worker's watcher thread: end the worker and its TeX runs as soon as render.py has ended."""
    with suppress(EOFError, OSError):
        render_py.recv_bytes()
    os.killpg(0, signal.SIGKILL)


def finish(job: Job, args: argparse.Namespace, output: Path) -> None:
    """Check what the worker wrote and move it into place, or record the failure with its log."""
    work = job.work_dir(output)
    seconds = round(time.monotonic() - job.started, 2)
    job.record.update(status="failed", seconds=seconds, fingerprint=job.fingerprint)
    try:
        if job.process.exitcode:
            raise CheckError(f"manim exited with status {job.process.exitcode}")
        job.record.update(place_outputs(job, args, output))
        job.record["status"] = "rendered"
        collect_svgs(work / "media", output / CACHE)
        remove_replaced(job.previous, job.record, output)
        forget_failure(output / "logs" / f"{job.stem}.log")
    except CheckError as error:
        logs = output / "logs"
        logs.mkdir(exist_ok=True)
        log_file = work / "manim.log"
        log = log_file.read_text(errors="replace") if log_file.is_file() else "(the worker wrote no log)"
        write_atomically(logs / f"{job.stem}.log", log)
        job.record.update(
            file=None,
            thumbnail=None,
            subtitles=None,
            duration=None,
            frames=None,
            error=str(error),
            log=f"logs/{job.stem}.log",
            log_tail=log.strip().splitlines()[-LOG_TAIL_LINES:],
        )
    shutil.rmtree(work, ignore_errors=True)


def forget_failure(log: Path) -> None:
    """Remove the log of an earlier failure of a scene that now rendered (and ``logs/`` once empty)."""
    log.unlink(missing_ok=True)
    if log.parent.is_dir() and not any(log.parent.iterdir()):
        log.parent.rmdir()


def remove_replaced(previous: dict, record: dict, output: Path) -> None:
    """Delete the files of an earlier render that the new one did not overwrite (another format)."""
    for key in ("file", "thumbnail", "subtitles"):
        if previous.get(key) and previous[key] != record.get(key):
            (output / previous[key]).unlink(missing_ok=True)


def seed_media(media: Path, pool: Path) -> None:
    """Give a worker its own copy of the SVGs compiled so far (no TeX run for those)."""
    for folder in SVG_FOLDERS:
        if (pool / folder).is_dir():
            shutil.copytree(pool / folder, media / folder)


def collect_svgs(media: Path, pool: Path) -> None:
    """Add the SVGs a successful worker compiled to the pool; only this process writes it."""
    for folder in SVG_FOLDERS:
        (pool / folder).mkdir(parents=True, exist_ok=True)
        for svg in (media / folder).glob("*.svg"):
            if not svg.stem.endswith("_") and not (pool / folder / svg.name).exists():
                os.replace(svg, pool / folder / svg.name)


def place_outputs(job: Job, args: argparse.Namespace, output: Path) -> dict:
    """Check the clip, make its thumbnail, then move clip, subtitles and thumbnail into place."""
    videos = [
        p
        for p in (job.work_dir(output) / "media" / "videos").rglob("*")  # one scene per media folder
        if p.suffix in VIDEO_EXTENSIONS and "partial_movie_files" not in p.parts
    ]
    if len(videos) != 1:
        raise CheckError(f"expected one video, manim wrote {len(videos)}")
    video = videos[0]
    fps = QUALITIES[args.quality][1] if video.suffix != ".gif" else None
    duration, frames = probe_video(video, fps)
    thumbnail = video.with_suffix(".png")
    write_thumbnail(video, thumbnail, fps)
    moves = {"file": (video, f"{job.stem}{video.suffix}"), "thumbnail": (thumbnail, f"{job.stem}.png")}
    if video.with_suffix(".srt").is_file():
        moves["subtitles"] = (video.with_suffix(".srt"), f"{job.stem}.srt")
    record: dict[str, Any] = {"file": None, "thumbnail": None, "subtitles": None, "stamps": {}}
    for key in ("subtitles", "thumbnail", "file"):  # the clip last: it is what marks the scene done
        if key in moves:
            source, name = moves[key]
            os.replace(source, output / name)
            record[key] = name
            record["stamps"][key] = stamp(output / name)
    return {**record, "duration": round(duration, 3), "frames": frames}


# --- the whole run ------------------------------------------------------------------------


class Progress:
    """Scenes done out of total, each scene's time and an estimate of the time left.

    A live rich display on a terminal; plain lines otherwise, so CI logs stay readable.
    """

    def __init__(self, total: int, jobs: int) -> None:
        self.total, self.jobs, self.seconds, self.live = total, jobs, [], None
        if sys.stdout.isatty() and total:
            from rich.progress import BarColumn, MofNCompleteColumn, SpinnerColumn, TextColumn, TimeElapsedColumn
            from rich.progress import Progress as RichProgress

            columns = [SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn()]
            self.live = RichProgress(*columns, TimeElapsedColumn(), TextColumn("{task.fields[left]}"))
            self.task = self.live.add_task("rendering", total=total, left="")
            self.live.start()

    def running(self, names: list[str]) -> None:
        if self.live:
            self.live.update(self.task, description="rendering " + ", ".join(names))

    def time_left(self) -> str:
        """Mean scene time so far, times the scenes left, shared by the workers."""
        left = self.total - len(self.seconds)
        if not left:
            return ""
        estimate = sum(self.seconds) / len(self.seconds) * left / min(self.jobs, left)
        return f"about {estimate:.0f} s left"

    def report(self, job: Job) -> None:
        self.seconds.append(job.record["seconds"])
        done = f"[{len(self.seconds)}/{self.total}] {job.record['status']} {job.stem} in {job.record['seconds']:.1f} s"
        left = self.time_left()
        if self.live:
            self.live.console.print(done, highlight=False)
            self.live.update(self.task, advance=1, left=left)
        else:
            print(f"{done}, {left}" if left else done, flush=True)

    def stop(self) -> None:
        if self.live:
            self.live.stop()


def run(args: argparse.Namespace) -> int:
    example = args.example.resolve()
    raw_example = read_toml(example)
    load_example(example)  # validates every section: ExampleError -> exit 2 before anything is touched
    entries = available(select(args.scenes), raw_example, example)
    if args.transparent and args.format == "mp4":
        args.format = "mov"  # manim writes transparent clips as .mov (qtrle)
    output = args.output.resolve()
    output.mkdir(parents=True, exist_ok=True)
    with locked(output):
        return render_all(args, entries, raw_example, example, output)


def render_all(args: argparse.Namespace, entries: list[Entry], raw_example: dict, example: Path, output: Path) -> int:
    settings = {"quality": args.quality, "format": args.format, "transparent": args.transparent}
    shutil.rmtree(output / WORK, ignore_errors=True)  # left by an interrupted run
    manifest = read_manifest(output)
    records = {r["id"]: r for r in manifest.get("scenes", []) if isinstance(r, dict) and "id" in r}
    fingerprints = {e.id: fingerprint(e, raw_example, settings) for e in LESSON}
    jobs = plan(entries, records, fingerprints, output, args.force)
    todo = [job for job in jobs if job.record["status"] == "todo"]

    def save() -> None:
        write_manifest(output, records, fingerprints, settings, example)

    progress = Progress(len(todo), args.jobs)
    try:
        render_queue(todo, args, output, example, progress, save)
    finally:
        progress.stop()
        shutil.rmtree(output / WORK, ignore_errors=True)
    try:
        lesson = join_lesson(output, records, fingerprints, args.format)
    except CheckError as error:
        print(f"error: the lesson video could not be made: {error}", file=sys.stderr)
        write_manifest(output, records, fingerprints, settings, example)
        return max(1, summarize(jobs, None))
    write_manifest(output, records, fingerprints, settings, example, lesson)
    return max(summarize(jobs, lesson), publish(args, output, example))


def plan(entries: list[Entry], records: dict, fingerprints: dict, output: Path, force: bool) -> list[Job]:
    """A job per selected scene, ``skipped`` when up to date, else ``todo``; updates ``records`` to match."""
    positions = {e.id: i for i, e in enumerate(LESSON, 1)}
    for record in records.values():  # scenes outside this run keep their files and are not touched
        if record.get("file"):
            record.update(status="skipped", seconds=0.0)
    jobs = []
    for entry in entries:
        job = Job(positions[entry.id], entry, fingerprints[entry.id])
        previous = records.get(entry.id)
        if not force and is_current(previous, job.fingerprint, output):
            job.record = {**previous, "status": "skipped", "seconds": 0.0}
        else:
            job.record = {"id": entry.id, "title": entry.title, "chapter": entry.chapter, "status": "todo"}
            job.previous = previous or {}
        records[entry.id] = job.record
        jobs.append(job)
    return jobs


def publish(args: argparse.Namespace, output: Path, example: Path) -> int:
    """The slide deck (with ``--slides``) and the lesson page ``index.html``, both from the manifest."""
    from publish.page import write_page

    status = 0
    if args.slides:
        from publish.slides import SlidesError, build_slides

        try:
            build_slides(output, QUALITIES[args.quality][0], example, args.jobs)
        except SlidesError as error:
            print(f"error: the slide deck could not be made: {error}", file=sys.stderr)
            status = 1
    write_page(output)
    return status


def render_queue(
    todo: list[Job], args: argparse.Namespace, output: Path, example: Path, progress: Progress, save: Any
) -> None:
    """Keep ``args.jobs`` workers busy; on Ctrl-C or SIGTERM stop them and keep what is finished.

    The signals only set a flag, checked between steps, so an interrupt never lands inside
    ``Popen`` or a file move; whatever ends the loop, no worker is left running.
    """
    waiting, running = list(todo), []
    with interrupt_flag() as interrupted:
        try:
            while (waiting or running) and not interrupted:
                while waiting and len(running) < args.jobs:
                    running.append(waiting.pop(0))
                    start(running[-1], args, output, example)
                progress.running([job.entry.id for job in running])
                time.sleep(0.05)
                for job in [j for j in running if j.process.exitcode is not None]:
                    running.remove(job)
                    finish(job, args, output)
                    save()
                    progress.report(job)
        finally:
            for job in running:
                if job.process:  # None when start() itself failed
                    stop_process(job.process)
    if interrupted:
        raise KeyboardInterrupt


@contextmanager
def interrupt_flag() -> Iterator[list[int]]:
    """While inside, SIGINT and SIGTERM append their number to the yielded list instead of raising."""
    received: list[int] = []
    handlers = {sig: signal.signal(sig, lambda signum, frame: received.append(signum)) for sig in SIGNALS}
    try:
        yield received
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)


def stop_process(process: multiprocessing.Process) -> None:
    """End a worker and everything it started (its process group; a worker not yet in it by its pid).

    SIGKILL, as workers ignore the stop requests meant for render.py; an unfinished clip is thrown away anyway.
    """
    for kill in (os.killpg, os.kill):
        with suppress(ProcessLookupError):
            kill(process.pid, signal.SIGKILL)
    process.join()


def read_manifest(output: Path) -> dict:
    try:
        return json.loads((output / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def write_manifest(
    output: Path, records: dict, fingerprints: dict, settings: dict, example: Path, lesson: dict | None = None
) -> None:
    """Every scene with outputs in ``output``, in lesson order; ``current`` tells which match this run."""
    scenes = []
    for entry in LESSON:
        record = records.get(entry.id)
        if record and (record.get("file") or record.get("status") == "failed"):
            scenes.append({**record, "current": record.get("fingerprint") == fingerprints[entry.id]})
    manifest = {
        "scenes": scenes,
        "lesson": lesson,
        **settings,
        "example": str(example),
        "manim": shared_inputs()["manim"],
        "failed": [r["id"] for r in scenes if r["status"] == "failed"],
    }
    write_atomically(output / MANIFEST, json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")


# --- the joined lesson --------------------------------------------------------------------


def join_lesson(output: Path, records: dict, fingerprints: dict, fmt: str) -> dict | None:
    """Join every up-to-date clip, in lesson order, into ``lesson.<ext>`` with chapters and subtitles.

    Returns the lesson's manifest entry (``None`` for gif clips, which cannot hold chapters).
    """
    clips = [records[e.id] for e in LESSON if e.id in records and is_current(records[e.id], fingerprints[e.id], output)]
    if fmt == "gif" or not clips:
        return None
    extension = Path(clips[0]["file"]).suffix
    video, subtitles = output / f"lesson{extension}", output / "lesson.srt"
    key = hashlib.sha256(json.dumps([c["fingerprint"] for c in clips]).encode()).hexdigest()
    previous = read_manifest(output).get("lesson") or {}
    lesson = {
        "file": video.name,
        "subtitles": subtitles.name,
        "fingerprint": key,
        "scenes": [c["id"] for c in clips],
        "chapters": chapters(clips),
        "missing": [e.id for e in LESSON if e.id not in {c["id"] for c in clips}],
    }
    if previous.get("fingerprint") == key and is_current(previous, key, output):
        return {**lesson, "stamps": previous["stamps"], "duration": previous.get("duration")}
    work = output / WORK
    work.mkdir(exist_ok=True)
    try:
        concatenate(clips, output, work / video.name)
        duration, _ = probe_video(work / video.name, None)
        write_atomically(subtitles, join_subtitles(clips, output))
        os.replace(work / video.name, video)
        for other in VIDEO_EXTENSIONS:  # a lesson of an earlier run in another format
            if other != extension:
                (output / f"lesson{other}").unlink(missing_ok=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {**lesson, "duration": round(duration, 3), "stamps": {"file": stamp(video), "subtitles": stamp(subtitles)}}


def chapters(clips: list[dict]) -> list[dict]:
    marks, start_at = [], 0.0
    for clip in clips:
        marks.append(
            {
                "id": clip["id"],
                "title": f"{clip['chapter']}: {clip['title']}",
                "start": round(start_at, 3),
                "end": round(start_at + clip["duration"], 3),
            }
        )
        start_at += clip["duration"]
    return marks


def concatenate(clips: list[dict], output: Path, target: Path) -> None:
    """ffmpeg concat (no re-encoding) with one chapter marker per scene."""
    listing = target.with_name("clips.txt")
    listing.write_text("".join(f"file {_concat_quote(output / c['file'])}\n" for c in clips), encoding="utf-8")
    metadata = target.with_name("chapters.txt")
    lines = [";FFMETADATA1", "title=Self-attention, animated"]
    for mark in chapters(clips):
        lines += [
            "[CHAPTER]",
            "TIMEBASE=1/1000",
            f"START={round(mark['start'] * 1000)}",
            f"END={round(mark['end'] * 1000)}",
            f"title={_ffmetadata_escape(mark['title'])}",
        ]
    metadata.write_text("\n".join(lines) + "\n", encoding="utf-8")
    inputs = ["-f", "concat", "-safe", "0", "-i", str(listing), "-i", str(metadata)]
    mapping = ["-map", "0", "-map_metadata", "1", "-map_chapters", "1", "-c", "copy"]
    result = run_tool(["ffmpeg", "-v", "error", "-y", *inputs, *mapping, str(target)], text=True)
    if result.returncode:
        raise CheckError(f"ffmpeg could not join the lesson: {result.stderr.strip()[-300:]}")


def _concat_quote(path: Path) -> str:
    """A path quoted for ffmpeg's concat list (single quotes; a quote inside becomes '\\'')."""
    return "'" + str(path).replace("'", "'\\''") + "'"


def _ffmetadata_escape(text: str) -> str:
    for char in "\\=;#\n":
        text = text.replace(char, "\\" + char)
    return text


def join_subtitles(clips: list[dict], output: Path) -> str:
    """The clips' subtitles, each shifted by the start of its clip in the lesson."""
    import datetime

    import srt

    lines, offset = [], 0.0
    for clip in clips:
        if clip.get("subtitles"):
            shift = datetime.timedelta(seconds=offset)
            for line in srt.parse((output / clip["subtitles"]).read_text(encoding="utf-8")):
                lines.append(srt.Subtitle(0, line.start + shift, line.end + shift, line.content))
        offset += clip["duration"]
    return srt.compose(lines)  # renumbers from 1


# --- summary ------------------------------------------------------------------------------


def summarize(jobs: list[Job], lesson: dict | None) -> int:
    counts = {s: sum(j.record["status"] == s for j in jobs) for s in ("rendered", "skipped", "failed")}
    print(", ".join(f"{n} {s}" for s, n in counts.items()), flush=True)
    if lesson:
        missing = f", {len(lesson['missing'])} of the lesson's scenes not rendered yet" if lesson["missing"] else ""
        print(f"{lesson['file']}: {len(lesson['scenes'])} scenes, {lesson['duration']:.1f} s{missing}")
    for job in jobs:
        if job.record["status"] == "failed":
            print(
                f"\nFAILED {job.entry.id} ({job.entry.file}::{job.entry.cls}): {job.record['error']}", file=sys.stderr
            )
            print("\n".join(f"    {line}" for line in job.record["log_tail"]), file=sys.stderr)
            print(f"    full log: {job.record['log']}", file=sys.stderr)
    return 1 if counts["failed"] else 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.list:
        print_lesson(args.json)
        return 0
    try:
        return run(args)
    except (UsageError, ExampleError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not interrupt the goodbye
        print("interrupted: finished scenes are in place; run again to render the rest", file=sys.stderr)
        return 130
    except OSError as error:  # a full disk, a read-only or vanished output folder
        print(f"error: cannot write the outputs in {args.output.resolve()}: {describe(error)}", file=sys.stderr)
        print("earlier outputs are untouched; free some space or choose another --output", file=sys.stderr)
        return 1


def describe(error: OSError) -> str:
    """``No space left on device: /out/x`` rather than ``[Errno 28] ...`` (for copytree: its first failure)."""
    if isinstance(error, shutil.Error) and error.args and isinstance(error.args[0], list):
        return re.sub(r"^\[Errno \d+\] ", "", str(error.args[0][0][-1]))
    where = f": {error.filename}" if error.filename else ""
    return f"{error.strerror or error}{where}"


if __name__ == "__main__":
    sys.exit(main())
