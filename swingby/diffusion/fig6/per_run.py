"""Per-run read-outs of the registered checks of paper Fig. 6
(:mod:`swingby.diffusion.fig6.confirm`), as the diffusion chapter (``book/diffusion.md``)
prints them.

* :func:`first_concepts`: which concept each run learns first (Fig. 6(a)'s order);
* :func:`slowing_parts`: each run's parts of the slowing check (Fig. 6(c));
* :func:`slowing_wrong_models`: both wrong models' passing units of the slowing check,
  as fields (:func:`~swingby.diffusion.fig6.confirm.confirm` judges against the one
  that passes more often and names both only in the words of its note);
* :func:`control_parts`: the slowing check's parts on Theorem 4.1's exponential
  approach (:func:`~swingby.diffusion.fig6.power.exponential_paths`), several paths per
  run (the chapter's exercise on the noise floor).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from swingby import _checks
from swingby.claims.diffusion import DESIGN, check_design
from swingby.diffusion.fig6 import confirm as _confirm
from swingby.diffusion.fig6.confirm_nulls import logit_paths, stop_paths
from swingby.diffusion.fig6.power import exponential_paths
from swingby.diffusion.readouts import run_paths

#: the random streams :func:`~swingby.diffusion.fig6.confirm.confirm` gives the two
#: wrong models of the slowing check (with ``design.null_seed``)
STREAMS = {"stop": 3, "logit": 4}
#: the parts of the check, in the order of :class:`~swingby.diffusion.fig6.confirm.Slowing`
PARTS = ("passed", "drop", "graded", "logit_drop")


class SlowingWrongModels(NamedTuple):
    """Passing units of the slowing check's two wrong models (:func:`slowing_wrong_models`)."""

    stop: int   #: the run's path at constant speed, then a stop
    logit: int  #: each coordinate's logit drifting at a constant rate
    n: int      #: units of each (``design.n_null_units``)

    @property
    def worst(self) -> str:
        """The wrong model that passes more often (``"stop"`` on a tie, as the judge picks)."""
        return "stop" if self.stop >= self.logit else "logit"


def _sweep(res) -> dict:
    """``res`` if it is a sweep's results dict, else a ValueError."""
    if not isinstance(res, dict):
        raise ValueError(f"res must be a sweep's results dict, got {type(res).__name__}")
    return res


def first_concepts(res: dict, design=DESIGN) -> np.ndarray:
    """Which of class 11's coordinates each run learns first
    (:func:`~swingby.diffusion.fig6.confirm.first_concept`).

    Parameters
    ----------
    res : dict
        A complete sweep (:func:`swingby.diffusion.runs.storage.load_results`).
    design : DiffusionDesign
        The registered design.

    Returns
    -------
    array (D, S) of str
        Per colour separation and seed: ``"colour"``, ``"size"``, ``"tie"``,
        ``"neither"``, or ``"unread"`` for a run with too few disc checkpoints.
    """
    design = check_design(design)
    rp = run_paths(_sweep(res), design)
    out = np.full(rp.onset.shape, "unread", dtype=object)
    for i, s in np.ndindex(rp.onset.shape):
        steps, points, _ = rp.run(i, s)
        if steps.size >= 3 * design.sustain:  # readable, as the check's units
            out[i, s] = _confirm.first_concept(points, design)
    return out.astype(str)


def slowing_wrong_models(res: dict, design=DESIGN) -> SlowingWrongModels:
    """Passing units of both wrong models of the registered slowing check, counted as
    :func:`~swingby.diffusion.fig6.confirm.confirm` counts them (every run a unit, unit
    ``u`` mimicking run ``u mod n``, the same random streams).

    Parameters
    ----------
    res : dict
        A complete sweep (:func:`swingby.diffusion.runs.storage.load_results`).
    design : DiffusionDesign
        The registered design (:data:`~swingby.claims.diffusion.DESIGN`).

    Returns
    -------
    SlowingWrongModels
    """
    design = check_design(design)
    rp = run_paths(_sweep(res), design)
    every = _confirm._runs(rp, "all", design)

    def passes(steps, points, noise):
        return _confirm.slowing(steps, points, noise, design).passed

    stop, logit = (_confirm._null(maker, passes, rp, every, design, STREAMS[name])
                   for name, maker in (("stop", stop_paths), ("logit", logit_paths)))
    return SlowingWrongModels(stop, logit, design.n_null_units)


def slowing_parts(res: dict, design=DESIGN) -> np.ndarray:
    """Each run's parts of the registered slowing check.

    Parameters
    ----------
    res : dict
        A complete sweep (:func:`swingby.diffusion.runs.storage.load_results`).
    design : DiffusionDesign
        The registered design.

    Returns
    -------
    array (D, S, 4) of bool
        Per colour separation and seed: passed, drop, graded, drop in the logits
        (:data:`PARTS`); all False for a run with too few disc checkpoints, which fails.
    """
    design = check_design(design)
    rp = run_paths(_sweep(res), design)
    out = np.zeros(rp.onset.shape + (len(PARTS),), bool)
    for i, s in np.ndindex(rp.onset.shape):
        steps, points, noise = rp.run(i, s)
        if steps.size >= 3 * design.sustain:  # readable, as the check's units
            out[i, s] = _confirm.slowing(steps, points, noise, design)[:len(PARTS)]
    return out


def control_parts(res: dict, n_per_run: int, seed: int, design=DESIGN) -> np.ndarray:
    """The parts of the registered slowing check on ``n_per_run`` exponential approaches
    (:func:`~swingby.diffusion.fig6.power.exponential_paths`) per readable run.

    Parameters
    ----------
    res : dict
        A complete sweep (:func:`swingby.diffusion.runs.storage.load_results`).
    n_per_run : int
        Paths per run, >= 1.
    seed : int
        Seed of the paths' rate factors and noise.
    design : DiffusionDesign
        The registered design.

    Returns
    -------
    array (R, n_per_run, 4) of bool
        Per readable run (separations outer, seeds inner) and path: passed, drop,
        graded, drop in the logits (:data:`PARTS`).
    """
    design = check_design(design)
    n_per_run = _checks.integer("n_per_run", n_per_run, low=1)
    seed = _checks.integer("seed", seed, low=0)
    rp = run_paths(_sweep(res), design)
    rng = np.random.default_rng(seed)
    out = []
    for i, s in np.ndindex(rp.onset.shape):
        steps, points, noise = rp.run(i, s)
        if steps.size >= 3 * design.sustain:
            paths = exponential_paths(steps, points, noise, n_per_run, rng, design)
            out.append([_confirm.slowing(steps, p, noise, design)[:len(PARTS)] for p in paths])
    return np.array(out, bool).reshape(-1, n_per_run, len(PARTS))
