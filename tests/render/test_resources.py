"""A full or read-only output folder fails clearly and keeps what was rendered: real filesystems (tmpfs mounts).

The conditions are real: a tmpfs of a few megabytes filled to the last byte, and one remounted read-only
(which stops root too, unlike chmod). Where a filesystem cannot be mounted, the tests fail, never pass.
"""

from __future__ import annotations

import errno
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import GOOD, render, statuses, tree_digest

SIZE = "24m"


def mount(*args: str) -> None:
    result = subprocess.run(["mount", *args], capture_output=True, text=True)
    if result.returncode:
        pytest.fail(f"cannot create the condition under test (mount {' '.join(args)}): {result.stderr.strip()}")


@pytest.fixture
def small_disk(repo: Path) -> Iterator[Path]:
    """A fresh tmpfs of a few megabytes at ``repo/disk``, holding the scene ``width`` rendered."""
    disk = repo / "disk"
    disk.mkdir(exist_ok=True)
    mount("-t", "tmpfs", "-o", f"size={SIZE}", "tmpfs", str(disk))
    try:
        result = render(repo, "--scenes", "width", output="disk")
        assert result.returncode == 0, result.stderr
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=True)


def fill(disk: Path) -> Path:
    """Fill ``disk`` to the last byte; return the filler file."""
    filler = disk / "filler"
    with open(filler, "wb", buffering=0) as file:
        for chunk in (1 << 20, 4096, 1):
            try:
                while True:
                    file.write(b"\0" * chunk)
            except OSError as error:
                assert error.errno == errno.ENOSPC, error
    return filler


def kept(folder: Path) -> dict[str, str]:
    """The user's files: everything but render.py's lock (it holds the pid of the last run)."""
    return {name: digest for name, digest in tree_digest(folder).items() if name != ".render.lock"}


def assert_clear_failure(result: subprocess.CompletedProcess, folder: Path, reason: str) -> None:
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith(f"error: cannot write the outputs in {folder}: {reason}"), result.stderr


def test_full_disk_fails_clearly_keeps_earlier_outputs_and_the_next_run_finishes(repo, small_disk):
    filler = fill(small_disk)
    before = kept(small_disk)
    result = render(repo, *GOOD, output="disk")
    assert_clear_failure(result, small_disk, "No space left on device")
    assert kept(small_disk) == before
    filler.unlink()
    result = render(repo, *GOOD, output="disk")
    assert result.returncode == 0, result.stderr
    assert statuses(repo, "disk") == {"width": "skipped", "scaling": "rendered"}


def test_read_only_folder_fails_clearly_and_changes_nothing(repo, small_disk):
    before = kept(small_disk)
    mount("-o", "remount,ro", str(small_disk))
    with pytest.raises(OSError) as refused:
        (small_disk / "probe").write_text("root can write here: the folder is not read-only")
    assert refused.value.errno == errno.EROFS
    result = render(repo, *GOOD, output="disk")
    assert_clear_failure(result, small_disk, "Read-only file system")
    assert kept(small_disk) == before


def test_output_below_a_read_only_folder_fails_clearly(repo, small_disk):
    mount("-o", "remount,ro", str(small_disk))
    result = render(repo, *GOOD, output="disk/new")
    assert_clear_failure(result, small_disk / "new", "Read-only file system")


pytestmark = pytest.mark.render  # renders through render.py or manim (pytest -m "not render" leaves it out)
