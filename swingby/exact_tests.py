"""Exact tests for the verdict rule of :mod:`swingby.verdicts`: one-sided Fisher tests for two groups
of units, the exact McNemar test for paired units, binomial tests, and their power summed exactly
over the binomial outcomes."""
from __future__ import annotations

import numpy as np
from scipy import stats

__all__ = ["fisher_p", "binomial_power"]

#: level of every test
ALPHA = 0.05
#: power asked of a test
POWER = 0.8
#: largest number of units ``smallest_units`` searches
MAX_UNITS = 5000


def fisher_p(k: int, n: int, null_k: int, null_n: int, alternative: str = "greater") -> float:
    """One-sided Fisher exact p-value that ``k`` of ``n`` is a higher pass rate than ``null_k`` of ``null_n``.

    Parameters
    ----------
    k, n, null_k, null_n, alternative
        Passing and checked units of the claim and of the comparator; "greater", or "less" for a lower rate.
    """
    table = [[k, n - k], [null_k, null_n - null_k]]
    return float(stats.fisher_exact(table, alternative=alternative).pvalue)


def sign_test_p(b: int, c: int, alternative: str = "greater") -> float:
    """Exact McNemar p-value: a sign test on ``b`` pairs where only the claimed side passes, ``c`` only the other."""
    if b + c == 0:
        return 1.0
    return float(stats.binomtest(b, b + c, 0.5, alternative=alternative).pvalue)


def _window(n: int, p: float) -> np.ndarray:
    """Counts of a binomial(n, p) that carry all but 1e-12 of its mass."""
    lo, hi = stats.binom.ppf([1e-12, 1 - 1e-12], n, p)
    return np.arange(int(max(lo - 1, 0)), int(min(hi + 1, n)) + 1)


def fisher_power(p1: float, n1: int, p0: float, n0: int) -> float:
    """Power of :func:`fisher_p` with true rates ``p1`` in ``n1`` units and ``p0`` in ``n0``."""
    if n1 == 0 or n0 == 0:
        return 0.0
    a, b = _window(n1, p1), _window(n0, p0)
    A, B = np.meshgrid(a, b, indexing="ij")
    pval = stats.hypergeom.sf(A - 1, n1 + n0, A + B, n1)
    weight = np.outer(stats.binom.pmf(a, n1, p1), stats.binom.pmf(b, n0, p0))
    return float(np.sum(weight * (pval <= ALPHA)))


def binomial_power(p1: float, n: int, p0: float = 0.5) -> float:
    """Power of the exact binomial test that the pass rate of ``n`` units exceeds ``p0``, at the true rate ``p1``.

    Parameters
    ----------
    p1, n, p0
        The true pass rate, the units, and the rate under the test's hypothesis.
    """
    if n == 0:
        return 0.0
    ks = np.arange(n + 1)
    reject = stats.binom.sf(ks - 1, n, p0) <= ALPHA
    return float(np.sum(stats.binom.pmf(ks, n, p1)[reject]))


def smallest_units(power_at, start: int) -> int | None:
    """Smallest ``n >= start`` at which ``power_at(n)`` reaches ``POWER`` (None above ``MAX_UNITS``)."""
    n = lo = max(int(start), 1)
    while power_at(n) < POWER:
        lo, n = n, n * 2
        if n > MAX_UNITS:
            return None
    while n - lo > 1:
        mid = (lo + n) // 2
        lo, n = (lo, mid) if power_at(mid) >= POWER else (mid, n)
    return n


def discordant_pairs(passes, null_passes) -> tuple[int, int]:
    """``(b, c)``: the paired units where only ``passes`` is true, and where only ``null_passes`` is."""
    a, b = np.asarray(passes), np.asarray(null_passes)
    if a.ndim != 1 or a.shape != b.shape or a.size == 0 or a.dtype != bool or b.dtype != bool:
        raise ValueError(f"passes and null_passes must be boolean 1-D arrays of one length (one outcome per "
                         f"unit), got {a.dtype} {a.shape} and {b.dtype} {b.shape}")
    return int(np.sum(a & ~b)), int(np.sum(~a & b))
