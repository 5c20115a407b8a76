"""The lesson, in order: the one list that render.py, the tests and the README read.

Pure data (no manim import) so the renderer can decide what to skip in milliseconds.
``depends_on`` names the example-file sections a scene reads; a scene can read only
those (see ``attention_math.LessonValues``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Entry:
    id: str
    chapter: str
    title: str
    file: str  # relative to the repository root
    cls: str
    depends_on: tuple[str, ...]

    def as_dict(self) -> dict:
        return {
            "id": self.id,
            "chapter": self.chapter,
            "title": self.title,
            "file": self.file,
            "class": self.cls,
            "depends_on": list(self.depends_on),
        }


def _chapter(chapter: str, *scenes: tuple[str, str, str, str, tuple[str, ...]]) -> list[Entry]:
    """A chapter's scenes: (id, title, module in scenes/, class, sections read)."""
    return [Entry(id, chapter, title, f"scenes/{module}.py", cls, deps) for id, title, module, cls, deps in scenes]


WE = ("worked_example",)
MAP = ("worked_example", "semantic_shift")  # the map is moved by a head of the worked example
TS = ("train_station",)

#: A learner's order: nothing is used before it is shown (the tools before the words alone, the words
#: before queries and keys, why √dₖ right after the formula uses it, the worked example before its numbers).
LESSON: list[Entry] = [
    *_chapter(
        "Why self-attention",
        ("architecture", "Where self-attention sits", "motivation", "LocateAttention", ()),
        ("rnn-problem", "The RNN problem: signals fade", "motivation", "FadeRecurrentSignal", ("rnn_decay",)),
        ("dictionary-analogy", "Reading a word in context", "motivation", "ResolveAmbiguity", ()),
        ("fixed-vs-contextual", "Fixed and contextual embeddings", "motivation", "ContrastEmbeddings", ("cat_sat",)),
        ("parallel-computation", "All pairs at once", "recurrence", "CompareParallelism", ("rnn_decay",)),
        ("global-context", "Global context in one step", "recurrence", "ConnectGlobally", ("rnn_decay",)),
    ),
    *_chapter(
        "The tools",
        ("vectors-dot-product", "Vectors and the dot product", "primer", "MultiplyVectors", WE),
        ("matrix-product", "Row times column, and the transpose", "primer", "MultiplyMatrices", ("cat_sat",)),
        (
            "softmax-primer",
            "Exponentials, softmax, gradients",
            "softmax_primer",
            "NormalizeExponentials",
            ("scaling_demo",),
        ),
    ),
    *_chapter(
        "Attention from the words alone",
        (
            "rnn-to-self-attention",
            "From RNN attention to self-attention",
            "rnn_origin",
            "GeneralizeAttention",
            WE,  # its words under the encoder states, its translation beside the decoder
        ),
        ("train-station", "The train left the station on time", "sentence", "AttendTrainStation", TS),
        ("train-context", "The train's context vector, summed", "readings", "SumTrainContext", TS),
    ),
    *_chapter(
        "Queries, keys and values",
        ("why-three-matrices", "Why three matrices", "mechanism_projections", "SeparateRoles", ()),
        ("core-formula", "The core formula", "mechanism_formula", "UnpackFormula", ()),
    ),
    *_chapter(
        "Why divide by √dₖ",
        (
            "scaling-comparison",
            "Softmax with and without scaling",
            "scaling_demo",
            "CompareScaling",
            ("scaling_demo",),
        ),
        ("softmax-gaps", "Softmax sees only the gaps", "score_details", "ReadGaps", ("scaling_demo",)),
        (
            "variance-explodes",
            "Dot products grow with dimension",
            "scaling",
            "ExplodeDotProducts",
            ("variance_demo",),
        ),
        (
            "softmax-saturation",
            "Saturated softmax, vanishing gradient",
            "scaling",
            "SaturateSoftmax",
            ("saturation_demo",),
        ),
        (
            "vanishing-not-exploding",
            "Vanishing, not exploding",
            "score_details",
            "CorrectGradientClaim",
            ("saturation_demo",),
        ),
    ),
    *_chapter(
        "A first example: the cat sat",
        ("cat-sat", "The cat sat, step by step", "first_example", "WorkCatSat", ("cat_sat",)),
        (
            "symmetric-scores",
            "Same W for queries and keys: mirrored scores",
            "mirror_scores",
            "MirrorScores",
            ("cat_sat",),
        ),
    ),
    *_chapter(
        "The worked example",
        ("input-embeddings", "Step 1: the input embeddings", "worked_projections", "ShowEmbeddings", WE),
        ("model-configuration", "The model configuration", "model_configuration", "ConfigureModel", WE),
        ("projections", "Step 2: head 1's learned projections", "worked_projections", "IntroduceProjections", WE),
        (
            "multiply-queries",
            "Step 2: Q, K and V by matrix multiplication",
            "worked_projections",
            "MultiplyQueries",
            WE,
        ),
        ("shared-projection", "One query matrix, shared by every token", "weights_and_sizes", "ShareProjection", WE),
        ("dot-products", "Step 3: dot products as scores", "dot_products", "AlignDotProducts", WE),
        ("why-dot-product", "Why the dot product", "mechanism_formula", "AlignVectors", WE),
        ("dot-not-cosine", "A dot product, not a cosine", "score_details", "SeparateCosine", WE),
        ("scale-softmax", "Steps 4 and 5: scaling and softmax", "worked_scores", "NormalizeScores", WE),
        ("read-weights", "Reading a row of weights in words", "readings", "ReadWeightRow", WE),
        ("database-analogy", "A soft database lookup", "mechanism_formula", "LookUpDatabase", WE),
        ("weighted-sum", "Step 6: the weighted sum of values", "worked_outputs", "SumValues", WE),
        ("shape-tracking", "Tracking the shapes", "shapes", "TrackShapes", WE),
        ("multi-head", "Step 7: the heads joined", "multi_head", "CombineHeads", WE),
        ("add-norm", "Add & Norm: the input added back", "add_norm", "AddAndNorm", WE),
    ),
    *_chapter(
        "The meaning map",
        ("static-embeddings", "Static embeddings on the meaning map", "meaning", "MapStaticEmbeddings", MAP),
        ("meaning-shift", "The shift: a word moves with its context", "meaning", "ShiftMeaning", MAP),
        ("context-weights", "One word, two sentences, two rows of weights", "readings", "CompareContexts", MAP),
    ),
    *_chapter(
        "A real transformer",
        ("real-attention", "The same sentence through MiniLM", "real_model", "ReadRealAttention", ("real_model", *WE)),
        ("real-shift", "The real shift: apple in context", "real_shift", "TraceRealShift", ("real_model",)),
        (
            "real-sizes",
            "Real sizes: model width, heads and dₖ",
            "weights_and_sizes",
            "CompareSizes",
            ("real_model", *WE),
        ),
    ),
    *_chapter(
        "Masks, two sentences and order",
        ("masked-attention", "Masked self-attention: no peeking ahead", "variants", "MaskFuture", WE),
        ("cross-attention", "Cross-attention: queries from another sentence", "variants", "AttendAcross", WE),
        ("word-order", "Shuffled words, shuffled outputs", "variants", "ShuffleTokens", WE),
    ),
    *_chapter(
        "Limitations",
        ("limitations", "Four limitations", "limits", "ListLimitations", ()),
        ("quadratic-cost", "The O(n²) limit", "limits", "GrowQuadratically", ("complexity",)),
    ),
    *_chapter(
        "Recap",
        ("seven-steps", "The seven steps, with shapes", "recap", "RecapSteps", WE),
        ("quiz", "Quiz", "quiz", "QuizAttention", ("saturation_demo",)),
    ),
]


def by_class(cls_name: str) -> Entry:
    """The lesson entry of a Scene class (every scene of the lesson has exactly one)."""
    for scene in LESSON:
        if scene.cls == cls_name:
            return scene
    raise KeyError(f"{cls_name} is not in the lesson list (scenes/lesson.py)")
