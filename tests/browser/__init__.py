"""Helpers for the browser and slide tests: a rendered lesson, a local static server, headless Chromium."""
