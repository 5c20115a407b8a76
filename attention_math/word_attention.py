"""A real model's attention read over whole words (numpy only): word pieces pooled, [CLS]/[SEP] left out.

Used by ``new-example --from-model`` to choose and fit the toy heads, and by the loader to measure,
from the model-data file, how closely the worked example's heads reproduce the real ones.
"""

from __future__ import annotations

import unicodedata

import numpy as np

from .attention import softmax
from .types import Array

#: A head that gives on average this much of a word's attention to [CLS]/[SEP] says little about the words.
SPECIAL_MAX = 0.5
#: A head that gives on average this much to one fixed neighbour (previous, itself, next) reads position.
POSITIONAL_MAX = 0.5
OFFSETS = (-1, 0, 1)


def _plain(text: str) -> str:
    """What an uncased WordPiece tokenizer keeps of ``text``: lower case, accents stripped, no spaces."""
    decomposed = unicodedata.normalize("NFD", text.lower())
    return "".join(c for c in decomposed if unicodedata.category(c) != "Mn" and not c.isspace())


def word_spans(pieces: list[str], text: str) -> list[list[int]] | None:
    """For each space-separated word of ``text``, the indices of its pieces (``None`` if they do not spell it).

    ``pieces`` are the tokenizer's, [CLS] first and [SEP] last; a continuation piece starts with ``##``.
    """
    spans: list[list[int]] = []
    at = 1
    for word in text.split():
        want, got, span = _plain(word), "", []
        while at < len(pieces) - 1 and len(got) < len(want):
            got += pieces[at].removeprefix("##")
            span.append(at)
            at += 1
        if got != want or not span:
            return None
        spans.append(span)
    return spans if at == len(pieces) - 1 else None


def word_level(attention: Array, spans: list[list[int]]) -> tuple[Array, Array]:
    """Attention between whole words and the share that went elsewhere.

    Parameters
    ----------
    attention
        layers × heads × pieces × pieces, rows summing to 1.
    spans
        Each word's pieces (:func:`word_spans`).

    Returns
    -------
    weights, special
        weights: layers × heads × words × words: a word's weight on another is the sum over the other's
        pieces, averaged over its own pieces, and each row renormalised to 1 over the sentence's words.
        special: layers × heads: the share each head gave to [CLS]/[SEP], averaged over the words.
    """
    n = len(spans)
    pooled = np.zeros((*attention.shape[:2], n, n))
    for a, rows in enumerate(spans):
        for b, cols in enumerate(spans):
            pooled[:, :, a, b] = attention[:, :, rows][:, :, :, cols].sum(axis=-1).mean(axis=-1)
    kept = pooled.sum(axis=-1, keepdims=True)
    weights = np.divide(pooled, kept, out=np.full_like(pooled, 1.0 / n), where=kept > 0)  # nothing kept: uniform
    return weights, 1.0 - kept[..., 0].mean(axis=-1)


def offset_share(weights: Array) -> Array:
    """Per head: the largest mean weight a word gives to one fixed offset (previous word, itself, next)."""
    n = weights.shape[-1]
    shares = [np.mean([weights[..., i, i + o] for i in range(n) if 0 <= i + o < n], axis=0) for o in OFFSETS]
    return np.asarray(np.max(shares, axis=0), dtype=float)


def content_heads(weights: Array, special: Array) -> list[tuple[int, int]]:
    """(layer, head) from 0 of the heads that relate words by content: neither [CLS]/[SEP]-dominated
    (:data:`SPECIAL_MAX`) nor positional (:data:`POSITIONAL_MAX`), in layer-then-head order."""
    keep = (special < SPECIAL_MAX) & (offset_share(weights) < POSITIONAL_MAX)
    return [(int(layer), int(head)) for layer, head in zip(*np.nonzero(keep), strict=True)]


def sharpness(weights: Array) -> float:
    """How hard a head's words look at one other word: the mean over rows of the largest off-diagonal weight."""
    others = weights.copy()
    np.fill_diagonal(others, 0.0)
    return float(others.max(axis=1).mean())


def toy_weights(x: Array, w_q: Array, w_k: Array) -> Array:
    """A toy head's weights softmax(QKᵀ/√d_k) on rows ``x``."""
    return softmax((x @ w_q) @ (x @ w_k).T / np.sqrt(w_q.shape[1]))


def fit_error(toy: Array, real: Array) -> tuple[float, float]:
    """The mean and the largest absolute difference between two weight matrices."""
    gap = np.abs(np.asarray(toy) - np.asarray(real))
    return float(gap.mean()), float(gap.max())
