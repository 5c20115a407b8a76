"""Hostile tokens reach the screen literally, never TeX; narration holding them is escaped in every page and deck.

An example full of TeX commands, TeX specials, markup and non-Latin scripts is validated, played (dry run) through
one scene per chapter that shows tokens, rendered for real (last frame), and narrated through render.py.
"""

from __future__ import annotations

import html
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from attention_math import DEFAULT_EXAMPLE, ExampleError, load_example
from attention_math.example import ROOT
from scenes.lesson import LESSON
from scenes.probe import probe
from scenes.probe import tex_cache as probe_tex_cache
from tests.conftest import copy_repo, render

MARKER = "mark"  # the file `\write18{>mark}` would create if TeX ran it
HOSTILE = {
    "worked_example": ["\\input|hostname", "$x$&%", "_^#~", "<b>{}</b>"],
    "cat_sat": ["\\write18{>mark}", "résumé", "猫"],
    "rnn_decay": ["The", "\\def\\x{y}", "to", "%comment", "old", "a&b", "{brace", "#1"],
    "train_station": ["the", "<i>tr</i>", "left", "the", "\\$", "~on~", "日本語"],
}
ORIGINAL = {
    "worked_example": '["I", "love", "apple", "phones"]',
    "cat_sat": '["the", "cat", "sat"]',
    "rnn_decay": '["The", "keys", "to", "the", "old", "wooden", "cabinet", "are"]',
    "train_station": '["the", "train", "left", "the", "station", "on", "time"]',
}
OTHER_KEYS = {
    'source = "keys"': ("source", "\\def\\x{y}"),
    'target = "are"': ("target", "#1"),
    'focus = "train"': ("focus", "<i>tr</i>"),
}
ALL_TOKENS = sorted({t for tokens in HOSTILE.values() for t in tokens if not t.isalpha() or not t.isascii()})
#: one scene of each chapter that shows the tokens of these sections
SCENES = ["rnn-problem", "fixed-vs-contextual", "database-analogy", "input-embeddings", "train-station"]


def toml_string(text: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's, for characters kept as UTF-8)."""
    return json.dumps(text, ensure_ascii=False)


def without_real_model(text: str) -> str:
    """The example without its optional [real_model] section (the last one), whose focus is a worked-example token."""
    assert text.count("\n[real_model]\n") == 1
    return text[: text.index("\n[real_model]\n")] + "\n"


def with_map_rows(text: str, words: list[str]) -> str:
    """The example with the default worked example's rows of ``words`` given to the meaning map, which
    reads them once the worked example no longer has them."""
    default = load_example(DEFAULT_EXAMPLE, ["worked_example"])["worked_example"]
    rows = {w: list(map(float, default["X"][default["tokens"].index(w)])) for w in words}
    heading = "[semantic_shift.embeddings]\n"
    assert text.count(heading) == 1, "the default example no longer has [semantic_shift.embeddings]: update this test"
    return text.replace(heading, heading + "".join(f"{w} = {rows[w]}\n" for w in words))


def hostile_example(path: Path) -> Path:
    """The default example with every token of :data:`HOSTILE` (the first list of each section replaced)."""
    text = without_real_model(DEFAULT_EXAMPLE.read_text(encoding="utf-8"))
    text = with_map_rows(text, ["I", "love", "apple", "phones"])
    edits = {f"tokens = {ORIGINAL[s]}": f"tokens = [{', '.join(map(toml_string, t))}]" for s, t in HOSTILE.items()}
    edits |= {old: f"{key} = {toml_string(value)}" for old, (key, value) in OTHER_KEYS.items()}
    for old, new in edits.items():
        assert old in text, f"the default example no longer contains {old!r}: update this test"
        text = text.replace(old, new, 1)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return hostile_example(tmp_path_factory.mktemp("hostile") / "hostile example.toml")


def test_the_loader_keeps_hostile_tokens_exactly(example):
    values = load_example(example)
    assert {section: values[section]["tokens"] for section in HOSTILE} == HOSTILE


def test_worked_example_tokens_without_the_real_model_focus_are_refused(tmp_path):
    path = tmp_path / "no apple.toml"
    text = with_map_rows(DEFAULT_EXAMPLE.read_text(encoding="utf-8"), ["apple"])
    path.write_text(text.replace(ORIGINAL["worked_example"], '["I", "love", "pear", "phones"]', 1), encoding="utf-8")
    with pytest.raises(ExampleError, match=r"real_model\.focus: expected one of worked_example\.tokens"):
        load_example(path)


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        ("\\input{/etc/hostname}", "at most 16 characters"),
        ("\\write18{touch x}", "at most 16 characters"),
        ("Donaudampfschifffahrt", "at most 16 characters"),
        ("apple🍎", "emoji and other pictographs"),
        ("😀", "emoji and other pictographs"),
        ("a\u200db", "control characters"),
        ("tab\tbed", "control characters"),
        (" lead", "leading/trailing spaces"),
    ],
)
def test_tokens_the_lesson_cannot_show_are_refused_naming_the_key(tmp_path, token, expected):
    path = tmp_path / "refused.toml"
    text = DEFAULT_EXAMPLE.read_text(encoding="utf-8")
    path.write_text(text.replace(ORIGINAL["cat_sat"], f'["the", {toml_string(token)}, "sat"]', 1), encoding="utf-8")
    with pytest.raises(ExampleError) as error:
        load_example(path)
    assert str(error.value).startswith(f"{path}: cat_sat.tokens[1]: expected ") and expected in str(error.value)


def test_every_character_of_the_accepted_tokens_has_an_installed_font():
    """Pango draws a box for a character no font has: every accepted character must be in some font."""
    characters = sorted({c for token in ALL_TOKENS for c in token if not c.isascii()})
    assert characters  # accents and CJK
    for character in characters:
        fonts = subprocess.run(["fc-list", f":charset={ord(character):x}", "family"], capture_output=True, text=True)
        assert fonts.stdout.strip(), f"no installed font draws {character!r} (see SYSTEM_PACKAGES in the Makefile)"


def test_a_capital_i_is_drawn_with_serifs_not_as_a_bar():
    """A bare "I" reads as "|" (or, turned, as a dash); the kit's "I" is wider than a third of its height."""
    from manim import Text

    from scenes.kit.tokens import TOKEN_FONT, TokenLabel

    bar = Text("I", font=TOKEN_FONT, font_size=48)
    assert bar.width / bar.height < 0.2  # Inter's plain capital i: the glyph this replaces
    serif = TokenLabel("I", font_size=48)
    assert serif.width / serif.height > 1 / 3
    assert abs(serif.height - bar.height) < 0.05 * bar.height  # the same letter height


@pytest.mark.parametrize("token", ["I<b>&amp;</b>", "<I>", "I & I"])
def test_markup_beside_a_capital_i_stays_literal(token):
    """The serif I goes through Pango markup: markup characters beside it are drawn, not read."""
    from scenes.kit.tokens import TokenLabel

    label = TokenLabel(token)
    assert label.original_text == token
    assert len(label.submobjects) == len("".join(token.split()))  # one glyph per visible character


@pytest.fixture(scope="module")
def played(example: Path) -> tuple[set[str], list[Path]]:
    """Every text shown by :data:`SCENES` played with the hostile example, and the TeX sources this compiled
    (new in the probe's TeX cache: a source holding a hostile token cannot have been compiled before)."""
    cache = Path(probe_tex_cache())
    before = set(cache.glob("*.tex"))
    texts = set()
    entries = [e for e in LESSON if e.id in SCENES]
    assert len(entries) == len(SCENES), "a scene of SCENES left the lesson: pick another that shows tokens"
    for entry in entries:
        texts |= {shown.text for snapshot in probe(entry, example) for shown in snapshot.shown}
    assert list(cache.glob("*.tex"))  # the scenes do use TeX, for formulas and numbers
    return texts, sorted(set(cache.glob("*.tex")) - before)


def test_tokens_are_shown_literally(played):
    texts, _ = played
    assert [token for token in ALL_TOKENS if token not in texts] == []


def test_no_token_reaches_tex(played):
    _, compiled = played
    sources = {path.name: path.read_text(encoding="utf-8") for path in compiled}
    assert [(token, name) for token in ALL_TOKENS for name, source in sources.items() if token in source] == []
    assert not list(Path(probe_tex_cache()).rglob(MARKER))


def test_a_real_render_keeps_tokens_out_of_tex_and_runs_nothing(example, tmp_path):
    """``manim -s`` (the last frame, every mobject built for real) of a scene that shows the tokens."""
    media, root = tmp_path / "media", ROOT
    entry = next(e for e in LESSON if e.id == "input-embeddings")
    command = [sys.executable, "-m", "manim", "render", "-s", "-ql", "--disable_caching", "--progress_bar", "none",
               "--media_dir", str(media), entry.file, entry.cls]  # fmt: skip
    env = {**os.environ, "ATTENTION_EXAMPLE": str(example)}
    result = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert list(media.rglob("*.png"))
    sources = [path.read_text(encoding="utf-8") for path in media.rglob("*.tex")]
    assert sources and not [token for token in ALL_TOKENS for source in sources if token in source]
    hostname = Path("/etc/hostname").read_text().strip()
    generated = [p for p in media.rglob("*") if p.is_file() and p.suffix in (".tex", ".log", ".svg", ".srt")]
    assert not [p for p in generated if hostname in p.read_text(errors="replace")]
    assert not list(media.rglob(MARKER)) and not (root / MARKER).exists()


NARRATING_SCENE = '''
"""A tiny scene that narrates its tokens."""

from scenes.kit.base import LessonScene
from scenes.kit.tokens import TokenRow


class NarrateTokens(LessonScene):
    def construct(self):
        tokens = self.values.worked_example.tokens
        self.narrate("Tokens: " + " ".join(tokens), duration=1)
        self.add(TokenRow(tokens))
        self.wait(1)
'''
NARRATING_LESSON = """
LESSON[:] = [Entry("tokens", "Tiny", "Tokens", "scenes/tiny.py", "NarrateTokens", ("worked_example",))]
"""


def test_narrated_tokens_are_literal_in_subtitles_and_escaped_in_the_page(example, tmp_path):
    repo = copy_repo(tmp_path / "repo", NARRATING_LESSON, NARRATING_SCENE)
    result = render(repo, "--example", str(example))
    assert result.returncode == 0, result.stderr
    narration = "Tokens: " + " ".join(HOSTILE["worked_example"])
    assert narration in (repo / "out" / "01-tokens.srt").read_text(encoding="utf-8")
    assert html.escape(narration, quote=False) in (repo / "out" / "01-tokens.vtt").read_text(encoding="utf-8")
    page = (repo / "out" / "index.html").read_text(encoding="utf-8")
    assert html.escape(narration) in page and "<b>{}</b>" not in page


def test_the_deck_template_escapes_speaker_notes(tmp_path):
    from manim_slides.config import PresentationConfig, SlideConfig
    from manim_slides.convert import RevealJS

    from publish.slides import SCENES as SLIDE_SCENES
    from publish.slides import escaped_notes_template

    video = tmp_path / "clip.mp4"
    colour = ["-f", "lavfi", "-i", "color=black:size=64x64:duration=0.2"]
    subprocess.run(["ffmpeg", "-v", "error", *colour, "-pix_fmt", "yuv420p", str(video)], check=True)
    (tmp_path / SLIDE_SCENES).mkdir()
    notes = "Tokens: <b>{}</b> _^#~ $x$&% </aside><script>alert(1)</script>"
    slide = SlideConfig(file=video, rev_file=video, notes=notes)
    deck = RevealJS(presentation_configs=[PresentationConfig(slides=[slide])],
                    template=escaped_notes_template(tmp_path))  # fmt: skip
    deck.convert_to(tmp_path / "deck.html")
    page = (tmp_path / "deck.html").read_text(encoding="utf-8")
    assert f'<aside class="notes">{html.escape(notes)}</aside>' in page
    assert "<script>alert(1)</script>" not in page


pytestmark = pytest.mark.render  # renders through render.py or manim (pytest -m "not render" leaves it out)
