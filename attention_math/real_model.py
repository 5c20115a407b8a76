"""A real transformer's view, read back: the model-data file (numpy only) and the values the
"A real transformer" scenes show. ``attention_math.extract_model`` writes the file.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from .errors import ExampleError

# --- reading the data file (numpy only) --------------------------------------------------------


def read_data(path: Path, where: str, key: str) -> dict:
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


def _arrays(raw: dict) -> dict:
    def placed(p: dict) -> dict:
        return {**p, "vector": np.array(p["vector"], float), "point": np.array(p["point"], float)}

    return {
        **raw,
        "sentences": [{**placed(s), "attention": np.array(s["attention"], float)} for s in raw["sentences"]],
        "alone": placed(raw["alone"]),
        "clusters": {n: {w: placed(p) for w, p in ws.items()} for n, ws in raw["clusters"].items()},
        "projection": {k: np.array(v, float) for k, v in raw["projection"].items()},
    }


def matches(data: dict, sentences: list[str], focus: str, clusters: dict[str, list[str]]) -> bool:
    """Whether ``data`` was extracted for exactly these sentences, focus word and cluster words."""
    return (
        [s["text"] for s in data["sentences"]] == sentences
        and data["focus"] == focus
        and {n: list(ws) for n, ws in data["clusters"].items()} == clusters
    )


# --- values the scenes show --------------------------------------------------------------------


def featured_head(attention: np.ndarray, focus_pieces: list[int], context: list[int]) -> tuple[int, int]:
    """(layer, head) in which the focus word's pieces give the most weight to one context piece."""
    rows = attention[:, :, focus_pieces][:, :, :, context].mean(axis=2)  # layers × heads × context
    layer, head = np.unravel_index(np.argmax(rows.max(axis=2)), rows.shape[:2])
    return int(layer), int(head)


def _context(pieces: list[str], focus_pieces: list[int]) -> list[int]:
    """The sentence's own pieces: neither the focus word nor the model's special [CLS]/[SEP] tokens."""
    return [i for i, p in enumerate(pieces) if i not in focus_pieces and not (p.startswith("[") and p.endswith("]"))]


def _attention_facts(pieces: list[str], focus_pieces: list[int], attention: np.ndarray) -> dict:
    """The featured head, the context piece the focus word attends to most there, and the share of
    the focus word's attention that goes to the special pieces, averaged over every layer and head."""
    context = _context(pieces, focus_pieces)
    layer, head = featured_head(attention, focus_pieces, context)
    row = attention[layer, head, focus_pieces].mean(axis=0)
    specials = [i for i in range(len(pieces)) if i not in context and i not in focus_pieces]
    return {
        "context_pieces": context,
        "featured": (layer, head),
        "featured_row": row,
        "featured_strongest": context[int(np.argmax(row[context]))],
        "special_share": float(attention[:, :, focus_pieces][..., specials].sum(axis=-1).mean()),
    }


def _case(placed: dict) -> dict:
    """A vector's place on the map and its similarities, without the vector itself."""
    cos = placed["cosines"]
    return {k: v for k, v in placed.items() if k != "vector"} | {"nearest": max(cos, key=cos.get)}


def values(data: dict, sentences: list[str], focus: str, clusters: dict[str, list[str]], data_path: Path) -> dict:
    """What the scenes show: shapes, each sentence's attention and shift, the cluster map.

    The 384-d vectors and the projection stay in the data file: no scene shows them, and
    the numbers audit should not accept any number that happens to be among them.
    """
    layers, heads = data["sentences"][0]["attention"].shape[:2]
    shown = []
    for s in data["sentences"]:
        shown.append({**_case(s), **_attention_facts(s["pieces"], s["focus_pieces"], s["attention"])})
    points = {n: np.array([p["point"] for p in ws.values()]) for n, ws in data["clusters"].items()}
    return {
        "model": data["model"],
        "data_file": str(data_path),
        "hidden_size": data["hidden_size"],
        "layers": int(layers),
        "heads": int(heads),
        "head_count": int(layers * heads),
        "focus": focus,
        "sentences": shown,
        "alone": _case(data["alone"]),
        "cluster_words": clusters,
        "cluster_points": points,
        "centroid_points": {n: pts.mean(axis=0) for n, pts in points.items()},
    }
