"""The fast-mode switch read by every chapter.

CI sets ``SWINGBY_QUICK=1``; only work that is too slow for CI (the diffusion
training) shrinks under it. Everything else runs at the paper's settings.
"""
from __future__ import annotations

import os


def quick() -> bool:
    """True when the environment variable ``SWINGBY_QUICK`` is set to ``1``."""
    return os.environ.get("SWINGBY_QUICK", "0").strip() in {"1", "true", "True", "yes"}
