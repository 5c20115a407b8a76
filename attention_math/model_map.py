"""The meaning map from a model's vectors (numpy only): which word to follow, its two meanings as clusters
of common words, and every word's 2-D place. ``new-example --from-model`` feeds it MiniLM's vectors."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .types import Array

#: Common words from many domains: the reference vocabulary of X's projection and the pool of cluster words.
COMMON_WORDS = tuple(
    """money loan cash credit price market account tax payment salary
    river lake water shore stream forest mud hill beach fish
    bread cheese fruit banana grape cherry soup rice sugar cake
    laptop tablet computer software internet keyboard screen camera android phone
    dog cat horse bird cow lion mouse snake bat duck
    football tennis golf game team ball match player coach goal
    song guitar piano drum concert band rock note singer dance
    doctor hospital heart blood medicine nurse pain bone skin fever
    rain snow wind storm cloud sun ice fog heat thunder
    train car plane bus ship road airport station ticket hotel
    teacher student book lesson exam class pencil library paper school
    house kitchen bed door window chair table garden roof wall
    shirt dress shoe hat coat jacket sock tie belt ring
    court judge law police crime vote king army war prison""".split()  # noqa: SIM905  (ten words a line, by domain)
)
CLUSTER_SIZE = 3
CANDIDATES = 24  # words nearest the focus word (cosine, in either reading) that may join a cluster
#: The map's cluster words span about ±REACH on the first axis (the default map's scale).
REACH = 3.2


@dataclass(frozen=True)
class MeaningMap:
    """The map's words and places, its two clusters (the sentence's meaning first), and the focus word."""

    focus: str
    clusters: dict[str, list[str]]
    places: dict[str, tuple[float, float]]


def cosine(a: Array, b: Array) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def most_moved(candidates: Sequence[str], here: Callable[[str], Array], there: Callable[[str], Array]) -> str:
    """The candidate whose vector differs most (lowest cosine) between two readings; ties keep the first."""
    return min(candidates, key=lambda w: cosine(here(w), there(w)))


def clusters_for(
    here: Array, there: Array, alone: Callable[[str], Array], exclude: set[str], names: Sequence[str] = ()
) -> dict[str, list[str]]:
    """Two clusters of :data:`COMMON_WORDS`: of the :data:`CANDIDATES` words nearest the focus word in either
    reading, those the model finds more like it ``here`` than ``there`` (cos(w, here) − cos(w, there)
    largest), then the reverse; each named by its most typical
    member (nearest its centroid) unless ``names`` gives two names."""
    near = {w: max(cosine(alone(w), here), cosine(alone(w), there)) for w in COMMON_WORDS if w not in exclude}
    pool = sorted(near, key=lambda w: (-near[w], w))[:CANDIDATES]
    lean = {w: cosine(alone(w), here) - cosine(alone(w), there) for w in pool}
    ranked = sorted(pool, key=lambda w: (-lean[w], w))
    groups = [sorted(ranked[:CLUSTER_SIZE]), sorted(ranked[-CLUSTER_SIZE:])]
    titles = list(names) if names else [_typical(g, alone) for g in groups]
    return {title: group for title, group in zip(titles, groups, strict=True)}


def _typical(group: list[str], alone: Callable[[str], Array]) -> str:
    centre = np.mean([alone(w) for w in group], axis=0)
    return max(group, key=lambda w: (cosine(alone(w), centre), w))


def places(vectors: Mapping[str, Array], clusters: Mapping[str, list[str]]) -> dict[str, tuple[float, float]]:
    """Every word's 2-D place, one decimal: the first axis runs from the first cluster's centroid to the
    second's (so the map reads the two meanings left to right), the second is the cluster words' largest
    remaining spread; the cluster words' mean is the origin and they span ±:data:`REACH` across."""
    first, second = ([vectors[w] for w in members] for members in clusters.values())
    mean = np.mean(first + second, axis=0)
    across = np.mean(second, axis=0) - np.mean(first, axis=0)
    across /= np.linalg.norm(across)
    spread = np.array(first + second) - mean
    rest = spread - np.outer(spread @ across, across)
    _, _, vt = np.linalg.svd(rest, full_matrices=False)
    up = vt[0] * np.sign(vt[0][np.abs(vt[0]).argmax()])
    axes = np.array([across, up])
    cluster_x = np.array([(vectors[w] - mean) @ across for members in clusters.values() for w in members])
    scale = REACH / np.abs(cluster_x).max()
    return {w: _point((v - mean) @ axes.T * scale) for w, v in vectors.items()}


def _point(xy: Array) -> tuple[float, float]:
    return (round(float(xy[0]), 1) + 0.0, round(float(xy[1]), 1) + 0.0)
