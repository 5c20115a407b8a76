"""Each scene's probe, once per test worker and example: the test modules share it (tests/conftest.py puts
a scene's tests, whatever their module, in one worker)."""

from functools import cache
from pathlib import Path

from attention_math import DEFAULT_EXAMPLE
from scenes.lesson import Entry
from scenes.probe import Snapshot, probe


def snapshots(entry: Entry, example: str | Path | None = None) -> list[Snapshot]:
    """``entry`` played with ``example`` (the default one when ``None``)."""
    return _played(entry, Path(example or DEFAULT_EXAMPLE).resolve())


@cache
def _played(entry: Entry, example: Path) -> list[Snapshot]:
    return probe(entry, example)
