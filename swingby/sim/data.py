"""The structured identity mapping (SIM) task (Sec. 2.1): data, the test points of eq. (B.1),
the second moments of eq. (C.13) and (4.1), and the out-of-distribution controls of App. F.3
(origin cluster, random rotation, truncation). Chapter: ``book/sim_task.md``.

Conventions used everywhere in the book:

* ``mu`` has one entry per concept, ``s = len(mu)``; cluster ``p`` is centred at ``mu[p] * e_p``.
* ``sigma`` is a **standard deviation** (the paper's ``diag(sigma)^2`` covariance); the
  authors' code passes its numbers as variances, so their "0.05" is a standard deviation
  ``sqrt(0.05) = 0.224`` (:func:`std_from_authors_sigma`). Only the first ``s`` directions
  carry noise.
* The authors' two-concept data hold a third cluster at the origin (``origin_cluster=True``).
* "Concept coordinates" are the axes in which cluster ``p`` sits on ``e_p``; "input
  coordinates" are what the model sees (rotated if ``rotate``).
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np
import torch

from swingby import _checks

__all__ = ["SimData", "make_sim", "second_moment", "empirical_second_moment", "std_from_authors_sigma"]


class SimData(NamedTuple):
    """A sampled SIM training set and its test points.

    All tensors are ``float32`` and in *input* coordinates (what the model sees),
    except ``test_index``. ``rotation`` maps concept to input coordinates:
    ``x_input = rotation @ x_concept``; :meth:`to_concept` maps back.
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
    """The standard deviation the book uses for a ``sigma`` of the authors' code.

    The authors' data code passes ``sigma`` as the covariance ``diag(sigma)``, i.e. as a
    variance, so their figures were made with standard deviation ``sqrt(sigma)``:
    0.05 -> 0.224, 0.5 -> 0.707, 2 -> 1.414.

    Parameters
    ----------
    sigma_authors : float or array_like(float)
        The numbers of the authors' scripts and the paper's captions, ``>= 0``.

    Returns
    -------
    float or numpy.ndarray
        ``sqrt(sigma_authors)``, a float for a scalar input.
    """
    arr = _checks.array("sigma_authors", sigma_authors, min_size=0, finite=False)
    flat = _checks.nonneg_vector("sigma_authors", arr.reshape(-1) if arr.ndim else [float(arr)])
    out = np.sqrt(flat).reshape(arr.shape)
    return float(out) if arr.ndim == 0 else out


def second_moment(mu: Sequence[float], sigma: Sequence[float] | float, d: int, *,
                  origin_cluster: bool = False) -> np.ndarray:
    """Diagonal ``a`` of the population second-moment matrix ``A = E[x x^T]`` (eq. C.13):
    ``a_p = sigma_p^2 + mu_p^2 / s`` for ``p <= s`` and 0 beyond, in concept coordinates
    (``s + 1`` equally likely clusters with the origin cluster).

    Parameters
    ----------
    mu, sigma : sequence of float
        ``s`` distances and standard deviations (``sigma`` may be one number), ``>= 0``.
    d : int
        Input dimension, ``>= s``.
    origin_cluster : bool
        Whether a cluster centred at 0 is part of the training set.

    Returns
    -------
    numpy.ndarray
        ``(d,)``.
    """
    mu, sigma, d = check_mu_sigma_d(mu, sigma, d)
    n_clusters = len(mu) + int(_checks.flag("origin_cluster", origin_cluster))
    a = np.zeros(d)
    a[: len(mu)] = sigma**2 + mu**2 / n_clusters
    return a


def random_rotation(d: int, generator: torch.Generator) -> torch.Tensor:
    """A random ``d x d`` orthogonal ``float32`` matrix: the left singular vectors of a standard
    normal matrix (the authors' construction, App. F.1)."""
    g = torch.randn(d, d, generator=generator, dtype=torch.float64)
    u, _, _ = torch.linalg.svd(g)
    return u.to(torch.float32)


def test_points(mu: np.ndarray, d: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The test points of eq. (B.1) in concept coordinates, ``points[k] = sum_p v_p mu_p e_p``
    for the k-th ``v`` of ``{0,1}^s`` in lexicographic order, and ``index[k] = v``."""
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
    std = torch.zeros(d, dtype=torch.float64)
    std[:s] = torch.as_tensor(sigma, dtype=torch.float64)
    noise = torch.randn(n_clusters, n, d, generator=generator, dtype=torch.float64)
    return centres[:, None, :] + noise * std


def make_sim(
    mu: Sequence[float],
    sigma: Sequence[float] | float,
    d: int,
    n_per_cluster: int = 5000,
    *,
    origin_cluster: bool = False,
    rotate: bool = False,
    truncate: bool = False,
    seed: int = 0,
) -> SimData:
    """Sample a SIM training set (Sec. 2.1, App. F.3): cluster ``p`` has ``n_per_cluster``
    i.i.d. points from ``N(mu_p e_p, diag(sigma)^2)``, ``sigma`` zero beyond the first ``s``
    directions.

    Parameters
    ----------
    mu : sequence of float
        Distances of the ``s`` cluster centres from the origin, each ``>= 0``.
    sigma : sequence of float or float
        Standard deviations, one per concept (or one number for all), ``>= 0``.
    d : int
        Input dimension, ``>= s``.
    n_per_cluster : int
        Points per cluster, ``> 0``.
    origin_cluster : bool
        Add a cluster centred at the origin (label ``s``).
    rotate : bool
        Rotate data and test points by a random orthogonal matrix (App. F.1).
    truncate : bool
        Resample every point within ``min(mu)/2`` of ``x_hat`` (App. F.3, Fig. 16).
    seed : int
        Seed of the ``torch.Generator`` used for sampling and rotation.
    """
    mu, sigma, d = check_mu_sigma_d(mu, sigma, d)
    n = _checks.positive_int("n_per_cluster", n_per_cluster)
    rotate, truncate = _checks.flag("rotate", rotate), _checks.flag("truncate", truncate)
    n_clusters = len(mu) + int(_checks.flag("origin_cluster", origin_cluster))
    s = len(mu)
    _checks.memory(40.0 * n_clusters * n * d, f"n_per_cluster = {n} with d = {d} and {n_clusters} clusters")
    _checks.memory(2.0**s * (d + s) * 4 * 3,
                   f"the 2**s test points of eq. (B.1) for s = len(mu) = {s} concepts and d = {d}")
    if rotate and d > MAX_ROTATION_D:
        raise ValueError(f"rotate=True needs d <= {MAX_ROTATION_D} (a random rotation is an O(d^3) SVD), "
                         f"got d = {d}")
    gen = torch.Generator().manual_seed(_checks.seed("seed", seed))
    X = _sample_clusters(mu, sigma, d, n, n_clusters, gen)  # (clusters, n, d)
    points, index = test_points(mu, d)
    x_hat = points[-1].to(torch.float64)
    if truncate:
        radius = float(mu.min()) / 2
        for _ in range(1000):
            bad = torch.linalg.vector_norm(X - x_hat, dim=-1) < radius
            if not bad.any():
                break
            fresh = _sample_clusters(mu, sigma, d, n, n_clusters, gen)
            X = torch.where(bad[..., None], fresh, X)
        else:  # pragma: no cover - needs sigma >> mu
            raise ValueError("truncate: could not draw points outside min(mu)/2 of x_hat; sigma too large")
    labels = torch.arange(n_clusters).repeat_interleave(n)
    X = X.reshape(-1, d).to(torch.float32)
    rotation = random_rotation(d, gen) if rotate else torch.eye(d)
    return SimData(X=X @ rotation.T, labels=labels, x_hat=points[-1] @ rotation.T, rotation=rotation,
                   test_points=points @ rotation.T, test_index=index, mu=mu, sigma=sigma)


def empirical_second_moment(X: torch.Tensor) -> torch.Tensor:
    """``A = (1/N) sum_k x_k x_k^T`` of a training set (the matrix in eq. 4.1).

    ``X`` is ``(N, d)`` with ``N >= 1`` finite rows (a tensor or an array); the result is float64.
    """
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
