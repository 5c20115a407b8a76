"""The command line, read once into a frozen :class:`Settings` that the rest of the run only reads."""

from __future__ import annotations

import argparse
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from attention_math.example import DEFAULT_EXAMPLE, ROOT
from scenes.narration import voice as voices

Quality = Literal["low", "medium", "high", "4k"]
Format = Literal["mp4", "webm", "gif", "mov"]
#: quality name -> (manim flag, frames per second)
QUALITIES: dict[str, tuple[str, int]] = {
    "low": ("-ql", 15),
    "medium": ("-qm", 30),
    "high": ("-qh", 60),
    "4k": ("-qk", 60),
}
FORMATS: tuple[Format, ...] = ("mp4", "webm", "gif", "mov")


class UsageError(Exception):
    """Bad input or usage: exit status 2, nothing rendered."""


@dataclass(frozen=True)
class Settings:
    """What one run of render.py was asked to do; built once by :func:`parse_args`, never changed."""

    scenes: tuple[str, ...] = ()  # ids or glob patterns; empty: the whole lesson
    quality: Quality = "high"
    jobs: int = 1
    example: Path = DEFAULT_EXAMPLE
    output: Path = ROOT / "output"
    force: bool = False
    format: Format = "mp4"  # the clips' container, as manim writes it (transparent mp4 is mov)
    transparent: bool = False
    slides: bool = False
    listing: bool = False  # --list: print the lesson and exit
    as_json: bool = False
    voice: str = "none"  # hibari, piper, espeak or none (GIF clips cannot carry sound: none)
    voice_identity: str = ""  # engine, versions, model digest: what the speech depends on
    cluster: str | None = None  # --cluster: a Dask scheduler's address (render/cluster.py); None: local workers
    lessons: tuple[Path, ...] = ()  # several --example files: one lesson each, in subfolders (render/lessons.py)
    shared: Path | None = None  # in a many-lessons run: the top folder, whose voice cache every lesson shares
    reuse_from: tuple[Path, ...] = ()  # in a many-lessons run: the lessons already rendered, to reuse scenes of

    @property
    def voice_cache(self) -> Path:
        return (self.shared or self.output) / ".cache" / "voice"

    @property
    def manim_flag(self) -> str:
        return QUALITIES[self.quality][0]

    @property
    def fps(self) -> int:
        return QUALITIES[self.quality][1]

    def notes(self) -> list[str]:
        """What this run will do differently from what was asked, said before it starts."""
        notes = []
        if self.transparent and self.format == "mov":
            notes.append("transparent clips are written as QuickTime .mov (MP4 has no transparency; webm works too)")
        if self.cluster and self.slides:
            notes.append("--slides with --cluster: the clips render on the cluster, the slides on this machine")
        if self.format == "gif":
            notes.append("no lesson video for GIF clips: GIF holds no chapters or subtitles (use --format mp4 for one)")
            notes.append("GIF clips carry no sound: rendered without the voice, paced for reading")
        return notes

    def fingerprinted(self) -> dict[str, str | bool]:
        """The settings a clip's pixels depend on (part of every fingerprint and of the manifest)."""
        return {"quality": self.quality, "format": self.format, "transparent": self.transparent,
                "voice": self.voice_identity}  # fmt: skip


def parse_args(argv: list[str] | None) -> Settings:
    """The settings of ``argv``; argparse exits with status 2 and a usage message on bad input."""
    parser = argparse.ArgumentParser(
        prog="render.py",
        description="Render the self-attention lesson: a clip, subtitles and thumbnail per scene, "
        "lesson.mp4 with chapters, manifest.json. Scenes already up to date are skipped.",
    )
    parser.add_argument("--list", action="store_true", help="print the lesson and exit (with --json: as JSON)")
    parser.add_argument("--json", action="store_true", help="with --list: print a JSON list")
    parser.add_argument("--scenes", nargs="+", metavar="ID", help="render only these scenes (ids or glob patterns)")
    parser.add_argument(
        "--quality",
        choices=QUALITIES,
        default="high",
        help="low 480p15, medium 720p30, high 1080p60 (default), 4k 2160p60",
    )
    parser.add_argument(
        "--jobs", type=positive_int, default=os.cpu_count() or 1, help="parallel scenes (default: the number of cores)"
    )
    parser.add_argument(
        "--example",
        type=Path,
        nargs="+",
        default=[DEFAULT_EXAMPLE],
        help="example-values file (default: assets/examples/default.toml); several files or a folder of "
        ".toml files: one lesson each, in a subfolder of --output named after the file",
    )
    parser.add_argument("--output", type=Path, default=ROOT / "output", help="output folder (default: output/)")
    parser.add_argument(
        "--cluster",
        type=scheduler_address,
        metavar="ADDRESS",
        help="render on this Dask scheduler's workers (tcp://HOST:PORT) instead of here",
    )
    parser.add_argument("--force", action="store_true", help="render even the scenes already up to date")
    parser.add_argument("--format", choices=FORMATS, default="mp4", help="clip format (default: mp4)")
    parser.add_argument("--transparent", action="store_true", help="transparent background (mov or webm clips)")
    parser.add_argument("--slides", action="store_true", help="also the slide deck (slides/lesson.html and .pptx)")
    parser.add_argument(
        "--voice",
        choices=voices.VOICES,
        help="narration voice: hibari, piper (neural), espeak (robotic), none (silent); default: the first installed",
    )
    args = parser.parse_args(argv)
    if args.json and not args.list:
        parser.error("--json goes with --list")
    voice = "none" if args.format == "gif" else args.voice or voices.best_installed()
    if not voices.installed(voice):
        parser.error(f"--voice {voice}: that voice is not installed ({voices.install_hint(voice)})")
    output = args.output.resolve()
    lessons = lesson_examples(args.example)
    return Settings(
        scenes=tuple(args.scenes or ()),
        quality=args.quality,
        jobs=args.jobs,
        example=(lessons or [args.example[0]])[0].resolve(),
        output=output,
        force=args.force,
        # manim writes transparent clips as .mov (qtrle) when asked for mp4
        format="mov" if args.transparent and args.format == "mp4" else args.format,
        transparent=args.transparent,
        slides=args.slides,
        listing=args.list,
        as_json=args.json,
        voice=voice,
        voice_identity=identity(voice, output / ".cache" / "voice") if not args.list else "",
        cluster=args.cluster,
        lessons=tuple(path.resolve() for path in lessons),
    )


def lesson_examples(paths: list[Path]) -> list[Path]:
    """The examples of a many-lessons run (several files, or folders of .toml files); [] for one file."""
    if len(paths) == 1 and not paths[0].is_dir():
        return []
    files: list[Path] = []
    for path in paths:
        found = sorted(path.glob("*.toml")) if path.is_dir() else [path]
        if not found:
            raise UsageError(
                f"{path}: a directory with no .toml example files (--example takes a file or a folder of them)"
            )
        files += found
    stems = [file.stem for file in files]
    if twice := sorted({stem for stem in stems if stems.count(stem) > 1}):
        raise UsageError(f"--example: two files named {twice[0]}.toml would share the subfolder {twice[0]}/")
    return files


def positive_int(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return int(text)


def scheduler_address(text: str) -> str:
    if not re.fullmatch(r"((tcp|tls)://)?(\[[0-9A-Fa-f:]+\]|[^\s:/\[\]]+):\d{1,5}", text):
        raise argparse.ArgumentTypeError(f"expected a Dask scheduler's address like tcp://HOST:8786, got {text!r}")
    return text


def identity(voice: str, cache: Path) -> str:
    """The voice's identity; a voice that cannot tell it (a broken install) is a usage error."""
    try:
        return voices.identity(voice, cache)
    except (OSError, voices.VoiceError) as error:
        raise UsageError(f"--voice {voice}: {error}") from error
