"""What a run renders: the scenes asked for, their fingerprints, and which of them are up to date."""

from __future__ import annotations

import difflib
import fnmatch
import hashlib
import json
import re
from dataclasses import dataclass
from functools import cache
from importlib.metadata import version
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any, Literal

from attention_math.example import ROOT
from scenes.lesson import LESSON, Entry

from .encoding import ENCODER
from .manifest import SceneRecord, Status
from .settings import UsageError

#: what every scene shares: a change here re-renders the whole lesson
SHARED_SOURCES = ("scenes/kit", "scenes/lesson.py", "attention_math", "render/encoding.py", "render/frames.py")
WORK = ".work"  # per-scene media folders and files not yet checked; removed at the end of every run


@dataclass
class Job:
    """One scene of this run: what it needs, and its record for the manifest."""

    position: int
    entry: Entry
    fingerprint: str
    record: SceneRecord
    previous: SceneRecord | None = None  # the record of the files this run replaces
    kind: Literal["clip", "slides"] = "clip"
    process: BaseProcess | None = None  # the worker rendering it
    started: float = 0.0
    expected: float | None = None  # its render time as the manifest suggests (see expected_seconds), if known

    @property
    def stem(self) -> str:
        """The scene's file names: lesson position and id, reduced to letters, digits, ``-`` and ``_``."""
        stem = f"{self.position:02d}-{re.sub(r'[^A-Za-z0-9_-]+', '_', self.entry.id)}"
        return stem if self.kind == "clip" else f"{stem}-{self.kind}"

    def work_dir(self, output: Path) -> Path:
        return output / WORK / self.stem


def select(patterns: tuple[str, ...]) -> list[Entry]:
    """The lesson entries matching any pattern (all when there is none), in lesson order."""
    if not patterns:
        return list(LESSON)
    for pattern in patterns:
        if not any(fnmatch.fnmatchcase(e.id, pattern) for e in LESSON):
            close = difflib.get_close_matches(pattern, [e.id for e in LESSON], n=1)
            hint = f"; did you mean {close[0]!r}?" if close else " (python render.py --list shows the ids)"
            raise UsageError(f"no scene matches {pattern!r}{hint}")
    return [e for e in LESSON if any(fnmatch.fnmatchcase(e.id, p) for p in patterns)]


def available(entries: list[Entry], raw_example: dict[str, Any], example: Path) -> list[Entry]:
    """The entries whose example sections are all in the file (an optional one, ``real_model``, may be left out).

    The others are left out of the run with a note; if that leaves nothing, it is a usage error.
    """
    kept: list[Entry] = []
    missing: dict[str, list[str]] = {}
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


def shared_files() -> list[Path]:
    """The files of :data:`SHARED_SOURCES` (folders' files, and files named directly), in a fixed order."""
    paths = [p for name in SHARED_SOURCES for p in [ROOT / name, *sorted((ROOT / name).rglob("*"))]]
    return [p for p in paths if p.is_file() and "__pycache__" not in p.parts]


@cache
def shared_inputs() -> dict[str, str]:
    """What every scene depends on: the shared sources (read once per run), and manim's and PyAV's versions."""
    return {"shared": files_digest(shared_files()), "manim": version("manim"), "av": version("av")}


def named_files(value: Any) -> dict[str, str]:
    """sha256 of every file an example section names (a string that is a file's path, from the repository root)."""
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return {name: digest for item in value for name, digest in named_files(item).items()}
    if isinstance(value, str) and (ROOT / value).is_file():
        return {value: hashlib.sha256((ROOT / value).read_bytes()).hexdigest()}
    return {}


def fingerprint(
    entry: Entry, raw_example: dict[str, Any], settings: dict[str, Any], encoder: dict[str, str] = ENCODER
) -> str:
    """sha256 over all a scene's output depends on: sources, its example sections and the files they
    name (e.g. a model-data file), settings, the encoder's settings, manim."""
    sections = {section: raw_example.get(section) for section in entry.depends_on}
    inputs = {
        "scene": files_digest([ROOT / entry.file]),
        "entry": entry.as_dict(),
        "example": sections,
        "named_files": named_files(sections),
        "settings": settings,
        "encoder": encoder,
        **shared_inputs(),
    }
    return hashlib.sha256(json.dumps(inputs, sort_keys=True, separators=(",", ":"), default=str).encode()).hexdigest()


# --- the plan -----------------------------------------------------------------------------


def plan(
    entries: list[Entry], records: dict[str, SceneRecord], fingerprints: dict[str, str], output: Path, force: bool
) -> list[Job]:
    """A job per selected scene, ``skipped`` when up to date, else ``todo``; updates ``records`` to match."""
    positions = {e.id: i for i, e in enumerate(LESSON, 1)}
    expected = expected_seconds(list(records.values()))  # before this run's statuses replace the last run's
    for record in records.values():  # scenes outside this run keep their files and are not touched
        if record.file:
            record.status, record.seconds = Status.SKIPPED, 0.0
    jobs = []
    for entry in entries:
        previous = records.get(entry.id)
        if not force and previous and previous.is_current(fingerprints[entry.id], output):
            previous.status, previous.seconds = Status.SKIPPED, 0.0
            job = Job(positions[entry.id], entry, fingerprints[entry.id], previous)
        else:
            record = SceneRecord(entry.id, entry.title, entry.chapter)
            job = Job(positions[entry.id], entry, fingerprints[entry.id], record, previous)
        job.expected = expected.get(entry.id)
        records[entry.id] = job.record
        jobs.append(job)
    return jobs


def expected_seconds(records: list[SceneRecord]) -> dict[str, float]:
    """Each scene's render time as the manifest suggests: its last render's seconds where the last run
    rendered it; else its clip's length times the median seconds per second of clip of those (a run
    records 0 s for the scenes it skips). Scenes with neither are left out (unknown)."""
    timed = {r.id: r.seconds for r in records if r.status is Status.RENDERED and r.seconds > 0}
    rates = sorted(r.seconds / r.duration for r in records if r.id in timed and r.duration)
    rate = rates[len(rates) // 2] if rates else 1.0  # none measured: lengths alone still rank the scenes
    lengths = {r.id: r.duration * rate for r in records if r.id not in timed and r.duration}
    return {**lengths, **timed}


def longest_first(jobs: list[Job]) -> list[Job]:
    """The render queue: scenes of unknown length first (they may be the longest), then the longest
    expected first, so that no long scene starts last and leaves the other workers idle at the end.
    Ties keep lesson order; outputs and the manifest stay in lesson order whatever the queue."""
    return sorted(jobs, key=lambda job: (job.expected is not None, -(job.expected or 0.0)))
