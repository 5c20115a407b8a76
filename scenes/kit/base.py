"""The base class of every lesson scene: its values, its narration, its title."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

from manim import UP, Scene, Text, Write, config

from attention_math import DEFAULT_EXAMPLE, LessonValues, lesson_values
from scenes.lesson import Entry, by_class
from scenes.narration.spoken import spoken as spoken_form
from scenes.narration.voice import Speaker, speaker

from . import palette
from .text import SERIF, TITLE, caption, notation

#: render.py sets these for its workers; plain ``manim`` uses the default example and no voice.
EXAMPLE_ENV = "ATTENTION_EXAMPLE"
VOICE_ENV = "ATTENTION_VOICE"  # piper, espeak or none: the narration's pace comes from the voice
VOICE_CACHE_ENV = "ATTENTION_VOICE_CACHE"  # where speech is cached (default: media/voice)
NARRATION_ENV = "ATTENTION_NARRATION"  # the JSON file the scene lists its spoken sentences in

WORDS_PER_SECOND = 2.6  # comfortable reading speed for subtitles, without a voice
PAUSE = 0.4  # seconds of silence after each spoken sentence


def example_path() -> Path:
    return Path(os.environ.get(EXAMPLE_ENV) or DEFAULT_EXAMPLE)


class LessonScene(Scene):
    """A scene of the lesson: ``self.values`` holds only the sections it declares.

    Subclasses tell the story in ``construct`` and narrate with :meth:`narrate`,
    which writes the subtitles (``.srt``) beside the video. Narration sets the pace:
    a subtitle is never cut short by the next one or by the end of the clip, so the
    lesson reads well with the sound off.
    """

    entry: Entry
    values: LessonValues
    narration_ends: float = 0.0

    def setup(self) -> None:
        self.entry = by_class(type(self).__name__)
        self.values = lesson_values(self.entry.depends_on, example_path(), owner=f"{self.entry.cls}")
        self.camera.background_color = palette.BACKGROUND
        self.speaker = voice_speaker()
        self.said: list[str] = []  # each sentence as the voice reads it (with or without a voice)
        self.spoken: list[dict[str, object]] = []  # each sentence's start and speech, for the sound track

    def narrate(self, text: str, duration: float | None = None, spoken: str | None = None) -> float:
        """Once the previous sentence is over, say ``text`` and show it as a subtitle while it is said.

        With a voice, the subtitle lasts as long as the speech, and the next sentence starts a
        short pause after it; ``spoken`` replaces the derived spoken form where a rule cannot know
        how to read the text. Without one, ``text`` shows for ``duration`` seconds (default: its
        reading time). Returns the seconds until the next sentence may start.
        """
        self.finish_narration()
        self.start_step(text)
        self.said.append(spoken or spoken_form(text))
        if self.speaker:
            speech = self.speaker.say(self.said[-1])
            self.spoken.append({"start": self.time, "wav": str(speech.wav), "text": text})
            self.add_subcaption(text, duration=speech.seconds)
            seconds = max(speech.seconds + PAUSE, duration or 0.0)
        else:
            seconds = duration if duration is not None else max(2.0, len(text.split()) / WORDS_PER_SECOND)
            self.add_subcaption(text, duration=seconds)
        self.narration_ends = self.time + seconds
        return seconds

    def finish_narration(self) -> None:
        """Wait until the current subtitle has been on screen for its whole duration."""
        frames = math.ceil((self.narration_ends - self.time) * config.frame_rate - 1e-6)
        if frames > 0:
            self.wait(frames / config.frame_rate)  # whole frames: a shorter wait would cut the subtitle

    def tear_down(self) -> None:
        """The clip ends only after its last sentence; render.py learns what was said, and when."""
        self.finish_narration()
        super().tear_down()
        if listing := os.environ.get(NARRATION_ENV):
            Path(listing).write_text(json.dumps(self.spoken, indent=1, ensure_ascii=False), encoding="utf-8")

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
        self.play(Write(title), run_time=0.8)
        return title


def voice_speaker() -> Speaker | None:
    """The voice render.py chose (``ATTENTION_VOICE``); none for plain ``manim`` unless it is set."""
    voice = os.environ.get(VOICE_ENV, "none")
    if voice == "none":
        return None
    cache = os.environ.get(VOICE_CACHE_ENV) or Path(config.media_dir) / "voice"
    return speaker(voice, Path(cache))
