"""Claim checks of the diffusion chapter and the nulls they are calibrated against.

A check can only mean something if it fails on data without the effect. Each check
here comes with a generator of such data, and :func:`pass_rate` says how often the
check passes on it (the chapter reports that rate, and it must be at most 5 %):

* **bend** (Fig. 6b): the concept-space MSE of class 11 *rises* above its seed-to-seed
  error and *then falls* again (:func:`bend_check`). Null: trajectories that go
  monotonically from their start to their end, with the same per-checkpoint noise as
  the runs (:func:`monotone_trajectories`).
* **late slowing** (Fig. 6c): the late speed of the class-11 point is above the speed
  that sampling noise alone produces (:func:`speed_above_noise`). Null: repeated draws
  from one final model, which does not change at all.
* **late-phase shape**: an exponential and a power law are both fitted to the late
  speed and compared (:func:`compare_decay_fits`); the better fit is reported, not
  assumed.
"""
from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

from swingby.diffusion.rules import OLD_RULES as R


class BendResult(NamedTuple):
    """Outcome of :func:`bend_check` on one seed-mean MSE curve."""

    passed: bool
    rise: float       #: largest rise of the seed mean above an earlier minimum
    rise_se: float    #: seed error of that rise
    fall: float       #: fall after the peak of the rise, to the lowest later point
    fall_se: float
    k_min: int        #: checkpoint of the minimum before the rise
    k_peak: int       #: checkpoint of the peak


def bend_check(mse: np.ndarray, z: float = R.z) -> BendResult:
    """Rise-then-fall test of per-seed MSE curves ``mse (S, K)``.

    The seed-mean curve must rise from an earlier minimum by more than ``z`` seed
    errors (the standard error over seeds of the difference), and after that peak fall
    by more than ``z`` seed errors. Needs at least two seeds and three checkpoints.

    Parameters
    ----------
    mse : array (S, K)
        Finite per-seed MSE curves, ``S >= 2`` seeds and ``K >= 3`` checkpoints.
    z : float
        Seed errors by which the rise and the fall must each exceed zero.

    Returns
    -------
    BendResult
    """
    m = np.asarray(mse, float)
    if m.ndim != 2 or m.shape[0] < 2 or m.shape[1] < 3 or not np.isfinite(m).all():
        raise ValueError(f"mse must be a finite (seeds >= 2, checkpoints >= 3) array, got shape {m.shape}")
    S, K = m.shape
    mean = m.mean(axis=0)
    best = (-np.inf, 0, 0)
    for j in range(1, K):
        k = int(np.argmin(mean[:j]))
        if mean[j] - mean[k] > best[0]:
            best = (mean[j] - mean[k], k, j)
    rise, k, j = best
    rise_se = float(np.std(m[:, j] - m[:, k], ddof=1) / np.sqrt(S))
    if j == K - 1:
        return BendResult(False, float(rise), rise_se, 0.0, 0.0, k, j)
    later = j + 1 + int(np.argmin(mean[j + 1:]))
    fall = float(mean[j] - mean[later])
    fall_se = float(np.std(m[:, j] - m[:, later], ddof=1) / np.sqrt(S))
    passed = rise > z * max(rise_se, 1e-12) and fall > z * max(fall_se, 1e-12)
    return BendResult(bool(passed), float(rise), rise_se, fall, fall_se, k, j)


def monotone_trajectories(start: np.ndarray, end: np.ndarray, steps: np.ndarray, noise: np.ndarray,
                          n_seeds: int, rng: np.random.Generator) -> np.ndarray:
    """Null trajectories ``(n_seeds, K, 2)`` that move monotonically from ``start`` to
    ``end`` (both ``(2,)``) along a logistic in ``sqrt(step)`` with a random onset and
    width per seed, plus Gaussian noise of standard deviation ``noise (K, 2)`` (the
    runs' sampling noise at each checkpoint).

    Parameters
    ----------
    start, end : array (2,)
        The concept-space points every trajectory starts and ends at.
    steps : array (K,)
        Checkpoint steps.
    noise : array (K, 2)
        Standard deviation of the Gaussian noise at each checkpoint and coordinate.
    n_seeds : int
        Trajectories to draw.
    rng : numpy.random.Generator
        Source of the onsets, widths and noise.

    Returns
    -------
    array (n_seeds, K, 2)
        Clipped to [0, 1].
    """
    steps = np.sqrt(np.asarray(steps, float) / max(float(np.max(steps)), 1.0))
    noise = np.asarray(noise, float)
    if noise.shape != (len(steps), 2):
        raise ValueError(f"noise must be (checkpoints, 2) = ({len(steps)}, 2), got {noise.shape}")
    onset = rng.uniform(0.1, 0.9, (n_seeds, 1, 1))
    width = rng.uniform(0.03, 0.3, (n_seeds, 1, 1))
    f = 1 / (1 + np.exp(-(steps[None, :, None] - onset) / width))
    f = (f - f[:, :1]) / (f[:, -1:] - f[:, :1])  # exactly start at step 0 and end at the last step
    path = np.asarray(start)[None, None] + f * (np.asarray(end) - np.asarray(start))[None, None]
    return np.clip(path + rng.normal(0, 1, path.shape) * noise[None], 0, 1)


def pass_rate(check: Callable[[np.ndarray], bool], make_null: Callable[[np.random.Generator], np.ndarray],
              n: int = 400, seed: int = 0) -> float:
    """Fraction of ``n`` null data sets (``make_null(rng)``) on which ``check`` passes.

    Parameters
    ----------
    check : callable
        ``check(data) -> bool``, the claim check.
    make_null : callable
        ``make_null(rng) -> data``, one null data set from a ``numpy.random.Generator``.
    n : int
        Null data sets.
    seed : int
        Seeds the generator.

    Returns
    -------
    float
        The fraction in [0, 1].
    """
    rng = np.random.default_rng(seed)
    return float(np.mean([bool(check(make_null(rng))) for _ in range(n)]))


def speed_above_noise(speeds: np.ndarray, noise_speeds: np.ndarray, q: float = 0.95) -> np.ndarray:
    """Which ``speeds`` exceed the ``q`` quantile of ``noise_speeds`` (the speeds that
    sampling noise alone produces over the same step gaps).

    Parameters
    ----------
    speeds : array
        Measured speeds.
    noise_speeds : array
        At least two finite speeds of an unchanging model.
    q : float
        The quantile of ``noise_speeds`` a speed must exceed.

    Returns
    -------
    array of bool
        Same shape as ``speeds``.
    """
    noise_speeds = np.asarray(noise_speeds, float)
    if noise_speeds.size < 2 or not np.isfinite(noise_speeds).all():
        raise ValueError("noise_speeds must hold at least two finite speeds")
    return np.asarray(speeds, float) > np.quantile(noise_speeds, q)


def repeat_speeds(points: np.ndarray, gap: float) -> np.ndarray:
    """Speeds ``|C_r - C_r'| / gap`` between every pair of repeated draws ``points (R, 2)``
    from one model: what a model that does not change shows over a step gap ``gap``.

    Parameters
    ----------
    points : array (R, 2)
        Concept-space points of ``R >= 2`` repeated draws.
    gap : float
        The step gap, > 0.

    Returns
    -------
    array (R (R - 1) / 2,)
        One speed per pair of draws.
    """
    p = np.asarray(points, float)
    if p.ndim != 2 or p.shape[0] < 2 or p.shape[1] != 2 or not gap > 0:
        raise ValueError(f"points must be (repeats >= 2, 2) and gap > 0, got {p.shape} and {gap!r}")
    i, j = np.triu_indices(len(p), 1)
    return np.linalg.norm(p[i] - p[j], axis=1) / gap


class DecayFits(NamedTuple):
    """Least-squares fits of ``log speed`` against ``t`` (exponential) and against
    ``log t`` (power law), with their R^2 and residual sums; ``better`` names the fit
    with the smaller residual (both have two parameters)."""

    rate: float
    r2_exp: float
    exponent: float
    r2_power: float
    better: str
    log_a_exp: float = 0.0    #: intercept of the exponential: ``speed = exp(log_a_exp + rate t)``
    log_a_power: float = 0.0  #: intercept of the power law: ``speed = exp(log_a_power) t ** exponent``

    def predict(self, t: np.ndarray) -> np.ndarray:
        """The better fit's speed at steps ``t > 0``."""
        t = np.asarray(t, float)
        if self.better == "exponential":
            return np.exp(self.log_a_exp + self.rate * t)
        return np.exp(self.log_a_power) * t ** self.exponent


def compare_decay_fits(t: np.ndarray, speed: np.ndarray) -> DecayFits:
    """Fit an exponential and a power law to positive speeds at steps ``t > 0``.

    Old rule (:data:`~swingby.diffusion.rules.OLD_RULES`), kept until the chapters move to
    :func:`swingby.diffusion.fig6.slowing.decay_sse` (scipy curve_fit, shape decided by a bootstrap CI).

    Parameters
    ----------
    t : array
        Steps; only pairs with ``t > 0`` and a positive finite speed are used (at least three).
    speed : array
        Speeds at those steps.

    Returns
    -------
    DecayFits
    """
    t, v = np.asarray(t, float), np.asarray(speed, float)
    ok = (t > 0) & (v > 0) & np.isfinite(v)
    if ok.sum() < 3:
        raise ValueError("need at least three positive speeds at positive steps")
    t, lv = t[ok], np.log(v[ok])

    def fit(x):
        slope, icpt = np.polyfit(x, lv, 1)
        res = lv - (slope * x + icpt)
        r2 = float(1 - res.var() / lv.var()) if lv.var() > 0 else 1.0
        return float(slope), r2, float((res ** 2).sum()), float(icpt)
    rate, r2e, sse_e, ae = fit(t)
    expo, r2p, sse_p, ap = fit(np.log(t))
    return DecayFits(rate, r2e, expo, r2p, "exponential" if sse_e < sse_p else "power law", ae, ap)
