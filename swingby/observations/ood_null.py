"""The nulls of the Fig. 16 check (App. F.3, ``claim-ood-fig16``; ``book/ood_checks.md``). The wrong model,
a narrow RBF regression ``f(x) = W^T phi(x)``, ``phi_j(x) = exp(-||x - c_j||^2 / 2h^2)``, trained by exact
gradient descent from ``W = 0`` with step ``1 / lambda_max``, reads the training points within a few ``h``
of ``x_hat``, which truncation removes; the paper's models read ``A`` (eq. 4.1), which it barely moves.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import torch

from swingby import _checks
from swingby.observations.runs import check_configs_seeds
from swingby.sim.batched import train_batched
from swingby.sim.data import SimData, make_sim
from swingby.sim.models import MLP

__all__ = ["fresh_draw_runs"]


def rbf_centers(cfg: dict, seed: int, rotation: torch.Tensor, n_centers: int, *,
                n_per_cluster: int = 5000) -> torch.Tensor:
    """``(n_centers, d)`` float64 centres: points of an untruncated draw with ``seed``, turned by ``rotation``."""
    draw = make_sim(cfg["mu"], cfg["sigma"], rotation.shape[0], n_per_cluster, origin_cluster=True,
                    rotate=False, seed=seed)
    pick = torch.randperm(draw.X.shape[0], generator=torch.Generator().manual_seed(seed))[:n_centers]
    return draw.X[pick].double() @ rotation.double().T


def _features(X, centers, bandwidth):
    """``phi(X)``, shape ``(len(X), len(centers))``."""
    return torch.exp(-torch.cdist(X.double(), centers) ** 2 / (2 * bandwidth ** 2))


def rbf_outputs(data: SimData, centers: torch.Tensor, *, bandwidth: float, steps,
                lr: float | None = None) -> tuple[np.ndarray, float]:
    """The RBF model's outputs at ``x_hat`` (a row per step) trained on ``data``, and its step (``1 / lambda_max``)."""
    centers = centers.double()
    phi = _features(data.X, centers, bandwidth)
    lam, vec = torch.linalg.eigh(phi.T @ phi / phi.shape[0])
    lam = lam.clamp(min=0.0)
    lr = 1.0 / float(lam.max()) if lr is None else lr
    target = phi.T @ data.X.double() / phi.shape[0]  # E[phi(x) x^T], (M, d)
    read = _features(data.x_hat[None], centers, bandwidth)[0] @ vec  # phi(x_hat) in the eigenbasis
    k = torch.as_tensor(np.asarray(steps), dtype=torch.float64)[:, None]
    small = lam < 1e-12
    gain = torch.where(small, lr * k, (1 - (1 - lr * lam).pow(k)) / torch.where(small, 1.0, lam))
    return (gain * read @ (vec.T @ target)).numpy(), lr


def rbf_twin_delta(full: SimData, truncated: SimData, centers: torch.Tensor, *, bandwidth: float,
                   steps) -> float:
    """``delta`` (eq. ood-delta, largest over ``steps``) of the RBF model trained on ``full`` and on ``truncated``."""
    a, lr = rbf_outputs(full, centers, bandwidth=bandwidth, steps=steps)
    b, _ = rbf_outputs(truncated, centers, bandwidth=bandwidth, steps=steps, lr=lr)
    return float(np.linalg.norm(a - b, axis=1).max() / float(full.x_hat.norm()))


def fresh_draw_runs(configs: Sequence[dict], seeds: Sequence[int], *, record_steps, d: int = 64,
                    data_offset: int = 100) -> list:
    """One-layer runs, configs outer, on a fresh draw of every training point (seed ``data_offset + s``), all
    else shared with the seed-``s`` full twin of :func:`~swingby.observations.ood.truncation_twins`.

    Parameters
    ----------
    configs, seeds, record_steps, d, data_offset
        The twins' configurations, seeds, recorded steps and dimension; ``>= 1``, added to a seed.
    """
    configs, seeds, _ = check_configs_seeds(configs, seeds, d)
    data_offset = _checks.integer("data_offset", data_offset, low=1)
    fresh = []
    for cfg in configs:
        for s in seeds:
            f = make_sim(cfg["mu"], cfg["sigma"], d, origin_cluster=True, seed=data_offset + s)
            p = make_sim(cfg["mu"], cfg["sigma"], d, origin_cluster=True, rotate=True, seed=s)
            fresh.append(f._replace(X=f.X @ p.rotation.T, x_hat=p.x_hat, rotation=p.rotation,
                                    test_points=p.test_points))
    run_seeds = [s for _ in configs for s in seeds]
    return train_batched([MLP(d, 1, seed=s) for s in run_seeds], fresh, seed=run_seeds,
                         record_steps=record_steps, record_train_loss=False)
