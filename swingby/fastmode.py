"""The quiet-mode switch ``SWINGBY_QUICK``.

CI sets ``SWINGBY_QUICK=1`` (``.ci/run``). Its one effect: the chapters that show a
progress bar hide it, so CI logs stay short. It changes no computation: every
chapter runs the same experiments at the same settings with or without it, and long
runs (the diffusion sweeps) are never made by a chapter, only plotted from
``results/``.
"""
from __future__ import annotations

import os


def quick() -> bool:
    """True when the environment variable ``SWINGBY_QUICK`` is ``1`` (or true/yes):
    chapters then hide their progress bars."""
    return os.environ.get("SWINGBY_QUICK", "0").strip() in {"1", "true", "True", "yes"}
