"""Every sentence at one loudness: EBU R128 / ITU-R BS.1770 integrated loudness of a mono WAV, and the gain to
a target, applied before the clip's track is built (so sentences differ by well under 1 LU, where peak
normalisation left them about 3 dB apart). numpy and scipy; checked against ffmpeg's ebur128 in the tests.
"""

from __future__ import annotations

import math
import wave
from pathlib import Path

import numpy as np

SENTENCE_LUFS = -23.0  # each sentence; the clip is raised to -16 LUFS with a limiter afterwards (render/soundtrack)
BLOCK, STEP = 0.4, 0.1  # seconds: BS.1770's gating blocks, overlapping by 75 %


def biquad(kind: str, rate: int, fc: float, q: float, gain_db: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """The K-weighting's two stages (a high shelf, a high pass), from the audio EQ cookbook at any sample rate."""
    w0 = 2 * math.pi * fc / rate
    alpha, cos = math.sin(w0) / (2 * q), math.cos(w0)
    if kind == "shelf":
        a = 10 ** (gain_db / 40)
        root = 2 * math.sqrt(a) * alpha
        b = [
            a * ((a + 1) + (a - 1) * cos + root),
            -2 * a * ((a - 1) + (a + 1) * cos),
            a * ((a + 1) + (a - 1) * cos - root),
        ]
        den = [(a + 1) - (a - 1) * cos + root, 2 * ((a - 1) - (a + 1) * cos), (a + 1) - (a - 1) * cos - root]
    else:
        b = [(1 + cos) / 2, -(1 + cos), (1 + cos) / 2]
        den = [1 + alpha, -2 * cos, 1 - alpha]
    return np.array(b) / den[0], np.array(den) / den[0]


def loudness(samples: np.ndarray, rate: int) -> float | None:
    """Integrated loudness in LUFS of mono ``samples`` (floats in [-1, 1]); ``None`` when too short or silent."""
    from scipy.signal import lfilter  # here, not at the top: it takes 0.6 s to import, and most runs never level

    weighted = lfilter(*biquad("shelf", rate, 1500.0, 1 / math.sqrt(2), 4.0), samples)
    weighted = lfilter(*biquad("pass", rate, 38.0, 0.5), weighted)
    size, step = round(BLOCK * rate), round(STEP * rate)
    if len(weighted) < size:
        return None
    squares = np.concatenate(([0.0], np.cumsum(weighted**2)))
    starts = np.arange(0, len(weighted) - size + 1, step)
    power = (squares[starts + size] - squares[starts]) / size
    power = power[power > 10 ** ((-70 + 0.691) / 10)]  # the absolute gate, -70 LUFS
    if not len(power):
        return None
    relative = -0.691 + 10 * math.log10(power.mean()) - 10  # the relative gate, 10 LU under the ungated mean
    kept = power[-0.691 + 10 * np.log10(power) > relative]
    return -0.691 + 10 * math.log10(kept.mean())


def read(wav: Path) -> tuple[np.ndarray, int]:
    """A 16-bit mono WAV's samples, as floats in [-1, 1], and its sample rate."""
    with wave.open(str(wav)) as audio:
        return np.frombuffer(audio.readframes(audio.getnframes()), "<i2") / 32768.0, audio.getframerate()


def write(wav: Path, samples: np.ndarray, rate: int) -> None:
    """``samples`` (floats, clipped to [-1, 1)) as a 16-bit mono WAV."""
    scaled = np.clip(samples, -1.0, 32767 / 32768) * 32768.0
    with wave.open(str(wav), "wb") as audio:
        audio.setnchannels(1)
        audio.setsampwidth(2)
        audio.setframerate(rate)
        audio.writeframes(np.round(scaled).astype("<i2").tobytes())


def resampled(samples: np.ndarray, rate: int, to: int) -> np.ndarray:
    from scipy.signal import resample_poly

    return samples if rate == to else resample_poly(samples, to, rate)


def level(wav: Path, target: float = SENTENCE_LUFS) -> None:
    """Scale a 16-bit mono WAV in place to ``target`` LUFS (left as it is when it has no measurable loudness)."""
    samples, rate = read(wav)
    measured = loudness(samples, rate)
    if measured is not None:
        write(wav, samples * 10 ** ((target - measured) / 20), rate)
