"""The chapter's diffusion claim checks fail on data without the effect (their nulls)."""
from __future__ import annotations

import numpy as np
import pytest

from swingby.diffusion.fig6 import nulls as N

STEPS = np.round(np.linspace(0, np.sqrt(2400), 16) ** 2)


def _mse(traj):
    return ((traj - 1.0) ** 2).mean(axis=-1)  # distance of class 11 to its target (1, 1)


def test_bend_check_finds_a_rise_then_fall_and_rejects_monotone_curves():
    rng = np.random.default_rng(0)
    k = np.arange(16)
    bump = 0.5 - 0.03 * k + 0.25 * np.exp(-0.5 * ((k - 6) / 1.5) ** 2)  # detour, then down
    seeds = bump[None] + rng.normal(0, 0.02, (5, 16))
    r = N.bend_check(seeds)
    assert r.passed and r.k_peak in (5, 6, 7) and r.fall > 0
    assert not N.bend_check(0.5 - 0.03 * k[None] + rng.normal(0, 0.02, (5, 16))).passed
    with pytest.raises(ValueError, match="mse"):
        N.bend_check(np.zeros((1, 5)))


def test_bend_check_passes_rarely_on_its_null():
    noise = np.full((16, 2), 0.06)  # about the sampling noise of 64 samples per point

    def null(rng):
        return _mse(N.monotone_trajectories(np.array([0.3, 0.2]), np.array([1.0, 1.0]), STEPS, noise, 5, rng))
    rate = N.pass_rate(lambda m: N.bend_check(m).passed, null, n=300)
    assert rate <= 0.05, rate


def test_monotone_null_is_monotone_without_noise():
    rng = np.random.default_rng(1)
    t = N.monotone_trajectories(np.array([0.0, 0.0]), np.array([1.0, 1.0]), STEPS, np.zeros((16, 2)), 20, rng)
    assert np.all(np.diff(t, axis=1) >= -1e-12) and np.allclose(t[:, 0], 0) and np.allclose(t[:, -1], 1)


def test_speed_floor_and_decay_fits():
    pts = np.random.default_rng(2).normal(0.9, 0.02, (4, 2))
    floor = N.repeat_speeds(pts, gap=300.0)
    assert floor.shape == (6,) and np.all(floor >= 0)
    assert N.speed_above_noise(np.array([1e-2, 1e-7]), floor).tolist() == [True, False]
    t = np.linspace(100, 2000, 12)
    assert N.compare_decay_fits(t, 3 * np.exp(-0.002 * t)).better == "exponential"
    assert N.compare_decay_fits(t, 3 * t ** -1.5).better == "power law"
    with pytest.raises(ValueError, match="gap"):
        N.repeat_speeds(pts, gap=0)


def test_monotone_per_coordinate_nulls_include_l_shapes():
    """The swing null of swingby.diffusion.fig6.checks: each coordinate has its own onset,
    so one concept can be learned long after the other (issue 22)."""
    from swingby.diffusion.fig6.checks import monotone_per_coordinate
    steps = np.linspace(0, 2400, 16)
    p = monotone_per_coordinate(np.array([0.33, 0.02]), np.array([1.0, 1.0]), steps, np.zeros((16, 2)), 400,
                                np.random.default_rng(0))
    assert p.shape == (400, 16, 2) and np.allclose(p[:, 0], [0.33, 0.02]) and np.allclose(p[:, -1], 1)
    assert np.all(np.diff(p, axis=1) >= -1e-12)
    gap = (p[..., 1] - p[..., 0]).max(axis=1)              # how far a path leans toward red small
    assert np.mean(gap >= 0.5) > 0.05                        # L-shapes are common in the null
