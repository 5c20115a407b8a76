"""`python -m attention_math new-example SENTENCE`: a complete, commented, reproducible example file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from attention_math.example import DEFAULT_EXAMPLE, ROOT, load_example
from attention_math.new_example import build
from attention_math.values import compute

SENTENCE = "the cat sat on the mat"
DEFAULT = tomllib.loads(DEFAULT_EXAMPLE.read_text())


def new_example(*args: str, hash_seed: str = "0") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    return subprocess.run(
        [sys.executable, "-m", "attention_math", "new-example", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    result = new_example(SENTENCE)
    assert result.returncode == 0, result.stderr
    path = tmp_path_factory.mktemp("new") / "my.toml"
    path.write_text(result.stdout)
    return path


def test_the_same_sentence_gives_the_same_file_byte_for_byte(generated):
    again = new_example(SENTENCE, hash_seed="12345")  # another process, another str hash seed
    assert again.returncode == 0
    assert again.stdout == generated.read_text()
    assert build(SENTENCE) == generated.read_text()


def test_another_sentence_gives_other_numbers():
    a = tomllib.loads(build("the dog sat on the log"))["worked_example"]
    b = tomllib.loads(build("the cat sat on the mat"))["worked_example"]
    assert a["X"] != b["X"] and a["heads"] != b["heads"]


def test_it_loads_with_the_real_loader_and_computes(generated):
    values = compute(load_example(generated))
    assert values.worked_example.tokens == SENTENCE.split()
    assert values.semantic_shift.cases[0].tokens == SENTENCE.split()


def test_sizes_match_the_default_example(generated):
    data = tomllib.loads(generated.read_text())["worked_example"]
    d_model = len(DEFAULT["worked_example"]["X"][0])
    heads = len(DEFAULT["worked_example"]["heads"])
    assert [len(row) for row in data["X"]] == [d_model] * len(SENTENCE.split())
    assert len(data["heads"]) == heads
    for head in data["heads"]:
        for name in ("W_q", "W_k", "W_v"):
            assert [len(row) for row in head[name]] == [d_model // heads] * d_model
            assert all(round(x, 1) == x for row in head[name] for x in row)  # short numbers on screen


def test_every_section_of_the_default_is_there_or_deliberately_left_out(generated):
    text = generated.read_text()
    data = tomllib.loads(text)
    for section in DEFAULT:
        if section == "real_model":
            assert section not in data
            assert "# [real_model]" in text and "extract_model" in text  # a template and how to fill it
        else:
            assert section in data, section
    assert set(data) <= set(DEFAULT)


def test_the_demos_are_the_default_ones(generated):
    data = tomllib.loads(generated.read_text())
    for section in set(DEFAULT) - {"worked_example", "semantic_shift", "real_model"}:
        assert data[section] == DEFAULT[section], section


def test_the_meaning_map_follows_a_word_of_the_sentence(generated):
    shift = tomllib.loads(generated.read_text())["semantic_shift"]
    focus = shift["sentences"][0]["focus"]
    assert SENTENCE.split().count(focus) == 1
    assert focus not in {"the", "on"}  # a content word when there is one
    assert set(SENTENCE.split()) <= set(shift["words"])
    clustered = [w for members in shift["clusters"].values() for w in members]
    assert len(shift["clusters"]) >= 2 and set(clustered) <= set(shift["words"])


def test_comments_say_what_to_tune(generated):
    text = generated.read_text()
    sections = text.split("\n[")
    assert text.startswith("# ")
    we = next(s for s in sections if s.startswith("worked_example]"))
    assert "TUNE" in we and "GENERATED" in we
    shift = text[text.index("[semantic_shift.words]") - 600 :]
    assert shift.count("TUNE") >= 3  # the word, its placeholders' clusters, a second sentence
    assert sum(line.startswith("#") for line in text.splitlines()) >= 40


@pytest.mark.parametrize(
    "sentence",
    [
        'she said "hi" to grandmother\'s C:\\cat',  # quotes and backslashes in TOML strings and keys
        "I ate a banana",  # a word that is also a placeholder cluster word
        "Ελληνικά και 日本語",
        "one two three four five six seven eight nine ten eleven twelve",
    ],
)
def test_unusual_sentences_load_with_their_words(sentence, tmp_path):
    path = tmp_path / "x.toml"
    path.write_text(build(sentence))
    assert compute(load_example(path)).worked_example.tokens == sentence.split()


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("", "expected a sentence of 2 to 12 words"),
        ("cat", "got 1: 'cat'"),
        (" ".join(["word"] * 12 + ["more"]), "got 13"),
        ("the the", "expected a word that occurs only once"),
        ("I love 🍎", "word 3: expected letters, digits and punctuation"),
        ("a " + "x" * 17, "word 2: expected a word of at most 16 characters"),
    ],
)
def test_bad_sentences_exit_2_with_one_line(sentence, expected):
    result = new_example(sentence)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: new-example: ") and expected in lines[0]


def test_the_value_printer_is_unchanged_for_example_files(generated):
    result = subprocess.run(
        [sys.executable, "-m", "attention_math", "--example", str(generated), "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0
    assert json.loads(result.stdout)["worked_example"]["tokens"] == SENTENCE.split()


@pytest.mark.render
def test_a_generated_file_renders(generated, tmp_path):
    scenes = ["input-embeddings", "static-embeddings", "meaning-shift"]
    command = [sys.executable, "render.py", "--quality", "low", "--voice", "none", "--example", str(generated)]
    command += ["--output", str(tmp_path / "out"), "--scenes", *scenes]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert [s["id"] for s in manifest["scenes"] if s["status"] == "rendered"] == scenes
