"""A positive control of the registered slowing check of Fig. 6(c) (``.confirm.slowing``), used in
``book/diffusion.md``. Theorem 4.1's exponential approach, sampled like the runs (:func:`exponential_paths`),
should pass a check of that claim in most units (the rule's "typical" presumes
:data:`swingby.verdicts.TYPICAL_SHARE`) and more often than the wrong model; :func:`powered_word` makes
the rule's "not reproduced" "inconclusive" where it does not.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from swingby import _checks, verdicts
from swingby.claims.diffusion import DESIGN, check_design
from swingby.diffusion.fig6.confirm import null_units, readable, slowing, slows
from swingby.diffusion.fig6.confirm_nulls import path_args, stop_line
from swingby.diffusion.readouts import run_paths

__all__ = ["Control", "control_parts", "exponential_paths", "positive_control", "powered_word"]

#: the per-unit rate factor is drawn log-uniformly in this range
RATE_RANGE = (0.5, 2.0)
#: the positive control's random stream (the wrong models use 1 to 4, with ``null_seed``)
STREAM = 5


class Control(NamedTuple):
    """Passing units of the positive control (:func:`positive_control`)."""

    k: int               #: units that pass the registered slowing check
    n: int               #: units (``design.n_null_units``)
    passed: np.ndarray   #: (n,) bool, per unit


def _tau(a: float, b: float, frac: float) -> float:
    """Time constant at which ``(1 - e^(-a/tau)) / (1 - e^(-b/tau)) = frac`` (``100 b`` where none is)."""
    if a >= frac * b:
        return 100.0 * b
    lo, hi = np.log(b * 1e-4), np.log(b * 1e2)

    def share(log_tau):
        return np.expm1(-a / np.exp(log_tau)) / np.expm1(-b / np.exp(log_tau))

    for _ in range(100):  # share falls as tau grows
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if share(mid) > frac else (lo, mid)
    return float(np.exp(0.5 * (lo + hi)))


def exponential_paths(steps: np.ndarray, points: np.ndarray, noise: np.ndarray, n: int,
                      rng: np.random.Generator, design=DESIGN) -> np.ndarray:
    """Theorem 4.1's exponential approach at a run's checkpoints and noise, from the mean of its first
    ``design.sustain`` points (``start``, at ``t0``) to that of its last (``end``, at ``T``):
    ``p(t) = start + (1 - exp(-(t - t0)/tau)) / (1 - exp(-(T - t0)/tau)) (end - start)``, ``tau`` putting the
    path ``design.stop_fraction`` of its way where the run is (``stop_paths``' stop), divided by a rate
    factor drawn log-uniformly in ``RATE_RANGE``.

    Parameters
    ----------
    steps, points, noise, n, rng, design
        As ``monotone_paths`` (``rng`` also draws the rate factors).
    """
    design = check_design(design)
    t, p, s, n = path_args(steps, points, noise, n, rng)
    line = np.clip(stop_line(t, p, design), 0.0, 1.0)  # the stopping wrong model without noise
    start, end = line[0], line[-1]
    stop = int(np.flatnonzero((line == end).all(axis=1))[0])
    if stop == 0:  # start and end coincide: no way to go
        stop = t.size - 1
    tau = _tau(t[stop] - t[0], t[-1] - t[0], design.stop_fraction)
    factor = np.exp(rng.uniform(*np.log(RATE_RANGE), size=(n, 1)))
    x = (t - t[0])[None, :] * factor / tau
    f = np.expm1(-x) / np.expm1(-x[:, -1:])
    path = start + f[:, :, None] * (end - start)
    return np.clip(path + rng.normal(0.0, 1.0, path.shape) * s, 0.0, 1.0)


def positive_control(res: dict, design=DESIGN) -> Control:
    """Passing units of the slowing check among ``design.n_null_units`` units of :func:`exponential_paths`,
    unit ``u`` mimicking run ``u mod n`` as the wrong models' do (one mimicking an unreadable run fails).

    Parameters
    ----------
    res, design
        A complete sweep and the registered design.
    """
    design = check_design(design)
    passed = null_units(exponential_paths, slows(design), run_paths(res, design), design, STREAM)
    return Control(int(passed.sum()), passed.size, passed)


def control_parts(res: dict, n_per_run: int, seed: int, design=DESIGN) -> np.ndarray:
    """The parts of the slowing check (as ``slowing_parts``) on ``n_per_run`` paths of
    :func:`exponential_paths` per readable run: ``(R, n_per_run, 4)``, separations outer, seeds inner.

    Parameters
    ----------
    res, design
        A complete sweep and the registered design.
    n_per_run, seed : int
        Paths per run (>= 1), and the seed of their rate factors and noise.
    """
    design = check_design(design)
    n_per_run = _checks.integer("n_per_run", n_per_run, low=1)
    rng = np.random.default_rng(_checks.integer("seed", seed, low=0))

    rp = run_paths(res, design)
    out = []
    for i, s in np.ndindex(rp.onset.shape):
        steps, points, noise = rp.run(i, s)
        if readable(steps, design):
            paths = exponential_paths(steps, points, noise, n_per_run, rng, design)
            out.append([slowing(steps, p, noise, design)[:4] for p in paths])
    return np.array(out, bool).reshape(-1, n_per_run, 4)


def powered_word(word: str, control_k: int, control_n: int, null_k: int, null_n: int) -> str:
    """The rule's word, but "inconclusive" for "not reproduced" where the positive control does not pass
    significantly more often than the wrong model (one-sided Fisher test at :data:`swingby.verdicts.ALPHA`).

    Parameters
    ----------
    word : str
        The rule's word, one of :data:`swingby.verdicts.WORDS`.
    control_k, control_n, null_k, null_n : int
        Passing and all units of the positive control and of the wrong model.
    """
    if word not in verdicts.WORDS:
        raise ValueError(f"word must be one of {verdicts.WORDS}, got {word!r}")
    control_n, null_n = _checks.integer("control_n", control_n, low=1), _checks.integer("null_n", null_n, low=1)
    control_k = _checks.integer("control_k", control_k, low=0, high=control_n)
    null_k = _checks.integer("null_k", null_k, low=0, high=null_n)
    if word != "not reproduced":
        return word
    powered = verdicts.fisher_p(control_k, control_n, null_k, null_n) <= verdicts.ALPHA
    return word if powered else "inconclusive"
