"""make test's parallel run keeps the tests that share a render in one worker (tests/conftest.py groups
them): each is rendered or played once, not once per worker."""

import re
import subprocess
import sys

from xdist.scheduler.loadgroup import LoadGroupScheduling

from attention_math.example import ROOT


def test_tests_sharing_a_scene_reach_xdist_as_one_group():
    command = [sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-v", "-p", "no:cacheprovider"]
    selection = ["tests/scenes/test_scenes.py", "-k", "test_scene_exists and (cat-sat or quiz)"]
    result = subprocess.run([*command, *selection], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout[-2000:]
    ran = re.findall(r"PASSED (\S+)", result.stdout)
    assert len(ran) == 2, result.stdout[-2000:]
    # xdist's scheduler takes the group from the test id: a test id it cannot split runs alone
    groups = {LoadGroupScheduling._split_scope(None, nodeid) for nodeid in ran}  # type: ignore[arg-type]
    assert groups == {"tests/scenes/test_scenes.py:cat-sat", "tests/scenes/test_scenes.py:quiz"}
