"""The meaning map component and the first-example / meaning scenes' own logic.

Expected values are computed here independently (plain numpy), never read from the code under test.
"""

import re
from pathlib import Path

import numpy as np
import pytest
from manim import Dot, Line, Text

from attention_math import DEFAULT_EXAMPLE, lesson_values
from attention_math.example import ROOT
from scenes.first_example import is_identity
from scenes.kit.meaning_map import MeaningMap, along, overlaps, place_label
from scenes.kit.numbers import vector_text
from scenes.lesson import by_class
from scenes.meaning import standing
from scenes.probe import probe
from tests.scenes.shared import snapshots

WORDS = {"a": np.array([0.0, 0.0]), "b": np.array([0.3, 0.0]), "c": np.array([3.0, 1.0]), "d": np.array([-3.0, 1.0])}


def small_map() -> MeaningMap:
    return MeaningMap(WORDS, {"tech": ["c"], "fruit": ["d"]}, {"tech": WORDS["c"], "fruit": WORDS["d"]}, 6, 4)


def test_place_label_avoids_an_obstacle_below():
    dot = Dot([0, 0, 0])
    blocker = Text("blocker", font_size=24).next_to(dot, np.array([0, -1, 0]), buff=0.08)
    label = place_label(Text("word", font_size=24), dot, [blocker])
    assert not overlaps(label, blocker)
    assert label.get_center()[1] > dot.get_center()[1]  # moved above, the next side tried


def test_place_label_prefers_the_side_away_from_an_arrow():
    dot = Dot([0, 0, 0])
    label = place_label(Text("word", font_size=24), dot, [], away=np.array([1.0, 0.0, 0.0]))
    assert label.get_left()[0] > dot.get_right()[0]


def test_default_map_labels_touch_no_dot_or_label():
    ss = lesson_values(("semantic_shift",), DEFAULT_EXAMPLE, owner="test").semantic_shift
    m = MeaningMap(ss.words, ss.cluster_words, ss.centroids, width=11.5, height=5.4)
    marks = list(m.marks.values())
    for mark in marks:
        for other in marks:
            if other is not mark:
                assert not overlaps(mark.label, other.label), (mark.label.text, other.label.text)
                assert not overlaps(mark.label, other.dot), (mark.label.text, other.label.text)


def test_close_words_get_separate_labels():
    m = small_map()
    a, b = m.mark("a"), m.mark("b")
    assert not overlaps(a.label, b.label)


def test_moved_mark_sits_at_the_new_point():
    m = small_map()
    m.mark("a", at=[0, 0])
    target = m.moved("a", [1.5, 0.5])
    assert np.allclose(target.dot.get_center(), m.plane.c2p(1.5, 0.5))


def test_a_moved_label_keeps_off_a_trail_where_a_side_is_free():
    m = small_map()
    m.mark("a", at=[0, 0])
    end = m.plane.c2p(1.5, 0.0)
    trail = [Line(m.plane.c2p(0, 0), end), Line(end, end + np.array([0, 0.8, 0]))]  # in from the left, then up
    target = m.moved("a", [1.5, 0.0], away=np.array([-1.0, 0, 0]), avoid=trail)  # wished on the trail's side
    assert not any(overlaps(target.label, t) for t in trail)


def test_a_label_keeps_off_where_another_word_will_arrive():
    m = small_map()
    m.mark("a", at=[0, 0])
    arrival = m.arrival("a", WORDS["b"] + [0.0, -0.4])  # "a" will walk to just below "b"
    b = m.mark("b", away_from=[0.3, 1.0], keep_off=[arrival])  # wished below, into that room
    assert not overlaps(b.label, arrival)
    assert arrival.width > 2 * m.marks["a"].label.width  # room for its label on any side of its dot


def test_a_label_keeps_off_a_slanted_line_yet_finds_room_beside_it():
    line = Line([-2, -2, 0], [2, 2, 0])  # y = x: its bounding box is the whole square
    dot = Dot([-0.3, 0.6, 0])  # above the line
    label = place_label(Text("apple (alone)", font_size=24), dot, along(line), away=np.array([1.0, 0.0, 0.0]))
    (left, bottom), (right, top) = label.get_corner([-1, -1, 0])[:2], label.get_corner([1, 1, 0])[:2]
    assert right < bottom or left > top  # the box holds no point with x = y: it does not touch the line
    assert not overlaps(label, dot)


def test_standing_names_ties_and_the_nearer_cluster():
    assert "about as far" in standing("apple", {"fruit": 3.14, "tech": 3.15})[0]
    assert standing("apple", {"fruit": 4.3, "tech": 2.1})[0].endswith("closer to tech")


def test_vector_text_uses_the_decimals_the_values_need():
    assert vector_text(np.array([6.0, 4.0])) == "[6, 4]"
    assert vector_text(np.array([0.4223, 0.1554]), 2) == "[0.42, 0.16]"
    assert vector_text(np.array([2.5, 3.0])) == "[2.5, 3.0]"


def test_is_identity():
    assert is_identity(np.eye(4))
    assert not is_identity(np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]) * 2)


def independent_nearest_after(words: dict, clusters: dict, tokens: list[str], focus: str) -> str:
    """Attention with identity projections over 2-D positions, scores / sqrt(2), by hand."""
    x = np.array([words[t] for t in tokens], dtype=float)
    q = np.array(words[focus], dtype=float)
    scores = x @ q / np.sqrt(2)
    w = np.exp(scores - scores.max())
    w /= w.sum()
    after = w @ x
    centres = {name: np.mean([words[m] for m in members], axis=0) for name, members in clusters.items()}
    return min(centres, key=lambda n: np.linalg.norm(after - centres[n]))


@pytest.mark.slow
@pytest.mark.scene("meaning-shift")
def test_shift_meaning_says_where_each_sentence_moves_the_word():
    import tomllib

    raw = tomllib.loads(DEFAULT_EXAMPLE.read_text())["semantic_shift"]
    expected = [
        independent_nearest_after(raw["words"], raw["clusters"], s["tokens"], s["focus"]) for s in raw["sentences"]
    ]
    assert expected == ["tech", "fruit"]  # the slide deck's story, if the example file still tells it
    narration = snapshots(by_class("ShiftMeaning"))[-1].narration
    verdicts = [line for line in narration if line.startswith("'apple' is now")]  # one per sentence
    assert [line.rstrip(".").split()[-1] for line in verdicts] == expected


@pytest.mark.slow
@pytest.mark.scene("meaning-shift")
@pytest.mark.parametrize(
    "example", [DEFAULT_EXAMPLE, ROOT / "tests/examples/twelve_tokens.toml"], ids=["default", "12"]
)
def test_shift_meaning_names_the_words_without_a_row_in_x_before_their_weights(example):
    import tomllib

    raw = tomllib.loads(example.read_text())
    known = set(raw["worked_example"]["tokens"])
    expected = [[t for t in s["tokens"] if t not in known] for s in raw["semantic_shift"]["sentences"]]
    narration = snapshots(by_class("ShiftMeaning"), example)[-1].narration
    said = {line.split("', ", 1)[0][4:]: line for line in narration if "made-up row" in line}  # by its sentence
    for sentence, new in zip(raw["semantic_shift"]["sentences"], expected, strict=True):
        line = said.get(" ".join(sentence["tokens"]))
        assert (line is not None) == bool(new)
        if line:
            assert re.findall(r"'([^']+)'", line.split("', ", 1)[1].split(" get")[0]) == new
            after = narration[narration.index(line) + 1]
            assert "weights" in after  # the rows are said before the weights they give


def cat_sat_with(tmp_path, name: str, matrix: list | None) -> Path:
    """The default example, the cat_sat section's identity ``name`` ("W_v", "W_k") replaced by ``matrix`` if given."""
    text = DEFAULT_EXAMPLE.read_text(encoding="utf-8")
    if matrix:
        identity = f"{name} = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]"
        assert text.count(identity) == 1  # the cat_sat section's
        text = text.replace(identity, f"{name} = {matrix}")
    example = tmp_path / "example.toml"
    example.write_text(text, encoding="utf-8")
    return example


@pytest.mark.parametrize(
    ("w_v", "said"),
    [
        (None, "but its row of Z changes"),  # "the cat" alone: cat's weights e/(1+e) on itself, not 2e/(2e+1)
        ([[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]], "happens to stay the same"),  # every v is 0
    ],
)
def test_fixed_vs_contextual_says_the_row_changes_only_when_it_does(tmp_path, w_v, said):
    example = cat_sat_with(tmp_path, "W_v", w_v)
    narration = " ".join(probe(by_class("ContrastEmbeddings"), example)[-1].said)
    assert said in narration
    assert ("what V is" in narration) is bool(w_v)  # the mix is of X's rows only where V = X


@pytest.mark.parametrize("w_k", [None, [[1, 1, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]])
def test_symmetric_scores_says_why_the_mirror_matters_only_where_scores_mirror(tmp_path, w_k):
    """'the' scores 'sat' as 'sat' scores 'the' is said only where W_Q = W_K makes E·W_Q·(E·W_K)ᵀ symmetric."""
    example = cat_sat_with(tmp_path, "W_k", w_k)
    e = np.array([[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 1, 1]])
    w = np.array(w_k) if w_k else np.eye(4)  # W_Q is the identity
    scores = e @ (e @ w).T
    narration = " ".join(probe(by_class("MirrorScores"), example)[-1].narration)
    assert ("'the' scores 'sat' as 'sat' scores 'the'" in narration) is bool(np.array_equal(scores, scores.T))
    assert ("what it looks for is what it offers" in narration) is (w_k is None)
