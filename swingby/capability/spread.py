"""The seed-to-seed spread of capability and behaviour and the fit of one time against the other
(the hidden-capabilities study, Figs. 3, 8, 9; chapter ``book/capability.md``)."""
from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np

from swingby import _checks
from swingby.capability.confirm import late_spread
from swingby.capability.measures import noise_capability

__all__ = ["median_seed", "LinearFit", "linear_fit", "SpreadYardstick", "spread_yardstick"]


def seed_std(curves: np.ndarray) -> np.ndarray:
    """Standard deviation ``(D, K)`` over the finished seeds of ``curves (D, S, K)`` (study Fig. 8)."""
    c = np.asarray(curves, float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a checkpoint with fewer than two finished seeds
        out = np.nanstd(np.where(np.isfinite(c), c, np.nan), axis=1, ddof=1)
    out[np.isfinite(c).sum(axis=1) < 2] = np.nan
    return out


def median_seed(times: np.ndarray, done: np.ndarray) -> int:
    """Index of the seed with the median time among the finished runs of one separation.

    Parameters
    ----------
    times : array (S,)
        One time per seed (``inf``: never).
    done : array (S,) of bool
    """
    row = np.where(np.asarray(done, bool), np.asarray(times, float), np.nan)
    if not np.isfinite(row).any():
        raise ValueError("times must hold at least one finite time of a finished run")
    return int(np.argsort(row)[(np.isfinite(row).sum() - 1) // 2])


class LinearFit(NamedTuple):
    """Least-squares line ``y = slope x + intercept`` with its R^2 and a 95 % bootstrap
    interval of the slope (pairs resampled with replacement)."""

    slope: float
    intercept: float
    r2: float
    slope_ci: tuple
    n: int


def linear_fit(x: np.ndarray, y: np.ndarray, *, n_boot: int = 2000, seed: int = 0) -> LinearFit:
    """Fit ``y`` against ``x`` over the finite pairs (study Fig. 3; eq. ``eq-cap-fit``).

    Parameters
    ----------
    x, y : array
        One size; at least three finite pairs with two distinct ``x``.
    n_boot, seed : int
        Bootstrap resamples for the slope's interval, and their seed.
    """
    x, y = np.asarray(x, float).ravel(), np.asarray(y, float).ravel()
    if x.shape != y.shape:
        raise ValueError(f"x and y must have the same size, got {x.shape} and {y.shape}")
    n_boot = _checks.positive_int("n_boot", n_boot)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if len(x) < 3 or np.ptp(x) == 0:
        raise ValueError(f"need at least three finite (x, y) pairs with distinct x, got {len(x)}")
    slope, intercept = np.polyfit(x, y, 1)
    resid = y - (slope * x + intercept)
    r2 = 1 - resid.var() / y.var() if y.var() > 0 else 1.0
    rng = np.random.default_rng(_checks.seed("seed", seed))
    i = rng.integers(0, len(x), (n_boot, len(x)))
    xs, ys = x[i], y[i]
    dx = xs - xs.mean(axis=1, keepdims=True)
    sxx = (dx ** 2).sum(axis=1)
    boots = ((dx * (ys - ys.mean(axis=1, keepdims=True))).sum(axis=1) / np.where(sxx > 0, sxx, 1))[sxx > 0]
    lo, hi = np.percentile(boots, [2.5, 97.5])
    return LinearFit(float(slope), float(intercept), float(r2), (float(lo), float(hi)), int(len(x)))


class SpreadYardstick(NamedTuple):
    """Mean discordant counts of the comparative part of ``claim-cap-robust`` when
    capability is redrawn from prompts that change nothing (:func:`spread_yardstick`)."""

    capability_closer: float  #: runs whose null capability lies closer to its median, mean over redraws
    behaviour_closer: float   #: runs whose behaviour lies closer, mean over redraws
    n_redraws: int


def spread_yardstick(behaviour_curves: np.ndarray, n_samples: int, n_prompts: int, rng: np.random.Generator,
                     n_redraws: int = 20) -> SpreadYardstick:
    """The comparative part of the seed-robustness claim (study Figs. 8, 9) on a capability of prompts that
    change nothing: :func:`~swingby.capability.confirm.late_spread` per separation against the runs' own
    behaviour, counted over the runs and averaged over ``n_redraws`` redraws.

    Parameters
    ----------
    behaviour_curves : array (D, S, K)
        Behaviour of the separations the part judges (the weak-signal ones).
    n_samples, n_prompts, n_redraws : int
        Samples per prompt, prompts besides the plain one, redraws.
    rng : numpy.random.Generator
    """
    beh = _checks.array("behaviour_curves", behaviour_curves, ndim=3)
    n_samples = _checks.positive_int("n_samples", n_samples)
    n_prompts = _checks.positive_int("n_prompts", n_prompts)
    _checks.instance("rng", rng, np.random.Generator, "numpy.random.Generator")
    n_redraws = _checks.positive_int("n_redraws", n_redraws)
    counts = np.zeros((n_redraws, 2))
    for r in range(n_redraws):
        cap0 = noise_capability(beh, n_samples, n_prompts, rng)
        for i in range(len(beh)):
            counts[r] += np.sum(late_spread(cap0[i], beh[i]), axis=1)
    return SpreadYardstick(float(counts[:, 0].mean()), float(counts[:, 1].mean()), n_redraws)
