"""Every piece of text a scene draws: captions (Pango), formulas (TeX), the type scale, and the audit's one mark.

The numbers audit (``scenes.probe.audit_problems``) reads every number in every text on
screen and fails when no computed value explains it. It skips exactly the mobjects marked
with :func:`notation`, and nothing else. The rule for marking:

* mark **fixed notation**: digits that belong to a name, an index or a formula and read the
  same for any example — "Step 4", "head 1", "O(N²)", ``\\sum_{j=1}^{T}``;
* never mark text that holds a computed value, and never mark a group to hide one number.

So :func:`caption` and :func:`formula` are audited unless a scene marks them; a caption
that is only words has nothing to audit. Tokens never go through TeX or markup: a caption
is plain Pango text unless ``markup=True`` (fixed strings only).

Text is set in one family, Inter (:data:`FONT`), at the four sizes of the type scale —
:data:`TITLE`, :data:`BODY`, :data:`LABEL`, :data:`CELL` — never below :data:`MIN_FONT_SIZE`;
TeX sets formulas only (plain numbers are :class:`~scenes.kit.numbers.Number`, in Inter too).
The older size names below are aliases of the nearest step (ties go down, so a scene that used
them can only get smaller); formulas keep their own, larger sizes. docs/style.md shows the scale.
"""

from __future__ import annotations

import re
from typing import Any, TypeVar

from manim import ManimColor, MarkupText, MathTex, Mobject, Text, TexTemplate

from . import palette
from .numbers import Number
from .tokens import MIN_FONT_SIZE, TOKEN_FONT, LessonText, with_scripts

# --- the family: one for titles, sentences, labels, tokens and plain numbers ---
FONT = TOKEN_FONT
SANS = FONT
SERIF = FONT  # the concept chapters' serif is gone; the name stays for the scenes that pass it

# --- the type scale (manim font sizes of Text; at 480p a capital of size s is 0.61·s px tall) ---
TITLE = 34  # a scene's title; a question or verdict that stands alone
BODY = 26  # a sentence of explanation, a panel's heading
LABEL = 22  # axis names, legends, notes, tokens beside a figure
CELL = 18  # digits in cells, indices, a line of provenance
# older names, each the nearest step at or below it (PROMINENT rounds up to the title)
TINY = MIN_FONT_SIZE  # the floor, for labels packed into a dense figure
FINE = CELL
SMALL = CELL
CAPTION = LABEL
LEAD = BODY
HEADING = BODY
PROMINENT = TITLE

# --- formula sizes (TeX glyphs come out smaller than Text's at one size) ---
FORMULA = 36  # a formula beside a figure
FORMULA_LARGE = 38  # a formula that heads a step
DISPLAY = 40  # the formula or word a step is about
DISPLAY_LARGE = 44  # the lesson's core formula, the model's sizes
READOUT = 48  # live readouts and the operators between matrices (manim's default size)
HERO = 56  # the one word a scene is about

M = TypeVar("M", bound=Mobject)


def notation(mob: M) -> M:
    """Mark ``mob`` (and everything in it) as fixed notation: the numbers audit skips it.

    Only for digits that read the same for any example ("Step 4", "head 1", "O(N²)"); see
    the module docstring.
    """
    mob.audit_notation = True
    return mob


def caption(
    text: str,
    size: float = CAPTION,
    color: ManimColor = palette.TEXT,
    *,
    font: str = SANS,
    markup: bool = False,
    **kwargs: Any,
) -> Text | MarkupText:
    """A line (or lines) of text in the lesson's font: words, tokens, computed numbers.

    Parameters
    ----------
    text
        Shown literally (tokens and all), unless ``markup``.
    size
        A size of the type scale (``CAPTION``, ``BODY``, …).
    color
        A palette colour (its role).
    font
        :data:`FONT` (the default; ``SANS`` and ``SERIF`` are the same family now).
    markup
        Read ``text`` as Pango markup (``<span fgcolor=...>``): for fixed strings only.
    **kwargs
        Passed to :class:`~manim.Text` (``t2c``, ``weight``, ``line_spacing``).

    Examples
    --------
    >>> caption("rows are queries", LABEL).font_size
    22.0
    >>> caption("rows are queries").font
    'Inter'
    """
    if markup:  # LessonText draws its own scripts readable (with_scripts)
        text = with_scripts(text, size)
    kind = MarkupText if markup else LessonText
    return kind(text, font=font, font_size=size, color=color, **kwargs)


TEX_SCRIPT = 0.85  # a formula's sub- and superscripts, of its size (TeX's own 70 % read as 6 px at 480p), as Text's
LESSON_TEX = TexTemplate()  # manim's, its 10 pt formulas with scripts at TEX_SCRIPT and scripts of scripts at 70 %
LESSON_TEX.add_to_preamble(rf"\DeclareMathSizes{{10}}{{10}}{{{10 * TEX_SCRIPT:g}}}{{7}}")
# d's ascender leans right, and a script that size starts against it (the v of d_v touched the d at 480p)
LESSON_TEX.add_to_preamble(r"\newcommand{\afterd}{\mkern1.5mu}")
D_SCRIPT = re.compile(r"(?<![\\A-Za-z])d_(?:\{((?:[^{}]|\{[^{}]*\})*)\}|([A-Za-z0-9]))")


def clear_of_d(tex: str) -> str:
    r"""``tex`` with every subscript of d set a little to the right.

    >>> clear_of_d(r"d_v + d_{\text{model}} \cdot \sqrt{d_k}")
    'd_{\\afterd v} + d_{\\afterd \\text{model}} \\cdot \\sqrt{d_{\\afterd k}}'
    """
    return D_SCRIPT.sub(lambda m: rf"d_{{\afterd {m[1] if m[1] is not None else m[2]}}}", tex)


def formula(*tex: str, size: float = FORMULA, color: ManimColor = palette.TEXT, **kwargs: Any) -> MathTex:
    """A formula set by TeX, never holding a token (tokens go in a :func:`caption`).

    Parameters
    ----------
    *tex
        The TeX, in parts when the parts should be addressable (``TransformMatchingTex``).
    size
        A size of the type scale (``FORMULA``, ``TITLE``, …).
    color
        A palette colour; ``tex_to_color_map`` in ``kwargs`` colours parts by role.

    Examples
    --------
    >>> notation(formula(r"\\sum_{j=1}^{T} x_j")).audit_notation
    True
    """
    return MathTex(*map(clear_of_d, tex), font_size=size, color=color, tex_template=LESSON_TEX, **kwargs)


def product_sign(size: float = DISPLAY) -> MathTex:
    """The matrix product's sign, a centred dot, drawn twice its glyph's size: at its own it read as a full stop."""
    return formula(r"\cdot", size=size).scale(2.0)


def attention_formula(size: float = DISPLAY_LARGE) -> MathTex:
    """softmax(QKᵀ/√d_k)V with Q, K and V in their role colours."""
    return formula(
        r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\Big(\frac{Q K^{T}}{\sqrt{d_k}}\Big)\, V",
        size=size,
        tex_to_color_map=palette.ROLE,
    )


def number(
    value: float, places: int = 2, size: float = LABEL, color: ManimColor = palette.TEXT, **kwargs: Any
) -> Number:
    """A computed number in the lesson's font (a :class:`~manim.DecimalNumber` that animates the same way).

    Examples
    --------
    >>> number(0.256, 2).number
    0.256
    """
    return Number(value, num_decimal_places=places, font_size=size, color=color, **kwargs)
