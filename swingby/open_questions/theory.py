"""What the one-layer theory predicts for normalised inputs (Q4 of ``book/open_questions_training.md``;
Sec. 4.1, Theorem 4.1 with a bias). Under gradient flow on the mean squared error, ``Theta = [W b]``
follows ``Theta* + (Theta(0) - Theta*) exp(-t M)`` with ``M = E[z~ z~^T]`` for ``z~ = (z, 1)`` and
``Theta* = E[t z~^T] M^-1``: on raw inputs ``M`` is (up to the bias row) the ``A`` of eq. (C.13), on
standardised ones the *normalised* second moment, whose eigenvalues set which concept is learned first.
"""
from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np
import torch

from swingby.sim.models import MLP

__all__ = ["NormalisedMoment", "normalised_moment"]


class NormalisedMoment(NamedTuple):
    """The augmented second-moment matrix of a training input set and its eigenvalues."""

    M: np.ndarray            #: ``(d + 1, d + 1)`` ``E[z~ z~^T]``
    eigenvalues: np.ndarray  #: ascending; their ratios are the rates' ratios


def normalised_moment(Z) -> NormalisedMoment:
    """:class:`NormalisedMoment` of the inputs ``Z`` ``(N, d)`` the model sees (raw or standardised)."""
    Z = np.asarray(Z.double().numpy() if isinstance(Z, torch.Tensor) else Z, dtype=float)
    if Z.ndim != 2 or Z.shape[0] < 1 or not np.all(np.isfinite(Z)):
        raise ValueError(f"Z must be a finite (N, d) array with N >= 1, got shape {Z.shape}")
    Zt = np.hstack([Z, np.ones((Z.shape[0], 1))])
    M = Zt.T @ Zt / Z.shape[0]
    return NormalisedMoment(M, np.linalg.eigvalsh(M))


def flow_learning_times(inputs, targets, test_input, W0, b0, back: Callable[[np.ndarray], np.ndarray],
                        mu, n_times: int = 4000) -> np.ndarray:
    """Learning times (half way to ``mu_p``) at ``test_input`` under the flow of one linear layer with bias."""
    Z = np.asarray(inputs, dtype=float)
    T = np.asarray(targets, dtype=float)
    z_hat = np.asarray(test_input, dtype=float)
    W0, b0 = np.asarray(W0, dtype=float), np.asarray(b0, dtype=float)
    mu = np.asarray(mu, dtype=float)
    Zt = np.hstack([Z, np.ones((Z.shape[0], 1))])
    M = Zt.T @ Zt / Z.shape[0]
    lam, V = np.linalg.eigh(M)
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


def predicted_orders(runs, cell, rules) -> tuple[np.ndarray, np.ndarray]:
    """Per run of a one-layer cell: the order the flow predicts under the inputs seen, and under the raw ones."""
    def passes(t):
        return bool(np.isfinite(t[1]) and t[0] >= rules.time_ratio * t[1])

    pred_norm, pred_raw = [], []
    for rec, dat, st in zip(*runs):
        init = MLP(rules.d, 1, activation="linear", init_scale=cell.init_scale, seed=rec.config["seed"])
        W0 = init.layers[0].weight.detach().double().numpy()
        b0 = init.layers[0].bias.detach().double().numpy()
        R = dat.rotation.double().numpy()
        X = dat.X.double().numpy()
        x_hat = dat.x_hat.double().numpy()
        mu = rec.test_points[-1, :2]
        raw = flow_learning_times(X, X, x_hat, W0, b0, lambda y: y @ R, mu)
        if st is None:
            norm = raw
        else:
            Z = st(dat.X).double().numpy()
            z_hat = st(dat.x_hat).double().numpy()
            if cell.variant == "standardised":
                norm = flow_learning_times(Z, Z, z_hat, W0, b0, lambda y, st=st: st.invert(y) @ R, mu)
            else:
                norm = flow_learning_times(Z, X, z_hat, W0, b0, lambda y: y @ R, mu)
        pred_norm.append(passes(norm))
        pred_raw.append(passes(raw))
    return np.array(pred_norm), np.array(pred_raw)
