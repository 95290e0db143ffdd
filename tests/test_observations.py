"""Unit tests of swingby.observations (metrics of Sec. 3, App. B, App. F)."""
import numpy as np
import pytest

from swingby.observations.hypercube import comparable_pairs, hypercube_learning_times, order_property
from swingby.observations.learning import (
    Displacements,
    a_diagonal,
    displacement_per_interval,
    learning_times,
    marker_indices,
    slowdown,
)
from swingby.observations.ood import TruncationTwins, relative_distance, truncation_twins
from swingby.observations.runs import (
    EQUAL_MU,
    FIG2A,
    FIG2B,
    FIG2B_SIGMA1_AUTHORS,
    SIGMA_05,
    authors_sigma_label,
    fig2c_runs,
    record_grid,
    run_sweep,
)
from swingby.observations.swingby import SeedStatistics, loss_rise, record_rise, seed_statistics
from swingby.sim.train_loop import TrainRecord


def _record(traj, mu=(1.0, 2.0), steps=None):
    traj = np.asarray(traj, dtype=float)
    steps = np.arange(len(traj)) if steps is None else np.asarray(steps)
    idx = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    pts = idx * np.asarray(mu)
    outputs = np.repeat(pts[None], len(traj), axis=0).copy()
    outputs[:, -1] = traj
    return TrainRecord(steps=steps, epochs=steps / 10, outputs=outputs, test_points=pts, test_index=idx,
                       test_loss=0.5 * ((traj - pts[-1]) ** 2).sum(1), train_loss=np.full(len(traj), np.nan))


def test_loss_rise():
    assert loss_rise(np.array([4.0, 3.0, 2.0, 1.0]), 4.0) == 0.0
    assert loss_rise(np.array([4.0, 1.0, 3.0, 0.5]), 4.0) == pytest.approx(0.5)
    assert loss_rise(np.array([4.0, 1.0, 3.0, 0.5]), scale=8.0) == pytest.approx(0.25)


def test_learning_times_order_and_rise():
    t = np.linspace(0, 1, 11)
    # concept 2 (mu_2 = 2) reaches half-way at t = 0.2, concept 1 at t = 0.6
    traj = np.stack([np.clip(t / 1.2, 0, 1) * 1.0, np.clip(t / 0.4, 0, 1) * 2.0], axis=1)
    rec = _record(traj)
    times = learning_times(rec)
    assert times[1] < times[0] and times[1] == pytest.approx(0.2) and times[0] == pytest.approx(0.6)
    assert record_rise(rec) == 0.0
    st = seed_statistics([rec, rec], threshold=0.01)
    assert isinstance(st, SeedStatistics) and st.fraction == 0.0 and st.n == 2
    with pytest.raises(ValueError, match=r"frac must be a finite number in \(0, 1\]"):
        learning_times(rec, frac=0)


def test_displacement_and_markers():
    steps = np.arange(0, 101)
    traj = np.stack([1 - np.exp(-steps / 10), np.zeros_like(steps, dtype=float)], axis=1)
    rec = _record(traj, steps=steps)
    mids, dist = out = displacement_per_interval(rec, 10)
    assert isinstance(out, Displacements) and out.distances is dist and out.mid_epochs is mids
    assert len(dist) == 10 and np.all(np.diff(dist) < 0)
    np.testing.assert_allclose(dist[0], 1 - np.exp(-1), rtol=1e-9)
    np.testing.assert_array_equal(marker_indices(rec, 4), [0, 25, 50, 75, 100])
    coarse = _record(traj[[0, 100]], steps=[0, 100])
    with pytest.raises(ValueError, match="finer grid"):
        displacement_per_interval(coarse, 10)


def test_order_property_and_pairs():
    idx = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    assert sorted(comparable_pairs(idx)) == [(0, 1), (0, 2), (0, 3), (1, 3), (2, 3)]
    rec = _record(np.array([[0.0, 0.0], [1.0, 2.0]]))
    # outputs at non-x_hat points are exact: losses (0, 0, 0, L) -> every pair holds
    np.testing.assert_allclose(order_property(rec, skip_initial=False), [1.0, 1.0])
    rec.outputs[:, 0] = [5.0, 5.0]  # a large loss at the origin breaks its three pairs
    np.testing.assert_allclose(order_property(rec), [2 / 5])
    np.testing.assert_allclose(order_property(rec, exclude_origin=True), [1.0])


def test_record_grid():
    g = record_grid(3160)
    assert g[0] == 0 and g[-1] == 3160 and np.all(np.diff(g) > 0)
    assert set(np.linspace(0, 3160, 41).round().astype(int)) <= set(g)


def test_run_sweep_and_truncation_twins_small():
    configs = [dict(mu=(1.0, 2.0), sigma=(0.05, 0.05)), dict(mu=(2.0, 1.0), sigma=(0.05, 0.05))]
    recs = run_sweep(configs, d=4, depth=1, seeds=[0, 1], n_per_cluster=200, epochs=2)
    assert len(recs) == 2 and len(recs[0]) == 2
    assert recs[1][0].config["mu"] == (2.0, 1.0) and recs[0][1].config["seed"] == 1
    with pytest.raises(ValueError, match="keys 'mu' and 'sigma'"):
        run_sweep([dict(mu=(1.0, 2.0))], d=4)
    twins = truncation_twins([dict(mu=(1.0, 2.0), sigma=(1.0, 0.05))], seeds=[0], d=4, n_per_cluster=200)
    full, cut, n = twins
    assert isinstance(twins, TruncationTwins) and twins.n_redrawn is n and twins.full is full
    assert n[0, 0] > 0
    np.testing.assert_allclose(full[0][0].test_points, cut[0][0].test_points, atol=1e-6)


def test_figure_settings_use_the_authors_sigma_as_std():
    assert SIGMA_05 == pytest.approx(np.sqrt(0.05))
    assert [c["mu"] for c in FIG2A] == [(1.0, 2.0), (2.0, 2.0), (3.0, 2.0)]
    for c in FIG2A:
        np.testing.assert_allclose(c["sigma"], [np.sqrt(0.05)] * 2)
    np.testing.assert_allclose([c["sigma"][0] for c in FIG2B], np.sqrt(FIG2B_SIGMA1_AUTHORS))
    np.testing.assert_allclose([c["sigma"][1] for c in FIG2B], np.sqrt(0.05))
    assert FIG2B[0] == FIG2A[0]
    assert all(SIGMA_05 in c["sigma"] for c in EQUAL_MU)
    assert authors_sigma_label(SIGMA_05) == "0.224 (authors' 0.05)"
    assert authors_sigma_label((np.sqrt(0.5),) * 2) == "(0.707, 0.707) (authors' (0.5, 0.5))"


def test_defaults_hold_the_origin_cluster_and_a_diagonal_divides_by_s_plus_1():
    cfg = [dict(mu=(1.0, 2.0), sigma=(SIGMA_05, SIGMA_05))]
    on = run_sweep(cfg, d=4, seeds=[0], n_per_cluster=100, epochs=1)[0][0]
    off = run_sweep(cfg, d=4, seeds=[0], n_per_cluster=100, epochs=1, origin_cluster=False)[0][0]
    assert on.config["origin_cluster"] is True and off.config["origin_cluster"] is False
    assert on.steps[-1] == 3 and off.steps[-1] == 2  # 300 vs 200 points, batch 128
    np.testing.assert_allclose(a_diagonal(on), 0.05 + np.array([1.0, 4.0]) / 3)
    np.testing.assert_allclose(a_diagonal(off), 0.05 + np.array([1.0, 4.0]) / 2)
    low = fig2c_runs(2, [0])[0]
    assert low.config["origin_cluster"] is True and low.steps[-1] == 40 * 118  # 15 000 points
    np.testing.assert_allclose(low.config["sigma"], [SIGMA_05] * 2)


def test_fig2a_one_layer_reaches_the_authors_end_point():
    """The authors' code ends at mean f(x_hat) = (0.933, 1.974) for one layer, mu = (1, 2),
    their sigma 0.05, four seeds; without the origin cluster it stops near (0.56, 1.77)."""
    recs = run_sweep([FIG2A[0]], depth=1, seeds=range(4))[0]
    end = np.mean([r.trajectory[-1, :2] for r in recs], axis=0)
    assert np.abs(end - [0.93, 1.97]).max() < 0.05, end


# ---------------------------------------------------------------- metrics moved out of the chapters
def _linear_path(end, n=101, mu=(1.0, 2.0)):
    """Output moving on a straight line from 0 to ``end`` in ``n`` records, exponentially slowing."""
    steps = np.arange(n)
    frac = 1 - np.exp(-steps / 10)
    return _record(frac[:, None] * np.asarray(end, dtype=float), mu=mu, steps=steps)


def test_relative_distance_to_x_hat_and_between_runs():
    rec = _record([[0.0, 0.0], [1.0, 1.0]], mu=(1.0, 2.0))
    # end point (1, 1), x_hat = (1, 2): gap 1 / sqrt(5)
    assert relative_distance(rec) == pytest.approx(1 / np.sqrt(5))
    assert relative_distance(rec, at="max") == pytest.approx(1.0)  # at the start: ||x_hat|| / ||x_hat||
    other = _record([[0.0, 0.0], [1.0, 2.0]], mu=(1.0, 2.0))
    assert relative_distance(other) == 0.0 and relative_distance(rec, rec, at="max") == 0.0
    assert relative_distance(rec, other) == pytest.approx(1 / np.sqrt(5))
    assert relative_distance(rec, other, at="max") == pytest.approx(1 / np.sqrt(5))
    with pytest.raises(ValueError, match="reference must be recorded at the same steps"):
        relative_distance(rec, _record([[0.0, 0.0], [1.0, 1.0], [1.0, 2.0]]))
    with pytest.raises(ValueError, match="at must be one of"):
        relative_distance(rec, at="start")


def test_slowdown():
    rec = _linear_path((1.0, 2.0))
    ratio = slowdown(rec, 10)
    # interval j moves (1 - e^-1) e^-j; "the last quarter" of 10 intervals rounds up to the last 3
    want = np.mean([np.exp(-7), np.exp(-8), np.exp(-9)])
    assert ratio == pytest.approx(want, rel=1e-9)
    steady = _record(np.linspace(0, 1, 101)[:, None] * np.array([1.0, 2.0]), steps=np.arange(101))
    assert slowdown(steady, 10) == pytest.approx(1.0)  # constant speed: the null gives 1
    with pytest.raises(ValueError, match="never moves"):
        slowdown(_record(np.zeros((101, 2)), steps=np.arange(101)), 10)


def test_hypercube_learning_times():
    rec = _record([[0.0, 0.0], [0.5, 1.0], [1.0, 2.0]], mu=(1.0, 2.0))
    # losses at x_hat = (1, 2): 2.5, 0.625, 0; other test points are exact from the start
    np.testing.assert_allclose(hypercube_learning_times(rec, level=0.1), [0.0, 0.0, 0.0, 0.2])
    np.testing.assert_allclose(hypercube_learning_times(rec, level=1.0), [0.0, 0.0, 0.0, 0.1])
    never = _record([[0.0, 0.0], [0.0, 0.0]])
    assert hypercube_learning_times(never)[-1] == np.inf
    with pytest.raises(ValueError, match="level"):
        hypercube_learning_times(rec, level=0)
