"""Tokens on screen: one font, one order, everywhere in the lesson."""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Sequence
from pathlib import Path
from xml.sax.saxutils import escape

import numpy as np
from manim import DOWN, RIGHT, UP, Animation, Indicate, ManimColor, Mobject, Text, VGroup, config
from manim.mobject.text.text_mobject import START_X, START_Y, TEXT2SVG_ADJUSTMENT_FACTOR
from manimpango import MarkupUtils

from . import palette

#: The lesson's one family, for every token, label, title and plain number. Pango falls back to
#: DejaVu Sans and Droid Sans Fallback for scripts Inter lacks (CJK), so any token still draws.
TOKEN_FONT = "Inter"

#: Smallest text the kit draws: its capitals and digits are 10.3 px tall at 480p, above the
#: layout check's floor of 10 px (scenes.probe.MIN_GLYPH_PX).
MIN_FONT_SIZE = 17


#: Inter's capital i with serifs (OpenType cv08): the plain one is a bare bar, read as "|" or,
#: turned, as a dash, and "I" is a token of the lesson's sentence.
SERIF_I = "cv08"

SCRIPT_SIZE = 85  # percent of the line's size: a subscript keeps a cap height of 10 px at 480p in a label drawn at 0.9
SUB_DROP = 0.09  # a subscript's drop below the baseline, per unit of font size (Pango's own barely lowers it)
SUBSCRIPTS = dict(zip("ₖᵢⱼᵥₘₙ₀₁₂₃₄₅₆₇₈₉₋", "kijvmn0123456789−", strict=True))
SUPERSCRIPTS = dict(zip("ᵀ²³", "T23", strict=True))
SCRIPT_RUN = re.compile(f"[{''.join(SUBSCRIPTS)}]+|[{''.join(SUPERSCRIPTS)}]+")
_SCRIPT_TAG = re.compile(r"<(sub|sup)>(.*?)</\1>")


def with_scripts(markup: str, size: float) -> str:
    """``markup`` with its Unicode sub- and superscripts ("dₖ", "QKᵀ") and its <sub>/<sup> as letters at
    :data:`SCRIPT_SIZE` of ``size``, lowered or raised: the fonts draw those glyphs at about 60 %, 8 px at 480p
    for a label."""

    def span(letters: str, sub: bool) -> str:  # raised by the font's metrics; lowered by a tenth of the size
        shift = f"rise='{-SUB_DROP * size:.1f}pt'" if sub else "baseline_shift='superscript'"
        return f"<span size='{SCRIPT_SIZE}%' {shift}>{letters}</span>"

    def unicode_run(match: re.Match) -> str:
        run = match.group(0)
        sub = run[0] in SUBSCRIPTS
        return span("".join((SUBSCRIPTS if sub else SUPERSCRIPTS)[c] for c in run), sub)

    markup = _SCRIPT_TAG.sub(lambda m: span(m.group(2), m.group(1) == "sub"), markup)
    return SCRIPT_RUN.sub(unicode_run, markup)


class LessonText(Text):
    """:class:`~manim.Text` whose capital i has serifs; otherwise the same glyphs, sizes and colours.

    Manim's Text cannot ask Pango for a font feature, so a one-line, one-style text holding an
    "I" is laid out through Pango markup with the feature switched on (the glyphs, one per
    visible character, are what Text would draw). Other texts are drawn as Text draws them.
    """

    @property
    def script_scale(self) -> float:
        """The size its sub- and superscripts are drawn at, per unit of its own (1 without any)."""
        return SCRIPT_SIZE / 100 if SCRIPT_RUN.search(self.text) else 1.0

    def _through_markup(self) -> bool:  # or scripts: drawn through markup too, readable (with_scripts)
        one_style = not (self.t2c or self.t2f or self.t2s or self.t2w or self.gradient)
        return ("I" in self.text or self.script_scale < 1) and "\n" not in self.text and one_style

    def _text2hash(self, color) -> str:
        plain = super()._text2hash(color)
        return (
            hashlib.sha256((plain + SERIF_I + "scripts").encode()).hexdigest()[:16] if self._through_markup() else plain
        )

    def _text2svg(self, color) -> str:
        if not self._through_markup():
            return super()._text2svg(color)
        folder = Path(config.get_dir("text_dir"))
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{self._text2hash(color)}.svg"
        if not path.exists():
            style = f'font_features="{SERIF_I}" foreground="{ManimColor(color).to_hex()}"'
            markup = f"<span {style}>{with_scripts(escape(self.text), self._font_size)}</span>"
            size = self._font_size / TEXT2SVG_ADJUSTMENT_FACTOR
            spacing = self.line_spacing / TEXT2SVG_ADJUSTMENT_FACTOR
            width, height = config["pixel_width"], config["pixel_height"]
            args = (self.font, self.slant, self.weight, size, spacing, self.disable_ligatures, str(path))
            MarkupUtils.text2svg(markup, *args, START_X, START_Y, width, height)
        return str(path.resolve())


class TokenLabel(LessonText):
    """A token drawn in the lesson's token font, never through LaTeX.

    Examples
    --------
    >>> TokenLabel("apple").width > 0
    True
    """

    def __init__(self, token: str, font_size: float = 26, color: ManimColor = palette.TEXT, **kwargs) -> None:
        super().__init__(token, font=TOKEN_FONT, font_size=font_size, color=color, **kwargs)
        self.token = token
        self.turned = False

    def turn(self) -> TokenLabel:
        """Rotate a quarter turn (reading upwards), keeping ``font_size`` the size of the letters."""
        before = self.height
        self.rotate(np.pi / 2)
        self.initial_height *= self.height / before
        self.turned = True
        return self


class TokenRow(VGroup):
    """The sentence's tokens in order, along ``direction`` (RIGHT: a sentence, DOWN: a column).

    Parameters
    ----------
    tokens
        The tokens, in sentence order.
    direction
        RIGHT to write them as a sentence, DOWN to stack them.
    spacing
        Gap between neighbouring tokens.
    font_size
        Size of every token.

    Examples
    --------
    >>> row = TokenRow(["I", "love", "apple"])
    >>> row.get_token(2).token
    'apple'
    """

    def __init__(
        self,
        tokens: Sequence[str],
        direction: np.ndarray = RIGHT,
        spacing: float = 0.3,
        font_size: float = 26,
        color: ManimColor = palette.TEXT,
        **kwargs,
    ) -> None:
        super().__init__(*(TokenLabel(t, font_size=font_size, color=color) for t in tokens), **kwargs)
        self.tokens = list(tokens)
        self.arrange(direction, buff=spacing, aligned_edge=DOWN if direction is RIGHT else RIGHT)
        if direction is RIGHT:  # one baseline: a word with a descender must not ride high
            line = min(baseline(t) for t in self.submobjects)
            for token in self.submobjects:
                token.shift((line - baseline(token)) * UP)

    def get_token(self, index: int) -> TokenLabel:
        """The label of token ``index``."""
        return self.submobjects[index]

    def highlight(self, index: int, color: ManimColor = palette.HIGHLIGHT) -> Animation:
        """An animation that points at token ``index``."""
        return Indicate(self.get_token(index), color=color, scale_factor=1.15)


def baseline(label: Mobject) -> float:
    """The y of the line ``label``'s letters sit on (its bottom, less any descender).

    A Text's glyphs follow its characters (spaces left out); glyphs that sit on the line are
    all but descenders and raised marks. Without such a glyph, the bottom stands in.
    """
    chars = "".join(getattr(label, "text", "").split())
    if len(chars) != len(label.submobjects) or getattr(label, "turned", False):
        return float(label.get_bottom()[1])
    sitting = [g.get_bottom()[1] for c, g in zip(chars, label.submobjects, strict=True) if c not in OFF_LINE]
    return float(min(sitting)) if sitting else float(label.get_bottom()[1])


def stacked(lines: Sequence[Mobject], pitch: float) -> VGroup:
    """``lines`` one under another, their baselines ``pitch`` apart: an even column, where arranging by boxes lets a
    descender ("grape") push the next line down."""
    first = baseline(lines[0])
    for i, line in enumerate(lines):
        line.shift((first - i * pitch - baseline(line)) * UP)
    return VGroup(*lines)


#: characters that do not sit on the baseline (descenders, raised marks)
OFF_LINE = set("gjpqyQ,;_()[]{}|/@$'\"`^*~°")


def stagger(
    labels: Sequence[Mobject],
    xs: Sequence[float],
    y: float,
    pitch: float,
    direction: np.ndarray = UP,
    room: float | None = None,
) -> None:
    """Set a row of labels on one line, each centred on its x; never on staggered levels.

    The labels share one baseline at ``y`` (the edge nearest the data, levels growing in
    ``direction``, UP or DOWN) when they fit side by side in ``pitch`` (the distance between
    two x's). When they do not: turn them all a quarter (reading upwards, so that a row never mixes
    upright and turned words; a single letter stays upright), all starting level at the data's edge, then
    shrink them (not below
    :data:`MIN_FONT_SIZE`), then abbreviate any longer than ``room`` with an ellipsis.
    (The name is the old one, kept for the scenes that call it.)
    """
    labels = list(labels)
    if not _fits(labels, pitch):
        for mob in labels:
            if not single_glyph(getattr(mob, "text", "")):  # turned, "I" would read as a dash: a letter stands upright
                mob.turn()
        _shrink(labels, pitch)
        if room is not None:
            for mob in labels:
                _abbreviate(mob, room)
    _set_on_line(labels, xs, y, direction)
    row = next(_rows)
    for mob in labels:
        mob.label_row = row  # the layout check finds the rows by it (scenes.probe.label_row_problems)


def single_glyph(text: str) -> bool:
    """Whether a label of ``text`` draws one character (a letter reads the same upright among turned words)."""
    return len("".join(text.split())) == 1


LABEL_GAP = 0.12  # least space between neighbouring labels of a row: about a word space at label size
_rows = itertools.count()


def _fits(labels: Sequence[Mobject], pitch: float) -> bool:
    """Whether neighbours centred ``pitch`` apart keep at least :data:`LABEL_GAP` between them."""
    widths = [m.width for m in labels]
    return all((a + b) / 2 + LABEL_GAP <= pitch for a, b in zip(widths, widths[1:], strict=False))


def _widest(labels: Sequence[Mobject]) -> float:
    return max((m.width for m in labels), default=0.0)


def _shrink(labels: list[Mobject], pitch: float) -> None:
    """Scale turned labels so their thickness fits ``pitch``, never below the minimum size."""
    widest = _widest(labels)
    if widest + LABEL_GAP <= pitch:
        return
    size = min((m.font_size for m in labels), default=MIN_FONT_SIZE)
    factor = max((pitch - LABEL_GAP) / widest, MIN_FONT_SIZE / size)
    for mob in labels:
        mob.scale(min(1.0, factor))


def _abbreviate(label: Mobject, room: float) -> None:
    """Cut a turned token to fit ``room`` along its reading direction, ending it with an ellipsis."""
    if not isinstance(label, TokenLabel) or label.height <= room:
        return
    token, size = label.token, label.font_size
    for keep in range(len(token) - 1, 0, -1):
        colour = label[0].get_fill_color()  # a glyph's: the Text's own colour is black
        short = TokenLabel(token[:keep] + "…", font_size=size, color=colour).turn()
        if short.height <= room or keep == 1:
            label.become(short)
            label.initial_height, label.text = short.initial_height, short.text  # what is drawn now, and its size
            label.token = token  # the token it stands for
            return


def _set_on_line(labels: list[Mobject], xs: Sequence[float], y: float, direction: np.ndarray) -> None:
    """Centre each label on its x; upright ones on one baseline, turned ones from one edge."""
    for mob, x in zip(labels, xs, strict=True):
        mob.set_x(x)
    if not labels:
        return
    if any(getattr(m, "turned", False) for m in labels):
        for mob in labels:
            mob.move_to(np.array([mob.get_x(), y, 0.0]), aligned_edge=-direction)
        return
    lines = [baseline(m) for m in labels]
    if direction[1] > 0:  # above the data: the deepest descender clears it
        line = y + max(line - m.get_bottom()[1] for line, m in zip(lines, labels, strict=True))
    else:  # below: the tallest letter clears it
        line = y - max(m.get_top()[1] - line for line, m in zip(lines, labels, strict=True))
    for mob, old in zip(labels, lines, strict=True):
        mob.shift((line - old) * UP)
