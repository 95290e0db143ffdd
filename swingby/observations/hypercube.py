"""The order homomorphism of App. B on the hypercube of test points (eq. B.1, B.2; Fig. 7;
``book/topological_order.md``): comparable pairs ``u <= v``, learning times, the runs of Fig. 7 and the
wrong model, data whose concepts are entangled (:func:`entangled_order_theory`).
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np
import torch

from swingby import _checks
from swingby.observations.learning import check_record, check_records, first_time
from swingby.observations.runs import record_grid, run_seed
from swingby.sim.batched import train_batched
from swingby.sim.data import make_sim, test_points
from swingby.sim.models import MLP
from swingby.sim.run_checks import seed_list
from swingby.sim.train_loop import TrainRecord, steps_per_epoch

__all__ = ["comparable_pairs", "hypercube_learning_times", "learning_order_holds", "entangled_order_theory",
           "topo_runs", "OrderSummary", "order_summary"]

#: Most rows :func:`comparable_pairs` accepts (``s = 12``): it makes ``4**s`` comparisons, about ``3**s`` pairs.
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


def pair_array(index, exclude_origin: bool = False) -> np.ndarray:
    """:func:`comparable_pairs` as an ``(n, 2)`` array, without the pairs with ``u = 0`` if ``exclude_origin``."""
    pairs = np.array(comparable_pairs(index))
    return pairs[np.asarray(index)[pairs[:, 0]].sum(axis=1) > 0] if exclude_origin else pairs


def order_property(rec: TrainRecord, *, skip_initial: bool = True, exclude_origin: bool = False) -> np.ndarray:
    """Per record (after step 0 if ``skip_initial``), the share of pairs ``u <= v`` whose losses keep eq. (B.2)."""
    L = rec.test_point_losses()
    if skip_initial and rec.steps[0] == 0:
        L = L[1:]
    pairs = pair_array(rec.test_index, exclude_origin)
    return (L[:, pairs[:, 0]] <= L[:, pairs[:, 1]]).mean(axis=1)


def hypercube_learning_times(rec: TrainRecord, level: float = 0.1, *, additive: str | None = None,
                             whole_epochs: bool = False) -> np.ndarray:
    """Learning time ``T(v)`` of every test point of eq. (B.1), in the order of ``rec.test_index``: the first
    recorded epoch at which its loss is at most ``level`` (``inf`` if never).

    Parameters
    ----------
    rec, level
        A finite run; the loss at which a test point counts as learned.
    additive, whole_epochs
        ``"sum"``: times of the additive loss ``sum_{p in v} l(e_p)`` of the run's single-concept losses;
        read the losses only at whole epochs (the resolution of Fig. 7).
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
    return first_time(losses <= level, epochs)


def learning_order_holds(rec: TrainRecord, level: float = 0.1, *, additive: str | None = None,
                         whole_epochs: bool = False) -> bool:
    """``claim-topo-order`` on one run: ``T(u) <= T(v)`` for every comparable pair ``u <= v`` with ``u != 0``.

    Parameters
    ----------
    rec, level, additive, whole_epochs
        As in :func:`hypercube_learning_times`.
    """
    T = hypercube_learning_times(rec, level, additive=additive, whole_epochs=whole_epochs)
    pairs = pair_array(rec.test_index, exclude_origin=True)
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
    """The wrong model's data: ``data`` with its concept directions at pairwise ``cosine`` (points and test points)."""
    R = data.rotation.double().numpy()
    M = torch.as_tensor(R @ _concept_frame(data.s, data.d, cosine) @ R.T, dtype=torch.float32)
    return data._replace(X=data.X @ M.T, x_hat=data.x_hat @ M.T, test_points=data.test_points @ M.T)


def entangled_order_theory(cosine: float, mu, sigma, *, level: float = 0.1) -> float:
    """Share of the comparable pairs ``u <= v`` (``u != 0``) learned in order under the gradient flow of
    eq. (4.1) from ``W = 0`` (times in ``[0, 20]``) on data whose concept directions have pairwise ``cosine``:
    the null audit of the entangled data (1 at ``cosine = 0``).

    Parameters
    ----------
    cosine, level
        Cosine between concept directions, in ``(-1/(s-1), 1)``; the loss at which a point counts as learned.
    mu, sigma : sequence of float
        Cluster distances and standard deviations (no origin cluster).
    """
    mu = _checks.nonneg_vector("mu", mu)
    s = len(mu)
    sigma = _checks.nonneg_vector("sigma", sigma, s)
    cosine = _check_cosine(cosine, s)
    level = _checks.positive_float("level", level)
    B = _concept_frame(s, s, cosine)
    evals, evecs = np.linalg.eigh(B @ np.diag(sigma**2 + mu**2 / s) @ B.T)
    index = test_points(mu, s)[1].numpy().astype(int)
    coef = (index * mu) @ B.T @ evecs  # test points in the eigenbasis of A
    t = np.linspace(0.0, 20.0, 4001)
    T = first_time(0.5 * (coef[None] ** 2 * np.exp(-2 * t[:, None, None] * evals)).sum(axis=-1) <= level, t)
    pairs = pair_array(index, exclude_origin=True)
    return float(np.mean(T[pairs[:, 0]] <= T[pairs[:, 1]]))


def topo_runs(seeds: Sequence[int], *, mu, sigma, depth: int = 1, activation: str = "linear",
              bias: bool = True, epochs: int = 40, cosine: float = 0.0, stream: int = 0,
              d: int = 64) -> list[TrainRecord]:
    """Runs of Fig. 7 (App. B), one MLP per seed, each on its own draw of the data (no origin cluster, rotated)
    seeded by ``run_seed(seeds[k], 0, d, depth, stream)``, recorded on ``record_grid`` and every whole epoch.

    Parameters
    ----------
    seeds, mu, sigma
        Distinct seeds, one run each; cluster distances and standard deviations.
    depth, activation, bias, d, epochs
        As for :class:`~swingby.sim.models.MLP` and :func:`~swingby.sim.train.train`.
    cosine, stream
        Cosine between concept directions (0: the paper's); a number mixed into every run's seed.
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
    """How often eq. (B.2) holds over runs with the same test points: at every record, with and without the
    pairs at the origin, at step 0, and as learning times on whole epochs.

    Parameters
    ----------
    records, level
        Finite runs with the same test points and records; the loss at which a test point counts as learned.
    """
    records = check_records("records", records)
    level = _checks.positive_float("level", level)
    index = np.asarray(records[0].test_index)
    pairs = pair_array(index, exclude_origin=True)
    singles = np.flatnonzero(index.sum(axis=1) == 1)
    per_time = np.stack([order_property(r) for r in records])
    per_time_x0 = np.stack([order_property(r, exclude_origin=True) for r in records])
    T = np.stack([hypercube_learning_times(r, level=level, whole_epochs=True) for r in records])
    L = np.stack([r.test_point_losses() for r in records])
    return OrderSummary(
        per_time, per_time_x0, records[0].epochs[1:], float(per_time.mean()), float(per_time_x0.mean()),
        float(np.mean([order_property(r, skip_initial=False)[0] for r in records])),
        (T[:, pairs[:, 0]] <= T[:, pairs[:, 1]]).mean(axis=1),
        float(np.mean(L[:, 1:, 0] > L[:, 1:, singles].min(axis=2))))
