"""The worked-example chapter: layout and numbers audit for short, default and long sentences;
what the last frames show, checked against attention computed here independently; a render
with an edited example file."""

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from attention_math.example import ROOT
from scenes.framing import flash_problems, plays
from scenes.lesson import LESSON
from scenes.probe import audit_problems, layout_problems, numbers_shown, probe
from tests.scenes import shared

#: the chapter's modules: steps 1–2, 3, 4–5, 6 and 7, and Add & Norm after them
FILES = (
    "scenes/worked_projections.py",
    "scenes/model_configuration.py",
    "scenes/dot_products.py",
    "scenes/worked_scores.py",
    "scenes/worked_outputs.py",
    "scenes/multi_head.py",
    "scenes/add_norm.py",
)
CHAPTER = [e for e in LESSON if e.file in FILES]
EXAMPLES = {
    "default": ROOT / "assets/examples/default.toml",
    "two_tokens": ROOT / "tests/examples/two_tokens.toml",
    "twelve_tokens": ROOT / "tests/examples/twelve_tokens.toml",
}


def snapshots(entry, example: str):
    return shared.snapshots(entry, EXAMPLES[example])


def screen_problems(snaps) -> list[str]:
    """Collisions, overflow, small text; and anything gone faded out again (with four heads, multi-head's
    rule was, and flashed up for it)."""
    return layout_problems(snaps) + flash_problems(plays([s.frame for s in snaps]))


def by_id(scene_id: str):
    return next(e for e in CHAPTER if e.id == scene_id)


def final_numbers(entry, example: str) -> set[float]:
    return numbers_shown(snapshots(entry, example)[-1:])


def heads_by_hand(path: Path) -> list[dict]:
    """Attention per head, straight from the file's matrices (independent of attention_math)."""
    we = tomllib.loads(path.read_text())["worked_example"]
    x = np.array(we["X"], dtype=float)
    heads = []
    for h in we["heads"]:
        q, k, v = (x @ np.array(h[name], dtype=float) for name in ("W_q", "W_k", "W_v"))
        scores = q @ k.T / np.sqrt(q.shape[1])
        e = np.exp(scores)
        weights = e / e.sum(axis=1, keepdims=True)
        heads.append({"weights": weights, "output": weights @ v})
    return heads


@pytest.mark.slow
@pytest.mark.parametrize("example", list(EXAMPLES))
@pytest.mark.parametrize("entry", CHAPTER, ids=[e.id for e in CHAPTER])
def test_layout_and_audit(entry, example):
    snaps = snapshots(entry, example)
    assert snaps
    assert screen_problems(snaps) == []
    assert audit_problems(entry, snaps, EXAMPLES[example]) == []


def test_default_weights_land_in_the_heatmap():
    # The slide deck's own arithmetic: softmax over rows of QKᵀ/√2 for head 1.
    weights = heads_by_hand(EXAMPLES["default"])[0]["weights"]
    shown = final_numbers(by_id("scale-softmax"), "default")
    assert {round(float(w), 2) for w in weights.ravel()} <= shown


def test_concatenation_shows_every_head_output():
    heads = heads_by_hand(EXAMPLES["default"])
    concat = np.concatenate([h["output"] for h in heads], axis=1)
    shown = final_numbers(by_id("multi-head"), "default")
    assert {round(float(v), 2) for v in concat.ravel()} <= shown


def test_two_token_chapter_shows_its_own_sentence():
    heads = heads_by_hand(EXAMPLES["two_tokens"])
    shown = final_numbers(by_id("multi-head"), "two_tokens")
    assert {round(float(v), 2) for v in heads[0]["output"].ravel()} <= shown


def test_long_sentence_is_abbreviated_not_overflowing():
    texts = {s.text for s in snapshots(by_id("input-embeddings"), "twelve_tokens")[-1].shown}
    assert "⋮" in texts  # 12 rows do not all fit: an ellipsis stands for the hidden ones
    assert "today" in texts  # ... and the last token is still drawn


def _render_last_frame(example: Path, media: Path) -> np.ndarray:
    env = {**os.environ, "ATTENTION_EXAMPLE": str(example)}
    cmd = [sys.executable, "-m", "manim", "-ql", "-s", "--media_dir", str(media), "--disable_caching"]
    cmd += ["scenes/worked_projections.py", "ShowEmbeddings"]
    subprocess.run(cmd, cwd=ROOT, env=env, check=True, capture_output=True, timeout=300)
    (png,) = media.rglob("ShowEmbeddings*.png")
    return np.asarray(Image.open(png).convert("RGB"), dtype=int)


@pytest.mark.render
def test_editing_the_example_changes_the_video(tmp_path):
    text = EXAMPLES["default"].read_text()
    edited = tmp_path / "edited.toml"
    # X[0] = [1.0, 0.5, 0.2, 0.1] becomes [1.0, 0.5, 0.2, 1.7]: a value the default never shows.
    assert "[1.0, 0.5, 0.2, 0.1]" in text
    edited.write_text(text.replace("[1.0, 0.5, 0.2, 0.1]", "[1.0, 0.5, 0.2, 1.7]", 1))
    before = _render_last_frame(EXAMPLES["default"], tmp_path / "default-media")
    after = _render_last_frame(edited, tmp_path / "edited-media")
    assert before.shape == after.shape
    assert np.abs(before - after).sum(axis=2).max() > 100  # some pixel clearly changed
    entry = by_id("input-embeddings")
    assert 1.7 in numbers_shown(probe(entry, edited))
    assert 1.7 not in numbers_shown(snapshots(entry, "default"))


#: the other scenes that lay out the worked example's or the meaning map's sentence (the real model's need
#: its own data)
SENTENCE_SCENES = [
    e
    for e in LESSON
    if e not in CHAPTER
    and {"worked_example", "semantic_shift"} & set(e.depends_on)
    and "real_model" not in e.depends_on
]


@pytest.mark.slow
@pytest.mark.parametrize("entry", SENTENCE_SCENES, ids=[e.id for e in SENTENCE_SCENES])
def test_a_twelve_token_sentence_lays_out_without_collisions(entry):
    """Bar numbers, labels, matrices and captions at 12 tokens: nothing overlaps, leaves the frame or
    shrinks below legible (read-weights and shared-projection did, and database-analogy's bar numbers)."""
    assert screen_problems(snapshots(entry, "twelve_tokens")) == []
