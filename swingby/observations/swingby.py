"""The non-monotone OOD test loss of Sec. 3.3 (App. F.2): its rise above its running minimum, over seeds."""
from __future__ import annotations

import bisect
from typing import NamedTuple, Sequence

import numpy as np

from swingby import _checks
from swingby.observations.learning import check_record, check_records, x_hat_norm
from swingby.sim.train_loop import TrainRecord

__all__ = ["record_rise", "SeedStatistics", "seed_statistics"]


def loss_rise(test_loss: np.ndarray, scale: float) -> float:
    """``max_t [L(t) - min_{t' <= t} L(t')] / scale`` (eq. obs-rise): 0 for a non-increasing curve."""
    L = np.asarray(test_loss, dtype=float)
    return float(np.max(L - np.minimum.accumulate(L)) / scale)


def record_rise(rec: TrainRecord) -> float:
    """The rise (eq. obs-rise) of a run's OOD test loss, in units of ``0.5 * ||x_hat||^2`` (the zero output's loss)."""
    rec = check_record("rec", rec)
    return loss_rise(rec.test_loss, 0.5 * x_hat_norm(rec) ** 2)


class SeedStatistics(NamedTuple):
    """What :func:`seed_statistics` returns: the rises of a set of runs, one per seed."""

    n: int  #: number of runs
    rises: np.ndarray  #: ``(n,)`` :func:`record_rise` of every run
    fraction: float  #: share of the runs whose rise is above the threshold (non-monotone)
    mean_rise: float  #: mean of ``rises``
    max_rise: float  #: largest of ``rises``


def seed_statistics(records: Sequence[TrainRecord], threshold: float) -> SeedStatistics:
    """The share of runs whose :func:`record_rise` is above ``threshold``, the mean and the largest (Sec. 3.3).

    Parameters
    ----------
    records, threshold
        Finite runs; the rise ``>= 0`` above which a run counts as non-monotone.
    """
    records = check_records("records", records)
    threshold = _checks.number("threshold", threshold, low=0)
    rises = np.array([record_rise(r) for r in records])
    return SeedStatistics(n=len(rises), rises=rises, fraction=float((rises > threshold).mean()),
                          mean_rise=float(rises.mean()), max_rise=float(rises.max()))


def fisher_seeds_needed(p_low: float, p_high: float, *, alpha: float = 0.05, power: float = 0.8,
                        max_n: int = 2000) -> int | None:
    """Fewest seeds per group for a one-sided Fisher test of rates ``p_low > p_high`` at ``alpha`` and ``power``."""
    from scipy import stats as sps

    if not p_low > p_high:
        return None

    def power_at(n: int) -> float:
        k = np.arange(n + 1)
        w_low, w_high = sps.binom.pmf(k, n, p_low), sps.binom.pmf(k, n, p_high)
        # hypergeometric tail P(X >= k1 | k1 + k2 successes, n and n): the Fisher p-value
        k1, k2 = np.meshgrid(k, k, indexing="ij")
        keep = (w_low[:, None] * w_high[None, :]) > 1e-12
        p = np.ones_like(k1, dtype=float)
        p[keep] = sps.hypergeom.sf(k1[keep] - 1, 2 * n, k1[keep] + k2[keep], n)
        return float(np.sum(w_low[:, None] * w_high[None, :] * (p <= alpha)))

    if power_at(max_n) < power:
        return None
    # power grows with n up to the test's discreteness: a bisection over 1..max_n is close enough
    return 1 + bisect.bisect_left(range(1, max_n), True, key=lambda n: power_at(n) >= power)
