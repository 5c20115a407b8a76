"""The example file's text for ``new-example --from-model``: the generated sections, commented with where
each number came from and how well the toy heads fit, and the demos copied from the default example."""

from __future__ import annotations

from pathlib import Path

from .example import DEFAULT_EXAMPLE
from .from_model import D_MODEL, TARGET, FittedHead, Lesson
from .model_map import COMMON_WORDS
from .new_example import matrix_lines, row, section_blocks, string_list, toml_key, toml_string
from .word_attention import POSITIONAL_MAX, SPECIAL_MAX

MODEL = "sentence-transformers/all-MiniLM-L6-v2"


def _rule(char: str, title: str) -> str:
    return f"# --- {title} " + char * max(3, 88 - len(title))


def fit_line(head: FittedHead) -> str:
    parts = [f"{toml_string(text)}: mean {mean:.3f}, largest {largest:.3f}" for text, mean, largest in head.errors]
    return "# Fit after rounding (absolute weight difference): " + "; ".join(parts) + "."


def _head(n: int, head: FittedHead, map_head: bool) -> list[str]:
    why = (
        "the content head whose weights move the focus word most toward each sentence's cluster on the map,"
        " fitted on every map sentence"
        if map_head
        else "of the content heads, the one whose words look hardest at one other word"
    )
    above = [toml_string(text) for text, mean, _ in head.errors if mean > TARGET]
    return [
        "",
        f"# Head {n}: reproduces MiniLM's layer {head.layer + 1}, head {head.head + 1} ({why}).",
        "# W_q, W_k fitted so softmax(QK^T/sqrt(d_k)) matches that head's weights over the sentence's words",
        "# (pieces pooled, [CLS]/[SEP] left out, rows renormalised); W_v maps X onto the real head's value",
        "# vectors' main directions.",
        fit_line(head),
        *(
            [f"# NOTE: above the {TARGET} target on {', '.join(above)}: no candidate head fitted closer."]
            if above
            else []
        ),
        "[[worked_example.heads]]",
        *(
            f"{name} = [{', '.join(row(list(r)) for r in w)}]"
            for name, w in zip(("W_q", "W_k", "W_v"), _ws(head), strict=True)
        ),
    ]


def _ws(head: FittedHead) -> tuple[list[list[float]], ...]:
    return tuple(w.tolist() for w in (head.w_q, head.w_k, head.w_v))


def worked_example(lesson: Lesson) -> list[str]:
    shown = " ".join(lesson.words)
    lines = [
        _rule("-", f"The worked example: {toml_string(shown)}, read by MiniLM"),
        "# Real content heads: less than "
        f"{SPECIAL_MAX:.0%} of a word's attention on [CLS]/[SEP] and less than {POSITIONAL_MAX:.0%} on one",
        "# fixed neighbour (previous word, itself, next word), averaged over the sentence's words.",
        "[worked_example]",
        f"tokens = {string_list(lesson.words)}",
        "# X: each word's MiniLM vector (read alone, layer 4 of 6, its pieces averaged) on the first",
        f"# {D_MODEL} principal axes of the sentence's words and {len(COMMON_WORDS)} common words, each axis",
        "# scaled to +-1.5 on the sentence, one decimal.",
        *matrix_lines("X", lesson.x.tolist()),
        "",
        "# Optional output projection W_O (d_model x d_model) applied after concatenation. It must",
        "# stay here, above the heads: TOML puts every key below a [[...]] header into that head.",
        "# W_O = [" + ", ".join(row([float(i == j) for j in range(D_MODEL)]) for i in range(D_MODEL)) + "]",
    ]
    for n, head in enumerate(lesson.heads, start=1):
        lines += _head(n, head, map_head=n == len(lesson.heads))
    return [
        *lines,
        "",
        "# Optional [worked_example.decoder] (a second sentence for the cross-attention scene, e.g. a",
        "# translation) is left out: see assets/examples/default.toml. Without it, that scene says so.",
    ]


def semantic_shift(lesson: Lesson) -> list[str]:
    meaning, heads = lesson.meaning, len(lesson.heads)
    names = list(meaning.clusters)
    lines = [
        _rule("-", "The meaning map, from MiniLM's vectors"),
        f"# Focus word {toml_string(lesson.focus)}. Clusters: the common words MiniLM finds most like it in",
        f"# the first sentence ({names[0]}) and "
        + ("in the contrast sentence" if lesson.contrast_words else "when read alone")
        + f" ({names[1]}), named by their most typical word.",
        "# Places: every word's vector read alone, on the axis from one cluster's centre to the other's",
        "# and the largest remaining spread. The shift's weights are head "
        f"{heads}'s (fitted to MiniLM's layer {lesson.heads[-1].layer + 1}, head {lesson.heads[-1].head + 1}).",
        "# Clusters named fruit and tech are drawn pink and violet, any other name in grey.",
        "[semantic_shift]",
        f"head = {heads}",
        "",
        "[semantic_shift.words]",
        *(f"{toml_key(w)} = {row(list(p))}" for w, p in meaning.places.items()),
    ]
    if lesson.extra_rows:
        lines += [
            "",
            "# Rows of d_model numbers for the contrast's words that are not worked-example tokens (projected",
            "# like X).",
            "[semantic_shift.embeddings]",
            *(f"{toml_key(w)} = {row(list(r))}" for w, r in lesson.extra_rows.items()),
        ]
    lines += [
        "",
        "[semantic_shift.clusters]",
        *(f"{toml_key(n)} = {string_list(g)}" for n, g in meaning.clusters.items()),
    ]
    lines += [
        "",
        "[[semantic_shift.sentences]]",
        f"tokens = {string_list(lesson.words)}",
        f"focus = {toml_string(lesson.focus)}",
    ]
    if lesson.contrast_words:
        return [*lines, "", "[[semantic_shift.sentences]]", f"tokens = {string_list(lesson.contrast_words)}",
                f"focus = {toml_string(str(lesson.contrast_focus))}"]  # fmt: skip
    return [
        *lines,
        "# No contrast sentence: the map shows one reading only. To show the word's other meaning, run again",
        f'# with --contrast "A SENTENCE WITH {lesson.focus.upper()} IN ANOTHER SENSE" (and --focus {lesson.focus}).',
    ]


def real_model(lesson: Lesson, data_key: str) -> list[str]:
    sentences = [" ".join(lesson.words), *([" ".join(lesson.contrast_words)] if lesson.contrast_words else [])]
    toy = ", ".join(f"[{h.layer + 1}, {h.head + 1}]" for h in lesson.heads)
    return [
        _rule("-", "A real transformer: MiniLM on the same sentences"),
        f"# {MODEL} reads these sentences; the data file was extracted by the same command.",
        "[real_model]",
        f"focus = {toml_string(lesson.focus)}",
        f"sentences = {string_list(sentences)}",
        f"data = {toml_string(data_key)}",
        "# The real head (layer, head, from 1) each toy head of the worked example reproduces:",
        "# `python -m attention_math --example FILE` recomputes and prints the fit from the data file.",
        f"toy_heads = [{toy}]",
        "",
        "[real_model.clusters]",
        *(f"{toml_key(n)} = {string_list(g)}" for n, g in lesson.meaning.clusters.items()),
    ]


def text(lesson: Lesson, data_key: str, command: str, default: Path = DEFAULT_EXAMPLE) -> str:
    """The whole example file."""
    generated = {
        "worked_example": worked_example(lesson),
        "semantic_shift": semantic_shift(lesson),
        "real_model": real_model(lesson, data_key),
    }
    out = [
        f"# Example values for the self-attention lesson: {toml_string(' '.join(lesson.words))}, from {MODEL}.",
        "#",
        f"# Written by `{command}`; the same arguments always give this same file.",
        "# The worked example, the meaning map and the real-model chapter come from the model; the demos",
        "# below the worked example are copied from assets/examples/default.toml. Check the file with",
        "# `python -m attention_math --example FILE`; render with `python render.py --example FILE`.",
    ]
    blocks = list(section_blocks(default.read_text(encoding="utf-8")))
    for name, lines in blocks:
        out += ["", *generated.get(name, lines)]
    return "\n".join(line.rstrip() for line in out).rstrip() + "\n"
