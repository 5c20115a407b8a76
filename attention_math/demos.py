"""The lesson's side demonstrations: scaling, variance, saturation, cost, RNN decay, meaning map."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import primer
from .attention import attend, softmax, softmax_jacobian
from .claims import SATURATED
from .model_types import SemanticShift, ShiftCase
from .types import (
    Alignment,
    Array,
    CatSat,
    Complexity,
    InitialProjection,
    RnnDecay,
    SaturationDemo,
    ScalingDemo,
    TrainStation,
    VarianceDemo,
)


def scaling_demo(query: Array, keys: Array) -> ScalingDemo:
    """Raw scores q·k_j, then ÷√d_k, each through softmax: saturated against balanced."""
    raw = keys @ query
    d_k = len(query)
    scaled = raw / np.sqrt(d_k)
    return ScalingDemo(
        query=query,
        keys=keys,
        raw_terms=keys * query,
        raw=raw,
        d_k=d_k,
        sqrt_d_k=float(np.sqrt(d_k)),
        scaled=scaled,
        softmax_raw=softmax(raw),
        softmax_scaled=softmax(scaled),
        # softmax(s) = softmax(s − max s): only these gaps decide the weights.
        raw_shifted=raw - raw.max(),
        scaled_shifted=scaled - scaled.max(),
        softmax_steps=primer.softmax_steps(raw),
        push=(push := saturating(raw)),
        softmax_pushed=softmax(raw * push),
    )


def saturating(scores: Array, doublings: int = 12) -> int:
    """The power of 2 that ``scores`` are first multiplied by for softmax to put ``SATURATED`` on one key: what
    "larger scores" do to softmax (1 if no doubling gets there, as with two tied top scores)."""
    return next((2**k for k in range(1, doublings + 1) if softmax(scores * 2**k).max() >= SATURATED), 1)


SHOWN_ENTRIES = 60  # random entries drawn as dots where variance is defined


def variance_demo(dimensions: list[int], samples: int, seed: int) -> VarianceDemo:
    """Dot products of random N(0, 1) vectors: variance ≈ d_k raw, ≈ 1 after ÷√d_k."""
    rng = np.random.default_rng(seed)
    var_raw: list[float] = []
    var_scaled: list[float] = []
    max_raw: list[float] = []
    entries: Array | None = None
    for d in dimensions:
        q = rng.standard_normal((samples, d))
        k = rng.standard_normal((samples, d))
        entries = q.ravel()[:SHOWN_ENTRIES] if entries is None else entries
        dots = np.einsum("sd,sd->s", q, k)
        var_raw.append(float(dots.var()))
        var_scaled.append(float((dots / np.sqrt(d)).var()))
        max_raw.append(float(np.abs(dots).max()))
    return VarianceDemo(
        dimensions=dimensions,
        samples=samples,
        seed=seed,
        sqrt_dimensions=np.sqrt(dimensions),
        variance_raw=np.array(var_raw),
        variance_scaled=np.array(var_scaled),
        max_abs_raw=np.array(max_raw),
        entries=np.asarray(entries),
    )


def saturation_demo(scores: Array, scales: Array) -> SaturationDemo:
    """The same scores multiplied up: softmax goes one-hot and its gradient vanishes."""
    scaled = scales[:, None] * scores[None, :]
    weights = softmax(scaled)
    jacobians = np.array([softmax_jacobian(w) for w in weights])
    return SaturationDemo(
        scores=scores,
        scales=scales,
        scaled_scores=scaled,
        weights=weights,
        max_weight=weights.max(axis=1),
        jacobians=jacobians,
        # Frobenius norm: one number for "how much the weights can still move".
        gradient_norm=np.linalg.norm(jacobians, axis=(1, 2)),
    )


def complexity(sequence_lengths: list[int], bytes_per_weight: int, grid_lengths: list[int]) -> Complexity:
    """N² comparisons and the memory of one N×N attention matrix."""
    n = np.array(sequence_lengths, dtype=np.int64)
    return Complexity(
        sequence_lengths=sequence_lengths,
        comparisons=n * n,
        bytes_per_weight=bytes_per_weight,
        memory_bytes=n * n * bytes_per_weight,
        # Doubling N multiplies the comparisons by (2N)² / N².
        doubling_factor=int((2 * n[0]) ** 2 // (n[0] ** 2)),
        grid_lengths=grid_lengths,
        grid_cells=[g * g for g in grid_lengths],
    )


def rnn_decay(tokens: list[str], source: int, target: int, retention: float) -> RnnDecay:
    """Signal of the source word after each recurrent step: retention^(steps since source)."""
    steps = np.arange(len(tokens)) - source
    signal = np.where(steps >= 0, retention ** np.clip(steps, 0, None), 0.0)
    return RnnDecay(
        tokens=tokens,
        source=source,
        target=target,
        retention=retention,
        steps=int(target - source),
        signal=signal,
        signal_at_target=float(signal[target]),
        # Self-attention links any two positions in one step, whatever their distance.
        attention_path_length=1,
        # An RNN reads one token per step; self-attention compares all pairs at once.
        sequential_steps=len(tokens),
        pairs=len(tokens) ** 2,
    )


MIN_DEMO_NORM = 1e-6  # a vector shorter than this has no direction to draw


def demo_key(query: Array, keys: Array) -> int | None:
    """The key the query matches best among those long enough to draw, or None when there is none."""
    drawable = np.flatnonzero(np.linalg.norm(keys, axis=1) >= MIN_DEMO_NORM)
    if np.linalg.norm(query) < MIN_DEMO_NORM or not len(drawable):
        return None
    return int(drawable[np.argmax(keys[drawable] @ query)])


STRETCH = 2  # the dot-not-cosine demo makes the key this many times longer


def alignment(query: Array, key: Array, *, query_token: int, key_token: int) -> Alignment:
    """A query and a key (of tokens ``query_token``, ``key_token``) drawn in the plane they span.

    ``plane_query`` and ``plane_key`` are 2-D coordinates in an orthonormal basis of the
    span (the vectors themselves when they are 2-D). ``aligned`` and ``opposite`` are the
    dot products when the key points along and against the query: ±|q||k|.
    """
    if len(query) == 2:
        plane_query, plane_key = query, key
    else:
        e1 = query / np.linalg.norm(query)
        rest = key - (key @ e1) * e1
        e2 = rest / np.linalg.norm(rest) if np.linalg.norm(rest) > 1e-12 else np.zeros_like(e1)
        plane_query, plane_key = np.array([query @ e1, 0.0]), np.array([key @ e1, key @ e2])
    norms = float(np.linalg.norm(query) * np.linalg.norm(key))
    return Alignment(
        query_token=query_token,
        key_token=key_token,
        query=query,
        key=key,
        plane_query=plane_query,
        plane_key=plane_key,
        norm_query=float(np.linalg.norm(query)),
        norm_key=float(np.linalg.norm(key)),
        # Directions in the plane, in radians (where to draw the arrows).
        angle_query=float(np.arctan2(plane_query[1], plane_query[0])),
        angle_key=float(np.arctan2(plane_key[1], plane_key[0])),
        dot=float(query @ key),
        cosine=float(query @ key) / norms,
        aligned=norms,
        orthogonal=0.0,
        opposite=-norms,
        stretch=STRETCH,
        stretched_norm_key=float(np.linalg.norm(STRETCH * key)),
        stretched_dot=float(query @ (STRETCH * key)),
    )


def initial_projection(X: Array, d_k: int, seed: int = 0) -> InitialProjection:  # noqa: N803
    """A W_q drawn as training starts it (Glorot uniform, seeded: the same for the same example), to the two
    places the screen shows, so that Q = X·W_q checks by hand from what is shown."""
    limit = float(np.sqrt(6.0 / (X.shape[1] + d_k)))
    drawn = np.random.default_rng(seed).uniform(-limit, limit, size=(X.shape[1], d_k))
    inside = np.floor(limit * 100) / 100  # rounding never carries an entry past the limit
    W_q = np.clip(np.round(drawn, 2), -inside, inside)  # noqa: N806
    return InitialProjection(W_q=W_q, Q=X @ W_q, limit=limit)


def dot_with_turned_key(alignment: Alignment, key_angle: float) -> float:
    """The dot product of an ``alignment``'s query with its key turned to ``key_angle`` (length kept)."""
    return alignment.norm_query * alignment.norm_key * float(np.cos(key_angle - alignment.angle_query))


def train_station(tokens: list[str], embeddings: Array, focus: int) -> TrainStation:
    """Parameter-free self-attention of the blog post: softmax(x_i·x_j / √d) over the sentence."""
    d = embeddings.shape[1]
    eye = np.eye(d)
    head = attend(embeddings, eye, eye, eye)
    others = head.weights[focus].copy()
    others[focus] = -np.inf
    return TrainStation(
        tokens=tokens,
        embeddings=embeddings,
        d=d,
        sqrt_d=head.sqrt_d_k,
        scores=head.scores,
        scaled_scores=head.scaled_scores,
        weights=head.weights,
        output=head.output,
        focus=focus,
        strongest_other=int(np.argmax(others)),
        strongest=int(np.argmax(head.weights[focus])),
        focus_terms=head.weighted_values[focus],
    )


def semantic_shift(
    words: dict[str, Array],
    clusters: dict[str, list[str]],
    sentences: list[dict[str, Any]],
    head: int,
    W_q: Array,  # noqa: N803
    W_k: Array,  # noqa: N803
) -> SemanticShift:
    """Each focus word's move on the 2-D meaning map, weighted by one head of the worked example.

    The head reads the sentence's rows of d_model numbers, and its softmax(q·kᵀ/√d_k) row of the focus
    word weighs the words' places on the map: the new place is Σ_j α_j p_j, the weighted sum of
    step 8 with the map's places as the values. The path visits the partial sums
    before + Σ_{j≤t} α_j (p_j − before), one pull per word.
    """
    points = {name: np.array([words[w] for w in members]) for name, members in clusters.items()}
    centroids = {name: p.mean(axis=0) for name, p in points.items()}
    cases = [_shift_case(words, centroids, s["tokens"], s["focus"], s["X"], (W_q, W_k)) for s in sentences]
    return SemanticShift(
        words=words, cluster_words=clusters, clusters=points, centroids=centroids, cases=cases, head=head
    )


def _shift_case(
    words: dict[str, Array], centroids: dict[str, Array], tokens: list[str], i: int, x: Array, wqk: tuple[Array, Array]
) -> ShiftCase:
    """Token ``i``'s move in one sentence (input rows ``x``, read by the head's ``W_q`` and ``W_k``), and its
    distance to each centroid."""
    q, k = x @ wqk[0], x @ wqk[1]

    def distances(p: Array) -> dict[str, float]:
        return {name: float(np.linalg.norm(p - c)) for name, c in centroids.items()}

    places = np.array([words[w] for w in tokens])
    weights = softmax(k @ q[i] / np.sqrt(q.shape[1]))
    before, after = places[i], weights @ places
    pulls = weights[:, None] * (places - before)
    return ShiftCase(
        sentence=" ".join(tokens),
        tokens=tokens,
        word=tokens[i],
        focus=i,
        rows=x,
        positions=places,
        weights=weights,
        pulls=pulls,
        path=before + np.cumsum(np.vstack([np.zeros(2), pulls]), axis=0),
        before=before,
        after=after,
        distance_before=distances(before),
        distance_after=distances(after),
    )


def cat_sat(tokens: list[str], E: Array, W_q: Array, W_k: Array, W_v: Array) -> CatSat:  # noqa: N803
    """The notes' example: one head on "the cat sat"; with W_q = W_k its scores are symmetric."""
    head = attend(E, W_q, W_k, W_v)
    return CatSat(
        tokens=tokens,
        E=E,
        **vars(head),
        same_query_key=bool(np.array_equal(W_q, W_k)),
        scores_symmetric=bool(np.allclose(head.scores, head.scores.T)),
        row_by_column=primer.row_by_column(head.Q, head.K),
        shorter=attend(E[:-1], W_q, W_k, W_v),
    )
