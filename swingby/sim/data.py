"""The structured identity mapping (SIM) task: data, test points, second moments.

Defined in Sec. 2.1 of the paper, with the test points of App. B (eq. B.1), the
second-moment matrix of App. C.1 (eq. C.13) and the out-of-distribution controls
of App. F.3 (origin cluster, random rotation, truncation). Chapter: ``book/sim_task.md``.

Conventions used everywhere in the book
---------------------------------------
* ``mu`` has one entry per concept, so ``s = len(mu)``; the p-th training cluster
  is centred at ``mu[p] * e_p``.
* ``sigma`` is a **standard deviation** (the paper's ``diag(sigma)^2`` covariance);
  the authors' code passes its ``sigma`` numbers as variances (a covariance
  ``diag(sigma)``), so their "0.05" is a standard deviation ``sqrt(0.05) = 0.224``:
  :func:`std_from_authors_sigma` converts. Only the first ``s`` directions carry
  noise, so the data lie in an ``s``-dimensional subspace.
* The authors' two-concept data always hold a third cluster at the origin
  (``origin_cluster=True`` here; the paper, Sec. 2.1: "optionally").
* "Concept coordinates" are the un-rotated axes in which cluster ``p`` sits on
  ``e_p``; "input coordinates" are what the model sees (rotated if ``rotate``).
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np
import torch

from swingby import _checks


class SimData(NamedTuple):
    """A sampled SIM training set and its test points.

    All tensors are ``float32`` and in *input* coordinates (what the model sees),
    except ``test_index``. ``rotation`` maps concept to input coordinates:
    ``x_input = rotation @ x_concept``; use :meth:`to_concept` to map back.
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


def _check_mu_sigma_d(mu, sigma, d) -> tuple[np.ndarray, np.ndarray, int]:
    mu = _checks.nonneg_vector("mu", mu)
    sigma = _checks.nonneg_vector("sigma", sigma, length=len(mu))
    for name, v in (("mu", mu), ("sigma", sigma)):
        if v.max() > FLOAT32_SQRT_MAX:
            raise ValueError(f"{name} must hold numbers <= {FLOAT32_SQRT_MAX:.3g} (the square root of the "
                             f"float32 maximum, so that the float32 data and its second moment stay finite), "
                             f"got a maximum of {v.max():.3g}")
    d = _checks.positive_int("d", d)
    if len(mu) > d:
        raise ValueError(
            f"s = len(mu) = {len(mu)} concepts need at least as many dimensions, "
            f"but d = {d}; allowed: s <= d"
        )
    _checks.memory(8.0 * d, f"d = {d}")
    return mu, sigma, d


def _check_test_points_memory(s: int, d: int) -> None:
    """The ``2**s`` test points of eq. (B.1), ``(2**s, d)`` plus their index ``(2**s, s)``."""
    _checks.memory(2.0**s * (d + s) * 4 * 3,
                   f"the 2**s test points of eq. (B.1) for s = len(mu) = {s} concepts and d = {d}")


def std_from_authors_sigma(sigma_authors) -> np.ndarray | float:
    """The standard deviation the book uses for a ``sigma`` of the authors' code.

    The authors' data code passes ``sigma`` as the covariance ``diag(sigma)``, i.e. as a
    *variance*; the paper writes ``diag(sigma)^2``. Their figures were therefore made with
    standard deviation ``sqrt(sigma)``: 0.05 -> 0.224, 0.5 -> 0.707, 2 -> 1.414.

    Parameters
    ----------
    sigma_authors : float or array_like(float)
        The numbers as written in the authors' scripts and the paper's captions, ``>= 0``.

    Returns
    -------
    float or numpy.ndarray
        ``sqrt(sigma_authors)``, a float for a scalar input.
    """
    arr = _checks.array("sigma_authors", sigma_authors, min_size=0, finite=False)
    flat = _checks.nonneg_vector("sigma_authors", arr.reshape(-1) if arr.ndim else [float(arr)])
    out = np.sqrt(flat).reshape(arr.shape)
    return float(out) if arr.ndim == 0 else out


def second_moment(
    mu: Sequence[float], sigma: Sequence[float] | float, d: int, *, origin_cluster: bool = False
) -> np.ndarray:
    """Diagonal ``a`` of the population second-moment matrix ``A = E[x x^T]``.

    Implements eq. (C.13): ``a_p = sigma_p^2 + mu_p^2 / s`` for ``p <= s`` and
    ``a_p = 0`` otherwise (in concept coordinates). With an origin cluster there are
    ``s + 1`` equally likely clusters, so ``mu_p^2`` is divided by ``s + 1``.

    Parameters
    ----------
    mu, sigma : sequences of length ``s`` (``sigma`` may be a single number), ``>= 0``.
    d : input dimension, ``>= s``.
    origin_cluster : whether a cluster centred at 0 is part of the training set.

    Returns
    -------
    numpy.ndarray of shape ``(d,)``.
    """
    mu, sigma, d = _check_mu_sigma_d(mu, sigma, d)
    n_clusters = len(mu) + int(_checks.flag("origin_cluster", origin_cluster))
    a = np.zeros(d)
    a[: len(mu)] = sigma**2 + mu**2 / n_clusters
    return a


#: Largest ``d`` of :func:`random_rotation` (its SVD takes ``O(d^3)`` time: ~30 s at 4096).
MAX_ROTATION_D = 4096


def random_rotation(d: int, generator: torch.Generator) -> torch.Tensor:
    """A random ``d x d`` orthogonal matrix: the left singular vectors of a standard
    normal matrix (the authors' construction, App. F.1; ``book/sim_task.md``).

    Parameters
    ----------
    d : int
        Dimension, in ``[1, MAX_ROTATION_D]`` (the SVD takes ``O(d^3)`` time).
    generator : torch.Generator
        Source of the random matrix.

    Returns
    -------
    torch.Tensor
        ``(d, d)`` orthogonal ``float32`` matrix.
    """
    d = _checks.integer("d", d, low=1, high=MAX_ROTATION_D)
    _checks.instance("generator", generator, torch.Generator)
    g = torch.randn(d, d, generator=generator, dtype=torch.float64)
    u, _, _ = torch.linalg.svd(g)
    return u.to(torch.float32)


class TestPoints(NamedTuple):
    """What :func:`test_points` returns (unpacks as ``points, index``)."""

    __test__ = False  # not a pytest test class

    points: torch.Tensor  #: ``(2**s, d)``: ``points[k] = sum_p v_p mu_p e_p`` for the k-th ``v``
    index: torch.Tensor  #: ``(2**s, s)``: the ``v in {0,1}^s`` of each point, lexicographic order


def test_points(mu: Sequence[float], d: int) -> TestPoints:
    """The test points of eq. (B.1) in concept coordinates (``book/sim_task.md``).

    Parameters
    ----------
    mu : array_like(float, ndim=1)
        Distances of the ``s`` cluster centres from the origin, each ``>= 0``.
    d : int
        Input dimension, ``>= s``.

    Returns
    -------
    TestPoints
        ``(points, index)``: ``points[k] = sum_p v_p mu_p e_p`` for the k-th ``v`` of
        ``{0,1}^s`` in lexicographic order (so ``points[0]`` is the origin and
        ``points[-1]`` is ``x_hat``), and ``index[k] = v``.
    """
    mu, _, d = _check_mu_sigma_d(mu, 0.0, d)
    s = len(mu)
    _check_test_points_memory(s, d)
    bits = torch.arange(2**s)[:, None] >> torch.arange(s - 1, -1, -1)  # first concept most significant
    index = (bits & 1).to(torch.float32)
    points = torch.zeros(2**s, d)
    points[:, :s] = index * torch.as_tensor(mu, dtype=torch.float32)
    return TestPoints(points, index)


def _sample_clusters(mu, sigma, d, n, n_clusters, generator):
    """``n`` points from each of ``n_clusters`` clusters, in concept coordinates."""
    s = len(mu)
    centres = torch.zeros(n_clusters, d, dtype=torch.float64)
    centres[:s, :s] = torch.diag(torch.as_tensor(mu, dtype=torch.float64))
    std = torch.zeros(d, dtype=torch.float64)
    std[:s] = torch.as_tensor(sigma, dtype=torch.float64)
    noise = torch.randn(n_clusters, n, d, generator=generator, dtype=torch.float64)
    return centres[:, None, :] + noise * std


def _check_make_sim_size(s: int, d: int, n: int, n_clusters: int, rotate: bool) -> None:
    """Refuse at once what :func:`make_sim` could not hold in memory or finish."""
    _checks.memory(40.0 * n_clusters * n * d, f"n_per_cluster = {n} with d = {d} and {n_clusters} clusters")
    _check_test_points_memory(s, d)
    if rotate and d > MAX_ROTATION_D:
        raise ValueError(f"rotate=True needs d <= {MAX_ROTATION_D} (a random rotation is an O(d^3) SVD), "
                         f"got d = {d}")


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
    """Sample a SIM training set (Sec. 2.1, App. F.3).

    Cluster ``p`` has ``n_per_cluster`` i.i.d. points from
    ``N(mu_p e_p, diag(sigma)^2)`` where ``sigma`` is zero beyond the first ``s``
    directions.

    Parameters
    ----------
    mu : distances of the ``s`` cluster centres from the origin, each ``>= 0``.
    sigma : standard deviations, one per concept (or one number for all), ``>= 0``.
    d : input dimension, ``>= s``.
    n_per_cluster : points per cluster, ``> 0``.
    origin_cluster : add a cluster centred at the origin (label ``s``).
    rotate : rotate data and test points by a random orthogonal matrix (App. F.1).
    truncate : reject and resample every point within ``min(mu)/2`` of ``x_hat``
        (App. F.3, Fig. 16), so no training point lies near the test point.
    seed : seed of the ``torch.Generator`` used for sampling and rotation.

    Returns
    -------
    SimData
        Training set, labels, ``x_hat``, rotation and the eq. (B.1) test points.
    """
    mu, sigma, d = _check_mu_sigma_d(mu, sigma, d)
    n = _checks.positive_int("n_per_cluster", n_per_cluster)
    rotate, truncate = _checks.flag("rotate", rotate), _checks.flag("truncate", truncate)
    n_clusters = len(mu) + int(_checks.flag("origin_cluster", origin_cluster))
    _check_make_sim_size(len(mu), d, n, n_clusters, rotate)
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
    return SimData(
        X=X @ rotation.T,
        labels=labels,
        x_hat=points[-1] @ rotation.T,
        rotation=rotation,
        test_points=points @ rotation.T,
        test_index=index,
        mu=mu,
        sigma=sigma,
    )


def _matrix(name: str, value, shape) -> torch.Tensor:
    """A finite float64 tensor of ``shape`` (``None`` = any length) from a tensor or array."""
    return torch.from_numpy(_checks.array(name, value, shape=shape))


def empirical_second_moment(X: torch.Tensor) -> torch.Tensor:
    """``A = (1/N) sum_k x_k x_k^T`` of a training set (the matrix in eq. 4.1).

    ``X`` is ``(N, d)`` with ``N >= 1`` finite rows (a tensor or an array).
    """
    X = _matrix("X", X, (None, None))
    _checks.memory(8.0 * X.shape[1] ** 2, f"X with d = {X.shape[1]} columns")
    return X.T @ X / X.shape[0]


def linear_model_loss(W: torch.Tensor, X: torch.Tensor) -> float:
    """Training loss (2.1) of the linear model ``f(x) = W x``:
    ``(1 / 2N) sum_k ||W x_k - x_k||^2`` (the left side of eq. 4.1, ``book/sim_task.md``).

    Parameters
    ----------
    W : torch.Tensor or array_like
        ``(d, d)`` weight matrix, finite.
    X : torch.Tensor or array_like
        ``(N, d)`` training inputs, finite.

    Returns
    -------
    float
        The loss, computed in ``float64``.
    """
    X = _matrix("X", X, (None, None))
    d = X.shape[1]
    W = _matrix("W", W, (d, d))
    R = X @ (W - torch.eye(d, dtype=torch.float64)).T
    return float(0.5 * (R**2).sum(dim=1).mean())


def _psd(A: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Eigen-decomposition of a symmetric positive semi-definite ``A``, checked."""
    scale = float(A.abs().max()) if A.numel() else 0.0
    if not torch.allclose(A, A.T, rtol=1e-8, atol=1e-12 * scale):
        raise ValueError("A must be symmetric (a second-moment matrix); the given A is not, "
                         f"max |A - A^T| = {float((A - A.T).abs().max()):.3g}")
    evals, evecs = torch.linalg.eigh(A)
    if float(evals.min()) < -1e-8 * max(scale, 1e-300):
        raise ValueError("A must be positive semi-definite (a second-moment matrix); its smallest "
                         f"eigenvalue is {float(evals.min()):.3g}")
    return evals, evecs


def frobenius_loss(W: torch.Tensor, A: torch.Tensor) -> float:
    """Right-hand side of eq. (4.1): ``0.5 * ||(W - I) A^{1/2}||_F^2`` (``book/sim_task.md``).

    Parameters
    ----------
    W : torch.Tensor or array_like
        ``(d, d)`` weight matrix, finite.
    A : torch.Tensor or array_like
        ``(d, d)`` second-moment matrix, symmetric and positive semi-definite;
        ``A^{1/2}`` is its symmetric square root.

    Returns
    -------
    float
        The loss, computed in ``float64``.
    """
    A = _matrix("A", A, (None, None))
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"A must be a square (d, d) matrix, got shape {tuple(A.shape)}")
    W = _matrix("W", W, tuple(A.shape))
    evals, evecs = _psd(A)
    root = evecs @ torch.diag(evals.clamp_min(0).sqrt()) @ evecs.T
    M = (W - torch.eye(A.shape[0], dtype=torch.float64)) @ root
    return float(0.5 * (M**2).sum())
