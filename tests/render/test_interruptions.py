"""A batch stopped mid-way (Ctrl-C, SIGTERM, SIGKILL) loses nothing: real render.py, manim workers and signals."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from tests.conftest import (
    GOOD,
    TINY_SCENES,
    alive,
    copy_repo,
    descendants,
    manifest,
    render,
    start,
    statuses,
    tree_digest,
    wait_for,
)

WIDTH_FILES = {"01-width.mp4", "01-width.png", "01-width.srt"}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny repository, its second scene three seconds in the making: stopped while it renders, whatever
    the load (its one second of video could be done between the check and the signal on a busy machine)."""
    slow = TINY_SCENES.replace(
        '        self.narrate("The square root of d k.", duration=1)\n',
        '        self.narrate("The square root of d k.", duration=1)\n        __import__("time").sleep(3)\n',
    )
    assert slow != TINY_SCENES
    return copy_repo(tmp_path_factory.mktemp("repo"), scenes=slow)


def width_done_and_scaling_started(out: Path) -> bool:
    scenes = (out / "manifest.json").is_file() and manifest(out.parent, out.name)["scenes"]
    return bool(scenes) and (out / ".work" / "02-scaling" / "manim.log").is_file()


def visible_files(out: Path) -> set[str]:
    """Every file a user sees: all but render.py's hidden lock, cache and work folder."""
    files = (p.relative_to(out) for p in out.rglob("*") if p.is_file())
    return {str(path) for path in files if not path.parts[0].startswith(".")}


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL], ids=lambda s: s.name)
def test_stopped_batch_keeps_finished_scenes_and_the_next_run_renders_only_the_rest(repo, stop):
    output = f"out-{stop.name}"
    out = repo / output
    run = start(repo, *GOOD, "--jobs", "1", output=output)
    wait_for(lambda: width_done_and_scaling_started(out))
    finished = {name: digest for name, digest in tree_digest(out).items() if name in WIDTH_FILES}
    started = descendants(run.pid)
    os.killpg(run.pid, stop)  # the whole process group, as a terminal's Ctrl-C
    _, stderr = run.communicate(timeout=30)
    wait_for(lambda: not any(alive(pid) for pid in started), timeout=10)

    assert run.returncode == (-9 if stop == signal.SIGKILL else 130), stderr
    assert "Traceback" not in stderr
    assert visible_files(out) == WIDTH_FILES | {"manifest.json"}  # no partial clip, no .part file
    assert statuses(repo, output) == {"width": "rendered"}
    if stop != signal.SIGKILL:
        assert not (out / ".work").exists()
    assert {name: tree_digest(out)[name] for name in finished} == finished

    result = render(repo, *GOOD, output=output)
    assert result.returncode == 0, result.stderr
    assert statuses(repo, output) == {"width": "skipped", "scaling": "rendered"}
    assert {name: tree_digest(out)[name] for name in finished} == finished


def test_ctrl_c_pressed_again_and_again_never_shows_a_traceback(repo):
    out = repo / "out-presses"
    run = start(repo, *GOOD, "--jobs", "2", output="out-presses")
    wait_for(lambda: (out / ".work").is_dir())
    for _ in range(40):  # while workers start, run and are stopped
        if run.poll() is not None:
            break
        os.killpg(run.pid, signal.SIGINT)
        time.sleep(0.03)
    _, stderr = run.communicate(timeout=30)
    assert run.returncode == 130, stderr
    assert "Traceback" not in stderr and "interrupted: finished scenes are in place" in stderr
    assert not (out / ".work").exists()


pytestmark = pytest.mark.render  # renders through render.py or manim (pytest -m "not render" leaves it out)
