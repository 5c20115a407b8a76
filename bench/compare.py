"""Benchmark: plain manim one scene after another against render.py, in one run, as a Markdown table.

``make bench`` runs it on every scene of the lesson that exists; ``--scenes`` picks a subset and
``--rows`` some rows (``make bench ROWS=8,10 SCENES="scale-softmax"``). Rows 8-10 are always 1080p60.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import srt
from full_quality import guard_row, lesson_row, scene_rows

from attention_math.example import DEFAULT_EXAMPLE, ROOT, read_toml
from scenes.lesson import LESSON, Entry

QUALITY_FLAGS = {"low": "-ql", "medium": "-qm", "high": "-qh", "4k": "-qk"}
EDITED_SECTION = "worked_example"
LONG_EXAMPLE = ROOT / "tests" / "examples" / "twelve_tokens.toml"
ROWS = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "10")


def row_list(text: str) -> set[str]:
    rows = {part.strip() for part in text.split(",") if part.strip()}
    if not rows or rows - set(ROWS):
        raise argparse.ArgumentTypeError(f"expected row numbers from 1 to 10 separated by commas, got {text!r}")
    return rows


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--scenes", nargs="+", metavar="ID", help="scene ids or glob patterns (default: all that exist)"
    )
    parser.add_argument("--quality", choices=QUALITY_FLAGS, default="high", help="default: high, as render.py")
    parser.add_argument("--jobs", type=int, default=2, help="render.py --jobs (default: 2)")
    parser.add_argument("--rows", type=row_list, default=set(ROWS), help="rows to run, e.g. 8,10 (default: all)")
    parser.add_argument(
        "--long-example",
        type=Path,
        default=LONG_EXAMPLE,
        help="a longer sentence for the worked-example scenes, rendered against the default (row 5)",
    )
    return parser.parse_args()


def existing(entry: Entry) -> bool:
    path = ROOT / entry.file
    return path.is_file() and f"class {entry.cls}(" in path.read_text(encoding="utf-8")


def chosen(patterns: list[str] | None) -> list[Entry]:
    if not patterns:
        return [e for e in LESSON if existing(e)]
    return [e for e in LESSON if any(fnmatch.fnmatchcase(e.id, p) for p in patterns)]


def timed(command: list[str], env: dict | None = None) -> float:
    """Run ``command`` from the repository root; its wall-clock seconds (stops the benchmark if it fails)."""
    started = time.perf_counter()
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if result.returncode:
        sys.exit(f"benchmark stopped: {' '.join(command)} exited {result.returncode}\n{result.stderr[-2000:]}")
    return seconds


def plain_manim(scenes: list[Entry], quality: str, media: Path, cache: bool) -> float:
    """The plain manim command, one scene after another, into one media folder (what a user types)."""
    caching = [] if cache else ["--disable_caching"]
    flags = [QUALITY_FLAGS[quality], *caching, "--progress_bar", "none", "--media_dir", str(media)]
    return sum(timed([sys.executable, "-m", "manim", "render", *flags, e.file, e.cls]) for e in scenes)


def render_py(scenes: list[Entry], args: argparse.Namespace, output: Path, *extra: str) -> float:
    ids = [e.id for e in scenes]
    common = ["--quality", args.quality, "--jobs", str(args.jobs), "--output", str(output), "--scenes", *ids]
    return timed([sys.executable, "render.py", *common, *extra])


def edit_one_value(source: Path, target: Path) -> str:
    """Copy the example file with the first number of ``worked_example.X`` changed; return what changed."""
    text = source.read_text(encoding="utf-8")
    section = text.index(f"[{EDITED_SECTION}]")
    match = re.compile(r"X = \[\s*\[(-?[0-9.]+)").search(text, section)
    old = match.group(1)
    new = f"{float(old) + 0.5:g}"
    target.write_text(text[: match.start(1)] + new + text[match.end(1) :], encoding="utf-8")
    return f"{EDITED_SECTION}.X[0][0]: {old} → {new}"


def scene_records(output: Path) -> list[dict]:
    return json.loads((output / "manifest.json").read_text(encoding="utf-8"))["scenes"]


def statuses(output: Path) -> dict[str, str]:
    return {s["id"]: s["status"] for s in scene_records(output)}


def frames_and_seconds(scenes: list[Entry], args: argparse.Namespace, output: Path, example: Path) -> tuple[int, float]:
    """Render ``scenes`` cold with ``example``: total frames and wall-clock seconds."""
    seconds = render_py(scenes, args, output, "--force", "--example", str(example))
    ids = {e.id for e in scenes}
    return sum(s["frames"] for s in scene_records(output) if s["id"] in ids), seconds


def compare_sentence_lengths(scenes: list[Entry], args: argparse.Namespace, tmp: Path) -> None:
    """Row 5: the worked-example scenes with a longer sentence should cost frames, not TeX per cell.

    Scenes that also need a section the longer example leaves out (``real_model``) are not compared.
    """
    sections = read_toml(args.long_example).keys()
    worked = [e for e in scenes if EDITED_SECTION in e.depends_on and set(e.depends_on) <= sections]
    if not worked:
        return
    short_frames, short = frames_and_seconds(worked, args, tmp / "short", DEFAULT_EXAMPLE)
    long_frames, long = frames_and_seconds(worked, args, tmp / "long", args.long_example)
    row(
        f"5. {len(worked)} worked-example scenes, {args.long_example.name} against the default",
        long,
        f"{long / short:.2f}× the time of the default ({short:.2f} s) for {long_frames / short_frames:.2f}× "
        f"its frames ({long_frames} against {short_frames})",
    )


def machine() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())  # fmt: skip
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"{os.cpu_count()} cores (nproc), {cpu}, Python {platform.python_version()}; load average at start {load}"


def main() -> None:
    args = parse_args()
    scenes = chosen(args.scenes)
    if not scenes:
        sys.exit("no scene to benchmark")
    print(f"machine: {machine()}", flush=True)
    print(f"scenes ({len(scenes)}, quality {args.quality}): {' '.join(e.id for e in scenes)}", flush=True)
    print("\n| run | seconds | comparison |\n|---|---:|---|", flush=True)
    with tempfile.TemporaryDirectory(prefix="attention-bench-") as tmp:
        if args.rows & set(ROWS[:7]):
            low_quality_rows(scenes, args, Path(tmp))
        clips = scene_rows(scenes, Path(tmp), row) if "8" in args.rows else {}
        if "9" in args.rows:
            lesson_row(scenes, Path(tmp), row)
        if "10" in args.rows:
            guard_row(scenes[0], Path(tmp), row, clips.get(scenes[0].id))


def low_quality_rows(scenes: list[Entry], args: argparse.Namespace, tmp: Path) -> None:
    """Rows 1-7 (at ``--quality``): plain manim against render.py cold, no-op, incremental; the voice.

    They build on each other, so the selected ones run together with what they need.
    """
    want, out = args.rows, tmp / "out"
    plain_cold = plain_manim(scenes, args.quality, tmp / "plain-cold", cache=False) if want & {"1", "2"} else 0.0
    if "1" in want:
        row("1. plain manim, one after another, --disable_caching (cold)", plain_cold, "1.00× (baseline)")
    cold = 0.0
    if want & {"2", "3", "4", "6", "7"}:
        cold = render_py(scenes, args, out, "--force")
        if "2" in want:
            faster = f"{plain_cold / cold:.2f}× faster than 1" if plain_cold else ""
            row(f"2. render.py --jobs {args.jobs} --force (cold)", cold, faster)
    if "3" in want:
        noop = render_py(scenes, args, out)
        skipped = sum(s == "skipped" for s in statuses(out).values())
        plain_manim(scenes, args.quality, tmp / "plain-cached", cache=True)  # fills manim's cache, not timed
        plain_cached = plain_manim(scenes, args.quality, tmp / "plain-cached", cache=True)
        row("3a. plain manim again, with manim's own cache", plain_cached, "")
        faster = f"{plain_cached / noop:.0f}× faster than 3a"
        row(f"3b. render.py again, nothing changed ({skipped} skipped)", noop, faster)
    if "4" in want:
        change = edit_one_value(DEFAULT_EXAMPLE, tmp / "edited.toml")
        after_edit = render_py(scenes, args, out, "--example", str(tmp / "edited.toml"))
        rendered = sorted(i for i, s in statuses(out).items() if s == "rendered")
        dependents = sorted(e.id for e in scenes if EDITED_SECTION in e.depends_on)
        verdict = "only the dependents" if rendered == dependents else f"expected {len(dependents)} dependents"
        row(f"4. render.py after editing {change}", after_edit, f"rendered {len(rendered)} of {len(scenes)}: {verdict}")
    if "5" in want:
        compare_sentence_lengths(scenes, args, tmp)
    if want & {"6", "7"}:
        compare_voices(scenes, args, tmp, cold)


def compare_voices(scenes: list[Entry], args: argparse.Namespace, tmp: Path, voiced: float) -> None:
    """Rows 6-7: synthesis speed of the narration the cold run said, cold and cached; the render without a voice."""
    from scenes.narration.spoken import spoken
    from scenes.narration.voice import Speaker, best_installed

    voice = best_installed()
    sentences = [cue.content for clip in sorted((tmp / "out").glob("*-*.srt")) for cue in srt.parse(clip.read_text())]
    times = []
    for _ in range(2):  # cold, then from the cache
        speaker, started = Speaker(voice, tmp / "voice-cache"), time.perf_counter()
        speech = sum(speaker.say(spoken(text)).seconds for text in sentences)
        times.append(time.perf_counter() - started)
        speaker.close()
    for name, seconds in zip(("cold", "cached"), times, strict=True):
        row(f"6. {voice} voice, {len(sentences)} sentences ({speech:.0f} s of speech), {name}", seconds,
            f"{seconds / speech:.3f} s per second of speech")  # fmt: skip
    silent = render_py(scenes, args, tmp / "silent", "--voice", "none")
    row("7. render.py --voice none (cold)", silent, f"with the {voice} voice (row 2): {voiced / silent:.2f}× the time")


def row(name: str, seconds: float | None, comparison: str) -> None:
    """Print one row of the table as soon as it is measured (a run at 1080p60 takes a while)."""
    print(f"| {name} | {'–' if seconds is None else f'{seconds:.2f}'} | {comparison} |", flush=True)


if __name__ == "__main__":
    main()
