"""Run a lesson scene without rendering and inspect what is on screen after every step.

``probe(entry)`` plays the scene with manim's ``dry_run`` (no frames drawn, no video
written) and, after each ``play``/``wait``, records every visible text-like mobject:
its bounding box and the numbers it shows. The layout test and the numbers audit
are built on these snapshots.

Command line, for checking a scene while writing it (exit 1 when it finds a problem, 2 for an
unknown scene)::

    .venv/bin/python -m scenes.probe multiply-queries [--example PATH]
"""

from __future__ import annotations

import atexit
import dataclasses
import difflib
import functools
import importlib.util
import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from manim import (
    DecimalNumber,
    MarkupText,
    Mobject,
    SingleStringMathTex,
    Text,
    config,
    tempconfig,
)

from attention_math import LessonValues, compute, load_example
from attention_math.example import ROOT
from scenes import framing
from scenes.collisions import Mark, collision_problems, mark_of
from scenes.kit.base import EXAMPLE_ENV
from scenes.kit.clearance import box_of
from scenes.legibility import Measure, legibility_problems, measure
from scenes.lesson import LESSON, Entry

MIN_FONT_SIZE = 16  # below this, text is not legible at 480p
FRAME_TOLERANCE = 0.02
OVERLAP_TOLERANCE = 0.03

_NUMBER = re.compile(r"(?<![A-Za-z_\\])([-−]?\d[\d,]*(?:\.\d+)?)\s*(%|thousand|million|billion|trillion|KB|MB|GB|TB)?")
_MULTIPLIER = {
    "%": 0.01,
    "thousand": 1e3,
    "million": 1e6,
    "billion": 1e9,
    "trillion": 1e12,
    "KB": 1e3,
    "MB": 1e6,
    "GB": 1e9,
    "TB": 1e12,
}


@dataclass
class Shown:
    """One visible text-like mobject after a step."""

    text: str
    box: tuple[float, float, float, float]  # left, bottom, right, top
    numbers: list[tuple[float, float]]  # (value shown, half of the last displayed digit)
    font_size: float | None
    notation: bool
    measure: Measure | None = None  # cap height and label row (scenes.legibility)
    order: int = 0  # drawing order among the snapshot's texts and marks


@dataclass
class Snapshot:
    step: int
    call: str
    shown: list[Shown] = field(default_factory=list)
    marks: list[Mark] = field(default_factory=list)  # pictures, arrows, opaque shapes (scenes.collisions)
    narration: list[str] = field(default_factory=list)  # subtitles added up to this step
    said: list[str] = field(default_factory=list)  # the same sentences as the voice reads them
    frame: framing.Frame | None = None  # the screen after a play: timing, figure box (scenes.framing)
    drawn: float | None = None  # on the last snapshot: share of the last frame, drawn by Cairo, that is not background


def _is_text(m: Mobject) -> bool:
    return isinstance(m, Text | MarkupText | SingleStringMathTex | DecimalNumber)


def _visible(m: Mobject) -> bool:
    fam = m.get_family()
    return any(
        sub.has_points() and (sub.get_fill_opacity() > 0.01 or sub.get_stroke_opacity() > 0.01) for sub in fam
    ) and (m.width > 1e-3 or m.height > 1e-3)


def _parse_numbers(text: str) -> list[tuple[float, float]]:
    found = []
    for match in _NUMBER.finditer(text):
        digits, unit = match.group(1), match.group(2)
        raw = digits.replace(",", "").replace("−", "-")
        places = len(raw.split(".")[1]) if "." in raw else 0
        scale = _MULTIPLIER.get(unit or "", 1.0)
        found.append((float(raw) * scale, 0.5 * 10.0**-places * scale))
    return found


def _describe(m: Mobject, notation: bool, order: int) -> Shown:
    if isinstance(m, DecimalNumber):
        places = m.num_decimal_places
        text = f"{m.number:.{places}f}"
        numbers = [(round(float(m.number), places), 0.5 * 10.0**-places)]
    elif isinstance(m, SingleStringMathTex):
        text = m.tex_string
        numbers = _parse_numbers(re.sub(r"\\[A-Za-z]+", " ", text))
    else:
        text = getattr(m, "original_text", getattr(m, "text", ""))
        numbers = _parse_numbers(re.sub(r"<[^>]+>", "", text))
    return Shown(text, box_of(m), numbers, getattr(m, "font_size", None), notation, measure(m), order)


def _collect(m: Mobject, notation: bool, snap: Snapshot) -> None:
    notation = notation or getattr(m, "audit_notation", False)
    order = len(snap.shown) + len(snap.marks)
    if _is_text(m):
        if _visible(m):
            snap.shown.append(_describe(m, notation, order))
        return
    if mark := mark_of(m, order):
        snap.marks.append(mark)
        if mark.kind != "cover":
            return
    for sub in m.submobjects:
        _collect(sub, notation, snap)


def screen(mobjects: list[Mobject], snap: Snapshot) -> Snapshot:
    """``snap`` with the texts and marks of ``mobjects``, in the order Cairo draws them."""
    for mob in mobjects:
        _collect(mob, False, snap)
    return snap


def load_scene_class(entry: Entry) -> type:
    path = ROOT / entry.file
    spec = importlib.util.spec_from_file_location(f"probe_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, entry.cls)


@functools.cache
def tex_cache() -> str:
    """One TeX cache for every probe of this process (a formula compiles once); its own, so parallel
    test workers never read each other's half-written SVGs."""
    folder = tempfile.mkdtemp(prefix="probe-tex-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def dry_run_config(media: str) -> dict:
    """manim settings that play a scene without drawing or writing a video (its .srt goes to ``media``)."""
    return {
        "dry_run": True,
        "disable_caching": True,
        "media_dir": media,
        "tex_dir": tex_cache(),
        "output_file": str(Path(media) / "probe"),  # narrate() writes its .srt beside it
        "verbosity": "ERROR",
        "progress_bar": "none",
        "quality": "low_quality",
    }


def probe(entry: Entry, example: str | Path | None = None) -> list[Snapshot]:
    """Play ``entry``'s scene without rendering a video (TeX compiles; Cairo draws the last frame only);
    a snapshot after each play and wait."""
    cls = load_scene_class(entry)
    snapshots: list[Snapshot] = []
    narration: list[str] = []
    previous = os.environ.get(EXAMPLE_ENV)
    if example is not None:
        os.environ[EXAMPLE_ENV] = str(example)
    try:
        with (
            tempfile.TemporaryDirectory() as media,
            tempconfig(dry_run_config(media)),
        ):
            scene = cls()
            scene.renderer._original_skipping_status = True  # a dry run still draws every frame: skip them

            def recording(method, call):
                def wrapper(*args, **kwargs):
                    start, first = scene.time, framing.before(scene) if call == "play" else None
                    flashed = framing.flashes(scene, args) if call == "play" else ()
                    result = method(*args, **kwargs)
                    snap = Snapshot(len(snapshots), call, narration=list(narration), said=list(scene.said))
                    screen(scene.mobjects, snap)
                    if call == "play":  # a wait is recorded through the play it makes
                        snap.frame = framing.after(scene, call, args, start, first, flashed)
                    snapshots.append(snap)
                    return result

                return wrapper

            original_subcaption = scene.add_subcaption

            def narrating(content, *args, **kwargs):
                narration.append(content)
                return original_subcaption(content, *args, **kwargs)

            scene.add_subcaption = narrating
            scene.play = recording(scene.play, "play")
            scene.wait = recording(scene.wait, "wait")
            scene.render()
            if snapshots:
                snapshots[-1].drawn = framing.content_share(scene, scene.mobjects)
    finally:
        if example is not None:
            if previous is None:
                os.environ.pop(EXAMPLE_ENV, None)
            else:
                os.environ[EXAMPLE_ENV] = previous
    return snapshots


# --- checks -------------------------------------------------------------------------


def layout_problems(snapshots: list[Snapshot]) -> list[str]:
    """Text outside the frame, overlapping text, text on pictures or under arrows, text too small for
    480p, label rows off one line."""
    half_w, half_h = config.frame_width / 2, config.frame_height / 2
    problems = []
    for snap in snapshots:
        where = f"after {snap.call} #{snap.step}"
        for s in snap.shown:
            left, bottom, right, top = s.box
            if (
                left < -half_w - FRAME_TOLERANCE
                or right > half_w + FRAME_TOLERANCE
                or (bottom < -half_h - FRAME_TOLERANCE or top > half_h + FRAME_TOLERANCE)
            ):
                problems.append(f"{where}: {s.text!r} leaves the frame {tuple(round(v, 2) for v in s.box)}")
            if s.font_size is not None and s.font_size < MIN_FONT_SIZE:
                problems.append(f"{where}: {s.text!r} font size {s.font_size:.0f} < {MIN_FONT_SIZE}")
        for i, a in enumerate(snap.shown):
            for b in snap.shown[i + 1 :]:
                dx = min(a.box[2], b.box[2]) - max(a.box[0], b.box[0])
                dy = min(a.box[3], b.box[3]) - max(a.box[1], b.box[1])
                if dx > OVERLAP_TOLERANCE and dy > OVERLAP_TOLERANCE:
                    problems.append(f"{where}: {a.text!r} overlaps {b.text!r}")
    return problems + collision_problems(snapshots) + legibility_problems(snapshots)


def computed_numbers(values: object) -> np.ndarray:
    """Every number in a section's computed values, flattened."""
    out: list[float] = []

    def walk(v: object) -> None:
        if isinstance(v, LessonValues):
            walk(v.sections())
        elif dataclasses.is_dataclass(v) and not isinstance(v, type):
            for f in dataclasses.fields(v):
                walk(getattr(v, f.name))
        elif isinstance(v, dict):
            for sub in v.values():
                walk(sub)
        elif isinstance(v, list | tuple):
            for sub in v:
                walk(sub)
        elif isinstance(v, np.ndarray):
            out.extend(v.astype(float).ravel().tolist())
        elif isinstance(v, int | float | np.number) and not isinstance(v, bool):
            out.append(float(v))

    walk(values)
    return np.array(out)


def audit_problems(entry: Entry, snapshots: list[Snapshot], example: str | Path | None = None) -> list[str]:
    """Numbers on screen that no computed value of the scene's sections explains."""
    path = example or os.environ.get(EXAMPLE_ENV) or ROOT / "assets/examples/default.toml"
    values = compute(load_example(path, sections=list(entry.depends_on)))
    allowed = computed_numbers(values)
    problems = []
    for snap in snapshots:
        for s in snap.shown:
            if s.notation:
                continue
            for shown, half_step in s.numbers:
                if not np.any(np.abs(allowed - shown) <= half_step + 1e-9 * max(1.0, abs(shown))):
                    problems.append(f"after {snap.call} #{snap.step}: {shown:g} in {s.text!r} is not a computed value")
    return sorted(set(problems))


def numbers_shown(snapshots: list[Snapshot]) -> set[float]:
    return {n for snap in snapshots for s in snap.shown if not s.notation for n, _ in s.numbers}


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m scenes.probe")
    parser.add_argument("scene", help="lesson id or Scene class name")
    parser.add_argument("--example")
    args = parser.parse_args(argv)
    entry = next((e for e in LESSON if args.scene in (e.id, e.cls)), None)
    if entry is None:
        close = difflib.get_close_matches(args.scene, [e.id for e in LESSON], n=1)
        hint = f"; did you mean {close[0]!r}?" if close else " (python render.py --list shows the ids)"
        print(f"error: no scene {args.scene!r} in the lesson{hint}", file=sys.stderr)
        return 2
    snaps = probe(entry, args.example)
    problems = layout_problems(snaps) + audit_problems(entry, snaps, args.example)
    print(f"{entry.id}: {len(snaps)} steps, {sum(len(s.shown) for s in snaps)} texts checked")
    for p in problems:
        print("  " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
