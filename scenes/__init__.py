"""The lesson's scenes; ``scenes.lesson`` lists them in order (importing it never imports manim)."""
