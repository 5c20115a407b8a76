"""Render the lesson: one manim process per scene, in parallel, skipping every scene already up to date.

Run ``python render.py --help``; the outputs and exit statuses are described in the README ("Rendering").
The work is done by the ``render`` package.
"""

import sys

from render.run import main

if __name__ == "__main__":
    sys.exit(main())
