"""When pytest runs the chapters (``pytest book/NAME.ipynb``, nbval), each executed
chapter is stored in the jupyter-cache that the book build reads, so ``make test``
executes every chapter once (see ``tools/chapters.py``)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

from chapters import CachePlugin  # noqa: E402


def pytest_configure(config):
    config.pluginmanager.register(CachePlugin(), "swingby-chapter-cache")
