"""``render.py --cluster ADDRESS``: scene renders on an existing Dask cluster's workers.

This process plans, fingerprints, skips, places, joins and writes the manifest as with local workers;
a Dask worker only renders: with the local workers' own ``render_scene``, in a folder of its own (no
shared disk), after checking that its sources and packages are the client's; it returns the files.
Dask is imported only here, so a local run never loads it.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import suppress
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import TYPE_CHECKING, Any

from attention_math.example import ROOT
from scenes.lesson import LESSON

from . import workers
from .manifest import SceneRecord, Status
from .plan import Job
from .progress import plural
from .settings import Settings, UsageError

if TYPE_CHECKING:
    from distributed import Client, Future

    from .progress import Progress
    from .run import Run

#: what a worker's renders depend on, beside the example the client sends: compared before each scene
SOURCES = ("scenes", "attention_math", "render", "assets", "manim.cfg", "requirements.txt")
WORKER_CACHE = Path(tempfile.gettempdir()) / "attention-lesson-worker"  # its speech and SVGs, across scenes
LISTED = 8  # differing files or packages named in a refusal
RUN_TOKEN = uuid.uuid4().hex[:8]  # in every task key: no key of this run is one an earlier run cancelled
#: a many-lessons run: the next lesson's settings and scenes, submitted behind this lesson's (render/lessons.py)
NEXT_LESSON: list[tuple[Settings, list[Job]]] = []
AHEAD: dict[str, Future[Any]] = {}  # the next lesson's scenes on the cluster, by task key


# --- on the client ------------------------------------------------------------------------


def render_on_cluster(run: Run, todo: list[Job], progress: Progress) -> None:
    """Send every scene of ``todo`` to the cluster at once and place each result as it comes back.

    Ctrl-C or SIGTERM cancels what the cluster has not finished; the scenes placed stay.
    """
    if not todo:
        return  # a run with nothing to render does not even connect
    assert run.settings.cluster
    client = connect(run.settings.cluster)
    spec = task_spec(run.settings)
    pending: dict[Future[Any], Job] = {}
    with workers.interrupt_flag() as interrupted:
        try:
            for job in todo:  # scenes queued ahead while the previous lesson rendered are taken as they are
                job.started = time.monotonic()
                key = task_key(job)
                pending[AHEAD.pop(key) if key in AHEAD else submit(client, job, spec)] = job
            AHEAD.clear()  # the rest were reused from the previous lesson, or are up to date
            queue_next_lesson(client)
            while pending and not interrupted:
                progress.running([f"{len(pending)} on the cluster"])
                time.sleep(0.05)
                for future in [f for f in pending if f.done()]:  # type: ignore[no-untyped-call]
                    job = pending.pop(future)
                    receive(run, job, future)
                    run.save()
                    progress.report(job)
        finally:
            if pending or interrupted:  # stopped early: nothing of this run goes on on the cluster
                client.cancel([*pending, *AHEAD.values()])  # type: ignore[no-untyped-call]
    if interrupted:
        raise KeyboardInterrupt


@cache
def connect(address: str) -> Client:
    """The client of the scheduler at ``address``, once per run (many lessons share it); closed at exit."""
    from distributed import Client

    try:
        client = Client(address, timeout="10s", set_as_default=False)  # type: ignore[no-untyped-call]
    except (OSError, TimeoutError, ValueError) as error:
        raise UsageError(
            f"--cluster {address}: no Dask scheduler answers there ({error}); start one with `dask scheduler`"
        ) from None
    atexit.register(client.close)
    if not client.scheduler_info().get("workers"):
        print(f"note: the scheduler at {address} has no workers yet; waiting for `dask worker {address}`", flush=True)
    return client


def task_spec(settings: Settings) -> dict[str, Any]:
    """What a worker needs of a lesson: plain values only (readable before its version check), the
    example file's bytes (no shared disk), and the client's checkout to compare with its own."""
    values = {"quality": settings.quality, "format": settings.format, "transparent": settings.transparent,
              "voice": settings.voice, "voice_identity": settings.voice_identity}  # fmt: skip
    example = {"example": settings.example.read_bytes(), "example_name": settings.example.name}
    return {"settings": values, **example, "expected": checkout()}


def task_key(job: Job) -> str:
    """The scene's task: the same for the same pixels (one task for two lessons that share the scene)."""
    return f"render-{job.stem}-{job.fingerprint[:12]}-{RUN_TOKEN}"


def submit(client: Client, job: Job, spec: dict[str, Any]) -> Future[Any]:
    """One scene as a task; its key names it in the dashboard (and lets the worker see it cancelled)."""
    key = task_key(job)
    scene = {"id": job.entry.id, "position": job.position, "fingerprint": job.fingerprint, "key": key}
    return client.submit(render_remotely, {**spec, "scene": scene}, key=key, pure=False)


def queue_next_lesson(client: Client) -> None:
    """Submit the next lesson's scenes behind this lesson's, so that workers do not wait between lessons."""
    if not NEXT_LESSON:
        return
    settings, jobs = NEXT_LESSON.pop()
    spec = task_spec(settings)
    for job in jobs:
        AHEAD[task_key(job)] = submit(client, job, spec)
    if jobs:
        scenes = plural(len(jobs), "scene")
        print(f"queued {scenes} of lesson {settings.output.name} behind this one", flush=True)


def receive(run: Run, job: Job, future: Future[Any]) -> None:
    """Write what the worker returned into the job's work folder, then check and place it as a local result."""
    work = job.work_dir(run.output)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    try:
        result: dict[str, Any] = future.result()
    except Exception as error:  # noqa: BLE001 -- KilledWorker (it died too often), a lost scheduler: the scene fails
        return fail(run, job, f"the cluster could not render it: {type(error).__name__}: {error}")
    if result["refused"]:
        return fail(run, job, f"worker {result['worker']} refused it: {result['refused']}")
    for name, data in result["files"].items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_bytes(data)
    keep_speech(run.settings.voice_cache, work / workers.NARRATION, result["speech"])
    job.started = time.monotonic() - result["seconds"]  # the render's own time, not its wait in the queue
    job.process = Finished(result["exitcode"])
    print(f"{job.stem}: rendered by {result['worker']}", flush=True)
    run.finish(job)


def fail(run: Run, job: Job, error: str) -> None:
    """Record a scene the cluster could not render, with the error as its log."""
    record = job.record
    record.fingerprint, record.status = job.fingerprint, Status.FAILED
    (job.work_dir(run.output) / "manim.log").write_text(error + "\n")
    run.record_failure(job, error)
    record.seconds = round(time.monotonic() - job.started, 2)
    shutil.rmtree(job.work_dir(run.output), ignore_errors=True)


def keep_speech(cache_dir: Path, listing: Path, speech: dict[str, bytes]) -> None:
    """Add the worker's speech to this machine's voice cache and point the scene's listing at it."""
    if not speech:
        return
    cache_dir.mkdir(parents=True, exist_ok=True)
    for name, data in speech.items():
        if not (cache_dir / name).is_file():
            temporary = cache_dir / f".{name}.part"
            temporary.write_bytes(data)
            os.replace(temporary, cache_dir / name)
    said = json.loads(listing.read_text(encoding="utf-8"))
    for sentence in said:
        sentence["wav"] = str(cache_dir / Path(sentence["wav"]).name)
    listing.write_text(json.dumps(said, indent=1, ensure_ascii=False), encoding="utf-8")


class Finished(BaseProcess):
    """The process that rendered a scene on a worker, as ``Run.finish`` reads it: only its exit status."""

    def __init__(self, exitcode: int) -> None:
        super().__init__()
        self._remote_exitcode = exitcode

    @property
    def exitcode(self) -> int:
        return self._remote_exitcode


# --- the version check (both sides) -------------------------------------------------------


def checkout() -> dict[str, dict[str, str]]:
    """sha256 of every source file a render reads, and the installed version of every pinned package."""
    files = {}
    for name in SOURCES:
        paths = [ROOT / name] if (ROOT / name).is_file() else sorted((ROOT / name).rglob("*"))
        for path in paths:
            if path.is_file() and "__pycache__" not in path.parts:
                files[str(path.relative_to(ROOT))] = hashlib.sha256(path.read_bytes()).hexdigest()
    packages = {"python": platform.python_version()}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        name = line.split("#")[0].split("==")[0].strip()
        if name:
            packages[name] = installed(name)
    return {"files": files, "packages": packages}


def installed(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"


def differences(client: dict[str, dict[str, str]], worker: dict[str, dict[str, str]]) -> str:
    """What differs between the client's checkout and the worker's, in words ("" when nothing does)."""
    files, packages = changed(client["files"], worker["files"]), changed(client["packages"], worker["packages"])
    said = []
    if files:
        more = f" and {len(files) - LISTED} more" if len(files) > LISTED else ""
        said.append(f"files that differ from the client's: {', '.join(files[:LISTED])}{more}")
    if packages:
        here, there = client["packages"], worker["packages"]
        versions = [f"{n} {there.get(n, 'not pinned')} (client: {here.get(n, 'not pinned')})" for n in packages]
        more = f" and {len(versions) - LISTED} more" if len(versions) > LISTED else ""
        said.append(f"packages that differ: {', '.join(versions[:LISTED])}{more}")
    return "; ".join(said)


def changed(client: dict[str, str], worker: dict[str, str]) -> list[str]:
    return sorted(name for name in client.keys() | worker.keys() if client.get(name) != worker.get(name))


# --- on a worker --------------------------------------------------------------------------


def render_remotely(spec: dict[str, Any]) -> dict[str, Any]:
    """The task: refuse if this checkout differs from the client's, else render the scene in a folder of
    its own and return its files (clip, subtitles, narration listing, log) and the speech it used."""
    from distributed import get_worker

    worker = get_worker()
    result: dict[str, Any] = {"worker": worker.address, "refused": differences(spec["expected"], checkout())}
    if result["refused"]:
        return result
    scene = spec["scene"]
    with tempfile.TemporaryDirectory(prefix="attention-render-") as folder:
        (Path(folder) / spec["example_name"]).write_bytes(spec["example"])
        settings = Settings(**spec["settings"], example=Path(folder) / spec["example_name"],
                            output=Path(folder) / "out", shared=WORKER_CACHE)  # fmt: skip
        entry = next(e for e in LESSON if e.id == scene["id"])  # the same lesson list: the check above
        job = Job(scene["position"], entry, scene["fingerprint"], SceneRecord(entry.id, entry.title, entry.chapter))
        work = job.work_dir(settings.output)
        work.mkdir(parents=True)
        workers.seed_media(work / "media", WORKER_CACHE)
        started = time.monotonic()
        command = workers.manim_arguments(job, settings, work / "media")
        exitcode = render_in_child(command, work / "manim.log", workers.scene_env(job, settings),
                                   lambda: wanted(worker, scene["key"]))  # fmt: skip
        result.update(exitcode=exitcode, seconds=time.monotonic() - started, files=outputs(work))
        result["speech"] = speech(work / workers.NARRATION)
        if exitcode == 0:
            workers.collect_svgs(work / "media", WORKER_CACHE)
    return result


def wanted(worker: Any, key: str) -> bool:
    """Whether the scheduler still wants this task (the client's Ctrl-C cancels it)."""
    task = worker.state.tasks.get(key)
    return task is not None and task.state != "cancelled"


def render_in_child(command: list[str], log: Path, env: dict[str, str], still_wanted: Any) -> int:
    """``workers.render_scene`` in a child process of this checkout; it ends with this worker, even killed.

    A subprocess, not a fork: a Dask worker is a daemon process, which may not have children of its own
    through multiprocessing. The child holds the reading end of a pipe only this process writes to.
    """
    lifeline_read, lifeline_write = os.pipe()
    arguments = json.dumps({"command": command, "log": str(log), "env": env, "lifeline": lifeline_read})
    child = subprocess.Popen(
        [sys.executable, "-c", "from render.cluster import child; child()", arguments],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])},
        pass_fds=(lifeline_read,),
        stdin=subprocess.DEVNULL,
    )
    os.close(lifeline_read)
    try:
        while child.poll() is None:
            try:
                child.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                if not still_wanted():
                    stop(child.pid)
    finally:
        if child.poll() is None:
            stop(child.pid)
            child.wait()
        os.close(lifeline_write)
    return child.returncode


def stop(pid: int) -> None:
    """End the child and its TeX runs (its process group; by its pid if it has not made the group yet)."""
    for kill in (os.killpg, os.kill):
        with suppress(ProcessLookupError):
            kill(pid, signal.SIGKILL)


def child() -> None:
    """The child's entry point: the local workers' ``render_scene``, its lifeline the inherited pipe."""
    arguments = json.loads(sys.argv[1])
    lifeline = Connection(arguments["lifeline"], writable=False)
    workers.render_scene(arguments["command"], Path(arguments["log"]), arguments["env"], lifeline)


def outputs(work: Path) -> dict[str, bytes]:
    """The files the client places, by path in the work folder: the clip, its subtitles, the listing, the log."""
    kept = [p for p in (work / "media" / "videos").rglob("*") if p.is_file() and "partial_movie_files" not in p.parts]
    kept += [p for p in (work / workers.NARRATION, work / "manim.log") if p.is_file()]
    return {str(p.relative_to(work)): p.read_bytes() for p in kept}


def speech(listing: Path) -> dict[str, bytes]:
    """The WAV files of the sentences the scene said, by file name (their names are their content keys)."""
    if not listing.is_file():
        return {}
    said = json.loads(listing.read_text(encoding="utf-8"))
    return {Path(s["wav"]).name: Path(s["wav"]).read_bytes() for s in said if Path(s["wav"]).is_file()}
