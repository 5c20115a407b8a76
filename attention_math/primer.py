"""The tools chapter's values: two arrows and their dot product, a matrix product, eˣ and softmax.

Computed from sections the lesson already has (no section of its own): the worked example's query and
key in the plane they span, the cat-sat queries and keys, the scaling demo's two raw scores.
"""

from __future__ import annotations

import numpy as np

from .attention import softmax
from .types import Array, RowByColumn, SoftmaxSteps, VectorPair


def vector_pair(a: Array, b: Array) -> VectorPair:
    """Two vectors, their lengths, and their dot product by arithmetic and by geometry.

    ``a·b = Σ a_i b_i`` (the ``terms`` added up) ``= |a|·|b|·cos θ``, θ the angle from ``a`` to ``b``.
    Both must have a length (the loader refuses an example whose demo vectors have none).
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    norm_a, norm_b = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    dot = float(a @ b)
    cosine = float(np.clip(dot / (norm_a * norm_b), -1.0, 1.0))
    angle = float(np.arccos(cosine))
    return VectorPair(
        a=a,
        b=b,
        squares_a=a * a,
        squares_b=b * b,
        norm_a=norm_a,
        norm_b=norm_b,
        terms=a * b,
        dot=dot,
        cosine=cosine,
        angle=angle,
        degrees=float(np.degrees(angle)),
        geometric=norm_a * norm_b * cosine,
        direction_a=float(np.arctan2(a[1], a[0])),
        direction_b=float(np.arctan2(b[1], b[0])),
    )


def row_by_column(left: Array, right_rows: Array) -> RowByColumn:
    """``left · right_rowsᵀ``: entry (i, j) is row i of ``left`` dotted with row j of ``right_rows``.

    The entry worked out by hand is the first row's against the last row's (it exists for any size).
    """
    transpose = right_rows.T
    terms = left[:, None, :] * right_rows[None, :, :]  # terms[i, j, k] = left[i, k] · right_rows[j, k]
    row, col = 0, right_rows.shape[0] - 1
    return RowByColumn(
        left=left,
        right_rows=right_rows,
        transpose=transpose,
        product=left @ transpose,
        terms=terms,
        row=row,
        col=col,
        entry_terms=terms[row, col],
        entry=float(left[row] @ right_rows[col]),
    )


def softmax_steps(z: Array) -> SoftmaxSteps:
    """softmax(z)_i = e^{z_i} / Σ_j e^{z_j}, step by step: the exponentials, their sum, the weights."""
    exp = np.exp(z)
    weights = softmax(z)
    return SoftmaxSteps(z=z, exp=exp, exp_sum=float(exp.sum()), weights=weights, weight_sum=float(weights.sum()))
