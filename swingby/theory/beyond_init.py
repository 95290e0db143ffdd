"""The initialisation checks of App. E.2 (designs: :mod:`swingby.claims.beyond_two_concepts`): eq.
(E.1) against wrong variants, and how often swing-by occurs at several widths at one initial scale."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from swingby import _checks
from swingby.sim.run_checks import seed_list
from swingby.sim.symmetric import dynamics_a, initial_U, x_hat_of
from swingby.theory.statistics import swing_matrix

__all__ = ["E1_FORMULAS", "E1Units", "WidthCounts", "e1_units", "width_counts"]

#: eq. (E.1) and its wrong variants: name -> (E w_ii, E w_ij for i != j) as functions of
#: (d', tau); each variant changes one side of the equation
E1_FORMULAS = {
    "eq. (E.1)": (lambda dp, tau: dp * tau**2, lambda dp, tau: 0.0),
    "E w_ii = tau^2 (no d')": (lambda dp, tau: tau**2, lambda dp, tau: 0.0),
    "E w_ii = d' tau": (lambda dp, tau: dp * tau, lambda dp, tau: 0.0),
    "E w_ii = sqrt(d') tau^2": (lambda dp, tau: np.sqrt(dp) * tau**2, lambda dp, tau: 0.0),
    "E w_ij = tau^2 (i != j)": (lambda dp, tau: dp * tau**2, lambda dp, tau: tau**2),
}


class E1Units(NamedTuple):
    """Output of :func:`e1_units`."""

    d_primes: tuple  #: the widths, one unit each
    passes: dict  #: formula name -> ``(len(d_primes),)`` bool, within ``n_se`` standard errors
    mean_diag: np.ndarray  #: ``(len(d_primes),)`` sample mean of ``w_11``
    mean_off: np.ndarray  #: ``(len(d_primes),)`` sample mean of ``w_12``
    se_diag: np.ndarray  #: their standard errors
    se_off: np.ndarray

    @property
    def k(self) -> int:
        """Widths at which eq. (E.1) passes."""
        return int(np.sum(self.passes["eq. (E.1)"]))

    @property
    def variants_passing(self) -> int:
        """Wrong variants that pass at every width."""
        return int(sum(np.all(v) for name, v in self.passes.items() if name != "eq. (E.1)"))

    @property
    def n_variants(self) -> int:
        """Wrong variants."""
        return len(self.passes) - 1


def _widths(d_primes, d: int) -> tuple:
    return tuple(_checks.integer(f"d_primes[{k}]", v, low=d) for k, v in enumerate(_checks.sequence("d_primes", d_primes)))


def e1_units(d: int, d_primes, tau: float, seeds_per_width, n_se: float = 5.0) -> E1Units:
    """Eq. (E.1) checked by sampling ``W = U U^T`` with ``U ~ N(0, tau^2)`` at each width ``d'``: a
    formula (:data:`E1_FORMULAS`) passes at a width when the sample means of ``w_11`` and ``w_12`` are
    both within ``n_se`` standard errors of its expectations.

    Parameters
    ----------
    d, d_primes, tau, seeds_per_width, n_se
        Dimension, ``>= 2``; widths, each ``>= d``; the scale of ``U``; the seeds of each width (at
        least 2 each); the tolerance.
    """
    d = _checks.integer("d", d, low=2)
    d_primes = _widths(d_primes, d)
    tau = _checks.positive_float("tau", tau)
    n_se = _checks.positive_float("n_se", n_se)
    blocks = _checks.sequence("seeds_per_width", seeds_per_width)
    if len(blocks) != len(d_primes):
        raise ValueError(f"seeds_per_width must hold one sequence of seeds per width ({len(d_primes)}), "
                         f"got {len(blocks)}")
    stats = np.zeros((4, len(d_primes)))
    for i, (dp, seeds) in enumerate(zip(d_primes, blocks)):
        seeds = seed_list(f"seeds_per_width[{i}]", seeds, distinct=True)
        if len(seeds) < 2:
            raise ValueError(f"seeds_per_width[{i}] must hold at least 2 seeds, got {len(seeds)}")
        U = initial_U(d, seeds, d_prime=dp, init="gaussian", init_scale=tau)
        W = U @ np.swapaxes(U, -1, -2)
        diag, off = W[:, 0, 0], W[:, 0, 1]
        stats[:, i] = diag.mean(), off.mean(), diag.std(ddof=1) / np.sqrt(diag.size), \
            off.std(ddof=1) / np.sqrt(off.size)
    mean_d, mean_o, se_d, se_o = stats
    passes = {name: (np.abs(mean_d - [f_diag(dp, tau) for dp in d_primes]) <= n_se * se_d)
              & (np.abs(mean_o - [f_off(dp, tau) for dp in d_primes]) <= n_se * se_o)
              for name, (f_diag, f_off) in E1_FORMULAS.items()}
    return E1Units(d_primes, passes, mean_d, mean_o, se_d, se_o)


class WidthCounts(NamedTuple):
    """Output of :func:`width_counts`."""

    n_swing: np.ndarray  #: ``(len(d_primes), len(w0s))`` runs with two or more descents
    n_seeds: int  #: runs per cell
    d_primes: tuple
    w0s: tuple

    @property
    def percent(self) -> np.ndarray:
        """``100 n_swing / n_seeds``."""
        return 100.0 * self.n_swing / self.n_seeds


def width_counts(mu, sigma, d: int, d_primes, w0s, seeds_per_width, *, matrix: str = "authors",
                 eta: float = 0.02, steps: int = 2500, rel_tol: float = 0.01) -> WidthCounts:
    """How often swing-by (two or more descents) occurs at each width ``d'`` with the initial scale
    ``w0 = E w_ii(0) = d' tau^2`` held fixed (App. E.2): Gaussian ``U`` ``(d, d')`` with ``tau =
    sqrt(w0 / d')``, gradient steps on ``U``; the columns of one width share its seeds, scaled.

    Parameters
    ----------
    mu, sigma, d, matrix, eta, steps, rel_tol
        As in :func:`~swingby.theory.statistics.phase_diagram`.
    d_primes, w0s, seeds_per_width
        Widths, each ``>= d``; initial scales; one sequence of seeds per width, all of one length.
    """
    d = _checks.positive_int("d", d)
    d_primes = _widths(d_primes, d)
    w0s = tuple(_checks.positive_float(f"w0s[{k}]", w) for k, w in enumerate(_checks.sequence("w0s", w0s)))
    blocks = [seed_list(f"seeds_per_width[{i}]", s, distinct=True)
              for i, s in enumerate(_checks.sequence("seeds_per_width", seeds_per_width))]
    if len(blocks) != len(d_primes) or len({len(b) for b in blocks}) != 1:
        raise ValueError(f"seeds_per_width must hold {len(d_primes)} sequences of seeds (one per width) of "
                         f"one length, got lengths {[len(b) for b in blocks]}")
    a = dynamics_a(mu, sigma, d, matrix=matrix)
    counts = np.zeros((len(d_primes), len(w0s)), dtype=int)
    for i, (dp, seeds) in enumerate(zip(d_primes, blocks)):
        base = initial_U(d, seeds, d_prime=dp, init="gaussian", init_scale=1.0)
        counts[i] = swing_matrix(a, x_hat_of(mu, d), base, [np.sqrt(w0 / dp) for w0 in w0s], eta, steps, rel_tol,
                                 f"the dynamics overflowed at d' = {dp}: use a smaller eta or w0").sum(axis=1)
    return WidthCounts(counts, len(blocks[0]), d_primes, w0s)
