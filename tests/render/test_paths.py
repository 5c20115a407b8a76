"""Paths with spaces, accents and ``..`` work; nothing is written outside the output folder; scene ids are
reduced to safe file names."""

from __future__ import annotations

from pathlib import Path

import pytest

from attention_math import DEFAULT_EXAMPLE
from tests.conftest import TINY_SCENES, copy_repo, manifest, render


def listing(folder: Path) -> set[str]:
    """Every path below ``folder`` (but Python's bytecode caches)."""
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if "__pycache__" not in p.parts}


def test_example_and_output_with_spaces_accents_and_dotdot(repo, tmp_path):
    examples = tmp_path / "exemples d'été"
    examples.mkdir()
    (examples / "mon exemple ü.toml").write_text(DEFAULT_EXAMPLE.read_text(encoding="utf-8"), encoding="utf-8")
    parent = tmp_path / "dossier à rendre"
    (parent / "sous dossier").mkdir(parents=True)
    before, repo_before = listing(tmp_path), listing(repo)
    example = f"{examples}/../{examples.name}/mon exemple ü.toml"
    output = f"{parent}/sous dossier/../sortie ü"
    result = render(repo, "--scenes", "width", "--example", example, output=output)
    assert result.returncode == 0, result.stderr
    out = parent / "sortie ü"
    assert listing(tmp_path) - before == {str(out.relative_to(tmp_path))} | {
        str((out / name).relative_to(tmp_path)) for name in listing(out)
    }
    assert listing(repo) == repo_before
    assert manifest(out.parent, out.name)["example"] == str(examples / "mon exemple ü.toml")
    assert (out / "01-width.mp4").is_file() and 'src="01-width.mp4"' in (out / "index.html").read_text()


ESCAPING_LESSON = """
LESSON[:] = [Entry("../../escape me/x", "Tiny", "Scaling", "scenes/tiny.py", "ShowScaling", ("scaling_demo",))]
"""


def test_scene_ids_become_safe_file_names(tmp_path):
    repo = copy_repo(tmp_path / "repo", ESCAPING_LESSON, TINY_SCENES)
    before = listing(tmp_path)
    result = render(repo, "--scenes", "*")
    assert result.returncode == 0, result.stderr
    out = repo / "out"
    assert {name for name in listing(out) if name.startswith("01-")} == {
        "01-_escape_me_x.mp4",
        "01-_escape_me_x.png",
        "01-_escape_me_x.srt",
        "01-_escape_me_x.vtt",
    }
    assert listing(tmp_path) - before == {str((out / name).relative_to(tmp_path)) for name in listing(out)} | {
        str(out.relative_to(tmp_path))
    }


def test_an_output_that_is_a_file_is_refused_and_kept(repo, tmp_path):
    taken = tmp_path / "notes.txt"
    taken.write_text("my notes")
    result = render(repo, "--scenes", "width", output=str(taken))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith(f"error: --output {taken} is a file, not a folder"), result.stderr
    assert taken.read_text() == "my notes"


pytestmark = pytest.mark.render  # renders through render.py or manim (pytest -m "not render" leaves it out)
