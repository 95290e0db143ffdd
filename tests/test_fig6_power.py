"""The positive control of the registered slowing check (swingby.diffusion.fig6.power):
its paths have the shape of Theorem 4.1's exponential approach, the stored sweep's
control is counted reproducibly, and the chapter's word is "inconclusive" only where
the control shows the check blind."""
from pathlib import Path

import numpy as np
import pytest

from swingby.claims.diffusion import DESIGN
from swingby.diffusion.fig6 import power as P
from swingby.diffusion.fig6.confirm import slowing
from swingby.diffusion.fig6.confirm_nulls import stop_paths

T = np.round(np.linspace(5, 50, 40) ** 2)
STORED = Path(__file__).resolve().parents[1] / "results" / "diffusion" / "sweep_cpu.npz"


def _run():
    f = 1 - np.exp(-(T - T[0]) / 300)
    return np.stack([0.2 + 0.6 * f, 0.3 + 0.5 * f], axis=1)


def test_exponential_paths_approach_the_end_and_reach_the_run_stop_with_rate_one():
    pts = _run()
    paths = P.exponential_paths(T, pts, np.zeros(2), 50, np.random.default_rng(0))
    assert paths.shape == (50, T.size, 2)
    start, end = pts[:DESIGN.sustain].mean(0), pts[-DESIGN.sustain:].mean(0)
    np.testing.assert_allclose(paths[:, 0], np.broadcast_to(start, (50, 2)), atol=1e-12)
    np.testing.assert_allclose(paths[:, -1], np.broadcast_to(end, (50, 2)), atol=1e-12)
    step = np.linalg.norm(np.diff(paths, axis=1), axis=2) / np.diff(T)
    assert np.all(np.diff(step, axis=1) < 1e-12)  # the speed only falls
    # without the rate factor, tau puts the path stop_fraction of its way where the run is
    line = stop_paths(T, pts, np.zeros(2), 1, np.random.default_rng(0))[0]
    k = int(np.flatnonzero((line == line[-1]).all(1))[0])
    tau = P._tau(T[k] - T[0], T[-1] - T[0], DESIGN.stop_fraction)
    share = np.expm1(-(T[k] - T[0]) / tau) / np.expm1(-(T[-1] - T[0]) / tau)
    assert share == pytest.approx(DESIGN.stop_fraction, abs=1e-6)


def test_a_noiseless_exponential_passes_the_check():
    paths = P.exponential_paths(T, _run(), np.zeros(2), 5, np.random.default_rng(1))
    assert all(slowing(T, p, np.array([0.002, 0.002])).passed for p in paths)


def test_exponential_paths_refuse_bad_arguments():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="rng"):
        P.exponential_paths(T, _run(), np.zeros(2), 1, 0)
    with pytest.raises(ValueError, match="points"):
        P.exponential_paths(T, _run()[:, :1], np.zeros(2), 1, rng)
    with pytest.raises(ValueError, match="noise"):
        P.exponential_paths(T, _run(), -np.ones(2), 1, rng)
    with pytest.raises(ValueError, match="steps"):
        P.exponential_paths(T[::-1], _run(), np.zeros(2), 1, rng)
    with pytest.raises(ValueError, match="n"):
        P.exponential_paths(T, _run(), np.zeros(2), 0, rng)
    with pytest.raises(ValueError, match="res"):
        P.positive_control([1, 2])


def test_powered_word():
    assert P.powered_word("not reproduced", 75, 200, 73, 200) == "inconclusive"
    assert P.powered_word("not reproduced", 180, 200, 73, 200) == "not reproduced"
    assert P.powered_word("reproduced", 75, 200, 73, 200) == "reproduced"
    with pytest.raises(ValueError, match="word"):
        P.powered_word("maybe", 1, 2, 1, 2)
    with pytest.raises(ValueError, match="control_k"):
        P.powered_word("not reproduced", -1, 2, 1, 2)
    with pytest.raises(ValueError, match="null_n"):
        P.powered_word("not reproduced", 1, 2, 1, 0)


@pytest.mark.skipif(not STORED.is_file(), reason="no stored cpu sweep")
def test_the_positive_control_on_the_stored_sweep_is_reproducible():
    from swingby.diffusion.runs.storage import load_results

    res = load_results(STORED)
    a, b = P.positive_control(res), P.positive_control(res)
    assert a.n == DESIGN.n_null_units and a.k == b.k and np.array_equal(a.passed, b.passed)
    assert 0 < a.k < a.n
    parts = P.control_parts(res, n_per_run=2, seed=0)
    assert parts.shape[1:] == (2, 4) and np.array_equal(parts[..., 0], parts[..., 1:].all(axis=-1))
    with pytest.raises(ValueError, match="n_per_run"):
        P.control_parts(res, n_per_run=0, seed=0)
