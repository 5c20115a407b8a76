"""Values added for the concept chapters: RNN step counts, shapes, and the dot-product demo."""

import math

import numpy as np
import pytest

from attention_math import compute, load_example
from attention_math.demos import alignment, demo_key, dot_with_turned_key


@pytest.fixture(scope="module")
def values():
    return compute(load_example(sections=["worked_example", "rnn_decay"]))


def test_rnn_counts_steps_and_pairs(values):
    rnn = values.rnn_decay
    assert rnn.sequential_steps == 8  # "The keys to the old wooden cabinet are"
    assert rnn.pairs == 64


def test_worked_example_shapes(values):
    we = values.worked_example
    assert (we.T, we.d_model, we.d_k, we.d_v) == (4, 4, 2, 2)


def test_alignment_of_first_query_with_its_best_key(values):
    a = values.worked_example.alignment
    # Head 1: Q_I = X_I·W_q = [1.0+0.2, 0.5+0.1]; K rows = X·W_k; K_love = [0.9, 1.1+0.1].
    assert a.key_token == 1
    np.testing.assert_allclose(a.query, [1.2, 0.6])
    np.testing.assert_allclose(a.key, [0.9, 1.2])
    assert a.dot == pytest.approx(1.2 * 0.9 + 0.6 * 1.2)
    norms = math.hypot(1.2, 0.6) * math.hypot(0.9, 1.2)
    assert a.aligned == pytest.approx(norms)
    assert a.opposite == pytest.approx(-norms)
    assert a.cosine == pytest.approx(1.8 / norms)
    assert a.angle_key - a.angle_query == pytest.approx(math.atan2(1.2, 0.9) - math.atan2(0.6, 1.2))
    assert a.norm_query * a.norm_key == pytest.approx(norms)


def test_alignment_in_higher_dimensions_keeps_lengths_and_dot():
    q, k = np.array([1.0, 2.0, 2.0]), np.array([0.0, 3.0, 4.0])
    a = alignment(q, k, query_token=0, key_token=1)
    assert a.plane_query == pytest.approx([3.0, 0.0])
    assert np.linalg.norm(a.plane_key) == pytest.approx(5.0)
    assert a.plane_query @ a.plane_key == pytest.approx(14.0)


@pytest.mark.parametrize("turn", [0.0, 0.7, math.pi / 2, 2.0, math.pi, -1.1])
def test_dot_with_turned_key_is_the_dot_with_the_rotated_key_vector(turn):
    q, k = np.array([1.0, 2.0, 2.0]), np.array([0.0, 3.0, 4.0])
    a = alignment(q, k, query_token=0, key_token=1)
    rotation = np.array([[math.cos(turn), -math.sin(turn)], [math.sin(turn), math.cos(turn)]])
    turned_key = rotation @ a.plane_key  # the key in its plane, turned by ``turn``: length 5
    expected = a.plane_query @ turned_key
    assert dot_with_turned_key(a, a.angle_key + turn) == pytest.approx(expected)
    if turn == 0.0:
        assert expected == pytest.approx(q @ k)  # unturned: the key's own dot product, 14


def test_demo_key_skips_keys_too_short_to_draw():
    query = np.array([1.0, -1.0])
    # Scores by hand: -2 for the first key, 0 for the zero key, -1 for the last: the zero key scores
    # highest but has no direction, so the demo takes the last key.
    keys = np.array([[-1.0, 1.0], [0.0, 0.0], [0.0, 1.0]])
    assert demo_key(query, keys) == 2
    assert demo_key(np.zeros(2), keys) is None
    assert demo_key(query, np.zeros((3, 2))) is None
