"""Shared by the render.py tests: a copy of the repository whose lesson is three tiny scenes, and helpers
that run render.py in it as a real process.

Two tiny scenes render in about a second at low quality; the third reads a section it did not declare.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from attention_math.example import ROOT as REPO

TINY_SCENES = '''
"""Tiny scenes for the render.py tests."""

from manim import DecimalNumber, Text, VGroup, DOWN

from scenes.kit.base import LessonScene


class ShowModelWidth(LessonScene):
    def construct(self):
        values = self.values.worked_example
        self.narrate("The first token and the model width.", duration=1)
        self.add(VGroup(Text(values.tokens[0]), DecimalNumber(values.X[0][0])).arrange(DOWN))
        self.wait(1)


class ShowScaling(LessonScene):
    def construct(self):
        self.narrate("The square root of d k.", duration=1)
        self.add(DecimalNumber(self.values.scaling_demo.sqrt_d_k))
        self.wait(1)


class ReadUndeclared(LessonScene):
    def construct(self):
        self.add(DecimalNumber(self.values.complexity.bytes_per_weight))  # not in its depends_on
        self.wait(1)
'''
TINY_LESSON = """
LESSON[:] = [
    Entry("width", "Tiny", "Model width", "scenes/tiny.py", "ShowModelWidth", ("worked_example",)),
    Entry("scaling", "Tiny", "Scaling", "scenes/tiny.py", "ShowScaling", ("scaling_demo",)),
    Entry("broken", "Tiny", "Broken", "scenes/tiny.py", "ReadUndeclared", ()),
]
"""
GOOD = ["--scenes", "width", "scaling"]


def copy_repo(copy: Path, lesson: str = TINY_LESSON, scenes: str = TINY_SCENES) -> Path:
    """Copy the repository's tracked files (and render.py) to ``copy``, with ``lesson`` as its lesson list."""
    tracked = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    for name in [*tracked.split(), "render.py"]:
        if (REPO / name).is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, copy / name)
    (copy / "scenes" / "tiny.py").write_text(scenes)
    with open(copy / "scenes" / "lesson.py", "a") as lesson_file:
        lesson_file.write(lesson)
    return copy


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the repository whose lesson is the three tiny scenes."""
    return copy_repo(tmp_path_factory.mktemp("repo"))


@pytest.fixture(scope="module")
def rendered(repo: Path) -> Path:
    """The two good tiny scenes, rendered once into out/."""
    result = render(repo, *GOOD, "--jobs", "2")
    assert result.returncode == 0, result.stderr
    return repo / "out"


def render(
    repo: Path, *args: str, output: str = "out", python: tuple[str, ...] = (), voice: str = "none"
) -> subprocess.CompletedProcess:
    """``python render.py --quality low --output OUTPUT --voice VOICE ARGS`` in ``repo``, to its end.

    Silent by default: these tests are about rendering; tests/render/test_narration.py renders with the voice.
    """
    command = [sys.executable, *python, "render.py", "--quality", "low", "--output", output, "--voice", voice, *args]
    return subprocess.run(command, cwd=repo, capture_output=True, text=True, timeout=300)


def start(repo: Path, *args: str, output: str, voice: str = "none") -> subprocess.Popen:
    """render.py started in its own session (a process group, as a terminal would make); silent, like render()."""
    command = [sys.executable, "render.py", "--quality", "low", "--output", output, "--voice", voice, *args]
    return subprocess.Popen(
        command, cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )


def manifest(repo: Path, output: str = "out") -> dict:
    return json.loads((repo / output / "manifest.json").read_text())


def statuses(repo: Path, output: str = "out") -> dict[str, str]:
    return {s["id"]: s["status"] for s in manifest(repo, output)["scenes"]}


def tree_digest(folder: Path) -> dict[str, str]:
    """sha256 of every file below ``folder``, by relative path."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.rglob("*") if p.is_file()
    }


def wait_for(condition: Callable[[], bool], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def descendants(pid: int) -> list[int]:
    """The process ids of ``pid``'s children, their children and so on (render.py's fork server and workers)."""
    try:
        children = [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except FileNotFoundError:  # ended meanwhile
        return []
    return children + [grandchild for child in children for grandchild in descendants(child)]


def alive(pid: int) -> bool:
    """Running: not gone, and not a zombie waiting to be reaped."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.fixture(scope="session")
def lesson(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two real scenes with slides, rendered once per test session (the page and slide tests share it)."""
    from tests.browser.helpers import render_lesson

    return render_lesson(tmp_path_factory.getbasetemp() / "lesson")


@pytest.fixture(scope="session", autouse=True)
def media_of_this_worker(tmp_path_factory: pytest.TempPathFactory) -> None:
    """manim's media folder (its Text and TeX SVG caches) for this test process alone: two xdist workers
    writing one text's SVG into the repository's media/ at once made the other read half a file."""
    from manim import config

    config.media_dir = str(tmp_path_factory.mktemp("media"))


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups into the test ids
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Render and browser tests are slow too: ``pytest -m "not slow"`` is the quick subset.

    Groups for ``pytest -n auto --dist loadgroup`` (make test): tests that share a render run in one
    worker. The session's lesson is rendered once; a module's fixtures (a rendered copy, a Dask cluster)
    are built once; a scene's tests, in any module, share its probe (tests/scenes/shared.py), while
    different scenes spread over the workers.
    """
    for item in items:
        if item.get_closest_marker("render") or item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.slow)
        module = item.nodeid.split("::")[0]
        callspec = getattr(item, "callspec", None)
        if "lesson" in getattr(item, "fixturenames", ()):
            group = "lesson"
        elif callspec is not None and "entry" in callspec.params:  # one probe of the scene, whatever the module
            group = f"scene:{callspec.params['entry'].id}"  # no "]" at the end: xdist reads that as no group
        elif scene := item.get_closest_marker("scene"):
            group = f"scene:{scene.args[0]}"
        else:
            group = module
        item.add_marker(pytest.mark.xdist_group(group))
