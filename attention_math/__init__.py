"""Every number of the self-attention lesson, computed from the example file (numpy only, no manim)."""

from .attention import attend, multi_head, softmax, softmax_jacobian
from .errors import ExampleError, UndeclaredSectionError
from .example import DEFAULT_EXAMPLE, SECTIONS, load_example
from .values import LessonValues, compute, lesson_values, to_jsonable

__all__ = [
    "DEFAULT_EXAMPLE",
    "SECTIONS",
    "ExampleError",
    "LessonValues",
    "UndeclaredSectionError",
    "attend",
    "compute",
    "lesson_values",
    "load_example",
    "multi_head",
    "softmax",
    "softmax_jacobian",
    "to_jsonable",
]
