"""Legibility checks on what the probe saw: glyphs tall enough at 480p, label rows on one line,
no subscript spelt as code (``d_k``) in plain text.

The probe (``scenes.probe``) calls :func:`measure` on every visible text after every step, and
``layout_problems`` adds :func:`legibility_problems` to its own. The measures are taken from
the glyphs on screen, independently of how the kit placed them.

The metric: the **cap height** — the height of a capital letter or a digit — in pixels of a
480p frame, at least :data:`MIN_GLYPH_PX`. A Text is measured on its own glyphs that reach cap
height and sit on the line (capitals, digits, b d h k l); a text without one, and TeX (formulas,
whose glyphs cannot be told apart), from its font size and the family's measured cap height.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from manim import DecimalNumber, MarkupText, Mobject, SingleStringMathTex, Text

from scenes.kit.text import TEX_SCRIPT
from scenes.kit.tokens import SCRIPT_RUN, single_glyph

MIN_GLYPH_PX = 10.0  # least cap height, in pixels at 480p
PX_PER_UNIT = 480 / 8.0  # a 480p frame is 480 px for manim's 8 units of frame height
LINE_TOLERANCE = 0.01  # scene units (0.6 px at 480p) between baselines of one row
TALL = set("0123456789ABCDEFGHIKLMNOPRSTUVWXYZbdhkl")  # reach cap height (or just above), sit on the line
DESCEND = set("gjpqyQJ,;_()[]{}|/@$")
# cap height per unit of font size, in scene units (measured: Text "H" at size 100 is 1.01 tall,
# TeX "0" at size 100 is 0.714 tall)
CAP_PER_SIZE = {"text": 0.0101, "tex": 0.00714}
SCRIPT = TEX_SCRIPT  # a formula's sub- and superscripts, of its size (kit.text.LESSON_TEX): its smallest glyphs
FONT_SCRIPT = 0.6  # the fonts' own script glyphs (ₖ, ᵀ, <sub>): measured 8.9 px at 480p beside a 13.5 px "d"
CODE_SUBSCRIPT = re.compile(r"[A-Za-z]_[A-Za-z0-9{]")  # "d_k", "W_q", "d_model"


@dataclass
class Measure:
    """What the legibility checks need of one text on screen."""

    glyph_px: float | None  # cap height in pixels at 480p
    row: int | None  # the kit's label row this text belongs to (``label_row``)
    turned: bool  # set reading upwards
    line: float  # upright: y of the baseline; turned: unused
    bottom: float
    top: float
    code: bool  # plain text spelling a subscript as code ("d_k"): the screen shows dₖ or W<sub>q</sub>


def _glyph_chars(m: Mobject) -> str:
    if isinstance(m, DecimalNumber):
        return m._get_num_string(m.number) if m.unit is None and not m.show_ellipsis else ""
    if isinstance(m, MarkupText | SingleStringMathTex):
        return ""
    return "".join(str(getattr(m, "text", "")).split())


def _cap_height(m: Mobject, chars: str, turned: bool) -> float | None:
    glyphs = list(m.submobjects)
    if chars and len(chars) == len(glyphs):
        tall = [g.width if turned else g.height for c, g in zip(chars, glyphs, strict=True) if c in TALL]
        if tall:
            return float(min(tall)) * _script_scale(m)
    size = getattr(m, "font_size", None)
    if size is None:
        return None
    kind = "tex" if isinstance(m, SingleStringMathTex) or (isinstance(m, DecimalNumber) and not chars) else "text"
    scripts = isinstance(m, SingleStringMathTex) and bool(re.search(r"[_^]", m.tex_string))
    return float(size) * CAP_PER_SIZE[kind] * (SCRIPT if scripts else _script_scale(m))


def _script_scale(m: Mobject) -> float:
    """The smallest size a text's letters are drawn at, per unit of its own: a Unicode sub- or superscript ("dₖ") or
    a Pango <sub>/<sup> at the font's ~60 %, a ``size='85%'`` span (kit.tokens.with_scripts) at 85 %, else 1."""
    if (own := getattr(m, "script_scale", None)) is not None:  # a LessonText draws its scripts itself
        return float(own)
    text = str(getattr(m, "original_text", getattr(m, "text", "")))
    scales = [float(p) / 100 for p in re.findall(r"size='(\d+)%'", text)]
    if SCRIPT_RUN.search(text) or re.search(r"<su[bp]>", text):
        scales.append(FONT_SCRIPT)
    return min([1.0, *scales])


def _baseline(m: Mobject, chars: str) -> float:
    glyphs = list(m.submobjects)
    if chars and len(chars) == len(glyphs):
        sitting = [g.get_bottom()[1] for c, g in zip(chars, glyphs, strict=True) if c not in DESCEND]
        if sitting:
            return float(min(sitting))
    return float(m.get_bottom()[1])


def measure(m: Mobject) -> Measure:
    """Cap height, label row and baseline of one visible text."""
    chars = _glyph_chars(m)
    turned = bool(getattr(m, "turned", False))
    cap = _cap_height(m, chars, turned)
    return Measure(
        glyph_px=None if cap is None else cap * PX_PER_UNIT,
        row=getattr(m, "label_row", None),
        turned=turned,
        line=_baseline(m, chars),
        bottom=float(m.get_bottom()[1]),
        top=float(m.get_top()[1]),
        code=isinstance(m, Text | MarkupText)
        and bool(CODE_SUBSCRIPT.search(re.sub(r"<[^>]+>", "", str(getattr(m, "text", ""))))),  # not in tags
    )


def _row_problem(texts: list[str], measures: list[Measure]) -> str | None:
    words = [m for t, m in zip(texts, measures, strict=True) if not single_glyph(t)]  # a letter stands upright
    if any(m.turned for m in words) and not all(m.turned for m in words):
        return f"labels {texts} mix upright and turned"
    if any(m.turned for m in measures):  # reading upwards: one end level with the data edge
        spread = min(np.ptp([m.bottom for m in measures]), np.ptp([m.top for m in measures]))
        return None if spread <= LINE_TOLERANCE else f"turned labels {texts} do not start level ({spread:.2f})"
    spread = float(np.ptp([m.line for m in measures]))
    return None if spread <= LINE_TOLERANCE else f"labels {texts} are not on one baseline ({spread:.2f} apart)"


def legibility_problems(snapshots: Iterable[Any]) -> list[str]:
    """Glyphs below :data:`MIN_GLYPH_PX`, label rows off one line and code subscripts, after every step."""
    problems = []
    for snap in snapshots:
        where = f"after {snap.call} #{snap.step}"
        rows: dict[int, list[Any]] = defaultdict(list)
        for s in snap.shown:
            if s.measure is None:
                continue
            if s.measure.glyph_px is not None and s.measure.glyph_px < MIN_GLYPH_PX - 0.05:
                problems.append(f"{where}: {s.text!r} glyphs {s.measure.glyph_px:.1f} px < {MIN_GLYPH_PX:g} at 480p")
            if s.measure.code:
                problems.append(f"{where}: {s.text!r} spells a subscript as code (write dₖ or W<sub>q</sub>)")
            if s.measure.row is not None:
                rows[s.measure.row].append(s)
        for row in rows.values():
            problem = _row_problem([s.text for s in row], [s.measure for s in row]) if len(row) > 1 else None
            if problem:
                problems.append(f"{where}: {problem}")
    return sorted(set(problems))
