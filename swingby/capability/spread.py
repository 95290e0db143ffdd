"""The seed-to-seed spread of capability and behaviour and the rank statistics of the
capability study (``book/capability.md``): the spread of curves over seeds, its time
mean and ratio (the seed-robust claim), the median seed, the seed permutations of the
nulls, and rank and linear correlations.
"""
from __future__ import annotations

import numpy as np

from swingby import _checks
from swingby.capability.measures import _curves, _pair, _times


# --------------------------------------------------------------- seed spread
def seed_std(curves: np.ndarray) -> np.ndarray:
    """Seed-to-seed standard deviation (seed 003, Fig. 8).

    Parameters
    ----------
    curves : array (D, S, K)
        Accuracy curves; NaN runs are left out.

    Returns
    -------
    array (D, K)
        Standard deviation over the finished seeds (``ddof=1``); NaN with fewer than two.
    """
    c = _checks.array("curves", curves, ndim=3, finite=False)
    n = np.isfinite(c).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.nanstd(np.where(np.isfinite(c), c, np.nan), axis=1, ddof=1) if c.shape[1] > 1 else \
            np.full((c.shape[0], c.shape[2]), np.nan)
    out[n < 2] = np.nan
    return out


def time_mean(y: np.ndarray, steps: np.ndarray) -> np.ndarray:
    """Average of ``y (..., K)`` over training time (trapezoids on ``steps``).

    Parameters
    ----------
    y : array (..., K)
        Values at the checkpoints.
    steps : array (K,)
        Strictly increasing checkpoint steps.

    Returns
    -------
    array (...)
    """
    y, s = _curves(y, steps)
    return np.trapezoid(y, s, axis=-1) / (s[-1] - s[0])


def spread_ratio(cap: np.ndarray, beh: np.ndarray, steps: np.ndarray) -> float:
    """Time-averaged seed spread of capability over that of behaviour (the earlier rule's check),
    pooled over the separations.

    Old rule (:data:`~swingby.diffusion.rules.OLD_RULES`), kept until the chapters move to
    :func:`swingby.capability.checks.window_spread_ratio`.

    Parameters
    ----------
    cap, beh : array (D, S, K)
        Capability and behaviour curves.
    steps : array (K,)
        Checkpoint steps.

    Returns
    -------
    float
    """
    if np.shape(cap) != np.shape(beh):
        raise ValueError(f"cap and beh must have the same shape, got {np.shape(cap)} and {np.shape(beh)}")
    c, b = time_mean(seed_std(cap), steps), time_mean(seed_std(beh), steps)
    ok = np.isfinite(c) & np.isfinite(b)
    if not ok.any() or b[ok].sum() <= 0:
        raise ValueError("beh must vary between seeds in at least one separation with two finished seeds")
    return float(c[ok].sum() / b[ok].sum())


def median_seed(times: np.ndarray, done: np.ndarray) -> int:
    """Index of the seed with the median time among the finished runs of one separation
    (the run the capability chapter draws in its study-Fig.-4 panel).

    Parameters
    ----------
    times : numpy.ndarray
        One time per seed ``(S,)`` (``inf``: never).
    done : numpy.ndarray
        Which seeds' runs are finished ``(S,)``.

    Returns
    -------
    int
    """
    row = np.where(np.asarray(done, bool), np.asarray(times, float), np.nan)
    if not np.isfinite(row).any():
        raise ValueError("times must hold at least one finite time of a finished run")
    return int(np.argsort(row)[(np.isfinite(row).sum() - 1) // 2])


def permute_seeds(t: np.ndarray, rng: np.random.Generator, *, within: bool = True) -> np.ndarray:
    """Null pairing: the measured entries of ``t (D, S)`` shuffled among the seeds of each
    separation (``within=True``) or among all runs; NaN and ``inf`` entries stay put.

    Parameters
    ----------
    t : array (D, S)
        Times per run.
    rng : numpy.random.Generator
        Source of the permutations.
    within : bool
        Shuffle within each separation (keeps what the separation explains) or across all.

    Returns
    -------
    array (D, S)
        A shuffled copy.
    """
    arr = _times("t", t).copy()
    _checks.instance("rng", rng, np.random.Generator, "numpy.random.Generator")
    within = _checks.flag("within", within)
    rows = [np.s_[i] for i in range(arr.shape[0])] if within else [np.s_[:]]
    for r in rows:
        sub = arr[r]
        ok = np.isfinite(sub)
        sub[ok] = rng.permutation(sub[ok])
        arr[r] = sub
    return arr


def _ranks(v: np.ndarray) -> np.ndarray:
    """Ranks from 1, ties sharing their average rank (``inf`` ranks last)."""
    order = np.argsort(v, kind="stable")
    r = np.empty(len(v))
    r[order] = np.arange(1, len(v) + 1)
    for u in np.unique(v):
        tie = v == u
        r[tie] = r[tie].mean()
    return r


def rank_correlation(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman rank correlation over the pairs without NaN (``inf``, a time that never
    came, ranks after every finite one).

    Parameters
    ----------
    x, y : array
        Same size; at least three pairs without NaN, neither all tied.

    Returns
    -------
    float
    """
    x, y = _pair(x, y)
    ok = ~np.isnan(x) & ~np.isnan(y)
    if ok.sum() < 3 or np.unique(x[ok]).size < 2 or np.unique(y[ok]).size < 2:
        raise ValueError(f"need at least three (x, y) pairs without NaN, not all tied, got {ok.sum()}")
    return float(np.corrcoef(_ranks(x[ok]), _ranks(y[ok]))[0, 1])


# -------------------------------------------------------------- probe scores
def _corr(x: np.ndarray, y: np.ndarray) -> float:
    if x.size < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    return float(np.corrcoef(x, y)[0, 1])
