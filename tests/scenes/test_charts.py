"""The chart pieces of the scaling, limits and recap chapters."""

import pytest
from manim import Square

from scenes.kit.charts import block_grid, cell_grid, panel, value_bars
from scenes.quiz import QUIZ
from scenes.recap import SHAPE_GAP, SHAPE_HEIGHT, SHAPE_WIDTH, RecapSteps, shape


@pytest.mark.parametrize("n", [2, 5])
def test_cell_grid_has_n_rows_of_n_cells_filling_the_side(n):
    grid = cell_grid(n, 3.0)
    assert len(grid) == n and all(len(row) == n for row in grid)
    assert grid.width == pytest.approx(3.0, abs=0.02)
    assert grid.height == pytest.approx(3.0, abs=0.02)


def test_block_grid_draws_a_matrix_shape_rows_by_columns():
    grid = block_grid(3, 5, 0.2, "#FFFFFF")
    assert [len(row) for row in grid] == [5, 5, 5]
    assert (grid.width, grid.height) == (pytest.approx(1.0, abs=0.02), pytest.approx(0.6, abs=0.02))


@pytest.mark.parametrize("n, d_model, d_k", [(4, 4, 2), (12, 8, 2), (3, 64, 16), (4, 4, 4)])
def test_the_recaps_shapes_share_one_cell_the_largest_that_fits_the_column(n, d_model, d_k):
    shapes = [((("n", n), ("d", d_model)), 1), ((("n", n), ("d_k", d_k)), 3), ((("n", n), ("n", n)), 1)]
    cell = RecapSteps.cell_side(shapes)
    tallest = n * cell
    widths = [max(d_model, n) * cell, 3 * d_k * cell + 2 * SHAPE_GAP]  # Q, K and V side by side
    assert tallest <= SHAPE_HEIGHT + 1e-9 and max(widths) <= SHAPE_WIDTH + 1e-9
    assert max(tallest / SHAPE_HEIGHT, max(widths) / SHAPE_WIDTH) == pytest.approx(1.0)  # one bound is reached
    drawn = RecapSteps.drawn((("n", n), ("d_k", d_k)), ("#56B4E9", "#E69F00", "#009E73"), cell)
    assert len(drawn) == 3 and drawn.width == pytest.approx(widths[1], abs=0.02)


def test_value_bars_stand_on_the_baseline_with_the_given_heights():
    bars = value_bars([1.0, 3.0, 0.5], width=6.0)
    assert [b.height for b in bars] == pytest.approx([1.0, 3.0, 0.5])
    assert [b.get_bottom()[1] for b in bars] == pytest.approx([0, 0, 0])
    assert [b.get_x() for b in bars] == pytest.approx([1.0, 3.0, 5.0])


def test_panel_keeps_its_picture_between_heading_and_caption():
    frame, heading, picture, caption = panel("Title", Square(10), "a caption", width=6.0, height=3.0)
    assert picture.get_top()[1] < heading.get_bottom()[1]
    assert picture.get_bottom()[1] > caption.get_top()[1]
    assert frame.width == pytest.approx(6.0)


def test_shape_joins_sizes_with_times():
    assert shape(4, 2) == r"4 \times 2"
    assert shape(10000, 3) == r"10,000 \times 3"


def test_quiz_has_the_five_questions_with_short_spoken_answers():
    assert len(QUIZ) == 5
    assert all(len(said) <= 160 for _, _, said in QUIZ)
    assert any("O(n²·d<sub>model</sub>)" in answer for _, answer, _ in QUIZ)  # n the length, d_model the width


def test_the_quiz_shows_saturation_at_the_first_scale_that_puts_it_all_on_one_key():
    import numpy as np

    from attention_math import DEFAULT_EXAMPLE, lesson_values
    from scenes.quiz import saturated_weights, saturating_scale

    demo = lesson_values(("saturation_demo",), DEFAULT_EXAMPLE, owner="test").saturation_demo
    tops = []
    for scale in demo.scales:  # softmax by hand, of the same scores made larger
        e = np.exp(demo.scores * scale - (demo.scores * scale).max())
        tops.append((e / e.sum()).max())
    first = next(i for i, top in enumerate(tops) if top >= 0.99)
    assert saturating_scale(demo) == first and first > 0  # not the scores as they are
    picture = saturated_weights(demo)
    assert f"× {int(demo.scales[first])})" in picture[1].original_text
