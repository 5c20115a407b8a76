"""Every lesson scene, played without rendering a video: layout, numbers audit, narration, its last frame."""

import subprocess
import sys

import pytest

from attention_math import DEFAULT_EXAMPLE, load_example
from attention_math.claims import lesson_claims
from attention_math.example import ROOT
from attention_math.values import compute
from scenes.framing import (
    fill_problems,
    first_frame_problems,
    flash_problems,
    grid_problems,
    motion_problems,
    plays,
    redraw_problems,
)
from scenes.lesson import LESSON
from scenes.narration.spoken import unspeakable
from scenes.probe import audit_problems, layout_problems, probe
from tests.scenes.shared import snapshots


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


def test_probe_names_an_unknown_scene_without_a_traceback():
    result = subprocess.run(
        [sys.executable, "-m", "scenes.probe", "dot-product"], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert result.returncode == 2
    assert "no scene 'dot-product'" in result.stderr and "did you mean 'dot-products'?" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("entry", LESSON, ids=[e.id for e in LESSON])
def test_every_sentence_can_be_said(entry):
    """No notation reaches the voice as a bare symbol (``_``, ``√``, ``ᵀ``, ``×``…)."""
    said = snapshots(entry)[-1].said
    assert len(said) == len(snapshots(entry)[-1].narration)
    assert {line: unspeakable(line) for line in said if unspeakable(line)} == {}


@pytest.mark.parametrize(
    ("example", "said"),
    [
        (None, "the square root of d k equals one point four one"),  # d_k = 4 / 2 heads = 2; √2 ≈ 1.41
        (ROOT / "tests/examples/two_tokens.toml", "the square root of d k equals two"),  # one head: d_k = 4
    ],
)
def test_the_voice_says_the_value_computed_from_the_example(example, said):
    entry = next(e for e in LESSON if e.id == "scale-softmax")
    assert any(said in line for line in snapshots(entry, example)[-1].said)


def frames(entry):
    return plays([snap.frame for snap in snapshots(entry)])


@pytest.mark.parametrize("entry", LESSON, ids=[e.id for e in LESSON])
def test_last_frame_is_drawn(entry):
    """Cairo draws the scene's last frame with its real TeX: a scene that plays but cannot draw fails here."""
    assert snapshots(entry)[-1].drawn > 0.005, "the last frame is (almost) empty"


@pytest.mark.parametrize("entry", LESSON, ids=[e.id for e in LESSON])
def test_scene_opens_on_its_title_and_figure(entry):
    assert first_frame_problems(frames(entry)) == []


@pytest.mark.parametrize("entry", LESSON, ids=[e.id for e in LESSON])
def test_scene_keeps_moving_while_it_speaks(entry):
    assert motion_problems(frames(entry)) == []


@pytest.mark.parametrize("entry", LESSON, ids=[e.id for e in LESSON])
def test_scene_follows_the_layout_grid(entry):
    assert grid_problems(frames(entry)) == []


@pytest.mark.parametrize("entry", LESSON, ids=[e.id for e in LESSON])
def test_the_figure_fills_half_the_content_area_most_of_the_time(entry):
    assert fill_problems(frames(entry)) == []


@pytest.mark.parametrize("entry", LESSON, ids=[e.id for e in LESSON])
def test_scene_leaves_no_updater_that_redraws_every_frame(entry):
    assert redraw_problems(frames(entry)) == []


@pytest.mark.parametrize("entry", LESSON, ids=[e.id for e in LESSON])
def test_nothing_gone_flashes_back_to_fade_out(entry):
    assert flash_problems(frames(entry)) == []


pytestmark = pytest.mark.slow  # plays every scene (one frame drawn)


def test_every_claim_is_said_where_it_belongs():
    """Each scene says the claims `attention_math.claims` makes for it, word for word: a scene cannot
    word a comparison its own way."""
    claims = lesson_claims(compute(load_example(DEFAULT_EXAMPLE)))
    by_id = {entry.id: entry for entry in LESSON}
    for scene, made in claims.items():
        said = snapshots(by_id[scene])[-1].narration
        missing = [c.text for c in made if c.text not in said]
        assert not missing, f"{scene} does not say {missing}"


@pytest.mark.parametrize(
    ("w_k", "same"), [(None, True), ("[[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]", False)]
)
def test_the_primer_says_q_and_k_are_equal_only_when_they_are(tmp_path, w_k, same):
    """The default's cat_sat projections are both the identity, so Q = K: the voice says so, and only then."""
    text = (ROOT / "assets/examples/default.toml").read_text(encoding="utf-8")
    if w_k:  # swap K's first two columns: Q stays E, K does not
        identity = "W_k = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]"
        assert identity in text
        text = text.replace(identity, f"W_k = {w_k}")
    example = tmp_path / "example.toml"
    example.write_text(text, encoding="utf-8")
    entry = next(e for e in LESSON if e.id == "matrix-product")
    said = " ".join(probe(entry, example)[-1].said)
    assert ("happen to hold the same numbers" in said) is same
