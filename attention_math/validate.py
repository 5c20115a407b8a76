"""The example file's per-key checks: a reader for TOML tables and the parsers of their values.

Every check names the file, the key path and what was expected, so a user who
edits the file by hand can fix it without reading code. The sections built from
these checks are in :mod:`attention_math.example`.
"""

from __future__ import annotations

import difflib
import math
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .errors import ExampleError

# What the scenes can lay out legibly; the loader refuses anything beyond.
MAX_TOKENS = 12
MIN_TOKENS = 2
MAX_D_MODEL = 8
MAX_HEADS = 4
MAX_TOKEN_CHARS = 16
MAX_ABS_VALUE = 100.0
# e^700 ≈ 1e304: a larger scaled score would overflow the e^score the scenes show.
MAX_SCALED_SCORE = 700.0

_MISSING = object()


class Reader:
    """Reads one TOML table; :meth:`expect` reports unknown keys before any value is read."""

    def __init__(self, path: str, data: Any, key: str, parent: Reader | None = None) -> None:
        if not isinstance(data, dict):
            raise ExampleError(path, key, f"expected a table, got {kind(data)}")
        self.path, self.data, self.key, self.parent = path, data, key, parent
        self.keys: tuple[str, ...] = ()

    def sub(self, name: str) -> str:
        return f"{self.key}.{name}" if self.key else name

    def expect(self, *keys: str) -> None:
        """Refuse any key but ``keys``, so a typo is reported as a typo, not as a missing key."""
        self.keys = keys
        for name in self.data:
            if name in keys:
                continue
            if self.parent is not None and name in self.parent.keys:
                header = f"[[{self.key.split('[')[0]}]]" if "[" in self.key else f"[{self.key}]"
                raise ExampleError(
                    self.path,
                    self.sub(name),
                    f"belongs to [{self.parent.key}]: TOML puts every key below a {header} "
                    "header into that entry, so move it above the first one",
                )
            raise ExampleError(self.path, self.sub(name), f"unknown key{suggest(name, set(keys))}")

    def take(self, name: str, parse: Callable[[str, str, Any], Any], default: Any = _MISSING) -> Any:
        if name not in self.data:
            if default is not _MISSING:
                return default
            raise ExampleError(self.path, self.sub(name), "missing; this key is required")
        return parse(self.path, self.sub(name), self.data[name])

    def table(self, name: str) -> Reader:
        if name not in self.data:
            raise ExampleError(self.path, self.sub(name), "missing; this table is required")
        return Reader(self.path, self.data[name], self.sub(name), self)

    def tables(self, name: str, lo: int, hi: int) -> list[Reader]:
        items = self.data.get(name, _MISSING)
        if items is _MISSING:
            raise ExampleError(self.path, self.sub(name), "missing; this list of tables is required")
        if not isinstance(items, list) or not lo <= len(items) <= hi:
            raise ExampleError(
                self.path, self.sub(name), f"expected {lo} to {hi} tables ([[{self.sub(name)}]]), got {kind(items)}"
            )
        return [Reader(self.path, item, f"{self.sub(name)}[{i}]", self) for i, item in enumerate(items)]


def suggest(name: str, valid: set[str]) -> str:
    close = difflib.get_close_matches(name, sorted(valid), n=1, cutoff=0.5)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    return f"{hint} (valid keys: {', '.join(sorted(valid))})"


def kind(value: Any) -> str:
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, str):
        return f"a string ({value[:20]!r})"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return "a table"
    return f"{type(value).__name__} {value!r}"


# --- value parsers: (path, key, raw) -> value --------------------------------------


def number(path: str, key: str, raw: Any, lo: float = -MAX_ABS_VALUE, hi: float = MAX_ABS_VALUE) -> float:
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        raise ExampleError(path, key, f"expected a number, got {kind(raw)}")
    if isinstance(raw, float) and not math.isfinite(raw):
        raise ExampleError(path, key, f"expected a finite number, got {raw}")
    if not lo <= raw <= hi:  # compared exactly: an integer too large for a float is refused, not converted
        shown = f"{raw:g}" if isinstance(raw, float) else str(raw)
        raise ExampleError(path, key, f"expected a number from {lo:g} to {hi:g}, got {shown}")
    return float(raw)


def integer(lo: int, hi: int) -> Callable[[str, str, Any], int]:
    def parse(path: str, key: str, raw: Any) -> int:
        if isinstance(raw, bool) or not isinstance(raw, int):
            raise ExampleError(path, key, f"expected a whole number from {lo:,} to {hi:,}, got {kind(raw)}")
        if not lo <= raw <= hi:
            raise ExampleError(path, key, f"expected a whole number from {lo:,} to {hi:,}, got {raw:,}")
        return raw

    return parse


def listof(item: Callable[[str, str, Any], Any], lo: int, hi: int) -> Callable[[str, str, Any], list[Any]]:
    def parse(path: str, key: str, raw: Any) -> list[Any]:
        if not isinstance(raw, list):
            raise ExampleError(path, key, f"expected a list of {lo} to {hi} items, got {kind(raw)}")
        if not lo <= len(raw) <= hi:
            count = f"{lo}" if lo == hi else f"{lo} to {hi}"
            raise ExampleError(path, key, f"expected {count} items, got {len(raw)}")
        return [item(path, f"{key}[{i}]", x) for i, x in enumerate(raw)]

    return parse


def vector(lo: int = 1, hi: int = MAX_D_MODEL) -> Callable[[str, str, Any], np.ndarray]:
    items = listof(number, lo, hi)
    return lambda path, key, raw: np.array(items(path, key, raw), dtype=float)


def matrix(path: str, key: str, raw: Any) -> np.ndarray:
    """A non-empty rectangular matrix of finite numbers, as a list of rows."""
    if not isinstance(raw, list) or not raw:
        raise ExampleError(path, key, f"expected a non-empty matrix (a list of rows), got {kind(raw)}")
    rows = [vector(1, 64)(path, f"{key}[{i}]", row) for i, row in enumerate(raw)]
    widths = {len(r) for r in rows}
    if len(widths) > 1:
        raise ExampleError(path, key, f"ragged matrix: rows have different lengths {[len(r) for r in rows]}")
    return np.array(rows)


def token(path: str, key: str, raw: Any) -> str:
    if not isinstance(raw, str):
        raise ExampleError(path, key, f"expected a word (a string), got {kind(raw)}")
    if not raw or raw != raw.strip() or any(unicodedata.category(c)[0] in "CZ" and c != " " for c in raw):
        raise ExampleError(
            path, key, f"expected a word without leading/trailing spaces or control characters, got {raw!r}"
        )
    if len(raw) > MAX_TOKEN_CHARS:
        raise ExampleError(path, key, f"expected a word of at most {MAX_TOKEN_CHARS} characters, got {len(raw)}")
    pictographs = [c for c in raw if unicodedata.category(c) == "So"]
    if pictographs:
        raise ExampleError(
            path,
            key,
            f"expected letters, digits and punctuation, got {pictographs[0]!r} in {raw!r}: "
            "emoji and other pictographs are not drawn by the lesson's fonts",
        )
    return raw


tokens = listof(token, MIN_TOKENS, MAX_TOKENS)


def shape_of(path: str, key: str, m: np.ndarray, rows: int, cols: int, why: str) -> np.ndarray:
    if m.shape != (rows, cols):
        raise ExampleError(path, key, f"expected a {rows}×{cols} matrix ({why}), got {m.shape[0]}×{m.shape[1]}")
    return m


def member(path: str, key: str, word: str, words: list[str], what: str) -> int:
    if word not in words:
        raise ExampleError(path, key, f"expected one of the {what} {words}, got {word!r}")
    if words.count(word) > 1:
        times = words.count(word)
        raise ExampleError(path, key, f"expected a word that occurs once in the {what}, {word!r} occurs {times} times")
    return words.index(word)


def sentence(focus: str) -> Callable[[str, str, Any], str]:
    """A sentence of 2 to MAX_TOKENS words in which ``focus`` is one word, exactly once (any case)."""

    def parse(path: str, key: str, raw: Any) -> str:
        if not isinstance(raw, str):
            raise ExampleError(path, key, f"expected a sentence (a string), got {kind(raw)}")
        words = raw.split()
        if raw != " ".join(words) or not MIN_TOKENS <= len(words) <= MAX_TOKENS:
            raise ExampleError(
                path, key, f"expected {MIN_TOKENS} to {MAX_TOKENS} words with single spaces between them, got {raw!r}"
            )
        for i, word in enumerate(words):
            token(path, f"{key} word {i + 1}", word)
        if [w.lower() for w in words].count(focus.lower()) != 1:
            raise ExampleError(path, key, f"expected the focus word {focus!r} exactly once as a word, got {raw!r}")
        return raw

    return parse


def file_path(path: str, key: str, raw: Any) -> Path:
    """A file path; a relative one is read from the repository root."""
    if not isinstance(raw, str) or not raw.strip():
        raise ExampleError(path, key, f"expected a file path (a string), got {kind(raw)}")
    return Path(raw)
