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


def _chapter(chapter: str, file: str, *scenes: tuple[str, str, str, tuple[str, ...]]) -> list[Entry]:
    return [Entry(id, chapter, title, file, cls, deps) for id, title, cls, deps in scenes]


WE = ("worked_example",)
MAP = ("worked_example", "semantic_shift")  # the map is moved by a head of the worked example

LESSON: list[Entry] = [
    *_chapter(
        "Why self-attention",
        "scenes/motivation.py",
        ("architecture", "Where self-attention sits", "LocateAttention", ()),
        ("rnn-problem", "The RNN problem: signals fade", "FadeRecurrentSignal", ("rnn_decay",)),
        ("dictionary-analogy", "Reading a word in context", "ResolveAmbiguity", ()),
        ("fixed-vs-contextual", "Fixed and contextual embeddings", "ContrastEmbeddings", ("cat_sat",)),
        ("parallel-computation", "All pairs at once", "CompareParallelism", ("rnn_decay",)),
        ("global-context", "Global context in one step", "ConnectGlobally", ("rnn_decay",)),
    ),
    *_chapter(
        "Queries, keys and values",
        "scenes/mechanism_formula.py",
        ("core-formula", "The core formula", "UnpackFormula", ()),
        ("database-analogy", "A soft database lookup", "LookUpDatabase", WE),
        ("why-dot-product", "Why the dot product", "AlignVectors", WE),
    ),
    *_chapter(
        "Queries, keys and values",
        "scenes/score_details.py",
        ("dot-not-cosine", "A dot product, not a cosine", "SeparateCosine", WE),
    ),
    *_chapter(
        "Queries, keys and values",
        "scenes/mechanism_projections.py",
        ("why-three-matrices", "Why three matrices", "SeparateRoles", ("train_station",)),
        ("rnn-to-self-attention", "From RNN attention to self-attention", "GeneralizeAttention", ()),
        ("shape-tracking", "Tracking the shapes", "TrackShapes", WE),
    ),
    *_chapter(
        "A first example: the cat sat",
        "scenes/first_example.py",
        ("cat-sat", "The cat sat, step by step", "WorkCatSat", ("cat_sat",)),
    ),
    *_chapter(
        "A first example: the cat sat",
        "scenes/score_details.py",
        ("symmetric-scores", "Same W for queries and keys: mirrored scores", "MirrorScores", ("cat_sat",)),
    ),
    *_chapter(
        "A first example: the cat sat",
        "scenes/first_example.py",
        ("scaling-comparison", "Softmax with and without scaling", "CompareScaling", ("scaling_demo",)),
    ),
    *_chapter(
        "A first example: the cat sat",
        "scenes/score_details.py",
        ("softmax-gaps", "Softmax sees only the gaps", "ReadGaps", ("scaling_demo",)),
    ),
    *_chapter(
        "The worked example",
        "scenes/worked_projections.py",
        ("input-embeddings", "Step 1: the input embeddings", "ShowEmbeddings", WE),
        ("model-configuration", "Step 2: the model configuration", "ConfigureModel", WE),
        ("projections", "Step 3: the learned projections", "IntroduceProjections", WE),
        ("multiply-queries", "Step 4: Q, K and V by matrix multiplication", "MultiplyQueries", WE),
    ),
    *_chapter(
        "The worked example",
        "scenes/weights_and_sizes.py",
        ("shared-projection", "One learned query matrix for every token", "ShareProjection", WE),
    ),
    *_chapter(
        "The worked example",
        "scenes/worked_scores.py",
        ("dot-products", "Step 5: dot products as scores", "AlignDotProducts", WE),
        ("scale-softmax", "Steps 6 and 7: scaling and softmax", "NormalizeScores", WE),
    ),
    *_chapter(
        "The worked example",
        "scenes/readings.py",
        ("read-weights", "Reading a row of weights in words", "ReadWeightRow", WE),
    ),
    *_chapter(
        "The worked example",
        "scenes/worked_outputs.py",
        ("weighted-sum", "Step 8: the weighted sum of values", "SumValues", WE),
        ("multi-head", "Steps 9 and 10: multi-head concatenation", "CombineHeads", WE),
    ),
    *_chapter(
        "The worked example",
        "scenes/meaning.py",
        ("static-embeddings", "Static embeddings on the meaning map", "MapStaticEmbeddings", MAP),
        ("meaning-shift", "The shift: a word moves with its context", "ShiftMeaning", MAP),
    ),
    *_chapter(
        "The worked example",
        "scenes/readings.py",
        ("context-weights", "One word, two sentences, two rows of weights", "CompareContexts", MAP),
    ),
    *_chapter(
        "The worked example",
        "scenes/meaning.py",
        ("takeaways", "Key takeaways", "SummarizeTakeaways", ()),
    ),
    *_chapter(
        "Why divide by √dₖ",
        "scenes/scaling.py",
        ("variance-explodes", "Dot products explode with dimension", "ExplodeDotProducts", ("variance_demo",)),
        ("softmax-saturation", "Saturated softmax, vanishing gradient", "SaturateSoftmax", ("saturation_demo",)),
    ),
    *_chapter(
        "Why divide by √dₖ",
        "scenes/score_details.py",
        ("vanishing-not-exploding", "Vanishing, not exploding", "CorrectGradientClaim", ("saturation_demo",)),
    ),
    *_chapter(
        "Attention across a sentence",
        "scenes/sentence.py",
        ("train-station", "The train left the station on time", "AttendTrainStation", ("train_station",)),
    ),
    *_chapter(
        "Attention across a sentence",
        "scenes/readings.py",
        ("train-context", "The train's context vector, summed", "SumTrainContext", ("train_station",)),
    ),
    *_chapter(
        "Masks, two sentences and order",
        "scenes/variants.py",
        ("masked-attention", "Masked self-attention: no peeking ahead", "MaskFuture", WE),
        ("cross-attention", "Cross-attention: queries from another sentence", "AttendAcross", WE),
        ("word-order", "Shuffled words, shuffled outputs", "ShuffleTokens", WE),
    ),
    *_chapter(
        "Limitations",
        "scenes/limits.py",
        ("limitations", "Four limitations", "ListLimitations", ()),
        ("quadratic-cost", "The O(n²) limit", "GrowQuadratically", ("complexity",)),
    ),
    *_chapter(
        "Recap",
        "scenes/recap.py",
        ("seven-steps", "The seven steps, with shapes", "RecapSteps", ("worked_example",)),
        ("quiz", "Quiz", "QuizAttention", ()),
    ),
    *_chapter(
        "A real transformer",
        "scenes/real_model.py",
        ("real-attention", "The same sentence through MiniLM", "ReadRealAttention", ("real_model", "worked_example")),
        ("real-shift", "The real shift: apple in context", "TraceRealShift", ("real_model",)),
    ),
    *_chapter(
        "A real transformer",
        "scenes/weights_and_sizes.py",
        ("real-sizes", "Real sizes: model width, heads and dₖ", "CompareSizes", ("real_model", "worked_example")),
    ),
]


def by_class(cls_name: str) -> Entry:
    """The lesson entry of a Scene class (every scene of the lesson has exactly one)."""
    for scene in LESSON:
        if scene.cls == cls_name:
            return scene
    raise KeyError(f"{cls_name} is not in the lesson list (scenes/lesson.py)")
