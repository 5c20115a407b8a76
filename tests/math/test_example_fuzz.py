"""Hypothesis drives the example loader with generated documents, valid and invalid: it returns validated values
or raises ExampleError, never anything else."""

from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attention_math import DEFAULT_EXAMPLE, ExampleError, compute, load_example

DEFAULT_TEXT = DEFAULT_EXAMPLE.read_text(encoding="utf-8")
DEFAULT = tomllib.loads(DEFAULT_TEXT)
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- a small TOML writer --------------------------------------------------------------


def toml_value(value: Any) -> str:
    """``value`` as a TOML value: inline tables and arrays, strings with TOML's escapes."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "nan" if math.isnan(value) else {math.inf: "inf", -math.inf: "-inf"}.get(value, repr(value))
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return "{" + ", ".join(f"{toml_value(str(k))} = {toml_value(v)}" for k, v in value.items()) + "}"


def toml_document(data: dict[str, Any]) -> str:
    """Keys that are not tables first, then one ``[section]`` per table."""
    lines = [f"{toml_value(k)} = {toml_value(v)}" for k, v in data.items() if not isinstance(v, dict)]
    for name, table in data.items():
        if isinstance(table, dict):
            lines += [f"[{toml_value(name)}]", *(f"{toml_value(k)} = {toml_value(v)}" for k, v in table.items())]
    return "\n".join(lines) + "\n"


# --- generated values -----------------------------------------------------------------

scalars = (
    st.booleans()
    | st.integers(min_value=-(2**1100), max_value=2**1100)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20)
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


def paths(data: Any, prefix: tuple = ()) -> list[tuple]:
    """Every key path into ``data`` (dict keys and list indexes)."""
    children = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else []
    found = [prefix] if prefix else []
    for key, child in children:
        found += paths(child, (*prefix, key))
    return found


def replaced(data: Any, path: tuple, new: Any) -> Any:
    """A copy of ``data`` with the value at ``path`` replaced by ``new`` (deleted when ``new`` is ``DELETE``)."""
    if not path:
        return new
    copy = dict(data) if isinstance(data, dict) else list(data)
    if len(path) == 1 and new is DELETE:
        del copy[path[0]]
    else:
        copy[path[0]] = replaced(copy[path[0]], path[1:], new)
    return copy


DELETE = object()
ALL_PATHS = paths(DEFAULT)


def assert_loads_or_refuses(text: str, folder: Path) -> dict | None:
    path = folder / "fuzzed.toml"
    path.write_text(text, encoding="utf-8")
    try:
        return load_example(path)
    except ExampleError as error:
        assert str(error).startswith(f"{path}"), error
        return None


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


@FUZZ
@given(text=st.text(max_size=300))
def test_any_text(folder, text):
    assert_loads_or_refuses(text, folder)


@FUZZ
@given(position=st.integers(0, len(DEFAULT_TEXT)), cut=st.integers(0, 40), insert=st.text(max_size=12))
def test_the_default_file_edited_by_hand(folder, position, cut, insert):
    assert_loads_or_refuses(DEFAULT_TEXT[:position] + insert + DEFAULT_TEXT[position + cut :], folder)


@FUZZ
@given(path=st.sampled_from(ALL_PATHS), new=values | st.just(DELETE))
def test_one_value_replaced_or_deleted(folder, path, new):
    assert_loads_or_refuses(toml_document(replaced(DEFAULT, path, new)), folder)


@FUZZ
@given(
    x=st.lists(
        st.lists(st.floats(-3, 3, allow_subnormal=False), min_size=4, max_size=4),
        min_size=4,
        max_size=4,
    )
)
def test_valid_documents_load_and_compute(folder, x):
    loaded = assert_loads_or_refuses(toml_document(replaced(DEFAULT, ("worked_example", "X"), x)), folder)
    if loaded is None:  # refused: only when the dot-product demo has no query or no key to draw
        head = DEFAULT["worked_example"]["heads"][0]
        query, keys = np.array(x[0]) @ np.array(head["W_q"]), np.array(x) @ np.array(head["W_k"])
        assert np.linalg.norm(query) < 1e-5 or np.linalg.norm(keys, axis=1).max() < 1e-5
        return
    assert loaded["worked_example"]["X"].tolist() == x
    assert math.isfinite(float(compute(loaded).worked_example.output.sum()))


@pytest.mark.parametrize(
    ("value", "expected"),
    [("1" + "0" * 400, "from -100 to 100"), ("1" + "0" * 5000, "not valid TOML"), ("-" + "9" * 40, "from -100")],
    ids=["400 digits", "5000 digits", "40 nines"],
)
def test_integers_too_large_for_a_float_are_refused(folder, value, expected):
    path = folder / "large.toml"
    path.write_text(DEFAULT_TEXT.replace("[1.0, 0.5, 0.2, 0.1]", f"[{value}, 0.5, 0.2, 0.1]", 1), encoding="utf-8")
    with pytest.raises(ExampleError, match=expected):
        load_example(path)


def test_the_writer_round_trips_the_default_file():
    assert tomllib.loads(toml_document(DEFAULT)) == DEFAULT
