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

Sizes come from the type scale below, one name per role, smallest to largest, and text is
set in one of two faces; a visual redesign changes them here. Both are the lesson's look as
it is today: the token font for tokens and most captions, a serif for the concept chapters'
sentences, headings and titles.
"""

from __future__ import annotations

from typing import Any, TypeVar

from manim import ManimColor, MarkupText, MathTex, Mobject, Text

from . import palette
from .tokens import MIN_FONT_SIZE, TOKEN_FONT

# --- the faces: the token font, and the serif plain Text used (Pango's default here, named so
# that another machine's default cannot change the look) ---
SANS = TOKEN_FONT
SERIF = "DejaVu Serif"

# --- the type scale (manim font sizes; TeX glyphs come out smaller than Pango's at one size) ---
TINY = MIN_FONT_SIZE  # labels packed into a dense figure (a map, a grid of heads)
FINE = 18  # a line of provenance under a figure
SMALL = 20  # conventions, indices, model and head names
LABEL = 22  # axis names, legends, notes beside a figure
CAPTION = 24  # a caption under or beside a figure
BODY = 26  # a sentence of explanation
LEAD = 28  # a line that carries the step's point; a panel's heading
HEADING = 30  # a section's heading; a line of conclusion
PROMINENT = 32  # a question or a verdict that stands alone
TITLE = 34  # scene titles; formulas and numbers inside a figure
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
        ``SANS`` (the token font) or ``SERIF``.
    markup
        Read ``text`` as Pango markup (``<span fgcolor=...>``): for fixed strings only.
    **kwargs
        Passed to :class:`~manim.Text` (``t2c``, ``weight``, ``line_spacing``).

    Examples
    --------
    >>> caption("rows are queries", LABEL).font_size
    22.0
    """
    kind = MarkupText if markup else Text
    return kind(text, font=font, font_size=size, color=color, **kwargs)


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
    return MathTex(*tex, font_size=size, color=color, **kwargs)


def attention_formula(size: float = DISPLAY_LARGE) -> MathTex:
    """softmax(QKᵀ/√d_k)V with Q, K and V in their role colours."""
    return formula(
        r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\Big(\frac{Q K^{T}}{\sqrt{d_k}}\Big)\, V",
        size=size,
        tex_to_color_map=palette.ROLE,
    )
