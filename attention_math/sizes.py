"""Real model sizes beside the toy's: d_model, the number of heads, and the d_k each head writes."""

from __future__ import annotations

import numpy as np

from .model_types import ModelSize

#: The base model of "Attention Is All You Need" (Vaswani et al., 2017): the one place its sizes are written.
ORIGINAL_TRANSFORMER = ("Transformer (2017)", 512, 8)


def model_size(name: str, d_model: int, heads: int) -> ModelSize:
    """A model's width and heads, and what follows: each head's d_k = d_model / heads and √d_k."""
    d_k = d_model // heads
    return ModelSize(name=name, d_model=d_model, heads=heads, d_k=d_k, sqrt_d_k=float(np.sqrt(d_k)))
