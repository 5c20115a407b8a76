"""render.py's command line without rendering: --list, typos, notes, the progress estimate, plurals."""

from __future__ import annotations

import json
import subprocess
import sys

from render.manifest import SceneRecord, Status
from render.plan import Job
from render.progress import Progress
from render.run import plural
from render.settings import parse_args
from scenes.lesson import LESSON
from tests.conftest import REPO, render


def test_list_honours_scenes_and_keeps_lesson_positions(repo):
    result = render(repo, "--list", "--scenes", "scal*")
    assert result.returncode == 0
    assert [line.split()[:2] for line in result.stdout.splitlines() if line[:1].isdigit()] == [["02", "scaling"]]
    rows = json.loads(render(repo, "--list", "--json", "--scenes", "broken", "width").stdout)
    assert [row["id"] for row in rows] == ["width", "broken"]


def test_an_unknown_scene_offers_the_closest_id(repo):
    for args in (["--list", "--scenes", "widht"], ["--scenes", "widht"]):
        result = render(repo, *args, output="never")
        assert result.returncode == 2 and "Traceback" not in result.stderr
        assert "error: no scene matches 'widht'; did you mean 'width'?" in result.stderr
    assert not (repo / "never").exists()


def test_the_entry_point_is_render_py():
    entry_point = subprocess.run(
        [f"{sys.prefix}/bin/attention-lesson", "--list", "--json"], capture_output=True, text=True, check=True
    )
    script = subprocess.run(
        [sys.executable, "render.py", "--list", "--json"], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert json.loads(entry_point.stdout) == json.loads(script.stdout) == [e.as_dict() for e in LESSON]


def test_settings_are_read_once_and_say_what_differs_from_the_request():
    transparent = parse_args(["--transparent"])
    assert transparent.format == "mov" and any(".mov" in note for note in transparent.notes())
    gif = parse_args(["--format", "gif"])
    assert any("no lesson video" in note for note in gif.notes())
    assert parse_args(["--format", "webm", "--transparent"]).format == "webm"
    assert parse_args([]).notes() == []


def job(status: Status, seconds: float) -> Job:
    record = SceneRecord("x", "X", "C", status, seconds)
    return Job(1, LESSON[0], "f", record)


def test_the_estimate_ignores_failures_and_counts_every_scene(capsys):
    progress = Progress(total=4, jobs=2)
    progress.report(job(Status.FAILED, 0.2))
    assert capsys.readouterr().out.strip() == "[1/4] failed 01-architecture in 0.2 s"
    progress.report(job(Status.RENDERED, 10.0))
    progress.report(job(Status.RENDERED, 20.0))
    # mean 15 s, one scene left for two workers
    assert capsys.readouterr().out.splitlines()[-1] == "[3/4] rendered 01-architecture in 20.0 s, about 15 s left"


def test_counts_read_as_english():
    assert [plural(n, "scene") for n in (0, 1, 2)] == ["0 scenes", "1 scene", "2 scenes"]
