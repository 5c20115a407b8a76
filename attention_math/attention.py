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


def partial_sums(terms: np.ndarray) -> np.ndarray:
    """Running sums of the terms along the last axis: the value an entry counts up through."""
    return np.cumsum(terms, axis=-1)


def query_view(q: np.ndarray, k: np.ndarray) -> dict[str, np.ndarray]:
    """Each query against each key as two arrows in the plane the pair spans.

    ``qk_angles[i, j]`` is the angle from q_i to k_j (signed when d_k = 2, in [0, π]
    otherwise), so |q_i|·|k_j|·cos(angle) is exactly the score q_i·k_j; ``aligned_dots``
    and ``opposite_dots`` are the scores the pair would have pointing the same or
    opposite ways (orthogonal: 0).
    """
    q_norms, k_norms = np.linalg.norm(q, axis=1), np.linalg.norm(k, axis=1)
    cosines = (q @ k.T) / np.maximum(np.outer(q_norms, k_norms), 1e-12)
    angles = np.arccos(np.clip(cosines, -1.0, 1.0))
    if q.shape[1] == 2:
        cross = q[:, None, 0] * k[None, :, 1] - q[:, None, 1] * k[None, :, 0]
        angles = np.where(cross < 0, -angles, angles)
    aligned = np.outer(q_norms, k_norms)
    return {
        "query_norms": q_norms,
        "key_norms": k_norms,
        "qk_angles": angles,
        "aligned_dots": aligned,
        "orthogonal_dot": 0.0,
        "opposite_dots": -aligned,
    }


def attend(x: np.ndarray, w_q: np.ndarray, w_k: np.ndarray, w_v: np.ndarray) -> dict[str, np.ndarray]:
    """One attention head on the rows of ``x``, with every intermediate value.

    Returns
    -------
    dict
        ``Q K V`` (projections), ``*_terms`` (the products summed into each of their
        entries), ``scores`` = QKᵀ, ``score_terms``, ``d_k``, ``sqrt_d_k``,
        ``scaled_scores`` = scores/√d_k, ``exp_scores`` (e to each scaled score),
        ``exp_sums`` (their row sums), ``weights`` (row-wise softmax),
        ``weighted_values`` (weights[i, j]·V[j]), ``output`` = weights·V; the running
        sums ``*_partial_sums`` (of each ``*_terms``, of ``exp_scores`` along a row, and
        ``output_partial_sums``: the tip-to-tail path Σ_{j≤t} weights[i, j]·V[j]); and
        the :func:`query_view` of Q against K.
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
        "Q_partial_sums": partial_sums(matmul_terms(x, w_q)),
        "K_partial_sums": partial_sums(matmul_terms(x, w_k)),
        "V_partial_sums": partial_sums(matmul_terms(x, w_v)),
        "score_partial_sums": partial_sums(matmul_terms(q, k.T)),
        "exp_partial_sums": partial_sums(exp_scores),
        "output_partial_sums": np.cumsum(weights[:, :, None] * v[None, :, :], axis=1),
        **query_view(q, k),
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
