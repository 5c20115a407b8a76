"""The batch renderer behind ``python render.py``: one module per job.

``settings`` (the command line, read once into a frozen object), ``plan`` (which scenes, their
fingerprints, what is up to date), ``manifest`` (the typed ``manifest.json``), ``workers`` (the
processes that run manim), ``media`` (probing, thumbnails, the joined lesson), ``progress`` (the
display) and ``run`` (the run itself, from settings to exit status).
"""
