"""The batch renderer behind ``python render.py``: one module per job.

``settings`` (the command line, read once into a frozen object), ``plan`` (which scenes, their
fingerprints, what is up to date), ``manifest`` (the typed ``manifest.json``), ``workers`` (the
processes that run manim), ``media`` (probing, thumbnails, the joined lesson), ``progress`` (the
display), ``run`` (the run itself, from settings to exit status), ``cluster`` (the same renders on a
Dask cluster, ``--cluster``) and ``lessons`` (one lesson per example file, ``--example a.toml b.toml``).
"""
