"""Broken example files: `python -m attention_math` exits 2 naming the file, the key path and what was expected."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from attention_math import DEFAULT_EXAMPLE
from attention_math.__main__ import main
from attention_math.example import ROOT

DEFAULT = DEFAULT_EXAMPLE.read_text()
HEAD_1_W_Q = "W_q = [[1, 0], [0, 1], [1, 0], [0, 1]]"
CAT_IDENTITY = "[[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]"
X_ROWS = re.search(r"^X = \[.*?^\]", DEFAULT, flags=re.S | re.M).group()
ONE_COLUMN_HEAD = "[[worked_example.heads]]\n" + "".join(f"{w} = [[1], [0], [0], [0]]\n" for w in ("W_q", "W_k", "W_v"))


def edited(old: str, new: str) -> str:
    """The default example with the first ``old`` replaced by ``new`` (which must be there)."""
    assert old in DEFAULT, f"the default example no longer contains {old!r}: update this test"
    return DEFAULT.replace(old, new, 1)


def without_section(name: str) -> str:
    """The default example without the ``[name]`` table (up to the next ``# ---`` banner)."""
    text, count = re.subn(rf"\n\[{name}\]\n.*?(?=\n# ---)", "\n", DEFAULT, flags=re.S)
    assert count == 1, f"section [{name}] not found in the default example"
    return text


def before_heads(line: str) -> str:
    """The default example with ``line`` added to [worked_example], above its first head."""
    return edited("# Head 1", f"{line}\n# Head 1")


# (case id, file text, key path the message must name, words the message must contain)
CASES = [
    ("syntax error", edited("[worked_example]", "[worked_example"), "", "not valid TOML"),
    ("missing section", without_section("complexity"), "complexity", "missing"),
    ("missing key", edited("retention = 0.6", ""), "rnn_decay.retention", "missing"),
    ("unknown key", edited("retention = 0.6", "retension = 0.6"), "rnn_decay.retension", "did you mean 'retention'"),
    ("unknown section", edited("[complexity]", "[complexty]"), "complexty", "did you mean 'complexity'"),
    ("unknown key in a head", edited(HEAD_1_W_Q, HEAD_1_W_Q + "\nW_x = 1"), "worked_example.heads[0].W_x", "W_"),
    (
        "key under the wrong header",
        edited("# Optional: a decoder sentence", "W_O = [[1, 0, 0, 0]]\n# Optional: a decoder sentence"),
        "worked_example.heads[1].W_O",
        "belongs to [worked_example]",
    ),
    ("string for a number", edited("retention = 0.6", 'retention = "0.6"'), "rnn_decay.retention", "a number"),
    (
        "bool for a number",
        edited("bytes_per_weight = 4", "bytes_per_weight = true"),
        "complexity.bytes_per_weight",
        "whole number",
    ),
    ("float for a whole number", edited("samples = 4000", "samples = 4000.5"), "variance_demo.samples", "whole number"),
    ("table for a number", edited("retention = 0.6", "retention = {a = 1}"), "rnn_decay.retention", "a number"),
    ("nan in a matrix", edited("[1.0, 0.5, 0.2, 0.1]", "[nan, 0.5, 0.2, 0.1]"), "worked_example.X[0][0]", "finite"),
    ("inf in a vector", edited("scores = [1.0, 0.6", "scores = [1.0, inf"), "saturation_demo.scores[1]", "finite"),
    ("-inf in the query", edited("query = [2, 3, 4, 1]", "query = [2, 3, -inf, 1]"), "scaling_demo.query[2]", "finite"),
    (
        "nan in a word position",
        edited("apple = [0.0, 1.6]", "apple = [nan, 1.6]"),
        "semantic_shift.words.apple[0]",
        "finite",
    ),
    (
        "inf in embeddings",
        edited("[1.2, 0.9, 0.1, 0.2]", "[inf, 0.9, 0.1, 0.2]"),
        "train_station.embeddings[1][0]",
        "finite",
    ),
    (
        "value too large",
        edited("[1.0, 0.5, 0.2, 0.1]", "[1e308, 0.5, 0.2, 0.1]"),
        "worked_example.X[0][0]",
        "from -100 to 100",
    ),
    ("ragged matrix", edited("[0.9, 1.1, 0.1, 0.0]", "[0.9, 1.1, 0.1]"), "worked_example.X", "ragged"),
    ("empty matrix", before_heads("W_O = []"), "worked_example.W_O", "non-empty matrix"),
    ("empty row", edited("[0.9, 1.1, 0.1, 0.0]", "[]"), "worked_example.X[1]", "1 to 64 items"),
    (
        "number for a matrix",
        edited("W_v = [[1, 0], [0, 1], [1, 1], [0, 1]]", "W_v = 5"),
        "worked_example.heads[0].W_v",
        "matrix",
    ),
    (
        "flat list for a matrix",
        edited("W_v = [[1, 0], [0, 1], [1, 1], [0, 1]]", "W_v = [1, 0, 1, 1]"),
        "worked_example.heads[0].W_v[0]",
        "a list",
    ),
    ("shapes do not chain", edited(HEAD_1_W_Q, "W_q = [[1, 0], [0, 1], [1, 0]]"), "worked_example.heads[0].W_q", "4×2"),
    (
        "3×3 identity for 4-d embeddings",
        edited(f"W_q = {CAT_IDENTITY}", "W_q = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]"),
        "cat_sat.W_q",
        "4 rows",
    ),
    (
        "W_k narrower than W_q",
        edited(f"W_k = {CAT_IDENTITY}", "W_k = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 0]]"),
        "cat_sat.W_k",
        "4 columns",
    ),
    ("W_O of the wrong shape", before_heads("W_O = [[1, 0]]"), "worked_example.W_O", "4×4"),
    (
        "d_model not divisible by heads",
        edited("# --- Handwritten notes", ONE_COLUMN_HEAD + "# --- Handwritten notes"),
        "worked_example.heads",
        "divisible",
    ),
    (
        "token count differs from rows",
        edited('"apple", "phones"]', '"apple", "phones", "now"]'),
        "worked_example.X",
        "one row per token",
    ),
    (
        "too many tokens",
        edited('tokens = ["the", "cat", "sat"]', f"tokens = {[f'w{i}' for i in range(13)]}"),
        "cat_sat.tokens",
        "2 to 12",
    ),
    (
        "too many heads",
        edited("# --- Handwritten notes", "[[worked_example.heads]]\n" * 3 + "# --- Handwritten notes"),
        "worked_example.heads",
        "1 to 4",
    ),
    ("d_model above 8", edited(X_ROWS, f"X = {[[0.5] * 9] * 4}"), "worked_example.X", "at most 8 columns"),
    (
        "number for a token",
        edited('tokens = ["the", "cat", "sat"]', "tokens = [1, 2, 3]"),
        "cat_sat.tokens[0]",
        "a word",
    ),
    (
        "empty token",
        edited('tokens = ["the", "cat", "sat"]', 'tokens = ["", "cat", "sat"]'),
        "cat_sat.tokens[0]",
        "a word",
    ),
    ("unknown focus word", edited('focus = "train"', 'focus = "bus"'), "train_station.focus", "one of the tokens"),
    ("ambiguous focus word", edited('focus = "train"', 'focus = "the"'), "train_station.focus", "once"),
    (
        "focus not in its sentence",
        edited('focus = "apple"', 'focus = "pie"'),
        "semantic_shift.sentences[0].focus",
        "one of the tokens",
    ),
    (
        "sentence word without position",
        edited('"an", "apple", "pie"]', '"an", "apple", "tart"]'),
        "semantic_shift.sentences[1].tokens[4]",
        "semantic_shift.words",
    ),
    (
        "cluster word without position",
        edited('"grape", "cherry"]', '"grape", "kiwi"]'),
        "semantic_shift.clusters.fruit[2]",
        "semantic_shift.words",
    ),
    ("a single cluster", edited('tech = ["laptop", "tablet", "android"]', ""), "semantic_shift.clusters", "2 clusters"),
    (
        "3-d word position",
        edited("apple = [0.0, 1.6]", "apple = [0.0, 1.6, 2.0]"),
        "semantic_shift.words.apple",
        "expected 2 items",
    ),
    ("target before source", edited('target = "are"', 'target = "The"'), "rnn_decay.target", "after the source"),
    ("retention above 1", edited("retention = 0.6", "retention = 1.5"), "rnn_decay.retention", "0.01 to 0.99"),
    (
        "dimensions not increasing",
        edited("dimensions = [4, 16, 64, 256, 1024]", "dimensions = [16, 4]"),
        "variance_demo.dimensions",
        "increasing",
    ),
    ("negative seed", edited("seed = 2017", "seed = -1"), "variance_demo.seed", "whole number"),
    (
        "zero scale",
        edited("scales = [1, 4, 16, 64]", "scales = [0, 4, 16, 64]"),
        "saturation_demo.scales[0]",
        "0.001 to 1000",
    ),
    (
        "keys shorter than the query",
        edited("[1, 0, 1, 0],\n  [0, 1, 0, 1],\n]\n# The", "[1, 0, 1],\n  [0, 1, 0],\n]\n#"),
        "scaling_demo.keys",
        "4 numbers",
    ),
    (
        "scores too large for e^score",
        edited("[1.0, 0.5, 0.2, 0.1]", "[100, 100, 100, 100]"),
        "worked_example.heads[0]",
        "e^score stays finite",
    ),
    (
        "a map word with no row for the head to read",
        edited("pie = [0.1, 0.0, 0.7, 1.1]\n", ""),
        "semantic_shift.sentences[1].tokens[4]",
        "'pie' has no row of d_model = 4 numbers for head 2 to read",
    ),
    (
        "a map word's row of the wrong length",
        edited("pie = [0.1, 0.0, 0.7, 1.1]", "pie = [0.1, 0.0, 0.7]"),
        "semantic_shift.embeddings.pie",
        "expected 4 items, got 3",
    ),
    (
        "a worked-example word given a second row",
        edited("ate = [0.5, 1.0, 0.2, 0.1]", "apple = [0.5, 1.0, 0.2, 0.1]"),
        "semantic_shift.embeddings.apple",
        "already has its row in worked_example.X",
    ),
    (
        "a head the worked example does not have",
        edited("head = 2", "head = 3"),
        "semantic_shift.head",
        "expected a whole number from 1 to 2, got 3",
    ),
    ("section that is not a table", "complexity = 3\n" + without_section("complexity"), "complexity", "a table"),
]


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``python -m attention_math argv`` in this process: exit status, stdout, stderr."""
    try:
        status = main(argv)
    except SystemExit as e:  # argparse's usage errors
        status = e.code
    out, err = capsys.readouterr()
    return status, out, err


def assert_clear_error(status: int, out: str, err: str, path: str, key: str, expected: str) -> None:
    assert status == 2
    assert out == ""
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert 1 <= len(lines) <= 3, err
    where = f"{path}: {key}:" if key else f"{path}:"
    assert lines[0].startswith(f"error: {where}"), err
    assert expected in err, err


@pytest.mark.parametrize(("text", "key", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_broken_example_exits_2_naming_key(text, key, expected, tmp_path, capsys):
    path = tmp_path / "broken.toml"
    path.write_text(text)
    assert_clear_error(*run(["--example", str(path)], capsys), str(path), key, expected)


def test_cases_are_distinct_and_default_is_valid(capsys):
    assert len({c[1] for c in CASES}) == len(CASES), "two cases edit the file the same way"
    status, out, _ = run([], capsys)
    assert status == 0 and "worked_example" in out


def written(path: Path, content: bytes) -> Path:
    path.write_bytes(content)
    return path


# (case id, the path to pass given an empty temporary folder, words the message must contain)
UNUSABLE = [
    ("missing file", lambda d: d / "nope.toml", "not found"),
    ("directory", lambda d: d, "directory"),
    ("path below a file", lambda d: written(d / "f.toml", b"") / "x.toml", "cannot be read"),
    ("not UTF-8", lambda d: written(d / "b.toml", b"\xff\xfe[x"), "cannot be read"),
    ("empty file", lambda d: written(d / "e.toml", b""), "missing"),
]


@pytest.mark.parametrize(("make", "expected"), [c[1:] for c in UNUSABLE], ids=[c[0] for c in UNUSABLE])
def test_unusable_file_exits_2(make, expected, tmp_path, capsys):
    path = make(tmp_path)
    status, out, err = run(["--example", str(path)], capsys)
    assert status == 2 and out == "" and "Traceback" not in err
    assert err.startswith(f"error: {path}:") and expected in err, err
    assert len(err.strip().splitlines()) <= 3


def test_bad_flag_exits_2_with_usage(capsys):
    status, out, err = run(["--exampel", "x.toml"], capsys)
    assert status == 2 and out == ""
    assert "usage:" in err and "--exampel" in err


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--example", str(ROOT / "missing.toml")], "not found"),
        (["--json", "--example", "{nan_file}"], "worked_example.X[0][0]: expected a finite number"),
        (["--no-such-flag"], "unrecognized arguments"),
    ],
    ids=["missing file", "nan", "bad flag"],
)
def test_real_process_exits_2_without_traceback(argv, expected, tmp_path):
    nan_file = tmp_path / "nan.toml"
    nan_file.write_text(edited("[1.0, 0.5, 0.2, 0.1]", "[nan, 0.5, 0.2, 0.1]"))
    argv = [a.format(nan_file=nan_file) for a in argv]
    result = subprocess.run(
        [sys.executable, "-m", "attention_math", *argv], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    assert expected in result.stderr, result.stderr
