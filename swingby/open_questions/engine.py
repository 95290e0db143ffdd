"""Two training tools the open questions need beyond :func:`swingby.sim.batched.train_batched`
(chapter: ``book/open_questions.md``).

* :func:`moment_points`: ``2 d`` points with the mean and covariance of a training set.
  A linear network of any depth (with biases) computes an affine map of its input, so
  its mean squared loss over a data set, and every gradient of it, depends on the data
  only through their mean and second moment: full-batch gradient descent on these few
  points is full-batch gradient descent on the whole set (exact up to rounding;
  ``tests/test_open_questions.py`` checks it). This makes the equal-steps full-batch runs
  of Q3 (4720 full passes over 15 000 points) cheap.
* :func:`train_pairs`: ``R`` MLPs of one architecture trained together by SGD on pairs
  (input, target) that may differ, as a fixed normalisation layer in front of the
  model needs (Q4). With inputs equal to targets it is
  :func:`~swingby.sim.batched.train_batched` (same batches, same numbers; tested).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import torch

from swingby import _checks
from swingby.sim import run_checks
from swingby.sim.models import MLP
from swingby.sim.train_loop import LOSSES, steps_per_epoch


def moment_points(X: torch.Tensor) -> torch.Tensor:
    """The ``2 d`` points ``m +- sqrt(d) c_j`` (``c_j`` the columns of the symmetric square
    root of the covariance ``C``): their mean is the mean ``m`` of ``X`` and their
    covariance (over ``2 d`` equally weighted points) is ``C``, so a linear network's loss
    and gradients on them equal those on ``X``.

    Parameters
    ----------
    X : torch.Tensor
        Training inputs ``(N, d)``, finite, ``N >= 1``.

    Returns
    -------
    torch.Tensor
        ``(2 d, d)`` points, float32.
    """
    if not isinstance(X, torch.Tensor) or X.ndim != 2 or X.shape[0] < 1:
        raise ValueError(f"X must be a torch.Tensor of shape (N, d) with N >= 1, got "
                         f"{getattr(X, 'shape', type(X).__name__)}")
    if not bool(torch.isfinite(X).all()):
        raise ValueError("X must be finite (no NaN or inf)")
    Xd = X.double()
    m = Xd.mean(0)
    C = (Xd - m).T @ (Xd - m) / Xd.shape[0]
    lam, V = torch.linalg.eigh(C)
    root = V @ torch.diag(lam.clamp(min=0).sqrt()) @ V.T
    d = X.shape[1]
    offsets = np.sqrt(d) * root.T  # rows: sqrt(d) c_j
    return torch.cat([m + offsets, m - offsets]).float()


def _stack(tensors, name: str, n_runs: int) -> torch.Tensor:
    if isinstance(tensors, torch.Tensor):
        out = tensors
    else:
        try:
            out = torch.stack(list(tensors))
        except (TypeError, RuntimeError) as err:
            raise ValueError(f"{name} must be R tensors of one shape (or an (R, N, d) tensor): {err}") from None
    if out.ndim != 3 or out.shape[0] != n_runs:
        raise ValueError(f"{name} must have shape (R, N, d) with R = {n_runs} (one per model), "
                         f"got {tuple(out.shape)}")
    if not bool(torch.isfinite(out).all()):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return out.float()


def train_pairs(models: Sequence[MLP], inputs, targets, test_inputs, *, lr: float = 0.01,
                batch_size: int = 128, epochs: int = 40, loss: str = "mean",
                record_steps: Sequence[int] = (0,), seed: Sequence[int] = (0,)) -> np.ndarray:
    """Train ``R`` MLPs of one architecture by plain SGD, run ``r`` on pairs
    ``(inputs[r, i], targets[r, i])``, data shuffled once with generator ``seed[r]`` (as
    :func:`swingby.sim.batched.train_batched`), and record the outputs at ``test_inputs``.

    Used by :mod:`swingby.open_questions.experiments` for the normalisation layer of Q4
    (inputs standardised, targets raw).

    Parameters
    ----------
    models : sequence of MLP
        ``R`` models with equal ``d``, ``depth``, ``width``, ``activation``, ``bias``;
        trained in place.
    inputs, targets : torch.Tensor or sequence of torch.Tensor
        ``(R, N, d)`` inputs and targets, finite.
    test_inputs : torch.Tensor or sequence of torch.Tensor
        ``(R, P, d)`` inputs at which the outputs are recorded.
    lr : float
        Learning rate, ``> 0``.
    batch_size : int
        Mini-batch size, ``> 0`` (the last batch of an epoch may be smaller).
    epochs : int
        Passes over the data, ``> 0``.
    loss : {"mean", "paper"}
        As in :func:`swingby.sim.train.train`.
    record_steps : sequence of int
        Steps (``0 .. epochs * steps_per_epoch``) after which outputs are recorded.
    seed : sequence of int
        One shuffling seed per model.

    Returns
    -------
    numpy.ndarray
        ``(R, len(record_steps), P, d)`` outputs, float64 (NaN where a run diverged).
    """
    models = list(models) if not isinstance(models, MLP) else [models]
    if not models or not all(isinstance(m, MLP) for m in models):
        raise ValueError("models must be a non-empty sequence of swingby.models.MLP")
    spec = {(m.d, m.depth, m.width, m.activation, m.bias) for m in models}
    if len(spec) != 1:
        raise ValueError(f"models must share one architecture, got {sorted(spec)}")
    n_runs, d = len(models), models[0].d
    Z, T = _stack(inputs, "inputs", n_runs), _stack(targets, "targets", n_runs)
    P = _stack(test_inputs, "test_inputs", n_runs)
    if Z.shape != T.shape or Z.shape[2] != d or P.shape[2] != d:
        raise ValueError(f"inputs and targets must have one shape (R, N, d = {d}) and test_inputs "
                         f"(R, P, d); got {tuple(Z.shape)}, {tuple(T.shape)}, {tuple(P.shape)}")
    lr = _checks.positive_float("lr", lr)
    bs = _checks.positive_int("batch_size", batch_size)
    epochs = _checks.positive_int("epochs", epochs)
    _checks.choice("loss", loss, LOSSES)
    seeds = run_checks.seed_list("seed", seed)
    if len(seeds) != n_runs:
        raise ValueError(f"seed must hold one seed per model ({n_runs}), got {len(seeds)}")
    n = Z.shape[1]
    n_steps = epochs * steps_per_epoch(n, bs)
    steps = np.asarray(record_steps)
    if steps.ndim != 1 or steps.size == 0 or np.any(steps < 0) or np.any(steps > n_steps) \
            or np.any(np.diff(steps) <= 0):
        raise ValueError(f"record_steps must be increasing steps in [0, {n_steps}], got {record_steps!r}")
    gens = [torch.Generator().manual_seed(s) for s in seeds]
    perm = torch.stack([torch.randperm(n, generator=g) for g in gens])
    Zs = torch.stack([Z[r, perm[r]] for r in range(n_runs)])
    Ts = torch.stack([T[r, perm[r]] for r in range(n_runs)])
    W = [torch.stack([m.layers[k].weight.detach() for m in models]).clone() for k in range(models[0].depth)]
    B = ([torch.stack([m.layers[k].bias.detach() for m in models]).clone() for k in range(models[0].depth)]
         if models[0].bias else None)
    relu = models[0].activation == "relu"

    def forward(h):
        hs = [h]
        for k in range(len(W)):
            h = torch.bmm(h, W[k].transpose(1, 2)) + (0 if B is None else B[k][:, None, :])
            if relu and k < len(W) - 1:
                h = torch.relu(h)
            hs.append(h)
        return h, hs

    out, step, want = [], 0, iter(steps.tolist())
    nxt = next(want)
    with torch.no_grad():
        for _ in range(epochs + 1):
            for start in range(0, n, bs):
                while nxt is not None and nxt == step:
                    out.append(forward(P)[0].double().numpy())
                    nxt = next(want, None)
                if step == n_steps or nxt is None:
                    break
                xb, tb = Zs[:, start:start + bs], Ts[:, start:start + bs]
                y, hs = forward(xb)
                delta = (y - tb) * (2.0 / (xb.shape[1] * d) if loss == "mean" else 1.0 / xb.shape[1])
                for k in range(len(W) - 1, -1, -1):
                    gW = torch.bmm(delta.transpose(1, 2), hs[k])
                    if B is not None:
                        B[k].sub_(delta.sum(1), alpha=lr)
                    if k > 0:
                        delta = torch.bmm(delta, W[k]) * ((hs[k] > 0) if relu else 1)
                    W[k].sub_(gW, alpha=lr)
                step += 1
            if nxt is None:
                break
        for i, m in enumerate(models):
            for k in range(len(W)):
                m.layers[k].weight.copy_(W[k][i])
                if B is not None:
                    m.layers[k].bias.copy_(B[k][i])
    return np.stack(out, axis=1)
