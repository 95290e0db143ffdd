"""Executing the chapters without a person at them: once by nbval in ``make test``, and
the stress command.

1. **nbval executes each chapter once, and the book is built from those executions.**
   ``make test`` runs ``pytest book/*.ipynb`` (nbval, one test item per code cell, so a
   failing claim check fails with its chapter and cell named, e.g.
   ``book/capability.ipynb::Cell 12``). ``book/conftest.py`` registers :class:`CachePlugin`,
   which collects every cell's outputs and, when all cells of a chapter passed, stores
   the executed chapter in the jupyter-cache that the build reads
   (``execute_notebooks: cache`` in ``_config.yml``): the notebook is read from
   ``book/NAME.md`` exactly as MyST-NB reads it in the build, so the cache matches, and
   the match is checked at once. The strict build then takes every chapter from the
   cache; :func:`main` ``check-build-log`` fails ``make test`` if the build executed
   any chapter itself.

2. **The stress command** (``make stress``, not part of CI) executes chapters (by default
   every chapter with an explorer) several times in a row, each in a fresh kernel,
   through the client the build uses (``jupyter_cache``'s ``single_nb_execution``, i.e.
   nbclient), and prints for each run the slowest cell and whether any cell took more
   than a limit (60 s) or the run stalled (hit the timeout).

Both run in static mode (``SWINGBY_STATIC=1``, :mod:`swingby.live`) unless told otherwise.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import time
from datetime import datetime
from pathlib import Path

import nbformat
import pytest
import yaml
from filelock import FileLock

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
#: where MyST-NB keeps its cache when ``execute.cache`` is not set: beside ``_build/html``
CACHE = ROOT / "_build" / ".jupyter_cache"
#: the chapters that draw an explorer (the ones that used to stall a build)
EXPLORER_CHAPTERS = ("sim_task", "observations", "two_layer_theory", "diffusion", "capability")


def book_config() -> dict:
    """The book's ``_config.yml``."""
    return yaml.safe_load((ROOT / "_config.yml").read_text())


def read_chapter(md: Path) -> nbformat.NotebookNode:
    """Chapter ``book/NAME.md`` as a notebook, read the way MyST-NB reads it in the build
    (so that its jupyter-cache hash is the build's)."""
    from myst_nb.core.read import read_myst_markdown_notebook
    from myst_parser.config.main import MdParserConfig

    extensions = book_config().get("parse", {}).get("myst_enable_extensions", [])
    config = MdParserConfig(enable_extensions=set(extensions))
    return read_myst_markdown_notebook(md.read_text(encoding="utf-8"), config=config, add_source_map=True,
                                       path=str(md))


def store_executed(md: Path, outputs: dict[int, list], cache_path: Path = CACHE) -> int:
    """Store chapter ``md`` with the outputs of its code cells in the build's cache.

    Parameters
    ----------
    md : Path
        The chapter's MyST source ``book/NAME.md``.
    outputs : dict of int to list
        The outputs (nbformat output nodes) of every code cell, by code-cell index.
    cache_path : Path
        The jupyter-cache directory.

    Returns
    -------
    int
        The cache record's id.
    """
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    nb = read_chapter(md)
    code = [c for c in nb.cells if c.cell_type == "code"]
    if sorted(outputs) != list(range(len(code))):
        raise ValueError(f"{md.name}: outputs for code cells {sorted(outputs)} but the chapter has {len(code)} "
                         "code cells (is book/NAME.ipynb in sync with book/NAME.md? run `make sync`)")
    for n, cell in enumerate(code):
        cell.outputs = [nbformat.from_dict(dict(o)) for o in outputs[n]]
        cell.execution_count = n + 1
        for o in cell.outputs:
            if o.get("output_type") == "execute_result":
                o["execution_count"] = n + 1
    Path(cache_path).mkdir(parents=True, exist_ok=True)
    # nbval may run chapters in parallel (pytest-xdist): one writer of the cache at a time
    with FileLock(str(Path(cache_path).with_suffix(".lock"))):
        cache = get_cache(str(cache_path))
        record = cache.cache_notebook_bundle(CacheBundleIn(nb, str(md), data={"executed_by": "nbval"}),
                                             check_validity=False, overwrite=True)
        # the build must find it: the same reading of the .md, the same hash
        if cache.match_cache_notebook(read_chapter(md)).pk != record.pk:
            raise RuntimeError(f"{md.name}: the stored execution does not match the chapter as the build reads it")
    return record.pk


class CachePlugin:
    """pytest plugin: nbval's executions of ``book/NAME.ipynb`` go to the build's cache.

    Registered by ``book/conftest.py``; active when pytest runs chapter notebooks.
    """

    def __init__(self):
        self.outputs: dict[Path, dict[int, list]] = {}
        self.failed: set[Path] = set()
        self.n_cells: dict[Path, int] = {}

    def pytest_collection_modifyitems(self, items):
        for item in items:
            path = Path(str(item.fspath))
            if path.suffix == ".ipynb":
                self.n_cells[path] = self.n_cells.get(path, 0) + 1

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        if not outcome.get_result().passed:
            self.failed.add(Path(str(item.fspath)))

    def pytest_runtest_teardown(self, item):
        path, outs = Path(str(item.fspath)), getattr(item, "test_outputs", None)
        if path.suffix != ".ipynb" or outs is None:
            return
        self.outputs.setdefault(path, {})[item.cell_num] = list(outs)
        cells = self.outputs[path]
        if len(cells) == self.n_cells.get(path) and path not in self.failed:
            pk = store_executed(path.with_suffix(".md"), cells)
            print(f"\n{path.name}: executed by nbval, stored in the build's cache (record {pk})")


# ----------------------------------------------------------------------------- the build's log
def check_build_log(log: Path) -> int:
    """Fail (return 1) when the build log shows that the build executed a chapter itself
    instead of reading nbval's execution from the cache."""
    text = log.read_text(errors="replace")
    executed = sorted(set(re.findall(r"(\S+\.md): Executing notebook", text)))
    cached = len(re.findall(r"Using cached notebook", text))
    if executed:
        print(f"the build executed {executed} itself: nbval's executions were not found in the cache "
              f"({CACHE}); every chapter must be executed once, by nbval", file=sys.stderr)
        return 1
    print(f"the build read {cached} chapters from nbval's executions and executed none")
    return 0


# ----------------------------------------------------------------------------- the stress command
def execute_once(md: Path, timeout: int) -> tuple[float, float, int, str | None]:
    """Execute chapter ``md`` once in a fresh kernel through the build's client.

    Returns the run's seconds, the slowest cell's seconds, that cell's index and the
    error (``None`` when the run succeeded).
    """
    from jupyter_cache.executors.utils import single_nb_execution

    nb = read_chapter(md)
    result = single_nb_execution(nb, cwd=str(md.parent), timeout=timeout, allow_errors=False, record_timing=True)
    times = []
    for n, cell in enumerate(c for c in nb.cells if c.cell_type == "code"):
        ex = cell.metadata.get("execution", {})
        start, end = ex.get("iopub.execute_input"), ex.get("shell.execute_reply")
        if start and end:
            times.append(((_when(end) - _when(start)).total_seconds(), n))
    slowest, cell = max(times) if times else (float("nan"), -1)
    error = None if result.err is None else f"{type(result.err).__name__}: {str(result.err).splitlines()[0][:200]}"
    return result.time, slowest, cell, error


def _when(stamp: str) -> datetime:
    """A timestamp of nbclient's timing record (ISO 8601, ``Z`` for UTC)."""
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def stress(chapters, repeats: int, limit: float, timeout: int) -> dict:
    """Execute each chapter ``repeats`` times; print the slowest cell of every run and a
    summary; return the counts of runs that stalled (a cell hit the timeout), failed
    otherwise, or had a cell over ``limit`` seconds."""
    counts = {"stalled": 0, "failed": 0, "over": 0}
    print(f"SWINGBY_STATIC={os.environ.get('SWINGBY_STATIC', '')!r}; {repeats} runs per chapter, fresh kernel "
          f"each, cell limit {limit:g} s, timeout {timeout} s; load {os.getloadavg()[0]:.2f}", flush=True)
    for name in chapters:
        md = BOOK / f"{name}.md"
        worst = []
        for r in range(repeats):
            total, slowest, cell, error = execute_once(md, timeout)
            over = slowest > limit
            stalled = bool(error) and error.startswith(("CellTimeoutError", "TimeoutError", "DeadKernelError"))
            counts["stalled"] += stalled
            counts["failed"] += bool(error) and not stalled
            counts["over"] += over
            worst.append(slowest)
            print(f"{name:<20} run {r + 1:>2}: {total:6.1f} s, slowest cell {cell:>2} {slowest:6.1f} s"
                  f"{'  OVER LIMIT' if over else ''}{'  STALLED' if stalled else ''}{'  ' + error if error else ''}",
                  flush=True)
        print(f"{name:<20} slowest cell over {repeats} runs: {max(worst):.1f} s; "
              f"{sum(w > limit for w in worst)} over {limit:g} s", flush=True)
    print(f"{counts['stalled']} stalled run(s), {counts['failed']} failed run(s), {counts['over']} run(s) with a cell "
          f"over {limit:g} s; load {os.getloadavg()[0]:.2f}")
    return counts


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    st = sub.add_parser("stress", help="execute chapters repeatedly in fresh kernels, as the build does")
    st.add_argument("chapters", nargs="*", default=list(EXPLORER_CHAPTERS),
                    help=f"chapter names (default: those with an explorer: {' '.join(EXPLORER_CHAPTERS)})")
    st.add_argument("--repeats", type=int, default=10)
    st.add_argument("--limit", type=float, default=60.0, help="seconds a cell may take (default 60)")
    st.add_argument("--timeout", type=int, default=None,
                    help="seconds before a cell counts as stalled (default: execute.timeout of _config.yml)")
    st.add_argument("--live", action="store_true", help="live mode (widgets), to compare: unset SWINGBY_STATIC")
    lg = sub.add_parser("check-build-log", help="fail if the build executed a chapter instead of reading the cache")
    lg.add_argument("log", type=Path)
    args = ap.parse_args(argv)
    if args.command == "check-build-log":
        return check_build_log(args.log)
    if args.repeats < 1:
        ap.error(f"--repeats must be at least 1, got {args.repeats}")
    unknown = [c for c in args.chapters if not (BOOK / f"{c}.md").exists()]
    if unknown:
        ap.error(f"no chapter book/NAME.md for {unknown}")
    if args.live:
        os.environ.pop("SWINGBY_STATIC", None)
    else:
        os.environ["SWINGBY_STATIC"] = "1"
    timeout = args.timeout or int(book_config()["execute"]["timeout"])
    start = time.time()
    counts = stress(args.chapters, args.repeats, args.limit, timeout)
    print(f"total {time.time() - start:.0f} s")
    return 1 if any(counts.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
