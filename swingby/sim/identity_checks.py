"""The checks of the SIM task's identities (``book/sim_task.md``): eq. (C.13), the second moment of a sampled
training set (``claim-sim-a``), and eq. (4.1), a linear model's loss as a Frobenius norm (``claim-sim-frobenius``),
each beside wrong variants a careful reader could write, on the same data and tolerance.
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np
import torch

from swingby import _checks
from swingby.sim.data import empirical_second_moment, frobenius_loss, linear_model_loss, make_sim, sqrt_psd
from swingby.sim.run_checks import seed_list

__all__ = ["A_VARIANTS", "FROBENIUS_VARIANTS", "IdentityUnits", "second_moment_units", "frobenius_units"]

#: the wrong variants of eq. (C.13) (the last only with an origin cluster)
A_VARIANTS = ("sigma as a variance", "mu^2 not divided", "sign of mu^2 flipped", "s for s + 1")
#: the wrong variants of eq. (4.1) ("population A": the rotated ``diag(a)`` for the sampled ``A``)
FROBENIUS_VARIANTS = ("A for A^(1/2)", "A^(1/2) on the left", "population A")


class IdentityUnits(NamedTuple):
    """What :func:`second_moment_units` and :func:`frobenius_units` return."""

    passed: np.ndarray  #: ``(n,)`` whether unit ``k`` passes the identity's check
    variants: tuple  #: names of the wrong variants checked
    variant_passed: np.ndarray  #: ``(n, len(variants))`` whether a variant passes on unit ``k``
    error: np.ndarray  #: ``(n,)`` the largest error of the identity (standard errors, or relative)


def second_moment_units(seeds: Sequence[int], *, mu, sigma, d: int, origin_cluster: bool,
                        n_per_cluster: int = 5000, z_max: float = 5.0) -> IdentityUnits:
    """Eq. (C.13) on independent un-rotated draws, one per seed: a unit passes when every entry of its second
    moment ``A`` in the concept directions is within ``z_max`` standard errors of ``diag(a)`` and the rest is 0;
    a wrong variant (:data:`A_VARIANTS`) when its diagonal is.

    Parameters
    ----------
    seeds, z_max, mu, sigma, d, origin_cluster, n_per_cluster
        Distinct seeds, one draw each; the tolerance in standard errors; as for :func:`~swingby.sim.data.make_sim`.
    """
    seeds = seed_list("seeds", seeds, distinct=True)
    z_max = _checks.positive_float("z_max", z_max)
    origin = _checks.flag("origin_cluster", origin_cluster)
    passed, var_passed, errors = [], [], []
    for sd in seeds:
        data = make_sim(mu, sigma, d, n_per_cluster, origin_cluster=origin, seed=sd)
        s, m, sg = data.s, data.mu, data.sigma
        k = s + int(origin)  # clusters
        X = data.X.double()
        A = empirical_second_moment(X).numpy()
        prods = (X[:, :s, None] * X[:, None, :s]).numpy()  # (N, s, s) products x_p x_q
        stderr = prods.std(axis=0) / np.sqrt(len(X))
        z = np.abs(A[:s, :s] - np.diag(sg**2 + m**2 / k)) / stderr
        rest_zero = bool(np.all(A[s:, :] == 0) and np.all(A[:, s:] == 0))
        passed.append(bool(np.all(z < z_max)) and rest_zero)
        errors.append(float(z.max()))
        variants = [sg + m**2 / k, sg**2 + m**2, sg**2 - m**2 / k, sg**2 + m**2 / s][:3 + origin]
        var_passed.append([bool(np.all(np.abs(np.diag(A)[:s] - w) / np.diag(stderr) < z_max)) for w in variants])
    names = A_VARIANTS if origin else A_VARIANTS[:3]
    return IdentityUnits(np.array(passed), names, np.array(var_passed), np.array(errors))


def frobenius_units(seeds: Sequence[int], *, mu, sigma, d: int, w_scale: float = 0.2,
                    tol: float = 1e-8) -> IdentityUnits:
    """Eq. (4.1) on independent draws: unit ``k`` draws a rotated training set (origin cluster) and ``W`` with
    i.i.d. ``N(0, w_scale^2)`` entries from seed ``seeds[k]``, and passes when the loss (2.1) of ``f(x) = W x``
    and the Frobenius form agree to ``tol`` relative, as does a wrong variant (:data:`FROBENIUS_VARIANTS`).

    Parameters
    ----------
    seeds, w_scale, tol, mu, sigma, d
        Distinct seeds, one unit each; the standard deviation of ``W``'s entries; the relative tolerance; as for
        :func:`~swingby.sim.data.make_sim`.
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
