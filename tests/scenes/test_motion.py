"""LessonScene opens on its figure and keeps moving while it speaks (played without rendering)."""

from __future__ import annotations

import tempfile
from collections.abc import Callable

import pytest
from manim import Circle, Create, FadeIn, Scene, Square, Wait, tempconfig

from scenes.kit.base import HOLD, PAUSE, LessonScene
from scenes.probe import dry_run_config


class LocateAttention(LessonScene):
    """Borrows the lesson entry of that name (it reads no example section); a scene made for these tests."""

    def construct(self) -> None:
        self.show_title()
        self.square = Square()
        self.play(FadeIn(self.square))
        self.opened_at = self.time
        self.narrate("The square is the figure.", duration=3)
        self.wait(2)
        self.circle = Circle()
        self.narrate("A circle is drawn while this is said.", Create(self.circle), duration=4)


def played_with(cls: type[LessonScene], method: str, wrap: Callable[[Callable], Callable]) -> LessonScene:
    """``cls`` played without rendering a video, with ``Scene.<method>`` replaced by ``wrap(original)``."""
    original = getattr(Scene, method)
    with tempfile.TemporaryDirectory() as media, tempconfig(dry_run_config(media)):
        setattr(Scene, method, wrap(original))
        try:
            scene = cls()
            scene.render()
        finally:
            setattr(Scene, method, original)
    return scene


@pytest.fixture(scope="module")
def played() -> tuple[LessonScene, list[tuple[list[str], float]]]:
    """The scene, and each play manim made: its animations' class names and its length."""
    plays: list[tuple[list[str], float]] = []

    def recording(original: Callable) -> Callable:
        def play(scene: Scene, *args: object, **kwargs: object) -> None:
            start = scene.time
            original(scene, *args, **kwargs)
            plays.append(([type(a).__name__ for a in args], scene.time - start))

        return play

    return played_with(LocateAttention, "play", recording), plays


def test_the_title_and_the_figure_are_on_screen_at_the_first_frame(played) -> None:
    scene, plays = played
    assert scene.opened_at == 0
    assert scene.title in scene.mobjects and scene.square in scene.mobjects
    assert "FadeIn" not in plays[0][0] and "Write" not in plays[0][0]


def test_a_hold_while_speaking_highlights_instead_of_freezing(played) -> None:
    _, plays = played
    holds = [(names, seconds) for names, seconds in plays if seconds > HOLD]
    assert holds and all(names != [Wait.__name__] for names, _ in holds), holds
    assert any(names == ["Succession"] for names, _ in holds)  # the light around the focus


def test_animations_given_to_narrate_last_as_long_as_the_sentence(played) -> None:
    scene, plays = played
    drawn = next(seconds for names, seconds in plays if names == ["Create"])
    assert drawn == pytest.approx(4 - PAUSE, abs=1 / 15)
    assert scene.circle in scene.mobjects


def test_a_highlight_redraws_only_its_light_over_a_raised_mobject() -> None:
    """manim redraws every mobject that sorts after a moving one (z_index first): the light sorts last."""

    class LocateAttention(LessonScene):
        def construct(self) -> None:
            self.show_title()
            self.square = Square().set_z_index(1)  # as the meaning map's labels
            self.play(FadeIn(self.square))
            self.narrate("The square is the figure.", duration=3)
            self.wait(2)

    redrawn: list[list[object]] = []

    def recording(original: Callable) -> Callable:
        def play_internal(scene: Scene, *args: object, **kwargs: object) -> None:
            if [type(a).__name__ for a in scene.animations] == ["Succession"]:
                redrawn.append(list(scene.moving_mobjects))
            original(scene, *args, **kwargs)

        return play_internal

    scene = played_with(LocateAttention, "play_internal", recording)
    assert redrawn, "no highlight played"
    assert all(scene.square not in moving and scene.title not in moving for moving in redrawn)
