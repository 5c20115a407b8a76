"""Keep docs/errata.md true: every listed seed number differs from what we compute, and none is missing.

The source documents are not part of the repository. The checks that read them run where they are
given, as a folder in ``LESSON_SOURCES`` (``.ci/run`` sets it to ``../shared/seeds``); elsewhere they
are reported as not run, and every check on the project's own files still runs.
"""

from __future__ import annotations

import itertools
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from attention_math import LessonValues, compute, load_example
from attention_math.example import ROOT

SOURCES_ENV = "LESSON_SOURCES"
ERRATA = ROOT / "docs" / "errata.md"
DECK = "000"  # the slide deck "I love apple phones"


@dataclass(frozen=True)
class Slip:
    """One row of the errata's table of numbers."""

    seed: str
    where: str
    path: str
    seed_value: str
    computed: str
    context: str


def squeeze(text: str) -> str:
    """Runs of whitespace (the seeds' tabs and line breaks) as one space."""
    return " ".join(text.split())


@pytest.fixture(scope="module")
def sources() -> Path:
    """The folder of source documents named by ``LESSON_SOURCES``; without it, the test is reported as not run."""
    given = os.environ.get(SOURCES_ENV)
    if not given:
        pytest.skip(f"not run: the source documents are not given (set {SOURCES_ENV} to their folder)")
    folder = Path(given)
    if not folder.is_dir():
        pytest.fail(f"{SOURCES_ENV}={given}: not a folder of source documents")
    return folder


def seed_text(sources: Path, prefix: str) -> str:
    """The text of the source document whose name starts with ``prefix``."""
    matches = sorted(sources.glob(f"{prefix}_*.txt"))
    assert len(matches) == 1, f"expected one seed {prefix}_*.txt in {sources}, found {[m.name for m in matches]}"
    return matches[0].read_text()


def table_rows(markdown: str, heading: str) -> list[list[str]]:
    """The body cells of the first table below ``heading``, backticks removed."""
    lines = markdown.split(heading, 1)[1].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    table = list(itertools.takewhile(lambda line: line.startswith("|"), lines[start:]))
    return [[cell.strip().strip("`") for cell in line.strip().strip("|").split(" | ")] for line in table[2:]]


def read_errata() -> list[Slip]:
    return [Slip(*cells) for cells in table_rows(ERRATA.read_text(), "## Numbers")]


def resolve(values: LessonValues, path: str) -> Any:
    """``worked_example.heads[0].K[1][0]`` → that entry of the computed values."""
    value: Any = values
    for name, index in re.findall(r"\.?([A-Za-z_]\w*)|\[(\d+)\]", path):
        value = getattr(value, name) if name else value[int(index)]
    return value


def shown(value: float, like: str) -> str:
    """``value`` at the precision of the seed's ``like`` (``0.28``, ``1.0``, ``27.8%``)."""
    percent = like.endswith("%")
    digits = like.rstrip("%")
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    return f"{value * 100 if percent else value:.{decimals}f}" + ("%" if percent else "")


def deck_cells(deck: str, tokens: list[str]) -> list[tuple[str, str]]:
    """``(value path, seed number)`` for every cell of the slide deck's head-1 tables.

    Step 4's Q, K, V; step 5's raw scores; steps 6–7's weights (and their sums);
    step 8's output; the head-1 half of steps 9–10's concatenation.
    """
    head = "worked_example.heads[0]"
    cells: list[tuple[str, str]] = []
    for section in re.split(r"^# ", deck, flags=re.M):
        rows = [line.split("\t") for line in section.splitlines() if line.split("\t")[0] in tokens and "\t" in line]
        for row in rows:
            i = tokens.index(row[0])
            numbers = [re.findall(r"-?\d+\.\d+", cell) for cell in row[1:]]
            if section.startswith("Step 4:"):
                for name, pair in zip(("Q", "K", "V"), numbers, strict=True):
                    cells += [(f"{head}.{name}[{i}][{j}]", x) for j, x in enumerate(pair)]
            elif section.startswith("Step 5:"):
                cells += [(f"{head}.scores[{i}][{j}]", x[0]) for j, x in enumerate(numbers)]
            elif section.startswith("Step 6 & 7:"):
                cells += [(f"{head}.weights[{i}][{j}]", x[0]) for j, x in enumerate(numbers[:-1])]
                cells.append((f"{head}.weight_sums[{i}]", numbers[-1][0]))
            elif section.startswith("Step 8:"):
                cells += [(f"{head}.output[{i}][{j}]", x) for j, x in enumerate(numbers[0])]
            elif section.startswith("Step 9 & 10:"):
                cells += [(f"worked_example.concat[{i}][{j}]", x) for j, x in enumerate(numbers[0][:2])]
    return cells


@pytest.fixture(scope="module")
def values() -> LessonValues:
    return compute(load_example())


@pytest.fixture(scope="module")
def slips() -> list[Slip]:
    rows = read_errata()
    assert rows, f"no rows found below '## Numbers' in {ERRATA}"
    return rows


def test_seed_numbers_appear_in_their_quoted_context(slips):
    for slip in slips:
        assert re.search(rf"(?<![\d.]){re.escape(slip.seed_value)}(?![\d])", squeeze(slip.context)), slip


def test_quoted_contexts_are_in_the_sources(sources, slips):
    for slip in slips:
        assert squeeze(slip.context) in squeeze(seed_text(sources, slip.seed)), f"not in {slip.seed}: {slip.context!r}"


def test_computed_numbers_are_attention_math(values, slips):
    for slip in slips:
        assert shown(resolve(values, slip.path), slip.seed_value) == slip.computed, slip


def test_listed_numbers_differ(slips):
    for slip in slips:
        assert slip.seed_value != slip.computed, slip


def test_no_slip_of_the_deck_tables_is_missing(sources, values, slips):
    cells = deck_cells(seed_text(sources, DECK), values.worked_example.tokens)
    # Q, K, V: 24; scores: 16; weights and sums: 20; output: 8; concatenation (head 1): 8.
    assert len(cells) == 76, "the slide deck's tables changed shape: update deck_cells"
    listed = {(s.path, s.seed_value) for s in slips if s.seed == DECK}
    for path, seed_value in cells:
        if shown(resolve(values, path), seed_value) != seed_value:
            assert (path, seed_value) in listed, f"slide deck {path} = {seed_value} differs but is not listed"


def test_notation_slips_quote_the_sources(sources):
    rows = table_rows(ERRATA.read_text(), "## Notation")
    assert rows, f"no rows found below '## Notation' in {ERRATA}"
    for seed, quote, *_ in rows:
        assert squeeze(quote) in squeeze(seed_text(sources, seed)), f"not in {seed}: {quote!r}"


def test_shown_rounds_like_the_seed():
    assert shown(0.2804, "0.28") == "0.28"
    assert shown(0.21, "19.0%") == "21.0%"
    assert shown(1.1, "1.2") == "1.1"
    assert shown(2.0, "2") == "2"
