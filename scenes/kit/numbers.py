"""How computed numbers are written on screen (the audit parses exactly these forms), and set (:class:`Number`)."""

from __future__ import annotations

from typing import Any

import numpy as np
from manim import ORIGIN, DecimalNumber, Text

from .tokens import TOKEN_FONT

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


def vector_text(values: np.ndarray, places: int | None = None, most: int | None = None) -> str:
    """A vector as "[1, 0, 1, 0]", with as many decimals as its values need (or ``places``); longer than ``most``,
    its first ``most - 1`` values and an ellipsis, "[1, 0, 1, …]".

    >>> vector_text([0.5, 1, 0, 2, 3], most=4)
    '[0.5, 1.0, 0.0, …]'
    """
    values = np.asarray(values, dtype=float)
    places = places_for(values, 2) if places is None else places
    shown = [fmt(v, places) for v in (values if most is None or len(values) <= most else values[: most - 1])]
    return "[" + ", ".join(shown + (["…"] if len(shown) < len(values) else [])) + "]"


# --- numbers set in the lesson's font -------------------------------------------------------

_TEMPLATE = "0123456789.,−+"  # one Text gives every glyph on a common baseline
_REFERENCE = 48.0  # font size the template is set at (scaled per number)
_templates: dict[str, Text] = {}


def _template(font: str) -> Text:
    if font not in _templates:
        _templates[font] = Text(_TEMPLATE, font=font, font_size=_REFERENCE)
    return _templates[font]


class Number(DecimalNumber):
    """A computed number in the lesson's font (Inter) instead of TeX, with tabular digits.

    It is a :class:`~manim.DecimalNumber` (``.number``, ``set_value``, ``ChangeDecimalToValue``
    and the numbers audit work as before); only its glyphs differ. ``font_size`` is the size of
    a :class:`~manim.Text` whose digits are as tall. Units and ellipses fall back to TeX.

    Examples
    --------
    >>> Number(-1.5, num_decimal_places=2).number
    -1.5
    """

    def __init__(self, number: float = 0, *args: Any, font: str = TOKEN_FONT, **kwargs: Any) -> None:
        self.font = font
        super().__init__(number, *args, **kwargs)

    def _set_submobjects_from_number(self, number: float) -> None:
        if self.unit is not None or self.show_ellipsis or self.include_background_rectangle:
            super()._set_submobjects_from_number(number)
            return
        self.number = number
        template = _template(self.font)
        glyphs = {c: template[i] for i, c in enumerate(_TEMPLATE)}
        baseline = glyphs["1"].get_bottom()[1]
        digit = max(glyphs[c].width for c in "0123456789")
        gap = 0.08 * glyphs["0"].height
        self.submobjects = []
        x = 0.0
        for char in self._get_num_string(number).replace("-", "−"):
            glyph = glyphs[char].copy()
            width = digit if char.isdigit() else glyph.width
            glyph.move_to(np.array([x + width / 2, glyph.get_center()[1] - baseline, 0.0]))
            self.add(glyph)
            x += width + gap
        self.scale(self._font_size / _REFERENCE)
        self.move_to(ORIGIN)
        self.initial_height = self.height
