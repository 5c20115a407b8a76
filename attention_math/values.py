"""Every value the lesson shows, by example section, and the restricted view scenes get."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from . import demos, real_model
from .attention import multi_head
from .errors import UndeclaredSectionError
from .example import DEFAULT_EXAMPLE, load_example


def _worked_example(tokens: list[str], X: np.ndarray, heads: list, W_O: np.ndarray | None) -> dict:  # noqa: N803
    d_model = X.shape[1]
    h = len(heads)
    result = {"tokens": tokens, "X": X, "d_model": d_model, "h": h, "d_k": d_model // h, **multi_head(X, heads, W_O)}
    first = result["heads"][0]
    strongest_key = demos.demo_key(first["Q"][0], first["K"])
    return {
        **result,
        "T": len(tokens),
        "d_v": first["V"].shape[1],
        # The first token's query against the drawable key it matches best (head 1): the dot-product demo.
        "alignment": {
            "query_token": 0,
            "key_token": strongest_key,
            **demos.alignment(first["Q"][0], first["K"][strongest_key]),
        },
    }


COMPUTE = {
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


def compute(example: dict[str, dict]) -> dict[str, dict]:
    """Compute every value of each section of a loaded example."""
    return {name: COMPUTE[name](**inputs) for name, inputs in example.items()}


class LessonValues(Mapping):
    """The computed values of the sections one scene declared, and nothing else.

    Reading any other section raises :class:`UndeclaredSectionError`, so a scene
    whose declaration is incomplete fails at once instead of rendering a video that
    the renderer would not know to refresh.
    """

    def __init__(self, values: dict[str, dict], declared: tuple[str, ...], owner: str = "this scene") -> None:
        self._values, self._declared, self._owner = values, tuple(declared), owner

    def __getitem__(self, section: str) -> dict:
        if section not in self._declared:
            raise UndeclaredSectionError(
                f"{self._owner} reads example section {section!r} but declares only {list(self._declared)}; "
                "add it to the scene's depends_on in scenes/lesson.py"
            )
        return self._values[section]

    def __iter__(self) -> Iterator[str]:
        return iter(self._declared)

    def __len__(self) -> int:
        return len(self._declared)


def lesson_values(
    sections: tuple[str, ...] | list[str], path: str | Path = DEFAULT_EXAMPLE, owner: str = "this scene"
) -> LessonValues:
    """Load, validate and compute only ``sections`` of the example file, as a restricted view."""
    values = compute(load_example(path, sections=list(sections)))
    return LessonValues(values, tuple(sections), owner)


def to_jsonable(value: Any) -> Any:
    """numpy arrays and scalars to lists and floats, recursively."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {k: to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    return value
