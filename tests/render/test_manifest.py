"""The typed manifest: the README's keys on disk, older manifests still read, damaged records dropped."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from render.manifest import SCHEMA_VERSION, SceneRecord, Status, read_manifest, write_manifest

README_KEYS = {"id", "title", "chapter", "file", "thumbnail", "subtitles", "status", "seconds", "fingerprint",
               "duration", "frames", "current"}  # fmt: skip

#: as the untyped render.py of 2026-11-22 wrote it: no schema version, a failure without stamps
OLD_MANIFEST = {
    "scenes": [
        {
            "id": "width",
            "title": "Model width",
            "chapter": "Tiny",
            "status": "rendered",
            "seconds": 1.2,
            "fingerprint": "f" * 64,
            "file": "01-width.mp4",
            "thumbnail": "01-width.png",
            "subtitles": "01-width.srt",
            "stamps": {"file": [3, hashlib.sha256(b"abc").hexdigest()]},
            "duration": 2.0,
            "frames": 30,
            "current": True,
        },
        {
            "id": "broken",
            "title": "Broken",
            "chapter": "Tiny",
            "status": "failed",
            "seconds": 0.5,
            "fingerprint": "b" * 64,
            "file": None,
            "thumbnail": None,
            "subtitles": None,
            "duration": None,
            "frames": None,
            "error": "manim exited with status 1",
            "log": "logs/03-broken.log",
            "log_tail": ["UndeclaredSectionError"],
            "current": True,
        },
        {"id": "odd", "title": "Odd", "chapter": "Tiny", "status": "exploded"},
        ["not", "a", "record"],
        {"title": "no id"},
    ],
    "lesson": None,
    "quality": "low",
    "format": "mp4",
    "transparent": False,
    "example": "/x/default.toml",
    "manim": "0.21.0",
    "failed": ["broken"],
}


def test_an_older_manifest_reads_and_damaged_records_are_dropped(tmp_path: Path):
    (tmp_path / "manifest.json").write_text(json.dumps(OLD_MANIFEST))
    records = read_manifest(tmp_path).scenes
    assert [r.id for r in records] == ["width", "broken"]
    width, broken = records
    assert width.status is Status.RENDERED and width.frames == 30 and width.file == "01-width.mp4"
    assert broken.status is Status.FAILED and broken.stamps == {} and broken.log_tail == ["UndeclaredSectionError"]


def test_a_record_is_current_only_while_its_files_are_unchanged(tmp_path: Path):
    (tmp_path / "manifest.json").write_text(json.dumps(OLD_MANIFEST))
    width = read_manifest(tmp_path).scenes[0]
    width.thumbnail = width.subtitles = None
    (tmp_path / "01-width.mp4").write_bytes(b"abc")
    assert width.is_current("f" * 64, tmp_path)
    assert not width.is_current("e" * 64, tmp_path), "another fingerprint"
    (tmp_path / "01-width.mp4").write_bytes(b"abd")  # same size, other bytes
    assert not width.is_current("f" * 64, tmp_path)


def test_written_records_have_the_readme_keys_and_read_back_equal(tmp_path: Path):
    rendered = SceneRecord("a", "A", "One", Status.RENDERED, 1.5, "c" * 64, "01-a.mp4", "01-a.png", None,
                           {"file": [1, "d" * 64]}, 2.5, 38)  # fmt: skip
    failed = SceneRecord("b", "B", "One", Status.FAILED, 0.1, "e" * 64, error="boom", log="logs/b.log", log_tail=["x"])
    write_manifest(tmp_path, [(rendered, True), (failed, False)], {"quality": "low"}, Path("/ex.toml"), "0.21.0")
    data = json.loads((tmp_path / "manifest.json").read_text())
    assert data["schema_version"] == SCHEMA_VERSION and data["failed"] == ["b"] and data["quality"] == "low"
    first, second = data["scenes"]
    assert set(first) >= README_KEYS and not {"error", "log", "log_tail"} & set(first)
    assert first["status"] == "rendered" and first["current"] is True
    assert second["error"] == "boom" and second["log"] == "logs/b.log" and second["current"] is False
    assert read_manifest(tmp_path).scenes == [rendered, failed]
