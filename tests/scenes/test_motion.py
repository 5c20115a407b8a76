"""LessonScene opens on its figure and keeps moving while it speaks (played without rendering)."""

from __future__ import annotations

import tempfile
from collections.abc import Callable

import pytest
from manim import Circle, Create, FadeIn, Scene, Square, Wait, tempconfig

from scenes.kit.base import PAUSE, READ_HOLD, LessonScene
from scenes.kit.matrices import LabelledMatrix
from scenes.kit.motion import give_way
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


def test_a_hold_while_speaking_is_a_plain_wait(played) -> None:
    """Nothing moves without meaning: a hold is a Wait, not a decoration."""
    _, plays = played
    holds = [names for names, seconds in plays if seconds > 1.0 and names != ["Create"]]
    assert holds and all(names == [Wait.__name__] for names in holds), holds


def test_animations_given_to_narrate_last_as_long_as_the_sentence(played) -> None:
    scene, plays = played
    drawn = next(seconds for names, seconds in plays if names == ["Create"])
    assert drawn == pytest.approx(4 - PAUSE, abs=1 / 15)
    assert scene.circle in scene.mobjects


def test_a_new_figure_earns_a_quiet_hold_before_the_next_sentence() -> None:
    """The sentence after a new matrix starts READ_HOLD after the speech ended, the one after that PAUSE."""

    class LocateAttention(LessonScene):  # borrows that lesson entry, as the scene above does
        def construct(self) -> None:
            self.show_title()
            self.narrate("A matrix comes in.", FadeIn(LabelledMatrix([[1.0, 2.0]], row_labels=["a"])), duration=2)
            self.narrate("The next sentence.", duration=2)
            self.narrate("And one more.", duration=2)

    scene = played_with(LocateAttention, "play", lambda original: original)
    starts = [line.start.total_seconds() for line in scene.renderer.file_writer.subcaptions]
    speech = 2 - PAUSE  # without a voice, a sentence of duration d counts as d - PAUSE of speech
    assert starts[1] - starts[0] == pytest.approx(speech + READ_HOLD, abs=1 / 15)
    assert starts[2] - starts[1] == pytest.approx(2.0, abs=1 / 15)


def test_a_thing_comes_in_as_the_sentence_names_it() -> None:
    """on_words starts its animation at the words' share of the sentence's characters, times its speech."""
    sentence = "First a few words, and then the square comes in."

    class LocateAttention(LessonScene):  # borrows that lesson entry, as the scene above does
        def construct(self) -> None:
            self.show_title()
            self.narrate(sentence, duration=4)
            self.started = self.time
            self.on_words("the square", FadeIn(Square()), run_time=0.5)
            self.faded = self.time - 0.5
            with pytest.raises(ValueError, match="not in the sentence"):
                self.on_words("a circle", FadeIn(Circle()))

    scene = played_with(LocateAttention, "play", lambda original: original)
    named = scene.started + 4 * sentence.index("the square") / len(sentence)
    assert 0 <= scene.faded - named <= 1 / 15  # on the next whole frame
    assert scene.faded - scene.started > 2.0  # past the middle of the sentence, not at its start


def test_the_quiz_leaves_time_to_think_after_each_question() -> None:
    """After "Pause and think." the answer comes only when a 4-second silence (the timer) has passed."""
    from scenes.quiz import QuizAttention

    said: list[tuple[float, float, str]] = []

    def recording(original: Callable) -> Callable:
        def add_subcaption(scene: Scene, content: str, duration: float = 1, offset: float = 0) -> None:
            said.append((scene.time, duration, content))
            original(scene, content, duration=duration, offset=offset)

        return add_subcaption

    played_with(QuizAttention, "add_subcaption", recording)
    questions = [i for i, (_, _, text) in enumerate(said) if text.endswith("Pause and think.")]
    assert len(questions) == 5
    for i in questions:
        start, duration, _ = said[i]
        assert said[i + 1][0] - (start + duration) >= 4.0, said[i : i + 2]


def test_the_fill_is_a_median_over_time_not_the_widest_moment() -> None:
    from scenes.framing import Frame, fill_over_time
    from scenes.kit import layout

    width, height = 14.222 - 2 * layout.SAFE_MARGIN, layout.TOP - layout.SUBTITLE_TOP
    full = (-width / 2, layout.SUBTITLE_TOP, width / 2, layout.TOP)
    quarter = (0.0, 0.0, width / 2, height / 2)
    frames = [Frame(0, 1, False, full), Frame(1, 4, True, quarter), Frame(4, 5, False, None)]
    assert fill_over_time(frames) == pytest.approx(0.25, abs=0.01)  # 3 of 5 seconds at a quarter


def test_a_picture_gives_way_to_the_next_without_an_empty_frame_or_both_at_full_strength() -> None:
    handover = give_way(Square(), FadeIn(Circle()))
    handover.begin()
    (out_start, out_end), (in_start, in_end) = ((t["start"], t["end"]) for t in handover.anims_with_timings)
    assert out_start == 0 and in_end == handover.max_end_time
    assert out_start < in_start < out_end  # it comes in while the old one is still going: no empty frame
    assert in_start >= 0.5 * out_end  # and not before the old one is at least half gone
