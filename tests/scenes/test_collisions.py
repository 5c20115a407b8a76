"""The collision check of text with pictures and arrows (scenes.collisions), on figures built by hand."""

import numpy as np
from manim import LEFT, RIGHT, Arrow, CurvedArrow, ImageMobject, Rectangle, Text

from scenes.collisions import collision_problems
from scenes.probe import Snapshot, screen


def problems(*mobjects) -> list[str]:
    return collision_problems([screen(list(mobjects), Snapshot(0, "play"))])


def picture(width: float = 2.0) -> ImageMobject:
    image = ImageMobject(np.full((8, 8, 4), 200, np.uint8))
    image.width = width
    return image


def test_a_caption_on_a_picture_is_a_collision_and_one_beside_it_is_not():
    image = picture()
    assert problems(image, Text("on top").move_to(image)) != []
    assert problems(image, Text("beside").next_to(image, RIGHT, buff=0.2)) == []


def test_a_caption_on_an_opaque_backdrop_over_the_picture_is_not_a_collision():
    image = picture()
    backdrop = Rectangle(width=2.2, height=2.2, fill_opacity=1, stroke_width=0)
    assert problems(image, backdrop, Text("inset").scale(0.4)) == []
    assert problems(image, Rectangle(width=2.2, height=2.2, fill_opacity=0.3), Text("inset").scale(0.4)) != []


def test_a_picture_drawn_over_a_caption_hides_it():
    assert problems(Text("under"), picture()) != []


def test_an_arrow_through_a_word_is_a_collision_and_one_ending_before_it_is_not():
    word = Text("banana")
    assert problems(word, Arrow(LEFT * 3, RIGHT * 3)) != []
    assert problems(word, Arrow(LEFT * 4, word.get_left() + LEFT * 0.1, buff=0)) == []


def test_a_curved_arrow_is_checked_along_its_line_not_by_its_box():
    arc = CurvedArrow(LEFT * 2, RIGHT * 2, angle=np.pi / 2)
    on_line = Text("x").scale(0.5).move_to(arc.point_from_proportion(0.5))
    assert problems(on_line, arc) != []
    inside_the_bow = Text("x").scale(0.5).move_to(arc.get_center())
    assert arc.get_left()[0] < inside_the_bow.get_left()[0] and inside_the_bow.get_top()[1] < arc.get_top()[1]
    assert problems(inside_the_bow, arc) == []
