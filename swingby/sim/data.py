"""The structured identity mapping (SIM) task (Sec. 2.1, App. F.3; ``book/sim_task.md``): the training set,
the test points of eq. (B.1), the second moment of eq. (C.13) and both sides of eq. (4.1). Cluster ``p`` is
centred at ``mu[p] * e_p`` in concept coordinates (the model sees them rotated if ``rotate``); ``sigma`` is a
standard deviation (the authors' code passes variances: their "0.05" is 0.224).
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np
import torch

from swingby import _checks

__all__ = ["SimData", "make_sim", "second_moment", "empirical_second_moment", "std_from_authors_sigma"]


class SimData(NamedTuple):
    """A sampled SIM training set and its test points: ``float32`` tensors in input coordinates (but
    ``test_index``); ``x_input = rotation @ x_concept``, and ``to_concept`` maps back.
    """

    X: torch.Tensor  #: training inputs, shape ``(N, d)``
    labels: torch.Tensor  #: cluster of each row, ``0..s-1`` (``s`` = origin cluster)
    x_hat: torch.Tensor  #: the OOD test point ``sum_p mu_p e_p``, shape ``(d,)``
    rotation: torch.Tensor  #: orthogonal ``(d, d)``; the identity when not rotated
    test_points: torch.Tensor  #: eq. (B.1) for every ``v``, shape ``(2**s, d)``
    test_index: torch.Tensor  #: the ``v in {0,1}^s`` of each test point, ``(2**s, s)``
    mu: np.ndarray  #: cluster distances, shape ``(s,)``
    sigma: np.ndarray  #: cluster standard deviations, shape ``(s,)``

    @property
    def d(self) -> int:
        """Input dimension."""
        return self.X.shape[1]

    @property
    def s(self) -> int:
        """Number of concepts (training clusters off the origin)."""
        return len(self.mu)

    def to_concept(self, y: torch.Tensor) -> torch.Tensor:
        """Rotate vectors ``y`` (last axis ``d``) from input back to concept coordinates."""
        if not isinstance(y, torch.Tensor) or y.ndim == 0 or y.shape[-1] != self.d:
            raise ValueError(f"y must be a torch.Tensor whose last axis has length d = {self.d}, "
                             f"got {getattr(y, 'shape', type(y).__name__)}")
        return y @ self.rotation.to(y.dtype)

    def cluster_centres(self) -> torch.Tensor:
        """Centres ``mu_p e_p`` of the ``s`` training clusters, in input coordinates."""
        centres = torch.zeros(self.s, self.d)
        centres[:, : self.s] = torch.diag(torch.as_tensor(self.mu, dtype=torch.float32))
        return centres @ self.rotation.T


#: largest mu or sigma: the data are float32 and the loss squares them
FLOAT32_SQRT_MAX = float(np.sqrt(np.finfo(np.float32).max))
#: Largest ``d`` of a random rotation (its SVD takes ``O(d^3)`` time: ~30 s at 4096).
MAX_ROTATION_D = 4096


def check_mu_sigma_d(mu, sigma, d) -> tuple[np.ndarray, np.ndarray, int]:
    """``mu``, ``sigma`` (one per concept, or one number) and ``d >= s`` checked, else a ValueError."""
    mu = _checks.nonneg_vector("mu", mu)
    sigma = _checks.nonneg_vector("sigma", sigma, length=len(mu))
    for name, v in (("mu", mu), ("sigma", sigma)):
        if v.max() > FLOAT32_SQRT_MAX:
            raise ValueError(f"{name} must hold numbers <= {FLOAT32_SQRT_MAX:.3g} (the square root of the "
                             f"float32 maximum, so that the float32 data and its second moment stay finite), "
                             f"got a maximum of {v.max():.3g}")
    d = _checks.positive_int("d", d)
    if len(mu) > d:
        raise ValueError(f"s = len(mu) = {len(mu)} concepts need at least as many dimensions, "
                         f"but d = {d}; allowed: s <= d")
    _checks.memory(8.0 * d, f"d = {d}")
    return mu, sigma, d


def std_from_authors_sigma(sigma_authors) -> np.ndarray | float:
    """``sqrt(sigma_authors)``: the standard deviation of a ``sigma >= 0`` of the authors' code and captions,
    which their code passes as the covariance ``diag(sigma)`` (0.05 -> 0.224, 0.5 -> 0.707)."""
    out = np.sqrt(_checks.array("sigma_authors", sigma_authors, nonneg=True))
    return float(out) if out.ndim == 0 else out


def second_moment(mu: Sequence[float], sigma: Sequence[float] | float, d: int, *,
                  origin_cluster: bool = False) -> np.ndarray:
    """Diagonal ``a`` (shape ``(d,)``) of the population second moment ``A = E[x x^T]`` (eq. C.13) in concept
    coordinates: ``a_p = sigma_p^2 + mu_p^2 / n_c`` (``n_c = s``, or ``s + 1`` with the origin cluster), 0 beyond.

    Parameters
    ----------
    mu, sigma, d, origin_cluster
        As for :func:`make_sim`.
    """
    mu, sigma, d = check_mu_sigma_d(mu, sigma, d)
    n_clusters = len(mu) + int(_checks.flag("origin_cluster", origin_cluster))
    return np.pad(sigma**2 + mu**2 / n_clusters, (0, d - len(mu)))


def random_rotation(d: int, generator: torch.Generator) -> torch.Tensor:
    """A random orthogonal ``float32`` matrix: the left singular vectors of a normal one (App. F.1)."""
    g = torch.randn(d, d, generator=generator, dtype=torch.float64)
    u, _, _ = torch.linalg.svd(g)
    return u.to(torch.float32)


def test_points(mu: np.ndarray, d: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Eq. (B.1) in concept coordinates: ``points[k] = sum_p v_p mu_p e_p``, ``index[k] = v`` (lexicographic)."""
    s = len(mu)
    bits = torch.arange(2**s)[:, None] >> torch.arange(s - 1, -1, -1)  # first concept most significant
    index = (bits & 1).to(torch.float32)
    points = torch.zeros(2**s, d)
    points[:, :s] = index * torch.as_tensor(mu, dtype=torch.float32)
    return points, index


def _sample_clusters(mu, sigma, d, n, n_clusters, generator):
    """``n`` points from each of ``n_clusters`` clusters, in concept coordinates."""
    s = len(mu)
    centres = torch.zeros(n_clusters, d, dtype=torch.float64)
    centres[:s, :s] = torch.diag(torch.as_tensor(mu, dtype=torch.float64))
    std = torch.as_tensor(np.pad(sigma, (0, d - s)), dtype=torch.float64)
    noise = torch.randn(n_clusters, n, d, generator=generator, dtype=torch.float64)
    return centres[:, None, :] + noise * std


def make_sim(mu: Sequence[float], sigma: Sequence[float] | float, d: int, n_per_cluster: int = 5000, *,
             origin_cluster: bool = False, rotate: bool = False, truncate: bool = False, seed: int = 0) -> SimData:
    """Sample a SIM training set (Sec. 2.1, App. F.3): ``n_per_cluster`` i.i.d. points per cluster from
    ``N(mu_p e_p, diag(sigma)^2)``, no noise beyond the first ``s`` directions.

    Parameters
    ----------
    mu, sigma : sequence of float
        Distances ``>= 0`` of the ``s`` cluster centres from the origin, and standard deviations (one each or one).
    d, n_per_cluster, seed
        Input dimension ``>= s``, points per cluster, and the seed of the sampling and the rotation.
    origin_cluster, rotate, truncate
        Add a cluster at the origin (label ``s``); rotate data and test points by a random orthogonal matrix
        (App. F.1); redraw every point within ``min(mu)/2`` of ``x_hat`` (App. F.3, Fig. 16).
    """
    mu, sigma, d = check_mu_sigma_d(mu, sigma, d)
    n = _checks.positive_int("n_per_cluster", n_per_cluster)
    rotate, truncate = _checks.flag("rotate", rotate), _checks.flag("truncate", truncate)
    s = len(mu)
    n_clusters = s + int(_checks.flag("origin_cluster", origin_cluster))
    _checks.memory(40.0 * n_clusters * n * d, f"n_per_cluster = {n} with d = {d} and {n_clusters} clusters")
    _checks.memory(2.0**s * (d + s) * 4 * 3,
                   f"the 2**s test points of eq. (B.1) for s = len(mu) = {s} concepts and d = {d}")
    if rotate and d > MAX_ROTATION_D:
        raise ValueError(f"rotate=True needs d <= {MAX_ROTATION_D} (a random rotation is an O(d^3) SVD), "
                         f"got d = {d}")
    gen = torch.Generator().manual_seed(_checks.seed("seed", seed))
    X = _sample_clusters(mu, sigma, d, n, n_clusters, gen)  # (clusters, n, d)
    points, index = test_points(mu, d)
    if truncate:
        radius = float(mu.min()) / 2
        for _ in range(1000):
            bad = torch.linalg.vector_norm(X - points[-1].double(), dim=-1) < radius
            if not bad.any():
                break
            X = torch.where(bad[..., None], _sample_clusters(mu, sigma, d, n, n_clusters, gen), X)
        else:  # pragma: no cover - needs sigma >> mu
            raise ValueError("truncate: could not draw points outside min(mu)/2 of x_hat; sigma too large")
    labels = torch.arange(n_clusters).repeat_interleave(n)
    X = X.reshape(-1, d).to(torch.float32)
    rotation = random_rotation(d, gen) if rotate else torch.eye(d)
    return SimData(X=X @ rotation.T, labels=labels, x_hat=points[-1] @ rotation.T, rotation=rotation,
                   test_points=points @ rotation.T, test_index=index, mu=mu, sigma=sigma)


def empirical_second_moment(X: torch.Tensor) -> torch.Tensor:
    """``A = (1/N) sum_k x_k x_k^T`` (float64) of a training set ``X``, ``(N, d)`` finite (the matrix in eq. 4.1)."""
    X = torch.from_numpy(_checks.array("X", X, shape=(None, None)))
    _checks.memory(8.0 * X.shape[1] ** 2, f"X with d = {X.shape[1]} columns")
    return X.T @ X / X.shape[0]


def linear_model_loss(W: torch.Tensor, X: torch.Tensor) -> float:
    """Training loss (2.1) of ``f(x) = W x``, ``(1 / 2N) sum_k ||W x_k - x_k||^2`` (eq. 4.1, left), in float64."""
    X, W = X.double(), W.double()
    R = X @ (W - torch.eye(X.shape[1], dtype=torch.float64)).T
    return float(0.5 * (R**2).sum(dim=1).mean())


def sqrt_psd(A: torch.Tensor) -> torch.Tensor:
    """Symmetric square root of a positive semi-definite ``A``."""
    evals, evecs = torch.linalg.eigh(A)
    return evecs @ torch.diag(evals.clamp_min(0).sqrt()) @ evecs.T


def frobenius_loss(W: torch.Tensor, A: torch.Tensor) -> float:
    """``0.5 * ||(W - I) A^{1/2}||_F^2`` (eq. 4.1, right), in float64."""
    W, A = W.double(), A.double()
    M = (W - torch.eye(A.shape[0], dtype=torch.float64)) @ sqrt_psd(A)
    return float(0.5 * (M**2).sum())
