"""Every comparative sentence the lesson says is true of the numbers, for the default example, the
12-token example and examples written by `new-example`.

Each sentence is read back by a checker that recomputes what it rests on with numpy, straight from the
example file's inputs (not from ``attention_math``'s values), and parses the names and numbers it says.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from attention_math import DEFAULT_EXAMPLE, load_example
from attention_math.claims import alike_outputs, lesson_claims, normalized, parked, read_as_pieces, toy_match
from attention_math.new_example import build
from attention_math.values import compute

EXAMPLES = Path(__file__).parents[1] / "examples"
SENTENCES = ["the bank raised interest rates", "we sat on the river bank", "a b", "my dog chased the red ball"]
QUOTED = r"'([^']+)'"


def softmax(rows: np.ndarray) -> np.ndarray:
    e = np.exp(rows - rows.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def close(said: str, value: float) -> bool:
    """``said`` is ``value`` at two decimals."""
    return abs(float(said) - value) <= 0.005 + 1e-9


@pytest.fixture(scope="module", params=["default", "twelve_tokens", *SENTENCES])
def example(request, tmp_path_factory) -> dict:
    if request.param == "default":
        return load_example(DEFAULT_EXAMPLE)
    if request.param == "twelve_tokens":
        return load_example(EXAMPLES / "twelve_tokens.toml")
    path = tmp_path_factory.mktemp("new") / "example.toml"
    path.write_text(build(request.param), encoding="utf-8")
    return load_example(path)


@pytest.fixture(scope="module")
def claims(example) -> dict:
    return lesson_claims(compute(example))


# --- the checkers: each recomputes from the example's inputs -------------------------------------


def check_largest_score(text: str, ex: dict) -> None:
    we = ex["worked_example"]
    tokens, head = we["tokens"], we["heads"][0]
    q, keys = we["X"][0] @ head["W_q"], we["X"] @ head["W_k"]
    scores = keys @ q
    cos = scores / (np.linalg.norm(keys, axis=1) * np.linalg.norm(q))
    angle = np.degrees(np.arccos(np.clip(cos, -1, 1)))
    length = np.linalg.norm(keys, axis=1)
    if text.startswith("No key points"):
        assert scores.max() <= 0
        return
    winner = re.search(r"(?:goes to|pointing most the same way:) " + QUOTED, text).group(1)
    w = tokens.index(winner)
    assert scores[w] == pytest.approx(scores.max()), f"{winner!r} does not have the largest score {scores}"
    if "points closer" in text:
        a = tokens.index(re.search(QUOTED + r" points closer", text).group(1))
        assert angle[a] < angle[w] and length[w] > length[a], (angle, length)
        assert "longer" in text
    else:  # "points most nearly the query's way", or the old "pointing most the same way"
        assert angle[w] <= angle.min() + 1e-6, f"{winner!r} is {angle[w]:.1f}° off, another key {angle.min():.1f}°"


def check_mirror(text: str, ex: dict) -> None:
    cs = ex["cat_sat"]
    q, k = cs["E"] @ cs["W_q"], cs["E"] @ cs["W_k"]
    scores = q @ k.T
    weights = softmax(scores / np.sqrt(k.shape[1]))
    if text.startswith("These scores do not mirror"):
        assert not np.allclose(scores, scores.T)
        return
    assert np.allclose(scores, scores.T)
    if text.startswith("The weights happen to mirror"):
        assert np.allclose(weights, weights.T, atol=0.005)
        return
    a, b, _, _ = re.findall(QUOTED, text)
    wab, wba = re.findall(r"\d+\.\d\d", text)
    i, j = cs["tokens"].index(a), cs["tokens"].index(b)
    assert close(wab, weights[i, j]) and close(wba, weights[j, i]) and weights[i, j] > weights[j, i]


def check_broken_mirror(text: str, ex: dict) -> None:
    we = ex["worked_example"]
    x, head, tokens = we["X"], we["heads"][0], we["tokens"]
    scores = (x @ head["W_q"]) @ (x @ head["W_k"]).T
    if text.startswith("With W_Q not equal"):
        assert np.allclose(scores, scores.T, atol=0.005)
        return
    a, b = re.findall(QUOTED, text)[:2]
    ab, ba = re.findall(r"-?\d+\.\d\d", text)
    i, j = tokens.index(a), tokens.index(b)
    assert close(ab, scores[i, j]) and close(ba, scores[j, i])
    gaps = np.abs(scores - scores.T)
    assert gaps[i, j] == pytest.approx(gaps.max())  # the pair that mirrors least


def check_lean(text: str, ex: dict) -> None:
    sd = ex["scaling_demo"]
    raw = sd["keys"] @ sd["query"]
    top, soft = softmax(raw).max(), softmax(raw / np.sqrt(len(sd["query"]))).max()
    said = re.findall(r"\d+\.\d\d", text)
    assert not said or "is softer" in text or close(said[0], top)  # a softer claim says the smallest weights
    if "saturated" in text:
        assert top >= 0.99
    elif "leans hard" in text:
        assert close(said[1], soft) and soft < top < 0.99
        assert ("Larger scores would push" in text) == (np.sort(raw)[-1] > np.sort(raw)[-2])  # one key alone on top
    elif "is softer" in text:
        low, high = softmax(raw).min(), softmax(raw / np.sqrt(len(sd["query"]))).min()
        assert high > low and "grows from" in text
        assert close(said[-2], low) and close(said[-1], high)


def check_row_meaning(text: str, ex: dict) -> None:
    ts = ex["train_station"]
    x, tokens = ts["embeddings"], ts["tokens"]
    weights = softmax(x @ x.T / np.sqrt(x.shape[1]))
    names = re.findall(QUOTED, text)  # the row's word, then the word it looks at most
    r, o = tokens.index(names[0]), tokens.index(names[1])
    others = [weights[r, j] for j in range(len(tokens)) if j != r]
    assert weights[r, o] == pytest.approx(max(others)), f"{names[0]!r} does not look most at {names[1]!r}"
    if "even more than at itself" in text:
        assert weights[r, o] > weights[r, r]
    if "after itself" in text.lower():
        assert weights[r, r] >= weights[r, o]


def check_map_move(text: str, ex: dict, case: int) -> None:
    ss, we = ex["semantic_shift"], ex["worked_example"]
    head = we["heads"][ss["head"] - 1]
    sentence = ss["sentences"][case]
    tokens, focus = sentence["tokens"], sentence["focus"]  # the loader gives its place
    q, k = sentence["X"] @ head["W_q"], sentence["X"] @ head["W_k"]
    alpha = softmax(k @ q[focus] / np.sqrt(q.shape[1]))
    places = np.array([ss["words"][w] for w in tokens])
    centres = {name: np.mean([ss["words"][w] for w in members], axis=0) for name, members in ss["clusters"].items()}
    before = {n: np.linalg.norm(places[focus] - c) for n, c in centres.items()}
    after = {n: np.linalg.norm(alpha @ places - c) for n, c in centres.items()}
    name = re.search(r"from the (\S+) centre", text).group(1)
    now, was = re.findall(r"\d+\.\d\d", text)[:2]
    assert close(now, after[name]) and close(was, before[name])
    assert after[name] == pytest.approx(min(after.values())), "the centre named is not the nearest"
    if "moved toward" in text:
        assert after[name] < before[name]
    if match := re.search(r", (\d+\.\d\d) from (\w+):", text):  # the runner-up centre, farther
        distance, other = match.groups()
        assert close(distance, after[other]) and after[other] > after[name]
    if "still its nearest" in text:
        assert min(before, key=before.get) == name and after[name] >= before[name]
    if match := re.search(r"moved away from (\w+), and a little toward (\w+)", text):
        fled, toward = match.groups()
        assert toward == name and after[name] < before[name]
        assert after[fled] - before[fled] > 2 * (before[name] - after[name])  # mostly away: it left faster
    elif "moved toward" in text:
        for other in (n for n in after if n != name):  # not mostly a move away from another centre
            assert after[other] - before[other] <= 2 * (before[name] - after[name])


def check_normalized(text: str, ex: dict) -> None:
    we = ex["worked_example"]
    x, heads = we["X"], []
    for h in we["heads"]:
        q, k, v = x @ h["W_q"], x @ h["W_k"], x @ h["W_v"]
        heads.append(softmax(q @ k.T / np.sqrt(q.shape[1])) @ v)
    out = np.hstack(heads) if we.get("W_O") is None else np.hstack(heads) @ we["W_O"]
    rows = x + out  # the residual, then layer norm by its definition, row by row
    normed = np.array([(r - r.mean()) / np.sqrt(((r - r.mean()) ** 2).mean() + 1e-5) for r in rows])
    assert np.allclose(normed.mean(axis=1), 0, atol=1e-9)
    if text == "Every row now has mean 0 and standard deviation 1.":  # said only where it holds, to two decimals
        assert np.allclose(normed.std(axis=1), 1, atol=0.005), normed.std(axis=1)
    else:
        assert "unless its numbers were nearly equal" in text


def check_alike_outputs(text: str, ex: dict) -> None:
    we = ex["worked_example"]
    x, head = we["X"], we["heads"][0]
    q, k, v = x @ head["W_q"], x @ head["W_k"], x @ head["W_v"]
    weights = softmax(q @ k.T / np.sqrt(q.shape[1]))
    out = weights @ v
    assert "almost evenly" in text
    assert all(row.max() - row.min() <= 0.15 for row in weights), weights  # every row nearly even
    spread = [max(np.linalg.norm(a - b) for a in m for b in m) for m in (out, v)]
    assert spread[0] <= 0.2 * spread[1], spread  # the outputs much closer together than the values


def test_every_claim_is_true_of_the_numbers(example, claims):
    checks = {
        "dot-products": lambda text, ex: (check_broken_mirror if "W_Q" in text else check_largest_score)(text, ex),
        "symmetric-scores": check_mirror,
        "scaling-comparison": check_lean,
        "train-station": check_row_meaning,
        "add-norm": check_normalized,
        "weighted-sum": check_alike_outputs,
    }
    for scene, check in checks.items():
        for claim in claims[scene]:
            check(claim.text, example)
    for case, claim in enumerate(claims["meaning-shift"]):
        check_map_move(claim.text, example, case)


def test_the_old_dot_products_sentence_is_caught():
    """Today's sentence before this change called "love" the key pointing most the same way: it is 26.6° off."""
    ex = load_example(DEFAULT_EXAMPLE)
    old = "The dot product q·k is largest for the key pointing most the same way: 'love'."
    with pytest.raises(AssertionError, match="love"):
        check_largest_score(old, ex)


def test_the_real_model_moves_are_read_from_its_cosines():
    values = compute(load_example(DEFAULT_EXAMPLE))
    rm, said = values.real_model, lesson_claims(values)["real-shift"]
    alone = rm.alone.cosines
    leaning = re.search(r"leans (\S+):", said[0].text).group(1)
    assert alone[leaning] == max(alone.values())
    *moves, fallen, decides = said[1:]
    nearest = {max(s.cosines, key=s.cosines.get) for s in rm.sentences}  # worked out here
    assert ("the context decides" in decides.text) == (len(nearest) > 1)
    if len(nearest) == 1:
        assert f"stays closer to {nearest.pop()}" in decides.text
    dropped = [s for s in rm.sentences if all(s.cosines[n] < alone[n] for n in alone)]  # worked out here
    if dropped:
        count = re.search(r"In (\d+) of the (\d+) sentences", fallen.text).groups()
        assert (int(count[0]), int(count[1])) == (len(dropped), len(rm.sentences))
    else:
        assert "falls away" not in fallen.text
        assert all(any(s.cosines[n] > alone[n] for n in alone) for s in rm.sentences)
    for sentence, claim in zip(rm.sentences, moves, strict=True):
        change = {n: sentence.cosines[n] - alone[n] for n in alone}
        if "moves closer to" in claim.text:
            name = re.search(r"moves closer to (\S+):", claim.text).group(1)
            assert change[name] > 0
        elif "falls away from" in claim.text:
            fast, slow, ends = re.search(r"further(?:est)? from (\S+): (\S+) (stays|is now) the", claim.text).groups()
            assert all(c <= 0 for c in change.values()) and change[fast] == min(change.values()) < change[slow]
            assert sentence.cosines[slow] == max(sentence.cosines.values())
            assert (ends == "stays") == (alone[slow] == max(alone.values()))
        assert "toward" not in claim.text or any(c > 0 for c in change.values())


def test_the_real_head_shown_reads_the_words_and_the_toy_head_beside_it_agrees():
    values = compute(load_example(DEFAULT_EXAMPLE))
    rm, we = values.real_model, values.worked_example
    for s in rm.sentences:
        a = s.attention
        rows = sorted(s.context_pieces + s.focus_pieces)
        n = a.shape[-1]
        share = {  # per head: the largest mean weight at one fixed offset, worked out here
            (lay, h): max(np.mean([a[lay, h, i, i + d] for i in rows if 0 <= i + d < n]) for d in (-1, 0, 1))
            for lay in range(a.shape[0])
            for h in range(a.shape[1])
        }
        reach = {key: a[key][s.focus_pieces][:, s.context_pieces].mean(axis=0).max() for key in share}
        assert share[s.featured] < 0.5
        assert reach[s.featured] == pytest.approx(max(r for key, r in reach.items() if share[key] < 0.5))
        if s.positional is not None:
            assert share[s.positional] == pytest.approx(max(share.values())) and share[s.positional] >= 0.5
    first = rm.sentences[0]
    assert first.pieces[first.featured_strongest] == "phones"  # the default's content head, by the rule above
    said = toy_match(we.tokens, [h.weights for h in we.heads], rm.focus, "phones").text
    said = re.search(r"head (\d+) of our toy example: its row of '(\S+)' also looks most at '(\S+)'", said)
    k, focus, word = int(said.group(1)) - 1, said.group(2), said.group(3)
    row = we.tokens.index(focus)
    weights = we.heads[k].weights[row].copy()
    weights[row] = -1
    assert we.tokens[int(np.argmax(weights))] == word == "phones"


def test_a_nearly_flat_row_is_not_said_to_reach_spread_1():
    """A row of equal numbers, normalized, is all zeros: the claim then says so, not "standard deviation 1" for
    every row."""
    flat = np.full(4, 0.7)
    spread = np.sqrt(flat.var() + 1e-5)  # layer norm's epsilon: what the lesson divides by
    said = normalized(np.array([0.4, spread]))
    assert not said.holds and "unless its numbers were nearly equal" in said.text
    assert normalized(np.array([0.4, 0.9])).holds


def test_alike_outputs_is_said_of_the_default_head_1_only():
    """Head 1's weights are nearly even (0.18 to 0.32) and its outputs nearly equal; head 2 picks "phones"."""
    claims_of = lesson_claims(compute(load_example(DEFAULT_EXAMPLE)))
    assert [c.text.split(":")[0] for c in claims_of["weighted-sum"]] == ["The rows are close together"]
    we = compute(load_example(DEFAULT_EXAMPLE)).worked_example
    assert alike_outputs(we.heads[1].weights, we.heads[1].V, we.heads[1].output) is None


def test_the_heads_said_to_park_on_the_special_pieces_are_counted_from_the_attention():
    values = compute(load_example(DEFAULT_EXAMPLE))
    rm = values.real_model
    s = rm.sentences[0]
    specials = [i for i, p in enumerate(s.pieces) if p in ("[CLS]", "[SEP]")]
    a = s.attention
    share = {  # per head: what the focus word's pieces give [CLS] and [SEP], on average, worked out here
        (lay, h): np.mean([a[lay, h, i, specials].sum() for i in s.focus_pieces])
        for lay in range(a.shape[0])
        for h in range(a.shape[1])
    }
    said = lesson_claims(values)["real-attention"][-1]
    count, total = map(int, re.search(r"In (\d+) of the (\d+) heads", said.text).groups())
    assert (count, total) == (sum(v > 0.5 for v in share.values()), len(share))
    assert s.parking_heads == count  # the number the screen writes
    assert share[said.about] == pytest.approx(max(share.values()))


def test_no_head_is_said_to_park_where_none_gives_the_special_pieces_half():
    shares = np.full((2, 3), 0.5)
    assert parked("apple", shares).text.startswith("In no head")
    shares[1, 2] = 0.51
    assert parked("apple", shares).text.startswith("In 1 of the 6 heads") and parked("apple", shares).about == (1, 2)
    assert parked("apple", np.ones((2, 3))).text.startswith("In all 6 heads")


@pytest.mark.parametrize(
    ("text", "pieces", "said", "about"),
    [
        ("I love apple phones", ["[CLS]", "i", "love", "apple", "phones", "[SEP]"], "'I' becomes 'i'", (1,)),
        (
            "Apple unveiled it",
            ["[CLS]", "apple", "un", "##ve", "##iled", "it", "[SEP]"],
            "'Apple' becomes 'apple', and 'unveiled' splits into 'un', '##ve' and '##iled'",
            (1, 2, 3, 4),
        ),
        (
            "unveiled it",
            ["[CLS]", "un", "##veiled", "it", "[SEP]"],
            ": 'unveiled' splits into 'un' and '##veiled'",
            (1, 2),
        ),
        ("big cat", ["[CLS]", "big", "cat", "[SEP]"], "here each word is one piece", ()),
    ],
)
def test_the_word_pieces_are_described_as_the_tokenizer_made_them(text, pieces, said, about):
    claim = read_as_pieces(text, pieces)
    assert said in claim.text and claim.holds and claim.about == about
    assert all(pieces[i] != "[CLS]" for i in claim.about)


def test_pieces_that_do_not_spell_the_words_get_the_plain_sentence():
    claim = read_as_pieces("big cat", ["[CLS]", "bag", "cat", "[SEP]"])
    assert claim.text == "It reads word pieces." and not claim.holds
