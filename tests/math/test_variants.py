"""Masked, cross and shuffled attention, the softmax gaps, symmetric scores and the train's weighted sum:
each value checked against numpy written here, and the decoder sentence's loader errors (exit 2)."""

from __future__ import annotations

import math
import tomllib

import numpy as np
import pytest

from attention_math import DEFAULT_EXAMPLE, compute, load_example
from attention_math.__main__ import main
from tests.math.test_errata import ERRATA, seed_text, sources, squeeze, table_rows  # noqa: F401 (sources: a fixture)

VALUES = compute(load_example())
WE = VALUES.worked_example
X = WE.X
W = [(h.W_q, h.W_k, h.W_v) for h in WE.heads]


def plain_softmax(row: np.ndarray) -> np.ndarray:
    e = np.exp(row - row.max())
    return e / e.sum()


def plain_attention(xq: np.ndarray, xkv: np.ndarray, w_q, w_k, w_v) -> tuple[np.ndarray, np.ndarray]:
    """(weights, output) of one head, queries from ``xq``, keys and values from ``xkv``."""
    q, k, v = xq @ w_q, xkv @ w_k, xkv @ w_v
    s = q @ k.T / math.sqrt(q.shape[1])
    weights = np.array([plain_softmax(r) for r in s])
    return weights, weights @ v


def test_mask_zeroes_the_future_and_renormalizes_the_past():
    m = WE.variants.masked
    n = len(WE.tokens)
    assert np.all(m.weights[np.triu_indices(n, 1)] == 0.0)
    assert np.allclose(m.weights.sum(axis=1), 1.0)
    q, k = X @ W[0][0], X @ W[0][1]
    scaled = q @ k.T / math.sqrt(q.shape[1])
    for i in range(n):
        assert np.allclose(m.weights[i, : i + 1], plain_softmax(scaled[i, : i + 1]))
    assert m.weights[0, 0] == 1.0  # the first token sees only itself
    assert np.allclose(m.weights[-1], WE.heads[0].weights[-1])  # the last sees everything
    assert np.allclose(m.output, m.weights @ (X @ W[0][2]))
    assert m.visible.tolist() == [[j <= i for j in range(n)] for i in range(n)]


def decoder_table() -> dict:
    return tomllib.loads(DEFAULT_EXAMPLE.read_text())["worked_example"]["decoder"]


def test_cross_attention_reads_the_encoder_with_its_own_projections():
    c, table = WE.variants.cross, decoder_table()
    assert c is not None and c.own_projections  # the default example gives a decoder sentence and its own W's
    assert c.weights.shape == (len(c.decoder_tokens), len(WE.tokens))
    own = [np.array(table[n], dtype=float) for n in ("W_q", "W_k", "W_v")]
    weights, output = plain_attention(np.array(table["X"], dtype=float), X, *own)
    assert np.allclose(c.weights, weights)
    assert np.allclose(c.output, output)
    assert np.allclose(c.K, X @ own[1]) and np.allclose(c.V, X @ own[2])  # the encoder's words, cross's matrices


def test_the_default_decoder_words_read_most_the_words_they_translate():
    c = WE.variants.cross
    assert c is not None
    source = {"ich": {"I"}, "liebe": {"love"}, "Apple-Handys": {"apple", "phones"}}
    for word, row in zip(c.decoder_tokens, c.weights, strict=True):
        assert WE.tokens[int(np.argmax(row))] in source[word]
        assert row.max() > 0.5  # clearly, not by a hair


def without_cross_projections(text: str) -> str:
    lines = [line for line in text.splitlines(keepends=True) if not line.startswith(("W_q = [[2", "W_k = [[2"))]
    return "".join(line for line in lines if not line.startswith("W_v = [[1, 0], [0, 1], [1, 0]"))


def test_without_its_own_projections_cross_attention_uses_head_1s(tmp_path):
    path = tmp_path / "head1.toml"
    path.write_text(without_cross_projections(DEFAULT_EXAMPLE.read_text()))
    c = compute(load_example(path, ["worked_example"])).worked_example.variants.cross
    assert c is not None and not c.own_projections
    weights, output = plain_attention(np.array(decoder_table()["X"], dtype=float), X, *W[0])
    assert np.allclose(c.weights, weights) and np.allclose(c.output, output)
    assert np.allclose(c.K, WE.heads[0].K) and np.allclose(c.V, WE.heads[0].V)


def test_cross_projections_come_together(tmp_path, capsys):
    text = DEFAULT_EXAMPLE.read_text()
    path = tmp_path / "partial.toml"
    path.write_text(
        "".join(line for line in text.splitlines(keepends=True) if not line.startswith("W_v = [[1, 0], [0, 1], [1, 0]"))
    )
    assert main(["--example", str(path)]) == 2
    err = capsys.readouterr().err
    assert "worked_example.decoder.W_v" in err and "together" in err and "Traceback" not in err


def test_shuffling_the_tokens_shuffles_the_outputs():
    s = WE.variants.shuffled
    p = np.eye(len(WE.tokens))[s.order]  # permutation matrix
    outputs = [plain_attention(p @ X, p @ X, *w)[1] for w in W]
    assert np.allclose(np.concatenate(outputs, axis=1), p @ WE.output)
    assert np.allclose(s.output, p @ WE.output)
    assert s.tokens == [WE.tokens[i] for i in s.order] and s.equivariant


def softmax_top(scores: np.ndarray) -> float:
    e = np.exp(scores - scores.max())
    return float(e.max() / e.sum())


def test_softmax_sees_only_the_gaps():
    sd = VALUES.scaling_demo
    raw = sd.keys @ sd.query
    assert np.allclose(sd.raw_shifted, raw - raw.max())
    assert np.allclose(sd.scaled_shifted, (raw - raw.max()) / math.sqrt(len(sd.query)))
    exp = np.exp(sd.raw_shifted)
    assert np.allclose(exp / exp.sum(), sd.softmax_raw)  # the shifted scores give the same weights
    # "larger scores": the raw ones times the first power of 2 at which softmax puts 0.99 on one key
    k = next(k for k in range(1, 13) if sd.push == 2**k)
    assert softmax_top(raw * sd.push) >= 0.99 and (k == 1 or softmax_top(raw * 2 ** (k - 1)) < 0.99)
    assert np.isclose(sd.softmax_pushed.max(), softmax_top(raw * sd.push)) and np.isclose(sd.softmax_pushed.sum(), 1)
    if len(raw) == 2:  # two scores: the larger one's weight is 1 / (1 + e^-gap)
        gap = abs(raw[0] - raw[1])
        assert math.isclose(sd.softmax_raw.max(), 1 / (1 + math.exp(-gap)))
        assert math.isclose(sd.softmax_scaled.max(), 1 / (1 + math.exp(-gap / math.sqrt(len(sd.query)))))


def test_identity_projections_give_symmetric_scores():
    cs = VALUES.cat_sat
    scores = cs.E @ cs.W_q @ (cs.E @ cs.W_k).T
    assert cs.same_query_key == bool(np.array_equal(cs.W_q, cs.W_k))
    assert cs.scores_symmetric == bool(np.allclose(scores, scores.T))
    assert cs.scores_symmetric  # the notes' identity projections


def test_the_focus_words_output_is_its_weighted_sum():
    ts = VALUES.train_station
    x = ts.embeddings
    weights = np.array([plain_softmax(r) for r in x @ x.T / math.sqrt(x.shape[1])])
    f = ts.focus
    assert np.allclose(ts.focus_terms, weights[f][:, None] * x)
    assert np.allclose(ts.focus_terms.sum(axis=0), ts.output[f])
    assert ts.strongest == int(np.argmax(weights[f]))


DECODER = '[worked_example.decoder]\ntokens = ["ich", "liebe", "Handys"]\n'


@pytest.mark.parametrize(
    ("table", "key", "expected"),
    [
        (DECODER + "X = [[1, 0, 0, 0], [0, 1, 0, 0]]\n", "worked_example.decoder.X", "one row per token"),
        (DECODER + "X = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]\n", "worked_example.decoder.X", "d_model = 4 columns"),
        (DECODER + "X = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]]\nY = 1\n", "worked_example.decoder.Y", "unknown"),
        ("[worked_example.decoder]\nX = [[1, 0, 0, 0]]\n", "worked_example.decoder.tokens", "missing"),
    ],
)
def test_a_broken_decoder_sentence_exits_2(table, key, expected, tmp_path, capsys):
    text = DEFAULT_EXAMPLE.read_text()
    start = text.index("[worked_example.decoder]")
    end = text.index("# --- Handwritten notes")
    path = tmp_path / "broken.toml"
    path.write_text(text[:start] + table + "\n" + text[end:])
    assert main(["--example", str(path)]) == 2
    err = capsys.readouterr().err
    assert key in err and expected in err


def test_without_a_decoder_sentence_there_is_no_cross_attention(tmp_path):
    text = DEFAULT_EXAMPLE.read_text()
    start = text.index("[worked_example.decoder]")
    path = tmp_path / "plain.toml"
    path.write_text(text[:start] + text[text.index("# --- Handwritten notes") :])
    assert compute(load_example(path, ["worked_example"])).worked_example.variants.cross is None


def test_concept_errata_quote_their_seeds(sources):  # noqa: F811 (the fixture imported above)
    rows = table_rows(ERRATA.read_text(), "## Concepts")
    assert rows
    for seed, quote, *_ in rows:
        assert squeeze(quote) in squeeze(seed_text(sources, seed)), f"not in {seed}: {quote!r}"


def test_real_sizes_come_from_the_paper_and_the_model_data_file():
    import json

    from attention_math.example import ROOT

    if "real_model" not in load_example():
        pytest.skip("the default example has no [real_model] section")
    rm = compute(load_example(sections=["real_model"])).real_model
    original, minilm = rm.sizes
    assert (original.d_model, original.heads, original.d_k, original.sqrt_d_k) == (512, 8, 64, 8.0)
    data = json.loads((ROOT / "assets/real_model/minilm.json").read_text())
    heads = len(data["sentences"][0]["attention"][0])  # layers × heads × pieces × pieces
    assert (minilm.d_model, minilm.heads) == (data["hidden_size"], heads)
    assert minilm.d_k * minilm.heads == minilm.d_model
    assert math.isclose(minilm.sqrt_d_k, math.sqrt(data["hidden_size"] / heads))


def test_the_initial_projection_is_glorot_uniform_and_makes_its_queries():
    start = WE.initial
    d_model, d_k = X.shape[1], WE.heads[0].W_q.shape[1]
    assert start.W_q.shape == (d_model, d_k)
    assert start.limit == pytest.approx(math.sqrt(6 / (d_model + d_k)))  # 1.0 for 4 → 2
    assert np.all(np.abs(start.W_q) <= start.limit) and np.ptp(start.W_q) > 0
    assert np.array_equal(start.W_q, np.round(start.W_q, 2))  # what the screen shows is what Q is made from
    assert np.allclose(start.Q, X @ start.W_q)
    assert not np.allclose(start.W_q, WE.heads[0].W_q)  # random, not the example's learned matrix
    again = compute(load_example()).worked_example.initial
    assert np.array_equal(again.W_q, start.W_q)  # seeded: the same lesson every render
