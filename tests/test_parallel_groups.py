"""make test's parallel run keeps the tests that share a render in one worker (tests/conftest.py groups
them): each is rendered or played once, not once per worker."""

import re
import subprocess
import sys

from xdist.scheduler.loadgroup import LoadGroupScheduling

from attention_math.example import ROOT


def test_tests_sharing_a_scene_reach_xdist_as_one_group():
    command = [sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-v", "-p", "no:cacheprovider"]
    selection = [  # one scene's tests in two modules, and a test that probes a scene by its marker
        "tests/scenes/test_scenes.py",
        "tests/render/test_every_scene.py",
        "tests/scenes/test_meaning_and_first_example.py",
        "-k",
        "test_scene_exists and (architecture or quiz) or test_last_frame_renders_with_plain_manim and architecture"
        " or test_shift_meaning_says_where",
    ]
    result = subprocess.run([*command, *selection], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-2000:]
    ran = re.findall(r"PASSED (\S+)", result.stdout)
    assert len(ran) == 4, result.stdout[-2000:]
    # xdist's scheduler takes the group from the test id: a test id it cannot split runs alone
    groups = [LoadGroupScheduling._split_scope(None, nodeid) for nodeid in ran]  # type: ignore[arg-type]
    assert sorted(groups) == ["scene:architecture", "scene:architecture", "scene:meaning-shift", "scene:quiz"]
