"""The probe claims of the capability study (``book/capability.md``, App. D of the
hidden-capabilities paper): how well a probe's transition step tracks the capability
time run by run (:func:`probe_score`, :func:`coincidence_check`), against the null of the
probe's steps shuffled among the seeds of each separation (:func:`coincidence_with_null`).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from swingby import _checks
from swingby.capability.measures import CrossingTimes, _times
from swingby.capability.probes import checkpoint_gap
from swingby.capability.spread import _corr, permute_seeds
from swingby.diffusion.fig6.nulls import pass_rate
from swingby.diffusion.rules import OLD_RULES as R


class ProbeScore(NamedTuple):
    """How well a probe's transition step predicts capability time over the runs.

    ``r_capability``: Pearson correlation with the capability time; ``p_value``: share
    of within-separation shuffles (:func:`~swingby.capability.spread.permute_seeds`) with a correlation at least as
    large; ``median_gap``: median of ``|t_probe - t_capability|``; ``r_behaviour``: the
    correlation with the behaviour time (runs where behaviour crosses); ``n``: runs used.
    """

    name: str
    r_capability: float
    p_value: float
    median_gap: float
    r_behaviour: float
    n: int


def probe_score(name: str, t_probe: np.ndarray, times: CrossingTimes, *, n_perm: int = R.n_perm,
                seed: int = 0) -> ProbeScore:
    """Score one probe against the capability time (the probe table of the chapter).

    Old rule (:data:`~swingby.diffusion.rules.OLD_RULES`), kept until the chapters move to
    :func:`swingby.capability.time_checks.disentanglement` (seed-level permutation, power).

    Parameters
    ----------
    name : str
        The probe's name in the table.
    t_probe : array (D, S)
        The probe's transition step per run.
    times : CrossingTimes
        Capability and behaviour times per run.
    n_perm : int
        Within-separation shuffles for the p-value.
    seed : int
        Seeds the shuffles.

    Returns
    -------
    ProbeScore
    """
    _checks.instance("times", times, CrossingTimes)
    t_cap = _times("times.capability", times.capability)
    t_beh = _times("times.behaviour", times.behaviour, t_cap.shape)
    t = _times("t_probe", t_probe, t_cap.shape)
    n_perm = _checks.positive_int("n_perm", n_perm)
    rng = np.random.default_rng(_checks.seed("seed", seed))
    ok = np.isfinite(t) & np.isfinite(t_cap)
    r = _corr(t[ok], t_cap[ok])
    if np.isfinite(r):
        # shuffle the probe among seeds of a separation, only over the runs used
        masked = np.where(ok, t, np.nan)
        null = [_corr(permute_seeds(masked, rng)[ok], t_cap[ok]) for _ in range(n_perm)]
        p = float((1 + np.sum(np.nan_to_num(null, nan=-np.inf) >= r - 1e-12)) / (1 + n_perm))
    else:
        p = float("nan")
    okb = ok & np.isfinite(t_beh)
    gap = float(np.median(np.abs(t[ok] - t_cap[ok]))) if ok.any() else float("nan")
    return ProbeScore(str(name), r, p, gap, _corr(t[okb], t_beh[okb]), int(ok.sum()))


def coincidence_check(t_probe: np.ndarray, t_cap: np.ndarray, tolerance: np.ndarray, *,
                      min_r: float = R.coincide_min_r, min_fraction: float = R.coincide_min_fraction) -> bool:
    """Claim check: a probe's transition coincides with the capability time.

    Passes when, over the runs where both are measured, the correlation is at least
    ``min_r`` and in at least ``min_fraction`` of the runs ``|t_probe - t_cap|`` is within
    ``tolerance`` (per run, e.g. :func:`~swingby.capability.probes.checkpoint_gap` at the capability time).

    Parameters
    ----------
    t_probe, t_cap : array (D, S)
        Probe and capability times per run.
    tolerance : array (D, S) or float
        Largest gap that counts as coinciding.
    min_r : float
        Smallest correlation over the runs.
    min_fraction : float
        Share of runs that must coincide.

    Returns
    -------
    bool
    """
    t_cap = _times("t_cap", t_cap)
    t = _times("t_probe", t_probe, t_cap.shape)
    tol = np.broadcast_to(np.asarray(tolerance, float), t_cap.shape)
    min_r = _checks.number("min_r", min_r, low=-1, high=1)
    min_fraction = _checks.number("min_fraction", min_fraction, low=0, high=1, low_open=True)
    ok = np.isfinite(t) & np.isfinite(t_cap) & np.isfinite(tol)
    if ok.sum() < 3:
        raise ValueError(f"need at least three runs where t_probe, t_cap and tolerance are finite, got {ok.sum()}")
    r = _corr(t[ok], t_cap[ok])
    close = np.abs(t[ok] - t_cap[ok]) <= tol[ok]
    return bool(np.isfinite(r) and r >= min_r and close.mean() >= min_fraction)


def coincidence_with_null(t_probe: np.ndarray, t_cap: np.ndarray, steps: np.ndarray, *, n: int = R.n_null,
                          seed: int = 0) -> tuple[bool, float]:
    """:func:`coincidence_check` of a probe's steps with the capability times, within one
    checkpoint interval at the capability time, and the pass rate of its null (the
    probe's steps shuffled among the seeds of each separation) (``book/capability.md``).

    Parameters
    ----------
    t_probe, t_cap : numpy.ndarray
        The probe's transition steps and the capability times, ``(D, S)``.
    steps : numpy.ndarray
        The checkpoint steps.
    n, seed : int
        Null data sets and the seed of their generator.

    Returns
    -------
    tuple of (bool, float)
        The verdict and the null's pass rate.
    """
    tol = checkpoint_gap(steps, np.where(np.isfinite(t_cap), t_cap, np.nan))

    def check(t: np.ndarray) -> bool:
        return coincidence_check(t, t_cap, tol)
    return check(t_probe), pass_rate(check, lambda g: permute_seeds(t_probe, g), n=n, seed=seed)
