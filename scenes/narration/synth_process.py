"""A neural voice as a separate process: ``python synth_process.py ENGINE MODEL SETTINGS [SOCKET]`` (ENGINE:
piper or hibari; SETTINGS: JSON, the engine's synthesis settings).

Reads one JSON request per line, ``{"text": ..., "wav": ...}``, writes the WAV and answers ``ok`` (or the
error) on its own line: on its standard input and output (a scene's own synthesizer), or, given SOCKET, on
each connection to that Unix socket (render.py's one synthesizer for all its workers). piper-tts is GPL-3.0: the
project only talks to it through this pipe; hibari runs here too, so both fail and time out alike.
"""

from __future__ import annotations

import json
import signal
import socketserver
import sys
import threading
import wave
from collections.abc import Callable
from typing import Any


def piper(model: str, settings: dict[str, Any]) -> Callable[[str, str], None]:
    from piper import PiperVoice
    from piper.config import SynthesisConfig

    voice, config = PiperVoice.load(model), SynthesisConfig(**settings)

    def say(text: str, path: str) -> None:
        with wave.open(path, "wb") as audio:
            voice.synthesize_wav(text, audio, syn_config=config)

    return say


def hibari(model: str, settings: dict[str, Any]) -> Callable[[str, str], None]:
    import numpy as np
    from hibari import Hibari

    tts = Hibari(model=model, threads=1)
    pause = np.zeros(round(settings["pause"] * tts.sample_rate), np.float32)

    def say(text: str, path: str) -> None:
        # hibari's own join runs sentences together: a sentence pause between them, as a reader makes.
        parts = list(tts.stream(text, speed=settings["speed"], seed=settings["seed"]))
        joined = np.concatenate([x for part in parts for x in (pause, part)][1:]) if parts else pause
        pcm = (np.clip(joined, -1.0, 1.0) * 32767.0).astype("<i2")
        with wave.open(path, "wb") as audio:
            audio.setnchannels(1), audio.setsampwidth(2), audio.setframerate(tts.sample_rate)
            audio.writeframes(pcm.tobytes())

    return say


def answer(say: Callable[[str, str], None], line: str) -> str:
    """One request line, ``{"text": ..., "wav": ...}``: ``ok`` once the WAV is written, else the error."""
    request = json.loads(line)
    try:
        say(request["text"], request["wav"])
        return "ok"
    except Exception as error:  # noqa: BLE001 - any failure is the caller's to report
        return f"{type(error).__name__}: {error}".replace("\n", " ")


def serve(say: Callable[[str, str], None], address: str) -> None:
    """The same lines over a Unix socket, for every scene of a render at once: the model loads once per run,
    not once per scene. One sentence at a time (the model is one)."""
    lock = threading.Lock()

    class Handler(socketserver.StreamRequestHandler):
        def handle(self) -> None:
            for line in self.rfile:
                with lock:
                    reply = answer(say, line.decode())
                self.wfile.write(f"{reply}\n".encode())

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is render.py's: it closes our input when it ends
    server = socketserver.ThreadingUnixStreamServer(address, Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()  # until render.py ends, however it ends (even killed: its end of the pipe closes)


def main(engine: str, model: str, settings: str, address: str | None = None) -> None:
    say = {"piper": piper, "hibari": hibari}[engine](model, json.loads(settings))
    if address:
        return serve(say, address)
    for line in sys.stdin:
        print(answer(say, line), flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:5])
