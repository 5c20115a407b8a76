"""The lesson's side demonstrations, checked by hand-worked values and properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_math import LessonValues, compute, load_example
from attention_math.demos import complexity, rnn_decay, variance_demo
from attention_math.model_types import ShiftCase

E = math.e


@pytest.fixture(scope="module")
def values() -> LessonValues:
    return compute(load_example())


# --- scaling: [6, 4] against [3, 2] -------------------------------------------------


def test_scaling_demo_by_hand(values):
    demo = values.scaling_demo
    # q = [2, 3, 4, 1]; k1 = [1, 0, 1, 0] → 2 + 4; k2 = [0, 1, 0, 1] → 3 + 1
    np.testing.assert_array_equal(demo.raw, [6, 4])
    assert demo.d_k == 4 and demo.sqrt_d_k == 2
    np.testing.assert_array_equal(demo.scaled, [3, 2])
    # e^6 / (e^6 + e^4) = 1 / (1 + e^−2); e^3 / (e^3 + e^2) = 1 / (1 + e^−1)
    np.testing.assert_allclose(demo.softmax_raw, [1 / (1 + E**-2), 1 / (1 + E**2)], rtol=1e-12)
    np.testing.assert_allclose(demo.softmax_scaled, [1 / (1 + E**-1), 1 / (1 + E)], rtol=1e-12)


# --- variance: ≈ d_k raw, ≈ 1 scaled ------------------------------------------------


def test_variance_demo_default(values):
    demo = values.variance_demo
    dims = np.array(demo.dimensions)
    np.testing.assert_allclose(demo.sqrt_dimensions**2, dims)
    np.testing.assert_allclose(demo.variance_raw / dims, 1.0, atol=0.15)
    np.testing.assert_allclose(demo.variance_scaled, 1.0, atol=0.15)
    assert np.all(np.diff(demo.max_abs_raw) > 0), "larger d_k, larger extreme scores"


@given(st.integers(0, 2**32 - 1))
@settings(max_examples=20, deadline=None)
def test_variance_is_d_k_raw_and_1_scaled_for_any_seed(seed):
    """With 4000 samples the sample variance is within ±15 % (over 4 standard errors) of d_k."""
    demo = variance_demo([2, 32, 256], 4000, seed)
    dims = np.array([2, 32, 256])
    np.testing.assert_allclose(demo.variance_raw / dims, 1.0, atol=0.15)
    np.testing.assert_allclose(demo.variance_scaled * dims, demo.variance_raw)


def test_variance_demo_is_reproducible():
    first, second = variance_demo([4, 8], 500, 7), variance_demo([4, 8], 500, 7)
    np.testing.assert_array_equal(first.variance_raw, second.variance_raw)
    assert not np.array_equal(first.variance_raw, variance_demo([4, 8], 500, 8).variance_raw)


# --- saturation: the same scores made larger ------------------------------------------


def test_saturation_demo(values):
    demo = values.saturation_demo
    scores = np.array([1.0, 0.6, 0.2, -0.4])
    np.testing.assert_array_equal(demo.scales, [1, 4, 16, 64])
    for row, scale in zip(demo.weights, demo.scales, strict=True):
        exps = [math.exp(scale * s) for s in scores]
        np.testing.assert_allclose(row, [x / sum(exps) for x in exps], rtol=1e-9, atol=1e-300)
    assert np.all(np.diff(demo.max_weight) > 0), "the top weight heads for 1"
    assert demo.max_weight[-1] > 0.999
    assert np.all(np.diff(demo.gradient_norm) < 0), "the gradient vanishes as the scores grow"
    assert demo.gradient_norm[-1] < 1e-3
    np.testing.assert_allclose(demo.jacobians.sum(axis=2), 0.0, atol=1e-12)


# --- the O(N²) limit --------------------------------------------------------------------


def test_complexity_by_hand(values):
    demo = values.complexity
    np.testing.assert_array_equal(demo.comparisons, [10**6, 10**8, 10**10])  # 1 million, 100 million, 10 billion
    np.testing.assert_array_equal(demo.memory_bytes, [4 * 10**6, 4 * 10**8, 4 * 10**10])
    assert demo.doubling_factor == 4
    assert demo.grid_cells == [4, 16, 64]


@given(st.lists(st.integers(1, 10_000_000), min_size=1, max_size=6), st.integers(1, 16))
def test_complexity_counts_every_pair(lengths, size):
    demo = complexity(lengths, size, [3])
    assert [int(c) for c in demo.comparisons] == [n * n for n in lengths]
    assert [int(m) for m in demo.memory_bytes] == [n * n * size for n in lengths]
    assert demo.doubling_factor == 4 and demo.grid_cells == [9]


# --- the RNN problem --------------------------------------------------------------------


def test_rnn_decay_by_hand(values):
    demo = values.rnn_decay
    assert (demo.source, demo.target, demo.steps) == (1, 7, 6)  # "keys" … "are"
    np.testing.assert_allclose(demo.signal, [0, 1, 0.6, 0.36, 0.216, 0.1296, 0.07776, 0.046656])
    assert demo.signal_at_target == pytest.approx(0.046656)
    assert demo.attention_path_length == 1


@given(st.integers(2, 12), st.data(), st.floats(0.01, 0.99))
def test_rnn_signal_fades_step_by_step(n, data, retention):
    source = data.draw(st.integers(0, n - 2))
    target = data.draw(st.integers(source + 1, n - 1))
    demo = rnn_decay([f"w{i}" for i in range(n)], source, target, retention)
    signal = demo.signal
    assert np.all(signal[:source] == 0) and signal[source] == 1
    np.testing.assert_allclose(signal[source + 1 :] / signal[source:-1], retention)
    assert demo.signal_at_target == pytest.approx(retention ** (target - source))


# --- "the train left the station on time" ------------------------------------------------


def test_train_attends_most_to_station(values):
    demo = values.train_station
    train, station = demo.tokens.index("train"), demo.tokens.index("station")
    assert demo.focus == train and demo.strongest_other == station
    # train = [1.2, 0.9, 0.1, 0.2]; station = [1.2, 1.0, 0.1, 0.1]; left = [0.4, 1.0, 0.3, 0.1]
    assert demo.scores[train][station] == pytest.approx(1.44 + 0.90 + 0.01 + 0.02)
    assert demo.scores[train][train] == pytest.approx(1.44 + 0.81 + 0.01 + 0.04)
    assert demo.scores[train][2] == pytest.approx(0.48 + 0.90 + 0.03 + 0.02)
    others = [w for j, w in enumerate(demo.weights[train]) if j != train]
    assert demo.weights[train][station] == max(others)
    np.testing.assert_allclose(demo.scores, demo.scores.T)
    np.testing.assert_allclose(demo.weights.sum(axis=1), 1.0)


# --- the meaning map ------------------------------------------------------------------------


def test_centroids_by_hand(values):
    shift = values.semantic_shift
    # fruit: banana, grape, cherry = (−3.2, 1.4), (−2.7, 2.3), (−3.4, 2.6); tech mirrors them.
    np.testing.assert_allclose(shift.centroids["fruit"], [-3.1, 2.1])
    np.testing.assert_allclose(shift.centroids["tech"], [3.1, 2.1])
    assert np.shape(shift.clusters["fruit"]) == (3, 2)


def case(values, sentence: str) -> ShiftCase:
    return next(c for c in values.semantic_shift.cases if c.sentence == sentence)


def test_apple_starts_equidistant(values):
    for c in values.semantic_shift.cases:
        np.testing.assert_array_equal(c.before, [0.0, 1.6])
        expected = math.hypot(3.1, 1.6 - 2.1)
        assert c.distance_before["fruit"] == pytest.approx(expected)
        assert c.distance_before["tech"] == pytest.approx(expected)


def test_apple_phones_moves_to_tech(values):
    c = case(values, "I love apple phones")
    assert c.distance_after["tech"] < c.distance_before["tech"]
    assert c.distance_after["fruit"] > c.distance_before["fruit"]
    assert c.distance_after["tech"] < c.distance_after["fruit"]


def test_apple_pie_moves_to_fruit(values):
    c = case(values, "I ate an apple pie")
    assert c.distance_after["fruit"] < c.distance_before["fruit"]
    assert c.distance_after["tech"] > c.distance_before["tech"]
    assert c.distance_after["fruit"] < c.distance_after["tech"]


@pytest.mark.parametrize(
    ("sentence", "rows"),
    [
        ("I love apple phones", None),  # the worked example's own X
        ("I ate an apple pie", {"ate": (0.5, 1.0, 0.2, 0.1), "an": (0.3, 0.2, 0.1, 0.1), "pie": (0.1, 0.0, 0.7, 1.1)}),
    ],
)
def test_new_position_is_head_2_by_hand(values, sentence, rows):
    """after = Σ_j α_j p_j with α = softmax_j(q·k_j / √2) from head 2 (q = (x2, x3), k = (x3, x2)), in plain floats."""
    c = case(values, sentence)
    we, words = values.worked_example, values.semantic_shift.words
    x = {**{t: tuple(r) for t, r in zip(we.tokens, we.X, strict=True)}, **(rows or {})}
    apple = x["apple"]
    scores = [apple[2] * x[w][3] + apple[3] * x[w][2] for w in sentence.split()]
    exps = [math.exp(s / math.sqrt(2)) for s in scores]
    weights = [e / sum(exps) for e in exps]
    points = [tuple(words[w]) for w in sentence.split()]
    after = [sum(w * p[k] for w, p in zip(weights, points, strict=True)) for k in range(2)]
    np.testing.assert_allclose(c.weights, weights, rtol=1e-12)
    np.testing.assert_allclose(c.after, after, rtol=1e-12)
    np.testing.assert_array_equal(c.rows, [x[w] for w in sentence.split()])  # the rows the scene shows, read
    assert c.distance_after["tech"] == pytest.approx(math.dist(after, (3.1, 2.1)))


def test_the_map_shows_the_worked_example_heads_weights(values):
    """One story: in the worked sentence, the map's weights are head 2's row of step 7."""
    c = case(values, "I love apple phones")
    assert values.semantic_shift.head == 2
    np.testing.assert_array_equal(c.weights, values.worked_example.heads[1].weights[c.focus])


@pytest.mark.parametrize("sentence", ["I love apple phones", "I ate an apple pie"])
def test_path_runs_from_before_to_after(values, sentence):
    c = case(values, sentence)
    path = c.path
    assert len(path) == len(c.tokens) + 1
    np.testing.assert_allclose(path[0], c.before)
    np.testing.assert_allclose(path[-1], c.after, atol=1e-12)
    np.testing.assert_allclose(np.diff(path, axis=0), c.pulls)


def test_the_entries_shown_are_the_first_ones_drawn_for_q():
    """The dots of variance-explodes are the first entries of q at the smallest d_k, drawn again here."""
    demo = variance_demo([4, 8], 500, 7)
    again = np.random.default_rng(7).standard_normal((500, 4)).ravel()[: len(demo.entries)]
    np.testing.assert_array_equal(demo.entries, again)
    assert len(demo.entries) >= 30


def test_a_stretched_key_keeps_its_cosine_and_scales_its_dot_product(values):
    """dot-not-cosine's demo: the key k times s points the same way; q·(s k) = s (q·k) and |s k| = s |k|."""
    al = values.worked_example.alignment
    q, k, s = al.query, al.key, al.stretch
    assert s > 1
    assert al.stretched_dot == pytest.approx(s * float(q @ k))
    assert al.stretched_norm_key == pytest.approx(s * math.sqrt(float(k @ k)))
    cos_after = al.stretched_dot / (math.sqrt(float(q @ q)) * al.stretched_norm_key)
    assert cos_after == pytest.approx(al.cosine)  # the angle's cosine did not move
