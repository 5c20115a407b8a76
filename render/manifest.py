"""``manifest.json``, typed: what each scene's outputs are, whether they are current, and the joined lesson.

The JSON keys are a contract (docs/rendering.md lists them); a manifest written by an earlier version
still reads (unknown keys are ignored, a record that cannot be read is treated as absent).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from enum import StrEnum
from pathlib import Path
from typing import Any

from .files import stamp, write_atomically

MANIFEST = "manifest.json"
SCHEMA_VERSION = 2  # 1: the untyped manifest, which had no version key
OUTPUT_KEYS = ("file", "thumbnail", "subtitles")  # a scene's files, relative to the output folder


class Status(StrEnum):
    TODO = "todo"  # only while a run plans: never written
    RENDERED = "rendered"
    SKIPPED = "skipped"
    FAILED = "failed"


@dataclass
class SceneRecord:
    """One scene's outputs in the output folder; updated as the run renders it."""

    id: str
    title: str
    chapter: str
    status: Status = Status.TODO
    seconds: float = 0.0  # this run's time on the scene
    fingerprint: str | None = None
    file: str | None = None
    thumbnail: str | None = None
    subtitles: str | None = None
    stamps: dict[str, list[Any]] = field(default_factory=dict)  # key -> [size, sha256] of the file placed
    duration: float | None = None
    frames: int | None = None
    audio: bool = False  # whether the clip has a sound track (narration, or silence of its length)
    voice: str | None = None  # the voice that speaks its narration
    error: str | None = None
    log: str | None = None
    log_tail: list[str] | None = None

    def output(self, key: str) -> str | None:
        value: str | None = getattr(self, key)
        return value

    def is_current(self, fingerprint: str, output: Path) -> bool:
        """Whether this is ``fingerprint``'s output and its files are still in place, unchanged."""
        return self.fingerprint == fingerprint and self.status is not Status.FAILED and intact(self, output)

    def to_json(self, current: bool) -> dict[str, Any]:
        record = {k: v for k, v in asdict(self).items() if v is not None or k not in ("error", "log", "log_tail")}
        return {**record, "status": self.status.value, "current": current}

    @classmethod
    def from_json(cls, data: Any) -> SceneRecord | None:
        """The record in ``data``, or ``None`` when it is not one (damaged or foreign)."""
        if not isinstance(data, dict) or not isinstance(data.get("id"), str):
            return None
        known = {f.name for f in fields(cls)}
        try:
            record = cls(**{k: v for k, v in data.items() if k in known})
            record.status = Status(record.status)
        except (TypeError, ValueError):
            return None
        if not isinstance(record.stamps, dict):
            record.stamps = {}
        return record


@dataclass(frozen=True)
class Chapter:
    id: str
    title: str
    start: float
    end: float


@dataclass
class LessonRecord:
    """The joined lesson video and its subtitles."""

    file: str
    subtitles: str
    fingerprint: str
    scenes: list[str]
    chapters: list[Chapter]
    missing: list[str]
    duration: float | None = None
    stamps: dict[str, list[Any]] = field(default_factory=dict)

    def output(self, key: str) -> str | None:
        return self.file if key == "file" else self.subtitles if key == "subtitles" else None

    def is_current(self, fingerprint: str, output: Path) -> bool:
        return self.fingerprint == fingerprint and intact(self, output)

    @classmethod
    def from_json(cls, data: Any) -> LessonRecord | None:
        if not isinstance(data, dict):
            return None
        try:
            chapters = [Chapter(**c) for c in data.get("chapters", [])]
            known = {f.name for f in fields(cls)} - {"chapters"}
            return cls(chapters=chapters, **{k: v for k, v in data.items() if k in known})
        except TypeError:
            return None


def intact(record: SceneRecord | LessonRecord, output: Path) -> bool:
    """Whether every file ``record`` names is in ``output`` with the size and sha256 recorded when placed."""
    for key in OUTPUT_KEYS:
        name = record.output(key)
        if name is None:
            continue
        path = output / name
        if not path.is_file() or stamp(path) != record.stamps.get(key):
            return False
    return True


@dataclass
class Manifest:
    scenes: list[SceneRecord] = field(default_factory=list)
    lesson: LessonRecord | None = None


def read_manifest(output: Path) -> Manifest:
    """The manifest in ``output``; an empty one when it is missing or unreadable."""
    try:
        data = json.loads((output / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return Manifest()
    if not isinstance(data, dict):
        return Manifest()
    records = [SceneRecord.from_json(r) for r in data.get("scenes") or []]
    return Manifest([r for r in records if r], LessonRecord.from_json(data.get("lesson")))


def write_manifest(
    output: Path,
    scenes: list[tuple[SceneRecord, bool]],
    settings: dict[str, Any],
    example: Path,
    manim: str,
    lesson: LessonRecord | None = None,
) -> None:
    """Write every ``(record, current)`` in the order given, with the run's settings."""
    manifest = {
        "schema_version": SCHEMA_VERSION,
        "scenes": [record.to_json(current) for record, current in scenes],
        "lesson": asdict(lesson) if lesson else None,
        **settings,
        "example": str(example),
        "manim": manim,
        "failed": [record.id for record, _ in scenes if record.status is Status.FAILED],
    }
    write_atomically(output / MANIFEST, json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
