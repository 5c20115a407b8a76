"""render.py --cluster and many lessons in one run: a real Dask scheduler and worker processes on 127.0.0.1.

One ``LocalCluster`` of two worker processes serves the module. Its workers import the tiny-scene copy
of the repository (tests/conftest.py), as ``dask worker`` started from that checkout would; a worker
started from a modified copy must refuse to render.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import (
    TINY_LESSON,
    TINY_SCENES,
    alive,
    copy_repo,
    manifest,
    render,
    start,
    statuses,
    wait_for,
)

pytestmark = [pytest.mark.render, pytest.mark.slow]

TITLE_SCENE = """

class ShowTitle(LessonScene):
    def construct(self):
        self.narrate("Self-attention.", duration=1)
        self.add(Text("Self-attention"))
        self.wait(1)
"""
TITLE_LESSON = 'LESSON.append(Entry("title", "Tiny", "Title", "scenes/tiny.py", "ShowTitle", ()))\n'
SCENES = ["--scenes", "width", "scaling", "title"]
STEMS = ["01-width", "02-scaling", "04-title"]


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny lesson plus a scene that reads no example section."""
    return copy_repo(tmp_path_factory.mktemp("repo"), TINY_LESSON + TITLE_LESSON, TINY_SCENES + TITLE_SCENE)


@pytest.fixture(scope="module")
def cluster(repo: Path) -> Iterator[tuple[str, object]]:
    """A scheduler and two worker processes on loopback; its address and a client of the test's own."""
    from distributed import Client, LocalCluster

    sys.path.insert(0, str(repo))  # worker processes (spawned, and respawned after a kill) inherit it
    try:
        with (
            LocalCluster(
                n_workers=2, processes=True, host="127.0.0.1", threads_per_worker=1, dashboard_address=None
            ) as local,
            Client(local) as client,
        ):
            yield local.scheduler_address, client
    finally:
        sys.path.remove(str(repo))


@pytest.fixture(scope="module")
def local(repo: Path) -> subprocess.CompletedProcess:
    result = render(repo, *SCENES, "--jobs", "2", output="out-local", python=("-X", "importtime"))
    assert result.returncode == 0, result.stderr[-3000:]
    return result


@pytest.fixture(scope="module")
def on_cluster(repo: Path, cluster: tuple[str, object]) -> subprocess.CompletedProcess:
    result = render(repo, *SCENES, "--cluster", cluster[0], output="out-cluster")
    assert result.returncode == 0, result.stderr[-3000:]
    return result


def imported(stderr: str) -> set[str]:
    """The top-level modules ``python -X importtime`` reported."""
    return {line.split("|")[-1].strip().split(".")[0] for line in stderr.splitlines() if "|" in line}


def frame_count(video: Path) -> int:
    command = ["ffprobe", "-v", "error", "-count_packets", "-select_streams", "v:0", "-of", "json"]
    command += ["-show_entries", "stream=nb_read_packets", str(video)]
    probe = json.loads(subprocess.run(command, capture_output=True, check=True).stdout)
    return int(probe["streams"][0]["nb_read_packets"])


def last_frame(video: Path) -> np.ndarray:
    """Every frame decoded to RGB by ffmpeg; the last one, as an array (854×480 at low quality)."""
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", str(video), "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                         capture_output=True, check=True).stdout  # fmt: skip
    return np.frombuffer(raw, dtype=np.uint8).reshape(-1, 480, 854, 3)[-1]


def test_the_local_path_never_imports_dask(local):
    modules = imported(local.stderr)
    assert "manim" not in modules and "render" in modules  # render.py's own process: workers render
    assert not modules & {"dask", "distributed"}


def test_cluster_renders_what_the_local_path_renders(repo, local, on_cluster):
    here, there = manifest(repo, "out-local")["scenes"], manifest(repo, "out-cluster")["scenes"]
    assert [s["file"] for s in there] == [f"{stem}.mp4" for stem in STEMS]
    assert [s["status"] for s in there] == ["rendered"] * 3
    for a, b in zip(here, there, strict=True):
        assert (a["id"], a["fingerprint"], a["duration"], a["frames"]) == (
            b["id"], b["fingerprint"], b["duration"], b["frames"])  # fmt: skip
        clips = repo / "out-local" / a["file"], repo / "out-cluster" / b["file"]
        assert frame_count(clips[0]) == frame_count(clips[1]) == 15  # one second at 15 fps
        assert np.array_equal(last_frame(clips[0]), last_frame(clips[1]))
    assert on_cluster.stdout.count("rendered by tcp://127.0.0.1:") == 3
    assert manifest(repo, "out-cluster")["lesson"]["scenes"] == ["width", "scaling", "title"]


def test_a_narrated_scene_brings_its_speech_back_to_this_machine(repo, cluster):
    """The worker synthesizes the sentence in its own cache; the client adds it to the output's voice cache
    and lays the narration track over the clip, as the local path does with the same voice."""
    for output, extra in (("out-voice-local", []), ("out-voice-cluster", ["--cluster", cluster[0]])):
        result = render(repo, "--scenes", "title", *extra, output=output, voice="espeak")
        assert result.returncode == 0, result.stderr[-3000:]
    here, there = manifest(repo, "out-voice-local")["scenes"][0], manifest(repo, "out-voice-cluster")["scenes"][0]
    assert there["audio"] and there["voice"] == "espeak"
    for key in ("fingerprint", "duration", "frames"):
        assert here[key] == there[key]
    speech = sorted(p.name for p in (repo / "out-voice-cluster" / ".cache" / "voice").glob("*.wav"))
    assert speech == sorted(p.name for p in (repo / "out-voice-local" / ".cache" / "voice").glob("*.wav"))
    assert len(speech) == 1  # one sentence
    assert audio(repo / "out-voice-cluster" / "04-title.mp4") == audio(repo / "out-voice-local" / "04-title.mp4")


def audio(video: Path) -> bytes:
    command = ["ffmpeg", "-v", "error", "-i", str(video), "-vn", "-f", "s16le", "-ac", "1", "-ar", "22050", "-"]
    return subprocess.run(command, capture_output=True, check=True).stdout


def test_nothing_to_render_neither_connects_nor_imports_dask(repo, on_cluster):
    result = render(repo, *SCENES, "--cluster", "tcp://127.0.0.1:9", output="out-cluster", python=("-X", "importtime"))
    assert result.returncode == 0, result.stderr[-3000:]
    assert statuses(repo, "out-cluster") == {"width": "skipped", "scaling": "skipped", "title": "skipped"}
    assert not imported(result.stderr) & {"dask", "distributed"}


def test_no_scheduler_at_the_address_exits_2(repo):
    result = render(repo, "--scenes", "width", "--cluster", "tcp://127.0.0.1:9", output="out-nowhere")
    assert result.returncode == 2
    assert result.stderr.startswith("error: --cluster tcp://127.0.0.1:9: no Dask scheduler answers there")
    assert "Traceback" not in result.stderr
    assert not (repo / "out-nowhere" / "01-width.mp4").exists()


def test_a_worker_killed_mid_scene_is_replaced_and_nothing_is_half_written(repo, cluster):
    address, client = cluster
    out = repo / "out-kill"
    run = start(repo, "--scenes", "scaling", "--cluster", address, output="out-kill")
    victim = worker_rendering(client, "render-02-scaling")
    pid = client.run(os.getpid)[victim]
    wait_for(lambda: bool(descendants(pid)), timeout=120)  # the worker's render process runs manim
    renderers = descendants(pid)
    os.kill(pid, signal.SIGKILL)
    stdout, stderr = run.communicate(timeout=300)
    wait_for(lambda: not any(alive(p) for p in renderers), timeout=30)  # the render died with its worker

    assert run.returncode == 0, stderr[-3000:]
    assert "02-scaling: rendered by tcp://127.0.0.1:" in stdout and f"rendered by {victim}" not in stdout
    assert statuses(repo, "out-kill") == {"scaling": "rendered"}
    assert not (out / ".work").exists() and not list(out.rglob("*.part"))
    assert frame_count(out / "02-scaling.mp4") == manifest(repo, "out-kill")["scenes"][0]["frames"] == 15
    client.wait_for_workers(2, timeout=120)  # the nanny started a fresh worker for the next tests


def descendants(pid: int) -> list[int]:
    """``pid``'s children and theirs, from every thread (a Dask worker starts renders from its task threads)."""
    children = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children += [int(child) for child in (task / "children").read_text().split()]
        except FileNotFoundError:  # a thread or the process ended meanwhile
            continue
    return children + [grandchild for child in children for grandchild in descendants(child)]


def worker_rendering(client, prefix: str) -> str:
    """The address of the worker whose task key starts with ``prefix``, once one is processing it."""
    found: list[str] = []

    def processing() -> bool:
        found[:] = [w for w, keys in client.processing().items() if any(str(k).startswith(prefix) for k in keys)]
        return bool(found)

    wait_for(processing, timeout=120)
    return found[0]


def test_ctrl_c_cancels_the_clusters_work_and_exits_130(repo, cluster):
    address, client = cluster
    run = start(repo, "--scenes", "width", "--force", "--cluster", address, output="out-int")
    victim = worker_rendering(client, "render-01-width")
    pid = client.run(os.getpid)[victim]
    wait_for(lambda: bool(descendants(pid)), timeout=120)
    renderers = descendants(pid)
    os.killpg(run.pid, signal.SIGINT)
    _, stderr = run.communicate(timeout=60)
    assert run.returncode == 130, stderr[-3000:]
    assert "interrupted: finished scenes are in place" in stderr and "Traceback" not in stderr
    wait_for(lambda: not any(client.processing().values()), timeout=30)  # nothing left on the cluster
    wait_for(lambda: not any(alive(p) for p in renderers), timeout=30)  # the worker stopped its render
    assert not (repo / "out-int" / "01-width.mp4").exists()


def test_a_worker_from_another_checkout_refuses_with_the_difference(repo, tmp_path):
    from distributed import Client, LocalCluster

    other = tmp_path / "other"  # the client's checkout with one scene file edited
    shutil.copytree(repo, other, ignore=shutil.ignore_patterns("out-*", "many", "elsewhere", "empty"))
    (other / "scenes" / "tiny.py").write_text(TINY_SCENES + TITLE_SCENE + "# edited\n")
    # an older srt as that worker's Python sees it: package metadata found first on its path
    metadata = other / "site" / "srt-3.4.0.dist-info" / "METADATA"
    metadata.parent.mkdir(parents=True)
    metadata.write_text("Metadata-Version: 2.1\nName: srt\nVersion: 3.4.0\n")
    pinned = next(line for line in (repo / "requirements.txt").read_text().splitlines() if line.startswith("srt=="))
    with (
        LocalCluster(n_workers=0, host="127.0.0.1", dashboard_address=None) as scheduler,
        Client(scheduler) as client,
    ):
        worker = subprocess.Popen(
            [str(Path(sys.executable).with_name("dask")), "worker", scheduler.scheduler_address, "--host", "127.0.0.1",
             "--nthreads", "1", "--no-nanny", "--no-dashboard"],
            cwd=other, env={**os.environ, "PYTHONPATH": f"{other}:{other / 'site'}"}, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            client.wait_for_workers(1, timeout=120)
            address = next(iter(client.scheduler_info()["workers"]))
            result = render(repo, "--scenes", "width", "--cluster", scheduler.scheduler_address, output="out-other")
        finally:
            worker.terminate()
            worker.wait(timeout=60)
    assert result.returncode == 1, result.stderr[-3000:]
    assert f"FAILED width (scenes/tiny.py::ShowModelWidth): worker {address} refused it: " in result.stderr
    assert "files that differ from the client's: scenes/tiny.py" in result.stderr
    assert f"packages that differ: srt 3.4.0 (client: {pinned.split('==')[1]})" in result.stderr
    assert statuses(repo, "out-other") == {"width": "failed"}
    assert not (repo / "out-other" / "01-width.mp4").exists()


def two_examples(folder: Path, repo: Path) -> list[str]:
    """a.toml (the default values) and b.toml (one worked-example value changed), in ``folder``."""
    folder.mkdir(exist_ok=True)
    default = (repo / "assets/examples/default.toml").read_text()
    edited = default.replace("[1.0, 0.5, 0.2, 0.1]", "[3.0, 0.5, 0.2, 0.1]", 1)
    assert edited != default
    (folder / "a.toml").write_text(default)
    (folder / "b.toml").write_text(edited)
    return [str(folder / "a.toml"), str(folder / "b.toml")]


def check_many_lessons(repo: Path, output: str, stdout: str) -> None:
    """Each example in its subfolder; the title scene (no example section) rendered once, linked into b/."""
    out = repo / output
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == ["a", "b"]
    assert statuses(repo, f"{output}/a") == {"width": "rendered", "title": "rendered"}
    assert statuses(repo, f"{output}/b") == {"width": "rendered", "title": "skipped"}
    assert "reused 04-title from a/" in stdout
    assert os.stat(out / "a/04-title.mp4").st_ino == os.stat(out / "b/04-title.mp4").st_ino
    assert os.stat(out / "a/01-width.mp4").st_ino != os.stat(out / "b/01-width.mp4").st_ino
    width = [manifest(repo, f"{output}/{x}")["scenes"][0]["fingerprint"] for x in "ab"]
    assert width[0] != width[1]  # b's value changed: its own render
    for lesson in "ab":
        assert (out / lesson / "lesson.mp4").is_file() and (out / lesson / "index.html").is_file()


def test_many_examples_render_into_subfolders_sharing_what_does_not_depend_on_them(repo):
    examples = two_examples(repo / "many", repo)
    result = render(repo, "--scenes", "width", "title", "--jobs", "2", "--example", *examples, output="out-many")
    assert result.returncode == 0, result.stderr[-3000:]
    check_many_lessons(repo, "out-many", result.stdout)


def test_a_folder_of_examples_on_the_cluster(repo, cluster):
    two_examples(repo / "many", repo)
    result = render(repo, "--scenes", "width", "title", "--example", "many", "--cluster", cluster[0],
                    output="out-many-cluster")  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    check_many_lessons(repo, "out-many-cluster", result.stdout)
    assert result.stdout.count("rendered by tcp://") == 3  # width twice, title once
    assert "queued 2 scenes of lesson b behind this one" in result.stdout  # while a renders: width and title


@pytest.mark.parametrize(
    ("examples", "message"),
    [
        (["many/a.toml", "elsewhere/a.toml"], "--example: two files named a.toml would share the subfolder a/"),
        (["empty"], "empty: a directory with no .toml example files (--example takes a file or a folder of them)"),
    ],
)
def test_bad_lists_of_examples_exit_2(repo, examples, message):
    two_examples(repo / "many", repo)
    two_examples(repo / "elsewhere", repo)
    (repo / "empty").mkdir(exist_ok=True)
    result = render(repo, "--example", *examples, output="never")
    assert result.returncode == 2
    assert result.stderr == f"error: {message}\n"
    assert not (repo / "never").exists()


def test_one_example_still_renders_straight_into_the_output_folder(repo):
    examples = two_examples(repo / "many", repo)
    result = render(repo, "--scenes", "title", "--example", examples[1], output="out-one")
    assert result.returncode == 0, result.stderr[-3000:]
    assert (repo / "out-one" / "04-title.mp4").is_file() and not (repo / "out-one" / "b").exists()
    assert manifest(repo, "out-one")["example"] == examples[1]


def test_an_address_that_is_no_address_exits_2(repo):
    result = render(repo, "--cluster", "nonsense", output="never")
    assert result.returncode == 2
    assert (
        "argument --cluster: expected a Dask scheduler's address like tcp://HOST:8786, got 'nonsense'" in result.stderr
    )
    assert not (repo / "never").exists()
