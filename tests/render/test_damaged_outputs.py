"""Damaged outputs are found and rendered again; two runs on one folder never corrupt each other."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import GOOD, manifest, start, statuses, tree_digest, wait_for
from tests.conftest import render as render_in

pytestmark = pytest.mark.render


def frames(video: Path) -> int:
    """Frames of ``video`` counted by decoding it (0 when ffprobe cannot read it)."""
    command = ["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-of", "json",
               "-show_entries", "stream=nb_read_frames", str(video)]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True)
    streams = json.loads(result.stdout or "{}").get("streams") if result.returncode == 0 else None
    return int(streams[0]["nb_read_frames"]) if streams else 0


def cut_short(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def garbage_same_size_and_time(path: Path) -> None:
    """Overwrite with garbage of the same size and put the modification time back: only the content differs."""
    before = path.stat()
    path.write_bytes(bytes(range(256)) * (before.st_size // 256) + b"\0" * (before.st_size % 256))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def one_byte_flipped(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    before = path.stat()
    path.write_bytes(bytes(data))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


DAMAGES: list[tuple[str, str, Callable[[Path], None]]] = [
    ("clip cut short", "01-width.mp4", cut_short),
    ("clip overwritten, same size and time", "01-width.mp4", garbage_same_size_and_time),
    ("clip with one byte flipped", "01-width.mp4", one_byte_flipped),
    ("thumbnail cut short", "01-width.png", cut_short),
    ("subtitles deleted", "01-width.srt", Path.unlink),
]


@pytest.mark.parametrize(("file", "damage"), [d[1:] for d in DAMAGES], ids=[d[0] for d in DAMAGES])
def test_damaged_output_is_rendered_again(repo, rendered, file, damage):
    untouched = tree_digest(rendered)["02-scaling.mp4"]
    damage(rendered / file)
    result = render_in(repo, *GOOD)
    assert result.returncode == 0, result.stderr
    assert statuses(repo) == {"width": "rendered", "scaling": "skipped"}
    assert frames(rendered / "01-width.mp4") == 15
    assert (rendered / file).is_file()
    assert tree_digest(rendered)["02-scaling.mp4"] == untouched


def test_damaged_lesson_is_joined_again(repo, rendered):
    cut_short(rendered / "lesson.mp4")
    result = render_in(repo, *GOOD)
    assert result.returncode == 0, result.stderr
    assert set(statuses(repo).values()) == {"skipped"}
    assert frames(rendered / "lesson.mp4") == 30


def test_two_runs_at_once_one_renders_and_the_other_refuses_without_touching_it(repo):
    out = repo / "out-race"
    runs = [start(repo, *GOOD, "--jobs", "1", output="out-race") for _ in range(2)]
    results = [(run.wait(timeout=300), run.communicate()[1]) for run in runs]
    assert sorted(status for status, _ in results) == [0, 2], results
    refusal = next(stderr for status, stderr in results if status == 2)
    assert "is being rendered by another render.py" in refusal and "Traceback" not in refusal
    assert statuses(repo, "out-race") == {"width": "rendered", "scaling": "rendered"}
    for scene in manifest(repo, "out-race")["scenes"]:
        assert frames(out / scene["file"]) == scene["frames"] == 15


def test_a_refused_run_changes_nothing_while_the_first_renders(repo, rendered):
    width = {name: digest for name, digest in tree_digest(rendered).items() if name.startswith("01-width")}
    first = start(repo, "--scenes", "scaling", "--force", output="out")
    wait_for(lambda: (rendered / ".work").is_dir())
    os.killpg(first.pid, signal.SIGSTOP)  # held mid-render, however fast this machine would have finished it
    try:
        second = render_in(repo, "--scenes", "width", "--force")
    finally:
        os.killpg(first.pid, signal.SIGCONT)
    assert second.returncode == 2 and "is being rendered by another render.py" in second.stderr
    first.communicate(timeout=300)
    assert first.returncode == 0
    assert statuses(repo) == {"width": "skipped", "scaling": "rendered"}
    assert {name: digest for name, digest in tree_digest(rendered).items() if name.startswith("01-width")} == width
    assert frames(rendered / "02-scaling.mp4") == 15
