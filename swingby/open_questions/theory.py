"""What the one-layer theory predicts for normalised inputs (Q4 of
``book/open_questions.md``; Sec. 4.1, Theorem 4.1 with the bias of
:func:`swingby.theory.one_layer.one_layer_output_with_bias`).

A linear layer with bias, ``f(z) = W z + b``, trained by gradient flow on the mean squared
error between ``f(z_i)`` and targets ``t_i``, follows ``Theta(t) = Theta* + (Theta(0) -
Theta*) exp(-t M)`` with ``Theta = [W b]``, ``M = E[z~ z~^T]`` the second-moment matrix of
the augmented input ``z~ = (z, 1)`` and ``Theta* = E[t z~^T] M^-1``. On raw inputs ``M`` is
(up to the bias row) the ``A`` of eq. (C.13); on standardised inputs it is the
*normalised* second-moment matrix, whose eigenvalues set which concept is learned first.
"""
from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np
import torch


class NormalisedMoment(NamedTuple):
    """The augmented second-moment matrix of a training input set and its eigenvalues."""

    M: np.ndarray            #: ``(d + 1, d + 1)`` ``E[z~ z~^T]``
    eigenvalues: np.ndarray  #: ascending; their ratios are the rates' ratios


def normalised_moment(Z) -> NormalisedMoment:
    """:class:`NormalisedMoment` of inputs ``Z`` ``(N, d)`` (raw or standardised).

    Parameters
    ----------
    Z : torch.Tensor or numpy.ndarray
        The inputs the model sees, finite, ``N >= 1``.

    Returns
    -------
    NormalisedMoment
    """
    Z = np.asarray(Z.double().numpy() if isinstance(Z, torch.Tensor) else Z, dtype=float)
    if Z.ndim != 2 or Z.shape[0] < 1 or not np.all(np.isfinite(Z)):
        raise ValueError(f"Z must be a finite (N, d) array with N >= 1, got shape {Z.shape}")
    Zt = np.hstack([Z, np.ones((Z.shape[0], 1))])
    M = Zt.T @ Zt / Z.shape[0]
    return NormalisedMoment(M, np.linalg.eigvalsh(M))


def flow_learning_times(inputs, targets, test_input, W0, b0, back: Callable[[np.ndarray], np.ndarray],
                        mu, n_times: int = 4000) -> np.ndarray:
    """Learning times (eq. obs-learning-time: half of the way to ``mu_p`` along concept
    ``p``) of the output at ``test_input`` under the gradient flow of one linear layer with
    bias, in units of ``1 / (largest eigenvalue of M)``.

    Parameters
    ----------
    inputs, targets : array_like (N, d)
        Training inputs the model sees and its targets (finite).
    test_input : array_like (d,)
        The test input (``x_hat``, standardised where the model sees standardised inputs).
    W0 : array_like (d, d)
        Initial weight.
    b0 : array_like (d,)
        Initial bias.
    back : callable
        Maps outputs ``(T, d)`` to the raw data's concept coordinates.
    mu : array_like (s,)
        The target along each concept (``x_hat`` in concept coordinates).
    n_times : int
        Points of the log-spaced time grid, ``>= 10``.

    Returns
    -------
    numpy.ndarray
        ``(s,)`` times (``inf`` where the half-way mark is never reached).
    """
    Z = np.asarray(inputs, dtype=float)
    T = np.asarray(targets, dtype=float)
    if Z.ndim != 2 or T.shape != Z.shape or not (np.all(np.isfinite(Z)) and np.all(np.isfinite(T))):
        raise ValueError(f"inputs and targets must be finite arrays of one shape (N, d), got {Z.shape}, {T.shape}")
    d = Z.shape[1]
    z_hat = np.asarray(test_input, dtype=float)
    W0, b0 = np.asarray(W0, dtype=float), np.asarray(b0, dtype=float)
    if z_hat.shape != (d,) or W0.shape != (d, d) or b0.shape != (d,):
        raise ValueError(f"test_input must be ({d},), W0 ({d}, {d}) and b0 ({d},); got {z_hat.shape}, "
                         f"{W0.shape}, {b0.shape}")
    if not callable(back):
        raise ValueError(f"back must be a callable mapping outputs to concept coordinates, got {back!r}")
    if not isinstance(n_times, int) or n_times < 10:
        raise ValueError(f"n_times must be an int >= 10, got {n_times!r}")
    mu = np.asarray(mu, dtype=float)
    Zt = np.hstack([Z, np.ones((Z.shape[0], 1))])
    M = Zt.T @ Zt / Z.shape[0]
    lam, V = np.linalg.eigh(M)
    if lam[0] <= 1e-12 * lam[-1]:
        raise ValueError("inputs have a singular augmented second moment: the flow has no unique end point")
    theta_star = (T.T @ Zt / Z.shape[0]) @ np.linalg.inv(M)
    theta0 = np.hstack([W0, b0[:, None]])
    times = np.concatenate([[0.0], np.logspace(-4, np.log10(40.0 * lam[-1] / lam[0]), n_times - 1)])
    zt = np.append(z_hat, 1.0)
    proj = V.T @ zt                                        # (d + 1,)
    decay = np.exp(-np.outer(times, lam / lam[-1]))         # (T, d + 1)
    y = (theta_star @ zt)[:, None] + ((theta0 - theta_star) @ V) @ (decay * proj).T   # (d, T)
    yc = np.asarray(back(y.T))
    s = mu.size
    with np.errstate(divide="ignore", invalid="ignore"):
        progress = (yc[:, :s] - yc[0, :s]) / (mu - yc[0, :s])
    out = np.full(s, np.inf)
    for p in range(s):
        hit = np.flatnonzero(progress[:, p] >= 0.5)
        if hit.size:
            out[p] = times[hit[0]]
    return out
