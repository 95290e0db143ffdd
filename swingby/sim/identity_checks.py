"""The exact checks of the SIM task's two identities, each against wrong variants a careful
reader could write by mistake (``book/sim_task.md``, claims ``claim-sim-a`` and
``claim-sim-frobenius``): eq. (C.13), the second-moment matrix of a sampled training set
(:func:`second_moment_units`), and eq. (4.1), the training loss of a linear model as a
Frobenius norm (:func:`frobenius_units`). A variant shares the check's data and tolerance, so
an identity that holds where every variant fails shows that the check tells them apart.
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np
import torch

from swingby import _checks
from swingby.sim.data import empirical_second_moment, frobenius_loss, linear_model_loss, make_sim, sqrt_psd
from swingby.sim.run_checks import seed_list

__all__ = ["A_VARIANTS", "FROBENIUS_VARIANTS", "IdentityUnits", "second_moment_units", "frobenius_units"]

#: the wrong variants of eq. (C.13), by name: ``sigma`` read as a variance, ``mu^2`` not
#: divided by the number of clusters, the sign of the ``mu`` term flipped, and (with the
#: origin cluster only) ``s`` clusters counted where there are ``s + 1``
A_VARIANTS = ("sigma as a variance", "mu^2 not divided", "sign of mu^2 flipped", "s for s + 1")
#: the wrong variants of eq. (4.1): ``A`` in place of ``A^{1/2}``, ``A^{1/2}`` on the left
#: of ``W - I``, and the population ``diag(a)`` (rotated) in place of the sampled ``A``
FROBENIUS_VARIANTS = ("A for A^(1/2)", "A^(1/2) on the left", "population A")


class IdentityUnits(NamedTuple):
    """What :func:`second_moment_units` and :func:`frobenius_units` return."""

    passed: np.ndarray  #: ``(n,)`` whether unit ``k`` passes the identity's check
    variants: tuple  #: names of the wrong variants checked
    variant_passed: np.ndarray  #: ``(n, len(variants))`` whether a variant passes on unit ``k``
    error: np.ndarray  #: ``(n,)`` the largest error of the identity (standard errors, or relative)


def _a_variants(mu, sigma, s: int, origin: bool) -> list[np.ndarray]:
    """The diagonal ``a`` of each wrong variant of eq. (C.13) that differs from it here."""
    k = s + int(origin)
    out = [sigma + mu**2 / k, sigma**2 + mu**2, sigma**2 - mu**2 / k]
    return out + ([sigma**2 + mu**2 / s] if origin else [])


def second_moment_units(seeds: Sequence[int], *, mu, sigma, d: int, origin_cluster: bool,
                        n_per_cluster: int = 5000, z_max: float = 5.0) -> IdentityUnits:
    """Eq. (C.13) on independent draws: unit ``k`` is the training set
    ``make_sim(mu, sigma, d, n_per_cluster, origin_cluster=origin_cluster, seed=seeds[k])``
    (un-rotated); it passes when every entry of its second-moment matrix ``A`` in the
    ``s`` concept directions is within ``z_max`` standard errors of ``diag(a)`` (the
    diagonal against eq. C.13, the off-diagonal against 0; each standard error from the
    sample's own products ``x_p x_q``) and the entries beyond ``s`` are exactly 0.
    A wrong variant passes when its diagonal is within ``z_max`` standard errors in every
    concept direction (:data:`A_VARIANTS`; "s for s + 1" only with the origin cluster).

    Parameters
    ----------
    seeds : sequence of int
        Distinct seeds, one draw each.
    mu, sigma : sequence of float
        Cluster distances and standard deviations.
    d : int
        Input dimension, ``>= s``.
    origin_cluster : bool
        Add the cluster at the origin.
    n_per_cluster : int
        Points per cluster.
    z_max : float
        Tolerance in standard errors, ``> 0``.
    """
    seeds = seed_list("seeds", seeds, distinct=True)
    z_max = _checks.positive_float("z_max", z_max)
    origin = _checks.flag("origin_cluster", origin_cluster)
    passed, var_passed, errors = [], [], []
    for sd in seeds:
        data = make_sim(mu, sigma, d, n_per_cluster, origin_cluster=origin, seed=sd)
        s = data.s
        X = data.X.double()
        A = empirical_second_moment(X).numpy()
        prods = (X[:, :s, None] * X[:, None, :s]).numpy()  # (N, s, s) products x_p x_q
        stderr = prods.std(axis=0) / np.sqrt(len(X))
        a = data.sigma**2 + data.mu**2 / (s + int(origin))
        z = np.abs(A[:s, :s] - np.diag(a)) / stderr
        rest_zero = bool(np.all(A[s:, :] == 0) and np.all(A[:, s:] == 0))
        passed.append(bool(np.all(z < z_max)) and rest_zero)
        errors.append(float(z.max()))
        diag_se = np.diag(stderr)
        var_passed.append([bool(np.all(np.abs(np.diag(A)[:s] - w) / diag_se < z_max))
                           for w in _a_variants(data.mu, data.sigma, s, origin)])
    names = A_VARIANTS if origin else A_VARIANTS[:3]
    return IdentityUnits(np.array(passed), names, np.array(var_passed), np.array(errors))


def frobenius_units(seeds: Sequence[int], *, mu, sigma, d: int, w_scale: float = 0.2,
                    tol: float = 1e-8) -> IdentityUnits:
    """Eq. (4.1) on independent draws: unit ``k`` draws a training set
    ``make_sim(mu, sigma, d, origin_cluster=True, rotate=True, seed=seeds[k])`` and a
    weight matrix ``W`` with i.i.d. ``N(0, w_scale^2)`` entries (generator seeded with
    ``seeds[k]``); it passes when the training loss (2.1) of ``f(x) = W x``
    (``linear_model_loss``) and
    ``frobenius_loss`` of the sampled ``A`` agree to ``tol``
    relative. Each wrong variant (:data:`FROBENIUS_VARIANTS`) passes when it agrees
    with the loss to the same ``tol``.

    Parameters
    ----------
    seeds : sequence of int
        Distinct seeds, one unit each.
    mu, sigma : sequence of float
        Cluster distances and standard deviations.
    d : int
        Input dimension.
    w_scale : float
        Standard deviation of the entries of ``W``, ``> 0``.
    tol : float
        Relative tolerance, ``> 0``.
    """
    seeds = seed_list("seeds", seeds, distinct=True)
    w_scale, tol = _checks.positive_float("w_scale", w_scale), _checks.positive_float("tol", tol)
    passed, var_passed, errors = [], [], []
    eye = torch.eye(d, dtype=torch.float64)
    for sd in seeds:
        data = make_sim(mu, sigma, d, origin_cluster=True, rotate=True, seed=sd)
        gen = torch.Generator().manual_seed(sd)
        W = torch.randn(d, d, generator=gen, dtype=torch.float64) * w_scale
        A = empirical_second_moment(data.X)
        loss = linear_model_loss(W, data.X)
        rel = abs(frobenius_loss(W, A) - loss) / loss
        R = data.rotation.double()
        a = data.sigma**2 + data.mu**2 / (data.s + 1)
        A_pop = R[:, : data.s] @ torch.diag(torch.as_tensor(a)) @ R[:, : data.s].T
        slips = [0.5 * float(torch.linalg.matrix_norm((W - eye) @ A) ** 2),
                 0.5 * float(torch.linalg.matrix_norm(sqrt_psd(A) @ (W - eye)) ** 2),
                 frobenius_loss(W, A_pop)]
        passed.append(rel < tol)
        errors.append(rel)
        var_passed.append([abs(v - loss) / loss < tol for v in slips])
    return IdentityUnits(np.array(passed), FROBENIUS_VARIANTS, np.array(var_passed), np.array(errors))
