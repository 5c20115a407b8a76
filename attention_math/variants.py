"""Head 1 of the worked example in three variants: masked (causal), across two sentences, on shuffled tokens."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .attention import multi_head, softmax
from .types import Array, CrossAttention, MaskedHead, Permutation, Variants


def masked(x: Array, w_q: Array, w_k: Array, w_v: Array) -> MaskedHead:
    """Self-attention where token i may look only at tokens 0…i: −∞ above the diagonal, then softmax."""
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scaled = q @ k.T / np.sqrt(q.shape[1])
    visible = np.tril(np.ones(scaled.shape, dtype=bool))
    weights = softmax(np.where(visible, scaled, -np.inf))
    return MaskedHead(visible=visible, scaled_scores=scaled, weights=weights, output=weights @ v)


def cross(
    decoder_tokens: list[str], decoder_x: Array, x: Array, w_q: Array, w_k: Array, w_v: Array, own: bool = False
) -> CrossAttention:
    """Queries from the decoder's rows, keys and values from the encoder's: softmax(Q Kᵀ/√d_k) V (``own``: the
    projections are cross-attention's own, not head 1's)."""
    q, k, v = decoder_x @ w_q, x @ w_k, x @ w_v
    scores = q @ k.T
    scaled = scores / np.sqrt(q.shape[1])
    weights = softmax(scaled)
    return CrossAttention(
        decoder_tokens=decoder_tokens,
        decoder_X=decoder_x,
        Q=q,
        K=k,
        V=v,
        scores=scores,
        scaled_scores=scaled,
        weights=weights,
        output=weights @ v,
        own_projections=own,
    )


def shuffled(
    tokens: list[str], x: Array, heads: Sequence[Mapping[str, Array]], w_o: Array | None, output: Array
) -> Permutation:
    """Every head on the tokens in reverse order; ``output`` is the multi-head output in the original order."""
    order = list(range(len(tokens)))[::-1]
    moved = multi_head(x[order], heads, w_o).output
    return Permutation(
        order=order,
        tokens=[tokens[i] for i in order],
        X=x[order],
        output=moved,
        equivariant=bool(np.allclose(moved, output[order])),
    )


def variants(
    tokens: list[str],
    x: Array,
    heads: Sequence[Mapping[str, Array]],
    w_o: Array | None,
    output: Array,
    decoder: tuple[list[str], Array, Mapping[str, Array] | None] | None,
) -> Variants:
    """Head 1 masked and (when the example gives a decoder sentence: its tokens, rows and perhaps its own
    projections) across sentences; every head on the shuffled tokens."""
    first = heads[0]
    w = (first["W_q"], first["W_k"], first["W_v"])
    across = None
    if decoder is not None:
        words, rows, own = decoder
        p = own or first  # cross-attention's own projections, or head 1's
        across = cross(words, rows, x, p["W_q"], p["W_k"], p["W_v"], own=own is not None)
    return Variants(
        masked=masked(x, *w),
        cross=across,
        shuffled=shuffled(tokens, x, heads, w_o, output),
    )
