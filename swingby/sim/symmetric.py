"""The symmetric two-layer model ``W = U U^T`` and eq. (D.2) (Sec. 4.2, App. D), which the observations and
theory chapters run: the diagonal ``a`` (``>= 0``) of ``A``, one step of (D.2), its split (4.3), the loss
(4.1), and the simulation of (D.2) (or of gradient descent on ``U``) from many initialisations at once."""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from swingby import _checks, live
from swingby.sim.data import second_moment
from swingby.sim.models import SymmetricModel
from swingby.sim.run_checks import seed_list, work

__all__ = ["GSN", "MATRICES", "EquivalentMu", "SymmetricRecord", "authors_a", "dynamics_a", "equivalent_mu",
           "gsn_terms", "initial_U", "population_loss", "simulate_symmetric", "symmetric_step", "u_step_to_w_eta"]

#: The two choices of the matrix the symmetric dynamics run with (see :func:`dynamics_a`).
MATRICES = ("paper", "authors")


def x_hat_of(mu, d: int) -> np.ndarray:
    """The test point ``sum_p mu_p e_p`` in ``d`` dimensions."""
    x_hat = np.zeros(d)
    x_hat[:len(np.atleast_1d(mu))] = mu
    return x_hat


def authors_a(mu, sigma, d: int) -> np.ndarray:
    """The diagonal ``(x_hat_k^2 / s + sigma_k^2)^2`` the authors' theory scripts (Figs. 5, 8-10,
    17, 18) iterate (D.2) with: unlike eq. (C.13) squared, with ``sigma^2`` on every axis and the
    divisor ``s`` even with an origin cluster.

    Parameters
    ----------
    mu, sigma, d
        Cluster distances ``mu_p >= 0``, one per concept (``s = len(mu) <= d``); a standard deviation for
        every axis, or one per concept (0 on the other axes); the dimension.
    """
    mu = _checks.nonneg_vector("mu", mu)
    d = _checks.positive_int("d", d)
    _checks.memory(32.0 * d, f"d = {d}")
    s = mu.size
    if s > d:
        raise ValueError(f"s = len(mu) = {s} concepts need d >= s, got d = {d}")
    sig = _checks.array("sigma", sigma, min_size=0, finite=False)
    if sig.ndim == 0:
        sig_d = np.full(d, float(_checks.nonneg_vector("sigma", [float(sig)])[0]))
    else:
        sig_d = np.zeros(d)
        sig_d[:s] = _checks.nonneg_vector("sigma", sig, length=s)
    return (x_hat_of(mu, d) ** 2 / s + sig_d**2) ** 2


def dynamics_a(mu, sigma, d: int, *, matrix: str = "authors", origin_cluster: bool = False) -> np.ndarray:
    """The diagonal ``a`` that the symmetric dynamics (D.2) run with, for a SIM setting.

    Parameters
    ----------
    mu, sigma, d
        As in :func:`authors_a`.
    matrix, origin_cluster
        :func:`authors_a` (``"authors"``) or eq. (C.13) (``"paper"``); only with ``"paper"``: count a
        cluster at the origin (divisor ``s + 1``).
    """
    _checks.choice("matrix", matrix, MATRICES)
    if matrix == "paper":
        return second_moment(mu, sigma, d, origin_cluster=origin_cluster)
    if _checks.flag("origin_cluster", origin_cluster):
        raise ValueError("origin_cluster applies only to matrix='paper': the authors' scripts divide by s")
    return authors_a(mu, sigma, d)


class EquivalentMu(NamedTuple):
    """Output of :func:`equivalent_mu`."""

    mu: np.ndarray  #: ``(s,)`` the ``mu`` whose eq. (C.13) gives the authors' dynamics
    time_factor: float  #: an authors' time ``t`` is the time ``t * time_factor`` under that ``mu``
    ratio: np.ndarray  #: ``(s,)`` ``a_p / a_ref`` of the authors' ``A^2``, which both share


def equivalent_mu(mu, sigma, d: int, *, origin_cluster: bool = False, ref: int = 0) -> EquivalentMu:
    """The ``mu`` at which the paper's matrix (eq. C.13) runs the dynamics that the authors'
    scripts ran with ``A^2`` at ``mu``: (D.2) is linear in ``A`` (scaling ``a`` rescales time), so
    matching the ratios ``r_p = a_p / a_ref`` with ``mu_ref`` and ``sigma`` kept gives ``mu'_p =
    sqrt(n (r_p a'_ref - sigma_p^2))``, ``n = s`` (``s + 1`` with an origin cluster).

    Parameters
    ----------
    mu, sigma, d, origin_cluster, ref
        The setting, as in :func:`dynamics_a`; the concept whose ``mu`` is kept.
    """
    a_auth = authors_a(mu, sigma, d)
    mu = _checks.nonneg_vector("mu", mu)
    s = mu.size
    ref = _checks.index("ref", ref, s)
    n = s + int(_checks.flag("origin_cluster", origin_cluster))
    a_pap = second_moment(mu, sigma, d, origin_cluster=origin_cluster)
    sig2 = a_pap[:s] - mu**2 / n  # sigma_p^2 on the concept axes, as eq. (C.13) reads sigma
    if not a_auth[ref] > 0 or not a_pap[ref] > 0:
        raise ValueError(f"ref = {ref} must be a concept with mu_ref > 0 or sigma > 0, got mu = {mu.tolist()}")
    ratio = a_auth[:s] / a_auth[ref]
    target = ratio * a_pap[ref]
    if np.any(target < sig2 - 1e-15):
        raise ValueError("no equivalent mu: some ratio a_p / a_ref is below sigma_p^2 / a'_ref; choose as ref "
                         f"the concept with the smallest mu (got ref = {ref}, mu = {mu.tolist()})")
    mu_eq = np.sqrt(np.maximum(n * (target - sig2), 0.0))
    return EquivalentMu(mu_eq, float(a_auth[ref] / a_pap[ref]), ratio)


def u_step_to_w_eta(lr: float) -> float:
    """The step ``eta = 2 lr`` of (D.2) that one gradient step on ``U`` at learning rate ``lr`` makes:
    ``dL/dU = M U`` with ``M = (W - I) A + A (W - I)``, so ``U' U'^T = W - lr (M W + W M) + O(lr^2)``;
    the paper's (D.1) drops the 2."""
    return 2.0 * _checks.positive_float("lr", lr)


def loss_41(W: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Eq. (4.1) with ``A = diag(a)``, batched over leading axes of ``W``."""
    return 0.5 * ((W - np.eye(a.size)) ** 2 * a).sum((-1, -2))


def population_loss(W, a) -> np.ndarray:
    """The loss (4.1), ``0.5 ||(W - I) A^{1/2}||_F^2``, of one Jacobian or a stack of them.

    Parameters
    ----------
    W, a : array_like
        ``(..., d, d)``, e.g. ``record.W``; ``(d,)``.
    """
    a = _checks.nonneg_vector("a", a)
    return loss_41(_checks.square("W", W, a.size), a)


def symmetric_step(W, a, eta: float) -> np.ndarray:
    """One step of eq. (D.2): ``W + eta [W A + A W - (A W^2 + W^2 A + 2 W A W) / 2]``.

    Parameters
    ----------
    W, a, eta
        ``U U^T``, ``(..., d, d)``; ``(d,)``; the step size.
    """
    a = _checks.nonneg_vector("a", a)
    W = _checks.square("W", W, a.size)
    eta = _checks.positive_float("eta", eta)
    with np.errstate(over="ignore", invalid="ignore"):
        W2, WAW, ac = W @ W, (W * a) @ W, a[:, None]
        out = W + eta * (W * a + ac * W - 0.5 * (ac * W2 + W2 * a + 2.0 * WAW))
    if not np.all(np.isfinite(out)):
        raise ValueError(f"W is too large for a step of (D.2): the step overflows (largest |w_ij| = "
                         f"{np.abs(W).max():.3g}, eta = {eta:g}); the entries of W must keep W^2 A finite")
    return out


class GSN(NamedTuple):
    """Growth, suppression and noise matrices of eq. (4.3), each shaped like ``W``."""

    G: np.ndarray
    S: np.ndarray
    N: np.ndarray


def gsn_terms(W, a) -> GSN:
    """The growth, suppression and noise terms of eq. (4.3) / (D.4)-(D.6), whose ``eta (G - S - N)``
    is the update (D.2) of a symmetric ``W``: ``G_ij = w_ij (a_i + a_j)``, ``S_ij = w_ij [w_ii (3 a_i
    + a_j) + 1{i != j} w_jj (3 a_j + a_i)] / 2``, ``N_ij = sum_{k != i, j} w_ki w_kj (a_i + a_j + 2 a_k) / 2``.

    Parameters
    ----------
    W, a : array_like
        Symmetric ``(..., d, d)``; ``(d,)``.
    """
    a = _checks.nonneg_vector("a", a)
    d = a.size
    W = _checks.square("W", W, d)
    ai, aj = a[:, None], a[None, :]
    diag = np.diagonal(W, axis1=-2, axis2=-1)  # (..., d)
    wii, wjj = diag[..., :, None], diag[..., None, :]
    G = W * (ai + aj)
    off = 1.0 - np.eye(d)
    S = 0.5 * W * (wii * (3 * ai + aj) + off * wjj * (3 * aj + ai))
    # full sum over k of w_ki w_kj (a_i + a_j + 2 a_k), then remove k = i and k = j
    full = np.swapaxes(W, -1, -2) @ W * (ai + aj) + 2.0 * (np.swapaxes(W, -1, -2) * a) @ W
    k_is_i = wii * W * (3 * ai + aj)  # k = i: w_ii w_ij (3 a_i + a_j)
    k_is_j = off * W * wjj * (ai + 3 * aj)  # k = j (i != j): w_ji w_jj (a_i + 3 a_j)
    N = 0.5 * (full - k_is_i - k_is_j)
    return GSN(G, S, N)


@dataclass
class SymmetricRecord:
    """A trajectory of :func:`simulate_symmetric`; a batch of ``B`` runs adds a leading axis ``B``."""

    steps: np.ndarray  #: ``(R,)`` iteration numbers of the records
    time: np.ndarray  #: ``(R,)`` ``steps * eta``, the clock of eq. (4.3)
    W: np.ndarray  #: ``([B,] R, d, d)`` the Jacobian ``U U^T``
    output: np.ndarray  #: ``([B,] R, d)`` ``W x_hat``
    test_loss: np.ndarray  #: ``([B,] R)`` ``0.5 ||W x_hat - x_hat||^2``
    train_loss: np.ndarray  #: ``([B,] R)`` eq. (4.1) with ``A = diag(a)``
    a: np.ndarray  #: ``(d,)``
    x_hat: np.ndarray  #: ``(d,)``
    eta: float = 0.0
    config: dict = field(default_factory=dict)

    def pick(self, b: int) -> "SymmetricRecord":
        """The ``b``-th trajectory of a batched record, as a single record."""
        if self.W.ndim != 4:
            raise ValueError("pick() needs a batched record (W of shape (B, R, d, d))")
        b = _checks.index("b", b, self.W.shape[0])
        return SymmetricRecord(self.steps, self.time, self.W[b], self.output[b], self.test_loss[b],
                               self.train_loss[b], self.a, self.x_hat, self.eta, dict(self.config, batched=False))


def symmetric_record(name: str, record, *, batched: bool | None = False) -> SymmetricRecord:
    """``record`` if it is a SymmetricRecord of one trajectory (``batched``: of several; ``None``: either)."""
    _checks.instance(name, record, SymmetricRecord, "swingby.sim.symmetric.SymmetricRecord")
    if batched is not None and record.W.ndim != 3 + batched:
        raise ValueError(f"{name} must be a batched record (one trajectory per seed), got W of shape {record.W.shape}"
                         if batched else
                         f"{name} must be a single trajectory; index a batched record first with .pick(b)")
    return record


def simulate_symmetric(U0, a, eta: float, steps: int, x_hat, record_every: int = 1,
                       *, iterate: str = "W", progress: bool = False) -> SymmetricRecord:
    """The trajectory of eq. (D.2) from ``W(0) = U0 U0^T``, for one or a batch of initialisations
    (a divergence leaves ``inf``/``nan`` entries and a ``RuntimeWarning``).

    Parameters
    ----------
    U0, a, x_hat : array_like
        Initial ``U``, ``(d, d')`` or ``(B, d, d')``; the diagonal of ``A``; the OOD test point.
    eta, steps, record_every
        Step size (stable near the minimum below ``1 / max(a)``); iterations; record every ``k``-th
        (step 0 and the last one always).
    iterate, progress
        ``"W"``: (D.2) itself (the authors' scripts), ``"U"``: gradient steps on ``U`` at learning rate
        ``eta / 2``; show a progress bar.
    """
    a = _checks.nonneg_vector("a", a)
    d = a.size
    U0 = _checks.array("U0", U0, min_size=0)
    if U0.ndim not in (2, 3) or U0.shape[-2] != d or U0.shape[-1] == 0:
        raise ValueError(f"U0 must have shape ({d}, d') or (B, {d}, d') to match len(a) = {d}, got {U0.shape}")
    eta = _checks.positive_float("eta", eta)
    steps = _checks.positive_int("steps", steps)
    every = _checks.positive_int("record_every", record_every)
    _checks.choice("iterate", iterate, ("W", "U"))
    x_hat = _checks.vector("x_hat", x_hat, d)
    progress = _checks.flag("progress", progress)
    n_batch = U0.shape[0] if U0.ndim == 3 else 1
    work(4.0 * steps * n_batch * d * d * max(d, U0.shape[-1]),
         f"steps = {steps} for {n_batch} trajectories with d = {d}")
    _checks.memory(8.0 * n_batch * (steps // every + 2) * d * (d + 3),
                   f"{steps // every + 2} records (steps = {steps}, record_every = {every}) of "
                   f"{n_batch} trajectories with d = {d}")
    rec = np.arange(0, steps + 1, every)
    if rec[-1] != steps:
        rec = np.append(rec, steps)
    with np.errstate(over="ignore", invalid="ignore"):
        Ws = _iterate(U0 @ np.swapaxes(U0, -1, -2), a, eta, rec, iterate, progress)
        out = Ws @ x_hat
        test_loss = 0.5 * ((out - x_hat) ** 2).sum(-1)
        train_loss = loss_41(Ws, a)
    if not np.all(np.isfinite(test_loss)):
        stable = 1.0 / a.max() if a.max() > 0 else np.inf
        if eta >= stable:
            why = f"use eta < 1 / max(a) = {stable:.3g}, the steps that are stable near the minimum"
        elif iterate == "W":
            why = "iterating (D.2) on W left the positive semi-definite cone; iterate='U' cannot"
        else:
            why = "the initial U is too large for this step; use a smaller eta"
        warnings.warn(f"simulate_symmetric diverged (inf or nan entries) at eta = {eta:g}: {why}",
                      RuntimeWarning, stacklevel=2)
    return SymmetricRecord(rec, rec * eta, Ws, out, test_loss, train_loss, a, x_hat, eta,
                           dict(steps=steps, record_every=every, d_prime=U0.shape[-1],
                                iterate=iterate, batched=U0.ndim == 3))


def _iterate(W: np.ndarray, a: np.ndarray, eta: float, rec: np.ndarray, iterate: str,
             progress: bool) -> np.ndarray:
    """The iterates at the steps ``rec`` (``rec[0] = 0``), stacked on the axis before the last two."""
    d = a.size
    Ws = np.empty(W.shape[:-2] + (rec.size, d, d))
    Ws[..., 0, :, :] = W
    r = 1
    apa = a[:, None] + a[None, :]  # a_i + a_j
    two_a = 2.0 * np.diag(a)
    eye = np.eye(d)
    for n in live.progress(range(1, int(rec[-1]) + 1), desc="steps", enabled=progress, mininterval=0.5):
        if iterate == "W":
            # (D.2) = -(M W + W M) / 2 with M = (W - I) A + A (W - I) symmetric
            M = W * apa
            M -= two_a
            MW = M @ W
            MW += np.swapaxes(MW, -1, -2)
            MW *= -0.5 * eta
            W += MW
        else:
            # U <- (I - eta/2 M) U, so W <- B W B: a congruence, which keeps W positive semi-definite
            B = W * apa  # M = (W - I) A + A (W - I) = W * (a_i + a_j) - 2 A
            B -= two_a
            B *= -0.5 * eta
            B += eye
            W = B @ W @ B
        if n == rec[r]:
            Ws[..., r, :, :] = W
            r += 1
    return Ws


def initial_U(d: int, seeds, *, d_prime: int | None = None, init: str = "uniform",
              init_scale: float = 0.2) -> np.ndarray:
    """Initial ``U`` of :class:`swingby.sim.models.SymmetricModel` for each seed, ``(len(seeds), d, d')``.

    Parameters
    ----------
    d, seeds, d_prime
        Dimension; one seed per initialisation (or one int); the width (default ``d``).
    init, init_scale
        ``"uniform"``, ``U[0, 1) * init_scale`` (Figs. 5, 8-10), or ``"gaussian"``, ``N(0, init_scale^2)`` (App. E.2).
    """
    d = _checks.positive_int("d", d)
    dp = d if d_prime is None else _checks.positive_int("d_prime", d_prime)
    n = 1 if _checks.is_integer(seeds) else len(seeds) if hasattr(seeds, "__len__") else 0
    _checks.memory(16.0 * n * d * dp, f"{n} seeds of U with shape (d, d_prime) = ({d}, {dp})")
    seeds = [_checks.seed("seeds", seeds)] if _checks.is_integer(seeds) else seed_list("seeds", seeds)
    return np.stack([
        SymmetricModel(d, d_prime, init=init, init_scale=init_scale, seed=int(seed)).U.detach().double().numpy()
        for seed in seeds
    ])
