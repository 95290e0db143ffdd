"""The wrong model of the Fig. 16 check (App. F.3, ``claim-ood-fig16``): a narrow
Gaussian-kernel (RBF) regression trained by gradient descent on the identity task.

Null audit
----------
The paper's reason why truncation "has little impact on the dynamics" is that the
model sees the training data through their moments: the linear model's loss, and so its
whole path, is a function of the second-moment matrix ``A`` (eq. 4.1, App. C.1,
eq. C.13), and a small MLP approximately so. Removing the few far-tail points within
``min(mu)/2`` of ``x_hat`` barely moves those moments. The model here lacks that
mechanism: ``f(x) = W^T phi(x)`` with ``phi_j(x) = exp(-||x - c_j||^2 / (2 h^2))``, a
narrow bandwidth ``h`` (0.1, a fifth of the truncation radius 0.5 of the wide
clusters) and centres ``c_j`` drawn from the training distribution. Its loss depends on
the data through ``E[phi(x) phi(x)^T]`` and ``E[phi(x) x^T]``, moments of *local*
features, so the output at ``x_hat`` is set by the training points within a few ``h`` of
``x_hat``: exactly the points truncation removes. It is neither the paper's account
(no moment of ``x`` enters) nor a replicate (it is another model on the same data).

Shown cheaply (``tests/test_fig16_null.py``): on the wide clusters of Fig. 2(b) (seeds 0-2,
500 centres) the full run ends within 0.25 ``||x_hat||`` of ``x_hat`` while its truncated twin
ends farther than 0.9 ``||x_hat||`` from it (``delta`` above 0.5, the check's threshold 0.1);
on the tight Fig. 2(c) clusters, with no training point near ``x_hat``, it never comes within
0.9 ``||x_hat||`` of ``x_hat``: it does not compose.

Training is full-batch gradient descent on ``0.5 * mean ||f(x_i) - x_i||^2`` from ``W = 0``
with step ``1 / lambda_max`` of the full set's feature Gram matrix, computed exactly in the
Gram matrix's eigenbasis. :func:`fresh_draw_runs` is the other null of ``book/ood_checks.md``.
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
    """``(n_centers, d)`` float64 centres: points of an independent, untruncated draw of the training
    distribution (origin cluster) with ``seed``, turned by ``rotation`` into the data's frame."""
    draw = make_sim(cfg["mu"], cfg["sigma"], rotation.shape[0], n_per_cluster, origin_cluster=True,
                    rotate=False, seed=seed)
    pick = torch.randperm(draw.X.shape[0], generator=torch.Generator().manual_seed(seed))[:n_centers]
    return draw.X[pick].double() @ rotation.double().T


def _features(X, centers, bandwidth):
    """``phi(X)``, shape ``(len(X), len(centers))``."""
    return torch.exp(-torch.cdist(X.double(), centers) ** 2 / (2 * bandwidth ** 2))


def rbf_outputs(data: SimData, centers: torch.Tensor, *, bandwidth: float, steps,
                lr: float | None = None) -> tuple[np.ndarray, float]:
    """Outputs ``(len(steps), d)`` at ``x_hat`` of the RBF model trained on ``data`` by full-batch
    gradient descent from zero weights (the exact path), and the step (default ``1 / lambda_max``)."""
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
    """``delta`` (eq. ood-delta, the largest over ``steps``) between the RBF model's outputs at
    ``x_hat`` trained on ``full`` and on its truncated twin (same frame, centres and step)."""
    a, lr = rbf_outputs(full, centers, bandwidth=bandwidth, steps=steps)
    b, _ = rbf_outputs(truncated, centers, bandwidth=bandwidth, steps=steps, lr=lr)
    return float(np.linalg.norm(a - b, axis=1).max() / float(full.x_hat.norm()))


def fresh_draw_runs(configs: Sequence[dict], seeds: Sequence[int], *, record_steps, d: int = 64,
                    data_offset: int = 100) -> list:
    """One-layer runs on a fresh, untruncated draw of the data: the null of Fig. 16 that changes
    every training point and nothing else. Run ``(c, s)`` draws its data with seed
    ``data_offset + s`` in the frame of the seed-``s`` full twin of
    :func:`~swingby.observations.ood.truncation_twins`, whose rotation, test points, initial
    weights and shuffling it shares.

    Parameters
    ----------
    configs : sequence of dict
        Keys ``mu`` and ``sigma`` (origin cluster, 5000 points per cluster).
    seeds : sequence of int
        The twins' seeds.
    record_steps : array_like of int
        The steps the twins were recorded at.
    d : int
        Input dimension.
    data_offset : int
        Added to a seed to draw the fresh data, ``>= 1``.

    Returns
    -------
    list of TrainRecord
        One per (config, seed), configs outer.
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
