"""Statistics over many initialisations (App. E.1-E.3): the descents of the test loss at one
setting, and the phase diagram of swing-by over the dimension and the initial scale (App. E.2)."""
from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np

from swingby import _checks
from swingby.sim.symmetric import SymmetricRecord, dynamics_a, initial_U, simulate_symmetric, x_hat_of
from swingby.theory.stages import count_descents

__all__ = ["DescentStats", "PhaseDiagram", "descent_statistics", "phase_diagram"]


class DescentStats(NamedTuple):
    """Output of :func:`descent_statistics`, one entry per initialisation."""

    n_descents: np.ndarray  #: ``(B,)`` descents of the test loss (``-1`` where (D.2) diverged)
    unfinished: np.ndarray  #: ``(B,)`` bool, some major entry still below 1/2 at the end
    diverged: np.ndarray  #: ``(B,)`` bool, the iteration overflowed (only ``iterate="W"``)
    record: SymmetricRecord  #: the batched trajectories


def descent_statistics(mu, sigma, d: int, *, n_seeds: int = 200, init: str = "uniform",
                       init_scale: float = 0.1, d_prime: int | None = None, eta: float = 0.01,
                       steps: int = 10_000, rel_tol: float = 0.01, record_every: int = 10,
                       iterate: str = "U", origin_cluster: bool = False,
                       matrix: str = "authors") -> DescentStats:
    """The descents of the test loss at ``x_hat``, and whether the run is unfinished, from each of the
    initialisations ``0..n_seeds-1`` (App. E.1-E.3); runs that diverge (only ``iterate="W"``) are flagged.

    Parameters
    ----------
    mu, sigma, d, origin_cluster, matrix
        As in :func:`~swingby.sim.symmetric.dynamics_a`.
    n_seeds, rel_tol
        Initialisations; as in :func:`~swingby.theory.stages.count_descents`.
    init, init_scale, d_prime, eta, steps, record_every, iterate
        As in :func:`~swingby.sim.symmetric.initial_U` and :func:`~swingby.sim.symmetric.simulate_symmetric`.
    """
    a = dynamics_a(mu, sigma, d, matrix=matrix, origin_cluster=origin_cluster)
    s = len(np.atleast_1d(mu))
    rel_tol = _checks.number("rel_tol", rel_tol, low=0)
    U0 = initial_U(d, range(_checks.positive_int("n_seeds", n_seeds)), d_prime=d_prime, init=init,
                   init_scale=init_scale)
    with warnings.catch_warnings():  # the diverged runs are flagged
        warnings.simplefilter("ignore", RuntimeWarning)
        rec = simulate_symmetric(U0, a, eta, steps, x_hat_of(mu, d), record_every=record_every, iterate=iterate)
    diverged = ~np.isfinite(rec.test_loss).all(axis=1)
    n_desc = np.full(U0.shape[0], -1)
    if (~diverged).any():
        n_desc[~diverged] = count_descents(rec.test_loss[~diverged], rel_tol=rel_tol)
    final_diag = np.diagonal(rec.W[:, -1], axis1=-2, axis2=-1)[:, :s]
    unfinished = ~diverged & (final_diag < 0.5).any(axis=1)
    return DescentStats(n_desc, unfinished, diverged, rec)


def swing_matrix(a, x_hat, base: np.ndarray, scales, eta, steps, rel_tol, overflow: str) -> np.ndarray:
    """``(len(scales), B)``: which runs from ``base * scale`` (gradient steps on ``U``) descend twice or more."""
    U0 = np.concatenate([base * c for c in scales])
    rec = simulate_symmetric(U0, a, eta, steps, x_hat, record_every=10, iterate="U")
    if not np.all(np.isfinite(rec.test_loss)):
        raise ValueError(overflow)
    return count_descents(rec.test_loss, rel_tol=rel_tol).reshape(len(scales), base.shape[0]) >= 2


class PhaseDiagram(NamedTuple):
    """Output of :func:`phase_diagram`."""

    percent: np.ndarray  #: ``(len(d_values), len(taus))`` % of runs with two or more descents
    d_values: tuple
    taus: tuple


def phase_diagram(mu, sigma, d_values, taus, *, matrix: str = "authors", n_seeds: int = 100,
                  eta: float = 0.02, steps: int = 2500, rel_tol: float = 0.01) -> PhaseDiagram:
    """How often swing-by occurs over the dimension ``d = d'`` and the initial scale ``tau`` (App. E.2):
    ``U ~ N(0, tau^2)``, gradient steps on ``U``, seeds ``0..n_seeds-1`` at every ``d``.

    Parameters
    ----------
    mu, sigma, matrix, n_seeds, eta, steps, rel_tol
        As in :func:`descent_statistics`.
    d_values, taus : sequence
        Dimensions ``>= len(mu)``; initial scales.
    """
    d_values = tuple(_checks.positive_int(f"d_values[{k}]", d) for k, d in enumerate(_checks.sequence("d_values", d_values)))
    taus = tuple(_checks.positive_float(f"taus[{k}]", tau) for k, tau in enumerate(_checks.sequence("taus", taus)))
    n = _checks.positive_int("n_seeds", n_seeds)
    _checks.memory(8.0 * n * len(taus) * (_checks.positive_int("steps", steps) // 10 + 2) * max(d_values) ** 2,
                   f"n_seeds = {n} x {len(taus)} taus x steps = {steps} at d = {max(d_values)}")
    percent = np.zeros((len(d_values), len(taus)))
    for i, d in enumerate(d_values):
        a = dynamics_a(mu, sigma, d, matrix=matrix)
        base = initial_U(d, range(n), init="gaussian", init_scale=1.0)
        swings = swing_matrix(a, x_hat_of(mu, d), base, taus, eta, steps, rel_tol,
                              f"the dynamics overflowed at d = {d}: eta = {eta} is too large for the largest "
                              f"a = {a.max():.3g} (mu, sigma) or tau = {max(taus)}; use a smaller eta")
        percent[i] = np.mean(swings, axis=1) * 100
    return PhaseDiagram(percent, d_values, taus)
