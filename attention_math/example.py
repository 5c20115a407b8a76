"""Load and validate the example-values file (TOML) into plain numpy values.

Every check names the file, the key path and what was expected, so a user who
edits the file by hand can fix it without reading code. The per-key checks (the
table reader and the value parsers) are in :mod:`attention_math.validate`.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from . import demos
from . import real_model as model_data
from .errors import ExampleError
from .validate import (
    MAX_D_MODEL,
    MAX_HEADS,
    MAX_SCALED_SCORE,
    Reader,
    file_path,
    integer,
    listof,
    matrix,
    member,
    number,
    sentence,
    shape_of,
    suggest,
    token,
    tokens,
    vector,
)

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_EXAMPLE = ROOT / "assets" / "examples" / "default.toml"


# --- sections -----------------------------------------------------------------------


def _projections(r: Reader, d_in: int, d_out: int, names: tuple[str, ...]) -> dict[str, np.ndarray]:
    why = f"d_model = {d_in} rows, d_k = {d_out} columns"
    return {n: shape_of(r.path, r.sub(n), r.take(n, matrix), d_in, d_out, why) for n in names}


def _scores_fit(
    path: str, key: str, x: np.ndarray, w_q: np.ndarray, w_k: np.ndarray, keys_x: np.ndarray | None = None
) -> None:
    """Refuse inputs whose scaled scores QKᵀ/√d_k are too large for e^score to be computed
    (keys from ``keys_x`` when the queries come from another sentence)."""
    largest = ((x @ w_q) @ ((x if keys_x is None else keys_x) @ w_k).T).max() / np.sqrt(w_q.shape[1])
    if largest > MAX_SCALED_SCORE:
        raise ExampleError(
            path, key, f"expected scaled scores up to {MAX_SCALED_SCORE:g} so e^score stays finite, got {largest:.3g}"
        )


def _demo_vectors_drawable(path: str, key: str, x: np.ndarray, w_q: np.ndarray, w_k: np.ndarray) -> None:
    """Refuse a zero first query, or keys all zero: the dot-product demo draws the angle between two."""
    if demos.demo_key(x[0] @ w_q, x @ w_k) is None:
        raise ExampleError(
            path,
            key,
            "expected the first token's query (X[0]·W_q) and at least one key (a row of X·W_k) to be "
            "non-zero vectors: the dot-product scene draws the angle between them",
        )


def _tokens_and_rows(r: Reader, matrix_key: str) -> tuple[list[str], np.ndarray]:
    words = r.take("tokens", tokens)
    m = r.take(matrix_key, matrix)
    if len(m) != len(words):
        raise ExampleError(r.path, r.sub(matrix_key), f"expected one row per token ({len(words)} rows), got {len(m)}")
    if m.shape[1] > MAX_D_MODEL:
        raise ExampleError(
            r.path, r.sub(matrix_key), f"expected at most {MAX_D_MODEL} columns (d_model), got {m.shape[1]}"
        )
    return words, m


CROSS_PROJECTIONS = ("W_q", "W_k", "W_v")


def _decoder(r: Reader, x: np.ndarray, first_head: dict[str, np.ndarray]) -> dict[str, Any] | None:
    """The optional decoder sentence of the cross-attention scene: its tokens and rows of d_model numbers, and
    cross-attention's own W_q, W_k, W_v (all three or none: then head 1's)."""
    if "decoder" not in r.data:
        return None
    d = r.table("decoder")
    d.expect("tokens", "X", *CROSS_PROJECTIONS)
    words, rows = _tokens_and_rows(d, "X")
    shape_of(d.path, d.sub("X"), rows, len(words), x.shape[1], f"one row per token, d_model = {x.shape[1]} columns")
    given = [n for n in CROSS_PROJECTIONS if n in d.data]
    if given and len(given) < len(CROSS_PROJECTIONS):
        missing = next(n for n in CROSS_PROJECTIONS if n not in given)
        raise ExampleError(d.path, d.sub(missing), "expected W_q, W_k and W_v together (or none: head 1's are used)")
    own = _projections(d, x.shape[1], first_head["W_q"].shape[1], CROSS_PROJECTIONS) if given else None
    w = own or first_head
    _scores_fit(d.path, d.sub("X"), rows, w["W_q"], w["W_k"], keys_x=x)
    return {"tokens": words, "X": rows, "projections": own}


def worked_example(r: Reader) -> dict[str, Any]:
    r.expect("tokens", "X", "heads", "W_O", "decoder")
    words, x = _tokens_and_rows(r, "X")
    d_model = x.shape[1]
    heads = r.tables("heads", 1, MAX_HEADS)
    if d_model % len(heads):
        raise ExampleError(
            r.path, r.sub("heads"), f"d_model = {d_model} must be divisible by the number of heads, got {len(heads)}"
        )
    d_k = d_model // len(heads)
    parsed = []
    for h in heads:
        h.expect("W_q", "W_k", "W_v")
        parsed.append(_projections(h, d_model, d_k, h.keys))
        _scores_fit(r.path, h.key, x, parsed[-1]["W_q"], parsed[-1]["W_k"])
    _demo_vectors_drawable(r.path, heads[0].key, x, parsed[0]["W_q"], parsed[0]["W_k"])
    w_o = r.take("W_O", matrix, None)
    if w_o is not None:
        shape_of(r.path, r.sub("W_O"), w_o, d_model, d_model, f"d_model × d_model = {d_model}×{d_model}")
    return {"tokens": words, "X": x, "heads": parsed, "W_O": w_o, "decoder": _decoder(r, x, parsed[0])}


def cat_sat(r: Reader) -> dict[str, Any]:
    r.expect("tokens", "E", "W_q", "W_k", "W_v")
    words, e = _tokens_and_rows(r, "E")
    w = {n: r.take(n, matrix) for n in ("W_q", "W_k", "W_v")}
    for n, m in w.items():
        if m.shape[0] != e.shape[1]:
            raise ExampleError(
                r.path, r.sub(n), f"expected {e.shape[1]} rows to multiply E's {e.shape[1]} columns, got {m.shape[0]}"
            )
        if m.shape[1] > MAX_D_MODEL:
            raise ExampleError(r.path, r.sub(n), f"expected at most {MAX_D_MODEL} columns, got {m.shape[1]}")
    if w["W_q"].shape[1] != w["W_k"].shape[1]:
        raise ExampleError(r.path, r.sub("W_k"), f"expected {w['W_q'].shape[1]} columns, like W_q (d_k)")
    _scores_fit(r.path, r.key, e, w["W_q"], w["W_k"])
    return {"tokens": words, "E": e, **w}


def scaling_demo(r: Reader) -> dict[str, Any]:
    r.expect("query", "keys")
    query = r.take("query", vector())
    keys = r.take("keys", matrix)
    if keys.shape[1] != len(query):
        raise ExampleError(r.path, r.sub("keys"), f"expected rows of {len(query)} numbers, like the query")
    if not 2 <= len(keys) <= MAX_D_MODEL:
        raise ExampleError(r.path, r.sub("keys"), f"expected 2 to {MAX_D_MODEL} keys, got {len(keys)}")
    return {"query": query, "keys": keys}


def variance_demo(r: Reader) -> dict[str, Any]:
    r.expect("dimensions", "samples", "seed")
    dims = r.take("dimensions", listof(integer(1, 4096), 2, 6))
    if dims != sorted(set(dims)):
        raise ExampleError(r.path, r.sub("dimensions"), f"expected increasing dimensions, got {dims}")
    return {
        "dimensions": dims,
        "samples": r.take("samples", integer(100, 100_000)),
        "seed": r.take("seed", integer(0, 2**32 - 1)),
    }


def saturation_demo(r: Reader) -> dict[str, Any]:
    r.expect("scores", "scales")
    positive = lambda p, k, v: number(p, k, v, lo=1e-3, hi=1000)  # noqa: E731
    return {
        "scores": r.take("scores", vector(2, 8)),
        "scales": np.array(r.take("scales", listof(positive, 2, 6))),
    }


def complexity(r: Reader) -> dict[str, Any]:
    r.expect("sequence_lengths", "bytes_per_weight", "grid_lengths")
    return {
        "sequence_lengths": r.take("sequence_lengths", listof(integer(1, 10_000_000), 1, 6)),
        "bytes_per_weight": r.take("bytes_per_weight", integer(1, 16)),
        "grid_lengths": r.take("grid_lengths", listof(integer(1, 16), 1, 4)),
    }


def rnn_decay(r: Reader) -> dict[str, Any]:
    r.expect("tokens", "source", "target", "retention")
    words = r.take("tokens", tokens)
    source = member(r.path, r.sub("source"), r.take("source", token), words, "tokens")
    target = member(r.path, r.sub("target"), r.take("target", token), words, "tokens")
    if target <= source:
        raise ExampleError(r.path, r.sub("target"), "expected a word that comes after the source word")
    retention = r.take("retention", lambda p, k, v: number(p, k, v, lo=0.01, hi=0.99))
    return {"tokens": words, "source": source, "target": target, "retention": retention}


def train_station(r: Reader) -> dict[str, Any]:
    r.expect("tokens", "embeddings", "focus")
    words, e = _tokens_and_rows(r, "embeddings")
    focus = member(r.path, r.sub("focus"), r.take("focus", token), words, "tokens")
    _scores_fit(r.path, r.sub("embeddings"), e, np.eye(e.shape[1]), np.eye(e.shape[1]))
    return {"tokens": words, "embeddings": e, "focus": focus}


def semantic_shift(r: Reader) -> dict[str, Any]:
    """The meaning map: 2-D places of words, clusters, and sentences whose focus word one head of the
    worked example moves (its weights over the sentence, from the words' rows of d_model numbers)."""
    r.expect("head", "words", "embeddings", "clusters", "sentences")
    worked = worked_example(r.parent.table("worked_example"))  # type: ignore[union-attr]  # a section has a root
    heads = worked["heads"]
    chosen = r.take("head", integer(1, len(heads)), len(heads))
    head = heads[chosen - 1]
    wr = r.table("words")
    words = {name: wr.take(name, vector(2, 2)) for name in wr.data}
    if not words:
        raise ExampleError(r.path, r.sub("words"), "expected at least one word with its [x, y] position")
    vocabulary = sorted(words)
    rows = _embeddings(r, worked["tokens"], worked["X"])
    cr = r.table("clusters")
    if len(cr.data) < 2:
        raise ExampleError(r.path, r.sub("clusters"), "expected at least 2 clusters (e.g. fruit and tech)")
    clusters = {}
    for name in cr.data:
        members = cr.take(name, listof(token, 1, 8))
        for i, w in enumerate(members):
            member(r.path, f"{cr.sub(name)}[{i}]", w, vocabulary, "words of semantic_shift.words")
        clusters[name] = members
    sentences = []
    for s in r.tables("sentences", 1, 4):
        s.expect("tokens", "focus")
        toks = s.take("tokens", tokens)
        for i, w in enumerate(toks):
            member(r.path, f"{s.sub('tokens')}[{i}]", w, vocabulary, "words of semantic_shift.words")
            if w not in rows and toks != worked["tokens"]:
                raise ExampleError(
                    r.path,
                    f"{s.sub('tokens')}[{i}]",
                    f"{w!r} has no row of d_model = {worked['X'].shape[1]} numbers for head {chosen} to read: "
                    "expected it among worked_example.tokens (with one row) or in [semantic_shift.embeddings]",
                )
        focus = member(r.path, s.sub("focus"), s.take("focus", token), toks, "tokens of this sentence")
        x = worked["X"] if toks == worked["tokens"] else np.array([rows[w] for w in toks])
        _scores_fit(r.path, s.sub("tokens"), x, head["W_q"], head["W_k"])
        sentences.append({"tokens": toks, "focus": focus, "X": x})
    return {
        "words": words,
        "clusters": clusters,
        "sentences": sentences,
        "head": chosen,
        "W_q": head["W_q"],
        "W_k": head["W_k"],
    }


def _embeddings(r: Reader, worked_tokens: list[str], x: np.ndarray) -> dict[str, np.ndarray]:
    """Each word's row of d_model numbers: the worked example's (where a repeated token has one row), then
    ``[semantic_shift.embeddings]`` for the other words of the map's sentences."""
    rows = {
        w: row
        for w, row in zip(worked_tokens, x, strict=True)
        if all(np.array_equal(row, other) for v, other in zip(worked_tokens, x, strict=True) if v == w)
    }
    if "embeddings" not in r.data:
        return rows
    er = r.table("embeddings")
    d_model = x.shape[1]
    for name in er.data:
        if name in worked_tokens:
            raise ExampleError(r.path, er.sub(name), "already has its row in worked_example.X: give each word one row")
        rows[name] = er.take(name, vector(d_model, d_model))
    return rows


def real_model_request(path: str | Path) -> dict[str, Any]:
    """The ``real_model`` section without its data file: what an extraction needs."""
    return _real_model_request(Reader(str(path), read_toml(path), "").table("real_model"))


def _real_model_request(r: Reader) -> dict[str, Any]:
    r.expect("focus", "sentences", "clusters", "data", "toy_heads")
    focus = r.take("focus", token)
    cr = r.table("clusters")
    if len(cr.data) < 2:
        raise ExampleError(r.path, r.sub("clusters"), "expected at least 2 clusters (e.g. fruit and tech)")
    clusters = {name: cr.take(name, listof(token, 1, 8)) for name in cr.data}
    data = r.take("data", file_path)
    return {
        "sentences": r.take("sentences", listof(sentence(focus), 1, 6)),
        "focus": focus,
        "clusters": clusters,
        "data_path": data if data.is_absolute() else ROOT / data,
    }


def real_model(r: Reader) -> dict[str, Any]:
    """The sentences, focus and cluster words, and the data file extracted for exactly them."""
    request = _real_model_request(r)
    data = model_data.read_data(request["data_path"], r.path, r.sub("data"))
    if not model_data.matches(data, request["sentences"], request["focus"], request["clusters"]):
        raise ExampleError(
            r.path,
            r.sub("data"),
            f"{request['data_path']} was extracted for other sentences, focus word or cluster words; "
            "run `make model-data` to extract it again",
        )
    toy = _toy_heads(r, request["sentences"][0])
    layers, heads = data["sentences"][0]["attention"].shape[:2]
    if toy is not None and any(not (0 <= a < layers and 0 <= b < heads) for a, b in toy["real"]):
        raise ExampleError(r.path, r.sub("toy_heads"), f"expected [layer, head] within {layers} layers x {heads} heads")
    return {**request, "data": data, "toy": toy}


def _toy_heads(r: Reader, first_sentence: str) -> dict[str, Any] | None:
    """Optional ``toy_heads``: the real (layer, head), from 1, that each worked-example head was fitted to
    (``new-example --from-model`` writes it); the fit is measured on the first sentence, the worked one's."""
    if "toy_heads" not in r.data:
        return None
    worked = worked_example(r.parent.table("worked_example"))  # type: ignore[union-attr]  # a section has a root
    pair = listof(integer(1, 64), 2, 2)
    pairs = r.take("toy_heads", listof(pair, len(worked["heads"]), len(worked["heads"])))
    if first_sentence != " ".join(worked["tokens"]):
        raise ExampleError(
            r.path, r.sub("toy_heads"), "expected the first of real_model.sentences to be the worked example's tokens"
        )
    return {"X": worked["X"], "heads": worked["heads"], "real": [(a - 1, b - 1) for a, b in pairs]}


#: Sections a file may leave out; a scene that declares one still gets an error naming it.
OPTIONAL_SECTIONS = frozenset({"real_model"})

SECTIONS: dict[str, Callable[[Reader], dict[str, Any]]] = {
    "worked_example": worked_example,
    "cat_sat": cat_sat,
    "scaling_demo": scaling_demo,
    "variance_demo": variance_demo,
    "saturation_demo": saturation_demo,
    "complexity": complexity,
    "rnn_decay": rnn_decay,
    "train_station": train_station,
    "semantic_shift": semantic_shift,
    "real_model": real_model,
}


def read_toml(path: str | Path) -> dict[str, Any]:
    """Parse the file, turning every I/O or syntax problem into an :class:`ExampleError`."""
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        raise ExampleError(str(path), "", "file not found") from None
    except IsADirectoryError:
        raise ExampleError(str(path), "", "expected a TOML file, got a directory") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ExampleError(str(path), "", f"cannot be read: {e}") from None
    except ValueError as e:  # TOMLDecodeError, or an integer of more digits than Python converts
        raise ExampleError(str(path), "", f"not valid TOML: {e}") from None


def load_example(path: str | Path = DEFAULT_EXAMPLE, sections: list[str] | None = None) -> dict[str, dict[str, Any]]:
    """Read and validate the example file.

    Parameters
    ----------
    path
        The TOML file.
    sections
        Validate and return only these sections (all when ``None``). Unknown or
        missing top-level sections are always reported.

    Returns
    -------
    dict
        Section name to its validated inputs (numpy arrays for matrices).

    Raises
    ------
    ExampleError
        For anything that cannot be used, naming the key path.
    """
    data = read_toml(path)
    root = Reader(str(path), data, "")
    for name in data:
        if name not in SECTIONS:
            raise ExampleError(str(path), name, f"unknown section{suggest(name, set(SECTIONS))}")
    wanted = [n for n in SECTIONS if n in data or n not in OPTIONAL_SECTIONS] if sections is None else sections
    result = {}
    for name in wanted:
        reader = root.table(name)
        result[name] = SECTIONS[name](reader)
    for name in SECTIONS:
        if name not in data and name not in OPTIONAL_SECTIONS:
            raise ExampleError(str(path), name, "missing; this section is required")
    _real_focus_in_worked_example(str(path), result)
    return result


def _real_focus_in_worked_example(path: str, sections: dict[str, dict[str, Any]]) -> None:
    """The real-model chapter points at its focus word among the worked example's tokens (in any case)."""
    if not {"real_model", "worked_example"} <= sections.keys():
        return
    focus, words = sections["real_model"]["focus"], sections["worked_example"]["tokens"]
    if focus.lower() not in [w.lower() for w in words]:
        raise ExampleError(
            path,
            "real_model.focus",
            f"expected one of worked_example.tokens {words} (the real-model chapter shows it in both), "
            f"got {focus!r}: edit [real_model] to match and run `make model-data`, or remove [real_model]",
        )
