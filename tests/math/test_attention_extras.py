"""The running sums and the query's-eye view added to ``attend`` for the worked example."""

import numpy as np

from attention_math.attention import attend


def _head():
    x = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 3.0]])
    w = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    return x, attend(x, w, w, w)


def test_partial_sums_worked_by_hand():
    _, head = _head()
    # Q[0, 1] = 1·0 + 2·1 + 0·1: the running sum visits 0, 2, 2.
    assert np.allclose(head.Q_partial_sums[0, 1], [0.0, 2.0, 2.0])
    # Q[1, 0] = 0·1 + 1·0 + 3·1: 0, 0, 3.
    assert np.allclose(head.Q_partial_sums[1, 0], [0.0, 0.0, 3.0])


def test_partial_sums_end_on_the_entries():
    _, head = _head()
    for name in "QKV":
        assert np.allclose(getattr(head, f"{name}_partial_sums")[..., -1], getattr(head, name))
    assert np.allclose(head.score_partial_sums[..., -1], head.scores)
    assert np.allclose(head.exp_partial_sums[:, -1], head.exp_sums)
    assert np.allclose(head.output_partial_sums[:, -1], head.output)


def test_query_view_reproduces_the_scores():
    _, head = _head()
    # Q = [[1, 2], [3, 4]] here, so |q_0| = √5.
    assert np.isclose(head.query_norms[0], np.sqrt(5))
    rebuilt = np.outer(head.query_norms, head.key_norms) * np.cos(head.qk_angles)
    assert np.allclose(rebuilt, head.scores)


def test_query_view_angle_is_signed_in_two_dimensions():
    x = np.eye(2)
    # q_0 = (1, 0), k_1 = (0, 1): a quarter turn counter-clockwise; k back to q: clockwise.
    head = attend(x, np.eye(2), np.eye(2), np.eye(2))
    assert np.isclose(head.qk_angles[0, 1], np.pi / 2)
    assert np.isclose(head.qk_angles[1, 0], -np.pi / 2)
