"""Checks of the book's own rules: paired notebooks in sync and without outputs,
every chapter in the table of contents, chapters executed in static mode and once by nbval, figures numbered per
chapter, and bookkeeping cells (glue and asserts) folded in the HTML."""
import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import jupytext
import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
NOTEBOOK_CHAPTERS = sorted(p for p in BOOK.glob("*.md") if "jupytext:" in p.read_text()[:800])


def _cells(nb):
    return [(c.cell_type, c.source.strip(), sorted(c.metadata.get("tags", []))) for c in nb.cells]


def test_there_are_notebook_chapters():
    assert len(NOTEBOOK_CHAPTERS) >= 1


@pytest.mark.parametrize("md", NOTEBOOK_CHAPTERS, ids=lambda p: p.name)
def test_md_and_ipynb_in_sync(md):
    nb_path = md.with_suffix(".ipynb")
    assert nb_path.exists(), f"{md.name} has no paired notebook: run `jupytext --sync {md}`"
    from_md, from_nb = jupytext.read(md), jupytext.read(nb_path)
    assert _cells(from_md) == _cells(from_nb), (
        f"{md.name} and {nb_path.name} differ: edit the .md, then `jupytext --sync {md}`"
    )


@pytest.mark.parametrize("md", NOTEBOOK_CHAPTERS, ids=lambda p: p.name)
def test_committed_notebooks_have_no_outputs(md):
    raw = json.loads(md.with_suffix(".ipynb").read_text())
    for cell in raw["cells"]:
        if cell["cell_type"] == "code":
            assert not cell.get("outputs") and cell.get("execution_count") is None, (
                f"{md.with_suffix('.ipynb').name} carries outputs"
            )


def test_every_chapter_is_in_the_toc():
    toc = (ROOT / "_toc.yml").read_text()
    for md in BOOK.glob("*.md"):
        assert f"book/{md.stem}" in toc, f"{md.name} is not in _toc.yml"


def test_chapters_are_executed_in_static_mode():
    """The Makefile and .ci/run export SWINGBY_STATIC=1, so that chapters executed by
    nbval, the build and the stress command draw no widget and no progress bar; CI runs
    with it (a sentinel)."""
    assert re.search(r"^export SWINGBY_STATIC := 1$", (ROOT / "Makefile").read_text(), re.M)
    assert "export SWINGBY_STATIC=1" in (ROOT / ".ci" / "run").read_text()
    if os.environ.get("CI"):
        assert os.environ.get("SWINGBY_STATIC") == "1", "CI is set but SWINGBY_STATIC is not 1"


def test_chapter_setup_sets_the_style_and_threads():
    import matplotlib.pyplot as plt
    import torch

    from swingby.chapter import setup
    assert setup(grid=False) is None and not plt.rcParams["axes.grid"]
    setup()
    assert plt.rcParams["axes.grid"] and torch.get_num_threads() == 1
    with pytest.raises(ValueError, match="threads"):
        setup(threads=0)
    with pytest.raises(ValueError, match="grid"):
        setup(grid="yes")


def _recipe(target: str) -> str:
    return (ROOT / "Makefile").read_text().split(f"\n{target}:")[1].split("\n\n")[0]


def test_each_chapter_is_executed_once_by_nbval_and_the_build_reads_it():
    """`make test`: nbval executes every chapter once, with a cell timeout, and stores the
    executions in the cache the build reads; the strict build must execute nothing
    itself (its log is checked); a failing cell fails the run."""
    import yaml
    cfg = yaml.safe_load((ROOT / "_config.yml").read_text())
    ex = cfg["execute"]
    assert ex["execute_notebooks"] == "cache" and ex["allow_errors"] is False and 60 <= ex["timeout"] <= 600
    assert ex["show_tb"] is True  # a failure or timeout in `make book` names the chapter and shows the cell
    assert cfg["sphinx"]["config"]["nb_execution_raise_on_error"] is True
    test = _recipe("test")
    nbval = re.search(r"pytest -n \$\(JOBS\) --dist loadfile --nbval-cell-timeout=\$\(CELL_TIMEOUT\) book/\*\.ipynb",
                      test)
    build = test.index("jupyter-book build . --all --builder html -W -n")
    assert nbval and test.index("rm -rf $(CACHE)") < nbval.start() < build < test.index("check-build-log")
    assert "pytest -n $(JOBS) --ignore=tests/test_offline_html.py tests" in test  # the unit tests, beside nbval
    assert test.index("_build/unit-tests.rc") < build  # both must pass before the build
    timeout = int(re.search(r"^CELL_TIMEOUT := (\d+)$", (ROOT / "Makefile").read_text(), re.M).group(1))
    assert 60 <= timeout <= 600
    assert "rm -rf $(CACHE)" in _recipe("book")  # readers' builds execute afresh
    assert (ROOT / "book" / "conftest.py").exists()


def test_the_build_log_check_catches_an_execution(tmp_path):
    sys.path.insert(0, str(ROOT / "tools"))
    import chapters
    log = tmp_path / "build.log"
    log.write_text("book/sim_task.md: Using cached notebook: ID=1 [mystnb]\n")
    assert chapters.check_build_log(log) == 0
    log.write_text("book/sim_task.md: Executing notebook using local CWD [mystnb]\n")
    assert chapters.check_build_log(log) == 1


def test_an_execution_stored_by_nbval_matches_the_chapter_as_the_build_reads_it(tmp_path):
    sys.path.insert(0, str(ROOT / "tools"))
    import chapters
    from jupyter_cache import get_cache
    md = tmp_path / "tiny.md"
    md.write_text((BOOK / "ood_checks.md").read_text())
    n_code = sum(c.cell_type == "code" for c in chapters.read_chapter(md).cells)
    outputs = {n: [nbformat.v4.new_output("stream", name="stdout", text=f"cell {n}\n")] for n in range(n_code)}
    pk = chapters.store_executed(md, outputs, cache_path=tmp_path / "cache")
    cache = get_cache(str(tmp_path / "cache"))
    record = cache.match_cache_notebook(chapters.read_chapter(md))
    assert record.pk == pk
    _, merged = cache.merge_match_into_notebook(chapters.read_chapter(md))
    assert [c.outputs[0]["text"] for c in merged.cells if c.cell_type == "code"] == \
        [f"cell {n}\n" for n in range(n_code)]
    with pytest.raises(ValueError, match="in sync"):
        chapters.store_executed(md, {0: []}, cache_path=tmp_path / "cache")


NBVAL_CASES = {
    "a failing claim check": ("assert 1 + 1 == 3, 'the claim does not hold'", "Cell 1", "the claim does not hold"),
    "a stalled cell": ("import time\ntime.sleep(60)", "Cell 1", "Timeout of 2 seconds exceeded"),
}


@pytest.mark.parametrize("code, cell, message", NBVAL_CASES.values(), ids=NBVAL_CASES.keys())
def test_nbval_fails_a_chapter_naming_it_and_the_cell(tmp_path, code, cell, message):
    """As `make test` runs it: a failing cell (or one past the cell timeout) fails, and
    the report names the notebook and the cell; nothing is stored for the build."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1"), nbformat.v4.new_code_cell(code)])
    path = tmp_path / "chapter.ipynb"
    nbformat.write(nb, path)
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--nbval-lax",
                          "--nbval-current-env", "--nbval-cell-timeout=2", "-q", str(path)],
                         cwd=tmp_path, capture_output=True, text=True, timeout=240)
    out = run.stdout + run.stderr
    assert run.returncode != 0, out
    assert f"chapter.ipynb::{cell}" in out and message in out, out[-2000:]


def test_figures_are_numbered_per_chapter():
    """The book's own figures read "Figure <chapter>.<k>" so that they are never taken
    for the paper's figure numbers ("the paper's Fig. 19" in prose): the content parts
    of the toc are numbered (continuously across parts by sphinx-multitoc-numbering,
    which must stay on), "About this book" is not, and numbers carry one level of the
    section number."""
    import yaml
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    numbered = {p["caption"]: p.get("numbered", False) for p in toc["parts"]}
    assert numbered.pop("About this book") is False, "the back matter must not be numbered"
    assert numbered and all(v is True for v in numbered.values()), numbered
    cfg = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert cfg.get("html", {}).get("use_multitoc_numbering", True) is True
    sphinx = cfg["sphinx"]["config"]
    assert sphinx["numfig"] is True and sphinx["numfig_secnum_depth"] == 1
    assert sphinx["numfig_format"]["figure"] == "Figure %s"
    # every reference to a figure of the book spells it the same way
    for md in BOOK.glob("*.md"):
        assert "{numref}`Fig. {number}" not in md.read_text(), f'{md.name}: write {{numref}}`Figure {{number}} <...>`'


FOLDED = {"hide-input", "hide-cell", "remove-input", "remove-cell"}


def _is_glue(node):
    return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name) and node.value.func.id == "glue")


def _bookkeeping_counts(body):
    """(glue calls and asserts, assignments) in `body`, or None when some statement
    is neither (nor a for/if made only of them)."""
    kept = assigned = 0
    for node in body:
        if _is_glue(node) or isinstance(node, ast.Assert):
            kept += 1
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            assigned += 1
        elif isinstance(node, (ast.For, ast.If)):
            inner = _bookkeeping_counts(node.body + node.orelse)
            if inner is None:
                return None
            kept, assigned = kept + inner[0], assigned + inner[1]
        else:
            return None
    return kept, assigned


def is_bookkeeping(source):
    """Whether a code cell only keeps books: see test_bookkeeping_cells_are_folded."""
    code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
    counts = _bookkeeping_counts(ast.parse(code).body)
    return counts is not None and counts[0] >= 1 and counts[1] <= counts[0]


def test_the_bookkeeping_rule():
    assert is_bookkeeping('glue("a", 1, display=False)\nglue("b", 2, display=False)')
    assert is_bookkeeping("for m in M:\n    assert x[m] > 0, m\nassert y")
    assert is_bookkeeping('n = len(xs)\nassert n > 3\nglue("n", n, display=False)')
    assert not is_bookkeeping("n = len(xs)\nm = 2 * n\nassert m")          # mostly computing
    assert not is_bookkeeping('plt.plot(x)\nglue("a", 1, display=False)')  # draws
    assert not is_bookkeeping("x = run()\ny = 2")                         # nothing kept


@pytest.mark.parametrize("md", NOTEBOOK_CHAPTERS, ids=lambda p: p.name)
def test_bookkeeping_cells_are_folded(md):
    """Cells that only keep books are folded in the HTML, so the reader sees the code
    that teaches. The rule: a code cell is bookkeeping when every statement in it (at
    the top level, and inside the bodies of `for` and `if` statements) is a `glue(...)`
    call (a number published for the prose), an `assert` (a check, such as the claim
    check after a Claim box) or an assignment, when at least one statement is a glue
    call or an assert, and when the assignments (which prepare what is glued or
    checked) are no more than the glue calls and asserts, counted over the whole
    cell. A cell that mostly assigns (runs an experiment) or calls anything else (draws,
    prints) is not bookkeeping by this rule. A bookkeeping cell must carry the tag
    hide-input (or hide-cell, remove-input, remove-cell): its code folds into a
    toggle, its outputs stay. Claim checks that also print are folded by hand; a
    cell that mixes teaching code with many glue lines is split in two."""
    nb = jupytext.read(md)
    bare = [cell.source.splitlines()[0] for cell in nb.cells
            if cell.cell_type == "code" and not FOLDED & set(cell.metadata.get("tags", []))
            and is_bookkeeping(cell.source)]
    assert not bare, f"{md.name}: bookkeeping cells without hide-input, starting with {bare}"
