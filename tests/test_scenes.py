"""Every lesson scene, played without rendering: layout, numbers audit, narration."""

import pytest

from scenes.lesson import LESSON, ROOT
from tests.probe import audit_problems, layout_problems, probe

_snapshots: dict[str, list] = {}


def snapshots(entry):
    if entry.id not in _snapshots:
        _snapshots[entry.id] = probe(entry)
    return _snapshots[entry.id]


@pytest.mark.parametrize("entry", LESSON, ids=[e.id for e in LESSON])
def test_scene_exists(entry):
    source = (ROOT / entry.file).read_text()
    assert f"class {entry.cls}(" in source


@pytest.mark.parametrize("entry", LESSON, ids=[e.id for e in LESSON])
def test_layout(entry):
    snaps = snapshots(entry)
    assert snaps, "the scene plays nothing"
    assert layout_problems(snaps) == []


@pytest.mark.parametrize("entry", LESSON, ids=[e.id for e in LESSON])
def test_numbers_are_computed(entry):
    assert audit_problems(entry, snapshots(entry)) == []


@pytest.mark.parametrize("entry", LESSON, ids=[e.id for e in LESSON])
def test_scene_narrates(entry):
    narration = snapshots(entry)[-1].narration
    assert narration, "no add_subcaption: the clip would have no subtitles"
    assert all(len(line) <= 160 for line in narration), "a subtitle too long to read in one go"
