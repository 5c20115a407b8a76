"""The component kit: what each component draws, checked against hand-worked expectations."""

import numpy as np
import pytest
from manim import DOWN, VGroup, config

from scenes.kit import (
    TOKEN_FONT,
    Heatmap,
    LabelledMatrix,
    SoftmaxBars,
    TokenLabel,
    TokenRow,
    VectorPlane,
    palette,
    shown_indices,
    stagger,
)

TOKENS = ["I", "love", "apple", "phones"]


def test_shown_indices_keeps_first_and_last():
    assert shown_indices(4, 6) == [0, 1, 2, 3]
    assert shown_indices(12, 6) == [0, 1, 2, 3, None, 11]


def test_token_row_keeps_order_and_font():
    row = TokenRow(TOKENS)
    assert [row.get_token(i).token for i in range(4)] == TOKENS
    assert all(t.font == TOKEN_FONT for t in row)
    xs = [row.get_token(i).get_center()[0] for i in range(4)]
    assert xs == sorted(xs)
    column = TokenRow(TOKENS, direction=DOWN)
    ys = [column.get_token(i).get_center()[1] for i in range(4)]
    assert ys == sorted(ys, reverse=True)


def test_matrix_entries_are_the_values_in_place():
    values = np.array([[1.0, -0.5], [0.25, 2.0]])
    m = LabelledMatrix(values, row_labels=["a", "b"], col_labels=["x", "y"], name="M")
    assert m.get_entry(1, 0).number == 0.25
    assert m.places == 2
    # Row 0 is above row 1, column 0 left of column 1.
    assert m.get_entry(0, 0).get_center()[1] > m.get_entry(1, 0).get_center()[1]
    assert m.get_entry(0, 0).get_center()[0] < m.get_entry(0, 1).get_center()[0]
    assert [c.number for c in m.get_row(0)] == [1.0, -0.5]
    assert [c.number for c in m.get_column(1)] == [-0.5, 2.0]
    # The row label of "b" sits left of its row, at its height.
    label = m.get_row_labels()[1]
    assert label.get_right()[0] < m.get_entry(1, 0).get_left()[0]
    assert abs(label.get_center()[1] - m.get_entry(1, 0).get_center()[1]) < 0.05


def test_large_matrix_is_abbreviated_and_fits():
    values = np.arange(96, dtype=float).reshape(12, 8) / 10
    m = LabelledMatrix(values, row_labels=[f"w{i}" for i in range(12)], max_rows=7, max_cols=5)
    assert m.shown_rows == [0, 1, 2, 3, 4, None, 11]
    assert not m.is_shown(6, 0) and m.is_shown(11, 7)
    with pytest.raises(KeyError):
        m.get_entry(6, 0)
    assert len(m.get_entries()) == 6 * 4
    assert m.width < config.frame_width and m.height < config.frame_height


def test_fit_within_never_shrinks_digits_below_legible():
    m = LabelledMatrix(np.ones((12, 8)), font_size=30).fit_within(1.0, 1.0)
    assert m.get_entry(0, 0).font_size >= 16


def test_colour_only_matrix_has_no_digits():
    m = LabelledMatrix(np.array([[0.0, 2.0]]), show_digits=False)
    weak, strong = m.get_entry(0, 0), m.get_entry(0, 1)
    assert strong.get_fill_opacity() > weak.get_fill_opacity()


def test_row_frame_surrounds_the_row():
    m = LabelledMatrix(np.ones((3, 3)))
    frame, row = m.row_frame(1), m.get_row(1)
    assert frame.get_left()[0] <= row.get_left()[0] and frame.get_right()[0] >= row.get_right()[0]
    assert frame.get_bottom()[1] <= row.get_bottom()[1] and frame.get_top()[1] >= row.get_top()[1]
    assert frame.height < 2 * m.cell_height  # one row only


def test_heatmap_shades_low_dim_high_bright():
    w = np.array([[0.1, 0.9], [0.5, 0.5]])
    h = Heatmap(w, ["a", "b"], caption=True)
    assert h.get_cell(0, 0).get_fill_color().to_hex().lower() == palette.heat(0.1).to_hex().lower()
    assert h.get_cell(0, 1).get_fill_color().to_hex().lower() == palette.heat(0.9).to_hex().lower()
    assert [n.number for n in h.get_legend()[0].get_numbers()] == [0.0, 1.0]  # weights: the fixed range
    assert [d.number for d in h.get_row_digits(1)] == [0.5, 0.5]
    assert "rows are queries" in h.get_caption()[0].original_text


def test_heatmap_drops_digits_when_cells_are_tiny():
    h = Heatmap(np.full((12, 12), 1 / 12), [f"t{i}" for i in range(12)], cell=0.3)
    assert len(h.get_digits()) == 0
    assert len(h.get_cells()) == 144


def test_softmax_bars_heights_are_proportional():
    bars = SoftmaxBars(np.array([0.5, 0.3, 0.2]), ["a", "b", "c"], total=1.0, height=2.0)
    heights = [b.height for b in bars.get_bars()]
    assert np.allclose(heights, [2.0, 1.2, 0.8])
    # All bars stand on one baseline.
    assert np.allclose([b.get_bottom()[1] for b in bars.get_bars()], bars.get_bars()[0].get_bottom()[1])
    assert bars.get_total()[1].number == 1.0


def test_a_bar_s_frame_holds_the_bar_and_its_number_and_stands_on_the_baseline():
    bars = SoftmaxBars(np.array([0.2, 0.5, 0.3]), ["I", "phones", "b"], bar_width=0.8, weights=True)
    frame = bars.frame(1)
    inside = VGroup(bars.get_bars()[1], bars.get_numbers()[1])
    assert frame.get_left()[0] < inside.get_left()[0] and inside.get_right()[0] < frame.get_right()[0]
    assert inside.get_top()[1] < frame.get_top()[1]
    assert np.isclose(frame.get_bottom()[1], bars.baseline.get_y())  # its foot on the axis: the label below is whole
    assert all(not _boxes_overlap(frame, label) for label in bars.labels)
    assert not any(_boxes_overlap(frame, n) for k, n in enumerate(bars.get_numbers()) if k != 1)


def test_vector_plane_adds_tip_to_tail():
    plane = VectorPlane.fitting(np.array([[1.0, 2.0], [2.0, -1.0], [3.0, 1.0]]))
    arrows = plane.tip_to_tail(np.array([[1.0, 2.0], [2.0, -1.0]]))
    assert np.allclose(arrows[0].get_start(), plane.c2p(0, 0))
    assert np.allclose(arrows[1].get_start(), plane.c2p(1, 2))
    assert np.allclose(arrows[1].get_end(), plane.c2p(3, 1))
    # Same unit on both axes: a diagonal stays at 45 degrees.
    a, b = plane.c2p(0, 0), plane.c2p(1, 1)
    assert np.isclose(b[0] - a[0], b[1] - a[1])


def _boxes_overlap(a, b) -> bool:
    return (
        min(a.get_right()[0], b.get_right()[0]) - max(a.get_left()[0], b.get_left()[0]) > 0.01
        and min(a.get_top()[1], b.get_top()[1]) - max(a.get_bottom()[1], b.get_bottom()[1]) > 0.01
    )


@pytest.mark.parametrize("pitch", [1.5, 0.6, 0.3])
def test_label_rows_never_overlap_neighbours(pitch):
    labels = [TokenLabel(t, font_size=20) for t in ["grandmother's", "a", "kitchen", "spoons", "b"]]
    stagger(labels, [j * pitch for j in range(5)], 0.0, pitch)
    assert all(m.get_bottom()[1] >= -1e-6 for m in labels)  # all above the data edge
    assert all(np.isclose(m.get_x(), j * pitch) for j, m in enumerate(labels))
    for i, a in enumerate(labels):
        for b in labels[i + 1 :]:
            assert not _boxes_overlap(a, b)


def test_an_abbreviated_label_keeps_its_colour():
    """A long token cut to "grandmoth…" is drawn in its row's colour (it was black: a Text's own colour is)."""
    labels = [TokenLabel(t, font_size=20, color=palette.QUERY) for t in ["grandmother's", "a", "kitchen"]]
    stagger(labels, [0.0, 0.3, 0.6], 0.0, 0.3, room=0.8)
    assert labels[0].text.endswith("…") and labels[0].height <= 0.8
    assert {glyph.get_fill_color().to_hex() for label in labels for glyph in label} == {palette.QUERY.to_hex()}


def test_turned_label_keeps_its_font_size():
    label = TokenLabel("station", font_size=20)
    wide = label.width
    label.turn()
    assert np.isclose(label.height, wide)
    assert np.isclose(label.font_size, 20)


def test_drawn_to_fit_draws_smaller_until_the_drawing_fits_and_stops_at_its_floor():
    from manim import Square

    from scenes.kit.layout import drawn_to_fit

    square = drawn_to_fit(lambda size: Square(10 * size), 1.0, lambda s: s.width <= 3)
    assert 2.7 < square.width <= 3  # the first size, cut by tenths, that fits: 0.9 ** 12 = 0.282
    never = drawn_to_fit(lambda size: Square(size), 1.0, lambda s: False, floor=0.5)
    assert 0.45 < never.width <= 0.5  # given up at the floor, not looping on


def test_clusters_are_named_by_colour_only_when_they_have_their_own():
    from scenes.kit.meaning_map import clusters_said

    assert clusters_said(["fruit", "tech"]) == "fruit in pink, tech in violet"
    assert clusters_said(["river", "money"]) == "the river words and the money words"  # both drawn grey


def test_the_cosine_planes_scale_marks_stand_at_their_values():
    from scenes.kit.cosine_plane import CosinePlane

    plane = CosinePlane(("fruit", "tech"), 0.03, 0.44, side=4.0)
    labels = [m for m in plane.ticks if hasattr(m, "text")]
    values = sorted({float(m.text) for m in labels})
    assert values == pytest.approx([0.1, 0.2, 0.3, 0.4])  # every 0.1 inside the range, worked out here
    for label in labels:
        v = float(label.text)
        below = label.get_y() < plane.frame.get_bottom()[1]  # an x value under the frame, else a y value left of it
        assert (label.get_x() if below else label.get_y()) == pytest.approx(
            plane.c2p(v, v)[0] if below else plane.c2p(v, v)[1], abs=0.01
        )


def test_stacked_lines_stand_on_evenly_spaced_baselines_whatever_their_descenders():
    from scenes.kit.tokens import TokenLabel, stacked

    words = ["banana", "grape", "cherry", "tablet"]  # a descender in the middle ones: boxes of other heights
    column = stacked([TokenLabel(w) for w in words], pitch=0.5)
    sitting = [w.index(c) for w, c in zip(words, "arht", strict=True)]  # a glyph on the line in each word
    feet = [label[i].get_bottom()[1] for label, i in zip(column, sitting, strict=True)]
    assert np.allclose(np.diff(feet), -0.5, atol=0.01)
    boxes = [label.get_bottom()[1] for label in column]
    assert not np.allclose(np.diff(boxes), np.diff(boxes)[0], atol=0.01)  # arranging by boxes would be uneven
