"""A sweep's plan (App. G), a pure function of its preset: checkpoints evenly spaced in
sqrt(step), the repeated final draws, and where its files go.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np

from swingby import _checks
from swingby.diffusion import _inputs
from swingby.diffusion.presets import PRESETS, Preset, validate_preset

__all__ = ["N_REPEATS", "PRESETS", "results_path"]

N_REPEATS = 4  #: repeated draws of every class from the final model: the sampling noise of a fixed model


def checkpoint_steps(steps: int, n_checkpoints: int) -> np.ndarray:
    """Evaluation steps evenly spaced in ``sqrt(step)`` from 0 to ``steps`` (rounding merges equal ones)."""
    steps = _checks.integer("steps", steps, low=1, high=10 ** 9)
    n_checkpoints = _checks.integer("n_checkpoints", n_checkpoints, low=2, high=10 ** 6)
    return np.unique(np.round(np.linspace(0, np.sqrt(steps), n_checkpoints) ** 2).astype(int))


def state_path(scratch: Path, dc: float, seed: int) -> Path:
    """The resumable state file of run ``(dc, seed)`` in ``scratch``."""
    _inputs.path("scratch", scratch)
    dc, seed = _checks.number("dc", dc, low=0.0, high=1.0), _checks.seed("seed", seed)
    return Path(scratch) / f"dc{dc:.4f}_seed{seed}.pt"


def config_hash(p: Preset) -> str:
    """SHA-256 of the preset's config."""
    return hashlib.sha256(json.dumps(p.to_dict(), sort_keys=True).encode()).hexdigest()


def results_path(out_dir: Path, p: Preset) -> Path:
    """``out_dir/sweep_<preset>.npz``, the results file of ``p`` (of an override: ``sweep_<preset>-custom-<hash>.npz``).

    Parameters
    ----------
    out_dir, p : path-like, Preset
    """
    validate_preset(p)
    tag = p.name if PRESETS.get(p.name) == p else f"{p.name}-custom-{config_hash(p)[:8]}"
    return _inputs.path("out_dir", out_dir) / f"sweep_{tag}.npz"


def default_scratch(p: Preset) -> Path:
    """``$XDG_CACHE_HOME/swingby-diffusion/<preset>-<config hash>``: the job executors' run states."""
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "swingby-diffusion" / f"{p.name}-{config_hash(p)[:12]}"


def partial_dir(out_dir: Path, p: Preset) -> Path:
    """``<out_dir>/partial/<preset>-<config hash>``: a pool sweep's resumable run states."""
    return Path(out_dir) / "partial" / f"{p.name}-{config_hash(p)[:12]}"
