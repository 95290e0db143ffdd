"""The one-layer closed form (Sec. 4.1, Theorem 4.1, App. C.2): gradient flow of a
one-layer linear model in concept coordinates, without and with a bias.
Chapter: ``book/one_layer_theory.md``."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from swingby import _checks
from swingby.theory._args import _square, _times, _vector, _vector_a


class OneLayerOutput(NamedTuple):
    """Output of :func:`one_layer_output`: ``output = growth + noise``, each ``(T, d)``
    (or ``(d,)`` for a scalar ``t``)."""

    output: np.ndarray
    growth: np.ndarray  #: the growth term ``G~_k(t)`` of eq. (4.2)
    noise: np.ndarray  #: the noise term ``N~_k(t)`` of eq. (4.2)


def one_layer_output(W0, a, z, t) -> OneLayerOutput:
    """Model output ``W(t) z`` under gradient flow on the loss (4.1), in closed form.

    Implements Theorem 4.1 (eq. 4.2, proof in App. C.2): with ``A = diag(a)`` and
    ``dW/dt = -(W - I) A``,

    ``f(W(t); z)_k = 1{a_k > 0} [1 - exp(-a_k t)] z_k + sum_i exp(-a_i t) w_ki(0) z_i``.

    The noise sum runs over all ``d`` directions (eq. C.21): for ``a_i = 0`` the term
    ``w_ki(0) z_i`` never decays, but it vanishes at ``z = x_hat``.

    Used by ``book/one_layer_theory.md``.

    Parameters
    ----------
    W0 : array_like(float, ndim=2)
        Initial weight ``(d, d)``, row convention of ``nn.Linear`` (``f = W z``).
    a : array_like(float, ndim=1)
        Diagonal of ``A``, ``(d,)``, entries ``>= 0``.
    z : array_like(float, ndim=1)
        Input ``(d,)`` (the test point ``x_hat`` in the paper).
    t : float or array_like(float, ndim=1)
        Time ``>= 0``, a number or ``T`` times.

    Returns
    -------
    OneLayerOutput
        ``(output, growth, noise)``, each ``(T, d)`` (``(d,)`` for a scalar ``t``).
    """
    a = _vector_a(a)
    d = a.size
    W0 = _square("W0", W0, d)
    if W0.ndim != 2:
        raise ValueError(f"W0 must be a single (d, d) matrix, got shape {W0.shape}")
    z = _vector("z", z, d)
    t_arr = _times(t)
    tt = np.atleast_1d(t_arr)[:, None]  # (T, 1)
    decay = np.exp(-a[None, :] * tt)  # (T, d)
    growth = (a > 0)[None, :] * (1.0 - decay) * z[None, :]
    noise = (decay * z[None, :]) @ W0.T  # sum_i exp(-a_i t) w_ki(0) z_i
    if t_arr.ndim == 0:
        growth, noise = growth[0], noise[0]
    return OneLayerOutput(growth + noise, growth, noise)


def one_layer_output_with_bias(W0, b0, a, mean, z, t) -> np.ndarray:
    """Model output ``W(t) z + b(t)`` of a one-layer model *with bias* under gradient
    flow on the loss (2.1) in the large-data limit (the authors' ``nn.Linear``).

    The bias is a weight on a constant input 1, so Theorem 4.1 applies to the augmented
    input ``(x, 1)`` whose second-moment matrix ``[[diag(a), m], [m^T, 1]]`` (``m = E x``,
    ``m_p = mu_p / s`` in concept coordinates) is no longer diagonal:
    ``[W b](t) = [I 0] + ([W0 b0] - [I 0]) exp(-A_aug t)``. Unlike eq. (4.2), the
    directions are coupled through the mean.

    Used by ``book/one_layer_theory.md`` (the trained networks with bias, Fig. 2a).

    Parameters
    ----------
    W0 : array_like(float, ndim=2)
        Initial weight ``(d, d)``.
    b0 : array_like(float, ndim=1)
        Initial bias ``(d,)``.
    a : array_like(float, ndim=1)
        Diagonal of ``A``, ``(d,)``, entries ``>= 0``.
    mean : array_like(float, ndim=1)
        The data mean ``(d,)`` (:func:`mean_vector`).
    z : array_like(float, ndim=1)
        Input ``(d,)``.
    t : float or array_like(float, ndim=1)
        Time ``>= 0``, a number or ``T`` times.

    Returns
    -------
    numpy.ndarray
        ``(T, d)`` (or ``(d,)`` for a scalar ``t``).
    """
    a = _vector_a(a)
    d = a.size
    W0 = _square("W0", W0, d)
    if W0.ndim != 2:
        raise ValueError(f"W0 must be a single (d, d) matrix, got shape {W0.shape}")
    vecs = {name: _vector(name, v, d) for name, v in (("b0", b0), ("mean", mean), ("z", z))}
    t_arr = _times(t)
    lam, V = np.linalg.eigh(_augmented(a, vecs["mean"]))
    E0 = np.concatenate([W0 - np.eye(d), vecs["b0"][:, None]], axis=1)  # [W0 b0] - [I 0]
    z_aug = np.append(vecs["z"], 1.0)
    proj = V.T @ z_aug  # exp(-A t) z_aug = V diag(exp(-lam t)) V^T z_aug
    tt = np.atleast_1d(t_arr)[:, None]
    decayed = (np.exp(-lam[None, :] * tt) * proj[None, :]) @ V.T  # (T, d + 1)
    out = vecs["z"][None, :] + decayed @ E0.T
    return out[0] if t_arr.ndim == 0 else out


def mean_vector(mu, n_clusters: int, d: int) -> np.ndarray:
    """The data mean ``m = E x`` of the SIM task in concept coordinates: ``m_p = mu_p /
    n_clusters`` for the ``s`` concepts and 0 on the other ``d - s`` axes.

    The off-diagonal column of ``A_aug`` (eq. ``eq-one-aug`` of
    ``book/one_layer_theory.md``), which couples the directions once the model has a bias.

    Parameters
    ----------
    mu : array_like(float, ndim=1)
        Cluster distances ``mu_p >= 0``, one per concept.
    n_clusters : int
        Number of equally likely training clusters, ``>= len(mu)`` (``s + 1`` with the
        authors' origin cluster).
    d : int
        Dimension, ``>= len(mu)``.

    Returns
    -------
    numpy.ndarray
        ``(d,)``.
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


def _augmented(a: np.ndarray, mean: np.ndarray) -> np.ndarray:
    d = a.size
    A_aug = np.zeros((d + 1, d + 1))
    A_aug[:d, :d] = np.diag(a)
    A_aug[:d, d] = A_aug[d, :d] = mean
    A_aug[d, d] = 1.0
    return A_aug


def augmented_moment(a, mean, s: int | None = None) -> np.ndarray:
    """The second-moment matrix ``A_aug = [[diag(a), m], [m^T, 1]]`` of the augmented
    input ``(x, 1)``, through which a bias couples the directions (Theorem 4.1 with a
    bias, :func:`one_layer_output_with_bias`).

    ``book/one_layer_theory.md`` takes the smallest eigenvalue of its block over the two
    concepts and the constant input: how much the bias slows learning.

    Parameters
    ----------
    a : array_like(float, ndim=1)
        ``(d,)``, the diagonal of ``A``, entries ``>= 0``.
    mean : array_like(float, ndim=1)
        ``(d,)``, the data mean ``m`` (:func:`mean_vector`).
    s : int, optional
        Keep only the first ``s`` directions and the constant input (``1 <= s <= d``);
        default all ``d``.

    Returns
    -------
    numpy.ndarray
        ``(s + 1, s + 1)``, or ``(d + 1, d + 1)``; the constant input is the last row.
    """
    a = _vector_a(a)
    mean = _vector("mean", mean, a.size)
    s = a.size if s is None else _checks.integer("s", s, low=1, high=a.size)
    keep = np.append(np.arange(s), a.size)
    return _augmented(a, mean)[np.ix_(keep, keep)]
