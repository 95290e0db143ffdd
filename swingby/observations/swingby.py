"""Non-monotone OOD test loss, its seed statistics and the swing-by check (Sec. 3.3,
App. F.2).

:func:`~swingby.observations.swingby.loss_rise` and :func:`~swingby.observations.swingby.record_rise` measure how far a test-loss curve rises above
its running minimum; :func:`~swingby.observations.swingby.seed_statistics` counts the non-monotone runs over seeds;
:func:`~swingby.observations.swingby.permutation_pvalue` and :func:`~swingby.observations.swingby.low_vs_high_pvalue` test whether they are more
frequent at low ``d``; :func:`~swingby.observations.swingby.swingby_check` is the chapter's claim check. Used in
``book/observations.md`` (Figs. 3, 13, 14) and ``book/ood_checks.md``. Every name is
imported from :mod:`swingby.observations`.
"""
from __future__ import annotations

from typing import Mapping, NamedTuple, Sequence

import numpy as np

from swingby import _checks
from swingby.observations.learning import _record, _record_list, _x_hat_norm
from swingby.sim.train_loop import TrainRecord


def loss_rise(test_loss: np.ndarray, scale: float | None = None) -> float:
    """Size of the largest rise of a loss curve above its running minimum:
    ``max_t [L(t) - min_{t' <= t} L(t')] / scale`` (eq. obs-rise).

    The chapters use ``scale = 0.5 * ||x_hat||^2`` (:func:`record_rise`), the loss of the
    zero output, which does not depend on a lucky initialisation. 0 for a monotone
    non-increasing curve. A curve is called *non-monotone* when this exceeds a threshold
    chosen above the SGD noise (see ``book/observations.md``).

    Parameters
    ----------
    test_loss : array_like(float, ndim=1)
        The loss curve, finite, at least 2 values.
    scale : float or None
        The unit of the rise, ``> 0``; ``None`` for ``test_loss[0]``.

    Returns
    -------
    float
        The rise, ``>= 0``.
    """
    L = _checks.array("test_loss", test_loss, min_size=0, finite=False)
    if L.ndim != 1 or L.size < 2:
        raise ValueError(f"test_loss must be a 1-D curve of length >= 2, got shape {L.shape}")
    if not np.all(np.isfinite(L)):
        raise ValueError("test_loss must be finite (no NaN or inf); a NaN loss means the run diverged")
    value = L[0] if scale is None else _checks.as_real(scale)
    if value is None or not 0 < value < np.inf:
        raise ValueError(f"scale must be > 0 and finite (default: test_loss[0]), got {scale!r}")
    scale = value
    return float(np.max(L - np.minimum.accumulate(L)) / scale)


def record_rise(rec: TrainRecord) -> float:
    """:func:`loss_rise` of a record's OOD test loss, relative to ``0.5 * ||x_hat||^2``."""
    rec = _record("rec", rec)
    return loss_rise(rec.test_loss, 0.5 * _x_hat_norm(rec) ** 2)


class SeedStatistics(NamedTuple):
    """What :func:`seed_statistics` returns: the rises of a set of runs, one per seed."""

    n: int  #: number of runs
    rises: np.ndarray  #: ``(n,)`` :func:`record_rise` of every run
    fraction: float  #: share of the runs whose rise is above the threshold (non-monotone)
    mean_rise: float  #: mean of ``rises``
    max_rise: float  #: largest of ``rises``


def seed_statistics(records: Sequence[TrainRecord], threshold: float) -> SeedStatistics:
    """Fraction of runs whose test loss is non-monotone (:func:`record_rise` above
    ``threshold``), and the mean and largest rise, over ``records`` (one per seed).

    Used in ``book/observations.md`` (Sec. 3.3, Figs. 13, 14).

    Parameters
    ----------
    records : sequence of TrainRecord
        Finite runs, one per seed, non-empty.
    threshold : float
        The rise ``tau >= 0`` above which a run counts as non-monotone.

    Returns
    -------
    SeedStatistics
        ``n``, ``rises``, ``fraction``, ``mean_rise`` and ``max_rise``.
    """
    records = _record_list("records", records)
    threshold = _checks.number("threshold", threshold, low=0)
    rises = np.array([record_rise(r) for r in records])
    return SeedStatistics(n=len(rises), rises=rises, fraction=float((rises > threshold).mean()),
                          mean_rise=float(rises.mean()), max_rise=float(rises.max()))


def permutation_pvalue(x: Sequence[float], y: Sequence[float], *, n_resamples: int = 10_000,
                       seed: int = 0) -> float:
    """One-sided permutation test that ``mean(x) > mean(y)`` is not chance.

    Pools ``x`` and ``y``, reassigns the group labels at random ``n_resamples`` times and
    returns the share of reassignments whose mean difference is at least the observed one
    (with the observed assignment counted, so never 0). Used in ``book/observations.md``
    to ask whether swing-by is more frequent at low ``d`` than at ``d = 64``.

    Parameters
    ----------
    x, y : array_like(float, ndim=1)
        The two samples (e.g. indicators "non-monotone" or rises per seed), each non-empty.
    n_resamples : int
        Number of random reassignments, ``> 0``.
    seed : int
        Seed of the reassignments.

    Returns
    -------
    float
        The p-value in ``(0, 1]``.
    """
    x = _checks.array("x", x, min_size=0, finite=False)
    y = _checks.array("y", y, min_size=0, finite=False)
    if x.ndim != 1 or y.ndim != 1 or x.size == 0 or y.size == 0:
        raise ValueError(f"x and y must be non-empty 1-D samples, got shapes {x.shape} and {y.shape}")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("x and y must be finite")
    n_resamples = _checks.positive_int("n_resamples", n_resamples)
    _checks.memory(24.0 * n_resamples * (x.size + y.size), f"n_resamples = {n_resamples} with {x.size + y.size} values")
    pooled = np.concatenate([x, y])
    observed = x.mean() - y.mean()
    rng = np.random.default_rng(_checks.seed("seed", seed))
    perm = rng.permuted(np.broadcast_to(pooled, (n_resamples, pooled.size)), axis=1)
    diffs = perm[:, : x.size].mean(axis=1) - perm[:, x.size:].mean(axis=1)
    return float((1 + np.sum(diffs >= observed - 1e-12)) / (n_resamples + 1))


def _statistics_by_d(stats, low_d, high_d) -> tuple[list[int], int]:
    """Check a ``{d: SeedStatistics}`` mapping and the dimensions ``low_d``, ``high_d`` read from it."""
    if not isinstance(stats, Mapping) or not all(isinstance(v, SeedStatistics) for v in stats.values()):
        raise ValueError("stats must be a dict {d: SeedStatistics} (from seed_statistics), "
                         f"got {_checks.short_repr(stats)}")
    if isinstance(low_d, (str, bytes)) or not hasattr(low_d, "__iter__") or not list(low_d):
        raise ValueError(f"low_d must be a non-empty sequence of dimensions, got {low_d!r}")
    low_d = list(low_d)
    missing = [d for d in low_d + [high_d] if d not in stats]
    if missing:
        raise ValueError(f"stats has no entry for d = {missing} (low_d = {low_d}, high_d = {high_d!r}); "
                         f"it holds d = {sorted(stats)}")
    return low_d, high_d


def low_vs_high_pvalue(stats: Mapping[int, SeedStatistics], threshold: float, *,
                       low_d: Sequence[int] = (2, 3, 8), high_d: int = 64) -> float:
    """Permutation p-value (:func:`permutation_pvalue`) that runs are non-monotone more
    often at the low dimensions ``low_d`` (pooled) than at ``high_d``.

    Used in ``book/observations.md`` (claim of Sec. 3.3), on the four-layer runs and on
    their one-layer null.

    Parameters
    ----------
    stats : dict of int to SeedStatistics
        :func:`seed_statistics` per dimension ``d``.
    threshold : float
        The rise ``tau >= 0`` above which a run counts as non-monotone.
    low_d : sequence of int
        The low dimensions, pooled.
    high_d : int
        The high dimension.

    Returns
    -------
    float
        The one-sided p-value in ``(0, 1]``.
    """
    low_d, high_d = _statistics_by_d(stats, low_d, high_d)
    threshold = _checks.number("threshold", threshold, low=0)
    flags = [(stats[d].rises > threshold).astype(float) for d in low_d]
    return permutation_pvalue(np.concatenate(flags), (stats[high_d].rises > threshold).astype(float))


def swingby_check(stats: Mapping[int, SeedStatistics], rise_low: float, rise_high: float, pvalue: float, *,
                  threshold: float, low_d: Sequence[int] = (2, 3, 8), high_d: int = 64,
                  min_fraction: float = 0.1, alpha: float = 0.05) -> bool:
    """The claim check of Sec. 3.3 (transient memorization is strongest at low ``d``), as a
    function of the statistics, so that the same check runs on the one-layer null.

    It holds when the shown low-dimensional run rises above ``threshold`` while its
    high-dimensional twin stays below ``threshold / 4``, at least ``min_fraction`` of the
    runs are non-monotone at every ``d`` in ``low_d`` and none at ``high_d``, and the
    p-value of :func:`low_vs_high_pvalue` is below ``alpha``. Used in
    ``book/observations.md``.

    Parameters
    ----------
    stats : dict of int to SeedStatistics
        :func:`seed_statistics` per dimension ``d``.
    rise_low, rise_high : float
        :func:`record_rise` of the shown run at low ``d`` and of its twin at ``high_d``.
    pvalue : float
        From :func:`low_vs_high_pvalue`, in ``[0, 1]``.
    threshold : float
        The rise ``tau >= 0`` above which a run counts as non-monotone.
    low_d : sequence of int
        The low dimensions.
    high_d : int
        The high dimension.
    min_fraction : float
        Least share of non-monotone runs at each low ``d``, in ``[0, 1]``.
    alpha : float
        Significance level, in ``(0, 1]``.

    Returns
    -------
    bool
        Whether the claim holds for these statistics.
    """
    low_d, high_d = _statistics_by_d(stats, low_d, high_d)
    rise_low = _checks.number("rise_low", rise_low, low=0)
    rise_high = _checks.number("rise_high", rise_high, low=0)
    pvalue = _checks.number("pvalue", pvalue, low=0, high=1)
    threshold = _checks.number("threshold", threshold, low=0)
    min_fraction = _checks.number("min_fraction", min_fraction, low=0, high=1)
    alpha = _checks.number("alpha", alpha, low=0, high=1, low_open=True)
    return bool(rise_low > threshold and rise_high < threshold / 4
                and min(stats[d].fraction for d in low_d) >= min_fraction
                and stats[high_d].fraction == 0.0 and pvalue < alpha)


def fisher_pvalue(k_low: int, n_low: int, k_high: int, n_high: int) -> float:
    """One-sided Fisher exact test that runs are non-monotone more often in the first
    group (``k_low`` of ``n_low``) than in the second (``k_high`` of ``n_high``)
    (``scipy.stats.fisher_exact``, ``alternative="greater"``). Used in
    ``book/observations.md`` for Fig. 3 (``d = 2`` vs ``d = 64``) and Figs. 13, 14.

    Parameters
    ----------
    k_low, n_low : int
        Non-monotone runs and runs of the first group, ``0 <= k_low <= n_low``, ``n_low > 0``.
    k_high, n_high : int
        The same for the second group.

    Returns
    -------
    float
        The p-value in ``(0, 1]``.
    """
    from scipy import stats as sps

    n_low, n_high = _checks.positive_int("n_low", n_low), _checks.positive_int("n_high", n_high)
    k_low = _checks.integer("k_low", k_low, low=0, high=n_low)
    k_high = _checks.integer("k_high", k_high, low=0, high=n_high)
    table = [[k_low, n_low - k_low], [k_high, n_high - k_high]]
    return float(sps.fisher_exact(table, alternative="greater").pvalue)


def fisher_seeds_needed(p_low: float, p_high: float, *, alpha: float = 0.05, power: float = 0.8,
                        max_n: int = 2000) -> int | None:
    """Fewest seeds per group at which :func:`fisher_pvalue` falls below ``alpha`` with
    probability ``power`` when the two groups are non-monotone at rates ``p_low`` and
    ``p_high`` (exact: the sum over both binomial counts). ``None`` if
    ``p_low <= p_high`` or more than ``max_n`` would be needed. Used in
    ``book/observations.md`` to say how many seeds would decide a contrast.

    Parameters
    ----------
    p_low, p_high : float
        The two rates, in ``[0, 1]``.
    alpha : float
        Level of the test, in ``(0, 1)``.
    power : float
        Asked probability of a significant result, in ``(0, 1)``.
    max_n : int
        Largest group size tried, ``> 0``.

    Returns
    -------
    int or None
    """
    from scipy import stats as sps

    p_low = _checks.number("p_low", p_low, low=0, high=1)
    p_high = _checks.number("p_high", p_high, low=0, high=1)
    alpha = _checks.number("alpha", alpha, low=0, high=1, low_open=True, high_open=True)
    power = _checks.number("power", power, low=0, high=1, low_open=True, high_open=True)
    max_n = _checks.positive_int("max_n", max_n)
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

    lo, hi = 1, max_n
    if power_at(hi) < power:
        return None
    while lo < hi:  # power grows with n up to the test's discreteness: a bisection is close enough
        mid = (lo + hi) // 2
        if power_at(mid) >= power:
            hi = mid
        else:
            lo = mid + 1
    return lo
