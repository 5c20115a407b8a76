"""A real transformer's view, read back: the model-data file (numpy only) and the values the
"A real transformer" scenes show. ``attention_math.extract_model`` writes the file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from .claims import parking
from .errors import ExampleError
from .model_types import Placement, RealModel, RealSentence, ToyFit
from .sizes import ORIGINAL_TRANSFORMER, model_size
from .types import Array
from .word_attention import fit_error, toy_weights, word_level, word_spans

# --- reading the data file (numpy only) --------------------------------------------------------


def read_data(path: Path, where: str, key: str) -> dict[str, Any]:
    """The data file as numpy arrays; problems become :class:`ExampleError` at ``where``/``key``."""
    try:
        raw = json.loads(path.read_text())
    except FileNotFoundError:
        raise ExampleError(where, key, f"data file {path} not found; `make model-data` writes it") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ExampleError(where, key, f"data file {path} cannot be read: {e}") from None
    try:
        return _arrays(raw)
    except (KeyError, TypeError, ValueError) as e:
        raise ExampleError(where, key, f"data file {path} is not a model-data file ({e!r})") from None


def _arrays(raw: dict[str, Any]) -> dict[str, Any]:
    def placed(p: dict[str, Any]) -> dict[str, Any]:
        return {**p, "vector": np.array(p["vector"], float), "point": np.array(p["point"], float)}

    return {
        **raw,
        "sentences": [{**placed(s), "attention": np.array(s["attention"], float)} for s in raw["sentences"]],
        "alone": placed(raw["alone"]),
        "clusters": {n: {w: placed(p) for w, p in ws.items()} for n, ws in raw["clusters"].items()},
        "projection": {k: np.array(v, float) for k, v in raw["projection"].items()},
    }


def matches(data: dict[str, Any], sentences: list[str], focus: str, clusters: dict[str, list[str]]) -> bool:
    """Whether ``data`` was extracted for exactly these sentences, focus word and cluster words."""
    return (
        [s["text"] for s in data["sentences"]] == sentences
        and data["focus"] == focus
        and {n: list(ws) for n, ws in data["clusters"].items()} == clusters
    )


# --- values the scenes show --------------------------------------------------------------------


POSITIONAL = 0.5  # a head giving on average this much of a word's attention to one fixed neighbour reads position
OFFSETS = (-1, 0, 1)  # the previous piece, the piece itself, the next one


def offset_means(attention: Array, rows: list[int]) -> Array:
    """Per offset of :data:`OFFSETS` (the first axis), the mean weight ``rows`` give the piece that far from them;
    ``attention``'s leading axes (layers, heads) kept."""
    n = attention.shape[-1]
    return np.asarray(
        [np.mean([attention[..., i, i + offset] for i in rows if 0 <= i + offset < n], axis=0) for offset in OFFSETS],
        dtype=float,
    )


def position_share(attention: Array, rows: list[int]) -> Array:
    """Per (layer, head): the largest mean weight the sentence's ``rows`` give to one fixed offset."""
    return np.asarray(offset_means(attention, rows).max(axis=0), dtype=float)


def neighbour(weights: Array, focus_pieces: list[int], context: list[int]) -> str:
    """Which fixed neighbour one head's ``weights`` (pieces × pieces) give the sentence's own pieces the most of,
    in words (the rows :func:`positional_head` reads)."""
    means = offset_means(weights, sorted(context + focus_pieces))
    return ("the word before it", "itself", "the word after it")[int(np.argmax(means))]


def featured_head(attention: Array, focus_pieces: list[int], context: list[int]) -> tuple[int, int]:
    """(layer, head) in which the focus word's pieces give the most weight to one context piece, among the
    heads that attend by content: a head that reads a fixed neighbour (:func:`position_share` at least
    :data:`POSITIONAL`) says nothing about meaning, however sharp it is."""
    rows = attention[:, :, focus_pieces][:, :, :, context].mean(axis=2)  # layers × heads × context
    strongest = np.where(position_share(attention, sorted(context + focus_pieces)) < POSITIONAL, rows.max(axis=2), -1)
    layer, head = np.unravel_index(np.argmax(strongest), strongest.shape)
    return int(layer), int(head)


def positional_head(attention: Array, focus_pieces: list[int], context: list[int]) -> tuple[int, int] | None:
    """(layer, head) that reads position most plainly (the largest :func:`position_share`), if any does."""
    shares = position_share(attention, sorted(context + focus_pieces))
    layer, head = np.unravel_index(np.argmax(shares), shares.shape)
    return (int(layer), int(head)) if shares[layer, head] >= POSITIONAL else None


def _context(pieces: list[str], focus_pieces: list[int]) -> list[int]:
    """The sentence's own pieces: neither the focus word nor the model's special [CLS]/[SEP] tokens."""
    return [i for i, p in enumerate(pieces) if i not in focus_pieces and not (p.startswith("[") and p.endswith("]"))]


def _nearest(cosines: dict[str, float]) -> str:
    return max(cosines, key=lambda name: cosines[name])


def _sentence(s: dict[str, Any]) -> RealSentence:
    """One sentence's placement, the featured head, the context piece the focus word attends to most
    there, and the share of its attention that goes to the special pieces, averaged over every layer
    and head."""
    pieces, focus_pieces, attention = s["pieces"], s["focus_pieces"], s["attention"]
    context = _context(pieces, focus_pieces)
    layer, head = featured_head(attention, focus_pieces, context)
    row = attention[layer, head, focus_pieces].mean(axis=0)
    specials = [i for i in range(len(pieces)) if i not in context and i not in focus_pieces]
    shares = attention[:, :, focus_pieces][..., specials].sum(axis=-1).mean(axis=-1)  # layers × heads
    return RealSentence(
        text=s["text"],
        pieces=pieces,
        focus_pieces=focus_pieces,
        attention=attention,
        point=s["point"],
        cosines=s["cosines"],
        nearest=_nearest(s["cosines"]),
        context_pieces=context,
        featured=(layer, head),
        positional=positional_head(attention, focus_pieces, context),
        featured_row=row,
        featured_strongest=context[int(np.argmax(row[context]))],
        special_share=float(shares.mean()),
        special_shares=shares,
        parking_heads=int(parking(shares).sum()),
    )


def toy_fits(data: dict[str, Any], toy: dict[str, Any] | None) -> list[ToyFit]:
    """Each worked-example head against the real head it was fitted to, on the first sentence's words."""
    if toy is None:
        return []
    first = data["sentences"][0]
    spans = word_spans(first["pieces"], first["text"])
    if spans is None:
        return []
    real, _ = word_level(first["attention"], spans)
    fits = []
    for n, (head, (layer, index)) in enumerate(zip(toy["heads"], toy["real"], strict=True), start=1):
        mean, largest = fit_error(toy_weights(toy["X"], head["W_q"], head["W_k"]), real[layer, index])
        fits.append(ToyFit(n, layer + 1, index + 1, mean, largest))
    return fits


def values(
    data: dict[str, Any],
    sentences: list[str],
    focus: str,
    clusters: dict[str, list[str]],
    data_path: Path,
    toy: dict[str, Any] | None = None,
) -> RealModel:
    """What the scenes show: shapes, each sentence's attention and shift, the cluster map.

    The 384-d vectors and the projection stay in the data file: no scene shows them, and
    the numbers audit should not accept any number that happens to be among them.
    """
    layers, heads = data["sentences"][0]["attention"].shape[:2]
    alone = data["alone"]
    points = {n: np.array([p["point"] for p in ws.values()]) for n, ws in data["clusters"].items()}
    return RealModel(
        model=data["model"],
        data_file=str(data_path),
        hidden_size=data["hidden_size"],
        layers=int(layers),
        heads=int(heads),
        head_count=int(layers * heads),
        focus=focus,
        sentences=[_sentence(s) for s in data["sentences"]],
        alone=Placement(
            pieces=alone["pieces"], point=alone["point"], cosines=alone["cosines"], nearest=_nearest(alone["cosines"])
        ),
        cluster_words=clusters,
        cluster_points=points,
        centroid_points={n: pts.mean(axis=0) for n, pts in points.items()},
        sizes=[model_size(*ORIGINAL_TRANSFORMER), model_size("MiniLM", data["hidden_size"], int(heads))],
        toy_fits=toy_fits(data, toy),
    )
