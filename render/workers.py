"""The worker processes: each scene renders with manim's own command line in a fork of a server that
imported manim once, in its own media folder, and ends with render.py even when render.py is killed."""

from __future__ import annotations

import atexit
import multiprocessing
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from functools import cache
from multiprocessing import forkserver
from multiprocessing.connection import Connection
from multiprocessing.context import BaseContext
from multiprocessing.process import BaseProcess
from pathlib import Path

from attention_math.example import ROOT

from .encoding import ENCODER, use_encoder
from .plan import Job
from .settings import Settings

CACHE = ".cache"  # TeX and Text SVGs of earlier workers, reused by later ones (manim names them by content)
NARRATION = "narration.json"  # in a clip's work folder: each sentence the scene said, its start and speech
SVG_FOLDERS = ("Tex", "texts")
SIGNALS = (signal.SIGINT, signal.SIGTERM)  # a stop request: finish cleanly


def manim_arguments(job: Job, settings: Settings, media: Path) -> list[str]:
    """The plain manim command's arguments, with its own media folder and two encoders overlapping drawing."""
    options = (
        f"{settings.manim_flag} --disable_caching --progress_bar none --silent --max-inflight-encoders 2 "
        f"--format {settings.format}"
    )
    transparent = ["--transparent"] if settings.transparent else []
    return ["render", *options.split(), *transparent, "--config_file", str(ROOT / "manim.cfg"),
            "--media_dir", str(media), job.entry.file, job.entry.cls]  # fmt: skip


def start(
    job: Job, settings: Settings, arguments: Callable[[Job, Settings, Path], list[str]], env: dict[str, str]
) -> None:
    """Start ``job``'s worker in a fresh work folder seeded with the SVGs compiled so far.

    ``arguments`` gives manim's command line for the job (a clip, or its slides) and its media folder;
    ``env`` adds to the scene's environment (the run's shared voice service).
    """
    work = job.work_dir(settings.output)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    seed_media(work / "media", settings.output / CACHE)
    job.started = time.monotonic()
    process = workers().Process(  # type: ignore[attr-defined]
        target=render_scene,
        args=(
            arguments(job, settings, work / "media"),
            work / "manim.log",
            scene_env(job, settings) | env,
            lifeline()[0],
        ),
    )
    process.start()
    job.process = process


def scene_env(job: Job, settings: Settings) -> dict[str, str]:
    """What the scene reads from its environment: the example, the voice (which paces clips and slides
    alike, from one cache of speech) and where to list what it said."""
    return {
        "ATTENTION_EXAMPLE": str(settings.example),
        "ATTENTION_VOICE": settings.voice,
        "ATTENTION_VOICE_CACHE": str(settings.voice_cache),
        "ATTENTION_NARRATION": str(job.work_dir(settings.output) / NARRATION),
    }


@cache
def workers() -> BaseContext:
    """A fork server that has imported manim and the scene kit once; every scene renders in a fork of it.

    Each worker is still its own process (a crash takes down one scene), without paying
    ``import manim`` again.
    """
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["render.workers", "manim.__main__", "scenes.kit"])
    with inherited_by_the_server():
        forkserver.ensure_running()
    return context


@cache
def server_log() -> Path:
    """render.py's own file for the fork server's output, removed when render.py ends."""
    handle, name = tempfile.mkstemp(prefix="attention-workers-", suffix=".log")
    os.close(handle)
    atexit.register(Path(name).unlink, missing_ok=True)
    return Path(name)


def early_failure() -> str:
    """The log of a worker that ended before it could start manim (so before it opened its own log):
    the fork server's output, where the traceback of such a worker goes."""
    said = server_log().read_text(errors="replace").strip() if server_log().is_file() else ""
    return (
        "The worker ended before manim started. A change to the code during a run can cause this "
        "(the workers import what the fork server loaded when the run began): run again.\n"
        f"The fork server's output:\n{said or '(nothing)'}\n"
    )


@contextmanager
def inherited_by_the_server() -> Iterator[None]:
    """What the fork server inherits as it starts.

    Its output goes to :func:`server_log`: manim's consoles, made as it imports manim, must not take
    render.py's terminal for theirs, and a worker that fails before its own log is open writes there.
    Ctrl-C and SIGTERM are ignored, by the server and every worker forked from it: a stop request
    to the process group is render.py's to handle (it stops the workers and keeps what is
    finished). Blocked meanwhile, a request that comes as the server starts waits for render.py
    instead of being lost (Linux never discards a blocked signal).
    """
    saved = [os.dup(fd) for fd in (1, 2)]
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
    handlers = {sig: signal.signal(sig, signal.SIG_IGN) for sig in SIGNALS}
    try:
        with open(server_log(), "a") as sink:
            for fd in (1, 2):
                os.dup2(sink.fileno(), fd)
        yield
    finally:
        for fd, copy in zip((1, 2), saved, strict=True):
            os.dup2(copy, fd)
            os.close(copy)
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def render_scene(manim_args: list[str], log: Path, env: dict[str, str], render_py: Connection) -> None:
    """In a worker: render one scene with manim's own command line; its exit status is manim's."""
    with open(log, "w") as file:  # first, so that even a failure to start is in the log
        for fd in (1, 2):
            os.dup2(file.fileno(), fd)
    os.setpgid(0, 0)  # its own process group, so that stopping it stops its TeX runs too
    threading.Thread(target=end_with, args=(render_py,), daemon=True).start()
    os.environ.update(env, COLUMNS="160")  # COLUMNS: manim's log lines, unwrapped
    os.chdir(ROOT)
    use_encoder(ENCODER)
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


def stop_process(process: BaseProcess) -> None:
    """End a worker and everything it started (its process group; a worker not yet in it by its pid).

    SIGKILL, as workers ignore the stop requests meant for render.py; an unfinished clip is thrown away anyway.
    """
    assert process.pid is not None
    for kill in (os.killpg, os.kill):
        with suppress(ProcessLookupError):
            kill(process.pid, signal.SIGKILL)
    process.join()


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
