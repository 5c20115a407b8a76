"""Every broken example file of tests/math/test_example_errors.py, through render.py: exit 2, the key path named,
no traceback, and the output folder rendered earlier stays byte-identical."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import GOOD, render, tree_digest
from tests.math.test_example_errors import CASES, UNUSABLE


def test_the_table_covers_every_section():
    sections = {key.split(".")[0].split("[")[0] for _, _, key, _ in CASES if key}
    assert len(CASES) >= 30 and len(sections) >= 9, sections


def assert_refused(repo: Path, rendered: Path, example: Path, key: str, expected: str) -> None:
    before = tree_digest(rendered)
    result = render(repo, *GOOD, "--example", str(example))
    assert result.returncode == 2, result.stderr
    assert result.stdout == "" and "Traceback" not in result.stderr
    where = f"{example}: {key}:" if key else f"{example}:"
    assert result.stderr.startswith(f"error: {where}"), result.stderr
    assert expected in result.stderr, result.stderr
    assert tree_digest(rendered) == before


@pytest.mark.parametrize(("text", "key", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_broken_example_changes_nothing_rendered(repo, rendered, tmp_path, text, key, expected):
    example = tmp_path / "broken.toml"
    example.write_text(text, encoding="utf-8")
    assert_refused(repo, rendered, example, key, expected)


@pytest.mark.parametrize(("make", "expected"), [c[1:] for c in UNUSABLE], ids=[c[0] for c in UNUSABLE])
def test_unusable_example_changes_nothing_rendered(repo, rendered, tmp_path, make, expected):
    assert_refused(repo, rendered, make(tmp_path), "", expected)


pytestmark = pytest.mark.render  # renders through render.py or manim (pytest -m "not render" leaves it out)
