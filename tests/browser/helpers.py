"""A small real lesson rendered once per test run, served on 127.0.0.1 and opened in Debian's Chromium."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from attention_math.example import ROOT as REPO

#: two cheap real scenes of the lesson, at low quality
SCENES = ("architecture", "dictionary-analogy")
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def render_lesson(output: Path) -> Path:
    """Render :data:`SCENES` with slides into ``output`` (a no-op when already done: render.py is incremental).

    What render.py printed is kept beside the folder, in ``<output>.stdout``.
    """
    command = [sys.executable, "render.py", "--scenes", *SCENES, "--quality", "low", "--jobs", "2",
               "--slides", "--output", str(output)]  # fmt: skip
    result = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"render.py failed:\n{result.stdout[-2000:]}\n{result.stderr[-3000:]}"
    output.with_name(f"{output.name}.stdout").write_text(result.stdout, encoding="utf-8")
    return output


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def static_server(folder: Path) -> Iterator[str]:
    """``python -m http.server`` on a free 127.0.0.1 port, serving ``folder``; yields its base URL."""
    port = free_port()
    command = [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(folder)]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the static server did not start"
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=10)


@contextmanager
def chromium() -> Iterator[object]:
    """Debian's Chromium, headless, through Playwright; fails (never skips) when it is not installed."""
    if not CHROMIUM.is_file():
        pytest.fail(f"Chromium is not installed at {CHROMIUM}: run `make setup` (Debian package chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()
