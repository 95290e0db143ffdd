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
#   make records  execute every chapter with SWINGBY_RECORDS=write: store the status
#                 page's rows they compute (swingby/status_records/), after a change that
#                 moves a result; without it a chapter whose row moved fails
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

.PHONY: book test records stress venv sync clean

venv: $(STAMP)

# The .pyc files: this environment sets PYTHONDONTWRITEBYTECODE=1, under which every
# process compiles every module it imports again (all of torch, in every kernel). Here
# Python may write them (unexport below), and the set-up imports once what the tests, the
# chapters and the build use, so the processes that start side by side find those
# compiled, and a module first imported later is compiled once. That is about 2 200 of
# the 10 800 modules the environment holds, compiled in about 10 s of CPU; byte-compiling
# all of them (compileall -j 2, used before) took about 50 s of CPU. pip's own compiling
# (--no-compile) would do all of them on one core.
unexport PYTHONDONTWRITEBYTECODE
WARM := torch numpy scipy.stats scipy.optimize matplotlib.pyplot IPython ipykernel.kernelapp \
	ipywidgets tqdm yaml pytest xdist nbval jupytext nbclient jupyter_cache submitit \
	sphinx.application myst_nb jupyter_book.cli.main sphinx_book_theme sphinxcontrib.bibtex \
	sphinx_exercise swingby.diffusion.runs.cli swingby.capability.plots \
	swingby.diffusion.fig6.confirm swingby.open_questions.figures swingby.theory.figures \
	swingby.observations.plots swingby.sim.explorer

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --no-compile --disable-pip-version-check -r requirements.txt -e .
	$(BIN)/python -c "import importlib; [importlib.import_module(m) for m in '$(WARM)'.split()]"
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

# observations first: observations_variants builds its Fig. 2 and swing-by rows from the
# order and Fig. 3 rows that observations stores
records: $(STAMP)
	SWINGBY_RECORDS=write $(BIN)/python -m pytest --nbval-cell-timeout=$(CELL_TIMEOUT) book/observations.ipynb
	SWINGBY_RECORDS=write $(BIN)/python -m pytest -n $(JOBS) --dist loadfile \
	  --nbval-cell-timeout=$(CELL_TIMEOUT) $(filter-out book/observations.ipynb,$(wildcard book/*.ipynb))

stress: $(STAMP)
	$(BIN)/python tools/chapters.py stress --repeats 10

# After editing a chapter book/NAME.md, regenerate the paired notebooks.
sync: $(STAMP)
	$(BIN)/jupytext --sync book/*.md

clean:
	rm -rf _build .jupyter_cache
