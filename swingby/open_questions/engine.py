"""Two training tools of the open questions beyond :func:`swingby.sim.batched.train_batched`:
``moment_points`` (a linear network's mean squared loss depends on the data only through their
mean and second moment, so full-batch descent on these points is full-batch descent on the whole
set: Q3's equal-steps runs) and ``train_pairs`` (SGD on pairs (input, target) that may differ, Q4).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import torch

from swingby.sim.models import MLP
from swingby.sim.train_loop import steps_per_epoch

__all__ = []


def moment_points(X: torch.Tensor) -> torch.Tensor:
    """The ``2 d`` points ``m +- sqrt(d) c_j`` (``c_j``: columns of the root of ``X``'s covariance)."""
    Xd = X.double()
    m = Xd.mean(0)
    C = (Xd - m).T @ (Xd - m) / Xd.shape[0]
    lam, V = torch.linalg.eigh(C)
    root = V @ torch.diag(lam.clamp(min=0).sqrt()) @ V.T
    d = X.shape[1]
    offsets = np.sqrt(d) * root.T  # rows: sqrt(d) c_j
    return torch.cat([m + offsets, m - offsets]).float()


def train_pairs(models: Sequence[MLP], inputs: torch.Tensor, targets: torch.Tensor, test_inputs: torch.Tensor, *,
                lr: float, batch_size: int, epochs: int, record_steps, seed: Sequence[int]) -> np.ndarray:
    """SGD of MLP ``r`` on pairs ``(inputs[r, i], targets[r, i])`` as ``train_batched``; outputs at ``record_steps``."""
    n_runs, d = len(models), models[0].d
    Z, T, P = inputs.float(), targets.float(), test_inputs.float()
    n = Z.shape[1]
    n_steps = epochs * steps_per_epoch(n, batch_size)
    steps = np.asarray(record_steps)
    gens = [torch.Generator().manual_seed(s) for s in seed]
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
            for start in range(0, n, batch_size):
                while nxt is not None and nxt == step:
                    out.append(forward(P)[0].double().numpy())
                    nxt = next(want, None)
                if step == n_steps or nxt is None:
                    break
                xb, tb = Zs[:, start:start + batch_size], Ts[:, start:start + batch_size]
                y, hs = forward(xb)
                delta = (y - tb) * (2.0 / (xb.shape[1] * d))
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
