"""Scaled dot-product attention, one step at a time, so every intermediate can be shown."""

from __future__ import annotations

import numpy as np


def softmax(scores: np.ndarray) -> np.ndarray:
    """Row-wise softmax, stable for any finite scores (the row maximum is subtracted first)."""
    scores = np.asarray(scores, dtype=float)
    shifted = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return shifted / shifted.sum(axis=-1, keepdims=True)


def softmax_jacobian(weights: np.ndarray) -> np.ndarray:
    """d softmax_i / d score_j = p_i (δ_ij − p_j) for one row of weights."""
    p = np.asarray(weights, dtype=float)
    return np.diag(p) - np.outer(p, p)


def matmul_terms(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The products a[i, k]·b[k, j] behind every entry of a·b, shape (rows, cols, inner)."""
    return a[:, None, :] * b.T[None, :, :]


def attend(x: np.ndarray, w_q: np.ndarray, w_k: np.ndarray, w_v: np.ndarray) -> dict[str, np.ndarray]:
    """One attention head on the rows of ``x``, with every intermediate value.

    Returns
    -------
    dict
        ``Q K V`` (projections), ``*_terms`` (the products summed into each of their
        entries), ``scores`` = QKᵀ, ``score_terms``, ``d_k``, ``sqrt_d_k``,
        ``scaled_scores`` = scores/√d_k, ``exp_scores`` (e to each scaled score),
        ``exp_sums`` (their row sums), ``weights`` (row-wise softmax),
        ``weighted_values`` (weights[i, j]·V[j]) and ``output`` = weights·V.
    """
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    d_k = q.shape[1]
    scores = q @ k.T
    scaled = scores / np.sqrt(d_k)
    weights = softmax(scaled)
    exp_scores = np.exp(scaled)
    return {
        "W_q": w_q,
        "W_k": w_k,
        "W_v": w_v,
        "Q": q,
        "K": k,
        "V": v,
        "Q_terms": matmul_terms(x, w_q),
        "K_terms": matmul_terms(x, w_k),
        "V_terms": matmul_terms(x, w_v),
        "scores": scores,
        "score_terms": matmul_terms(q, k.T),
        "d_k": d_k,
        "sqrt_d_k": float(np.sqrt(d_k)),
        "scaled_scores": scaled,
        "exp_scores": exp_scores,
        "exp_sums": exp_scores.sum(axis=1),
        "weights": weights,
        "weight_sums": weights.sum(axis=1),
        "weighted_values": weights[:, :, None] * v[None, :, :],
        "output": weights @ v,
    }


def multi_head(x: np.ndarray, heads: list[dict[str, np.ndarray]], w_o: np.ndarray | None = None) -> dict:
    """Every head on ``x``, their concatenation, and the output projection when given."""
    results = [attend(x, h["W_q"], h["W_k"], h["W_v"]) for h in heads]
    concat = np.concatenate([r["output"] for r in results], axis=1)
    return {
        "heads": results,
        "concat": concat,
        "W_O": w_o,
        "output": concat if w_o is None else concat @ w_o,
    }
