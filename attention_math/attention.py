"""Scaled dot-product attention, one step at a time, so every intermediate can be shown."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .types import AddNorm, Array, Head, MultiHead


def softmax(scores: Array) -> Array:
    """Row-wise softmax, stable for any finite scores (the row maximum is subtracted first)."""
    scores = np.asarray(scores, dtype=float)
    shifted = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights: Array = shifted / shifted.sum(axis=-1, keepdims=True)
    return weights


def softmax_jacobian(weights: Array) -> Array:
    """d softmax_i / d score_j = p_i (δ_ij − p_j) for one row of weights."""
    p = np.asarray(weights, dtype=float)
    jacobian: Array = np.diag(p) - np.outer(p, p)
    return jacobian


def matmul_terms(a: Array, b: Array) -> Array:
    """The products a[i, k]·b[k, j] behind every entry of a·b, shape (rows, cols, inner)."""
    return a[:, None, :] * b.T[None, :, :]


def partial_sums(terms: Array) -> Array:
    """Running sums of the terms along the last axis: the value an entry counts up through."""
    return np.cumsum(terms, axis=-1)


def query_angles(q: Array, k: Array) -> Array:
    """``angles[i, j]``: the angle from q_i to k_j, signed when d_k = 2, in [0, π] otherwise.

    |q_i|·|k_j|·cos(angle) is exactly the score q_i·k_j, so each pair can be drawn as two
    arrows in the plane it spans.
    """
    q_norms, k_norms = np.linalg.norm(q, axis=1), np.linalg.norm(k, axis=1)
    cosines = (q @ k.T) / np.maximum(np.outer(q_norms, k_norms), 1e-12)
    angles: Array = np.arccos(np.clip(cosines, -1.0, 1.0))
    if q.shape[1] == 2:
        cross = q[:, None, 0] * k[None, :, 1] - q[:, None, 1] * k[None, :, 0]
        angles = np.where(cross < 0, -angles, angles)
    return angles


def attend(x: Array, w_q: Array, w_k: Array, w_v: Array) -> Head:
    """One attention head on the rows of ``x``, with every intermediate value.

    Returns
    -------
    Head
        The projections Q K V, the scores QKᵀ and their scaled form, the exponentials,
        the row-wise softmax weights and the output weights·V; the products behind each
        entry and their running sums; each query against each key as angles and lengths.
    """
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    d_k = q.shape[1]
    scores = q @ k.T
    scaled = scores / np.sqrt(d_k)
    weights = softmax(scaled)
    exp_scores = np.exp(scaled)
    weighted = weights[:, :, None] * v[None, :, :]
    q_norms, k_norms = np.linalg.norm(q, axis=1), np.linalg.norm(k, axis=1)
    return Head(
        W_q=w_q,
        W_k=w_k,
        W_v=w_v,
        Q=q,
        K=k,
        V=v,
        Q_terms=matmul_terms(x, w_q),
        K_terms=matmul_terms(x, w_k),
        V_terms=matmul_terms(x, w_v),
        scores=scores,
        score_terms=matmul_terms(q, k.T),
        d_k=d_k,
        sqrt_d_k=float(np.sqrt(d_k)),
        scaled_scores=scaled,
        exp_scores=exp_scores,
        exp_sums=exp_scores.sum(axis=1),
        weights=weights,
        weight_sums=weights.sum(axis=1),
        weighted_values=weighted,
        output=weights @ v,
        Q_partial_sums=partial_sums(matmul_terms(x, w_q)),
        K_partial_sums=partial_sums(matmul_terms(x, w_k)),
        V_partial_sums=partial_sums(matmul_terms(x, w_v)),
        score_partial_sums=partial_sums(matmul_terms(q, k.T)),
        exp_partial_sums=partial_sums(exp_scores),
        output_partial_sums=np.cumsum(weighted, axis=1),
        query_norms=q_norms,
        key_norms=k_norms,
        qk_angles=query_angles(q, k),
        qk_degrees=np.degrees(np.abs(query_angles(q, k))),
    )


def multi_head(x: Array, heads: Sequence[Mapping[str, Array]], w_o: Array | None = None) -> MultiHead:
    """Every head on ``x`` (``heads``: each one's ``W_q W_k W_v``), their concatenation, and ``· w_o`` when given."""
    results = [attend(x, h["W_q"], h["W_k"], h["W_v"]) for h in heads]
    concat = np.concatenate([r.output for r in results], axis=1)
    return MultiHead(heads=results, concat=concat, W_O=w_o, output=concat if w_o is None else concat @ w_o)


def add_and_norm(x: Array, output: Array, eps: float = 1e-5) -> AddNorm:
    """A sub-layer's end in a transformer: its input added back (the residual), then each row shifted to mean 0 and
    scaled to spread 1 (layer norm, before its learned scale and shift; ``eps`` as PyTorch's default)."""
    residual = x + output
    mean = residual.mean(axis=1)
    spread = np.sqrt(residual.var(axis=1) + eps)
    return AddNorm(residual=residual, mean=mean, spread=spread, normed=(residual - mean[:, None]) / spread[:, None])
