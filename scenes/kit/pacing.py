"""Narration that sets the pace: a subtitle is never cut short by the next one or by the clip's end."""

from __future__ import annotations

from manim import config

from .base import LessonScene


class PacedScene(LessonScene):
    """A lesson scene that waits, when needed, until the current subtitle has been read.

    :meth:`narrate` first lets the previous line finish, and the clip ends only after
    its last line: with the sound off, every subtitle stays on screen for its reading time.
    """

    def setup(self) -> None:
        super().setup()
        self.narration_ends = 0.0

    def narrate(self, text: str, duration: float | None = None) -> float:
        """Wait for the previous subtitle to finish, then show ``text`` (see :meth:`LessonScene.narrate`)."""
        self.finish_narration()
        seconds = super().narrate(text, duration)
        self.narration_ends = self.time + seconds
        return seconds

    def finish_narration(self) -> None:
        """Wait until the current subtitle has been on screen for its whole duration."""
        if self.time < self.narration_ends - 1e-6:
            # One frame more: a wait is cut to whole frames, which could end it just short.
            self.wait(self.narration_ends - self.time + 1 / config.frame_rate)

    def tear_down(self) -> None:
        self.finish_narration()
        super().tear_down()
