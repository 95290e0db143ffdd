"""The wrong model of the Fig. 16 check (``swingby.observations.ood_null``) and its null
audit, on old seeds only."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from swingby.claims import ood_checks as CO
from swingby.observations import ood_null as ON
from swingby.observations.ood import twin_data
from swingby.observations.runs import FIG2C_MU, SIGMA_05, record_grid
from swingby.sim.data import make_sim

torch.set_num_threads(1)
STEPS = record_grid(4720)  # the ReLU runs' steps: 40 epochs of 118 batches
KW = dict(bandwidth=CO.FIG16_NULL_BANDWIDTH, steps=STEPS)


def _ends(cfg, full, cut, seed):
    """End distances from x_hat (relative) of the full and the truncated RBF runs, and delta."""
    centers = ON.rbf_centers(cfg, seed, full.rotation, CO.FIG16_NULL_CENTERS)
    a, lr = ON.rbf_outputs(full, centers, **KW)
    b, _ = ON.rbf_outputs(cut, centers, **KW, lr=lr)
    norm = float(full.x_hat.norm())
    ends = [float(np.linalg.norm(o[-1] - full.x_hat.numpy())) / norm for o in (a, b)]
    return ends, ON.rbf_twin_delta(full, cut, centers, **KW)


@pytest.mark.parametrize("config", range(len(CO.FIG16_CONFIGS)))
def test_null_audit_truncation_moves_the_rbf_model(config):
    """The module's audit: on the wide clusters the full run reaches x_hat, its truncated
    twin stays far from it, and delta is far above the check's threshold."""
    for seed in range(3):
        full, cut, n_redrawn = twin_data(CO.FIG16_CONFIGS[config], seed, 64, 5000, True)
        assert n_redrawn > 100
        (full_end, cut_end), delta = _ends(CO.FIG16_CONFIGS[config], full, cut, 1000 + seed)
        assert full_end < 0.25 and cut_end > 0.9 and delta > 0.5 > CO.FIG16_MAX_DELTA


def test_null_audit_rbf_model_does_not_compose_on_fig2c():
    """The module's audit: with no training point near x_hat (Fig. 2c), it never reaches x_hat."""
    data = make_sim(FIG2C_MU, (SIGMA_05, SIGMA_05), 64, 5000, origin_cluster=True, rotate=True, seed=0)
    cfg = dict(mu=FIG2C_MU, sigma=(SIGMA_05, SIGMA_05))
    centers = ON.rbf_centers(cfg, 1, data.rotation, CO.FIG16_NULL_CENTERS)
    out, _ = ON.rbf_outputs(data, centers, **KW)
    dist = np.linalg.norm(out - data.x_hat.numpy(), axis=1) / float(data.x_hat.norm())
    assert dist.min() > 0.9


def test_rbf_outputs_match_plain_gradient_descent():
    data = make_sim([1.0, 2.0], [0.5, 0.3], 3, 40, origin_cluster=True, rotate=True, seed=2)
    centers = ON.rbf_centers(dict(mu=[1.0, 2.0], sigma=[0.5, 0.3]), 3, data.rotation, 15, n_per_cluster=40)
    out, lr = ON.rbf_outputs(data, centers, bandwidth=0.4, steps=[0, 1, 7, 30])
    X = data.X.double()
    phi = torch.exp(-torch.cdist(X, centers) ** 2 / (2 * 0.4 ** 2))
    phi_hat = torch.exp(-torch.cdist(data.x_hat.double()[None], centers) ** 2 / (2 * 0.4 ** 2))[0]
    W, seen = torch.zeros(15, 3, dtype=torch.float64), {}
    for k in range(31):
        seen[k] = (phi_hat @ W).numpy()
        W = W - lr * phi.T @ (phi @ W - X) / len(X)
    assert np.allclose(out, np.stack([seen[k] for k in (0, 1, 7, 30)]), atol=1e-8)
    assert lr == pytest.approx(1 / float(torch.linalg.eigvalsh(phi.T @ phi / len(X)).max()))


def test_rbf_twin_delta_is_zero_for_identical_twins():
    data = make_sim([1.0, 2.0], [0.5, 0.3], 3, 40, origin_cluster=True, seed=2)
    centers = ON.rbf_centers(dict(mu=[1.0, 2.0], sigma=[0.5, 0.3]), 3, data.rotation, 10, n_per_cluster=40)
    assert ON.rbf_twin_delta(data, data, centers, bandwidth=0.3, steps=[0, 5]) == 0.0
