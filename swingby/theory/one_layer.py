"""The one-layer closed form (Sec. 4.1, Theorem 4.1, App. C.2; ``book/one_layer_theory.md``):
gradient flow of a one-layer linear model in concept coordinates, without and with a bias.
Shared parameters: ``W0`` the initial weight ``(d, d)`` (``f = W z``, as ``nn.Linear``), ``a``
the diagonal of ``A`` (``>= 0``), ``z`` the input ``(d,)`` (``x_hat`` in the paper), ``t`` a
time ``>= 0`` or ``T`` of them, ``mean`` the data mean ``(d,)`` (:func:`mean_vector`)."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from swingby import _checks

__all__ = ["OneLayerOutput", "augmented_moment", "mean_vector", "one_layer_output", "one_layer_output_with_bias"]


class OneLayerOutput(NamedTuple):
    """Output of :func:`one_layer_output`: ``output = growth + noise``, each ``(T, d)``."""

    output: np.ndarray
    growth: np.ndarray  #: the growth term ``G~_k(t)`` of eq. (4.2)
    noise: np.ndarray  #: the noise term ``N~_k(t)`` of eq. (4.2)


def _single(W0, d: int) -> np.ndarray:
    W0 = _checks.square("W0", W0, d)
    if W0.ndim != 2:
        raise ValueError(f"W0 must be a single (d, d) matrix, got shape {W0.shape}")
    return W0


def _times(t) -> np.ndarray:
    t_arr = _checks.array("t", t, ndim=(0, 1), finite=False)
    if np.any(t_arr < 0) or not np.all(np.isfinite(t_arr)):
        raise ValueError(f"t must be a number or 1-D array of finite times >= 0, got {t!r}")
    return t_arr


def one_layer_output(W0, a, z, t) -> OneLayerOutput:
    """Model output ``W(t) z`` under gradient flow on the loss (4.1), Theorem 4.1 (eq. 4.2): ``f_k =
    1{a_k > 0} [1 - exp(-a_k t)] z_k + sum_i exp(-a_i t) w_ki(0) z_i``, the noise over all ``d`` axes (C.21).

    Parameters
    ----------
    W0, a, z, t
        See the module docstring.
    """
    a = _checks.nonneg_vector("a", a)
    d = a.size
    W0, z, t_arr = _single(W0, d), _checks.vector("z", z, d), _times(t)
    decay = np.exp(-a[None, :] * np.atleast_1d(t_arr)[:, None])  # (T, d)
    growth = (a > 0)[None, :] * (1.0 - decay) * z[None, :]
    noise = (decay * z[None, :]) @ W0.T  # sum_i exp(-a_i t) w_ki(0) z_i
    if t_arr.ndim == 0:
        growth, noise = growth[0], noise[0]
    return OneLayerOutput(growth + noise, growth, noise)


def one_layer_output_with_bias(W0, b0, a, mean, z, t) -> np.ndarray:
    """Model output ``W(t) z + b(t)`` of a one-layer model *with bias* under gradient flow on the loss
    (2.1): Theorem 4.1 for the input ``(x, 1)``, ``[W b](t) = [I 0] + ([W0 b0] - [I 0]) exp(-A_aug t)``
    with :func:`augmented_moment` ``A_aug``, whose mean couples the directions.

    Parameters
    ----------
    W0, b0, a, mean, z, t
        See the module docstring; ``b0`` the initial bias ``(d,)``; ``diag(a) - mean mean^T`` must be PSD.
    """
    a = _checks.nonneg_vector("a", a)
    d = a.size
    W0 = _single(W0, d)
    b0, mean, z = (_checks.vector(name, v, d) for name, v in (("b0", b0), ("mean", mean), ("z", z)))
    t_arr = _times(t)
    lam, V = np.linalg.eigh(augmented_moment(a, mean))
    if lam[0] < -1e-12 * max(1.0, lam[-1]):
        raise ValueError("mean is impossible for these second moments a: diag(a) - mean mean^T must be "
                         f"positive semi-definite (a covariance), but [[diag(a), mean], [mean^T, 1]] has "
                         f"the eigenvalue {lam[0]:.3g} < 0")
    E0 = np.concatenate([W0 - np.eye(d), b0[:, None]], axis=1)  # [W0 b0] - [I 0]
    proj = V.T @ np.append(z, 1.0)  # exp(-A t) z_aug = V diag(exp(-lam t)) V^T z_aug
    decayed = (np.exp(-lam[None, :] * np.atleast_1d(t_arr)[:, None]) * proj[None, :]) @ V.T  # (T, d + 1)
    out = z[None, :] + decayed @ E0.T
    return out[0] if t_arr.ndim == 0 else out


def mean_vector(mu, n_clusters: int, d: int) -> np.ndarray:
    """The data mean of the SIM task in concept coordinates: ``mu_p / n_clusters`` on the ``s`` concept axes, else 0.

    Parameters
    ----------
    mu, n_clusters, d
        Cluster distances ``mu_p >= 0``, one per concept; equally likely training clusters (``s + 1``
        with the origin cluster); the dimension.
    """
    mu = _checks.nonneg_vector("mu", mu)
    n_clusters = _checks.positive_int("n_clusters", n_clusters)
    d = _checks.positive_int("d", d)
    if n_clusters < mu.size:
        raise ValueError(f"n_clusters must be >= s = len(mu) = {mu.size} (one cluster per concept), got {n_clusters}")
    if d < mu.size:
        raise ValueError(f"d must be >= s = len(mu) = {mu.size}, got {d}")
    _checks.memory(8.0 * d, f"d = {d}")
    m = np.zeros(d)
    m[: mu.size] = mu / n_clusters
    return m


def augmented_moment(a, mean, s: int | None = None) -> np.ndarray:
    """The second moment ``A_aug = [[diag(a), m], [m^T, 1]]`` of the input ``(x, 1)``, through which a
    bias couples the directions.

    Parameters
    ----------
    a, mean, s
        See the module docstring; keep only the first ``s`` directions and the constant input (default all).
    """
    a = _checks.nonneg_vector("a", a)
    mean = _checks.vector("mean", mean, a.size)
    d = a.size
    s = d if s is None else _checks.integer("s", s, low=1, high=d)
    A_aug = np.zeros((d + 1, d + 1))
    A_aug[:d, :d] = np.diag(a)
    A_aug[:d, d] = A_aug[d, :d] = mean
    A_aug[d, d] = 1.0
    keep = np.append(np.arange(s), d)
    return A_aug[np.ix_(keep, keep)]
