"""`python -m attention_math`: readable tables by default, every value of issue 2 with ``--json``."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from attention_math.example import ROOT

HEAD_KEYS = {"W_q", "W_k", "W_v", "Q", "K", "V", "scores", "scaled_scores", "weights", "output"}
CASE_KEYS = {"sentence", "word", "before", "after", "distance_before", "distance_after"}


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "attention_math", *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


@pytest.fixture(scope="module")
def report() -> dict:
    result = run_cli("--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_worked_example_keys(report):
    we = report["worked_example"]
    assert {"tokens", "X", "heads", "concat"} <= we.keys()
    assert we["tokens"] == ["I", "love", "apple", "phones"]
    assert len(we["heads"]) == 2
    for head in we["heads"]:
        assert head.keys() >= HEAD_KEYS
    assert np.shape(we["concat"]) == (4, 4)


def test_concat_is_the_heads_side_by_side(report):
    we = report["worked_example"]
    sides = np.hstack([np.array(h["output"]) for h in we["heads"]])
    assert np.array_equal(np.array(we["concat"]), sides)


def test_cat_sat_keys(report):
    keys = {"tokens", "E", "W_q", "W_k", "W_v", "Q", "K", "V", "scores", "scaled_scores", "weights", "output"}
    assert keys <= report["cat_sat"].keys()


def test_scaling_demo_keys(report):
    demo = report["scaling_demo"]
    assert {"raw", "scaled", "softmax_raw", "softmax_scaled"} <= demo.keys()
    assert demo["raw"] == [6, 4] and demo["scaled"] == [3, 2]


def test_semantic_shift_clusters_are_lists_of_points(report):
    clusters = report["semantic_shift"]["clusters"]
    assert {"fruit", "tech"} <= clusters.keys()
    for points in clusters.values():
        assert isinstance(points, list) and points
        assert all(len(p) == 2 and all(isinstance(c, float) for c in p) for p in points)


def test_semantic_shift_cases(report):
    cases = report["semantic_shift"]["cases"]
    assert [c["sentence"] for c in cases] == ["I love apple phones", "I ate an apple pie"]
    for case in cases:
        assert case.keys() >= CASE_KEYS
        assert case["word"] == "apple"
        assert len(case["before"]) == 2 and len(case["after"]) == 2
        for side in ("distance_before", "distance_after"):
            assert set(case[side]) == {"fruit", "tech"}
            assert all(d >= 0 for d in case[side].values())


def test_json_is_strict(report):
    """No NaN or Infinity, which ``json.loads`` accepts but other readers refuse."""
    text = json.dumps(report, allow_nan=False)
    assert json.loads(text) == report


def test_readable_tables_name_every_section():
    result = run_cli()
    assert result.returncode == 0, result.stderr
    for section in ("worked_example", "cat_sat", "scaling_demo", "semantic_shift", "train_station"):
        assert f"== {section} ==" in result.stdout
    assert "softmax_scaled: [0.7311 0.2689]" in result.stdout


def test_other_example_file(tmp_path):
    text = (ROOT / "assets/examples/default.toml").read_text().replace("retention = 0.6", "retention = 0.5", 1)
    path = tmp_path / "half.toml"
    path.write_text(text)
    result = run_cli("--example", str(path), "--json")
    assert result.returncode == 0, result.stderr
    decay = json.loads(result.stdout)["rnn_decay"]
    assert decay["signal_at_target"] == pytest.approx(0.5**6)
