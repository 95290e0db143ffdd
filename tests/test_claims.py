"""The Fig. 6 claim checks of swingby.diffusion.fig6.claims pass on runs with the effect and
fail on runs without it, and each reports its null's pass rate."""
from __future__ import annotations

import numpy as np
import pytest

from swingby.diffusion.fig6 import claims as C
from swingby.diffusion.fig6 import slowing as FS

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


def test_order_check_flips_in_every_seed_and_its_null_rarely_does(runs):
    with_effect, without = runs
    o = C.order_check(with_effect, n=500)
    assert o.passed and list(o.per_seed[0]) == ["size"] * 4 and list(o.per_seed[1]) == ["colour"] * 4
    assert o.null_pass_rate <= 0.05
    assert not C.order_check(without, n=50).passed


def test_swing_check_points_to_the_first_learned_concept(runs):
    with_effect, without = runs
    checks = C.swing_checks(with_effect, C.order_check(with_effect, n=20), n=100)
    assert [c.result.toward for c in checks] == ["01", "10"]
    assert all(c.result.passed for c in checks), checks
    assert all(c.null_pass_rate <= 0.05 for c in checks)
    nulls = C.swing_checks(without, C.order_check(without, n=20), n=20)
    assert not any(c.result.passed for c in nulls), nulls


def test_swing_check_needs_a_large_swing_and_seeds():
    p = np.zeros((3, 5, 2))
    p[:, :, 0] = np.linspace(0.3, 1, 5)
    p[:, :, 1] = np.linspace(0, 1, 5)
    assert not C.swing_check(p, "10").passed  # straight to (1, 1): at most 0.3
    with pytest.raises(ValueError, match="toward"):
        C.swing_check(p, "11")
    with pytest.raises(ValueError, match="paths"):
        C.swing_check(p[:1], "10")


def test_bend_checks_report_nulls_at_one_and_two_times_the_noise(runs):
    with_effect, _ = runs
    checks = C.bend_checks(with_effect, n=50)
    assert len(checks) == 2
    for c in checks:
        assert 0 <= c.null_pass_rate <= 1 and 0 <= c.null_pass_rate_2x <= 1
        assert 0 <= c.start < K


def test_slowing_check_fails_for_a_model_that_never_moves(runs):
    with_effect, _ = runs
    moving = FS.slowing_checks(with_effect, n=50)
    assert all(c.moving_early for c in moving) and moving[0].still_at_end, moving
    assert all(c.null_pass_rate <= 0.05 for c in moving)
    still = dict(with_effect)
    still["probs"] = np.broadcast_to(with_effect["probs"][:, :, -1:], with_effect["probs"].shape).copy()
    assert not any(c.moving_early for c in FS.slowing_checks(still, n=20))


@pytest.mark.parametrize("kwargs, match", [
    (dict(z=-1.0), "z"), (dict(n=3), "n"), (dict(factor=0.5), "factor"), (dict(min_drop=np.nan), "min_drop"),
])
def test_claims_reject_bad_arguments(runs, kwargs, match):
    with_effect, _ = runs
    func = FS.slowing_checks if {"factor", "min_drop"} & set(kwargs) else C.bend_checks
    with pytest.raises(ValueError, match=match):
        func(with_effect, **kwargs)


def test_slowing_needs_repeated_draws(runs):
    res = {k: v for k, v in runs[0].items() if k != "rep_probs"}
    with pytest.raises(ValueError, match="rep_probs"):
        FS.slowing_checks(res, n=20)


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


def test_the_old_swing_check_passes_an_l_shape_the_dip_check_does_not():
    """Issue 22: learning size, then colour (an L-shaped path that never swings back) passes
    the old seed-mean swing check, whose null is a straight path; the per-run dip check of
    swingby.diffusion.fig6.checks, whose null is every monotone-per-coordinate path, does not."""
    from swingby.diffusion.fig6.checks import dip
    size, col = _logistic(0.3), _logistic(0.6)
    path = np.stack([0.33 + 0.67 * col, size], -1)                  # monotone in each coordinate
    paths = np.repeat(path[None], 4, axis=0) + np.random.default_rng(0).normal(0, 0.01, (4, K, 2))
    assert C.swing_check(paths, "01").passed
    assert not dip(paths[..., 0], np.full((4, K), 0.01)).passed.any()
