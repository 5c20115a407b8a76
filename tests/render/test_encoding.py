"""Full-quality speed: the clips' encoding (H.264 High, yuv420p, faststart, our libx264 settings), the
encoder settings in the fingerprint, the longest-first queue and the estimate of the time left."""

from __future__ import annotations

import json
import random
import re
import struct
import subprocess
from pathlib import Path

import pytest

from attention_math.example import ROOT
from render.encoding import ENCODER
from render.manifest import SceneRecord, Status
from render.plan import SHARED_SOURCES, Job, expected_seconds, fingerprint, longest_first, plan, shared_files
from render.progress import estimate_left
from scenes.lesson import LESSON
from tests.conftest import manifest, render


def record(scene: str, status: Status, seconds: float, duration: float | None) -> SceneRecord:
    return SceneRecord(scene, scene, "C", status, seconds, duration=duration)


def test_expected_seconds_are_the_last_render_or_the_length_at_the_median_rate():
    records = [
        record("a", Status.RENDERED, 10.0, 5.0),  # 2 s of rendering per second of clip
        record("b", Status.RENDERED, 30.0, 10.0),  # 3 s per second
        record("c", Status.SKIPPED, 0.0, 4.0),  # skipped last time: 4 s of clip at the median rate
        record("d", Status.FAILED, 7.0, None),  # nothing to go by
    ]
    # rates 2 and 3: the median of two is the upper one (3)
    assert expected_seconds(records) == {"a": 10.0, "b": 30.0, "c": 12.0}


def test_plan_keeps_the_last_runs_times_it_replaces():
    entries = LESSON[:2]
    records = {entries[0].id: record(entries[0].id, Status.RENDERED, 42.0, 10.0)}
    jobs = plan(entries, records, {e.id: "new" for e in entries}, Path("/nonexistent"), force=True)
    assert [job.expected for job in jobs] == [42.0, None]
    assert records[entries[0].id].seconds == 0.0  # this run's record starts afresh


def test_longest_first_puts_unknown_scenes_first_then_the_longest():
    times = [5.0, None, 30.0, 5.0, 12.0, None]
    jobs = [Job(i, LESSON[i], "f", SceneRecord(LESSON[i].id, "", ""), expected=t) for i, t in enumerate(times)]
    order = [job.position for job in longest_first(jobs)]
    assert order == [1, 5, 2, 4, 0, 3]  # unknown in lesson order, then 30, 12, and the two 5s in lesson order


def simulate(true: list[float], expected: list[float], workers: int) -> list[tuple[float, list, list, list]]:
    """List scheduling of scenes (in the given order) on ``workers``: at each scene's end, what the progress
    display knows (waiting, running, finished) and the real time left until the last scene ends."""
    ends: list[tuple[float, int]] = []
    free = [0.0] * workers
    starts = {}
    for i, seconds in enumerate(true):
        worker = free.index(min(free))
        starts[i] = free[worker]
        free[worker] += seconds
        ends.append((free[worker], i))
    ends.sort()
    makespan = ends[-1][0]
    moments = []
    for count, (now, _) in enumerate(ends, 1):
        finished = [(expected[i], true[i]) for end, i in ends[:count]]
        running = [(expected[i], now - starts[i]) for end, i in ends[count:] if starts[i] < now]
        waiting = [expected[i] for end, i in ends[count:] if starts[i] >= now]
        moments.append((makespan - now, waiting, running, finished))
    return moments


@pytest.mark.parametrize("seed", range(5))
def test_the_estimate_stays_within_30_percent_after_a_quarter_of_the_scenes(seed):
    rng = random.Random(seed)
    last_run = [rng.uniform(10, 180) for _ in range(34)]  # a lesson's scenes, as the manifest remembers them
    slower = 1.7  # this run: a busier machine, each scene also off by up to 20 %
    true = [t * slower * rng.uniform(0.8, 1.2) for t in last_run]
    order = sorted(range(34), key=lambda i: -last_run[i])  # longest first, as render.py queues them
    moments = simulate([true[i] for i in order], [last_run[i] for i in order], workers=2)
    # from a quarter of the scenes on, while two or more are left (with one, seconds left are no scale)
    for real, waiting, running, finished in moments[len(moments) // 4 : -2]:
        estimate = estimate_left(waiting, running, finished, jobs=2)
        assert estimate is not None and abs(estimate - real) <= 0.3 * real, (estimate, real)


def test_with_nothing_remembered_the_estimate_is_the_mean_scene_shared_by_the_workers():
    # three unknown scenes left, two finished (10 s and 20 s): 3 x 15 s over 2 workers
    assert estimate_left([None, None, None], [], [(None, 10.0), (None, 20.0)], jobs=2) == 22.5
    assert estimate_left([None], [], [], jobs=2) is None


def test_encoder_settings_are_in_the_fingerprint():
    entry, raw = LESSON[0], {section: {} for section in LESSON[0].depends_on}
    settings = {"quality": "high"}
    shipped = fingerprint(entry, raw, settings)
    assert shipped == fingerprint(entry, raw, settings, dict(ENCODER))
    assert shipped != fingerprint(entry, raw, settings, {**ENCODER, "crf": "18"})
    assert shipped != fingerprint(entry, raw, settings, {**ENCODER, "preset": "medium"})


def test_every_shared_source_is_in_every_fingerprint():
    """Folders and single files alike (scenes/lesson.py, render/encoding.py): each adds its files to the digest."""
    files = shared_files()
    for name in SHARED_SOURCES:
        assert any(f == ROOT / name or ROOT / name in f.parents for f in files), name
    assert ROOT / "render" / "encoding.py" in files and ROOT / "scenes" / "lesson.py" in files


def top_level_boxes(mp4: Path) -> list[str]:
    """The MP4's top-level box types, in file order (size 1: a 64-bit size follows)."""
    data, names, at = mp4.read_bytes(), [], 0
    while at + 8 <= len(data):
        size, name = struct.unpack(">I4s", data[at : at + 8])
        if size == 1:
            size = struct.unpack(">Q", data[at + 8 : at + 16])[0]
        names.append(name.decode("latin-1"))
        at += size if size else len(data)
    return names


def x264_options(mp4: Path) -> dict[str, str]:
    """The settings libx264 writes into every stream it encodes (its SEI text)."""
    text = mp4.read_bytes().decode("latin-1")
    found = re.search(r"x264 - core .*? options: ([^\x00]*)", text)
    assert found, f"{mp4.name} has no x264 settings"
    return dict(item.split("=", 1) for item in found.group(1).split() if "=" in item)


@pytest.mark.render
def test_a_clip_is_h264_high_yuv420p_faststart_with_the_shipped_settings(repo, tmp_path):
    result = render(repo, "--scenes", "width", "--force", output="out-encoding")
    assert result.returncode == 0, result.stderr
    clip = repo / "out-encoding" / manifest(repo, "out-encoding")["scenes"][0]["file"]
    probe = subprocess.run(
        ["ffprobe", "-v", "error", "-of", "json", "-show_entries", "stream=codec_name,profile,pix_fmt", str(clip)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert json.loads(probe.stdout)["streams"] == [{"codec_name": "h264", "profile": "High", "pix_fmt": "yuv420p"}]
    boxes = top_level_boxes(clip)
    assert boxes.index("moov") < boxes.index("mdat")  # faststart: the index before the frames
    # ffmpeg's own libx264 with the same settings on a test picture: the same choices must show
    same = tmp_path / "same.mp4"
    flags = [arg for key, value in ENCODER.items() for arg in (f"-{key}", value)]
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc=size=854x480:rate=15:duration=1",
                    "-c:v", "libx264", *flags, "-pix_fmt", "yuv420p", str(same)], check=True)  # fmt: skip
    ours, reference = x264_options(clip), x264_options(same)
    for key in ("crf", "subme", "me", "ref", "bframes", "deblock", "psy_rd", "trellis", "rc_lookahead", "aq"):
        assert ours.get(key) == reference.get(key), key


@pytest.mark.render
def test_the_queue_runs_the_longest_first_and_the_manifest_stays_in_lesson_order(repo):
    first = render(repo, "--scenes", "width", "scaling", "--force", output="out-order")
    assert first.returncode == 0, first.stderr
    path = repo / "out-order" / "manifest.json"
    data = json.loads(path.read_text())
    for scene in data["scenes"]:  # the last run took far longer on the second scene
        scene["seconds"] = {"width": 1.0, "scaling": 100.0}[scene["id"]]
    path.write_text(json.dumps(data))
    second = render(repo, "--scenes", "width", "scaling", "--force", "--jobs", "1", output="out-order")
    assert second.returncode == 0, second.stderr
    done = [line.split()[2] for line in second.stdout.splitlines() if line.startswith("[")]
    assert done == ["02-scaling", "01-width"]
    assert [scene["id"] for scene in manifest(repo, "out-order")["scenes"]] == ["width", "scaling"]
