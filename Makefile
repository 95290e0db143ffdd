# The two commands of the README. Each does its own set-up: it creates (or reuses)
# the virtual environment .venv, installs the pinned requirements and the swingby
# package into it, then runs.
#
#   make book   execute every chapter and build the HTML book into _build/html
#   make test   lint and unit tests, and beside them nbval executes every chapter once (a
#               failing cell, such as a claim check, fails it, naming the chapter and the
#               cell) and stores each execution in the build's cache; then a strict build
#               from those executions (it must execute nothing itself); then the
#               offline check of that build (no page loads anything from outside it)
#
# Both execute the chapters in static mode (SWINGBY_STATIC=1, swingby/live.py): the
# explorers draw their default view as a plain image and create no widget, and no
# progress bar is drawn. In Jupyter or Colab, without the variable, they are live.
#
#   make stress   (not part of CI) execute every chapter with an explorer 10 times in
#                 fresh kernels through the build's client; print the slowest cells
#
# Use another interpreter with: make PYTHON=python3.11 test

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
CACHE  := _build/.jupyter_cache
# seconds a cell may run before nbval fails it (the build's own limit is execute.timeout)
CELL_TIMEOUT := 300
# pytest-xdist workers: the unit tests and the chapters run two at a time (each chapter
# whole in one worker, --dist loadfile); torch uses one thread per process
JOBS := 2
export PATH := $(abspath $(BIN)):$(PATH)
export SWINGBY_STATIC := 1
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c

.PHONY: book test stress venv sync clean

venv: $(STAMP)

# pip's own byte-compiling of every installed module (all of torch) runs on one core;
# compileall -j 2 does the same work on two (fresh set-up measured: 132 s -> 86 s). The
# .pyc files matter: this environment sets PYTHONDONTWRITEBYTECODE=1, so a module left
# uncompiled is compiled again by every process that imports it. The one excluded file
# is Python 3.12 syntax that pip skips as well.
$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --no-compile --disable-pip-version-check -r requirements.txt -e .
	$(BIN)/python -m compileall -q -j 2 -x py312_intrinsics $(VENV)/lib > /dev/null
	touch $(STAMP)

book: $(STAMP)
	rm -rf $(CACHE)
	$(BIN)/jupyter-book build . --all --builder html

# The unit tests and nbval's run of the chapters go side by side (about 30 s sooner than
# one after the other on 2 cores); the unit tests' report is printed when both are done.
test: $(STAMP)
	rm -rf $(CACHE) && mkdir -p _build
	( $(BIN)/python -m pytest -n $(JOBS) --ignore=tests/test_offline_html.py tests > _build/unit-tests.log 2>&1; \
	  echo $$? > _build/unit-tests.rc ) & \
	$(BIN)/python -m pytest -n $(JOBS) --dist loadfile --nbval-cell-timeout=$(CELL_TIMEOUT) book/*.ipynb; \
	chapters=$$?; wait; echo "--- unit tests (_build/unit-tests.log) ---"; cat _build/unit-tests.log; \
	test $$chapters -eq 0 && test "$$(cat _build/unit-tests.rc)" -eq 0
	$(BIN)/jupyter-book build . --all --builder html -W -n --keep-going 2>&1 | tee _build/build.log
	$(BIN)/python tools/chapters.py check-build-log _build/build.log
	SWINGBY_HTML=_build/html $(BIN)/python -m pytest tests/test_offline_html.py

stress: $(STAMP)
	$(BIN)/python tools/chapters.py stress --repeats 10

# After editing a chapter book/NAME.md, regenerate the paired notebooks.
sync: $(STAMP)
	$(BIN)/jupytext --sync book/*.md

clean:
	rm -rf _build .jupyter_cache
