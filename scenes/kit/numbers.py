"""How computed numbers are written on screen (the audit parses exactly these forms)."""

from __future__ import annotations

import numpy as np

_SCALES = ((10**12, "trillion"), (10**9, "billion"), (10**6, "million"), (10**3, "thousand"))
_BYTES = ((10**12, "TB"), (10**9, "GB"), (10**6, "MB"), (10**3, "KB"))


def fmt(value: float, places: int = 2) -> str:
    """A value rounded to ``places`` decimals, with no negative zero."""
    text = f"{float(value):.{places}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def fmt_int(value: int) -> str:
    """A whole number with thousands separators: 10,000."""
    return f"{int(value):,}"


def _scaled(value: float, units: tuple) -> str:
    for size, name in units:
        if value >= size and value % size == 0:
            return f"{fmt_int(value // size)} {name}"
    for size, name in units:
        if value >= size:
            return f"{value / size:.1f} {name}"
    return fmt_int(value)


def fmt_count(value: int) -> str:
    """A large count in words: 10 billion."""
    return _scaled(int(value), _SCALES)


def fmt_bytes(value: int) -> str:
    """A size in decimal units: 40 GB."""
    text = _scaled(int(value), _BYTES)
    return text if text[-1] == "B" else f"{text} bytes"


def places_for(values: np.ndarray, budget: int = 4) -> int:
    """Decimals needed to show ``values`` exactly, capped at ``budget``."""
    for p in range(budget + 1):
        if np.allclose(np.round(values, p), values, atol=1e-9):
            return p
    return budget
