"""Unit tests of swingby.sim.data (the SIM task, Sec. 2.1, App. B, C.1, F.3)."""
import numpy as np
import pytest
import torch

from swingby.sim.data import (
    empirical_second_moment,
    frobenius_loss,
    linear_model_loss,
    make_sim,
    second_moment,
    std_from_authors_sigma,
)
from swingby.sim.data import test_points as eq_b1_points


def test_shapes_and_dtypes():
    data = make_sim([1.0, 2.0, 3.0], 0.1, d=5, n_per_cluster=100, origin_cluster=True)
    assert data.X.shape == (400, 5) and data.X.dtype == torch.float32
    assert data.labels.shape == (400,)
    assert sorted(torch.unique(data.labels).tolist()) == [0, 1, 2, 3]
    assert data.x_hat.shape == (5,)
    assert data.rotation.shape == (5, 5)
    assert data.test_points.shape == (8, 5) and data.test_index.shape == (8, 3)
    assert data.d == 5 and data.s == 3


def test_clusters_sit_on_axes_without_rotation():
    mu, sigma = [1.0, 2.0], [0.05, 0.3]
    data = make_sim(mu, sigma, d=4, n_per_cluster=4000, seed=3)
    for p in range(2):
        pts = data.X[data.labels == p].double()
        expected = torch.zeros(4, dtype=torch.float64)
        expected[p] = mu[p]
        assert torch.allclose(pts.mean(0), expected, atol=0.03)
        assert torch.allclose(pts.std(0)[:2], torch.tensor(sigma, dtype=torch.float64), rtol=0.06)
        assert float(pts[:, 2:].abs().max()) == 0.0  # no noise beyond the first s directions
    assert torch.equal(data.x_hat, torch.tensor([1.0, 2.0, 0.0, 0.0]))


def test_second_moment_formula_and_sampling():
    mu, sigma, d = [1.0, 2.0, 0.5], [0.3, 0.1, 0.2], 5
    a = second_moment(mu, sigma, d)
    np.testing.assert_allclose(a, [0.09 + 1 / 3, 0.01 + 4 / 3, 0.04 + 0.25 / 3, 0, 0])
    data = make_sim(mu, sigma, d, n_per_cluster=20000, seed=1)
    A = empirical_second_moment(data.X).numpy()
    np.testing.assert_allclose(np.diag(A), a, atol=0.02)
    off = A - np.diag(np.diag(A))
    assert np.abs(off).max() < 0.02
    a0 = second_moment(mu, sigma, d, origin_cluster=True)
    np.testing.assert_allclose(a0[:3], np.array(sigma) ** 2 + np.array(mu) ** 2 / 4)
    A0 = empirical_second_moment(make_sim(mu, sigma, d, 20000, origin_cluster=True, seed=2).X)
    np.testing.assert_allclose(np.diag(A0.numpy()), a0, atol=0.02)


def test_frobenius_loss_equals_mse_of_linear_model():
    data = make_sim([1.0, 2.0], [0.2, 0.1], d=4, n_per_cluster=500, rotate=True, seed=4)
    W = torch.randn(4, 4, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    A = empirical_second_moment(data.X)
    assert linear_model_loss(W, data.X) == pytest.approx(frobenius_loss(W, A), rel=1e-9)


def test_rotation_is_orthogonal_and_round_trips():
    data = make_sim([1.0, 2.0], 0.05, d=8, n_per_cluster=50, rotate=True, seed=5)
    R = data.rotation.double()
    assert torch.allclose(R @ R.T, torch.eye(8, dtype=torch.float64), atol=1e-6)
    assert not torch.allclose(R, torch.eye(8, dtype=torch.float64))
    plain = make_sim([1.0, 2.0], 0.05, d=8, n_per_cluster=50, rotate=False, seed=5)
    assert torch.allclose(data.to_concept(data.X), plain.X, atol=1e-5)
    assert torch.allclose(data.to_concept(data.x_hat), plain.x_hat, atol=1e-6)
    assert torch.allclose(data.to_concept(data.test_points), plain.test_points, atol=1e-6)


def test_test_points_follow_eq_b1():
    pts, idx = eq_b1_points([1.0, 2.0, 3.0], d=4)
    assert pts.shape == (8, 4)
    assert torch.equal(pts[0], torch.zeros(4))
    assert torch.equal(pts[-1], torch.tensor([1.0, 2.0, 3.0, 0.0]))
    for v, p in zip(idx, pts):
        assert torch.equal(p[:3], v * torch.tensor([1.0, 2.0, 3.0]))


def test_truncation_keeps_points_away_from_x_hat():
    mu = [1.0, 1.5]
    data = make_sim(mu, 0.6, d=3, n_per_cluster=3000, truncate=True, rotate=True, seed=6)
    dist = torch.linalg.vector_norm(data.X - data.x_hat, dim=1)
    assert float(dist.min()) >= min(mu) / 2
    assert data.X.shape == (6000, 3)
    untruncated = make_sim(mu, 0.6, d=3, n_per_cluster=3000, rotate=True, seed=6)
    # with sigma = 0.6 some untruncated points do fall inside the ball: the test can fail
    assert float(torch.linalg.vector_norm(untruncated.X - untruncated.x_hat, dim=1).min()) < min(mu) / 2


def test_determinism():
    kw = dict(mu=[1.0, 2.0], sigma=0.1, d=6, n_per_cluster=200, rotate=True, truncate=True)
    a, b = make_sim(**kw, seed=11), make_sim(**kw, seed=11)
    for x, y in zip(a[:6], b[:6]):
        assert torch.equal(x, y)
    assert not torch.equal(a.X, make_sim(**kw, seed=12).X)


@pytest.mark.parametrize(
    "kwargs, words",
    [
        (dict(mu=[1, 2, 3], sigma=0.1, d=2), "s = len(mu) = 3"),
        (dict(mu=[1, 2], sigma=[0.1, 0.1, 0.1], d=4), "len(sigma)"),
        (dict(mu=[1, 2], sigma=[0.1, -0.1], d=4), "sigma"),
        (dict(mu=[1, -2], sigma=0.1, d=4), "mu"),
        (dict(mu=[1, 2], sigma=0.1, d=0), "d must be a positive integer"),
        (dict(mu=[1, 2], sigma=0.1, d=4, n_per_cluster=0), "n_per_cluster"),
        (dict(mu=[1, 2], sigma=0.1, d=4, n_per_cluster=-5), "n_per_cluster"),
        (dict(mu=[], sigma=0.1, d=4), "mu"),
    ],
)
def test_bad_arguments_raise(kwargs, words):
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
        make_sim(**kwargs)


def test_second_moment_bad_arguments():
    with pytest.raises(ValueError, match="s = len"):
        second_moment([1, 2, 3], 0.1, 2)
    with pytest.raises(ValueError, match="len\\(sigma\\)"):
        second_moment([1, 2], [0.1], 3)


@pytest.mark.parametrize("s", [2, 4])
def test_second_moment_with_origin_cluster_two_and_four_concepts(s):
    """s equal clusters plus one at the origin: a_p = mu_p^2 / (s + 1) + sigma_p^2 and
    E x = mu_p / (s + 1), against the empirical moments of make_sim's data."""
    mu = np.arange(1.0, s + 1.0)
    sigma = np.full(s, np.sqrt(0.05))  # the authors' "0.05", as a standard deviation
    d = s + 2
    a = second_moment(mu, sigma, d, origin_cluster=True)
    np.testing.assert_allclose(a[:s], mu**2 / (s + 1) + sigma**2)
    np.testing.assert_allclose(a[s:], 0.0)
    data = make_sim(mu, sigma, d, n_per_cluster=20000, origin_cluster=True, seed=3)
    assert data.X.shape == ((s + 1) * 20000, d)
    at_origin = data.X[data.labels == s]
    assert at_origin.shape[0] == 20000 and float(at_origin.mean(0).abs().max()) < 0.01
    A = empirical_second_moment(data.X).numpy()
    np.testing.assert_allclose(np.diag(A), a, atol=0.02 * a.max())
    np.testing.assert_allclose(data.X.double().mean(0).numpy()[:s], mu / (s + 1), atol=0.01)
    # the formula without the origin cluster (divisor s) is clearly off for this data
    assert np.abs(np.diag(A)[:s] - second_moment(mu, sigma, d)[:s]).max() > 0.1


def test_std_from_authors_sigma():
    assert std_from_authors_sigma(0.05) == pytest.approx(0.2236068, rel=1e-6)
    assert isinstance(std_from_authors_sigma(0.5), float)
    assert std_from_authors_sigma(0.5) == pytest.approx(np.sqrt(0.5))
    assert std_from_authors_sigma(0.0) == 0.0
    np.testing.assert_allclose(std_from_authors_sigma([0.05, 0.5, 2.0]), np.sqrt([0.05, 0.5, 2.0]))
    np.testing.assert_allclose(std_from_authors_sigma(np.array([[4.0]])), [[2.0]])
    for bad in (-0.05, [0.05, -1.0]):
        with pytest.raises(ValueError, match="sigma_authors"):
            std_from_authors_sigma(bad)
