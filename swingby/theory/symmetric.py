"""The symmetric two-layer model ``W = U U^T`` and eq. (D.2) (Sec. 4.2, App. D): the diagonal
``a`` of ``A`` the dynamics run with, one step of (D.2), its split (4.3) into growth,
suppression and noise, and the loss (4.1). Chapters: ``book/two_layer_theory.md``,
``book/beyond_two_concepts.md``. Everywhere ``a`` is the diagonal of ``A``, ``(d,)``, ``>= 0``.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from swingby import _checks
from swingby.sim.data import second_moment
from swingby.theory import _args

__all__ = ["GSN", "MATRICES", "EquivalentMu", "authors_a", "dynamics_a", "equivalent_mu", "gsn_terms",
           "population_loss", "symmetric_step", "u_step_to_w_eta"]

#: The two choices of the matrix the symmetric dynamics run with (see :func:`dynamics_a`).
MATRICES = ("paper", "authors")


def x_hat_of(mu, d: int) -> np.ndarray:
    """The test point ``sum_p mu_p e_p`` in ``d`` dimensions."""
    x_hat = np.zeros(d)
    x_hat[:len(np.atleast_1d(mu))] = mu
    return x_hat


def authors_a(mu, sigma, d: int) -> np.ndarray:
    """The diagonal ``(x_hat_k^2 / s + sigma_k^2)^2`` that the authors' theory scripts (Figs.
    5, 8-10, 17, 18) iterate eq. (D.2) with: they build ``A = diag(x_hat^2 / s + sigma^2)``
    on all ``d`` axes and use ``A^2`` for ``A``. Unlike eq. (C.13) the entries are squared,
    ``sigma^2`` is added on the other axes too, and the divisor is ``s`` even with an origin cluster.

    Parameters
    ----------
    mu : array_like
        Cluster distances ``mu_p >= 0``, one per concept (``s = len(mu) <= d``).
    sigma : float or array_like
        A standard deviation for every axis, or one per concept (0 on the other axes).
    d : int
        Dimension, ``>= s``.
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
    matrix : {"authors", "paper"}
        :func:`authors_a` (the paper's theory figures) or eq. (C.13) (:func:`swingby.sim.data.second_moment`).
    origin_cluster : bool
        Only with ``matrix="paper"``: count a cluster at the origin (divisor ``s + 1``).
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
    """The ``mu`` at which the paper's matrix (eq. C.13) runs the dynamics that the
    authors' scripts ran with ``A^2`` at ``mu``.

    (D.2) is linear in ``A`` (scaling ``a`` by ``c`` rescales time by ``c``), so the authors'
    run is the paper's dynamics for any data whose ``a'_p`` have the ratios ``r_p = a_p /
    a_ref`` of :func:`authors_a`. Keeping ``mu'_ref = mu_ref`` and ``sigma`` gives ``mu'_p =
    sqrt(n (r_p a'_ref - sigma_p^2))``, ``n = s`` (``s + 1`` with an origin cluster); the
    non-informative axes are not matched (both tiny).

    Parameters
    ----------
    mu, sigma, d
        The caption's (or script's) setting, as in :func:`authors_a`.
    origin_cluster : bool
        Whether eq. (C.13) counts a cluster at the origin.
    ref : int
        The concept whose ``mu`` is kept, in ``[0, s)``.
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
    """The step ``eta = 2 lr`` of eq. (D.2) that one gradient step on ``U`` at learning rate
    ``lr`` (loss 4.1) makes: with ``M = (W - I) A + A (W - I)``, ``dL/dU = M U``, so ``U' U'^T
    = W - lr (M W + W M) + O(lr^2)``, twice the bracket of (D.2); the paper's (D.1) drops this 2.
    """
    return 2.0 * _checks.positive_float("lr", lr)


def loss_41(W: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Eq. (4.1) with ``A = diag(a)``, batched over leading axes of ``W``."""
    return 0.5 * ((W - np.eye(a.size)) ** 2 * a).sum((-1, -2))


def population_loss(W, a) -> np.ndarray:
    """The loss (4.1) of the symmetric model, ``0.5 ||(W - I) A^{1/2}||_F^2``, for one
    Jacobian or a trajectory of them.

    Parameters
    ----------
    W, a : array_like
        ``(..., d, d)``, one Jacobian ``U U^T`` or a stack of them (``record.W``); ``(d,)``.
    """
    a = _checks.nonneg_vector("a", a)
    return loss_41(_args.square("W", W, a.size), a)


def symmetric_step(W, a, eta: float) -> np.ndarray:
    """One step of the discrete symmetric dynamics, eq. (D.2):
    ``W(t+1) = W + eta [W A + A W - (A W^2 + W^2 A + 2 W A W) / 2]``.

    Parameters
    ----------
    W, a : array_like
        The Jacobian ``U U^T``, ``(d, d)`` or a batch ``(..., d, d)``; ``(d,)``.
    eta : float
        Step size.
    """
    a = _checks.nonneg_vector("a", a)
    W = _args.square("W", W, a.size)
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
    """The growth, suppression and noise terms of eq. (4.3) / (D.4)-(D.6):

    ``G_ij = w_ij (a_i + a_j)``,
    ``S_ij = w_ij [w_ii (3 a_i + a_j) + 1{i != j} w_jj (3 a_j + a_i)] / 2``,
    ``N_ij = sum_{k != i, j} w_ki w_kj (a_i + a_j + 2 a_k) / 2``,

    so that for a symmetric ``W`` the update (D.2) is ``eta * (G - S - N)`` entrywise.

    Parameters
    ----------
    W, a : array_like
        Symmetric ``(d, d)`` (or a batch ``(..., d, d)``); ``(d,)``.
    """
    a = _checks.nonneg_vector("a", a)
    d = a.size
    W = _args.square("W", W, d)
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
