"""Assumptions D.1-D.5 (App. D.1) and the settings of the paper's theory figures (Sec. 4.2,
App. E) as the authors' scripts ran them."""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from swingby import _checks
from swingby.sim.symmetric import SymmetricRecord, authors_a, dynamics_a, initial_U, simulate_symmetric, x_hat_of
from swingby.theory.stages import Stages, detect_stages
from swingby.theory.statistics import DescentStats, descent_statistics

__all__ = ["THEORY_SETTINGS", "AssumptionConstants", "AssumptionReport", "Inequality", "StagedRun", "TheorySetting",
           "check_assumptions"]


class Inequality(NamedTuple):
    """One inequality ``lhs <= rhs`` of Assumptions D.1-D.5."""

    holds: bool  #: ``lhs <= rhs``
    lhs: float
    rhs: float
    ratio: float  #: ``lhs / rhs``; ``> 1`` means it fails by that factor (``inf`` when ``rhs <= 0``)
    margin: float  #: ``rhs - lhs``


class AssumptionConstants(NamedTuple):
    """The constants :func:`check_assumptions` used (App. D.1)."""

    alpha: float  #: ``min a_k`` over the informative directions
    gamma: float  #: ``max a_k / alpha``
    beta: float
    omega: float
    K: float
    P: float
    kappa: float
    C: float
    d: int


class AssumptionReport(dict):
    """Output of :func:`check_assumptions`: name (e.g. ``"D.3 P omega beta <= 0.4"``) -> :class:`Inequality`,
    in the order of App. D.1, with the ``constants`` used."""

    def __init__(self, inequalities: dict, constants: AssumptionConstants):
        super().__init__(inequalities)
        self.constants = constants

    @property
    def all_hold(self) -> bool:
        """Whether every inequality holds."""
        return all(q.holds for q in self.values())


def check_assumptions(a, omega: float, eta: float, *, beta: float = 1.0, d: int | None = None,
                      K: float = 20.0, P: float = 2.0, kappa: float = 1.2,
                      C: float | None = None) -> AssumptionReport:
    """Which of Assumptions D.1-D.5 (App. D.1) hold for a setting, and by how much: ``alpha = min a_k``
    and ``gamma = max a_k / alpha`` over the directions with ``a_k > 0``; D.5 for every pair ``a_i > a_j``.

    Parameters
    ----------
    a, eta, d
        The diagonal of ``A``, at least one entry ``> 0``; the step of (D.2); the dimension (default ``len(a)``).
    omega, beta : float
        The initialisation: ``omega <= |w_ij(0)| <= beta omega``, ``beta >= 1``.
    K, P, kappa, C : float
        The free constants of App. D.1: ``K >= 20``, ``P > 1``, ``kappa > 1.1``, ``C > 0`` (default the
        largest D.4 allows, ``K / (2 (kappa - 1))``).
    """
    a = _checks.nonneg_vector("a", a)
    omega = _checks.positive_float("omega", omega)
    beta = _checks.positive_float("beta", beta)
    eta = _checks.positive_float("eta", eta)
    d = a.size if d is None else _checks.positive_int("d", d)
    if beta < 1:
        raise ValueError(f"beta must be >= 1 (max |w_ij(0)| / min |w_ij(0)|), got {beta}")
    K = _checks.number("K", K, low=20)
    P = _checks.number("P", P, low=1, low_open=True)
    kappa = _checks.number("kappa", kappa, low=1.1, low_open=True)
    ai = np.sort(a[a > 0])[::-1]
    if ai.size == 0:
        raise ValueError("a must have at least one entry > 0")
    alpha, gamma = float(ai[-1]), float(ai[0] / ai[-1])
    C = K / (2 * (kappa - 1)) if C is None else _checks.positive_float("C", C)
    rep = {}

    def add(name, lhs, rhs):
        lhs, rhs = float(lhs), float(rhs)
        ratio = lhs / rhs if rhs > 0 else (0.0 if lhs <= rhs else np.inf)
        rep[name] = Inequality(bool(lhs <= rhs), lhs, rhs, ratio, rhs - lhs)

    add("D.1 (a_k > 0 for every k)", float(np.sum(a == 0)), 0.0)
    add("D.2 eta <= 1/(9 K gamma alpha)", eta, 1 / (9 * K * gamma * alpha))
    add("D.3 P omega beta <= 0.4", P * omega * beta, 0.4)
    bound = min(min(kappa - 1, 1 - kappa**-0.5) / (P * K * gamma * d * beta**2), 1 / np.sqrt(2 * beta))
    add("D.4 omega <= bound", omega, bound)
    add("D.4 kappa <= 1 + K/(2C), P >= 2", max(kappa - 1 - K / (2 * C), 2 - P) + 1, 1.0)
    if ai.size > 1:
        big, small = np.meshgrid(ai, ai, indexing="ij")
        mask = big > small
        log_arg = 1 / (P * beta * omega)
        rhs = np.log(P) / (10 * kappa**2 * np.log(log_arg) + np.log(P * beta)) if log_arg > 1 else -np.inf
        add("D.5 (a_i + a_j)/(2 a_i) <= rhs", ((big + small) / (2 * big))[mask].max(), rhs)
        add("D.5 a_i - 3 a_j >= alpha / C", alpha / C, (big - 3 * small)[mask].min())
    return AssumptionReport(rep, AssumptionConstants(alpha, gamma, beta, omega, K, P, kappa, C, d))


class StagedRun(NamedTuple):
    """Output of :meth:`TheorySetting.run_with_stages`: one trajectory and its stages."""

    record: SymmetricRecord
    stages: Stages


@dataclass(frozen=True)
class TheorySetting:
    """One setting of the paper's theory figures (Sec. 4.2, App. E) as the authors' scripts ran it;
    ``U0`` draws their ``torch.rand(d, d) * init_scale`` after seeding with ``seed``."""

    name: str  #: e.g. ``"Fig. 5"``
    mu: tuple  #: cluster distances ``mu_p``, ``s = len(mu)``
    sigma: object  #: standard deviation: one number (all ``d`` axes) or one per concept
    d: int  #: dimension
    init_scale: float  #: ``U(0)`` entries are ``U[0, 1) * init_scale``
    steps: int  #: iterations of (D.2)
    seed: int  #: the authors' seed
    eta: float = 0.01  #: step of (D.2)
    origin_cluster: bool = False  #: count a cluster at 0 in eq. (C.13) (``matrix="paper"`` only)

    def __post_init__(self):
        _checks.instance("name", self.name, str)
        authors_a(self.mu, self.sigma, self.d)  # checks mu, sigma, d
        _checks.positive_float("init_scale", self.init_scale)
        _checks.positive_int("steps", self.steps)
        _checks.seed("seed", self.seed)
        _checks.positive_float("eta", self.eta)
        _checks.flag("origin_cluster", self.origin_cluster)

    @property
    def s(self) -> int:
        """Number of concepts."""
        return len(self.mu)

    @property
    def x_hat(self) -> np.ndarray:
        """The OOD test point ``sum_p mu_p e_p``, ``(d,)``."""
        return x_hat_of(self.mu, self.d)

    def a(self, matrix: str = "authors") -> np.ndarray:
        """The diagonal the dynamics run with (:func:`~swingby.sim.symmetric.dynamics_a`)."""
        return dynamics_a(self.mu, self.sigma, self.d, matrix=matrix,
                          origin_cluster=self.origin_cluster and matrix == "paper")

    def U0(self, seeds=None) -> np.ndarray:
        """Initial ``U``: the authors' (``seeds=None``, ``(d, d)``) or one per seed (``(B, d, d)``)."""
        U = initial_U(self.d, [self.seed] if seeds is None else seeds, init_scale=self.init_scale)
        return U[0] if seeds is None else U

    def run(self, matrix: str = "authors", *, iterate: str = "W", seeds=None,
            record_every: int = 1, steps: int | None = None) -> SymmetricRecord:
        """:func:`~swingby.sim.symmetric.simulate_symmetric` from ``U0`` (the defaults repeat the
        authors' run, up to their float32 arithmetic).

        Parameters
        ----------
        matrix, iterate, seeds, record_every, steps
            As in ``a`` and :func:`~swingby.sim.symmetric.simulate_symmetric`; ``seeds``: one trajectory
            per seed (``None``: the authors' seed); ``steps``: default the setting's.
        """
        return simulate_symmetric(self.U0(seeds), self.a(matrix), self.eta, self.steps if steps is None else steps,
                                  self.x_hat, record_every=record_every, iterate=iterate)

    def run_with_stages(self, matrix: str = "authors", *, rel_tol: float = 0.01,
                        record_every: int = 10) -> StagedRun:
        """``run`` from the authors' seed and :func:`~swingby.theory.stages.detect_stages` on it.

        Parameters
        ----------
        matrix, record_every, rel_tol
            As in ``run`` and :func:`~swingby.theory.stages.detect_stages`.
        """
        record = self.run(matrix, record_every=record_every)
        return StagedRun(record, detect_stages(record, self.s, rel_tol=rel_tol))

    def statistics(self, matrix: str = "authors", *, n_seeds: int = 200, iterate: str = "U",
                   rel_tol: float = 0.01, record_every: int = 10) -> DescentStats:
        """:func:`~swingby.theory.statistics.descent_statistics` over seeds ``0..n_seeds-1`` at this setting.

        Parameters
        ----------
        matrix, n_seeds, iterate, rel_tol, record_every
            As in :func:`~swingby.theory.statistics.descent_statistics`.
        """
        return descent_statistics(self.mu, self.sigma, self.d, n_seeds=n_seeds, init_scale=self.init_scale,
                                  eta=self.eta, steps=self.steps, rel_tol=rel_tol, record_every=record_every,
                                  iterate=iterate, matrix=matrix,
                                  origin_cluster=self.origin_cluster and matrix == "paper")


#: The settings of the theory figures: the scripts' values (the differing captions of Figs. 8 and 9 are
#: the ``"caption"`` entries). Fig. 5's script builds ``A`` from ``x_hat = (1, 1.5, 0)`` with divisor 2,
#: ``authors_a((1, 1.5), 0.05, 3)``; for the paper's matrix its cluster at 0 is an origin cluster.
THEORY_SETTINGS = {
    "fig5": TheorySetting("Fig. 5", (1.0, 1.5), 0.05, 3, 0.2, 2000, 2333, origin_cluster=True),
    "fig8_script": TheorySetting("Fig. 8 script", (1.0, 1.7, 2.25), (0.5, 0.25, 0.25), 3, 0.1, 10_000, 233333),
    "fig8_caption": TheorySetting("Fig. 8 caption", (1.0, 1.5, 2.2), 0.05, 3, 0.1, 10_000, 233333),
    "fig9_script": TheorySetting("Fig. 9 script", (1.0, 1.5, 2.2, 2.7), 0.05, 4, 0.1, 10_000, 233333),
    "fig9_caption": TheorySetting("Fig. 9 caption", (1.0, 1.5, 2.2, 2.7), (0.05, 0.05, 0.05, 0.5), 4, 0.1,
                                  10_000, 233333),
    "fig10": TheorySetting("Fig. 10", (0.7, 1.7, 3.0), 0.05, 3, 0.1, 10_000, 233333),
}
