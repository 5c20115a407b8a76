"""The README against reality: every message its Troubleshooting table quotes, produced for real, and
every command of its code blocks, run (render.py with ``--list``, plain manim with ``--dry_run``).

A quote is an excerpt of the real line: ``…`` stands for any text, a quote that starts with ``error:``
is the start of the line, and paths are compared by name. Quotes with a recipe below are produced and
compared (with their ``(exit N)``); a quote added later without one must at least use the words of a
message the code prints, so a new row by another change passes unless its wording is not in the code.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import re
import shlex
import subprocess
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from attention_math.__main__ import main as print_values
from attention_math.example import DEFAULT_EXAMPLE, ROOT
from attention_math.new_example import build
from render.files import locked
from render.plan import available
from render.settings import parse_args
from scenes.lesson import LESSON

README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = sorted((ROOT / "docs").glob("*.md"))
SOURCES = ("render", "publish", "scenes", "attention_math", "render.py")


def section(title: str) -> str:
    """The README's text under ``## title``, up to the next ``## ``."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", README, re.S | re.M)
    assert match, f"README has no section '## {title}'"
    return match.group(1)


def first_cells(text: str) -> list[str]:
    """The first cell of each row of the tables in ``text`` (header and rule rows left out)."""
    rows = [line for line in text.splitlines() if line.startswith("|") and not line.startswith("|---")]
    cells = [re.split(r"(?<!\\)\|", row)[1].strip() for row in rows]
    return [c for c in cells if c not in ("message", "file", "option", "run", "path", "component", "chapter")]


@dataclass(frozen=True)
class Quote:
    text: str
    exit: int | None  # the "(exit N)" written right after it, if any


def quotes() -> list[Quote]:
    """The backticked messages of the Troubleshooting table's first column, each with its exit status."""
    found = []
    for cell in first_cells(section("Troubleshooting")):
        for match in re.finditer(r"`([^`]+)`(\s*\(exit (\d+)\))?", cell):
            found.append(Quote(match.group(1), int(match.group(3)) if match.group(3) else None))
    return found


def matches(quote: str, line: str) -> bool:
    """Whether ``line`` contains ``quote`` read as an excerpt (``…`` and the spaces around it: any text;
    ``error:`` or ``note:`` anchors it at the start)."""
    pattern = ".*?".join(re.escape(part) for part in re.split(r"\s*…\s*", quote))
    found = re.match(pattern, line) if quote.startswith(("error:", "note:")) else re.search(pattern, line)
    return found is not None


# --- real messages ---------------------------------------------------------------------------


def toml(data: dict[str, Any]) -> str:
    """A TOML file for ``data`` (tables, arrays of tables, lists, strings and numbers: what examples hold)."""
    lines: list[str] = []

    def value(v: Any) -> str:
        if isinstance(v, float) and not math.isfinite(v):
            return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return json.dumps(v, ensure_ascii=False)

    def table(name: str, t: dict[str, Any], header: str) -> None:
        lines.append(header)
        nested = {
            k: v
            for k, v in t.items()
            if isinstance(v, dict) or (isinstance(v, list) and v and all(isinstance(x, dict) for x in v))
        }
        lines.extend(f"{json.dumps(k)} = {value(v)}" for k, v in t.items() if k not in nested)
        for key, v in nested.items():
            for item in v if isinstance(v, list) else [v]:
                sub = f"{name}.{json.dumps(key)}"
                table(sub, item, f"[[{sub}]]" if isinstance(v, list) else f"[{sub}]")

    for name, t in data.items():
        table(json.dumps(name), t, f"[{json.dumps(name)}]")
    return "\n".join(lines) + "\n"


def default() -> dict[str, Any]:
    return tomllib.loads(DEFAULT_EXAMPLE.read_text(encoding="utf-8"))


def edited(change: Callable[[dict[str, Any]], None]) -> str:
    data = default()
    change(data)
    return toml(data)


def pear_with_apple_in_the_map(data: dict[str, Any]) -> None:
    """The worked example says "pear", the meaning map keeps its "apple" (with the row it had): only the
    real-model chapter still points at "apple"."""
    data["semantic_shift"]["embeddings"]["apple"] = data["worked_example"]["X"][2]
    data["worked_example"]["tokens"][2] = "pear"


#: Example files with one mistake each, and the distinctive words of the message each must give.
BROKEN_EXAMPLES: dict[str, str | None] = {
    "ragged matrix": edited(lambda d: d["worked_example"]["X"][1].pop()),
    "unknown key": edited(lambda d: d["rnn_decay"].update(retension=d["rnn_decay"].pop("retention"))),
    "missing; this key is required": edited(lambda d: d["rnn_decay"].pop("retention")),
    "expected a finite number": edited(lambda d: d["rnn_decay"].update(retention=math.nan)),
    "expected scaled scores up to": edited(lambda d: d["worked_example"]["X"].__setitem__(0, [100.0] * 4)),
    "not valid TOML": "[worked_example\n",
    "file not found": None,
    "at most 16 characters": edited(lambda d: d["worked_example"]["tokens"].__setitem__(2, "x" * 17)),
    "leading/trailing spaces": edited(lambda d: d["worked_example"]["tokens"].__setitem__(2, "apple ")),
    "emoji and other pictographs": edited(lambda d: d["worked_example"]["tokens"].__setitem__(2, "🍎")),
    "non-zero vectors": edited(lambda d: d["worked_example"]["X"].__setitem__(0, [0.0] * 4)),
    "has no row of d_model": edited(lambda d: d["worked_example"]["tokens"].__setitem__(2, "pear")),
    "real_model.focus": edited(pear_with_apple_in_the_map),
}


@dataclass(frozen=True)
class Real:
    line: str
    exit: int


def check_example(tmp: Path, text: str | None) -> Real:
    """``python -m attention_math --example my.toml`` run from ``tmp``: its first line and exit status."""
    (tmp / "my.toml").unlink(missing_ok=True)
    if text is not None:
        (tmp / "my.toml").write_text(text, encoding="utf-8")
    err = io.StringIO()
    with contextlib.chdir(tmp), contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = print_values(["--example", "my.toml"])
    return Real(err.getvalue().splitlines()[0], status)


def render_py(tmp: Path, *args: str) -> Real:
    """render.py run from ``tmp``: the first line that says ``error:`` (else its first line), its exit status."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "render.py"), *args], cwd=tmp, capture_output=True, text=True, timeout=120
    )
    lines = (result.stderr + result.stdout).splitlines()
    return Real(next((line for line in lines if "error:" in line), lines[0] if lines else ""), result.returncode)


def render_recipes(tmp: Path) -> dict[str, Real]:
    """render.py's usage errors, run for real; its notes from the functions that print them."""
    without_model = edited(lambda d: d.pop("real_model"))
    (tmp / "my.toml").write_text(without_model, encoding="utf-8")
    (tmp / "notes.txt").write_text("not a folder")
    (tmp / "output").mkdir()
    with locked(tmp / "output"):
        busy = render_py(tmp, "--output", "output", "--scenes", "architecture")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        available(list(LESSON), tomllib.loads(without_model), tmp / "my.toml")
    transparent, gif = parse_args(["--transparent"]).notes(), parse_args(["--format", "gif"]).notes()
    return {
        "no scene matches": render_py(tmp, "--scenes", "dot-product", "--output", "never"),
        "is a file, not a folder": render_py(tmp, "--output", "notes.txt", "--scenes", "architecture"),
        "being rendered by another": busy,
        "needs [real_model]": render_py(tmp, "--example", "my.toml", "--scenes", "real-attention", "--output", "x"),
        "not rendered": Real(printed.getvalue().splitlines()[0], 0),
        "invalid choice": render_py(tmp, "--voice", "robot"),
        "QuickTime .mov": Real(f"note: {transparent[0]}", 0),
        "no lesson video for GIF": Real(f"note: {gif[0]}", 0),
    }


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Real]:
    """Every recipe's real message, keyed by the words that identify it."""
    tmp = tmp_path_factory.mktemp("readme")
    found = {key: check_example(tmp, text) for key, text in BROKEN_EXAMPLES.items()}
    return found | {"new-example": new_example_error("cat")} | render_recipes(tmp_path_factory.mktemp("render"))


def new_example_error(sentence: str) -> Real:
    """``python -m attention_math new-example SENTENCE``: its first line and exit status."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = print_values(["new-example", sentence])
    return Real(err.getvalue().splitlines()[0], status)


def normalised(line: str) -> list[str]:
    """The line as it is, and with absolute paths cut to their last part (the README says ``my.toml``)."""
    line = re.sub(r"\(pid \d+\)", "(pid 1234)", line)  # the README's example pid
    short = re.sub(r"/\S*/([^/\s:]+)", r"\1", line)
    return [line, short, re.sub(r"/\S*/(output)\b", r"/path/\1", line)]


def code_words() -> str:
    paths = [ROOT / s for s in SOURCES]
    files = [p for path in paths for p in ([path] if path.is_file() else sorted(path.rglob("*.py")))]
    return "\n".join(p.read_text(encoding="utf-8") for p in files)


def test_every_recipe_gives_the_message_it_is_named_for(real):
    for key, message in real.items():
        assert key in message.line, f"recipe {key!r} gave {message.line!r}"


def test_the_troubleshooting_quotes_are_the_real_messages(real):
    found = quotes()
    assert len(found) >= 10, "the Troubleshooting table's quoted messages were not found"
    unchecked = []
    for quote in found:
        recipes = [key for key in real if key in quote.text]
        if not recipes:
            unchecked.append(quote)
            continue
        lines = [real[key] for key in recipes]
        hit = [r for r in lines if any(matches(quote.text, form) for form in normalised(r.line))]
        assert hit, f"README quotes {quote.text!r}; the real messages: {[r.line for r in lines]}"
        if quote.exit is not None:
            assert hit[0].exit == quote.exit, f"README says {quote.text!r} exits {quote.exit}, it exits {hit[0].exit}"
    words = set(re.findall(r"[A-Za-z]{5,}", code_words()))
    for quote in unchecked:  # no recipe: its words must at least be words the code prints
        text = re.sub(r"'[^']*'|\S*[/.]\S*", " ", quote.text)
        missing = [w for w in re.findall(r"[A-Za-z]{5,}", text) if w not in words]
        assert not missing, f"README quotes {quote.text!r}, but the code never says {missing}"


def test_the_other_example_errors_listed_are_real(real):
    match = re.search(r"Other messages of this kind: (.*?)\|", section("Troubleshooting"))
    assert match, "the first Troubleshooting row no longer lists other messages"
    lines = [r.line for r in real.values()]
    for fragment in re.findall(r"`([^`]+)`", match.group(1)):
        assert any(matches(fragment, line) for line in lines), f"no real message contains {fragment!r}: {lines}"


# --- commands --------------------------------------------------------------------------------


def code_commands() -> list[str]:
    """The command lines of the code blocks of the README and the docs/ pages (comments cut), in order:
    each line that runs a program of the checkout's ``.venv``, after any ``NAME=value`` settings."""
    texts = [README, *(page.read_text(encoding="utf-8") for page in DOCS)]
    blocks = [b for text in texts for b in re.findall(r"^```[a-z]*\n(.*?)^```", text, re.S | re.M)]
    lines = [line.split("  #")[0].strip() for block in blocks for line in block.splitlines()]
    return [line for line in lines if re.match(r"([A-Z_]+=\S+ )*\.venv/bin/", line)]


def run_quoted(command: str, tmp: Path, dry: bool) -> subprocess.CompletedProcess[str]:
    """A README command run from ``tmp`` with this venv: render.py only lists, manim only dry-runs."""
    words = shlex.split(command)
    env = dict(os.environ)
    while "=" in words[0]:
        name, value = words.pop(0).split("=", 1)
        env[name] = value
    stdout = None
    if ">" in words:
        stdout = tmp / words[words.index(">") + 1]
        words = words[: words.index(">")]
    program = {
        ".venv/bin/python": [sys.executable],
        ".venv/bin/attention-lesson": [f"{sys.prefix}/bin/attention-lesson"],
    }
    if words[0] not in program and words[0] != ".venv/bin/manim":
        return subprocess.CompletedProcess(words, 0, "", "")  # another program (make, dask): not run here
    if words[0] == ".venv/bin/manim":
        argv = [f"{sys.prefix}/bin/manim", *words[1:], *(["--dry_run"] if dry else [])]
        cwd = ROOT  # manim reads manim.cfg from the working directory
        if "ATTENTION_EXAMPLE" in env:
            env["ATTENTION_EXAMPLE"] = str(tmp / env["ATTENTION_EXAMPLE"])
    else:
        argv = [*program[words[0]], *(str(ROOT / w) if w == "render.py" else w for w in words[1:])]
        cwd = tmp
        if "render.py" in words or words[0].endswith("attention-lesson"):
            argv += [] if "--list" in argv else ["--list"]
    result = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=300, env=env)
    if stdout is not None:
        stdout.write_text(result.stdout)
    return result


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "my.toml").write_text(build("the cat sat on the mat"), encoding="utf-8")
    (tmp_path / "classes").mkdir()  # docs/scaling.md's folder of examples
    (tmp_path / "classes" / "a.toml").write_text(build("a class of its own"), encoding="utf-8")
    return tmp_path


def test_the_quoted_commands_run(workdir):
    """Every command quoted in the README and docs/, but manim's (below) and ``--from-model``'s, which
    needs the optional model extra: tests/math/test_from_model.py runs those where it is installed."""
    commands = [c for c in code_commands() if not c.startswith((".venv/bin/manim", "ATTENTION_"))]
    commands = [c for c in commands if "--from-model" not in c]
    assert any("new-example" in c for c in commands) and any("--list" in c for c in commands)
    assert any("--cluster" in c for c in commands) and any("--slides" in c for c in commands)  # docs/ too
    for command in commands:
        result = run_quoted(command, workdir, dry=True)
        assert result.returncode == 0, f"{command}: exit {result.returncode}\n{result.stderr[-1500:]}"
        assert "Traceback" not in result.stderr
    assert not (workdir / "my-lesson").exists() and not (workdir / "output").exists()  # listing renders nothing


@pytest.mark.render
def test_the_quoted_manim_commands_run(workdir):
    commands = [c for c in code_commands() if c.startswith((".venv/bin/manim", "ATTENTION_"))]
    assert commands
    for command in commands:
        result = run_quoted(command, workdir, dry=True)
        assert result.returncode == 0, f"{command}: exit {result.returncode}\n{result.stderr[-1500:]}"


@pytest.mark.render  # runs manim (a dry run)
def test_plain_manim_gives_render_pys_one_line_error(workdir):
    broken = workdir / "broken.toml"
    broken.write_text(BROKEN_EXAMPLES["ragged matrix"] or "", encoding="utf-8")
    for name in ("nope.toml", str(broken)):
        env = {**os.environ, "ATTENTION_EXAMPLE": name}
        manim = subprocess.run(
            [f"{sys.prefix}/bin/manim", "-ql", "--dry_run", "scenes/worked_projections.py", "ShowEmbeddings"],
            cwd=ROOT, capture_output=True, text=True, timeout=300, env=env,
        )  # fmt: skip
        ours = render_py(ROOT, "--example", name, "--scenes", "input-embeddings", "--output", str(workdir / "o"))
        errors = [line for line in manim.stderr.splitlines() if line.strip()]
        assert manim.returncode == ours.exit == 2
        assert errors == [ours.line] and "Traceback" not in manim.stdout + manim.stderr
    assert "newer version" not in manim.stdout + manim.stderr


# --- links -----------------------------------------------------------------------------------


def anchors(page: Path) -> set[str]:
    """The anchors GitHub gives the page's headings (lower case, punctuation dropped, spaces as hyphens)."""
    headings = re.findall(r"^#+ (.+)$", page.read_text(encoding="utf-8"), re.M)
    return {re.sub(r"[^\w\- ]", "", h).strip().lower().replace(" ", "-") for h in headings}


def test_every_link_of_the_readme_and_docs_resolves():
    for page in [ROOT / "README.md", *DOCS]:
        for target in re.findall(r"\]\(([^)\s]+)\)|src=\"([^\"]+)\"", page.read_text(encoding="utf-8")):
            link = next(t for t in target if t)
            if link.startswith(("http://", "https://")):
                continue
            path, _, anchor = link.partition("#")
            resolved = (page.parent / path).resolve() if path else page
            assert resolved.exists(), f"{page.name} links to {link}, which does not exist"
            assert not anchor or anchor in anchors(resolved), f"{page.name} links to {link}: no such heading"


def test_the_readme_is_short_and_links_every_docs_page():
    assert len(README.splitlines()) <= 200
    linked = set(re.findall(r"\]\((docs/[^)#]+\.md)\)", README))
    assert linked == {f"docs/{page.name}" for page in DOCS}


def test_a_newcomer_finds_render_own_sentence_and_slides_on_the_first_two_screens():
    first_screens = "\n".join(README.splitlines()[:100])
    for heading in ("## Quick start", "## Use your own sentence", "## Put clips in your slides"):
        assert heading in first_screens
