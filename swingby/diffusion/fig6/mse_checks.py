"""The rise and fall of the concept-space MSE of paper Fig. 6(b), checked per seed
(issue 22) with every threshold from :data:`swingby.diffusion.rules.RULES`.

* :func:`mse_rise_checks`: the concept-space MSE rises and then falls, read only from
  samples the pixel check sees as a disc (noise images read about (0.33, 0.02), from
  where a move toward either training class *lowers* the MSE). Null: the
  monotone-per-coordinate paths of :func:`swingby.diffusion.fig6.checks.monotone_per_coordinate`.

Replaces :func:`swingby.diffusion.fig6.claims.bend_checks` (the old rule) once the
chapters move.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from swingby.diffusion.concept_space import concept_mse
from swingby.diffusion.fig6 import analysis as A
from swingby.diffusion.fig6.checks import CLASS_11, CORNER, _dcs, _needed, _steps, monotone_per_coordinate
from swingby.diffusion.rules import RULES, Outcome, Rules, verdict


# ----------------------------------------------------------------------------- MSE rise
def disc_points(res: dict, rules: Rules = RULES) -> tuple[np.ndarray, np.ndarray]:
    """Class-11 concept points read only from samples with a visible disc (pixel check),
    ``(D, S, K, 2)``, and their standard errors; NaN where fewer than
    ``rules.disc_min_samples`` or a share below ``rules.disc_min_fraction`` show a disc.

    Parameters
    ----------
    res : dict
        A complete sweep.
    rules : Rules
        The thresholds.

    Returns
    -------
    points, se : array (D, S, K, 2)
    """
    p = np.asarray(A._check_res(res)["probs"], float)[:, :, :, CLASS_11]
    disc = np.asarray(A._check_res(res, "pixels")["pixels"], float)[:, :, :, CLASS_11, :, 0] > 0.5
    n = disc.sum(axis=-1)
    w = disc[..., None].astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (p * w).sum(-2) / n[..., None]
        var = (((p - mean[..., None, :]) ** 2) * w).sum(-2) / (n[..., None] - 1)
        se = np.sqrt(var / n[..., None])
    bad = (n < rules.disc_min_samples) | (n < rules.disc_min_fraction * p.shape[-2])
    mean[bad], se[bad] = np.nan, np.nan
    return mean, se


def rise_fall(y: np.ndarray, se: np.ndarray, min_rise: float, z: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rise of curves ``y (..., K)`` above an earlier minimum and the fall after its peak;
    NaN entries are skipped. Passes where both are at least ``min_rise`` and beyond ``z``
    sampling errors.

    Parameters
    ----------
    y, se : array (..., K)
        The curves and their standard errors.
    min_rise : float
        Smallest rise and fall.
    z : float
        Sampling errors each must exceed.

    Returns
    -------
    passed, rise, fall : array (...)
    """
    y = np.asarray(y, float)
    se = np.nan_to_num(np.broadcast_to(np.asarray(se, float), y.shape))
    K = y.shape[-1]
    run_min = np.fmin.accumulate(np.where(np.isnan(y), np.inf, y), axis=-1)
    j = np.argmax(np.nan_to_num(y - run_min, nan=-np.inf), axis=-1)[..., None]
    ar = np.arange(K)
    kmin = np.argmin(np.where((ar <= j) & ~np.isnan(y), y, np.inf), axis=-1)[..., None]
    klow = np.argmin(np.where((ar >= j) & ~np.isnan(y), y, np.inf), axis=-1)[..., None]
    g = lambda a, k: np.take_along_axis(a, k, -1)[..., 0]  # noqa: E731
    rise, fall = g(y, j) - g(y, kmin), g(y, j) - g(y, klow)
    ok = (rise >= min_rise) & (fall >= min_rise) & (rise > z * np.hypot(g(se, j), g(se, kmin))) \
        & (fall > z * np.hypot(g(se, j), g(se, klow)))
    return np.nan_to_num(ok, nan=False).astype(bool), rise, fall


def _mse(points: np.ndarray) -> np.ndarray:
    """:func:`~swingby.diffusion.concept_space.concept_mse` to (1, 1) that keeps NaN points NaN."""
    return ((np.asarray(points, float) - 1.0) ** 2).mean(-1)


def _mse_se(points: np.ndarray, se: np.ndarray) -> np.ndarray:
    """Delta-method standard error of :func:`_mse` at ``points`` with errors ``se``."""
    return np.sqrt(((1 - points) ** 2 * se ** 2).sum(-1))


class MSECheck(NamedTuple):
    """Rise-then-fall of the class-11 MSE on the disc-only read-out at one separation."""

    dc: float
    per_seed: np.ndarray     #: (S,) bool
    rise: np.ndarray         #: (S,)
    fall: np.ndarray         #: (S,)
    decidable: np.ndarray    #: (S,) a swing to the nearer training corner could raise the MSE by ``mse_min_rise``
    old_decidable: np.ndarray  #: (S,) the same on the classifier read-out of every sample (noise images included)
    null_pass_rate: float
    verdict: str
    needed: str


def noise_reading(res: dict) -> np.ndarray:
    """The classifier's reading ``(P(blue), P(small))`` of noise images: the barely
    trained model's samples (second checkpoint, every class, run and sample; at the first,
    step 0, the untrained network's output is not yet noise-like).

    Parameters
    ----------
    res : dict
        A complete sweep.

    Returns
    -------
    array (2,)
    """
    return np.asarray(A._check_res(res)["probs"], float)[:, :, 1].mean(axis=(0, 1, 2, 3))


def swing_decidable(points: np.ndarray, rules: Rules = RULES) -> np.ndarray:
    """Whether a swing toward a training corner *can* show as an MSE rise of at least
    ``rules.mse_min_rise`` on paths ``points (..., K, 2)``: some point before the closest
    approach to the nearer corner has an MSE at least that much below the corner's.
    From the noise reading (about (0.33, 0.02)) a move toward either corner lowers the
    MSE, so a path read from noise images cannot show it.

    Parameters
    ----------
    points : array (..., K, 2)
        Concept-space paths (NaN: not readable).
    rules : Rules
        The thresholds.

    Returns
    -------
    array (...) of bool
    """
    p = np.asarray(points, float)
    dist = np.stack([np.nan_to_num(np.linalg.norm(p - c, axis=-1), nan=np.inf) for c in CORNER.values()])
    k_near = np.argmin(dist.min(axis=0), axis=-1)[..., None]
    mse = np.where(np.arange(p.shape[-2]) <= k_near, _mse(p), np.nan)
    with np.errstate(invalid="ignore"):
        low = np.nanmin(np.where(np.isnan(mse), np.inf, mse), axis=-1)
    return low <= min(float(concept_mse(c)) for c in CORNER.values()) - rules.mse_min_rise


def mse_rise_checks(res: dict, rules: Rules = RULES, seed: int = 0) -> list[MSECheck]:
    """Fig. 6(b) per seed on :func:`disc_points`, from each run's first readable checkpoint.

    Parameters
    ----------
    res : dict
        A complete sweep.
    rules : Rules
        The thresholds.
    seed : int
        Seeds the null.

    Returns
    -------
    list of MSECheck
        One per separation.
    """
    pts, se = disc_points(res, rules)
    steps = _steps(res)
    mse, mse_se = _mse(pts), _mse_se(pts, se)
    old_dec = swing_decidable(A.trajectories(res)[:, :, 1:, CLASS_11], rules)   # (D, S), every sample read
    rng = np.random.default_rng(seed)
    out = []
    for i, dc in enumerate(_dcs(res)):
        S = pts.shape[1]
        ok, rise, fall, dec = np.zeros(S, bool), np.full(S, np.nan), np.full(S, np.nan), np.zeros(S, bool)
        null = 0
        for s in range(S):
            valid = np.flatnonzero(np.isfinite(mse[i, s]))
            if valid.size < 3:
                continue
            v = valid[0]
            ok[s], rise[s], fall[s] = rise_fall(mse[i, s, v:], mse_se[i, s, v:], rules.mse_min_rise, rules.z)
            dec[s] = swing_decidable(pts[i, s, v:], rules)
            noise = np.nan_to_num(se[i, s, v:], nan=float(np.nanmax(se[i, s, v:])))
            paths = monotone_per_coordinate(pts[i, s, v], pts[i, s, valid[-1]], steps[v:], noise, rules.n_null, rng)
            null += rise_fall(concept_mse(paths), _mse_se(paths, noise[None]), rules.mse_min_rise, rules.z)[0].sum()
        n_runs = int(sum(np.isfinite(rise)))
        rate = float(null / max(rules.n_null * n_runs, 1))
        oc = Outcome(int(ok.sum()), S, rate, bool(dec.mean() >= rules.partly_seed_fraction))
        out.append(MSECheck(float(dc), ok, rise, fall, dec, old_dec[i], rate, verdict(oc, rules),
                            _needed(int(ok.sum()), S, rate, rules, oc.decidable)))
    return out
