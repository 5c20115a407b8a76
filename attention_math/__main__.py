"""``python -m attention_math [--example PATH] [--json]``: print every value of the lesson.

``python -m attention_math new-example "SENTENCE"`` writes an example file for a sentence instead
(:mod:`attention_math.new_example`).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import signal
import sys

import numpy as np

from . import new_example
from .errors import ExampleError
from .example import DEFAULT_EXAMPLE, load_example
from .values import compute, to_jsonable


def _fields(value: object) -> dict[str, object] | None:
    """A record's or a dict's entries by name, or ``None`` for a single value."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    return dict(value) if isinstance(value, dict) else None


def _print_value(name: str, value: object, indent: str) -> None:
    entries = _fields(value)
    if entries is not None:
        print(f"{indent}{name}:")
        for key, sub in entries.items():
            _print_value(key, sub, indent + "  ")
    elif isinstance(value, list) and value and _fields(value[0]) is not None:
        for i, item in enumerate(value):
            _print_value(f"{name}[{i}]", item, indent)
    elif isinstance(value, np.ndarray) and value.ndim >= 2:
        print(f"{indent}{name}:")
        for line in np.array2string(value, precision=4, suppress_small=True).splitlines():
            print(f"{indent}  {line}")
    elif isinstance(value, np.ndarray):
        print(f"{indent}{name}: {np.array2string(value, precision=4, suppress_small=True)}")
    elif isinstance(value, float):
        print(f"{indent}{name}: {value:.4f}")
    else:
        print(f"{indent}{name}: {value}")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["new-example"]:
        return new_example.main(argv[1:])
    parser = argparse.ArgumentParser(
        prog="python -m attention_math",
        description=(__doc__ or "").split(":")[0],
        epilog='python -m attention_math new-example "SENTENCE" > my.toml writes an example file for your sentence',
    )
    parser.add_argument("--example", default=str(DEFAULT_EXAMPLE), help="example-values TOML file")
    parser.add_argument("--json", action="store_true", help="print JSON instead of readable tables")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends quietly
    try:
        values = compute(load_example(args.example))
    except ExampleError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.json:
        json.dump(to_jsonable(values), sys.stdout, indent=1)
        print()
    else:
        for section, content in values.sections().items():
            print(f"== {section} ==")
            for key, value in (_fields(content) or {}).items():
                _print_value(key, value, "  ")
            print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
