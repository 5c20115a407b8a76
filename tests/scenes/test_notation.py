"""One symbol per meaning (docs/notation.md): no other variant in the text the scenes show or say.

Every string literal of the scenes' sources is read (narration, captions, TeX): that is all the text a
scene has, since numbers and tokens come from the example.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
SOURCES = sorted((ROOT / "scenes").rglob("*.py"))

#: a variant, and the symbol of docs/notation.md to use instead
VARIANTS = {
    r"W_[qkvo]\b|W\^\{?[QKVO]": "W_Q, W_K, W_V, W_O",
    r"\\top\b|⊤": "a superscript T for the transpose (K^{T}, Kᵀ)",
    r"(?<![\^{])\bT\b(?!\})": "n for the sequence length (T is only the transpose)",
    r"\bA\(i\)|\bA\s*(?:·|\\cdot)\s*V": "z_i and α·V: A is not a symbol of the lesson",
    r"\bh_[ij]\b|\bh_\{": "e_j for an encoder state (h is the number of heads)",
    r"(?<![\w\\.])E(?![\w(])": "X for the input",
}


def strings(path: Path) -> list[tuple[int, str]]:
    """Each string literal of the file with its line, docstrings and comments left out."""
    tokens = list(tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline))
    found = []
    for before, token in zip([None, *tokens], tokens, strict=False):
        docstring = before is not None and before.type in (tokenize.INDENT, tokenize.NEWLINE, tokenize.NL)
        if token.type == tokenize.STRING and not docstring and not token.string.startswith(('"""', "r'''", 'r"""')):
            found.append((token.start[0], token.string))
    return found


def variants(text: str) -> list[str]:
    return [use for pattern, use in VARIANTS.items() if re.search(pattern, text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('"the same W_q for every token"', "W_Q, W_K, W_V, W_O"),
        (r'r"Q = X W^{Q}"', "W_Q, W_K, W_V, W_O"),
        (r'r"QK^{\top}"', "a superscript T for the transpose (K^{T}, Kᵀ)"),
        ('"T tokens make T × T cells"', "n for the sequence length (T is only the transpose)"),
        ('"The output A(i) is a weighted sum"', "z_i and α·V: A is not a symbol of the lesson"),
        (r'r"C(i) = \sum_j \alpha_{ij} h_j"', "e_j for an encoder state (h is the number of heads)"),
        ('"the rows of E"', "X for the input"),
    ],
)
def test_each_old_variant_is_caught(text, expected):
    assert expected in variants(text)


@pytest.mark.parametrize("text", [r'r"QK^{T} / \sqrt{d_k}"', '"QKᵀ"', r'r"n \times d_k"', '"W_Q and W_K"', '"Each"'])
def test_the_lesson_notation_passes(text):
    assert variants(text) == []


def test_the_scenes_use_one_symbol_per_meaning():
    found = [
        f"{path.relative_to(ROOT)}:{line}: {text[:70]} -> use {use}"
        for path in SOURCES
        for line, text in strings(path)
        for use in variants(text)
    ]
    assert not found, "\n".join(found)
