"""What the narration says about the example's numbers, decided from those numbers.

Every comparative sentence of the lesson ("largest", "closer", "toward", "saturated", ...) is a
:class:`Claim` made here: the function looks at the values, picks the wording that is true of them,
and falls back to a neutral or corrected wording where the strong one does not hold. So an edited
or generated example can change what the voice says, never make it say something false.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .types import Array
from .word_attention import word_spans

if TYPE_CHECKING:
    from .values import LessonValues

SATURATED = 0.99  # a top softmax weight from here on is called saturated (its gradient all but gone)
SAME = 0.005  # weights closer than this print the same at two decimals
EVEN = 0.15  # a row of weights whose largest and smallest differ by no more than this is almost even
CLOSE = 0.2  # outputs this much closer together than the values they blend are called close
PARKED = 0.5  # a head giving the special pieces more than this share of a word's attention parks it there
FLAT = 0.05  # a row standard deviation below this is all but flat: layer norm's epsilon keeps it from 1


@dataclass(frozen=True)
class Claim:
    """A sentence the narration says, and whether the strong form of it holds for these numbers."""

    text: str
    holds: bool
    about: tuple[int, ...] = ()  # the places (tokens, rows) the sentence names, for the scene to point at


def num(value: float) -> str:
    """Two decimals, with no negative zero: how the narration says a value."""
    text = f"{float(value):.2f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def largest_score(tokens: Sequence[str], scores: Array, angles: Array) -> Claim:
    """Which key scores highest against one query, and why: the angle, or the key's length.

    ``scores[j] = |q|·|k_j|·cos(angles[j])``: the winner points closest, or, if another key points
    closer, the winner's key must be longer (with a positive score, cos < cos' and |k|cos ≥ |k'|cos'
    give |k| > |k'|)."""
    best = int(np.argmax(scores))
    turn = np.abs(np.asarray(angles, dtype=float))
    closest = int(np.argmin(turn))
    if scores[best] <= 0:
        said = f"No key points the query's way; the largest score, {num(scores[best])}, goes to '{tokens[best]}'."
        return Claim(said, False)
    if turn[best] <= turn[closest] + 1e-9:
        return Claim(f"The largest score goes to '{tokens[best]}': its key points most nearly the query's way.", True)
    return Claim(
        f"The largest score goes to '{tokens[best]}', although '{tokens[closest]}' points closer: "
        f"the key of '{tokens[best]}' is longer. Angle and length both count.",
        False,
    )


def mirrored(tokens: Sequence[str], scores: Array, weights: Array) -> Claim:
    """Symmetric scores do not make symmetric weights: each row is normalised on its own."""
    if not np.allclose(scores, scores.T):
        return Claim("These scores do not mirror: the query and key matrices differ.", False)
    gap = np.abs(weights - weights.T)
    i, j = (int(v) for v in np.unravel_index(int(np.argmax(gap)), gap.shape))
    if gap[i, j] < SAME:
        return Claim("The weights happen to mirror too, but only because each row's sum is the same.", False)
    a, b = (i, j) if weights[i, j] > weights[j, i] else (j, i)
    return Claim(
        f"The scores mirror, but the weights do not: '{tokens[a]}' gives '{tokens[b]}' {num(weights[a, b])}, "
        f"'{tokens[b]}' gives '{tokens[a]}' only {num(weights[b, a])}. Each row is normalised on its own.",
        True,
        (a, b),
    )


def broken_mirror(tokens: Sequence[str], scores: Array) -> Claim:
    """Scores made with different query and key matrices: the pair that mirrors least, its two scores said (or, if
    these happen to mirror, that they need not)."""
    gap = np.abs(scores - scores.T)
    i, j = (int(v) for v in np.unravel_index(int(np.argmax(gap)), gap.shape))
    if gap[i, j] < SAME:
        return Claim("With W_Q not equal to W_K the scores need not mirror, though these happen to.", False)
    return Claim(
        f"With different W_Q and W_K, the scores do not mirror: '{tokens[i]}' to '{tokens[j]}' "
        f"scores {num(scores[i, j])}, '{tokens[j]}' to '{tokens[i]}' {num(scores[j, i])}.",
        True,
        (i, j),
    )


def lean(raw: Array, scaled: Array) -> Claim:
    """How hard softmax of the raw scores leans on its top key, against the scaled scores."""
    top, soft = float(np.max(raw)), float(np.max(scaled))
    if top >= SATURATED:
        return Claim(
            f"Softmax of the raw scores puts {num(top)} on one key: saturated, its gradient nearly gone.", True
        )
    if top - soft < SAME:
        return Claim(f"Softmax gives about the same top weight either way: {num(top)}.", False)
    alone_on_top = np.sort(raw)[-2] < top  # else larger scores split the top between the tied keys
    return Claim(
        f"Softmax of the raw scores leans hard on one key: {num(top)}, against {num(soft)} once scaled."
        + (" Larger scores would push it ever closer to 1 and 0." if alone_on_top else ""),
        False,
    )


def softer(raw: Array, scaled: Array) -> Claim:
    """Whether dividing by √d_k made the weights softer: a smaller top weight, a larger bottom one."""
    if np.max(scaled) < np.max(raw) - SAME and np.min(scaled) > np.min(raw) + SAME:
        low, high = np.min(raw), np.min(scaled)  # the weights without and with ÷√d_k
        return Claim(
            f"Softmax of the scaled scores is softer: the smallest weight grows from {num(low)} to {num(high)},"
            " so every key still gets a share.",
            True,
        )
    return Claim(
        "Softmax of the scaled scores gives about the same weights here: the scores were close already.", False
    )


def row_meaning(tokens: Sequence[str], weights: Array, focus: int) -> tuple[Claim, Claim]:
    """What the row of ``focus`` looks at most, then what the row of that word looks at: a row is one
    word's query, so it is the row of a word that shapes that word's meaning."""
    other = strongest_other(weights[focus], focus)
    if weights[focus, other] > weights[focus, focus]:
        first = f"'{tokens[focus]}' looks most at '{tokens[other]}', even more than at itself."
    else:
        first = f"After itself, '{tokens[focus]}' looks most at '{tokens[other]}'."
    back = strongest_other(weights[other], other)
    if back != focus:
        second = (
            f"The row of '{tokens[other]}', which shapes its meaning, "
            f"looks most, of the other words, at '{tokens[back]}'."
        )
        return Claim(first, True, (focus, other)), Claim(second, False, (other, back))
    order = "" if weights[other, focus] > weights[other, other] else ", after itself"
    return Claim(first, True, (focus, other)), Claim(
        f"And the row of '{tokens[other]}' looks most at '{tokens[focus]}'{order}: "
        f"that row shapes what '{tokens[other]}' means here.",
        True,
        (other, focus),
    )


def strongest_other(row: Array, itself: int) -> int:
    """The place of the largest weight in ``row`` other than the word's own, ``itself``."""
    others = np.array(row, dtype=float)
    others[itself] = -np.inf
    return int(np.argmax(others))


AWAY = 2.0  # a move counts as mostly "away" when it leaves one centre this many times faster than it nears another


def map_move(word: str, before: dict[str, float], after: dict[str, float]) -> Claim:
    """Where the word went on the meaning map, read from its distances to each centre."""
    nearest = min(after, key=after.__getitem__)
    was = min(before, key=before.__getitem__)
    said = f"'{word}' is now {num(after[nearest])} from the {nearest} centre, {num(before[nearest])} before:"
    if after[nearest] < before[nearest]:
        others = sorted((n for n in after if n != nearest), key=after.__getitem__)
        fled = max(others, key=lambda n: after[n] - before[n], default=None)
        if fled is not None and after[fled] - before[fled] > AWAY * (before[nearest] - after[nearest]):
            return Claim(  # mostly a move away from another meaning: say so, not only the small step toward
                f"{said[:-1]}, and {num(after[fled])} from {fled}, {num(before[fled])} before: "
                f"it moved away from {fled}, and a little toward {nearest}.",
                False,
            )
        than = f", {num(after[others[0]])} from {others[0]}" if others else ""  # the runner-up: how clear it is
        return Claim(f"{said[:-1]}{than}: it moved toward {nearest}.", True)
    if nearest == was:
        return Claim(f"{said} it drifted away, yet {nearest} is still its nearest centre.", False)
    return Claim(f"{said} it moved away from {was} faster, so {nearest} is now nearest.", False)


def cosine_move(focus: str, sentence: str, alone: dict[str, float], now: dict[str, float]) -> Claim:
    """How the real model's vector of ``focus`` moved, read from the cosines in the full space."""
    change = {name: now[name] - alone[name] for name in now}
    nearest = max(now, key=now.__getitem__)
    where = f"In '{sentence}', '{focus}'"
    if change[nearest] > 0:
        return Claim(f"{where} moves closer to {nearest}: {num(alone[nearest])} to {num(now[nearest])}.", True)
    rising = [name for name in change if change[name] > 0]
    if rising:
        return Claim(f"{where} moves toward {rising[0]}, though {nearest} is still closer.", False)
    fastest = min(change, key=change.__getitem__)
    if fastest == nearest:
        return Claim(f"{where} moves away from every cluster, most from {nearest}, which stays closest.", False)
    ends = "stays" if nearest == max(alone, key=alone.__getitem__) else "is now"
    return Claim(  # a description (it fell further from one), not a cause
        f"{where} falls away from both centres, further from {fastest}: {nearest} {ends} the nearer meaning."
        if len(now) == 2
        else f"{where} falls away from every centre, furthest from {fastest}: {nearest} {ends} the nearest meaning.",
        False,
    )


def both_fall(focus: str, alone: dict[str, float], sentences: Sequence[dict[str, float]]) -> Claim:
    """How many sentences leave ``focus`` less similar to every centre than it is alone; ``about`` holds them.
    The centres are read from words alone, so a word in a sentence can fall away from all of them."""
    fallen = tuple(k for k, now in enumerate(sentences) if all(now[n] < alone[n] for n in alone))
    if not fallen:
        return Claim(f"In every sentence, '{focus}' comes closer to at least one centre.", False)
    return Claim(
        f"In {len(fallen)} of the {len(sentences)} sentences, '{focus}' falls away from every centre: "
        "what counts is which one it stays closer to.",
        True,
        fallen,
    )


def context_decides(focus: str, size: int, sentences: Sequence[dict[str, float]]) -> Claim:
    """Whether the sentences leave ``focus`` closest to different meanings (the context decides which), or
    all to the same one; ``about`` holds each sentence's nearest meaning, as its place among the meanings."""
    names = list(sentences[0])
    nearest = tuple(names.index(max(now, key=now.__getitem__)) for now in sentences)
    said = f"The same word, moved by its context: in the model's full {size}-dimensional space, "
    if len(set(nearest)) > 1:
        return Claim(said + "the context decides which meaning it is closer to.", True, nearest)
    return Claim(said + f"though in every sentence here it stays closer to {names[nearest[0]]}.", False, nearest)


def toy_match(tokens: Sequence[str], head_weights: Sequence[Array], focus: str, word: str) -> Claim:
    """The toy head whose row of ``focus`` looks most (of the other words) at the ``word`` a real head chose;
    head 1 with a neutral sentence when none does. ``about`` holds the head's place."""
    lower = [t.lower() for t in tokens]
    row = lower.index(focus.lower())
    for k, weights in enumerate(head_weights):
        if word.lower() in lower and lower[strongest_other(weights[row], row)] == word.lower():
            return Claim(
                f"Beside it, head {k + 1} of our toy example: its row of '{focus}' also looks most at '{word}'.",
                True,
                (k,),
            )
    return Claim(
        "Beside it, head 1 of our toy example: the same idea, rows are queries and each adds up to 1.", False, (0,)
    )


def alone_leaning(focus: str, cosines: dict[str, float]) -> Claim:
    """Where the word stands alone: which cluster it is already closer to, in cosine."""
    ranked = sorted(cosines, key=cosines.__getitem__, reverse=True)
    first, second = ranked[0], ranked[1]
    if cosines[first] - cosines[second] < SAME:
        return Claim(f"'{focus}' alone, with no sentence around it, is as close to {first} as to {second}.", True)
    return Claim(
        f"'{focus}' alone, with no sentence around it, already leans {first}: "
        f"{num(cosines[first])} against {num(cosines[second])}.",
        True,
    )


def parking(shares: Array) -> np.ndarray:
    """Per head, whether it parks a word's attention on the special pieces: ``shares`` (per head) above PARKED."""
    return np.asarray(shares, dtype=float) > PARKED


def parked(focus: str, shares: Array) -> Claim:
    """How many heads give most of ``focus``'s attention to the model's special pieces; ``shares``: that share per
    (layer, head). ``about``: the (layer, head) that gives them the most."""
    shares = np.asarray(shares, dtype=float)
    count, total = int(parking(shares).sum()), shares.size  # RealSentence.parking_heads, for the screen
    about = tuple(int(i) for i in np.unravel_index(np.argmax(shares), shares.shape))
    if count == 0:
        return Claim(
            f"In no head does '{focus}' give more than half its attention to the special pieces.", False, about
        )
    many = f"all {total}" if count == total else f"{count} of the {total}"
    return Claim(
        f"In {many} heads, '{focus}' gives more than half its attention to the special pieces: "
        "a learned way of looking at nothing.",
        True,
        about,
    )


def read_as_pieces(text: str, pieces: Sequence[str]) -> Claim:
    """How the model's tokenizer read ``text`` into ``pieces`` ([CLS] first, [SEP] last): the first word it
    lowered, the first it split. ``about``: those words' pieces; ``holds``: whether the pieces spell the words."""
    spans = word_spans(list(pieces), text)
    if spans is None:  # pieces that do not spell the words: say only what is always true
        return Claim("It reads word pieces.", False)
    read = [(word, [pieces[i] for i in span], span) for word, span in zip(text.split(), spans, strict=True)]
    lowered = next(((w, p[0], span) for w, p, span in read if len(p) == 1 and w != p[0]), None)
    split = next(((w, p, span) for w, p, span in read if len(p) > 1), None)
    said = "It reads word pieces" + (f", in lower case: '{lowered[0]}' becomes '{lowered[1]}'" if lowered else "")
    if split:
        listed = ", ".join(f"'{p}'" for p in split[1][:-1]) + f" and '{split[1][-1]}'"
        said += f"{', and' if lowered else ':'} '{split[0]}' splits into {listed}"
    elif not lowered:
        said += "; here each word is one piece"
    return Claim(said + ".", True, tuple((lowered[2] if lowered else []) + (split[2] if split else [])))


def normalized(spread: Array) -> Claim:
    """What layer norm leaves in every row: mean 0, and standard deviation 1 unless a row's numbers were nearly
    equal (layer norm's epsilon, added to the variance, then keeps it below 1). ``spread``: each row's."""
    if np.all(np.asarray(spread) > FLAT):
        return Claim("Every row now has mean 0 and standard deviation 1.", True)
    return Claim("Every row now has mean 0 and, unless its numbers were nearly equal, standard deviation 1.", False)


def alike_outputs(weights: Array, values: Array, output: Array) -> Claim | None:
    """Why a head's output rows look alike, when they do: every row of weights is nearly even (no weight more than
    EVEN from another in its row), so the outputs lie far closer together than the values they blend. ``None``
    where that does not hold: the scene then says nothing about it."""

    def widest(rows: Array) -> float:
        return float(max(np.linalg.norm(a - b) for a in rows for b in rows))

    even = bool(np.all(np.ptp(weights, axis=1) <= EVEN))
    if not (even and widest(output) <= CLOSE * widest(values)):
        return None
    return Claim(
        "The rows are close together: this head weighs every token almost evenly, so each output is nearly "
        "the same blend of the values.",
        True,
    )


def lesson_claims(values: LessonValues) -> dict[str, list[Claim]]:
    """Every claim the lesson makes about ``values`` (all sections computed), by scene id."""
    we, cs, ts = values.worked_example, values.cat_sat, values.train_station
    sd, ss = values.scaling_demo, values.semantic_shift
    head = we.heads[0]
    claims = {
        "dot-products": [
            largest_score(we.tokens, head.scores[0], head.qk_angles[0]),
            broken_mirror(we.tokens, head.scores),
        ],
        "symmetric-scores": [mirrored(cs.tokens, cs.scores, cs.weights)],
        "scaling-comparison": [lean(sd.softmax_raw, sd.softmax_scaled), softer(sd.softmax_raw, sd.softmax_scaled)],
        "train-station": list(row_meaning(ts.tokens, ts.weights, ts.focus)),
        "meaning-shift": [map_move(c.word, c.distance_before, c.distance_after) for c in ss.cases],
        "add-norm": [normalized(we.add_norm.spread)],
        "weighted-sum": [c for c in [alike_outputs(head.weights, head.V, head.output)] if c],
    }
    if "real_model" in values.declared:
        rm = values.real_model
        moves = [cosine_move(rm.focus, s.text, rm.alone.cosines, s.cosines) for s in rm.sentences]
        cosines = [s.cosines for s in rm.sentences]
        fallen = both_fall(rm.focus, rm.alone.cosines, cosines)
        decides = context_decides(rm.focus, rm.hidden_size, cosines)
        claims["real-shift"] = [alone_leaning(rm.focus, rm.alone.cosines), *moves, fallen, decides]
        first = rm.sentences[0]
        claims["real-attention"] = [read_as_pieces(first.text, first.pieces), parked(rm.focus, first.special_shares)]
    return claims
