"""Scenes paced by their narration: a new subtitle waits until the previous one has been read."""

from __future__ import annotations

from .base import LessonScene

SETTLE = 0.3  # seconds of stillness after a subtitle is read


class PacedScene(LessonScene):
    """A :class:`LessonScene` whose subtitles never overlap and are never cut short.

    :meth:`narrate` first waits for the previous subtitle's reading time to pass
    (animations played meanwhile count), and :meth:`finish` waits out the last one.
    """

    speech_ends: float = 0.0

    def narrate(self, text: str, duration: float | None = None) -> float:
        self.finish()
        seconds = super().narrate(text, duration)
        self.speech_ends = self.time + seconds
        return seconds

    def finish(self) -> None:
        """Wait until the current subtitle has been read."""
        left = self.speech_ends + SETTLE - self.time
        if left > 0.05:
            self.wait(left)
