"""One synthesizer for a whole local render, shared by its workers over a Unix socket.

A scene that starts its own synthesizer pays for loading the voice (about 0.7 s of CPU for hibari, more
for piper) before its first sentence; over a lesson of 48 scenes that was most of what a cold voiced render
cost beyond a silent one. The service loads once while the first scenes set up; a worker that cannot
reach it (a Dask worker on another machine, or a service that failed) starts its own as before.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

from scenes.narration.voice import NEURAL, SERVICE_ENV, model_file, synthesizer

from .settings import Settings


@contextmanager
def voice_service(settings: Settings, needed: bool) -> Iterator[dict[str, str]]:
    """The environment that points the workers at the service (empty when there is none to start)."""
    if not needed or settings.voice not in NEURAL or settings.cluster:
        yield {}
        return
    folder = tempfile.mkdtemp(prefix="voice-")  # a short path: a socket's may not pass 107 bytes
    address = f"{folder}/socket"
    service = synthesizer(settings.voice, model_file(settings.voice), address)
    try:
        yield {SERVICE_ENV: f"{settings.voice}:{address}"}
    finally:
        service.kill()
        service.wait()
        shutil.rmtree(folder, ignore_errors=True)
