"""The order homomorphism of App. B on the hypercube test points (eq. B.1, B.2; Fig. 7;
``book/topological_order.md``): the comparable pairs ``u <= v`` of test points, the learning
time of every test point, whether eq. (B.2) holds as learning times (``claim-topo-order``), the
runs of Fig. 7 (:func:`topo_runs`), and the wrong model, data with entangled concepts, whose null
audit is :func:`entangled_order_theory`.
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np
import torch

from swingby import _checks
from swingby.observations.learning import check_record
from swingby.observations.runs import record_grid, run_seed
from swingby.sim.batched import train_batched
from swingby.sim.data import make_sim
from swingby.sim.models import MLP
from swingby.sim.run_checks import seed_list
from swingby.sim.train_loop import TrainRecord, steps_per_epoch

__all__ = ["comparable_pairs", "hypercube_learning_times", "learning_order_holds", "entangled_order_theory",
           "topo_runs", "OrderSummary", "order_summary"]

#: Most rows :func:`comparable_pairs` accepts: ``2**12`` (``s = 12`` concepts), because it
#: compares every pair of rows (``4**s`` comparisons) and returns about ``3**s`` pairs.
MAX_PAIR_ROWS = 2**12


def check_test_index(test_index) -> np.ndarray:
    """``test_index`` as an array of at most ``MAX_PAIR_ROWS`` 0/1 rows, else a ValueError."""
    V = _checks.array("test_index", test_index, ndim=2, allow_bool=True)
    if not np.all((V == 0) | (V == 1)):
        raise ValueError("test_index must hold 0/1 vectors v in {0,1}^s (one per row)")
    if len(V) > MAX_PAIR_ROWS:
        raise ValueError(
            f"test_index has {len(V)} rows (s = {V.shape[1]} concepts); comparing every pair takes "
            f"4**s steps and about 3**s pairs of memory, so at most {MAX_PAIR_ROWS} rows (s <= 12) are allowed")
    return V


def comparable_pairs(test_index: np.ndarray) -> list[tuple[int, int]]:
    """All pairs ``(i, j)``, ``i != j``, with ``v_i <= v_j`` componentwise (App. B), in
    lexicographic order; ``test_index`` has at most ``MAX_PAIR_ROWS`` rows."""
    V = check_test_index(test_index)
    le = np.ones((len(V), len(V)), dtype=bool)
    for p in range(V.shape[1]):
        le &= V[:, None, p] <= V[None, :, p]
    np.fill_diagonal(le, False)
    return list(zip(*(idx.tolist() for idx in np.nonzero(le))))


def order_property(rec: TrainRecord, *, skip_initial: bool = True, exclude_origin: bool = False) -> np.ndarray:
    """Per record (after step 0 unless not ``skip_initial``), the share of comparable pairs ``u <= v``
    (without ``u = 0`` if ``exclude_origin``) with ``loss(x^(u)) <= loss(x^(v))`` (eq. B.2, literally)."""
    L = rec.test_point_losses()
    if skip_initial and rec.steps[0] == 0:
        L = L[1:]
    pairs = np.array(comparable_pairs(rec.test_index))
    if exclude_origin:
        pairs = pairs[np.asarray(rec.test_index)[pairs[:, 0]].sum(axis=1) > 0]
    return (L[:, pairs[:, 0]] <= L[:, pairs[:, 1]]).mean(axis=1)


def hypercube_learning_times(rec: TrainRecord, level: float = 0.1, *, additive: str | None = None,
                             whole_epochs: bool = False) -> np.ndarray:
    """Learning time ``T(v)`` of every test point of eq. (B.1): the first recorded epoch at
    which its loss is at most ``level`` (``inf`` if never). Eq. (B.2) read as learning times is
    ``u <= v  =>  T(u) <= T(v)``.

    Parameters
    ----------
    rec : TrainRecord
        A finite run.
    level : float
        Loss at which a test point counts as learned, ``> 0``.
    additive : {None, "sum"}
        ``"sum"``: the times of the additive loss ``sum_{p in v} l(e_p)`` built from the run's
        single-concept losses (Theorem 4.1's prediction, which keeps eq. B.2 by construction).
    whole_epochs : bool
        Read the losses only at whole epochs (the resolution of Fig. 7); the run must have them.

    Returns
    -------
    numpy.ndarray
        ``(2**s,)`` epochs, in the order of ``rec.test_index``.
    """
    rec = check_record("rec", rec)
    level = _checks.positive_float("level", level)
    losses = rec.test_point_losses()
    if additive is not None:
        _checks.choice("additive", additive, ("sum",))
        index = np.asarray(rec.test_index)
        singles = [int(np.flatnonzero((index.sum(axis=1) == 1) & (index[:, p] == 1))[0])
                   for p in range(index.shape[1])]
        losses = losses[:, singles] @ index.T.astype(float)
    epochs = rec.epochs
    if _checks.flag("whole_epochs", whole_epochs):
        keep = np.isclose(epochs, np.round(epochs), rtol=0, atol=1e-9)
        if keep.sum() < 2:
            raise ValueError("rec must have records at two or more whole epochs for whole_epochs=True "
                             "(topo_runs records every epoch)")
        losses, epochs = losses[keep], np.round(epochs[keep])
    below = losses <= level
    return np.where(below.any(axis=0), epochs[np.argmax(below, axis=0)], np.inf)


def learning_order_holds(rec: TrainRecord, level: float = 0.1, *, additive: str | None = None,
                         whole_epochs: bool = False) -> bool:
    """Whether eq. (B.2) holds as learning times in one run: ``T(u) <= T(v)`` for every comparable
    pair ``u <= v`` with ``u != 0`` (the origin's loss is the model's squared bias); the check of
    ``claim-topo-order``.

    Parameters
    ----------
    rec, level, additive, whole_epochs
        As in :func:`hypercube_learning_times`.
    """
    T = hypercube_learning_times(rec, level, additive=additive, whole_epochs=whole_epochs)
    index = np.asarray(rec.test_index)
    pairs = np.array(comparable_pairs(index))
    pairs = pairs[index[pairs[:, 0]].sum(axis=1) > 0]
    return bool(np.all(T[pairs[:, 0]] <= T[pairs[:, 1]]))


def _concept_frame(s: int, d: int, cosine: float) -> np.ndarray:
    """``(d, d)`` map that sends ``e_p`` (p < s) to unit vectors of pairwise ``cosine``."""
    gram = np.full((s, s), cosine) + (1 - cosine) * np.eye(s)
    M = np.eye(d)
    M[:s, :s] = np.linalg.cholesky(gram).T  # columns: unit vectors with Gram matrix `gram`
    return M


def _check_cosine(cosine, s: int) -> float:
    """``cosine`` as a float in ``(-1/(s-1), 1)`` (the Gram matrix must be positive definite)."""
    low = -1.0 / (s - 1) if s > 1 else -1.0
    return _checks.number("cosine", cosine, low=low, high=1.0, low_open=True, high_open=True)


def entangle(data, cosine: float):
    """The data of the wrong model of ``claim-topo-order``: ``data`` with its concept directions
    turned to pairwise ``cosine`` (training set and test points; ``0`` gives ``data`` back).

    Null audit: the paper's account of the order is that orthogonal concepts give a diagonal
    ``A`` (eq. C.13), Theorem 4.1 learns each concept on its own axis at its own rate ``a_p``,
    and the loss at a test point is a sum of non-negative per-concept terms, which grows with
    every concept added. With entangled concepts ``A`` is not diagonal in concept coordinates,
    the modes mix concepts, and the loss of a combination is no sum over its concepts. Shown by
    :func:`entangled_order_theory`: on Fig. 7's data every comparable pair is learned in order at
    ``cosine = 0`` and several are not at ``cosine = 0.5`` (``tests/test_simood_claims.py``).
    """
    R = data.rotation.double().numpy()
    M = torch.as_tensor(R @ _concept_frame(data.s, data.d, cosine) @ R.T, dtype=torch.float32)
    return data._replace(X=data.X @ M.T, x_hat=data.x_hat @ M.T, test_points=data.test_points @ M.T)


def entangled_order_theory(cosine: float, mu, sigma, *, level: float = 0.1, t_max: float = 20.0,
                           n_times: int = 4001) -> float:
    """Share of the comparable pairs ``u <= v`` (``u != 0``) learned in order under the gradient
    flow of eq. (4.1) from ``W = 0`` with the population ``A`` of data whose concept directions
    have pairwise ``cosine`` (the null audit of the entangled data; 1 at ``cosine = 0``).

    Parameters
    ----------
    cosine : float
        Cosine between concept directions, in ``(-1/(s-1), 1)``.
    mu, sigma : sequence of float
        Cluster distances and standard deviations (no origin cluster).
    level : float
        Loss at which a test point counts as learned, ``> 0``.
    t_max : float
        End of the time grid, ``> 0``.
    n_times : int
        Points of the time grid, ``>= 2``.
    """
    mu = _checks.nonneg_vector("mu", mu)
    s = len(mu)
    sigma = _checks.nonneg_vector("sigma", sigma, s)
    cosine = _check_cosine(cosine, s)
    level, t_max = _checks.positive_float("level", level), _checks.positive_float("t_max", t_max)
    n_times = _checks.integer("n_times", n_times, low=2)
    B = _concept_frame(s, s, cosine)
    evals, evecs = np.linalg.eigh(B @ np.diag(sigma**2 + mu**2 / s) @ B.T)
    index = np.array([[(k >> (s - 1 - p)) & 1 for p in range(s)] for k in range(2**s)])
    coef = (index * mu) @ B.T @ evecs  # test points in the eigenbasis of A
    t = np.linspace(0.0, t_max, n_times)
    losses = 0.5 * (coef[None] ** 2 * np.exp(-2 * t[:, None, None] * evals)).sum(axis=-1)
    below = losses <= level
    T = np.where(below.any(axis=0), t[np.argmax(below, axis=0)], np.inf)
    pairs = np.array(comparable_pairs(index))
    pairs = pairs[index[pairs[:, 0]].sum(axis=1) > 0]
    return float(np.mean(T[pairs[:, 0]] <= T[pairs[:, 1]]))


def topo_runs(seeds: Sequence[int], *, mu, sigma, depth: int = 1, activation: str = "linear",
              bias: bool = True, epochs: int = 40, cosine: float = 0.0, stream: int = 0,
              d: int = 64) -> list[TrainRecord]:
    """Runs of Fig. 7 (App. B): one MLP per seed on its own draw of the four-concept data (no
    origin cluster, rotated, 5000 points per cluster, the authors' SGD), optionally with
    entangled concepts, recorded on ``record_grid`` and at every
    whole epoch. Run ``k`` draws everything from ``run_seed(seeds[k], 0, d, depth, stream)``.

    Parameters
    ----------
    seeds : sequence of int
        Distinct seeds, one run each.
    mu, sigma : sequence of float
        Cluster distances and standard deviations.
    depth, activation, bias
        As for :class:`~swingby.sim.models.MLP`.
    epochs : int
        Training epochs, ``> 0``.
    cosine : float
        Cosine between concept directions (``0``: the paper's orthogonal concepts).
    stream : int
        Further number mixed into every run's seed, ``>= 0``.
    d : int
        Input dimension.
    """
    seeds = seed_list("seeds", seeds, distinct=True)
    epochs = _checks.positive_int("epochs", epochs)
    stream = _checks.integer("stream", stream, low=0)
    MLP(d, depth, activation=activation, bias=bias)  # check the model before drawing data
    if cosine != 0:
        cosine = _check_cosine(cosine, len(np.atleast_1d(mu)))
    run_seeds = [run_seed(s, 0, d=d, depth=depth, stream=stream) for s in seeds]
    datas = [make_sim(mu, sigma, d, 5000, rotate=True, seed=rs) for rs in run_seeds]
    if cosine != 0:
        datas = [entangle(x, cosine) for x in datas]
    models = [MLP(d, depth, activation=activation, bias=bias, seed=rs) for rs in run_seeds]
    spe = steps_per_epoch(datas[0].X.shape[0], 128)
    steps = np.union1d(record_grid(epochs * spe), spe * np.arange(epochs + 1))  # every whole epoch too
    return train_batched(models, datas, epochs=epochs, seed=run_seeds, record_steps=steps,
                         record_train_loss=False)


class OrderSummary(NamedTuple):
    """What :func:`order_summary` returns: how often eq. (B.2) holds over a set of runs."""

    per_time: np.ndarray      #: ``(runs, R)`` literal share of pairs in order, after step 0
    per_time_x0: np.ndarray   #: the same without the pairs ``u = 0``
    epochs: np.ndarray        #: ``(R,)`` epochs of those records
    all: float                #: mean of ``per_time``
    x0: float                 #: mean of ``per_time_x0``
    untrained: float          #: mean share of pairs in order at step 0
    share: np.ndarray         #: ``(runs,)`` share of pairs with ``u != 0`` in order as learning times
    origin_above: float       #: share of (run, time) with the origin's loss above every single concept's


def order_summary(records: Sequence[TrainRecord], level: float = 0.1) -> OrderSummary:
    """How often eq. (B.2) holds over runs on one hypercube of test points: literally at every
    recorded time, with and without the pairs at the origin, at step 0, and as learning times on
    the whole-epoch grid (:func:`hypercube_learning_times`).

    Parameters
    ----------
    records : sequence of TrainRecord
        Finite runs with the same test points and records, non-empty.
    level : float
        The loss at which a test point counts as learned, ``> 0``.
    """
    records = [check_record("records[i]", r) for r in records]
    if not records:
        raise ValueError("records must hold at least one run")
    level = _checks.positive_float("level", level)
    index = np.asarray(records[0].test_index)
    pairs = np.array(comparable_pairs(index))
    nonzero = index[pairs[:, 0]].sum(axis=1) > 0
    singles = np.flatnonzero(index.sum(axis=1) == 1)
    per_time = np.stack([order_property(r) for r in records])
    per_time_x0 = np.stack([order_property(r, exclude_origin=True) for r in records])
    T = np.stack([hypercube_learning_times(r, level=level, whole_epochs=True) for r in records])
    L = np.stack([r.test_point_losses() for r in records])
    return OrderSummary(
        per_time, per_time_x0, records[0].epochs[1:], float(per_time.mean()), float(per_time_x0.mean()),
        float(np.mean([order_property(r, skip_initial=False)[0] for r in records])),
        (T[:, pairs[:, 0]] <= T[:, pairs[:, 1]])[:, nonzero].mean(axis=1),
        float(np.mean(L[:, 1:, 0] > L[:, 1:, singles].min(axis=2))))
