"""A chapter runs from an installed, non-editable copy of the package, as in Colab or
on a fresh machine: `pip install` of the repository, every stored result found through the one
setting SWINGBY_RESULTS (the folder holding `diffusion/` and `open_questions/`), the status
page's rows from the package's own data, the notebook executed outside the checkout."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = "capability.ipynb"  # reads the stored diffusion sweep, and takes seconds


def test_a_chapter_runs_from_an_installed_copy(tmp_path, monkeypatch):
    src, site, run = tmp_path / "src", tmp_path / "site", tmp_path / "run"
    shutil.copytree(ROOT / "swingby", src / "swingby", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--disable-pip-version-check", "--target", str(site), str(src)], check=True)
    assert (site / "swingby" / "__init__.py").exists() and not (site / "swingby" / "results").exists()
    assert (site / "swingby" / "status_records" / "cap-robust.json").exists()  # package data
    run.mkdir()
    nb = nbformat.read(ROOT / "book" / CHAPTER, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(
        f"import swingby\nassert swingby.__file__.startswith({str(site)!r}), swingby.__file__"))
    # the open questions' stored runs, found through the same setting
    nb.cells.insert(1, nbformat.v4.new_code_cell(
        "from swingby.open_questions.store import load, source_identity\n"
        "_, meta = load('batch')\nassert meta['source_identity'] == source_identity(), meta"))
    monkeypatch.setenv("PYTHONPATH", str(site))
    monkeypatch.setenv("SWINGBY_RESULTS", str(ROOT / "results"))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("SWINGBY_STATIC", "1")  # executed with nobody at it: no widgets
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(run)}}).execute()
    assert os.listdir(run) == [] or all(not p.endswith(".npz") for p in os.listdir(run))
