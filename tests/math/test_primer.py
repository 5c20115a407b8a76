"""The tools chapter's values, each against numpy computed here from the example file's own numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attention_math import LessonValues, compute, load_example
from attention_math.example import ROOT


@pytest.fixture(scope="module")
def example() -> dict:
    return load_example()


@pytest.fixture(scope="module")
def values(example) -> LessonValues:
    return compute(example)


def test_the_arrows_are_the_first_query_and_its_best_key(example, values):
    we = example["worked_example"]
    head = we["heads"][0]
    q = we["X"][0] @ head["W_q"]
    keys = we["X"] @ head["W_k"]
    k = keys[np.argmax(keys @ q)]
    v = values.worked_example.vectors
    np.testing.assert_allclose(v.a, q)  # d_k = 2 here: the plane's coordinates are the vectors themselves
    np.testing.assert_allclose(v.b, k)


def test_lengths_and_dot_product_two_ways(values):
    v = values.worked_example.vectors
    a, b = np.array(v.a), np.array(v.b)
    assert v.norm_a == pytest.approx(math.sqrt(sum(x * x for x in a)))
    assert v.norm_b == pytest.approx(math.sqrt(sum(x * x for x in b)))
    np.testing.assert_allclose(v.squares_a, [x * x for x in a])
    np.testing.assert_allclose(v.squares_b, [x * x for x in b])
    np.testing.assert_allclose(v.terms, [x * y for x, y in zip(a, b, strict=True)])
    assert v.dot == pytest.approx(float(np.dot(a, b)))
    # the angle between the arrows, from their directions
    theta = abs(math.atan2(b[1], b[0]) - math.atan2(a[1], a[0]))
    theta = min(theta, 2 * math.pi - theta)
    assert v.angle == pytest.approx(theta)
    assert v.degrees == pytest.approx(math.degrees(theta))
    assert v.cosine == pytest.approx(math.cos(theta))
    assert v.geometric == pytest.approx(v.dot)
    assert v.direction_a == pytest.approx(math.atan2(a[1], a[0]))
    assert v.direction_b == pytest.approx(math.atan2(b[1], b[0]))


def test_the_arrows_keep_lengths_and_angle_in_more_dimensions():
    """With one head (dₖ = 4) the arrows are drawn in the plane the query and key span."""
    example = load_example(ROOT / "tests/examples/two_tokens.toml", sections=["worked_example"])
    v = compute(example).worked_example.vectors
    we = example["worked_example"]
    head = we["heads"][0]
    q = we["X"][0] @ head["W_q"]
    keys = we["X"] @ head["W_k"]
    k = keys[np.argmax(keys @ q)]
    assert len(v.a) == len(v.b) == 2
    assert v.norm_a == pytest.approx(np.linalg.norm(q))
    assert v.norm_b == pytest.approx(np.linalg.norm(k))
    assert v.dot == pytest.approx(float(q @ k))


def test_row_by_column(example, values):
    cs = example["cat_sat"]
    q, k = cs["E"] @ cs["W_q"], cs["E"] @ cs["W_k"]
    r = values.cat_sat.row_by_column
    np.testing.assert_allclose(r.left, q)
    np.testing.assert_allclose(r.right_rows, k)
    np.testing.assert_allclose(r.transpose, np.transpose(k))
    n = len(q)
    expected = np.array([[sum(q[i, m] * k[j, m] for m in range(q.shape[1])) for j in range(n)] for i in range(n)])
    np.testing.assert_allclose(r.product, expected)
    np.testing.assert_allclose(r.product, np.matmul(q, k.T))
    for i in range(n):
        for j in range(n):
            np.testing.assert_allclose(r.terms[i, j], q[i] * k[j])
    assert (r.row, r.col) == (0, n - 1)
    np.testing.assert_allclose(r.entry_terms, q[0] * k[n - 1])
    assert r.entry == pytest.approx(float(np.dot(q[0], k[n - 1])))


def test_softmax_steps(example, values):
    sd = example["scaling_demo"]
    z = sd["keys"] @ sd["query"]
    s = values.scaling_demo.softmax_steps
    np.testing.assert_allclose(s.z, z)
    np.testing.assert_allclose(s.exp, [math.exp(x) for x in z])
    assert s.exp_sum == pytest.approx(sum(math.exp(x) for x in z))
    np.testing.assert_allclose(s.weights, [math.exp(x) / sum(math.exp(y) for y in z) for x in z])
    assert s.weight_sum == pytest.approx(1.0)
    assert (s.exp > 0).all() and (s.weights > 0).all()
