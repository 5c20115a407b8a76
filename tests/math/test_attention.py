"""Attention itself, checked by hand-worked entries, numpy identities and hypothesis properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_math import (
    LessonValues,
    UndeclaredSectionError,
    attend,
    compute,
    lesson_values,
    load_example,
    multi_head,
    softmax,
    softmax_jacobian,
)
from attention_math.example import ROOT
from attention_math.types import Head

E = math.e


@pytest.fixture(scope="module")
def values() -> LessonValues:
    return compute(load_example())


@pytest.fixture(scope="module")
def head1(values) -> Head:
    return values.worked_example.heads[0]


# --- "I love apple phones", head 1, worked by hand ---------------------------------
# X rows: I = [1.0, 0.5, 0.2, 0.1], love = [0.9, 1.1, 0.1, 0.0],
#         apple = [0.1, 0.2, 1.0, 0.5], phones = [0.0, 0.1, 0.4, 1.2].
# W_q picks (x0 + x2, x1 + x3); W_k picks (x0 + x3, x1 + x2); W_v picks (x0 + x2, x1 + x2 + x3).
Q1 = [[1.2, 0.6], [1.0, 1.1], [1.1, 0.7], [0.4, 1.3]]
K1 = [[1.1, 0.7], [0.9, 1.2], [0.6, 1.2], [1.2, 0.5]]
V1 = [[1.2, 0.8], [1.0, 1.2], [1.1, 1.7], [0.4, 1.7]]
# Q_I · K_j: 1.2·1.1 + 0.6·0.7, 1.2·0.9 + 0.6·1.2, 1.2·0.6 + 0.6·1.2, 1.2·1.2 + 0.6·0.5
SCORES_I = [1.74, 1.80, 1.44, 1.74]
# Q_phones · K_j: 0.4·1.1 + 1.3·0.7, 0.4·0.9 + 1.3·1.2, 0.4·0.6 + 1.3·1.2, 0.4·1.2 + 1.3·0.5
SCORES_PHONES = [1.35, 1.92, 1.80, 1.13]


def by_hand_softmax(scores: list[float]) -> list[float]:
    exps = [math.exp(s) for s in scores]
    return [x / sum(exps) for x in exps]


def test_head1_projections_by_hand(head1):
    np.testing.assert_allclose(head1.Q, Q1, atol=1e-12)
    np.testing.assert_allclose(head1.K, K1, atol=1e-12)
    np.testing.assert_allclose(head1.V, V1, atol=1e-12)


def test_head1_scores_by_hand(head1):
    np.testing.assert_allclose(head1.scores[0], SCORES_I, atol=1e-12)
    np.testing.assert_allclose(head1.scores[3], SCORES_PHONES, atol=1e-12)
    assert head1.d_k == 2 and head1.sqrt_d_k == pytest.approx(1.41421356)
    np.testing.assert_allclose(head1.scaled_scores[0], [s / math.sqrt(2) for s in SCORES_I])


def test_head1_weights_and_output_of_i_by_hand(head1):
    weights = by_hand_softmax([s / math.sqrt(2) for s in SCORES_I])
    np.testing.assert_allclose(head1.weights[0], weights, rtol=1e-12)
    output = [sum(w * v[c] for w, v in zip(weights, V1, strict=True)) for c in range(2)]
    np.testing.assert_allclose(head1.output[0], output, rtol=1e-12)
    # I attends equally to itself and to "phones": their scores are both 1.74.
    assert head1.weights[0][0] == pytest.approx(head1.weights[0][3])


def test_head1_terms_by_hand(head1):
    # Q[I][0] = 1.0·1 + 0.5·0 + 0.2·1 + 0.1·0: the four products behind the entry.
    np.testing.assert_allclose(head1.Q_terms[0, 0], [1.0, 0.0, 0.2, 0.0])
    # scores[I][love] = 1.2·0.9 + 0.6·1.2
    np.testing.assert_allclose(head1.score_terms[0, 1], [1.08, 0.72])


def test_head2_by_column_arithmetic(values):
    """Head 2 (our own matrices) picks Q = (x2, x3), K = (x3, x2), V = (x1 + x2, x0 + x3) (columns from 0)."""
    x = values.worked_example.X
    head = values.worked_example.heads[1]
    np.testing.assert_allclose(head.Q, np.column_stack([x[:, 2], x[:, 3]]))
    np.testing.assert_allclose(head.K, np.column_stack([x[:, 3], x[:, 2]]))
    np.testing.assert_allclose(head.V, np.column_stack([x[:, 1] + x[:, 2], x[:, 0] + x[:, 3]]))


def test_head2_apple_looks_most_at_phones(values):
    """The row of "apple" in head 2, by hand: q = (1.0, 0.5) against keys (x3, x2) of each word."""
    we = values.worked_example
    scores = [1.0 * k3 + 0.5 * k2 for k2, k3 in ((0.2, 0.1), (0.1, 0.0), (1.0, 0.5), (0.4, 1.2))]
    assert scores == pytest.approx([0.2, 0.05, 1.0, 1.4])
    exps = [math.exp(s / math.sqrt(2)) for s in scores]
    np.testing.assert_allclose(we.heads[1].weights[2], [e / sum(exps) for e in exps], rtol=1e-12)
    assert we.tokens[int(np.argmax(we.heads[1].weights[2]))] == "phones"


def test_concat_is_head_outputs_side_by_side(values):
    we = values.worked_example
    assert we.d_model == 4 and we.h == 2 and we.d_k == 2
    np.testing.assert_array_equal(we.concat[:, :2], we.heads[0].output)
    np.testing.assert_array_equal(we.concat[:, 2:], we.heads[1].output)
    assert we.W_O is None
    np.testing.assert_array_equal(we.output, we.concat)


def test_add_and_norm_of_the_row_of_i_by_hand(values):
    """X's row of "I" plus its output row, then shifted by its mean and divided by its spread, digit by digit."""
    we = values.worked_example
    row = [a + b for a, b in zip(we.X[0], we.output[0], strict=True)]
    mean = sum(row) / len(row)
    spread = math.sqrt(sum((v - mean) ** 2 for v in row) / len(row) + 1e-5)
    an = we.add_norm
    np.testing.assert_allclose(an.residual[0], row, rtol=1e-12)
    assert an.mean[0] == pytest.approx(mean) and an.spread[0] == pytest.approx(spread)
    np.testing.assert_allclose(an.normed[0], [(v - mean) / spread for v in row], rtol=1e-12)
    np.testing.assert_allclose(an.normed.mean(axis=1), 0, atol=1e-12)  # every row centred
    assert an.normed[0].std() == pytest.approx(1, abs=1e-3)  # and spread 1, but for the epsilon


def test_every_head_obeys_the_identities(values):
    """Each intermediate the scenes show adds up to the next one."""
    for head in values.worked_example.heads + [values.cat_sat]:
        np.testing.assert_allclose(head.Q_terms.sum(axis=2), head.Q)
        np.testing.assert_allclose(head.V_terms.sum(axis=2), head.V)
        np.testing.assert_allclose(head.score_terms.sum(axis=2), head.scores)
        np.testing.assert_allclose(head.exp_scores.sum(axis=1), head.exp_sums)
        np.testing.assert_allclose(head.exp_scores / head.exp_sums[:, None], head.weights)
        np.testing.assert_allclose(head.weight_sums, 1.0)
        np.testing.assert_allclose(head.weighted_values.sum(axis=1), head.output)


# --- "the cat sat": identity projections, scores ÷ √4 ------------------------------


def test_cat_sat_by_hand(values):
    cs = values.cat_sat
    e = [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 1, 1]]
    for name in ("Q", "K", "V"):
        np.testing.assert_array_equal(getattr(cs, name), e)
    np.testing.assert_array_equal(cs.scores, [[2, 0, 2], [0, 2, 2], [2, 2, 4]])
    np.testing.assert_array_equal(cs.scaled_scores, [[1, 0, 1], [0, 1, 1], [1, 1, 2]])
    the = [E / (2 * E + 1), 1 / (2 * E + 1), E / (2 * E + 1)]
    cat = [1 / (2 * E + 1), E / (2 * E + 1), E / (2 * E + 1)]
    sat = [1 / (2 + E), 1 / (2 + E), E / (2 + E)]  # e^1, e^1, e^2 divided by e^1
    np.testing.assert_allclose(cs.weights, [the, cat, sat], rtol=1e-12)
    z_the = [2 * the[0], the[1] + the[2], 2 * the[0], the[1] + the[2]]
    np.testing.assert_allclose(cs.output[0], z_the, rtol=1e-12)
    # cat: 1·[1, 0, 1, 0] + e·[0, 1, 0, 1] + e·[1, 1, 1, 1], over 2e + 1.
    np.testing.assert_allclose(cs.output[1], np.array([1 + E, 2 * E, 1 + E, 2 * E]) / (2 * E + 1), rtol=1e-12)
    # sat·[1, 0, 1, 0] + sat·[0, 1, 0, 1] + sat·[1, 1, 1, 1] with sat[0] = sat[1]: every entry is (1 + e)/(2 + e).
    np.testing.assert_allclose(cs.output[2], [(1 + E) / (2 + E)] * 4, rtol=1e-12)
    # "the cat" alone: cat scores 0·… + … = 0 with the, 2 with itself, ÷ 2: weights 1 and e over 1 + e.
    np.testing.assert_allclose(cs.shorter.weights[1], [1 / (1 + E), E / (1 + E)], rtol=1e-12)
    np.testing.assert_allclose(cs.shorter.output[1], np.array([1, E, 1, E]) / (1 + E), rtol=1e-12)


# --- softmax: properties ------------------------------------------------------------

finite = st.floats(-1e3, 1e3, allow_nan=False)
score_rows = arrays(np.float64, st.tuples(st.integers(1, 5), st.integers(1, 8)), elements=finite)


@given(score_rows)
def test_softmax_rows_are_distributions(scores):
    w = softmax(scores)
    assert w.shape == scores.shape
    assert np.all(w >= 0) and np.all(w <= 1)
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=1e-12)


@given(score_rows, finite)
def test_softmax_ignores_a_shift(scores, shift):
    np.testing.assert_allclose(softmax(scores + shift), softmax(scores), atol=1e-9)


@given(score_rows)
def test_softmax_keeps_the_order(scores):
    w = softmax(scores)
    for row, wrow in zip(scores, w, strict=True):
        assert np.all(np.diff(wrow[np.argsort(row, kind="stable")]) >= -1e-15)


@given(arrays(np.float64, st.integers(2, 6), elements=st.floats(-1e300, 1e300, allow_nan=False)))
def test_softmax_is_stable_for_huge_scores(scores):
    w = softmax(scores)
    assert np.all(np.isfinite(w))
    assert w.sum() == pytest.approx(1.0)
    assert w[np.argmax(scores)] >= 1 / len(scores)


def test_softmax_by_hand():
    np.testing.assert_allclose(softmax([0.0, 0.0]), [0.5, 0.5])
    np.testing.assert_allclose(softmax([1000.0, 0.0]), [1.0, 0.0], atol=1e-300)
    np.testing.assert_allclose(softmax([math.log(3), 0.0]), [0.75, 0.25])


# --- softmax Jacobian ---------------------------------------------------------------

distribution = arrays(np.float64, st.integers(2, 6), elements=st.floats(-20, 20)).map(softmax)


@given(distribution)
def test_jacobian_rows_sum_to_zero_and_it_is_symmetric(p):
    jac = softmax_jacobian(p)
    np.testing.assert_allclose(jac.sum(axis=1), 0.0, atol=1e-12)
    np.testing.assert_allclose(jac, jac.T)


@given(arrays(np.float64, st.integers(2, 5), elements=st.floats(-5, 5)))
def test_jacobian_matches_finite_differences(scores):
    h = 1e-6
    numeric = np.column_stack(
        [(softmax(scores + h * unit) - softmax(scores - h * unit)) / (2 * h) for unit in np.eye(len(scores))]
    )
    np.testing.assert_allclose(softmax_jacobian(softmax(scores)), numeric, atol=1e-7)


@given(st.floats(-3, 3), st.floats(-3, 3), st.floats(0.1, 10), st.floats(1.1, 10))
def test_jacobian_shrinks_as_two_scores_grow_apart(a, b, scale, factor):
    """For two scores the Jacobian is p(1−p)·[[1, −1], [−1, 1]]: its norm 2p(1−p) falls as p leaves ½."""
    if abs(a - b) < 1e-3:
        return
    norm = lambda c: np.linalg.norm(softmax_jacobian(softmax(c * np.array([a, b]))))  # noqa: E731
    p = 1 / (1 + math.exp(-scale * (a - b)))
    assert norm(scale) == pytest.approx(2 * p * (1 - p), rel=1e-9)
    assert norm(scale * factor) < norm(scale)


# --- one head and several: properties -------------------------------------------------

small = st.floats(-3, 3, allow_nan=False)


@st.composite
def head_inputs(draw):
    n, d_model, d_k = draw(st.integers(1, 6)), draw(st.integers(1, 6)), draw(st.integers(1, 4))
    x = draw(arrays(np.float64, (n, d_model), elements=small))
    w = [draw(arrays(np.float64, (d_model, d_k), elements=small)) for _ in range(3)]
    return x, *w


@given(head_inputs())
def test_attend_matches_the_formula(inputs):
    """softmax(QKᵀ/√d_k)V, with the softmax written out as exp / row sum."""
    x, w_q, w_k, w_v = inputs
    head = attend(x, w_q, w_k, w_v)
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scaled = q @ k.T / math.sqrt(w_q.shape[1])
    e = np.exp(scaled - scaled.max(axis=1, keepdims=True))  # e^s / Σe^s, unchanged by the shift
    np.testing.assert_allclose(head.output, (e / e.sum(axis=1, keepdims=True)) @ v, atol=1e-9)


@given(head_inputs(), st.integers(0, 2**32 - 1))
@settings(max_examples=50)
def test_output_rows_lie_in_the_convex_hull_of_v(inputs, seed):
    """Along every direction u, u·output_i is at most the largest u·V_j (and at least the smallest)."""
    head = attend(*inputs)
    v, out = head.V, head.output
    directions = np.vstack([np.eye(v.shape[1]), np.random.default_rng(seed).standard_normal((8, v.shape[1]))])
    along_v, along_out = v @ directions.T, out @ directions.T
    assert np.all(along_out <= along_v.max(axis=0) + 1e-9)
    assert np.all(along_out >= along_v.min(axis=0) - 1e-9)


def test_multi_head_applies_w_o():
    x = np.array([[1.0, 2.0], [0.5, -1.0], [3.0, 0.0]])
    heads = [{"W_q": np.eye(2)[:, :1], "W_k": np.eye(2)[:, :1], "W_v": np.eye(2)[:, i : i + 1]} for i in range(2)]
    swap = np.array([[0.0, 1.0], [1.0, 0.0]])
    result = multi_head(x, heads, swap)
    # Both heads share their weights (same W_q, W_k); head i carries column i of x.
    weights = result.heads[0].weights
    np.testing.assert_allclose(result.concat, weights @ x)
    np.testing.assert_allclose(result.output, (weights @ x)[:, ::-1])
    np.testing.assert_array_equal(multi_head(x, heads).output, result.concat)


# --- the restricted view scenes get -------------------------------------------------


def test_lesson_values_refuses_an_undeclared_section():
    view = lesson_values(("cat_sat",), owner="TestScene")
    assert view.declared == ("cat_sat",) and list(view.sections()) == ["cat_sat"]
    assert view.cat_sat.scores[2][2] == 4
    with pytest.raises(UndeclaredSectionError, match="TestScene.*worked_example"):
        _ = view.worked_example


def test_w_o_from_the_example_file(tmp_path):
    """A W_O written in [worked_example] (above the heads) multiplies the concatenation."""
    reverse = "W_O = [[0, 0, 0, 1], [0, 0, 1, 0], [0, 1, 0, 0], [1, 0, 0, 0]]"
    text = (ROOT / "assets/examples/default.toml").read_text().replace("# Head 1", f"{reverse}\n# Head 1", 1)
    path = tmp_path / "with_w_o.toml"
    path.write_text(text)
    we = compute(load_example(path)).worked_example
    np.testing.assert_array_equal(we.output, we.concat[:, ::-1])
