"""Where the stored results live: ``results/`` beside the package in a checkout (``results/diffusion``,
``results/open_questions``); an installed copy (``pip install``, Colab) reads the folder named by the
environment variable ``SWINGBY_RESULTS``, laid out the same way (a copy of the repository's ``results/``).
"""
from __future__ import annotations

import os
from pathlib import Path

__all__ = ["ENV_VAR", "root", "part_dir"]

#: the one setting: a folder holding ``diffusion/`` and ``open_questions/``
ENV_VAR = "SWINGBY_RESULTS"
#: the checkout's results folder (absent in an installed copy)
REPO_RESULTS = Path(__file__).resolve().parents[1] / "results"
PARTS = ("diffusion", "open_questions")


def in_checkout() -> bool:
    """Whether the package is imported from a repository checkout."""
    return (REPO_RESULTS.parent / "pyproject.toml").exists() and (REPO_RESULTS.parent / "swingby").is_dir()


def root() -> Path:
    """The results folder: ``$SWINGBY_RESULTS`` when it is set, else the checkout's ``results/``."""
    env = os.environ.get(ENV_VAR)
    return Path(env).expanduser() if env else REPO_RESULTS


def part_dir(part: str) -> Path:
    """The stored results of one part (``"diffusion"`` or ``"open_questions"``) under :func:`root`."""
    if part not in PARTS:
        raise ValueError(f"part must be one of {PARTS}, got {part!r}")
    return root() / part
