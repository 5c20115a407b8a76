"""The visual system (docs/style.md): colour maps that read right, digits legible on colour, labels on one line.

Lightness and contrast are computed here from sRGB with the standard formulas (CIELAB D65, WCAG 2),
not with the palette's own helpers.
"""

from __future__ import annotations

import itertools
import subprocess

import numpy as np
import pytest
from manim import ManimColor

from scenes.kit import LEAD, Heatmap, LabelledMatrix, SoftmaxBars, TokenLabel, formula, palette, stagger, text
from scenes.kit.numbers import Number
from scenes.kit.tokens import MIN_FONT_SIZE, TokenRow
from scenes.legibility import MIN_GLYPH_PX

SAMPLES = np.linspace(0.0, 1.0, 101)
BACKGROUND = "#111111"
ROLES = {"query": "#56B4E9", "key": "#E69F00", "value": "#009E73", "fruit": "#CC79A7", "tech": "#8F7CF7"}


def linear(hex_color: str) -> np.ndarray:
    rgb = np.array([int(hex_color.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4)])
    return np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)


def lightness(hex_color: str) -> float:
    """CIELAB L* (D65): L* = 116 f(Y) - 16."""
    y = float(linear(hex_color) @ [0.2126729, 0.7151522, 0.0721750])
    f = y ** (1 / 3) if y > (6 / 29) ** 3 else y / (3 * (6 / 29) ** 2) + 4 / 29
    return 116 * f - 16


def wcag_contrast(a: str, b: str) -> float:
    la, lb = (float(linear(c) @ [0.2126, 0.7152, 0.0722]) for c in (a, b))
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def hex_of(color: ManimColor) -> str:
    return ManimColor(color).to_hex()


def test_the_colour_map_rises_in_lightness_strictly_across_50_units():
    ls = [lightness(hex_of(palette.heat(t))) for t in SAMPLES]
    assert all(b > a for a, b in zip(ls, ls[1:], strict=False)), "L* must rise with the value"
    assert ls[-1] - ls[0] >= 50
    assert ls[0] > lightness(BACKGROUND)  # low values sit closest to the background


def test_the_diverging_map_is_dimmest_at_zero_and_brightens_both_ways():
    ts = np.linspace(0, 1, 51)
    for sign in (-1, 1):
        ls = [lightness(hex_of(palette.diverging(sign * t))) for t in ts]
        assert all(b > a for a, b in zip(ls, ls[1:], strict=False))
        assert ls[-1] - ls[0] >= 40
    assert abs(lightness(hex_of(palette.diverging(-0.7))) - lightness(hex_of(palette.diverging(0.7)))) < 1.0


def lab(hex_color: str) -> np.ndarray:
    """CIELAB (D65) from sRGB, by the standard formulas."""
    xyz = (
        np.array(
            [[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750], [0.0193339, 0.1191920, 0.9503041]]
        )
        @ linear(hex_color)
        / np.array([0.95047, 1.0, 1.08883])
    )
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def test_the_diverging_ends_are_not_the_query_or_key_colours():
    """A score bar at either end of the signed map must not read as a query (blue) or a key (orange): each end
    differs from both roles' colours in hue (by more than 20°) or in chroma (by more than 30), the old blue and
    amber ends did neither."""

    def hue_and_chroma(hex_color: str) -> tuple[float, float]:
        _, a, b = lab(hex_color)
        return float(np.degrees(np.arctan2(b, a)) % 360), float(np.hypot(a, b))

    for end in (-1.0, 1.0):
        hue, chroma = hue_and_chroma(hex_of(palette.diverging(end)))
        for role in ("query", "key"):
            role_hue, role_chroma = hue_and_chroma(ROLES[role])
            gap = abs(hue - role_hue) % 360
            assert min(gap, 360 - gap) > 20 or abs(chroma - role_chroma) > 30, (end, role)


@pytest.mark.parametrize("name", sorted(ROLES))
def test_role_colours_keep_their_roles_and_contrast(name):
    colour = getattr(palette, name.upper())
    assert hex_of(colour).upper() == ROLES[name]
    assert wcag_contrast(ROLES[name], BACKGROUND) >= 4.5  # role colours also colour text (labels, verdicts)


def test_role_colours_are_told_apart_from_each_other():
    """Every two roles differ by at least 45 in CIELAB (ΔE76). The tech cluster's old blue, #3D7FE0, stood 35 from
    the query's sky blue: across the lesson, blue meant a query in one clip and tech in the next."""

    def delta(a: str, b: str) -> float:
        return float(np.linalg.norm(np.subtract(lab(a), lab(b))))

    for a, b in itertools.combinations(ROLES, 2):
        assert delta(ROLES[a], ROLES[b]) >= 45, (a, b)
    assert delta("#3D7FE0", ROLES["query"]) < 45


def test_every_heat_and_accent_colour_stands_out_from_the_background():
    colours = [hex_of(palette.heat(t)) for t in SAMPLES] + [hex_of(palette.diverging(2 * t - 1)) for t in SAMPLES]
    colours += [
        hex_of(c) for c in (palette.HIGHLIGHT, palette.ALERT, palette.MUTED, palette.HEAT_LOW, palette.HEAT_HIGH)
    ]
    assert hex_of(palette.BACKGROUND) == BACKGROUND
    assert min(wcag_contrast(c, BACKGROUND) for c in colours) >= 3


def test_text_on_any_fill_reaches_contrast_4_5():
    rng = np.random.default_rng(0)
    fills = [hex_of(palette.heat(t)) for t in SAMPLES] + [hex_of(palette.diverging(2 * t - 1)) for t in SAMPLES]
    fills += ["#{:02X}{:02X}{:02X}".format(*rgb) for rgb in rng.integers(0, 256, size=(300, 3))]
    worst = min(wcag_contrast(hex_of(palette.text_on(ManimColor(f))), f) for f in fills)
    assert worst >= 4.5


def test_digits_on_heatmap_cells_contrast_with_their_cell():
    weights = np.array([[0.05, 0.15, 0.8], [0.3, 0.33, 0.37], [0.6, 0.1, 0.3]])
    h = Heatmap(weights, ["a", "b", "c"])
    assert len(h.get_digits()) == 9
    for cell, digit in zip(h.get_cells(), h.get_digits(), strict=True):
        assert wcag_contrast(hex_of(digit.get_fill_color()), hex_of(cell.get_fill_color())) >= 4.5


def test_attention_weights_have_one_colour_scale_everywhere():
    """A weight of 0.3 is the same colour in any heatmap and any weights chart, whatever else they hold."""
    one = Heatmap(np.array([[0.2, 0.3], [0.45, 0.05]]), ["a", "b"])
    other = Heatmap(np.array([[0.3, 0.7], [0.9, 0.1]]), ["a", "b"])
    bars = SoftmaxBars(np.array([0.3, 0.6, 0.1]), ["a", "b", "c"], weights=True)
    colours = {c.get_fill_color().to_hex() for c in (one.get_cell(0, 1), other.get_cell(0, 0), bars.get_bars()[0])}
    assert len(colours) == 1
    assert [n.number for n in one.get_legend()[0].get_numbers()] == [0.0, 1.0]
    exps = SoftmaxBars(np.array([2.0, 5.0, 3.0]), ["a", "b", "c"])  # not weights: scaled to their own top
    assert exps.get_legend()[0].get_numbers()[1].number == 5.0
    assert len(SoftmaxBars(np.array([0.5, 0.5]), ["a", "b"], color=palette.QUERY).get_legend()) == 0


def baseline(label: TokenLabel) -> float:
    """Bottom of the glyphs that sit on the line (no descenders) — measured here, not by the kit."""
    chars = label.text
    return min(g.get_bottom()[1] for c, g in zip(chars, label, strict=True) if c not in "gjpqy")


def test_short_labels_share_one_baseline():
    labels = [TokenLabel(t, font_size=text.LABEL) for t in ["I", "love", "apple", "phones"]]
    stagger(labels, [1.2 * j for j in range(4)], 0.0, 1.2)
    assert np.ptp([baseline(m) for m in labels]) < 1e-6
    assert min(m.get_bottom()[1] for m in labels) >= -1e-6  # descenders clear the data edge


@pytest.mark.parametrize("pitch", [0.6, 0.3])
def test_labels_that_do_not_fit_turn_together_never_stagger(pitch):
    labels = [TokenLabel(t, font_size=text.LABEL) for t in ["grandmother", "I", "kitchen", "spoons"]]
    stagger(labels, [j * pitch for j in range(4)], 0.0, pitch)
    assert [m.turned for m in labels] == [True, False, True, True]  # words all turn; turned, "I" reads as a dash
    assert np.ptp([m.get_bottom()[1] for m in labels]) < 1e-6  # all start at the data edge
    assert all(m.font_size >= MIN_FONT_SIZE - 1e-6 for m in labels)


def test_the_layout_check_finds_a_row_mixing_upright_and_turned_labels():
    from scenes.legibility import legibility_problems

    labels = [TokenLabel(t, font_size=text.LABEL) for t in ["grandmother", "Ich", "I"]]
    labels[0].turn()
    for label in labels:
        label.label_row = -1
    assert any("mix upright and turned" in p for p in legibility_problems(snapshot_of(*labels)))


def test_turned_labels_longer_than_the_room_are_abbreviated():
    labels = [TokenLabel(t, font_size=text.LABEL) for t in ["Donaudampfschiff", "b"]]
    stagger(labels, [0.0, 0.3], 0.0, 0.3, room=1.0)
    assert labels[0].height <= 1.0 + 1e-6 and labels[0].token == "Donaudampfschiff"


def test_matrix_and_heatmap_column_labels_are_on_one_line():
    m = LabelledMatrix(np.full((2, 4), -12.25), col_labels=["I", "love", "apple", "phones"], font_size=30)
    h = Heatmap(np.full((4, 4), 0.25), ["I", "love", "apple", "phones"], cell=1.2)
    for row in (m.get_column_labels(), h.col_labels):
        assert np.ptp([baseline(label) for label in row]) < 1e-6


def test_numbers_are_set_in_the_one_family_at_text_size():
    digit = Number(8.0, num_decimal_places=0, font_size=40)
    same = text.caption("8", 40)
    assert np.isclose(digit.height, same.height, rtol=0.02)
    assert text.caption("x").font == text.FONT == "Inter" and text.SERIF == text.FONT


def test_the_type_scale_is_four_steps_above_the_minimum():
    steps = [text.CELL, text.LABEL, text.BODY, text.TITLE]
    assert steps == sorted(set(steps)) and steps[0] >= MIN_FONT_SIZE


def test_the_smallest_size_is_legible_at_480p():
    capital = text.caption("H", MIN_FONT_SIZE)
    assert capital.height * 480 / 8 >= MIN_GLYPH_PX  # a 480p frame is 480 px for 8 units


def test_inter_is_installed():
    families = subprocess.run(["fc-list", ":family=Inter", "family"], capture_output=True, text=True).stdout
    assert "Inter" in families, "apt-get install fonts-inter (SYSTEM_PACKAGES in the Makefile)"


def snapshot_of(*mobjects):
    from scenes.probe import Snapshot, screen

    return [screen(list(mobjects), Snapshot(0, "play"))]


def test_the_layout_check_finds_small_glyphs_and_staggered_labels():
    from scenes.legibility import legibility_problems

    small = text.caption("tiny words", 12)
    assert any("px < 10" in p for p in legibility_problems(snapshot_of(small)))
    assert legibility_problems(snapshot_of(text.caption("legible words", MIN_FONT_SIZE))) == []
    labels = [TokenLabel(t, font_size=text.LABEL) for t in ["I", "love", "apple"]]
    stagger(labels, [0.0, 1.2, 2.4], 0.0, 1.2)
    assert legibility_problems(snapshot_of(*labels)) == []
    labels[1].shift(0.3 * np.array([0, 1, 0]))  # the old second level
    assert any("not on one baseline" in p for p in legibility_problems(snapshot_of(*labels)))


def test_the_layout_check_finds_a_subscript_spelt_as_code():
    from scenes.legibility import legibility_problems

    assert any("as code" in p for p in legibility_problems(snapshot_of(text.caption("divide by √d_k", LEAD))))
    assert legibility_problems(snapshot_of(text.caption("divide by √dₖ", LEAD))) == []
    subscript = text.caption("W<sub>q</sub> is learned", LEAD, markup=True)
    assert legibility_problems(snapshot_of(subscript)) == []
    assert legibility_problems(snapshot_of(formula(r"\sqrt{d_k}"))) == []  # TeX writes the subscript


def test_a_formula_is_measured_by_its_subscripts():
    """The lesson's TeX sets a subscript at 85 % of the formula: K^T at 27 has 9.8 px scripts and fails; at 33
    its T reads (12 px), and a formula without scripts at 27 is fine (11.6 px)."""
    from scenes.legibility import legibility_problems

    assert any("px < 10" in p for p in legibility_problems(snapshot_of(text.formula("K^T", size=27))))
    assert legibility_problems(snapshot_of(text.formula("K^T", size=33))) == []
    assert legibility_problems(snapshot_of(text.formula("QK", size=27))) == []


def test_formulas_draw_their_subscripts_larger_than_tex_does():
    """TeX's own scripts, 70 % of the formula, read 6–7 px at 480p; the lesson's template draws them at 85 %.
    d and k both reach the ascender line, so the height of k over d is the script's size."""
    from manim import MathTex

    d, k = text.formula("d_k", size=48)[0]
    plain_d, plain_k = MathTex("d_k", font_size=48)[0]
    assert plain_k.height / plain_d.height < 0.72  # TeX's default
    assert k.height / d.height > 0.78


def test_a_script_of_d_keeps_clear_of_its_ascender():
    """At 85 % the v of d_v started within 0.6 px of the d at 480p and read as touching it; the lesson's
    formulas set d's scripts 1.5 mu further right. A pixel at 480p is 8/480 of a unit."""
    from manim import MathTex

    pixel = 8 / 480
    for tex in ("d_v", "d_{model}", r"d_{\text{model}}", "d_k"):
        d, script = text.formula(tex, size=text.FORMULA)[0][:2]
        plain_d, plain_script = MathTex(tex, font_size=text.FORMULA, tex_template=text.LESSON_TEX)[0][:2]
        assert plain_script.get_left()[0] - plain_d.get_right()[0] < 1.2 * pixel  # what TeX does
        assert script.get_left()[0] - d.get_right()[0] > 1.8 * pixel


def test_bar_numbers_that_would_touch_thin_out_keeping_the_largest():
    """12 narrow bars: "0.060.050.04" ran together; now only numbers that keep clear of each other show,
    the largest value's first."""
    values = np.array([0.06, 0.05, 0.04, 0.2, 0.07, 0.09, 0.1, 0.07, 0.04, 0.2, 0.05, 0.03])
    bars = SoftmaxBars(values, [f"w{i}" for i in range(12)], bar_width=0.25, weights=True)
    shown = [n for n in bars.get_numbers() if n.get_fill_opacity() > 0]
    assert bars.get_numbers()[3].get_fill_opacity() > 0  # the largest is always labelled
    assert 1 < len(shown) < 12
    for i, a in enumerate(shown):
        for b in shown[i + 1 :]:
            apart_x = a.get_right()[0] <= b.get_left()[0] or b.get_right()[0] <= a.get_left()[0]
            apart_y = a.get_top()[1] <= b.get_bottom()[1] or b.get_top()[1] <= a.get_bottom()[1]
            assert apart_x or apart_y


def test_a_sentence_sits_on_one_baseline():
    """'apple phones' beside 'I love': descenders hang below the line, they do not lift the word."""
    row = TokenRow(["I", "love", "apple", "phones"])
    assert np.ptp([baseline(t) for t in row.submobjects]) < 1e-6
    assert row.get_token(2).get_bottom()[1] < row.get_token(1).get_bottom()[1] - 0.02  # the p hangs below


def test_a_unicode_subscript_is_measured_at_its_own_size_and_caption_draws_it_readable():
    from manim import MarkupText, Text

    from scenes.legibility import legibility_problems

    font = {"font": "Inter", "font_size": text.LABEL}
    raw = Text("dₖ and QKᵀ", **font)  # the font's own script glyphs: about 8 px at 480p
    assert any("px < 10" in p for p in legibility_problems(snapshot_of(raw)))
    assert any("px < 10" in p for p in legibility_problems(snapshot_of(MarkupText("W<sub>Q</sub>", **font))))
    drawn = text.caption("dₖ and QKᵀ, W<sub>Q</sub>", text.LABEL, markup=True)
    assert isinstance(drawn, MarkupText) and "<sub>" not in drawn.original_text
    for shown in (drawn, text.caption("dₖ and QKᵀ", text.LABEL)):  # markup, and plain text (a LessonText)
        assert legibility_problems(snapshot_of(shown)) == []
        k = shown[1]  # "d", then the subscript k: its own glyph, measured here
        assert k.height * 480 / 8 >= MIN_GLYPH_PX and k.get_bottom()[1] < shown[0].get_bottom()[1]  # readable, lowered
