"""The progress display: scenes done out of total, each scene's time, an estimate of the time left.

A live rich display on a terminal; plain lines otherwise, so CI logs stay readable.
"""

from __future__ import annotations

import sys
import time
from statistics import mean
from typing import Any

from .manifest import Status
from .plan import Job


def estimate_left(
    waiting: list[float | None],
    running: list[tuple[float | None, float]],
    finished: list[tuple[float | None, float]],
    jobs: int,
) -> float | None:
    """Seconds left: each scene's expected time (``None``: unknown), corrected by how the finished ones went.

    ``waiting``: expected times of the scenes not started; ``running``: (expected, seconds so far);
    ``finished``: (expected, seconds taken) of the scenes rendered. Expected times are scaled by the
    finished scenes' actual/expected ratio (a slower machine, a busier one, another quality); an unknown
    one counts as the mean scene finished. The work left is shared by the workers, but never ends
    before its longest scene does. ``None`` when nothing is known yet.
    """
    known = [(e, a) for e, a in finished if e]
    scale = sum(a for _, a in known) / sum(e for e, _ in known) if known else 1.0
    fallback = mean(a for _, a in finished) if finished else None

    def guess(expected: float | None) -> float | None:
        return expected * scale if expected else fallback

    guesses = [guess(e) for e in waiting] + [guess(e) for e, _ in running]
    if None in guesses:
        return None
    so_far = [0.0] * len(waiting) + [t for _, t in running]
    left = [max(g - t, 0.0) for g, t in zip(guesses, so_far, strict=True) if g is not None]
    return max(sum(left) / min(jobs, len(left)), *left) if left else 0.0


class Progress:
    def __init__(self, total: int, jobs: int, expected: dict[str, float] | None = None) -> None:
        """``expected``: scene id -> its expected seconds, where the manifest tells (see plan.expected_seconds)."""
        self.total, self.jobs, self.expected = total, jobs, expected or {}
        self.finished: list[tuple[float | None, float]] = []  # (expected, seconds) of the scenes rendered
        self.started: dict[str, float] = {}  # id -> when, of the scenes running
        self.ended: set[str] = set()
        self.done = 0
        self.live: Any = None
        if sys.stdout.isatty() and total:
            from rich.progress import BarColumn, MofNCompleteColumn, SpinnerColumn, TextColumn, TimeElapsedColumn
            from rich.progress import Progress as RichProgress

            columns = [SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn()]
            self.live = RichProgress(*columns, TimeElapsedColumn(), TextColumn("{task.fields[left]}"))
            self.task = self.live.add_task("rendering", total=total, left="")
            self.live.start()

    def running(self, names: list[str]) -> None:
        now = time.monotonic()
        self.started = {name: self.started.get(name, now) for name in names}
        if self.live:
            self.live.update(self.task, description="rendering " + ", ".join(names))

    def time_left(self) -> str:
        """The estimate of :func:`estimate_left` for the scenes not finished.

        A failure says nothing about how long the others take, so it is left out.
        """
        now = time.monotonic()
        running = [(self.expected.get(name), now - start) for name, start in self.started.items()]
        waiting = max(0, self.total - self.done - len(running))
        unstarted = [e for name, e in self.expected.items() if name not in self.started and name not in self.ended]
        unknown = max(0, waiting - len(unstarted))
        estimate = estimate_left([*unstarted[:waiting], *[None] * unknown], running, self.finished, self.jobs)
        if not (self.total - self.done) or not self.finished or estimate is None:
            return ""
        return f"about {max(1, round(estimate))} s left"

    def report(self, job: Job) -> None:
        record = job.record
        self.done += 1
        self.started.pop(job.entry.id, None)
        self.ended.add(job.entry.id)
        if record.status is Status.RENDERED:
            self.finished.append((self.expected.get(job.entry.id), record.seconds))
        done = f"[{self.done}/{self.total}] {record.status} {job.stem} in {record.seconds:.1f} s"
        left = self.time_left()
        if self.live:
            self.live.console.print(done, highlight=False)
            self.live.update(self.task, advance=1, left=left)
        else:
            print(f"{done}, {left}" if left else done, flush=True)

    def stop(self) -> None:
        if self.live:
            self.live.stop()


def plural(count: int, noun: str) -> str:
    """``1 scene``, ``2 scenes``: the summary lines count in plain words."""
    return f"{count} {noun}{'' if count == 1 else 's'}"
