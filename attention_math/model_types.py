"""The typed values of the meaning map and the real model: ``semantic_shift`` and ``real_model``.

Frozen dataclasses like those of :mod:`attention_math.types`, in the order ``python -m attention_math`` prints.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .types import Array


@dataclass(frozen=True)
class ShiftCase:
    """One sentence of ``semantic_shift``: its focus word's move on the meaning map."""

    sentence: str
    tokens: list[str]
    word: str
    focus: int
    rows: Array  # the sentence's input rows, d_model numbers per token: what the head reads
    positions: Array
    weights: Array
    pulls: Array
    path: Array  # before, then the partial sums of the pulls
    before: Array
    after: Array
    distance_before: dict[str, float]
    distance_after: dict[str, float]


@dataclass(frozen=True)
class SemanticShift:
    """Section ``semantic_shift``: the meaning map and each sentence's shift."""

    words: dict[str, Array]
    cluster_words: dict[str, list[str]]
    clusters: dict[str, Array]
    centroids: dict[str, Array]
    cases: list[ShiftCase]
    head: int  # the worked example's head (from 1) whose weights move the words


@dataclass(frozen=True)
class Placement:
    """A word's vector placed on the 2-D map, with its cosine similarity to each cluster's centroid."""

    pieces: list[str]
    point: Array
    cosines: dict[str, float]
    nearest: str


@dataclass(frozen=True)
class RealSentence:
    """One sentence through the real model: its pieces, attention, placement and featured head."""

    text: str
    pieces: list[str]
    focus_pieces: list[int]
    attention: Array  # layers × heads × pieces × pieces
    point: Array
    cosines: dict[str, float]
    nearest: str
    context_pieces: list[int]
    featured: tuple[int, int]  # (layer, head): the content head in which the focus word looks hardest at one word
    positional: tuple[int, int] | None  # (layer, head) that reads a fixed neighbour most plainly, if one does
    featured_row: Array
    featured_strongest: int
    special_share: float  # of the focus word's attention, to [CLS] and [SEP]: averaged over every layer and head
    special_shares: Array  # the same share in each head, layers × heads
    parking_heads: int  # heads in which that share is more than half (claims.parking)


@dataclass(frozen=True)
class ModelSize:
    """A model's width d_model and head count; each head reads all d_model numbers and writes d_k."""

    name: str
    d_model: int
    heads: int
    d_k: int  # d_model / heads
    sqrt_d_k: float


@dataclass(frozen=True)
class ToyFit:
    """How closely a worked-example head reproduces the real head it was fitted to, on the first sentence's
    words (the real head's weights pooled over pieces, [CLS]/[SEP] left out, rows renormalised)."""

    toy_head: int  # from 1, as the lesson names heads
    layer: int  # the real head's layer and head, from 1
    head: int
    mean_abs_diff: float
    max_abs_diff: float


@dataclass(frozen=True)
class RealModel:
    """Section ``real_model``: what the "A real transformer" scenes show from the model-data file."""

    model: str
    data_file: str
    hidden_size: int
    layers: int
    heads: int
    head_count: int
    focus: str
    sentences: list[RealSentence]
    alone: Placement
    cluster_words: dict[str, list[str]]
    cluster_points: dict[str, Array]
    centroid_points: dict[str, Array]
    sizes: list[ModelSize]  # the original Transformer's, then this model's
    toy_fits: list[ToyFit] = field(default_factory=list)  # with [real_model] toy_heads (new-example --from-model)
