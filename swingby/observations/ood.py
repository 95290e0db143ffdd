"""Out-of-distribution checks (App. F.3, Figs. 15, 16): distances of the output at
``x_hat`` and the truncation twins.

:func:`~swingby.observations.ood.relative_distance` measures how far a run's output trajectory at ``x_hat`` is
from ``x_hat`` or from another run's; :func:`~swingby.observations.ood.truncation_twins` trains every
(config, seed) on the full and on the truncated training set with everything else the
same. Used in ``book/ood_checks.md`` and ``book/observations.md``. Every name is
imported from :mod:`swingby.observations`.
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np

from swingby import _checks
from swingby.observations.learning import _record, _x_hat_norm
from swingby.observations.runs import _check_configs_seeds, _check_training, record_grid
from swingby.sim.batched import train_batched
from swingby.sim.data import make_sim
from swingby.sim.models import MLP
from swingby.sim.train_loop import TrainRecord, steps_per_epoch

#: Where :func:`relative_distance` measures: ``"end"`` (the last record) or ``"max"``
#: (the largest distance over the records).
DISTANCE_AT = ("end", "max")


def relative_distance(rec: TrainRecord, reference: TrainRecord | None = None, *, at: str = "end") -> float:
    """Distance of the output trajectory at ``x_hat`` from a reference, relative to
    ``||x_hat||``.

    The reference is ``x_hat`` itself (0: the run generalised out of distribution;
    ``book/observations.md``), or the trajectory of another run recorded at the same
    steps (the ``delta`` of eq. ood-delta, ``book/ood_checks.md``).

    Parameters
    ----------
    rec : TrainRecord
        A finite run.
    reference : TrainRecord or None
        ``None`` for ``x_hat``, or a finite run recorded at the same steps as ``rec``.
    at : {"end", "max"}
        ``"end"``: the distance at the last record; ``"max"``: the largest over the records.

    Returns
    -------
    float
        The distance divided by ``||x_hat||`` (``x_hat`` of ``rec``).
    """
    rec = _record("rec", rec)
    at = _checks.choice("at", at, DISTANCE_AT)
    if reference is None:
        target = rec.test_points[-1]
    else:
        reference = _record("reference", reference)
        if reference.trajectory.shape != rec.trajectory.shape or not np.array_equal(reference.steps, rec.steps):
            raise ValueError("reference must be recorded at the same steps as rec (same trajectory shape "
                             f"{rec.trajectory.shape}), got shape {reference.trajectory.shape}")
        target = reference.trajectory
    if at == "end":
        gap = np.linalg.norm(rec.trajectory[-1] - (target if reference is None else target[-1]))
    else:
        gap = np.linalg.norm(rec.trajectory - target, axis=1).max()
    return float(gap / _x_hat_norm(rec))


def _rotated(data, rotation):
    """An un-rotated :class:`~swingby.sim.data.SimData` expressed in the frame ``rotation``."""
    return data._replace(X=data.X @ rotation.T, x_hat=data.x_hat @ rotation.T, rotation=rotation,
                         test_points=data.test_points @ rotation.T)


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
    """Runs of App. F.3 / Fig. 16: every (config, seed) trained on the full and on
    the truncated training set, with the same rotation, initial weights and shuffling,
    so that the two runs differ only in the redrawn points (within ``min(mu)/2`` of
    ``x_hat``). Used in ``book/ood_checks.md``.

    ``make_sim(..., truncate=True)`` draws the redrawn points from the same generator
    before the rotation, which would change the rotation; here both sets are sampled
    un-rotated and turned by the rotation of the full set.

    Parameters
    ----------
    configs : sequence of dict
        Dicts with keys ``mu`` and ``sigma``, as for :func:`~swingby.observations.runs.run_sweep`.
    seeds : sequence of int
        Distinct seeds, one pair of runs per config and seed.
    d, depth, width, lr, n_per_cluster, origin_cluster
        As in :func:`~swingby.observations.runs.run_sweep` (SGD, batch 128, 40 epochs).
    activation : {"linear", "relu"}
        The hidden layers' activation. A linear model of any depth sees the data only
        through their first and second moments, so it cannot copy near points; a ReLU
        model can.

    Returns
    -------
    TruncationTwins
        ``(full[c][k], truncated[c][k], n_redrawn[c, k])``.
    """
    configs, seeds, n_concepts = _check_configs_seeds(configs, seeds, d)
    n_clusters = n_concepts + int(_checks.flag("origin_cluster", origin_cluster))
    n = _checks.positive_int("n_per_cluster", n_per_cluster) * n_clusters
    _check_training(n, 2 * len(configs) * len(seeds), d, depth=depth, width=width, lr=lr, batch_size=128,
                    epochs=40, full_batch=False, loss="mean")
    MLP(d, depth, width, activation=activation)  # check the model settings before drawing any data
    datas, n_redrawn = [], np.zeros((len(configs), len(seeds)), dtype=int)
    for c, cfg in enumerate(configs):
        for k, s in enumerate(seeds):
            kw = dict(origin_cluster=origin_cluster, seed=s)
            full = make_sim(cfg["mu"], cfg["sigma"], d, n_per_cluster, rotate=True, **kw)
            plain = make_sim(cfg["mu"], cfg["sigma"], d, n_per_cluster, rotate=False, **kw)
            cut = make_sim(cfg["mu"], cfg["sigma"], d, n_per_cluster, rotate=False, truncate=True, **kw)
            n_redrawn[c, k] = int((plain.X != cut.X).any(dim=1).sum())
            datas.append((full, _rotated(cut, full.rotation)))
    kw = dict(lr=lr, record_train_loss=False)
    out = []
    for which in (0, 1):
        models = [MLP(d, depth, width, activation=activation, seed=s) for _ in configs for s in seeds]
        ds_ = [pair[which] for pair in datas]
        n_steps = 40 * steps_per_epoch(ds_[0].X.shape[0], 128)
        recs = train_batched(models, ds_, seed=[s for _ in configs for s in seeds],
                             record_steps=record_grid(n_steps), **kw)
        k = len(seeds)
        out.append([recs[i * k:(i + 1) * k] for i in range(len(configs))])
    return TruncationTwins(out[0], out[1], n_redrawn)
