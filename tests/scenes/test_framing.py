"""The layout grid's checks on hand-made figure boxes (left, bottom, right, top), in scene units."""

from manim import AnimationGroup, FadeOut, Scene, Square, VGroup

from scenes.framing import Frame, fill_problems, flashes, grid_problems
from scenes.kit import layout

SAFE_WIDTH = 14.2222 - 2 * layout.SAFE_MARGIN  # manim's frame is 8 units high at 16:9
CONTENT_HEIGHT = layout.TOP - layout.SUBTITLE_TOP  # 2.85 down to -3.1: 5.95 units


def frames(*boxes: tuple[float, float, float, float]) -> list[Frame]:
    return [Frame(start=n, end=n + 1, still=False, figure=box) for n, box in enumerate(boxes)]


def test_a_figure_that_fills_the_content_area_passes():
    assert grid_problems(frames((-6.5, -3.0, 6.5, 2.8))) == []


def test_a_wide_figure_in_the_top_half_is_named():
    top_half = (-6.5, 0.0, 6.5, 2.8)  # 13 × 2.8: a third of the frame's area, half the content's height
    assert grid_problems(frames(top_half)) == [
        f"the figure spans at most {2.8 / CONTENT_HEIGHT:.0%} of the content area's height (at least 60%)"
    ]


def test_a_tall_narrow_column_is_named():
    column = (-2.0, -3.0, 2.0, 2.8)  # 4 wide: under a third of the safe width
    assert any("of the safe width" in problem for problem in grid_problems(frames(column)))


def test_reach_is_measured_at_the_widest_and_the_tallest_moments():
    """A title line across the frame at one moment and a tall figure at another: each reach is met once."""
    assert grid_problems(frames((-6.0, 2.0, 6.0, 2.8), (-3.0, -3.0, 3.0, 2.8))) == []


def test_the_subtitle_band_stays_clear():
    assert any("subtitle band" in p for p in grid_problems(frames((-6.5, -3.5, 6.5, 2.8))))


def test_fading_out_what_is_already_gone_is_named():
    """manim adds a removed mobject back for its FadeOut, so it flashes up: the check names it; a fade of
    what is on screen, or of an invisible part, is fine."""
    scene = Scene()
    kept, gone, hidden = Square(), Square(), Square().set_opacity(0)
    scene.add(kept, gone)
    scene.remove(gone)
    assert flashes(scene, [FadeOut(kept)]) == ()
    assert flashes(scene, [FadeOut(VGroup(kept, hidden))]) == ()
    assert flashes(scene, [FadeOut(gone)]) == ("FadeOut of 1 absent Square",)
    assert flashes(scene, [AnimationGroup(FadeOut(kept), FadeOut(VGroup(kept, gone)))]) == (
        "FadeOut of 1 absent Square",
    )


def test_a_figure_small_most_of_the_time_is_named_though_it_fills_the_frame_once():
    """Four seconds at a quarter of the content area, one at all of it: half the time it fills a quarter."""
    content = (-7.1 + 0.15, -3.1, 7.1 - 0.15, 2.85)
    quarter = (-3.475, -3.1, 3.475, -0.125)  # half the safe width, half the content's height
    clip = [Frame(start=n, end=n + 1, still=False, figure=quarter) for n in range(4)]
    assert fill_problems([*clip, Frame(start=4, end=5, still=False, figure=content)]) == [
        "half the time, the figure fills 25% of the content area or less (at least 50%)"
    ]
    assert fill_problems([Frame(start=n, end=n + 1, still=False, figure=content) for n in range(5)]) == []
