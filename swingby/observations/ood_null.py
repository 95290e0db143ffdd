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

Shown cheaply (tests in ``tests/test_fig16_null.py``): on the wide clusters of Fig. 2(b)
(seeds 0-2 of each configuration, 500 centres) the full run ends within 0.25
``||x_hat||`` of ``x_hat`` (0.02 to 0.15) while its truncated twin ends farther than
0.9 ``||x_hat||`` from it, so ``delta`` exceeds 0.5 (1.05 to 1.21), far above the
check's 0.1; on the authors' tight Fig. 2(c) clusters, with no training point near
``x_hat``, the model never comes within 0.9 ``||x_hat||`` of ``x_hat``, where the
paper's linear model reaches it (``book/observations.md``): it does not compose.

Training is full-batch gradient descent on ``0.5 * mean ||f(x_i) - x_i||^2`` from
``W = 0`` with step ``1 / lambda_max`` of the full set's feature Gram matrix; the loss
is quadratic in ``W``, so the path is computed exactly in the Gram matrix's eigenbasis
(no batched SGD is needed). Used by :func:`~swingby.observations.ood.fig16_units`.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import torch

from swingby import _checks
from swingby.observations.runs import _check_configs_seeds
from swingby.sim.batched import train_batched
from swingby.sim.data import SimData, make_sim
from swingby.sim.models import MLP


def rbf_centers(cfg: dict, seed: int, rotation: torch.Tensor, n_centers: int, *,
                n_per_cluster: int = 5000) -> torch.Tensor:
    """Centres of the RBF model: ``n_centers`` points of an independent, untruncated draw
    of the training distribution (origin cluster) with ``seed``, turned into the frame
    ``rotation`` of the data they will meet.

    Parameters
    ----------
    cfg : dict
        ``mu`` and ``sigma`` of the clusters.
    seed : int
        Seed of the draw (and of the choice of the centres among its points).
    rotation : torch.Tensor
        ``(d, d)`` rotation of the training data (``SimData.rotation``).
    n_centers : int
        Number of centres, at most the draw's size ``(len(mu) + 1) * n_per_cluster``.
    n_per_cluster : int
        Points per cluster of the draw.

    Returns
    -------
    torch.Tensor
        ``(n_centers, d)``, float64.
    """
    if not isinstance(rotation, torch.Tensor) or rotation.ndim != 2 or rotation.shape[0] != rotation.shape[1]:
        raise ValueError(f"rotation must be a square torch.Tensor, got {type(rotation).__name__}")
    n_centers = _checks.positive_int("n_centers", n_centers)
    draw = make_sim(cfg["mu"], cfg["sigma"], rotation.shape[0], n_per_cluster, origin_cluster=True,
                    rotate=False, seed=seed)
    if n_centers > draw.X.shape[0]:
        raise ValueError(f"n_centers must be at most {draw.X.shape[0]}, got {n_centers}")
    pick = torch.randperm(draw.X.shape[0], generator=torch.Generator().manual_seed(seed))[:n_centers]
    return draw.X[pick].double() @ rotation.double().T


def _features(X, centers, bandwidth):
    """``phi(X)``, shape ``(len(X), len(centers))``."""
    return torch.exp(-torch.cdist(X.double(), centers) ** 2 / (2 * bandwidth ** 2))


def rbf_outputs(data: SimData, centers: torch.Tensor, *, bandwidth: float, steps,
                lr: float | None = None) -> tuple[np.ndarray, float]:
    """Outputs at ``x_hat`` of the RBF model trained by full-batch gradient descent
    on ``data`` (exact path, from zero weights), at the given steps.

    Parameters
    ----------
    data : SimData
        The training set (its ``x_hat`` is where the output is read).
    centers : torch.Tensor
        ``(M, d)`` centres (:func:`rbf_centers`).
    bandwidth : float
        Kernel width ``h``, ``> 0``.
    steps : sequence of int
        Gradient steps to record, each ``>= 0``.
    lr : float or None
        Step size; ``None`` for ``1 / lambda_max`` of this set's feature Gram matrix.

    Returns
    -------
    tuple of (numpy.ndarray, float)
        ``(outputs, lr)``: outputs of shape ``(len(steps), d)``, and the step used.
    """
    if not isinstance(data, SimData):
        raise ValueError(f"data must be a SimData, got {type(data).__name__}")
    if not isinstance(centers, torch.Tensor) or centers.ndim != 2 or centers.shape[1] != data.d:
        raise ValueError(f"centers must be a (M, {data.d}) torch.Tensor")
    bandwidth = _checks.positive_float("bandwidth", bandwidth)
    steps = np.asarray(steps)
    if steps.ndim != 1 or steps.size == 0 or not np.issubdtype(steps.dtype, np.integer) or (steps < 0).any():
        raise ValueError(f"steps must be a non-empty sequence of integers >= 0, got {steps!r}")
    centers = centers.double()
    phi = _features(data.X, centers, bandwidth)
    lam, vec = torch.linalg.eigh(phi.T @ phi / phi.shape[0])
    lam = lam.clamp(min=0.0)
    lr = 1.0 / float(lam.max()) if lr is None else _checks.positive_float("lr", lr)
    target = phi.T @ data.X.double() / phi.shape[0]  # E[phi(x) x^T], (M, d)
    read = _features(data.x_hat[None], centers, bandwidth)[0] @ vec  # phi(x_hat) in the eigenbasis
    k = torch.as_tensor(steps, dtype=torch.float64)[:, None]
    small = lam < 1e-12
    gain = torch.where(small, lr * k, (1 - (1 - lr * lam).pow(k)) / torch.where(small, 1.0, lam))
    return (gain * read @ (vec.T @ target)).numpy(), lr


def rbf_twin_delta(full: SimData, truncated: SimData, centers: torch.Tensor, *, bandwidth: float,
                   steps) -> float:
    """``delta`` (eq. ood-delta, the largest over ``steps``) between the RBF model's
    outputs at ``x_hat`` trained on ``full`` and on its truncated twin, with the same
    centres and the same step (``1 / lambda_max`` of ``full``).

    Parameters
    ----------
    full, truncated : SimData
        The twins, in the same frame (same ``x_hat``).
    centers, bandwidth, steps
        As in :func:`rbf_outputs`.

    Returns
    -------
    float
        The largest distance of the two output paths, divided by ``||x_hat||``.
    """
    if not isinstance(full, SimData) or not isinstance(truncated, SimData):
        raise ValueError("full and truncated must be SimData")
    if not torch.allclose(full.x_hat, truncated.x_hat):
        raise ValueError("full and truncated must share x_hat (the same frame)")
    a, lr = rbf_outputs(full, centers, bandwidth=bandwidth, steps=steps)
    b, _ = rbf_outputs(truncated, centers, bandwidth=bandwidth, steps=steps, lr=lr)
    return float(np.linalg.norm(a - b, axis=1).max() / float(full.x_hat.norm()))


def fresh_draw_runs(configs: Sequence[dict], seeds: Sequence[int], *, record_steps, d: int = 64,
                    data_offset: int = 100) -> list:
    """One-layer runs on a fresh, untruncated draw of the data: the null of Fig. 16 that
    changes every training point and nothing else. Used in ``book/ood_checks.md``.

    Run ``(c, s)`` draws its data with seed ``data_offset + s`` and turns them by the
    rotation of the seed-``s`` data of :func:`~swingby.observations.ood.truncation_twins`, so that its rotation,
    test points, initial weights and shuffling are those of the full twin of seed ``s``.

    Parameters
    ----------
    configs : sequence of dict
        Dicts with keys ``mu`` and ``sigma`` (origin cluster, 5000 points per cluster).
    seeds : sequence of int
        The twins' seeds.
    record_steps : array_like of int
        The steps the twins were recorded at (``full[0][0].steps``).
    d : int
        Input dimension.
    data_offset : int
        Added to a seed to draw the fresh data, ``>= 1``.

    Returns
    -------
    list of swingby.sim.train_loop.TrainRecord
        One record per (config, seed), configs outer.
    """
    configs, seeds, _ = _check_configs_seeds(configs, seeds, d)
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
