"""render.py through its command line: real manim workers, real ffprobe, in a copy of the repository.

The copy's lesson is three tiny scenes (tests/conftest.py: two that render in about a second at
low quality, one that reads a section it did not declare), so every path runs in about a minute.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import (
    GOOD,
    TINY_LESSON,
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


def ffprobe(path: Path, entries: str, *extra: str) -> dict:
    command = ["ffprobe", "-v", "error", "-of", "json", *extra, "-show_entries", entries, str(path)]
    return json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)


def last_frame(video: Path) -> bytes:
    """The video's last frame as PNG bytes, decoding every frame (the slow, sure way)."""
    png = video.with_name("last-frame-check.png")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", str(video), "-update", "1", str(png)], check=True)
    data = png.read_bytes()
    png.unlink()
    return data


def test_list_prints_every_scene(repo):
    result = render(repo, "--list")
    assert result.returncode == 0
    assert [line.split()[1] for line in result.stdout.splitlines() if line[:1].isdigit()] == [
        "width",
        "scaling",
        "broken",
    ]


def test_list_into_a_closed_pipe_is_quiet(repo):
    """``render.py --list | head -1``: the reader leaves early, and that is no disk error."""
    lister = subprocess.Popen(
        [sys.executable, "render.py", "--list"], cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert lister.stdout is not None and lister.stderr is not None
    lister.stdout.close()  # before it writes: its first write meets a closed pipe
    assert lister.wait(timeout=60) == 0
    assert lister.stderr.read() == b""


def test_list_json_has_exactly_the_contract_keys(repo):
    rows = json.loads(render(repo, "--list", "--json").stdout)
    assert [set(row) for row in rows] == [{"id", "chapter", "title", "file", "class", "depends_on"}] * 3
    assert rows[0] == {
        "id": "width",
        "chapter": "Tiny",
        "title": "Model width",
        "file": "scenes/tiny.py",
        "class": "ShowModelWidth",
        "depends_on": ["worked_example"],
    }


def test_render_writes_clips_subtitles_thumbnails_lesson_and_manifest(rendered):
    scenes = manifest(rendered.parent)["scenes"]
    assert [(s["id"], s["status"], s["file"]) for s in scenes] == [
        ("width", "rendered", "01-width.mp4"),
        ("scaling", "rendered", "02-scaling.mp4"),
    ]
    for scene in scenes:
        stream = ffprobe(rendered / scene["file"], "stream=width,height,r_frame_rate,nb_read_packets", "-count_packets")
        stream = stream["streams"][0]
        assert (stream["width"], stream["height"], stream["r_frame_rate"]) == (854, 480, "15/1")
        assert int(stream["nb_read_packets"]) == scene["frames"] == 15  # one second at 15 fps
        assert scene["duration"] == pytest.approx(1.0, abs=0.07)
        assert (rendered / scene["thumbnail"]).read_bytes() == last_frame(rendered / scene["file"])
        assert "\n1\n00:00:00,000 --> 00:00:01,000\n" in "\n" + (rendered / scene["subtitles"]).read_text()
        assert len(scene["fingerprint"]) == 64


def test_render_writes_the_lesson_page(rendered):
    page = (rendered / "index.html").read_text()
    assert 'src="01-width.mp4"' in page and 'src="lesson.mp4"' in page


def test_lesson_joins_the_clips_with_chapters_and_shifted_subtitles(rendered):
    info = ffprobe(rendered / "lesson.mp4", "format=duration", "-show_chapters")
    assert float(info["format"]["duration"]) == pytest.approx(2.0, abs=0.15)
    assert [c["tags"]["title"] for c in info["chapters"]] == ["Tiny: Model width", "Tiny: Scaling"]
    assert float(info["chapters"][1]["start_time"]) == pytest.approx(1.0, abs=0.07)
    subtitles = (rendered / "lesson.srt").read_text()
    assert "2\n00:00:01,000 --> 00:00:02,000\nThe square root of d k." in subtitles
    assert manifest(rendered.parent)["lesson"]["scenes"] == ["width", "scaling"]


def test_second_run_skips_everything_without_importing_manim(repo, rendered):
    before = tree_digest(rendered)
    result = render(repo, *GOOD, python=("-X", "importtime"))
    assert result.returncode == 0, result.stderr
    # no manim import is what keeps a second run fast; bench/compare.py times it (< 1 s) on a quiet machine
    imported = {line.split("|")[-1].strip() for line in result.stderr.splitlines() if "|" in line}
    assert "numpy" in imported and not any(name.split(".")[0] == "manim" for name in imported)
    assert statuses(repo) == {"width": "skipped", "scaling": "skipped"}
    after = tree_digest(rendered)
    rewritten = {"manifest.json", ".render.lock"}  # the new statuses; the pid of the run
    assert {k: v for k, v in after.items() if k not in rewritten} == {
        k: v for k, v in before.items() if k not in rewritten
    }


def test_editing_one_value_renders_only_the_scene_that_reads_it(repo, rendered):
    example = repo / "edited.toml"
    original = (repo / "assets/examples/default.toml").read_text()
    edited = original.replace("[1.0, 0.5, 0.2, 0.1]", "[3.0, 0.5, 0.2, 0.1]", 1)
    assert edited != original
    example.write_text(edited)
    scaling_clip = (rendered / "02-scaling.mp4").read_bytes()
    result = render(repo, *GOOD, "--example", str(example))
    assert result.returncode == 0, result.stderr
    assert statuses(repo) == {"width": "rendered", "scaling": "skipped"}
    assert re.search(
        r"^lesson\.mp4: 2 scenes, [\d.]+ s \(1 of the lesson's 3 scenes not in this run\)$", result.stdout, re.M
    )
    assert (rendered / "02-scaling.mp4").read_bytes() == scaling_clip
    assert manifest(repo)["example"] == str(example)


def test_failing_scene_exits_1_names_it_with_its_log_and_the_others_render(repo):
    result = render(repo, "--jobs", "2", output="out-fail")
    assert result.returncode == 1
    assert "FAILED broken (scenes/tiny.py::ReadUndeclared)" in result.stderr
    assert "UndeclaredSectionError" in result.stderr  # the log tail names the cause
    assert statuses(repo, "out-fail") == {"width": "rendered", "scaling": "rendered", "broken": "failed"}
    failed = manifest(repo, "out-fail")["scenes"][2]
    assert "reads example section 'complexity'" in (repo / "out-fail" / failed["log"]).read_text()
    assert manifest(repo, "out-fail")["lesson"]["missing"] == ["broken"]
    assert re.search(r"^lesson\.mp4: 2 scenes, [\d.]+ s \(1 failed scene left out\)$", result.stdout, re.M)


def write_bad_example(repo: Path) -> None:
    default = (repo / "assets/examples/default.toml").read_text()
    assert "samples = 4000" in default
    (repo / "bad.toml").write_text(default.replace("samples = 4000", "samples = -1"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--example", "bad.toml"], "error: "),
        (["--quality", "ultra"], "invalid choice: 'ultra'"),
        (["--jobs", "0"], "at least 1"),
        (["--scenes", "nothing-*"], "no scene matches 'nothing-*'"),
        (["--json"], "--json goes with --list"),
    ],
)
def test_bad_input_exits_2_and_touches_nothing(repo, rendered, args, message):
    write_bad_example(repo)
    before = tree_digest(rendered)
    result = render(repo, *args)
    assert result.returncode == 2
    assert message in result.stderr
    assert tree_digest(rendered) == before


def test_bad_example_names_the_file_and_key(repo):
    write_bad_example(repo)
    result = render(repo, "--example", "bad.toml", output="never")
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and "variance_demo.samples" in result.stderr
    assert not (repo / "never").exists()


def test_ctrl_c_keeps_finished_scenes_and_the_next_run_resumes(repo):
    out = repo / "out-int"
    run = start(repo, *GOOD, "--jobs", "1", output="out-int")
    wait_for(lambda: (out / "manifest.json").exists() and len(manifest(repo, "out-int")["scenes"]) == 1)
    os.killpg(run.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: the whole process group
    _, stderr = run.communicate(timeout=30)
    assert run.returncode == 130, stderr
    names = {p.name for p in out.iterdir()}
    first, second = ({f"{scene}.{kind}" for kind in ("mp4", "png", "srt")} for scene in ("01-width", "02-scaling"))
    kept = first | {"manifest.json", ".render.lock", ".cache"}
    # the tiny second scene may finish before the signal lands (a loaded machine): then whole, never in part
    assert names in (kept, kept | second)
    result = render(repo, *GOOD, output="out-int")
    assert result.returncode == 0, result.stderr
    resumed = "skipped" if second <= names else "rendered"
    assert statuses(repo, "out-int") == {"width": "skipped", "scaling": resumed}


def test_kill_leaves_no_worker_behind_and_the_next_run_finishes(repo):
    out = repo / "out-kill"
    run = start(repo, *GOOD, output="out-kill")
    wait_for(lambda: any(out.glob(".work/*/manim.log")))  # a worker has started: it writes its log first
    workers = descendants(run.pid)
    run.kill()
    run.communicate(timeout=30)
    wait_for(lambda: not any(alive(pid) for pid in workers), timeout=30)
    # An orphaned worker would have gone on to write its clip; one that died with render.py has none.
    finished = [p for p in (out / ".work").rglob("*.mp4") if "partial_movie_files" not in p.parts]
    assert finished == []
    result = render(repo, *GOOD, output="out-kill")
    assert result.returncode == 0, result.stderr
    assert set(statuses(repo, "out-kill").values()) == {"rendered"}


def test_second_run_on_the_same_folder_is_refused(repo):
    out = repo / "out-lock"
    first = start(repo, "--scenes", "scaling", output="out-lock")
    wait_for(lambda: (out / ".work").exists())
    os.killpg(first.pid, signal.SIGSTOP)  # held mid-render, however fast this machine would have finished it
    try:
        second = render(repo, "--scenes", "scaling", output="out-lock")
    finally:
        os.killpg(first.pid, signal.SIGCONT)
    assert second.returncode == 2
    assert "is being rendered by another render.py" in second.stderr and str(first.pid) in second.stderr
    first.communicate(timeout=120)
    assert first.returncode == 0
    assert statuses(repo, "out-lock") == {"scaling": "rendered"}


def test_another_format_replaces_the_clips_and_the_lesson(repo):
    assert render(repo, "--scenes", "width", output="out-format").returncode == 0
    result = render(repo, "--scenes", "width", "--format", "webm", output="out-format")
    assert result.returncode == 0, result.stderr
    names = {p.name for p in (repo / "out-format").iterdir() if p.name.startswith(("01-width", "lesson"))}
    assert names == {"01-width.webm", "01-width.png", "01-width.srt", "lesson.webm", "lesson.srt"} | {
        "01-width.vtt",  # the lesson page's subtitles
        "lesson.vtt",
    }
    codec = ffprobe(repo / "out-format" / "01-width.webm", "stream=codec_name")["streams"][0]["codec_name"]
    assert codec == "vp9"
    assert manifest(repo, "out-format")["format"] == "webm"


REAL_SCENE = """

class ShowRealFocus(LessonScene):
    def construct(self):
        self.add(Text(self.values.real_model.focus))
        self.wait(1)
"""
REAL_LESSON = 'LESSON.append(Entry("real", "Tiny", "Real", "scenes/tiny.py", "ShowRealFocus", ("real_model",)))\n'


def test_scenes_needing_a_section_the_example_leaves_out_are_named_and_not_rendered(tmp_path):
    repo = copy_repo(tmp_path / "repo", TINY_LESSON + REAL_LESSON, TINY_SCENES + REAL_SCENE)
    text = (repo / "assets" / "examples" / "default.toml").read_text(encoding="utf-8")
    (repo / "without.toml").write_text(text[: text.index("[real_model]")], encoding="utf-8")

    result = render(repo, "--scenes", "width", "real", "--example", "without.toml")
    assert result.returncode == 0, result.stderr
    assert "note: not rendered: real needs [real_model], which without.toml does not have" in result.stdout
    assert statuses(repo) == {"width": "rendered"}

    alone = render(repo, "--scenes", "real", "--example", "without.toml", output="never")
    assert alone.returncode == 2
    assert alone.stderr.startswith("error: ") and "without.toml" in alone.stderr and "[real_model]" in alone.stderr
    assert "Traceback" not in alone.stderr and not (repo / "never").exists()

    with_section = render(repo, "--scenes", "real")  # the default example has [real_model]
    assert with_section.returncode == 0, with_section.stderr
    assert statuses(repo)["real"] == "rendered"


def test_in_a_terminal_the_live_display_runs_and_the_run_finishes(repo):
    """Under a real pseudo-terminal (util-linux ``script``): ffmpeg, in its own process group, must not
    touch the terminal, or the kernel stops it (SIGTTIN) and render.py waits forever."""
    inner = f"{sys.executable} render.py --quality low --output out-tty --scenes width"
    result = subprocess.run(
        ["script", "--quiet", "--return", "--command", inner, "/dev/null"],
        cwd=repo, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-2000:]
    assert "\x1b[" in result.stdout  # rich drew its live display: render.py saw a terminal
    assert "1 rendered, 0 skipped, 0 failed" in result.stdout
    assert statuses(repo, "out-tty") == {"width": "rendered"}


pytestmark = pytest.mark.render  # renders through render.py or manim (pytest -m "not render" leaves it out)
