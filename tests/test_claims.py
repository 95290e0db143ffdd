"""Every figure of the diffusion chapter and its explorer draw on a synthetic sweep (a smoke test)."""
from __future__ import annotations

import numpy as np
import pytest

STEPS = [int(s) for s in np.round(np.linspace(0, np.sqrt(2400), 12) ** 2)]
K = len(STEPS)


def _logistic(onset):
    x = np.sqrt(np.asarray(STEPS, float) / STEPS[-1])
    return 1 / (1 + np.exp(-(x - onset) / 0.06))


def _results(swing: bool, rng: np.random.Generator, n_seed: int = 4, n: int = 64) -> dict:
    """Two separations. With ``swing``: size first at the weak one (class 11 goes to red
    small, then to (1, 1)), colour first at the strong one (through blue big). Without:
    both concepts at once, class 11 straight from (0.3, 0) to (1, 1), and it stops early."""
    pts = np.zeros((2, n_seed, K, 4, 2))
    for j in range(n_seed):
        early, late = _logistic(0.3 + 0.02 * j), _logistic(0.6 + 0.02 * j)
        for i in range(2):
            if swing:
                size, col = (early, late) if i == 0 else (late, early)
            else:
                size = col = early
            pts[i, j, :, 1, 1], pts[i, j, :, 2, 0] = size, col          # classes 01 and 10
            if swing and i == 0:   # size first: class 11 is drawn red small, then turns blue
                pts[i, j, :, 3] = np.stack([np.clip(0.3 * (1 - early) + late, 0, 1), early], -1)
            else:                  # colour first (through blue big), or straight to (1, 1)
                pts[i, j, :, 3] = np.stack([0.3 + 0.7 * col, size], -1)
    probs = np.clip(pts[..., None, :] + rng.normal(0, 0.05, pts.shape[:-1] + (n, 2)), 0, 1)
    final = pts[:, :, -1][:, :, None, :, None, :]
    rep = np.clip(final + rng.normal(0, 0.05, (2, n_seed, 4, 4, n, 2)), 0, 1)
    meta = {"config": {"separations": [0.2, 0.7], "seeds": list(range(n_seed)), "steps": STEPS[-1]},
            "checkpoint_steps": STEPS}
    return {"probs": probs.astype(np.float32), "rep_probs": rep.astype(np.float32), "meta": meta}


@pytest.fixture(scope="module")
def runs():
    rng = np.random.default_rng(0)
    return _results(True, rng), _results(False, rng)


def test_the_fig6_plots_and_the_explorer_draw(runs, monkeypatch):
    """Smoke test: every figure of the diffusion chapter draws on a synthetic sweep."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from swingby.diffusion.fig6 import plots as DP
    from swingby.diffusion.fig6.explorer import sweep_explorer
    res = dict(runs[0])
    D, S, K = res["probs"].shape[:3]
    res["pixels"] = np.ones((D, S, K, 4, res["probs"].shape[4], 4), np.float32)
    res["thumbs"] = np.zeros((D, S, K, 4, 2, 3, 8, 8), np.uint8)
    plt.close("all")
    fig, axes = plt.subplots(1, 2)
    DP.plot_trajectories(res, axes)
    DP.plot_mse(res, plt.figure().gca())
    DP.plot_image_grid(res["thumbs"][0, 0, -1], plt.figure().gca(), row_labels=list("abcd"))
    monkeypatch.setenv("SWINGBY_STATIC", "0")  # live: the controls above the output area
    explorer = sweep_explorer(res, dc_index=1, seed_index=0, checkpoint=2)
    assert len(explorer.box.children) == 2 and explorer.values() == {"i": 1, "j": 0, "k": 2}
    assert len(plt.get_fignums()) == 3  # the trajectories, the MSE and the image grid
    monkeypatch.setenv("SWINGBY_STATIC", "1")
    assert sweep_explorer(res, dc_index=1, seed_index=0, checkpoint=2) is None
    plt.close("all")
