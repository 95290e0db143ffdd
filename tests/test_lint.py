"""Lint: ruff's pyflakes rules and import order over the package, the tests, the
benchmarks, the tools and the chapters' code cells (configured in pyproject.toml)."""
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_is_clean():
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    assert ruff, "ruff is not installed: pip install -r requirements.txt"
    out = subprocess.run([ruff, "check", "swingby", "tests", "benchmarks", "tools", "book"], cwd=ROOT,
                         capture_output=True, text=True)
    assert out.returncode == 0, f"ruff check failed (fix with `ruff check --fix`):\n{out.stdout}{out.stderr}"
