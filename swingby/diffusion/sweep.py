"""A sweep's plan, before anything runs: the checkpoints of a run (evenly spaced in
sqrt(step), App. G), the repeated final draws, and where a sweep's files go (results file,
scratch and partial directories, a run's state file). Pure functions of the preset: no
training, no I/O. The files themselves are written by :mod:`swingby.diffusion.runs.storage`
and the sweep is run by :mod:`swingby.diffusion.runs.driver`; this module sits below both,
so that the storage needs nothing above it.
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

#: independent repeated draws of every class from the final model: the sampling noise of
#: a model that no longer changes (the null of the speed checks)
N_REPEATS = 4


def checkpoint_steps(steps: int, n_checkpoints: int) -> np.ndarray:
    """Evaluation steps evenly spaced in ``sqrt(step)`` from 0 to ``steps`` (App. G).

    Parameters
    ----------
    steps : int
        The last step (>= 1).
    n_checkpoints : int
        Checkpoints before rounding merges equal steps (>= 2).

    Returns
    -------
    numpy.ndarray of int
    """
    steps = _checks.integer("steps", steps, low=1, high=10 ** 9)
    n_checkpoints = _checks.integer("n_checkpoints", n_checkpoints, low=2, high=10 ** 6)
    return np.unique(np.round(np.linspace(0, np.sqrt(steps), n_checkpoints) ** 2).astype(int))

def state_path(scratch: Path, dc: float, seed: int) -> Path:
    """The resumable state file of run ``(dc, seed)`` in ``scratch``.

    Parameters
    ----------
    scratch : path-like
        The scratch directory.
    dc : float
        The colour separation.
    seed : int
        The run's seed.

    Returns
    -------
    pathlib.Path
    """
    _inputs.path("scratch", scratch)
    dc, seed = _checks.number("dc", dc, low=0.0, high=1.0), _checks.seed("seed", seed)
    return Path(scratch) / f"dc{dc:.4f}_seed{seed}.pt"

# --------------------------------------------------------------------- files
def _tag(p: Preset) -> str:
    """The preset's name, plus a short hash of its config when it differs from the
    stored preset of that name (so an override never overwrites a preset's results)."""
    if PRESETS.get(p.name) == p:
        return p.name
    return f"{p.name}-custom-{config_hash(p)[:8]}"


def config_hash(p: Preset) -> str:
    """SHA-256 of the preset's config.

    Parameters
    ----------
    p : Preset
        The preset.

    Returns
    -------
    str
    """
    validate_preset(p)
    return hashlib.sha256(json.dumps(p.to_dict(), sort_keys=True).encode()).hexdigest()


def results_path(out_dir: Path, p: Preset) -> Path:
    """``out_dir/sweep_<preset>.npz`` (``sweep_<preset>-custom-<hash>.npz`` for overrides).

    Parameters
    ----------
    out_dir : path-like
        The results directory.
    p : Preset
        The preset.

    Returns
    -------
    pathlib.Path
    """
    validate_preset(p)
    return _inputs.path("out_dir", out_dir) / f"sweep_{_tag(p)}.npz"



def default_scratch(p: Preset) -> Path:
    """``$XDG_CACHE_HOME/swingby-diffusion/<preset>-<config hash>`` (or ``~/.cache/...``).

    Parameters
    ----------
    p : Preset
        The preset.

    Returns
    -------
    pathlib.Path
    """
    validate_preset(p)
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "swingby-diffusion" / f"{p.name}-{config_hash(p)[:12]}"


def partial_dir(out_dir, p: Preset) -> Path:
    """``<out_dir>/partial/<preset>-<config hash>``: the default place of a pool sweep's
    resumable run states, beside its results file, so that the states of unfinished runs
    can be kept (and committed) with the results while a sweep takes several sessions.
    A run's state is deleted once its records are in the results file, and the folder
    once it is empty.

    Parameters
    ----------
    out_dir : path-like
        The results directory.
    p : Preset
        The preset.

    Returns
    -------
    pathlib.Path
    """
    validate_preset(p)
    return _inputs.path("out_dir", out_dir) / "partial" / f"{p.name}-{config_hash(p)[:12]}"
