"""LessonScene pacing: subtitles never overlap and the clip lasts until the last one has been read."""

import tempfile

import pytest
from manim import tempconfig

from scenes.kit.base import LessonScene
from scenes.lesson import by_class
from scenes.probe import dry_run_config, load_scene_class


def played(cls_name: str):
    with tempfile.TemporaryDirectory() as media, tempconfig(dry_run_config(media)):
        scene = load_scene_class(by_class(cls_name))()
        scene.render()
    return scene


@pytest.mark.parametrize("cls_name", ["ResolveAmbiguity", "AlignVectors"])
def test_subtitles_follow_each_other_and_fit_the_clip(cls_name):
    scene = played(cls_name)
    assert isinstance(scene, LessonScene)
    lines = scene.renderer.file_writer.subcaptions
    assert len(lines) >= 3
    for before, after in zip(lines, lines[1:], strict=False):
        assert after.start >= before.end
    assert lines[-1].end.total_seconds() <= scene.time + 1e-6
