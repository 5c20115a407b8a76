"""The concept chapters' diagram pieces: words addressable in a sentence, arrows between facing edges."""

import numpy as np
from manim import DOWN, RIGHT, Square

from scenes.kit.diagrams import Card, LabelBox, Sentence, ShapeBlock, connect, joined, stack


def test_sentence_words_are_the_glyphs_of_each_word():
    sentence = Sentence(["he", "cashed", "the", "check"])
    assert [len(w) for w in sentence.words] == [2, 6, 3, 5]
    # Words run left to right without sharing glyphs.
    rights = [w.get_right()[0] for w in sentence.words]
    lefts = [w.get_left()[0] for w in sentence.words]
    assert all(r < nl for r, nl in zip(rights, lefts[1:], strict=False))


def test_connect_joins_facing_edges():
    a, b = Square(1), Square(1).shift(3 * RIGHT)
    arrow = connect(a, b, buff=0)
    np.testing.assert_allclose(arrow.get_start(), a.get_right(), atol=1e-6)
    np.testing.assert_allclose(arrow.get_end(), b.get_left(), atol=0.05)
    below = connect(a, Square(1).shift(3 * DOWN), buff=0)
    np.testing.assert_allclose(below.get_start(), a.get_bottom(), atol=1e-6)


def test_stack_puts_the_first_box_at_the_bottom_with_one_arrow_per_gap():
    boxes = [LabelBox(name) for name in ("in", "middle", "out")]
    column, arrows = stack(boxes)
    assert boxes[0].get_y() < boxes[1].get_y() < boxes[2].get_y()
    assert len(arrows) == 2


def test_shape_block_has_rows_times_cols_cells():
    block = ShapeBlock(4, 2, "Q", "#56B4E9", unit=0.25)
    assert len(block.cells) == 8
    assert np.isclose(block.cells.width, 2 * 0.25) and np.isclose(block.cells.height, 4 * 0.25)


def test_card_is_at_least_the_height_asked_for():
    assert Card("Key", ["What defines me?"], height=3.0).frame.height == 3.0


def test_the_heads_outputs_join_into_exactly_the_width_of_one_token():
    """real-sizes: the d_model / heads slots stay apart under the token (separate outputs, not slices of it); their
    joined copies tile the token's width edge to edge, below; each head's arrow starts at the tip of a brace round
    the whole bar (a head reads every number) and ends on its own slot."""
    from attention_math.model_types import ModelSize
    from scenes.weights_and_sizes import HeadSplit

    split = HeadSplit(ModelSize("m", 512, 8, 64, 8.0))
    bar = split.token[0]
    edges = sorted((j.get_left()[0], j.get_right()[0]) for j in split.joined)
    assert abs(edges[0][0] - bar.get_left()[0]) < 1e-9 and abs(edges[-1][1] - bar.get_right()[0]) < 1e-9
    assert all(abs(a[1] - b[0]) < 1e-9 for a, b in zip(edges, edges[1:], strict=False))  # no gap, no overlap
    apart = sorted((s.get_left()[0], s.get_right()[0]) for s in split.slots)
    assert all(b[0] - a[1] > 0.05 for a, b in zip(apart, apart[1:], strict=False))  # the heads' outputs, apart
    assert split.slots.width < 0.8 * bar.width  # a row narrower than the token: no slot under "its" eighth of it
    assert split.joined.get_top()[1] < split.slots.get_bottom()[1]  # joined below them, not under the token
    brace = split.feeds[0][0]
    np.testing.assert_allclose(
        [brace.get_left()[0], brace.get_right()[0]], [bar.get_left()[0], bar.get_right()[0]], atol=0.05
    )
    arrows = [split.feeds[0][1], *split.feeds[1:]]
    for arrow, slot in zip(arrows, split.slots, strict=True):
        np.testing.assert_allclose(arrow.get_start(), brace.get_tip(), atol=0.15)  # from the whole, gathered
        assert slot.get_left()[0] < arrow.get_end()[0] < slot.get_right()[0]  # to its own slot
        assert 0 < arrow.get_end()[1] - slot.get_top()[1] < 0.15


def test_the_heads_joined_are_written_out_up_to_three():
    assert joined(1) == "Z"  # one head: its output is the whole
    two, five = joined(2), joined(5)
    assert "Z^{(1)}" in two and "Z^{(2)}" in two and "cdots" not in two
    assert "Z^{(1)}" in five and "Z^{(5)}" in five and "cdots" in five and "Z^{(3)}" not in five
