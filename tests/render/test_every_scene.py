"""The lesson's scenes through manim's plain command (LaTeX, Cairo): the first scene of each chapter.

The last frame only (``-s``) at low quality: a full render of every scene is render.py's job and
takes minutes. The probe plays every scene and draws its last frame in process
(tests/scenes/test_scenes.py); this checks that scenes also render from ``manim render FILE SCENE``,
as the README says. That path (the module loaded from its file, manim's config, the frame saved) is
the same for every module, so one scene a chapter covers it (one of every module cost about four
minutes of the suite's CPU, for what the probe already checks of each).
"""

import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from attention_math.example import ROOT
from scenes.kit import palette
from scenes.lesson import LESSON


@pytest.fixture(scope="module")
def tex_cache(tmp_path_factory):
    """A manim.cfg whose TeX cache serves every scene of this worker: a formula compiles once."""
    folder = tmp_path_factory.mktemp("tex")
    (folder / "manim.cfg").write_text(f"[CLI]\ntex_dir = {folder / 'tex'}\n")  # manim tidies its TeX folder
    return folder / "manim.cfg"


ONE_PER_CHAPTER = [e for i, e in enumerate(LESSON) if e.chapter not in {f.chapter for f in LESSON[:i]}]


@pytest.mark.parametrize("entry", ONE_PER_CHAPTER, ids=[e.id for e in ONE_PER_CHAPTER])
def test_last_frame_renders_with_plain_manim(entry, tmp_path, tex_cache):
    flags = ["-ql", "-s", "--media_dir", str(tmp_path), "--config_file", str(tex_cache)]
    command = [sys.executable, "-m", "manim", "render", *flags, entry.file, entry.cls]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    (png,) = tmp_path.glob(f"images/**/{entry.cls}*.png")
    pixels = np.asarray(Image.open(png).convert("RGB"))
    assert pixels.shape == (480, 854, 3)
    background = np.array(palette.BACKGROUND.to_int_rgb())
    drawn = np.any(np.abs(pixels.astype(int) - background) > 24, axis=2)
    assert drawn.mean() > 0.005, "the last frame is (almost) empty"


pytestmark = [pytest.mark.render, pytest.mark.slow]  # every scene through manim
