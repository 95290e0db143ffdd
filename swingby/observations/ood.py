"""Out-of-distribution checks (App. F.3, Figs. 15, 16; ``book/ood_checks.md``): how far a run's output ends
from ``x_hat`` or from another run's, how close the training points come to ``x_hat`` (``claim-sim-ood``),
and runs on the full and on the truncated training set, all else the same (``claim-ood-fig16``).
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np
import torch

from swingby import _checks
from swingby.observations.learning import check_record, x_hat_norm
from swingby.observations.ood_null import rbf_centers, rbf_twin_delta
from swingby.observations.runs import check_configs_seeds, check_sweep, record_grid, run_seed
from swingby.sim.batched import train_batched
from swingby.sim.data import make_sim
from swingby.sim.models import MLP
from swingby.sim.run_checks import seed_list
from swingby.sim.train_loop import TrainRecord

__all__ = ["relative_distance", "TruncationTwins", "truncation_twins", "NearestPoints", "nearest_training_points",
           "Fig16Units", "fig16_units"]


def relative_distance(rec: TrainRecord, reference: TrainRecord | None = None, *, at: str = "end") -> float:
    """Distance of the output at ``x_hat`` from ``x_hat`` (0: generalised out of distribution) or from
    another run's (the ``delta`` of eq. ood-delta), over ``||x_hat||``.

    Parameters
    ----------
    rec, reference, at
        A finite run; ``None`` for ``x_hat`` or a finite run recorded at the same steps; "end" for the distance
        at the last record, "max" for the largest.
    """
    rec = check_record("rec", rec)
    at = _checks.choice("at", at, ("end", "max"))
    target = rec.test_points[-1:]  # x_hat, (1, d)
    if reference is not None:
        reference = check_record("reference", reference)
        if reference.trajectory.shape != rec.trajectory.shape or not np.array_equal(reference.steps, rec.steps):
            raise ValueError("reference must be recorded at the same steps as rec (same trajectory shape "
                             f"{rec.trajectory.shape}), got shape {reference.trajectory.shape}")
        target = reference.trajectory
    if at == "end":
        return float(np.linalg.norm(rec.trajectory[-1] - target[-1]) / x_hat_norm(rec))
    return float(np.linalg.norm(rec.trajectory - target, axis=1).max() / x_hat_norm(rec))


class TruncationTwins(NamedTuple):
    """What :func:`truncation_twins` returns (unpacks as ``full, truncated, n_redrawn``)."""

    full: list  #: ``full[c][k]``, the TrainRecord on the full training set
    truncated: list  #: ``truncated[c][k]``, its twin on the truncated training set
    n_redrawn: np.ndarray  #: ``(configs, seeds)`` number of training points the truncation redrew


def truncation_twins(configs: Sequence[dict], *, seeds: Sequence[int], d: int = 64, depth: int = 1,
                     width: int | None = None, lr: float = 0.1, n_per_cluster: int = 5000,
                     origin_cluster: bool = True, activation: str = "linear") -> TruncationTwins:
    """Runs of App. F.3 / Fig. 16: every (config, seed) on the full and on the truncated training set, which
    differ only in the points redrawn from within ``min(mu)/2`` of ``x_hat``.

    Parameters
    ----------
    configs, seeds, d, depth, width, lr, n_per_cluster, origin_cluster, activation
        As in :func:`~swingby.observations.runs.run_sweep` (SGD, batch 128, 40 epochs).
    """
    configs, seeds, n_concepts = check_configs_seeds(configs, seeds, d)
    n_clusters = n_concepts + int(_checks.flag("origin_cluster", origin_cluster))
    _checks.positive_int("n_per_cluster", n_per_cluster)
    twins, full, cut = _twin_runs([c for c in configs for _ in seeds], seeds * len(configs), n_clusters, d=d,
                                  depth=depth, width=width, activation=activation, lr=lr,
                                  n_per_cluster=n_per_cluster, origin_cluster=origin_cluster)
    k = len(seeds)
    out = [[rr[i * k:(i + 1) * k] for i in range(len(configs))] for rr in (full, cut)]
    return TruncationTwins(out[0], out[1], np.array([t[2] for t in twins]).reshape(len(configs), k))


def twin_data(cfg, seed, d, n_per_cluster, origin_cluster):
    """The full (rotated) data of ``seed``, its truncated twin turned into the same frame, and the redrawn count."""
    kw = dict(origin_cluster=origin_cluster, seed=seed)
    full = make_sim(cfg["mu"], cfg["sigma"], d, n_per_cluster, rotate=True, **kw)
    plain = make_sim(cfg["mu"], cfg["sigma"], d, n_per_cluster, rotate=False, **kw)
    cut = make_sim(cfg["mu"], cfg["sigma"], d, n_per_cluster, rotate=False, truncate=True, **kw)
    R, n_redrawn = full.rotation, int((plain.X != cut.X).any(dim=1).sum())
    cut = cut._replace(X=cut.X @ R.T, x_hat=cut.x_hat @ R.T, rotation=R, test_points=cut.test_points @ R.T)
    return full, cut, n_redrawn


def _twin_runs(cfgs, seeds, n_clusters, *, d, depth, activation, lr, width=None, n_per_cluster=5000,
               origin_cluster=True):
    """Per ``(cfgs[i], seeds[i])`` its ``twin_data``, full and truncated run (model and shuffling seed ``seeds[i]``)."""
    models = [MLP(d, depth, width, activation=activation, seed=s) for s in seeds * 2]
    n_steps = check_sweep(n_per_cluster * n_clusters, models, lr=lr)  # before any data are drawn
    twins = [twin_data(cfg, s, d, n_per_cluster, origin_cluster) for cfg, s in zip(cfgs, seeds)]
    recs = train_batched(models, [t[0] for t in twins] + [t[1] for t in twins], seed=seeds * 2, lr=lr,
                         record_steps=record_grid(n_steps), record_train_loss=False)
    return twins, recs[:len(twins)], recs[len(twins):]


class NearestPoints(NamedTuple):
    """What :func:`nearest_training_points` returns, one entry per draw of the data."""

    nearest: np.ndarray  #: distance of the nearest training point to ``x_hat``, in radii ``min(mu)/2``
    inside: np.ndarray  #: number of training points closer to ``x_hat`` than the radius


def nearest_training_points(mu, sigma, seeds: Sequence[int], *, origin_cluster: bool = True,
                            n_per_cluster: int = 5000) -> NearestPoints:
    """How close the training points of independent draws come to ``x_hat`` (App. F.3, Fig. 15;
    ``claim-sim-ood``), in truncation radii ``min(mu)/2``.

    Parameters
    ----------
    mu, sigma, seeds, origin_cluster, n_per_cluster
        As for :func:`~swingby.sim.data.make_sim`; distinct seeds, one draw each.
    """
    seeds = seed_list("seeds", seeds, distinct=True)
    s = len(np.atleast_1d(mu))
    nearest, inside = [], []
    for sd in seeds:
        data = make_sim(mu, sigma, s, n_per_cluster, origin_cluster=origin_cluster, seed=sd)
        dist = torch.linalg.vector_norm(data.X.double() - data.x_hat.double(), dim=1) / (float(data.mu.min()) / 2)
        nearest.append(float(dist.min()))
        inside.append(int((dist < 1).sum()))
    return NearestPoints(np.array(nearest), np.array(inside))


class Fig16Units(NamedTuple):
    """What :func:`fig16_units` returns, one entry per unit (config-major order)."""

    twin_delta: np.ndarray  #: ``delta`` (eq. ood-delta, ``at="max"``) of each truncated run vs its full twin
    null_delta: np.ndarray  #: the same ``delta`` for the wrong model (RBF regression) on the same twins
    n_redrawn: np.ndarray  #: training points the truncation redrew, per unit
    full: list  #: the full runs (TrainRecord), per unit
    truncated: list  #: their truncated twins, per unit


def fig16_units(configs: Sequence[dict], seeds: Sequence[int], *, d: int = 64, depth: int = 2,
                activation: str = "relu", lr: float = 0.1, bandwidth: float = 0.1,
                n_centers: int = 500) -> Fig16Units:
    """The units of ``claim-ood-fig16`` (App. F.3): per configuration and seed a full run, its truncated twin,
    and the wrong model, an RBF regression (:mod:`swingby.observations.ood_null`), on the same twins.

    Parameters
    ----------
    configs, seeds, d, depth, activation, lr, bandwidth, n_centers
        As in :func:`truncation_twins` (a unit per configuration and seed); the RBF kernel's width and centres.
    """
    configs, seeds, n_concepts = check_configs_seeds(configs, seeds, d)
    bandwidth = _checks.positive_float("bandwidth", bandwidth)
    n_centers = _checks.integer("n_centers", n_centers, low=1, high=5000 * (n_concepts + 1))
    own = [run_seed(s, c, d=d, depth=depth) for c in range(len(configs)) for s in seeds]
    center_seeds = [run_seed(s, c, d=d, depth=depth, stream=1) for c in range(len(configs)) for s in seeds]
    cfgs = [cfg for cfg in configs for _ in seeds]
    twins, full, cut = _twin_runs(cfgs, own, n_concepts + 1, d=d, depth=depth, activation=activation, lr=lr)
    twin = [relative_distance(c, f, at="max") for c, f in zip(cut, full)]
    steps = full[0].steps.astype(int)
    null = [rbf_twin_delta(f, c, rbf_centers(cfg, cs, f.rotation, n_centers), bandwidth=bandwidth, steps=steps)
            for (f, c, _), cfg, cs in zip(twins, cfgs, center_seeds)]
    return Fig16Units(np.array(twin), np.array(null), np.array([t[2] for t in twins]), full, cut)
