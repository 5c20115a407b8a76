"""The base class of every lesson scene: its values, its narration, its title."""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path
from typing import Any

from manim import UP, Mobject, Scene, Text, Write, config

from attention_math import DEFAULT_EXAMPLE, LessonValues, lesson_values
from attention_math.errors import ExampleError
from scenes.lesson import Entry, by_class
from scenes.narration.spoken import spoken as spoken_form
from scenes.narration.spoken import written
from scenes.narration.voice import Speaker, speaker

from . import palette
from .camera import LessonCamera
from .motion import builds, built, introduces_figure
from .text import SERIF, TITLE, caption, notation

#: render.py sets these for its workers; plain ``manim`` uses the default example and no voice.
EXAMPLE_ENV = "ATTENTION_EXAMPLE"
VOICE_ENV = "ATTENTION_VOICE"  # hibari, piper, espeak or none: the narration's pace comes from the voice
VOICE_CACHE_ENV = "ATTENTION_VOICE_CACHE"  # where speech is cached (default: media/voice)
NARRATION_ENV = "ATTENTION_NARRATION"  # the JSON file the scene lists its spoken sentences in

#: Without a voice, a sentence shows as long as the default voice takes to say it (hibari at the lesson's
#: pace: 0.077 s per character of the spoken form over the lesson's 291 subtitles, 0.5 s rms off), so a
#: silent lesson keeps the voiced lesson's pace and length.
SECONDS_PER_SPOKEN_CHARACTER = 0.077
PAUSE = 0.6  # seconds of silence after each spoken sentence
READ_HOLD = 2.0  # ... after a sentence during which a new figure (matrix, heatmap, chart) came in: time to read it


def example_path() -> Path:
    """The example file, absolute (as render.py names it in its messages)."""
    return Path(os.environ.get(EXAMPLE_ENV) or DEFAULT_EXAMPLE).resolve()


class LessonScene(Scene):
    """A scene of the lesson: ``self.values`` holds only the sections it declares.

    Subclasses tell the story in ``construct`` and narrate with :meth:`narrate`,
    which writes the subtitles (``.srt``) beside the video. Narration sets the pace:
    a subtitle is never cut short by the next one or by the end of the clip, so the
    lesson reads well with the sound off.

    A clip opens on its figure: until the first sentence has been said or anything but a build
    (fade, drawing, growth) is played, builds show their result at once, so the first frame, the
    thumbnail and the first slide's poster show the title and the figure. Pass animations to
    :meth:`narrate` to run them for the sentence's length. Holds are plain: nothing moves without
    meaning. After a sentence during which a new figure came in, the next one waits
    :data:`READ_HOLD` seconds, so the viewer can read the figure in silence.
    """

    entry: Entry
    values: LessonValues
    narration_ends: float = 0.0
    saying: tuple[str, float, float] = ("", 0.0, 0.0)  # the current subtitle, when it started, how long it is said

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("camera_class", LessonCamera)  # images composited over their own box
        super().__init__(*args, **kwargs)

    def setup(self) -> None:
        self.entry = by_class(type(self).__name__)
        try:
            self.values = lesson_values(self.entry.depends_on, example_path(), owner=f"{self.entry.cls}")
        except ExampleError as e:  # render.py's one-line message, not manim's traceback, under plain manim too
            print(f"error: {e}", file=sys.stderr)
            raise SystemExit(2) from None
        self.camera.background_color = palette.BACKGROUND
        self.speaker = voice_speaker()
        self.said: list[str] = []  # each sentence as the voice reads it (with or without a voice)
        self.spoken: list[dict[str, object]] = []  # each sentence's start and speech, for the sound track
        self.opening = True  # builds show their result at once (see the class docstring)
        self.new_figure = False  # a figure came in since the current sentence started: hold before the next
        self.title: Mobject | None = None  # not counted as the figure

    def narrate(
        self,
        text: str,
        *animations: Any,
        duration: float | None = None,
    ) -> float:
        """Once the previous sentence is over, say ``text`` and show it as a subtitle while it is said.

        ``animations`` play while it is said, stretched over the speech (the pause after it excepted).

        With a voice, the subtitle lasts as long as the speech (of the text's spoken form,
        scenes/narration/spoken.py), and the next sentence starts a short pause after it. Without one,
        ``text`` shows for as long as the default voice would take to say it, and the same pause follows.
        ``duration`` makes a voiced step last at least that long, and a silent one exactly that long.
        Returns the seconds until the next sentence may start.
        """
        self.finish_narration()
        self.hold_to_read()
        text = written(text)  # the subtitle sets d_k as dₖ, as the screen does
        self.opening = self.opening and not self.said  # the first sentence's builds still open the clip
        self.start_step(text)
        self.said.append(spoken_form(text))
        if self.speaker:
            speech = self.speaker.say(self.said[-1])
            self.spoken.append({"start": self.time, "wav": str(speech.wav), "text": text})
            speaking = speech.seconds
            seconds = max(speaking + PAUSE, duration or 0.0)
        elif duration is not None:  # a step of fixed length
            speaking = seconds = duration
        else:
            speaking = len(self.said[-1]) * SECONDS_PER_SPOKEN_CHARACTER
            seconds = speaking + PAUSE
        self.add_subcaption(text, duration=speaking)
        self.saying = (text, self.time, speaking)
        self.narration_ends = self.time + seconds
        if animations:
            self.play(*animations, run_time=speaking_time(seconds))
        return seconds

    def on_words(self, words: str, *animations: Any, **kwargs: Any) -> None:
        """Play ``animations`` as the current sentence reaches ``words``: at their share of its characters, times
        the time it is said (speech runs nearly even in characters), so a thing comes in as it is named."""
        self.until_words(words)
        self.play(*animations, **kwargs)

    def until_words(self, words: str) -> None:
        """Wait until the current sentence reaches ``words`` (see :meth:`on_words`)."""
        text, start, speaking = self.saying
        if words not in text:
            raise ValueError(f"{words!r} is not in the sentence {text!r}")
        self.wait_until(start + speaking * text.index(words) / len(text))

    def finish_narration(self) -> None:
        """Wait until the current subtitle has been on screen for its whole duration."""
        self.wait_until(self.narration_ends)

    def hold_to_read(self) -> None:
        """After a sentence that brought in a new figure, keep quiet until :data:`READ_HOLD` has passed."""
        if self.new_figure and self.said:
            self.wait_until(self.narration_ends - PAUSE + READ_HOLD)
        self.new_figure = False

    def wait_until(self, moment: float) -> None:
        """Hold until scene time ``moment``, in whole frames (a shorter wait would cut a subtitle)."""
        frames = math.ceil((moment - self.time) * config.frame_rate - 1e-6)
        if frames > 0:
            self.wait(frames / config.frame_rate)

    def play(self, *args: Any, **kwargs: Any) -> None:
        """Play ``args``; in the opening, builds show their result at once, without a frame."""
        self.new_figure = self.new_figure or introduces_figure(args, self.mobjects)
        if self.opening and args and all(builds(a) for a in args):
            self.add(*(m for a in args for m in built(a)))
            self.skipped_play()
            return
        self.opening = False
        super().play(*args, **kwargs)

    def tear_down(self) -> None:
        """The clip ends only after its last sentence (and a reading hold after a new figure); render.py
        learns what was said, and when."""
        self.finish_narration()
        self.hold_to_read()
        super().tear_down()
        if listing := os.environ.get(NARRATION_ENV):
            Path(listing).write_text(json.dumps(self.spoken, indent=1, ensure_ascii=False), encoding="utf-8")

    def skipped_play(self) -> None:
        """A ``play`` call made no animation (the opening shows builds at once).

        Slide mode overrides this: manim-slides counts every ``play`` call as an animation.
        """

    def start_step(self, narration: str) -> None:
        """Mark the start of a narrated step; a plain scene is one continuous take.

        Slide mode (``publish.slides``) overrides this to start a slide per step.
        """

    def show_title(self, text: str | None = None) -> Text:
        """Write the scene's title at the top edge: its lesson title (fixed notation, such as "Step 4")
        by default, or ``text``, which the numbers audit reads like any caption."""
        title = caption(text or self.entry.title, TITLE, font=SERIF).to_edge(UP, buff=0.35)
        if text is None:
            notation(title)
        self.title = title
        self.play(Write(title), run_time=0.8)
        return title


def speaking_time(seconds: float) -> float:
    """How long animations shown while a sentence is said last, for ``seconds`` from :meth:`LessonScene.narrate`:
    the speech, not the pause after it."""
    return max(0.5, seconds - PAUSE)


def voice_speaker() -> Speaker | None:
    """The voice render.py chose (``ATTENTION_VOICE``); none for plain ``manim`` unless it is set."""
    voice = os.environ.get(VOICE_ENV, "none")
    if voice == "none":
        return None
    cache = os.environ.get(VOICE_CACHE_ENV) or Path(config.media_dir) / "voice"
    return speaker(voice, Path(cache))
