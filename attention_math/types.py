"""The typed values of each example section: what a scene reads as ``self.values.<section>.<field>``.

Every record is a frozen dataclass. Field order is the order ``python -m attention_math`` prints
(and its JSON keeps), so a new field goes where it reads best in that listing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

import numpy as np
import numpy.typing as npt

#: A vector, matrix or stack of matrices of real numbers.
Array: TypeAlias = npt.NDArray[np.float64]
#: Whole numbers too large for a float to count exactly (token counts, bytes).
IntArray: TypeAlias = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Head:
    """One attention head on the rows of X, with every intermediate value (see ``attention.attend``).

    ``*_terms[i, j]`` are the products summed into entry (i, j) of their matrix and
    ``*_partial_sums`` their running sums; ``output_partial_sums[i, t]`` is the tip-to-tail
    path Σ_{j≤t} weights[i, j]·V[j]. The last six fields draw each query against each key:
    ``qk_angles[i, j]`` is the angle from q_i to k_j, and |q_i|·|k_j|·cos(angle) = scores[i, j].
    """

    W_q: Array
    W_k: Array
    W_v: Array
    Q: Array
    K: Array
    V: Array
    Q_terms: Array
    K_terms: Array
    V_terms: Array
    scores: Array  # QKᵀ
    score_terms: Array
    d_k: int
    sqrt_d_k: float
    scaled_scores: Array  # QKᵀ / √d_k
    exp_scores: Array  # e to each scaled score
    exp_sums: Array  # their row sums
    weights: Array  # row-wise softmax
    weight_sums: Array
    weighted_values: Array  # weights[i, j]·V[j]
    output: Array  # weights·V
    Q_partial_sums: Array
    K_partial_sums: Array
    V_partial_sums: Array
    score_partial_sums: Array
    exp_partial_sums: Array  # along each row of exp_scores
    output_partial_sums: Array
    query_norms: Array
    key_norms: Array
    qk_angles: Array  # signed when d_k = 2, in [0, π] otherwise
    qk_degrees: Array  # |qk_angles| in degrees, as the scenes say them


@dataclass(frozen=True)
class MultiHead:
    """Every head on X, their concatenation, and the output projection when the example gives one."""

    heads: list[Head]
    concat: Array
    W_O: Array | None
    output: Array  # concat, or concat·W_O


@dataclass(frozen=True)
class AddNorm:
    """Add & Norm after the heads: X plus the layer's output, then each row normalized (mean 0, spread 1)."""

    residual: Array  # X + output
    mean: Array  # each row's mean
    spread: Array  # each row's standard deviation (with layer norm's small epsilon)
    normed: Array  # (residual − mean) / spread, row by row


@dataclass(frozen=True)
class Alignment:
    """A query and a key drawn in the plane they span, and their dot product as the key turns.

    ``plane_query`` and ``plane_key`` are 2-D coordinates in an orthonormal basis of the span;
    ``angle_*`` are their directions there, in radians. ``aligned``, ``orthogonal`` and
    ``opposite`` are the dot products with the key along, across and against the query; ``stretched_*`` the key's
    length and the dot product once the key is ``stretch`` times as long.
    """

    query_token: int
    key_token: int
    query: Array
    key: Array
    plane_query: Array
    plane_key: Array
    norm_query: float
    norm_key: float
    angle_query: float
    angle_key: float
    dot: float
    cosine: float
    aligned: float
    orthogonal: float
    opposite: float
    stretch: int  # the key made this many times longer, same direction: its cosine stays, its dot product scales
    stretched_norm_key: float
    stretched_dot: float


@dataclass(frozen=True)
class VectorPair:
    """The tools chapter's two arrows: lengths, and the dot product by arithmetic and by geometry.

    ``dot`` is the sum of ``terms`` (matching entries multiplied); ``geometric`` = |a|·|b|·cos θ equals it.
    ``angle`` is θ in radians, in [0, π]; ``direction_*`` are where the arrows point, for drawing.
    """

    a: Array
    b: Array
    squares_a: Array  # a_i², summed under the square root of |a|
    squares_b: Array
    norm_a: float
    norm_b: float
    terms: Array  # a_i · b_i
    dot: float
    cosine: float
    angle: float
    degrees: float
    geometric: float  # |a|·|b|·cos θ
    direction_a: float
    direction_b: float


@dataclass(frozen=True)
class RowByColumn:
    """A matrix product row × column: ``product = left · transpose``, ``transpose = right_rowsᵀ``.

    ``terms[i, j]`` are the products summed into entry (i, j); ``row``, ``col`` name the entry worked out.
    """

    left: Array
    right_rows: Array
    transpose: Array
    product: Array
    terms: Array
    row: int
    col: int
    entry_terms: Array
    entry: float


@dataclass(frozen=True)
class SoftmaxSteps:
    """softmax(z) step by step: e to each entry, their sum, each exponential over the sum."""

    z: Array
    exp: Array
    exp_sum: float
    weights: Array
    weight_sum: float


@dataclass(frozen=True)
class MaskedHead:
    """A head with the causal mask: query i sees keys 0…i only, as a decoder generating left to right.

    ``visible[i, j]`` is True for j ≤ i; above the diagonal the score is −∞ before softmax,
    so its weight is exactly 0.
    """

    visible: npt.NDArray[np.bool_]
    scaled_scores: Array  # QKᵀ / √d_k, before the mask
    weights: Array
    output: Array


@dataclass(frozen=True)
class CrossAttention:
    """Queries from a decoder sentence, keys and values from the encoder's, through cross-attention's own
    W_q, W_k, W_v when the example gives them (``own_projections``), else head 1's."""

    decoder_tokens: list[str]
    decoder_X: Array  # noqa: N815
    Q: Array  # decoder_X · W_q
    K: Array  # X · W_k, the encoder's keys
    V: Array  # X · W_v, the encoder's values
    scores: Array  # n_decoder × n_encoder
    scaled_scores: Array
    weights: Array
    output: Array
    own_projections: bool = False


@dataclass(frozen=True)
class Permutation:
    """The tokens in another order through every head: the outputs move with their tokens, unchanged."""

    order: list[int]  # order[new position] = old position
    tokens: list[str]
    X: Array  # the rows of X in that order
    output: Array  # multi-head output of the shuffled X
    equivariant: bool  # output equals the original output in that order


@dataclass(frozen=True)
class InitialProjection:
    """A W_q as training starts: Glorot-uniform random entries in [-limit, limit], and the queries it makes."""

    W_q: Array
    Q: Array  # X · W_q
    limit: float  # √(6 / (d_model + d_k))


@dataclass(frozen=True)
class Variants:
    """Head 1 of the worked example masked, across two sentences, and on shuffled tokens."""

    masked: MaskedHead
    cross: CrossAttention | None  # None when the example gives no decoder sentence
    shuffled: Permutation


@dataclass(frozen=True)
class WorkedExample:
    """Section ``worked_example``: "I love apple phones" through every head, concatenated."""

    tokens: list[str]
    X: Array
    d_model: int
    h: int
    d_k: int
    heads: list[Head]
    concat: Array
    W_O: Array | None
    output: Array
    add_norm: AddNorm  # X added back to the output, each row then normalized
    T: int
    d_v: int
    alignment: Alignment  # the first query against the drawable key it matches best (head 1)
    variants: Variants  # head 1 masked, across two sequences, on shuffled tokens
    initial: InitialProjection  # a random W_q as a real model's training would start it
    vectors: VectorPair  # the alignment's query and key in their plane, as the tools chapter's arrows a and b


@dataclass(frozen=True)
class _TokenEmbeddings:
    """The leading fields of :class:`CatSat` (dataclasses order fields base-most first)."""

    tokens: list[str]
    E: Array


@dataclass(frozen=True)
class CatSat(Head, _TokenEmbeddings):
    """Section ``cat_sat``: the notes' one head on "the cat sat", its tokens and embeddings E first."""

    same_query_key: bool  # W_q = W_k, so every q_i·k_j = k_i·q_j
    scores_symmetric: bool  # QKᵀ equals its transpose
    row_by_column: RowByColumn  # Q·Kᵀ entry by entry, for the tools chapter
    shorter: Head  # the same head on the sentence without its last token: its words' rows of Z change with it


@dataclass(frozen=True)
class ScalingDemo:
    """Section ``scaling_demo``: raw scores q·k_j, then ÷√d_k, each through softmax."""

    query: Array
    keys: Array
    raw_terms: Array
    raw: Array
    d_k: int
    sqrt_d_k: float
    scaled: Array
    softmax_raw: Array
    softmax_scaled: Array
    raw_shifted: Array  # each raw score minus the largest (0 for the top): softmax gives the same weights
    scaled_shifted: Array  # the same ÷√d_k
    softmax_steps: SoftmaxSteps  # softmax of the raw scores step by step, for the tools chapter
    push: int  # the power of 2 the raw scores are first multiplied by for softmax to put SATURATED on one key
    softmax_pushed: Array  # softmax of the raw scores × push


@dataclass(frozen=True)
class VarianceDemo:
    """Section ``variance_demo``: dot products of random N(0, 1) vectors, raw and ÷√d_k."""

    dimensions: list[int]
    samples: int
    seed: int
    sqrt_dimensions: Array
    variance_raw: Array
    variance_scaled: Array
    max_abs_raw: Array
    entries: Array  # the first entries drawn for q at the smallest d_k: what "variance one" looks like


@dataclass(frozen=True)
class SaturationDemo:
    """Section ``saturation_demo``: the same scores multiplied up, softmax and its gradient."""

    scores: Array
    scales: Array
    scaled_scores: Array
    weights: Array
    max_weight: Array
    jacobians: Array
    gradient_norm: Array  # Frobenius norm of each Jacobian


@dataclass(frozen=True)
class Complexity:
    """Section ``complexity``: N² comparisons and the memory of one N×N attention matrix."""

    sequence_lengths: list[int]
    comparisons: IntArray
    bytes_per_weight: int
    memory_bytes: IntArray
    doubling_factor: int
    grid_lengths: list[int]
    grid_cells: list[int]


@dataclass(frozen=True)
class RnnDecay:
    """Section ``rnn_decay``: the source word's signal after each recurrent step."""

    tokens: list[str]
    source: int
    target: int
    retention: float
    steps: int
    signal: Array
    signal_at_target: float
    attention_path_length: int
    sequential_steps: int
    pairs: int


@dataclass(frozen=True)
class TrainStation:
    """Section ``train_station``: parameter-free self-attention over the blog post's sentence."""

    tokens: list[str]
    embeddings: Array
    d: int
    sqrt_d: float
    scores: Array
    scaled_scores: Array
    weights: Array
    output: Array
    focus: int
    strongest_other: int
    strongest: int  # the word the focus row weighs most, itself included
    focus_terms: Array  # weights[focus, j]·x_j, summed into output[focus]
