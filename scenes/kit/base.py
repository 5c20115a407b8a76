"""The base class of every lesson scene: its values, its narration, its title."""

from __future__ import annotations

import math
import os
from pathlib import Path

from manim import UP, Mobject, Scene, Text, Write, config

from attention_math import DEFAULT_EXAMPLE, LessonValues, lesson_values
from scenes.lesson import Entry, by_class

from . import palette

#: render.py sets this for its workers; plain ``manim`` uses the default example.
EXAMPLE_ENV = "ATTENTION_EXAMPLE"

WORDS_PER_SECOND = 2.6  # comfortable reading speed for subtitles


def example_path() -> Path:
    return Path(os.environ.get(EXAMPLE_ENV) or DEFAULT_EXAMPLE)


def notation(mob: Mobject) -> Mobject:
    """Mark the digits in ``mob`` as notation ("Step 4", "O(N²)", "1/√d_k"), not example values.

    The numbers audit skips marked mobjects; everything else on screen must be computed.
    """
    mob.audit_notation = True
    return mob


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

    def narrate(self, text: str, duration: float | None = None) -> float:
        """Once the previous subtitle has been read, show ``text`` for ``duration`` seconds (default: reading time)."""
        self.finish_narration()
        seconds = duration if duration is not None else max(2.0, len(text.split()) / WORDS_PER_SECOND)
        self.start_step(text)
        self.add_subcaption(text, duration=seconds)
        self.narration_ends = self.time + seconds
        return seconds

    def finish_narration(self) -> None:
        """Wait until the current subtitle has been on screen for its whole duration."""
        frames = math.ceil((self.narration_ends - self.time) * config.frame_rate - 1e-6)
        if frames > 0:
            self.wait(frames / config.frame_rate)  # whole frames: a shorter wait would cut the subtitle

    def tear_down(self) -> None:
        """The clip ends only after its last subtitle has been read."""
        self.finish_narration()
        super().tear_down()

    def start_step(self, narration: str) -> None:
        """Mark the start of a narrated step; a plain scene is one continuous take.

        Slide mode (``publish.slides``) overrides this to start a slide per step.
        """

    def show_title(self, text: str | None = None) -> Text:
        """Write the scene's title (its lesson title by default) at the top edge."""
        title = notation(Text(text or self.entry.title, font_size=34, color=palette.TEXT).to_edge(UP, buff=0.35))
        self.play(Write(title), run_time=0.8)
        return title
