"""Safe writes in the output folder: atomic replacement, stamps that detect damage, the run's lock."""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .settings import UsageError

LOCK = ".render.lock"


def stamp(path: Path) -> list[int | str]:
    """Size and sha256 of a file we placed: a file cut short or overwritten on disk no longer matches."""
    with open(path, "rb") as file:
        return [os.fstat(file.fileno()).st_size, hashlib.file_digest(file, "sha256").hexdigest()]


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` under a temporary name, then move it into place; a failed write leaves no trace."""
    temporary = path.with_name(f".{path.name}.part")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


@contextmanager
def locked(output: Path) -> Iterator[None]:
    """Hold ``output``'s lock for the whole run; a second run on the same folder is refused."""
    handle = open(output / LOCK, "a+")  # noqa: SIM115 -- held until the run ends
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        owner = handle.read().strip() or "another process"
        handle.close()
        raise UsageError(
            f"{output} is being rendered by another render.py (pid {owner}); "
            "wait for it to finish or choose another --output"
        ) from None
    handle.truncate(0)
    handle.write(str(os.getpid()))
    handle.flush()
    try:
        yield
    finally:
        handle.close()


def describe(error: OSError) -> str:
    """``No space left on device: /out/x`` rather than ``[Errno 28] ...`` (for copytree: its first failure)."""
    if isinstance(error, shutil.Error) and error.args and isinstance(error.args[0], list):
        return re.sub(r"^\[Errno \d+\] ", "", str(error.args[0][0][-1]))
    where = f": {error.filename}" if error.filename else ""
    return f"{error.strerror or error}{where}"
