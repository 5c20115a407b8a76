"""The progress display: scenes done out of total, each scene's time, an estimate of the time left.

A live rich display on a terminal; plain lines otherwise, so CI logs stay readable.
"""

from __future__ import annotations

import sys
from typing import Any

from .manifest import Status
from .plan import Job


class Progress:
    def __init__(self, total: int, jobs: int) -> None:
        self.total, self.jobs = total, jobs
        self.seconds: list[float] = []  # of the scenes rendered
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
        if self.live:
            self.live.update(self.task, description="rendering " + ", ".join(names))

    def time_left(self) -> str:
        """Mean time of the scenes rendered so far, times the scenes left, shared by the workers.

        A failure says nothing about how long the others take, so it is left out of the mean.
        """
        left = self.total - self.done
        if not left or not self.seconds:
            return ""
        estimate = sum(self.seconds) / len(self.seconds) * left / min(self.jobs, left)
        return f"about {max(1, round(estimate))} s left"

    def report(self, job: Job) -> None:
        record = job.record
        self.done += 1
        if record.status is Status.RENDERED:
            self.seconds.append(record.seconds)
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
