"""The magnified pulls beside the meaning map: tip to tail, summing to the move, labels clear of the arrows."""

import numpy as np
import pytest

from attention_math import DEFAULT_EXAMPLE, lesson_values
from scenes.kit import palette
from scenes.kit.meaning_map import overlaps
from scenes.kit.pull_chain import PullChain, magnification

UNIT = 0.75  # screen units per map unit


def chain_of(weights, places, focus, width=4.5, height=4.0) -> tuple[PullChain, np.ndarray]:
    """A chain for the word at ``focus`` among ``places`` weighed by ``weights``; also the pulls, by hand."""
    weights, places = np.asarray(weights, float), np.asarray(places, float)
    others = [j for j in range(len(places)) if j != focus]
    pulls = np.array([weights[j] * (places[j] - places[focus]) for j in others])
    tokens = [f"w{j}" for j in others]
    chain = PullChain("it", tokens, weights[others], pulls, [palette.MUTED] * len(others), UNIT, width, height)
    return chain, pulls


def test_the_pulls_run_tip_to_tail_and_sum_to_the_move():
    weights, places = [0.2, 0.5, 0.3], [[0.0, 0.0], [2.0, 1.0], [-1.0, -2.0]]
    chain, pulls = chain_of(weights, places, focus=0)
    scale = UNIT * chain.times
    for arrow, pull in zip(chain.arrows, pulls, strict=True):
        assert np.allclose((arrow.get_end() - arrow.get_start())[:2], pull * scale, atol=1e-6)
    for first, second in zip(chain.arrows[:-1], chain.arrows[1:], strict=True):
        assert np.allclose(first.get_end(), second.get_start(), atol=1e-6)
    after = np.asarray(weights) @ np.asarray(places)  # the weighted sum, by hand: where the word goes
    move = chain.move.get_end() - chain.move.get_start()
    assert np.allclose(move[:2], (after - np.asarray(places[0])) * scale, atol=1e-6)


def test_the_magnification_fills_the_room_and_is_said_plainly():
    assert magnification(np.array([1.0, 0.5]), (4.0, 4.0)) == 4.0  # a whole number from 2 on
    assert magnification(np.array([3.0, 1.0]), (4.5, 4.0)) == 1.5
    chain, _ = chain_of([0.2, 0.5, 0.3], [[0.0, 0.0], [2.0, 1.0], [-1.0, -2.0]], focus=0, width=6.0, height=5.0)
    assert chain.width <= 6.0 + 1e-6 and chain.height <= 5.0 + 1e-6
    assert f"drawn {chain.times:g}× larger" in chain.heading.original_text


@pytest.mark.parametrize("case", [0, 1])
def test_no_label_touches_another_or_lies_on_an_arrow(case):
    ss = lesson_values(("semantic_shift",), DEFAULT_EXAMPLE, owner="test").semantic_shift
    shift = ss.cases[case]
    chain, _ = chain_of(shift.weights, shift.positions, shift.focus)
    labels = [*chain.labels, chain.start[1]]
    for i, label in enumerate(labels):
        assert not any(overlaps(label, other, gap=0.0) for other in labels[i + 1 :])
        assert not chain._crosses(label)


def test_a_given_scale_is_kept_so_two_sentences_compare():
    weights, places = [0.2, 0.5, 0.3], [[0.0, 0.0], [2.0, 1.0], [-1.0, -2.0]]
    pulls = np.array([weights[j] * (np.array(places[j]) - places[0]) for j in (1, 2)])
    chain = PullChain("it", ["a", "b"], weights[1:], pulls, [palette.MUTED] * 2, UNIT, 6.0, 5.0, times=2.0)
    assert chain.times == 2.0
    assert np.allclose((chain.arrows[0].get_end() - chain.arrows[0].get_start())[:2], pulls[0] * UNIT * 2.0)
