"""Out-of-distribution checks (App. F.3, Figs. 15, 16; ``book/ood_checks.md``): how far a run's
output at ``x_hat`` ends from ``x_hat`` or from another run's, how close the training points come
to ``x_hat`` (Fig. 15, ``claim-sim-ood``), and the truncation twins: every run trained on the full
and on the truncated training set with everything else the same (Fig. 16, ``claim-ood-fig16``,
with the wrong model of :mod:`swingby.observations.ood_null`).
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np
import torch

from swingby import _checks
from swingby.observations.learning import check_record, x_hat_norm
from swingby.observations.ood_null import rbf_centers, rbf_twin_delta
from swingby.observations.runs import check_configs_seeds, check_training, record_grid, run_seed
from swingby.sim.batched import train_batched
from swingby.sim.data import make_sim
from swingby.sim.models import MLP
from swingby.sim.run_checks import seed_list
from swingby.sim.train_loop import TrainRecord, steps_per_epoch

__all__ = ["relative_distance", "TruncationTwins", "truncation_twins", "NearestPoints", "nearest_training_points",
           "Fig16Units", "fig16_units"]

#: Where :func:`relative_distance` measures: at the last record, or the largest over the records.
DISTANCE_AT = ("end", "max")


def relative_distance(rec: TrainRecord, reference: TrainRecord | None = None, *, at: str = "end") -> float:
    """Distance of the output trajectory at ``x_hat`` from ``x_hat`` (0: the run generalised out
    of distribution) or from another run's trajectory (the ``delta`` of eq. ood-delta), over
    ``||x_hat||``.

    Parameters
    ----------
    rec : TrainRecord
        A finite run.
    reference : TrainRecord or None
        ``None`` for ``x_hat``, or a finite run recorded at the same steps as ``rec``.
    at : {"end", "max"}
        The distance at the last record, or the largest over the records.
    """
    rec = check_record("rec", rec)
    at = _checks.choice("at", at, DISTANCE_AT)
    if reference is None:
        target = rec.test_points[-1]
    else:
        reference = check_record("reference", reference)
        if reference.trajectory.shape != rec.trajectory.shape or not np.array_equal(reference.steps, rec.steps):
            raise ValueError("reference must be recorded at the same steps as rec (same trajectory shape "
                             f"{rec.trajectory.shape}), got shape {reference.trajectory.shape}")
        target = reference.trajectory
    if at == "end":
        gap = np.linalg.norm(rec.trajectory[-1] - (target if reference is None else target[-1]))
    else:
        gap = np.linalg.norm(rec.trajectory - target, axis=1).max()
    return float(gap / x_hat_norm(rec))


class TruncationTwins(NamedTuple):
    """What :func:`truncation_twins` returns (unpacks as ``full, truncated, n_redrawn``)."""

    full: list  #: ``full[c][k]``, the TrainRecord on the full training set
    truncated: list  #: ``truncated[c][k]``, its twin on the truncated training set
    n_redrawn: np.ndarray  #: ``(configs, seeds)`` number of training points the truncation redrew


def truncation_twins(
    configs: Sequence[dict],
    *,
    seeds: Sequence[int],
    d: int = 64,
    depth: int = 1,
    width: int | None = None,
    lr: float = 0.1,
    n_per_cluster: int = 5000,
    origin_cluster: bool = True,
    activation: str = "linear",
) -> TruncationTwins:
    """Runs of App. F.3 / Fig. 16: every (config, seed) trained on the full and on the truncated
    training set with the same rotation, initial weights and shuffling, so that the two runs
    differ only in the points redrawn from within ``min(mu)/2`` of ``x_hat`` (both sets are
    sampled un-rotated and turned by the full set's rotation).

    Parameters
    ----------
    configs : sequence of dict
        Dicts with keys ``mu`` and ``sigma``, as for :func:`~swingby.observations.runs.run_sweep`.
    seeds : sequence of int
        Distinct seeds, one pair of runs per config and seed.
    d, depth, width, lr, n_per_cluster, origin_cluster, activation
        As in :func:`~swingby.observations.runs.run_sweep` (SGD, batch 128, 40 epochs).
    """
    configs, seeds, n_concepts = check_configs_seeds(configs, seeds, d)
    n_clusters = n_concepts + int(_checks.flag("origin_cluster", origin_cluster))
    n = _checks.positive_int("n_per_cluster", n_per_cluster) * n_clusters
    check_training(n, 2 * len(configs) * len(seeds), d, depth=depth, width=width, lr=lr, batch_size=128,
                    epochs=40, full_batch=False, loss="mean")
    MLP(d, depth, width, activation=activation)  # check the model settings before drawing any data
    datas, n_redrawn = [], np.zeros((len(configs), len(seeds)), dtype=int)
    for c, cfg in enumerate(configs):
        for k, s in enumerate(seeds):
            full, cut, n_redrawn[c, k] = twin_data(cfg, s, d, n_per_cluster, origin_cluster)
            datas.append((full, cut))
    run_seeds = [s for _ in configs for s in seeds]
    recs = _train_sets([p[0] for p in datas] + [p[1] for p in datas], run_seeds * 2, d=d, depth=depth,
                       width=width, activation=activation, lr=lr)
    k, m = len(seeds), len(datas)
    out = [[rr[i * k:(i + 1) * k] for i in range(len(configs))] for rr in (recs[:m], recs[m:])]
    return TruncationTwins(out[0], out[1], n_redrawn)


def twin_data(cfg, seed, d, n_per_cluster, origin_cluster):
    """The full (rotated) data of ``seed``, its truncated twin in the same frame, and the redrawn count."""
    kw = dict(origin_cluster=origin_cluster, seed=seed)
    full = make_sim(cfg["mu"], cfg["sigma"], d, n_per_cluster, rotate=True, **kw)
    plain = make_sim(cfg["mu"], cfg["sigma"], d, n_per_cluster, rotate=False, **kw)
    cut = make_sim(cfg["mu"], cfg["sigma"], d, n_per_cluster, rotate=False, truncate=True, **kw)
    return full, in_frame(cut, full), int((plain.X != cut.X).any(dim=1).sum())


def in_frame(data, frame):
    """Un-rotated ``data`` turned by the rotation of ``frame`` (whose ``x_hat`` and test points it then shares)."""
    R = frame.rotation
    return data._replace(X=data.X @ R.T, x_hat=data.x_hat @ R.T, rotation=R, test_points=data.test_points @ R.T)


def _train_sets(datas, seeds, *, d, depth, width, activation, lr):
    """Train one MLP per data set (model and shuffling seed ``seeds[i]``) in one batched call."""
    models = [MLP(d, depth, width, activation=activation, seed=s) for s in seeds]
    n_steps = 40 * steps_per_epoch(datas[0].X.shape[0], 128)
    return train_batched(models, datas, seed=list(seeds), lr=lr, record_steps=record_grid(n_steps),
                         record_train_loss=False)


class NearestPoints(NamedTuple):
    """What :func:`nearest_training_points` returns, one entry per draw of the data."""

    nearest: np.ndarray  #: distance of the nearest training point to ``x_hat``, in radii ``min(mu)/2``
    inside: np.ndarray  #: number of training points closer to ``x_hat`` than the radius


def nearest_training_points(mu, sigma, seeds: Sequence[int], *, origin_cluster: bool = True,
                            n_per_cluster: int = 5000) -> NearestPoints:
    """How close the training points of independent draws of the data come to ``x_hat``
    (App. F.3, Fig. 15; ``claim-sim-ood``), in truncation radii ``min(mu)/2``; the draws are
    made at ``d = s``, un-rotated (the distances depend on neither).

    Parameters
    ----------
    mu, sigma : sequence of float
        Cluster distances and standard deviations.
    seeds : sequence of int
        Distinct seeds, one draw each.
    origin_cluster : bool
        Add the cluster at the origin (the authors' two-concept data: yes).
    n_per_cluster : int
        Points per cluster.
    """
    seeds = seed_list("seeds", seeds, distinct=True)
    s = len(np.atleast_1d(mu))
    nearest, inside = [], []
    for sd in seeds:
        data = make_sim(mu, sigma, s, n_per_cluster, origin_cluster=origin_cluster, seed=sd)
        dist = torch.linalg.vector_norm(data.X.double() - data.x_hat.double(), dim=1)
        dist = dist / (float(data.mu.min()) / 2)
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
    """The units of ``claim-ood-fig16`` (App. F.3, Fig. 16): for every configuration and seed a
    full run, its truncated twin (:func:`truncation_twins`), and the wrong model on the same
    twins, a narrow RBF regression (:mod:`swingby.observations.ood_null`) whose output at
    ``x_hat`` is set by the training points near it. Run seeds are ``run_seed(seed, config, d,
    depth, stream)``, stream 0 for the twins and 1 for the RBF centres.

    Parameters
    ----------
    configs : sequence of dict
        Dicts with keys ``mu`` and ``sigma``.
    seeds : sequence of int
        Distinct seeds; one unit per configuration and seed.
    d, depth, activation, lr
        As in :func:`truncation_twins` (origin cluster, 5000 points per cluster).
    bandwidth, n_centers
        The RBF model's kernel width and number of centres.
    """
    configs, seeds, n_concepts = check_configs_seeds(configs, seeds, d)
    check_training(5000 * (n_concepts + 1), 2 * len(configs) * len(seeds), d, depth=depth, width=None,
                    lr=lr, batch_size=128, epochs=40, full_batch=False, loss="mean")
    MLP(d, depth, activation=activation)  # check the model settings before drawing any data
    bandwidth = _checks.positive_float("bandwidth", bandwidth)
    n_centers = _checks.integer("n_centers", n_centers, low=1, high=5000 * (n_concepts + 1))
    own = [run_seed(s, c, d=d, depth=depth) for c in range(len(configs)) for s in seeds]
    center_seeds = [run_seed(s, c, d=d, depth=depth, stream=1) for c in range(len(configs)) for s in seeds]
    cfgs = [cfg for cfg in configs for _ in seeds]
    twins = [twin_data(cfg, s, d, 5000, True) for cfg, s in zip(cfgs, own)]
    m = len(own)
    recs = _train_sets([t[0] for t in twins] + [t[1] for t in twins], own * 2, d=d, depth=depth,
                       width=None, activation=activation, lr=lr)
    full, cut = recs[:m], recs[m:]
    twin = [relative_distance(c, f, at="max") for c, f in zip(cut, full)]
    steps = full[0].steps.astype(int)
    null = [rbf_twin_delta(t[0], t[1], rbf_centers(cfg, cs, t[0].rotation, n_centers),
                           bandwidth=bandwidth, steps=steps)
            for t, cfg, cs in zip(twins, cfgs, center_seeds)]
    return Fig16Units(np.array(twin), np.array(null), np.array([t[2] for t in twins]), full, cut)
