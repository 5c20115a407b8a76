"""The piper voice as a separate process: ``python piper_process.py MODEL SETTINGS`` (SETTINGS: JSON, the
fields of piper's ``SynthesisConfig``).

Reads one JSON request per line, ``{"text": ..., "wav": ...}``, writes the WAV and answers
``ok`` (or the error) on its own line. The model loads once, so a scene's sentences share it.
"""

from __future__ import annotations

import json
import sys
import wave


def main(model: str, settings: str) -> None:
    from piper import PiperVoice
    from piper.config import SynthesisConfig

    voice = PiperVoice.load(model)
    config = SynthesisConfig(**json.loads(settings))
    for line in sys.stdin:
        request = json.loads(line)
        try:
            with wave.open(request["wav"], "wb") as audio:
                voice.synthesize_wav(request["text"], audio, syn_config=config)
            answer = "ok"
        except Exception as error:  # noqa: BLE001 - any failure is the caller's to report
            answer = f"{type(error).__name__}: {error}".replace("\n", " ")
        print(answer, flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
