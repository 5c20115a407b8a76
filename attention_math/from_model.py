"""``new-example --from-model "SENTENCE"``: a lesson whose numbers tell what MiniLM does with the sentence.

X is MiniLM's vectors of the words (read alone, pieces pooled) projected to d_model; each toy head is
fitted to a real content head; the meaning map's clusters and places come from the model's vectors
and its shift from the fitted map head; the real-model chapter is extracted for the same sentences.
The text is written by :mod:`attention_math.model_toml`; the model is read by
:mod:`attention_math.model_reader` (the extra); the rest is numpy.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from . import model_map, toy_fit
from .errors import ExampleError
from .model_map import MeaningMap
from .model_reader import InputError, Model, Reading, check_sentence
from .new_example import FUNCTION_WORDS, words_of
from .types import Array
from .word_attention import content_heads, sharpness, toy_weights, word_level

D_MODEL = 4
HEADS = 2
#: The fit the issue asks for: mean absolute weight difference after rounding.
TARGET = 0.05
#: Candidate real heads fitted per toy head, best story first, until one fits within TARGET.
TRIES = 12


@dataclass(frozen=True)
class Request:
    """What the command line asked for."""

    sentence: str
    contrast: str | None = None
    focus: str | None = None
    names: tuple[str, ...] = ()


@dataclass(frozen=True)
class FittedHead:
    """A toy head and the real head (layer, head, from 0) it reproduces; its fit on each sentence."""

    layer: int
    head: int
    w_q: Array
    w_k: Array
    w_v: Array
    errors: list[tuple[str, float, float]]  # (sentence, mean, largest absolute weight difference)


@dataclass(frozen=True)
class Lesson:
    """Everything the example file says, computed."""

    request: Request
    words: list[str]
    contrast_words: list[str] | None
    focus: str  # as spelled in the sentence
    contrast_focus: str | None  # as spelled in the contrast sentence
    x: Array
    extra_rows: dict[str, Array]  # rows of the contrast's words that are not worked-example tokens
    heads: list[FittedHead]  # the last one moves the meaning map
    meaning: MeaningMap
    data: dict[str, Any]  # the model-data file's content


# --- the inputs ----------------------------------------------------------------------------------


def sentence_words(flag: str, text: str) -> list[str]:
    """The sentence's words, checked as the loader checks tokens (errors name ``flag``)."""
    try:
        return words_of(text)
    except ExampleError as e:
        raise InputError(flag, e.message) from None


def _once(word: str, words: list[str]) -> str | None:
    """The spelling of ``word`` in ``words`` if it occurs exactly once (any case)."""
    found = [w for w in words if w.lower() == word.lower()]
    return found[0] if len(found) == 1 else None


def choose_focus(
    model: Model, request: Request, words: list[str], contrast: list[str] | None
) -> tuple[str, str | None]:
    """The focus word as spelled in the sentence and in the contrast: given, or the word MiniLM moves most.

    Between two sentences: the shared word whose vector differs most between them; alone: the word
    whose vector in the sentence differs most from its vector read alone. Content words come first.
    """
    if request.focus is not None:
        focus = _once(request.focus, words)
        if focus is None:
            raise InputError("--focus", f"expected a word that occurs once in SENTENCE {words}, got {request.focus!r}")
        if contrast is None:
            return focus, None
        other = _once(focus, contrast)
        if other is None:
            raise InputError("--contrast", f"expected a sentence with the focus word {focus!r} once, got {contrast}")
        return focus, other
    shared = [w for w in words if _once(w, words) and (contrast is None or _once(w, contrast))]
    if not shared:
        what = "a word shared with SENTENCE, once in each" if contrast else "a word that occurs once"
        raise InputError("--contrast" if contrast else "SENTENCE", f"expected {what} (the focus word)")
    content = [w for w in shared if w.lower() not in FUNCTION_WORDS] or shared
    here = model.read(request.sentence)
    here_vec = dict(zip(words, model.word_vectors(here), strict=True))
    if contrast is None or request.contrast is None:
        focus = model_map.most_moved(content, here_vec.__getitem__, model.alone)
        return focus, None
    there = dict(zip([w.lower() for w in contrast], model.word_vectors(model.read(request.contrast)), strict=True))
    focus = model_map.most_moved(content, here_vec.__getitem__, lambda w: there[w.lower()])
    return focus, _once(focus, contrast)


# --- the worked example ------------------------------------------------------------------------------


def word_rows(model: Model, words: list[str], extra: list[str]) -> tuple[Array, dict[str, Array]]:
    """X (the sentence's words) and the rows of ``extra`` words, on the PCA axes of the sentence's words
    and :data:`~attention_math.model_map.COMMON_WORDS`, read alone, to d_model numbers of one decimal."""
    reference = np.array([model.alone(w) for w in model_map.COMMON_WORDS])
    x, mean, axes = toy_fit.project(np.array([model.alone(w) for w in words]), reference, D_MODEL)
    rows = {w: toy_fit.place(model.alone(w), mean, axes)[0] for w in extra}
    return x, rows


def _ranked(weights: Array, special: Array, story: Any) -> list[tuple[int, int]]:
    """The content heads, best story first (layer, head order breaks ties)."""
    return sorted(content_heads(weights, special), key=lambda lh: (-story(lh), lh))


def _fit(cases: list[tuple[str, Array, Array]], lh: tuple[int, int], model: Model, reading: Reading) -> FittedHead:
    d_k = D_MODEL // HEADS
    w_q, w_k = toy_fit.fit_head([(x, t) for _, x, t in cases], d_k)
    errors = []
    for text, x, target in cases:
        gap = np.abs(toy_weights(x, w_q, w_k) - target)
        errors.append((text, float(gap.mean()), float(gap.max())))
    w_v = toy_fit.fit_values(cases[0][1], model.values(reading, *lh), d_k)
    return FittedHead(lh[0], lh[1], w_q, w_k, w_v, errors)


def _first_within(ranked: list[tuple[int, int]], cases_of: Any, model: Model, reading: Reading) -> FittedHead | None:
    """Of the best-story candidates (up to :data:`TRIES`), the first whose fit is within :data:`TARGET` on
    every sentence, else the first within it on the worked sentence, else the best fit there."""
    tried = [_fit(cases_of(lh), lh, model, reading) for lh in ranked[:TRIES]]
    everywhere = [f for f in tried if max(e[1] for e in f.errors) <= TARGET]
    worked = [f for f in tried if f.errors[0][1] <= TARGET]
    if everywhere or worked:
        return (everywhere or worked)[0]
    return min(tried, key=lambda f: f.errors[0][1]) if tried else None


def fit_heads(model: Model, lesson_words: list[str], x: Array, meaning: MeaningMap, contrast: Any) -> list[FittedHead]:
    """Toy head 1: of MiniLM's content heads on the sentence, the one that looks hardest at one other word
    among those the toy fits within :data:`TARGET` (up to :data:`TRIES` tried). Toy head 2 (the map head):
    the content head whose real weights move the focus word furthest toward each sentence's own cluster
    on the map (:func:`map_pull`), fitted on both sentences.

    ``contrast`` is (reading, X of the contrast's words, focus index, its words) or ``None``.
    """
    text = " ".join(lesson_words)
    reading = model.read(text)
    weights, special = word_level(reading.attention, reading.spans)
    if contrast is not None:
        c_weights, _ = word_level(contrast[0].attention, contrast[0].spans)

    def cases_of(lh: tuple[int, int], both: bool = False) -> list[tuple[str, Array, Array]]:
        cases = [(text, x, weights[lh])]
        if both and contrast is not None:
            cases.append((contrast[0].text, contrast[1], c_weights[lh]))
        return cases

    def pulls(lh: tuple[int, int]) -> float:
        moves = [map_pull(meaning, lesson_words, weights[lh], 0)]
        if contrast is not None:
            moves.append(map_pull(meaning, contrast[3], c_weights[lh], 1))
        return min(moves)

    map_ranked = _ranked(weights, special, pulls)
    map_head = _first_within(map_ranked, lambda lh: cases_of(lh, both=True), model, reading)
    taken = [] if map_head is None else [(map_head.layer, map_head.head)]
    first_ranked = [lh for lh in _ranked(weights, special, lambda lh: sharpness(weights[lh])) if lh not in taken]
    first = _first_within(first_ranked, cases_of, model, reading)
    if first is None or map_head is None:
        raise InputError("SENTENCE", "expected a sentence on which MiniLM has at least two content heads, found fewer")
    return [first, map_head]


def map_pull(meaning: MeaningMap, words: list[str], weights: Array, cluster: int) -> float:
    """How much closer to the centre of cluster number ``cluster`` the focus word's row of ``weights``
    moves it on the map (the map's weighted sum of places; negative: further away)."""
    places = np.array([meaning.places[w] for w in words])
    at = [w.lower() for w in words].index(meaning.focus.lower())
    centre = np.mean([meaning.places[w] for w in list(meaning.clusters.values())[cluster]], axis=0)
    return float(np.linalg.norm(places[at] - centre) - np.linalg.norm(weights[at] @ places - centre))


# --- the whole lesson --------------------------------------------------------------------------------


def plan(model: Model, request: Request) -> Lesson:
    """Every number of the example file for ``request``, from the model (``InputError`` for bad input)."""
    words = sentence_words("SENTENCE", request.sentence)
    contrast = None if request.contrast is None else sentence_words("--contrast", request.contrast)
    if len(request.names) not in (0, 2) or len(set(request.names)) != len(request.names):
        raise InputError("--names", f"expected two different cluster names, e.g. money,river, got {request.names}")
    check_sentence(model, "SENTENCE", request.sentence)
    if request.contrast is not None:
        check_sentence(model, "--contrast", request.contrast)
    focus, contrast_focus = choose_focus(model, request, words, contrast)
    extra = [w for w in dict.fromkeys(contrast or []) if w not in words]
    x, extra_rows = word_rows(model, words, extra)
    c_info = None
    if contrast is not None and request.contrast is not None:
        c_x = np.array([x[words.index(w)] if w in words else extra_rows[w] for w in contrast])
        c_info = (model.read(request.contrast), c_x, contrast.index(str(contrast_focus)), contrast)
    meaning = _meaning(model, request, words, contrast, focus, contrast_focus)
    heads = fit_heads(model, words, x, meaning, c_info)
    return Lesson(request, words, contrast, focus, contrast_focus, x, extra_rows, heads, meaning, {})


def _meaning(
    model: Model, request: Request, words: list[str], contrast: list[str] | None, focus: str, c_focus: str | None
) -> MeaningMap:
    """Clusters by the focus word's vector in the sentence against the contrast's (or its own, alone)."""
    here = model.word_vectors(model.read(request.sentence))[words.index(focus)]
    if contrast is not None and request.contrast is not None and c_focus is not None:
        there = model.word_vectors(model.read(request.contrast))[contrast.index(c_focus)]
    else:
        there = model.alone(focus)
    exclude = {w.lower() for w in words + (contrast or [])}
    clusters = model_map.clusters_for(here, there, model.alone, exclude, request.names)
    map_words = [*dict.fromkeys([*words, *(contrast or [])]), *(w for g in clusters.values() for w in g)]
    vectors = {w: model.alone(w) for w in map_words}
    return MeaningMap(focus=focus, clusters=clusters, places=model_map.places(vectors, clusters))


def extract_data(model: Model, lesson: Lesson) -> dict[str, Any]:
    """The real-model chapter's data for the sentences, focus and clusters (the existing extraction)."""
    from .extract_model import extract

    sentences = [lesson.request.sentence, *([lesson.request.contrast] if lesson.request.contrast else [])]
    return extract(sentences, lesson.focus, lesson.meaning.clusters, loaded=model.loaded)


def with_data(lesson: Lesson, data: dict[str, Any]) -> Lesson:
    return Lesson(**{**lesson.__dict__, "data": data})


def paths_key(path: Path, root: Path) -> str:
    """How the file names the data file: from the repository root when it is inside it, else absolute."""
    path = path.resolve()
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
