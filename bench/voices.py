"""The neural voices compared over a whole rendered lesson (docs/voice.md's table):

    .venv/bin/python bench/voices.py OUTPUT [--voices hibari piper espeak] [--every N]

For every subtitle of OUTPUT's clips (any rendered lesson; its voice does not matter), each voice says the
sentence's spoken form into a fresh cache. Per voice: synthesis time per second of speech and model load;
the loudness spread of the raw sentences (before levelling) and after; clipped sentences; words per minute;
and the share of the sentences' longer words (four letters or more) that pocketsphinx hears, at the clips'
level. Then how each voice spells the lesson's own vocabulary (hibari's G2P; espeak-ng's, which piper uses).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import srt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scenes.narration.level import level, loudness, read  # noqa: E402
from scenes.narration.spoken import spoken  # noqa: E402
from scenes.narration.voice import Speaker  # noqa: E402
from tests.render.test_narration import recognized  # noqa: E402 (the tests' recognizer, at the clips' level)

VOCABULARY = ("softmax", "Transformer", "MiniLM", "d k", "Q K transpose", "embeddings", "logits", "cosine",
              "apple phones", "R N N", "sigmoid", "W O", "the square root of d k", "e to the x")  # fmt: skip


def measure(voice: str, sentences: list[str], work: Path) -> dict[str, float]:
    speaker = Speaker(voice, work)
    started = time.perf_counter()
    speaker.synthesize("Warm up.", work / "warm.wav")  # the model's load, apart from synthesis
    load = time.perf_counter() - started
    raw, levelled, speech, synthesis, clipped, said, heard = [], [], 0.0, 0.0, 0, 0, 0
    for i, text in enumerate(sentences):
        wav = work / f"{i}.wav"
        started = time.perf_counter()
        speaker.synthesize(spoken(text), wav)
        synthesis += time.perf_counter() - started
        audio, rate = read(wav)
        speech += len(audio) / rate
        clipped += bool(np.abs(audio).max() >= 32767 / 32768)
        raw.append(loudness(audio, rate))
        level(wav)
        levelled.append(loudness(*read(wav)))
        words = [w for w in re.findall(r"[a-z]+", spoken(text).lower()) if len(w) >= 4]
        hits = recognized(wav)
        said, heard = said + len(words), heard + sum(w in hits for w in words)
    speaker.close()
    spread = [float(np.ptp([x for x in values if x is not None])) for values in (raw, levelled)]
    return {"heard": heard / said, "wpm": 60 * sum(len(t.split()) for t in sentences) / speech, "speech": speech,
            "per_second": synthesis / speech, "load": load, "raw_spread": spread[0], "spread": spread[1],
            "clipped": clipped}  # fmt: skip


def spellings(voice: str) -> list[str]:
    if voice == "hibari":
        from hibari import Hibari

        return [" ".join(Hibari().phonemize(word)) for word in VOCABULARY]
    command = ["espeak-ng", "-q", "--ipa", "-v", "en-us"]
    return [subprocess.run([*command, word], capture_output=True, text=True).stdout.strip() for word in VOCABULARY]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("output", type=Path, help="a rendered lesson's folder (its .srt files)")
    parser.add_argument("--voices", nargs="+", default=["hibari", "piper", "espeak"])
    parser.add_argument("--every", type=int, default=1, help="every Nth sentence only (a quicker look)")
    args = parser.parse_args()
    clips = sorted(args.output.glob("[0-9]*-*.srt"))
    sentences = [c.content.replace("\n", " ") for clip in clips for c in srt.parse(clip.read_text())][:: args.every]
    print(f"{len(sentences)} sentences of {len(clips)} clips\n")
    print("| voice | longer words heard | words per minute | synthesis s per s of speech | load s | "
          "raw spread LU | levelled spread LU | clipped |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for voice in args.voices:
        with tempfile.TemporaryDirectory() as work:
            m = measure(voice, sentences, Path(work))
        print(f"| {voice} | {m['heard']:.1%} | {m['wpm']:.0f} | {m['per_second']:.4f} | {m['load']:.2f} | "
              f"{m['raw_spread']:.1f} | {m['spread']:.2f} | {m['clipped']:.0f} |", flush=True)  # fmt: skip
    print("\n| word | " + " | ".join(v for v in args.voices if v != "piper") + " |")
    print("|---|" + "---|" * len([v for v in args.voices if v != "piper"]))
    columns = [spellings(v) for v in args.voices if v != "piper"]  # piper speaks espeak-ng's phonemes
    for i, word in enumerate(VOCABULARY):
        print(f"| {word} | " + " | ".join(c[i] for c in columns) + " |")


if __name__ == "__main__":
    main()
