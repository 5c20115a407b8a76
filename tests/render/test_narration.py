"""The narrated lesson: real voices, their cache, the sound track of every clip and of the lesson.

Rendered with the tiny scenes of conftest (each says one sentence), with the default voice, hibari.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import wave
from pathlib import Path

import numpy as np
import pytest
import srt

from scenes.narration.level import loudness as meter
from scenes.narration.spoken import spoken
from scenes.narration.voice import Speaker, VoiceError, read_line
from tests.conftest import GOOD, copy_repo, manifest, render

FRAME = 1 / 15  # low quality
TARGET_LUFS = -16.0


@pytest.fixture(scope="module")
def voiced(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = copy_repo(tmp_path_factory.mktemp("voiced"))
    result = render(repo, *GOOD, "--jobs", "2", voice="hibari")
    assert result.returncode == 0, result.stderr
    return repo


def streams(path: Path) -> dict[str, dict]:
    command = ["ffprobe", "-v", "error", "-show_entries", "stream=codec_type,codec_name,duration,sample_rate",
               "-of", "json", str(path)]  # fmt: skip
    found = json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)["streams"]
    return {s["codec_type"]: s for s in found}


def loudness(path: Path) -> tuple[float, float]:
    """Integrated loudness (LUFS) and true peak (dBTP), as ffmpeg's ebur128 filter measures them."""
    command = ["ffmpeg", "-nostats", "-i", str(path), "-af", "ebur128=peak=true", "-f", "null", "-"]
    summary = subprocess.run(command, capture_output=True, text=True).stderr.split("Summary:")[-1]
    integrated = float(re.search(r"I:\s+(-?[\d.]+) LUFS", summary).group(1))
    peak = float(re.search(r"Peak:\s+(-?[\d.]+) dBFS", summary).group(1))
    return integrated, peak


def recognized(wav: Path) -> list[str]:
    """The words pocketsphinx's US-English model hears in ``wav``, played at the clips' level (a sentence is
    made at -23 LUFS; its clip plays it 7 dB louder, at -16)."""
    from pocketsphinx import Decoder

    command = ["ffmpeg", "-v", "error", "-i", str(wav), "-af", "volume=7dB", "-ac", "1", "-ar", "16000", "-f", "s16le",
               "-"]  # fmt: skip
    pcm = subprocess.run(command, capture_output=True, check=True).stdout
    decoder = Decoder(samprate=16000, loglevel="FATAL")
    decoder.start_utt()
    decoder.process_raw(pcm, full_utt=True)
    decoder.end_utt()
    return decoder.hyp().hypstr.split() if decoder.hyp() else []


def test_every_clip_and_the_lesson_carry_narration_of_their_length(voiced: Path) -> None:
    out = voiced / "out"
    record = manifest(voiced)
    for scene in record["scenes"]:
        assert (scene["audio"], scene["voice"]) == (True, "hibari")
        found = streams(out / scene["file"])
        assert (found["audio"]["codec_name"], found["audio"]["sample_rate"]) == ("aac", "48000")
        assert float(found["audio"]["duration"]) == pytest.approx(scene["frames"] * FRAME, abs=FRAME)
    assert record["voice"].startswith("hibari hibari-tts==0.2.1 model:") and "level:-23.0 LUFS" in record["voice"]
    lesson = streams(out / "lesson.mp4")
    total = sum(scene["frames"] for scene in record["scenes"]) * FRAME
    assert float(lesson["audio"]["duration"]) == pytest.approx(total, abs=FRAME)


def test_subtitles_last_exactly_as_long_as_the_speech(voiced: Path) -> None:
    """Each cue is its sentence's speech (from the cache: the synthesizer never starts)."""
    out = voiced / "out"
    speaker = Speaker("hibari", out / ".cache" / "voice")
    for scene in manifest(voiced)["scenes"]:
        cues = list(srt.parse((out / scene["subtitles"]).read_text(encoding="utf-8")))
        assert len(cues) == 1
        speech = speaker.say(spoken(cues[0].content))
        assert (cues[0].end - cues[0].start).total_seconds() == pytest.approx(speech.seconds, abs=FRAME)
        assert scene["duration"] >= speech.seconds  # the clip ends after its last sentence
    assert speaker._process is None


@pytest.mark.parametrize("video", ["01-width.mp4", "lesson.mp4"])  # the lesson's sound is encoded a second time
def test_narration_is_levelled_for_speech(voiced: Path, video: str) -> None:
    integrated, peak = loudness(voiced / "out" / video)
    assert integrated == pytest.approx(TARGET_LUFS, abs=1.0)
    assert peak <= -1.0


def test_a_second_render_synthesizes_nothing(voiced: Path) -> None:
    cache = voiced / "out" / ".cache" / "voice"
    before = {p.name: p.stat().st_mtime_ns for p in cache.glob("*.wav")}
    assert len(before) == 2  # one sentence per tiny scene
    result = render(voiced, *GOOD, "--force", voice="hibari")
    assert result.returncode == 0, result.stderr
    assert {p.name: p.stat().st_mtime_ns for p in cache.glob("*.wav")} == before


def test_another_voice_renders_again_and_none_is_silent(voiced: Path) -> None:
    shutil.copytree(voiced / "out", voiced / "other", ignore=shutil.ignore_patterns(".render.lock"))
    for voice in ("piper", "espeak"):
        result = render(voiced, *GOOD, output="other", voice=voice)
        assert result.returncode == 0, result.stderr
        assert {s["status"] for s in manifest(voiced, "other")["scenes"]} == {"rendered"}
        assert {s["voice"] for s in manifest(voiced, "other")["scenes"]} == {voice}
    result = render(voiced, *GOOD, output="other", voice="none")
    assert result.returncode == 0, result.stderr
    for scene in manifest(voiced, "other")["scenes"]:
        assert (scene["status"], scene["audio"]) == ("rendered", False)
        assert "audio" not in streams(voiced / "other" / scene["file"])
    assert "audio" not in streams(voiced / "other" / "lesson.mp4")


def test_an_unknown_voice_is_a_usage_error(voiced: Path) -> None:
    result = render(voiced, *GOOD, output="nowhere", voice="robot")
    assert result.returncode == 2
    assert "--voice" in result.stderr and "hibari" in result.stderr and "Traceback" not in result.stderr
    assert not (voiced / "nowhere").exists()


SENTENCES = [
    "First divide every score by √d_k = 1.41, so scores stay in a gentle range.",
    "Divide each by the sum: the bars now add up to exactly 1. These are the attention weights.",
    "Over 4,000 random pairs, the variance of q dot k grows like d k itself.",
]


#: the share of SENTENCES' longer words pocketsphinx hears, at least (measured 0.93 for hibari, 0.79 for piper;
#: over the whole lesson 81 % and 68 %, docs/voice.md)
RECOGNIZED = {"hibari": 0.8, "piper": 0.65}


def hit_rate(speaker: Speaker) -> tuple[float, list[str]]:
    """The share of the longer words (four letters or more) of :data:`SENTENCES` that pocketsphinx hears."""
    heard, said = [], []
    for sentence in SENTENCES:
        said += [w for w in re.findall(r"[a-z]+", spoken(sentence).lower()) if len(w) >= 4]
        heard += recognized(speaker.say(spoken(sentence)).wav)
    return sum(word in heard for word in said) / len(said), heard


@pytest.mark.parametrize(("voice", "least"), [("hibari", RECOGNIZED["hibari"]), ("piper", RECOGNIZED["piper"])])
def test_a_recognizer_hears_the_neural_voices_numbers_included(tmp_path: Path, voice: str, least: float) -> None:
    rate, heard = hit_rate(Speaker(voice, tmp_path))
    assert rate >= least, heard
    assert "four" in heard and "thousand" in heard


@pytest.mark.parametrize("voice", ["hibari", "piper"])
def test_the_neural_voices_say_a_sentence_the_same_way_every_time(tmp_path: Path, voice: str) -> None:
    """Two synthesizer processes (two fresh caches): the same sound, so a scene renders to the same clip anywhere."""
    first, second = (Speaker(voice, tmp_path / cache).say(spoken(SENTENCES[0])) for cache in ("a", "b"))
    assert first.wav != second.wav and first.wav.read_bytes() == second.wav.read_bytes()


def test_every_sentence_is_levelled_to_one_loudness(tmp_path: Path) -> None:
    """Sentences of every voice within 1 LU of each other (ffmpeg's ebur128 measures), none clipped."""
    measured = []
    for voice in ("hibari", "piper", "espeak"):
        speaker = Speaker(voice, tmp_path / voice)
        for sentence in SENTENCES:
            wav = speaker.say(spoken(sentence)).wav
            measured.append(loudness(wav)[0])
            with wave.open(str(wav)) as audio:
                samples = np.frombuffer(audio.readframes(audio.getnframes()), "<i2")
            assert np.abs(samples.astype(int)).max() < 32767, f"{voice} clipped: {sentence}"
    assert max(measured) - min(measured) < 1.0, measured


def test_the_loudness_meter_agrees_with_ffmpeg(tmp_path: Path) -> None:
    """level.loudness (numpy) against a sine of known level and ffmpeg's ebur128 on speech at 24 and 22.05 kHz."""
    rate = 48000
    t = np.arange(3 * rate) / rate
    tone = 0.1 * np.sin(2 * np.pi * 997 * t)  # BS.1770's calibration: a full-scale 1 kHz sine is -3.01 LUFS
    assert meter(tone, rate) == pytest.approx(20 * np.log10(0.1) - 3.01, abs=0.1)
    for voice in ("hibari", "piper"):
        wav = Speaker(voice, tmp_path).say(spoken(SENTENCES[1])).wav
        with wave.open(str(wav)) as audio:
            samples = np.frombuffer(audio.readframes(audio.getnframes()), "<i2") / 32768.0
            rate = audio.getframerate()
        assert meter(samples, rate) == pytest.approx(loudness(wav)[0], abs=0.15)


def test_a_recognizer_hears_the_fallback_voice(tmp_path: Path) -> None:
    rate, heard = hit_rate(Speaker("espeak", tmp_path))  # robotic: pocketsphinx hears less of it
    assert rate >= 0.15, heard  # measured 0.17 at the clips' level (0.21 at -20 LUFS); silence: 0


def test_a_recognizer_hears_nothing_in_silence(tmp_path: Path) -> None:
    """The recognizer tests above can fail: silence gives (almost) no words."""
    silence = tmp_path / "silence.wav"
    with wave.open(str(silence), "wb") as audio:
        audio.setnchannels(1), audio.setsampwidth(2), audio.setframerate(22050)
        audio.writeframes(bytes(2 * 22050 * 3))
    assert len([w for w in recognized(silence) if len(w) >= 4]) <= 1


def test_a_synthesizer_that_fails_or_hangs_is_a_clear_error(tmp_path: Path) -> None:
    for voice in ("hibari", "piper"):
        broken = Speaker(voice, tmp_path, model=tmp_path / "missing.onnx")
        with pytest.raises(VoiceError, match=f"{voice} voice could not say 'hello'"):
            broken.say("hello")
    assert not list(tmp_path.glob("*.wav"))
    hung = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"], stdout=subprocess.PIPE, text=True)
    try:
        assert read_line(hung.stdout, 0.3) == ""
    finally:
        hung.kill()
        hung.wait()


pytestmark = pytest.mark.render  # renders through render.py or manim (pytest -m "not render" leaves it out)


@pytest.mark.parametrize("voice", ["hibari", "piper", "espeak"])
def test_the_voices_speak_at_a_learners_pace(tmp_path: Path, voice: str) -> None:
    """At most 150 written words per minute of speech, as the subtitles count them (182 for piper at its own
    pace): the lesson's own comparative sentences, numbers and names included."""
    from attention_math import DEFAULT_EXAMPLE, load_example
    from attention_math.claims import lesson_claims
    from attention_math.values import compute

    claims = lesson_claims(compute(load_example(DEFAULT_EXAMPLE)))
    sentences = [claim.text for made in claims.values() for claim in made][:8]
    speaker = Speaker(voice, tmp_path)
    seconds = sum(speaker.say(spoken(s)).seconds for s in sentences)
    words = sum(len(s.split()) for s in sentences)
    assert 110 <= 60 * words / seconds <= 150


def test_without_a_voice_a_sentence_lasts_as_long_as_the_default_voice_says_it(tmp_path: Path) -> None:
    """A silent lesson keeps the voiced lesson's pace and length: each subtitle shows as long as hibari takes
    to say it (within a third, and within 10 % over the sentences), so it too runs at a learner's pace."""
    from attention_math import DEFAULT_EXAMPLE, load_example
    from attention_math.claims import lesson_claims
    from attention_math.values import compute
    from scenes.kit.base import SECONDS_PER_SPOKEN_CHARACTER

    claims = lesson_claims(compute(load_example(DEFAULT_EXAMPLE)))
    sentences = [spoken(claim.text) for made in claims.values() for claim in made][:12]
    speaker = Speaker("hibari", tmp_path)
    said = np.array([speaker.say(s).seconds for s in sentences])
    silent = np.array([len(s) * SECONDS_PER_SPOKEN_CHARACTER for s in sentences])
    assert np.all(np.abs(silent / said - 1) < 1 / 3)
    assert abs(silent.sum() / said.sum() - 1) < 0.1


def test_the_shared_service_says_a_sentence_as_a_scenes_own_synthesizer_does(tmp_path: Path, monkeypatch) -> None:
    """render.py's one synthesizer for all workers (a Unix socket) gives the same samples as a scene's own,
    and a speaker that cannot reach it starts its own."""
    from scenes.narration.voice import SERVICE_ENV, model_file, synthesizer

    own = Speaker("hibari", tmp_path / "own").say(spoken(SENTENCES[2]))
    address = str(tmp_path / "socket")
    service = synthesizer("hibari", model_file("hibari"), address)
    try:
        monkeypatch.setenv(SERVICE_ENV, f"hibari:{address}")
        speaker = Speaker("hibari", tmp_path / "shared")
        shared = speaker.say(spoken(SENTENCES[2]))
        assert speaker._process is None and shared.wav.read_bytes() == own.wav.read_bytes()
        speaker.close()
    finally:
        service.kill()
        service.wait()
    monkeypatch.setenv(SERVICE_ENV, f"hibari:{tmp_path / 'gone' / 'socket'}")  # no service: a scene's own, at once
    alone = Speaker("hibari", tmp_path / "alone")
    assert alone.say(spoken(SENTENCES[0])).seconds > 0 and alone._process is not None
    alone.close()
