"""Every value the lesson shows, by example section, and the restricted view scenes get."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeAlias

import numpy as np

from . import demos, primer, real_model, variants
from .attention import add_and_norm, multi_head
from .errors import UndeclaredSectionError
from .example import DEFAULT_EXAMPLE, load_example
from .model_types import RealModel, SemanticShift
from .types import (
    Array,
    CatSat,
    Complexity,
    RnnDecay,
    SaturationDemo,
    ScalingDemo,
    TrainStation,
    VarianceDemo,
    WorkedExample,
)

#: The values of any one section.
Section: TypeAlias = (
    WorkedExample
    | CatSat
    | ScalingDemo
    | VarianceDemo
    | SaturationDemo
    | Complexity
    | RnnDecay
    | TrainStation
    | SemanticShift
    | RealModel
)


def _worked_example(
    tokens: list[str],
    X: Array,  # noqa: N803
    heads: Sequence[Mapping[str, Array]],
    W_O: Array | None,  # noqa: N803
    decoder: Mapping[str, Any] | None = None,
) -> WorkedExample:
    result = multi_head(X, heads, W_O)
    pair = None if decoder is None else (decoder["tokens"], decoder["X"], decoder.get("projections"))
    first = result.heads[0]
    strongest_key = demos.demo_key(first.Q[0], first.K)
    if strongest_key is None:  # the loader refuses such an example; this keeps the type honest
        raise ValueError("no key long enough to draw against the first query")
    d_model = X.shape[1]
    alignment = demos.alignment(first.Q[0], first.K[strongest_key], query_token=0, key_token=strongest_key)
    return WorkedExample(
        tokens=tokens,
        X=X,
        d_model=d_model,
        h=len(heads),
        d_k=d_model // len(heads),
        heads=result.heads,
        concat=result.concat,
        W_O=result.W_O,
        output=result.output,
        add_norm=add_and_norm(X, result.output),
        T=len(tokens),
        d_v=first.V.shape[1],
        # The first token's query against the drawable key it matches best (head 1): the dot-product demo.
        alignment=alignment,
        variants=variants.variants(tokens, X, heads, W_O, result.output, pair),
        initial=demos.initial_projection(X, first.W_q.shape[1]),  # shaped like head 1's W_q
        # The same two vectors in the plane they span (their own coordinates when d_k = 2): the tools chapter's.
        vectors=primer.vector_pair(alignment.plane_query, alignment.plane_key),
    )


COMPUTE: dict[str, Callable[..., Section]] = {
    "worked_example": _worked_example,
    "cat_sat": demos.cat_sat,
    "scaling_demo": demos.scaling_demo,
    "variance_demo": demos.variance_demo,
    "saturation_demo": demos.saturation_demo,
    "complexity": demos.complexity,
    "rnn_decay": demos.rnn_decay,
    "train_station": demos.train_station,
    "semantic_shift": demos.semantic_shift,
    "real_model": real_model.values,
}


class LessonValues:
    """The computed values of the sections one scene declared, and nothing else.

    Each section is an attribute (``values.worked_example.heads[0].Q``). Reading any
    other section raises :class:`UndeclaredSectionError`, so a scene whose declaration
    is incomplete fails at once instead of rendering a video that the renderer would
    not know to refresh.

    Examples
    --------
    >>> view = lesson_values(("cat_sat",), owner="ShowCat")
    >>> view.cat_sat.tokens
    ['the', 'cat', 'sat']
    >>> view.rnn_decay
    Traceback (most recent call last):
    ...
    attention_math.errors.UndeclaredSectionError: ShowCat reads example section 'rnn_decay' ...
    """

    __slots__ = ("_declared", "_owner", "_values")

    # One annotation per section of COMPUTE: the type a scene gets. No value here, so that
    # reading one falls through to __getattr__, which checks the declaration.
    worked_example: WorkedExample
    cat_sat: CatSat
    scaling_demo: ScalingDemo
    variance_demo: VarianceDemo
    saturation_demo: SaturationDemo
    complexity: Complexity
    rnn_decay: RnnDecay
    train_station: TrainStation
    semantic_shift: SemanticShift
    real_model: RealModel

    def __init__(self, values: Mapping[str, Section], declared: Sequence[str], owner: str = "this scene") -> None:
        self._values, self._declared, self._owner = dict(values), tuple(declared), owner

    def __getattr__(self, section: str) -> Section:
        if section.startswith("_") or section not in COMPUTE:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {section!r}")
        if section not in self._declared:
            raise UndeclaredSectionError(
                f"{self._owner} reads example section {section!r} but declares only {list(self._declared)}; "
                "add it to the scene's depends_on in scenes/lesson.py"
            )
        return self._values[section]

    @property
    def declared(self) -> tuple[str, ...]:
        """The sections this view may read, in their declared order."""
        return self._declared

    def sections(self) -> dict[str, Section]:
        """Every declared section's values by name: for walking all of them (printing, auditing)."""
        return {name: self._values[name] for name in self._declared}


def compute(example: Mapping[str, Mapping[str, Any]], owner: str = "compute()") -> LessonValues:
    """Compute every value of each section of a loaded example (see ``load_example``)."""
    values = {name: COMPUTE[name](**inputs) for name, inputs in example.items()}
    return LessonValues(values, tuple(example), owner)


def lesson_values(
    sections: Sequence[str], path: str | Path = DEFAULT_EXAMPLE, owner: str = "this scene"
) -> LessonValues:
    """Load, validate and compute only ``sections`` of the example file, as a restricted view."""
    return compute(load_example(path, sections=list(sections)), owner)


def to_jsonable(value: Any) -> Any:
    """Lesson values, records, numpy arrays and scalars to dicts, lists and plain numbers, recursively."""
    if isinstance(value, LessonValues):
        return to_jsonable(value.sections())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {k: to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    return value
