# The two commands of the README. Each does its own set-up: it creates (or reuses)
# the virtual environment .venv, installs the pinned requirements and the swingby
# package into it, then runs.
#
#   make book   execute every chapter and build the HTML book into _build/html
#   make test   lint and unit tests, then a strict book build that executes every chapter
#               once (a failing cell, such as a claim check, fails it), then the offline
#               check of that build (no page loads anything from outside it)
#
# Use another interpreter with: make PYTHON=python3.11 test

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
export PATH := $(abspath $(BIN)):$(PATH)

.PHONY: book test venv sync clean

venv: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt -e .
	touch $(STAMP)

book: $(STAMP)
	$(BIN)/jupyter-book build . --all --builder html

test: $(STAMP)
	$(BIN)/python -m pytest --ignore=tests/test_offline_html.py tests
	$(BIN)/jupyter-book build . --all --builder html -W -n --keep-going
	SWINGBY_HTML=_build/html $(BIN)/python -m pytest tests/test_offline_html.py

# After editing a chapter book/NAME.md, regenerate the paired notebooks.
sync: $(STAMP)
	$(BIN)/jupytext --sync book/*.md

clean:
	rm -rf _build .jupyter_cache
