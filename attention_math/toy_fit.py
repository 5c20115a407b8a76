"""Fitting the toy example to a real model (numpy only): X by PCA, W_q and W_k to a real head's weights.

The toy head's weights softmax(X W_q W_kᵀ Xᵀ/√d_k) are fitted to a real head's word-level weights
(:mod:`attention_math.word_attention`): a least-squares start on the log-weights, a rank-d_k
factorisation, Adam on the cross-entropy, then rounding to one decimal and a search of ±0.1 steps
that lowers the mean absolute weight difference the file reports. Everything is deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .types import Array
from .word_attention import toy_weights

#: X's entries span about ±SPREAD once projected: one-decimal numbers that stay legible.
SPREAD = 1.5
STEPS = 2000
RATE = 0.02
FLOOR = 1e-4  # weights below this count as this much in the least-squares start (log of 0 is -inf)
SWEEPS = 6  # passes of the search after rounding
STEPS_TRIED = (0.1, -0.1, 0.2, -0.2)  # what the search adds to one entry at a time
#: W_q and W_k entries stay within ±LIMIT: short numbers on screen, scores far from overflow.
LIMIT = 3.0
RIDGE = 0.5  # W_v's ridge: a few words cannot pin d_model × d_k numbers down, so keep them small


def project(vectors: Array, reference: Array, d_model: int) -> tuple[Array, Array, Array]:
    """The rows of ``vectors`` on the first ``d_model`` principal axes of ``vectors`` and ``reference``.

    Returns
    -------
    rows, mean, axes
        rows: one per vector, each axis scaled so its largest entry is :data:`SPREAD`, one decimal;
        mean and axes (d_model × dimension, already scaled): ``rows ≈ (v - mean) @ axes.T``.
        Each axis's sign is fixed (its largest loading positive) so every run gives the same rows.
    """
    both = np.vstack([vectors, reference])
    mean = both.mean(axis=0)
    _, _, vt = np.linalg.svd(both - mean, full_matrices=False)
    axes = vt[:d_model] * np.sign(vt[:d_model][np.arange(d_model), np.abs(vt[:d_model]).argmax(axis=1)])[:, None]
    scale = SPREAD / np.abs((vectors - mean) @ axes.T).max(axis=0)  # each axis spans ±SPREAD on the sentence
    return place(vectors, mean, axes * scale[:, None]), mean, axes * scale[:, None]


def place(vectors: Array, mean: Array, axes: Array) -> Array:
    """Vectors on fitted axes (see :func:`project`), rounded to one decimal."""
    return np.round((np.atleast_2d(vectors) - mean) @ axes.T, 1) + 0.0


def _start(cases: Sequence[tuple[Array, Array]], d_k: int) -> tuple[Array, Array]:
    """Least squares on the row-centred log-weights (X M Xᵀ ≈ log A), then M's best rank-d_k factors."""
    lhs = np.vstack([np.kron(x, x) for x, _ in cases])  # vec(X M Xᵀ) = (X ⊗ X) vec(M), row-major
    logs = [np.log(np.clip(t, FLOOR, None)) for _, t in cases]
    rhs = np.concatenate([(g - g.mean(axis=1, keepdims=True)).ravel() for g in logs])
    d = cases[0][0].shape[1]
    m = np.linalg.lstsq(lhs, rhs, rcond=None)[0].reshape(d, d) * np.sqrt(d_k)
    u, s, vt = np.linalg.svd(m)
    w_q, w_k = u[:, :d_k] * np.sqrt(s[:d_k]), vt[:d_k].T * np.sqrt(s[:d_k])
    shrink = min(1.0, LIMIT / max(np.abs(w_q).max(), np.abs(w_k).max(), 1e-12))
    return w_q * shrink, w_k * shrink


def _gradients(cases: Sequence[tuple[Array, Array]], w_q: Array, w_k: Array) -> tuple[Array, Array]:
    """The cross-entropy's gradients (rows averaged, cases summed) with respect to W_q and W_k."""
    c = np.sqrt(w_q.shape[1])
    g_q, g_k = np.zeros_like(w_q), np.zeros_like(w_k)
    for x, target in cases:
        g = (toy_weights(x, w_q, w_k) - target) / len(target) / c
        g_q += x.T @ g @ x @ w_k
        g_k += x.T @ g.T @ x @ w_q
    return g_q, g_k


def _adam(cases: Sequence[tuple[Array, Array]], w_q: Array, w_k: Array) -> tuple[Array, Array]:
    params = [w_q.copy(), w_k.copy()]
    first = [np.zeros_like(p) for p in params]
    second = [np.zeros_like(p) for p in params]
    for t in range(1, STEPS + 1):
        for i, g in enumerate(_gradients(cases, *params)):
            first[i] = 0.9 * first[i] + 0.1 * g
            second[i] = 0.999 * second[i] + 0.001 * g**2
            step = (first[i] / (1 - 0.9**t)) / (np.sqrt(second[i] / (1 - 0.999**t)) + 1e-8)
            params[i] = np.clip(params[i] - RATE * step, -LIMIT, LIMIT)
    return params[0], params[1]


def mean_error(cases: Sequence[tuple[Array, Array]], w_q: Array, w_k: Array) -> float:
    """The mean absolute weight difference over every row of every case."""
    gaps = [np.abs(toy_weights(x, w_q, w_k) - t) for x, t in cases]
    return float(np.concatenate([g.ravel() for g in gaps]).mean())


def _rounded(cases: Sequence[tuple[Array, Array]], w_q: Array, w_k: Array) -> tuple[Array, Array]:
    """Rounded to one decimal, then each entry moved ±0.1 while that lowers :func:`mean_error`."""
    params = [np.round(w_q, 1), np.round(w_k, 1)]
    best = mean_error(cases, *params)
    for _ in range(SWEEPS):
        improved = False
        for w in params:
            for index in np.ndindex(w.shape):
                for step in STEPS_TRIED:
                    if abs(w[index] + step) > LIMIT + 1e-9:
                        continue
                    w[index] = np.round(w[index] + step, 1)
                    error = mean_error(cases, *params)
                    if error < best - 1e-12:
                        best, improved = error, True
                    else:
                        w[index] = np.round(w[index] - step, 1)
        if not improved:
            break
    return params[0] + 0.0, params[1] + 0.0


def fit_head(cases: Sequence[tuple[Array, Array]], d_k: int) -> tuple[Array, Array]:
    """W_q and W_k (d_model × d_k, one decimal) whose toy weights on each case's rows X match its target.

    Parameters
    ----------
    cases
        (X, target weights) pairs sharing one head: the worked sentence, and the contrast sentence
        for the head that moves the meaning map.
    d_k
        Columns of W_q and W_k.
    """
    w_q, w_k = _start(cases, d_k)
    return _rounded(cases, *_adam(cases, w_q, w_k))


def fit_values(x: Array, values: Array, d_k: int) -> Array:
    """W_v (d_model × d_k, one decimal): X W_v ≈ the real head's value vectors on their first d_k principal
    axes, scaled like X, so each toy value keeps the direction the real head gives that word most."""
    centred = values - values.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    axes = vt[:d_k] * np.sign(vt[:d_k][np.arange(d_k), np.abs(vt[:d_k]).argmax(axis=1)])[:, None]
    target = centred @ axes.T
    target *= SPREAD / np.abs(target).max()
    ridge = RIDGE * np.eye(x.shape[1])
    w_v = np.linalg.solve(x.T @ x + ridge, x.T @ target)
    return np.asarray(np.round(np.clip(w_v, -LIMIT, LIMIT), 1) + 0.0, dtype=float)
