"""The paper's settings and the sweeps of runs of the SIM observations (Sec. 3, App. F.1), by default the
authors' code (``book/authors_code.md``): SGD, lr 0.1, batch 128, 40 epochs, 5000 points per cluster, ``d = 64``
rotated, a cluster at the origin, and their ``sigma`` read as a variance (their "0.05" is 0.224).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from swingby import _checks
from swingby.sim.batched import train_batched
from swingby.sim.data import check_mu_sigma_d, make_sim, std_from_authors_sigma
from swingby.sim.models import ACTIVATIONS, MLP
from swingby.sim.run_checks import seed_list
from swingby.sim.train_loop import TrainRecord, log_steps, schedule

__all__ = ["SIGMA_05", "FIG2A", "FIG2B_SIGMA1_AUTHORS", "FIG2B", "EQUAL_MU", "FIG2C_SETTINGS", "FIG2C_MU",
           "authors_sigma_label", "run_sweep", "fig2c_runs"]

#: The paper's and the authors' "sigma = 0.05", as the standard deviation it was: 0.224.
SIGMA_05 = std_from_authors_sigma(0.05)
#: Fig. 2(a) (and the right panels of Figs. 11, 12): ``sigma = (0.224, 0.224)``, varied ``mu``.
FIG2A = [dict(mu=(m1, 2.0), sigma=(SIGMA_05, SIGMA_05)) for m1 in (1.0, 2.0, 3.0)]
#: The authors' ``sigma_1`` values of Fig. 2(b) (variances in their code).
FIG2B_SIGMA1_AUTHORS = (0.05, 0.1, 0.5, 1.0, 2.0)
#: Fig. 2(b) (and the left panels of Figs. 11, 12): ``mu = (1, 2)``, ``sigma_1`` from :data:`FIG2B_SIGMA1_AUTHORS`.
FIG2B = [dict(mu=(1.0, 2.0), sigma=(std_from_authors_sigma(s1), SIGMA_05)) for s1 in FIG2B_SIGMA1_AUTHORS]
#: Two extra runs (not in the paper) that isolate diversity: equal ``mu``, one wide cluster.
EQUAL_MU = [dict(mu=(2.0, 2.0), sigma=(1.0, SIGMA_05)), dict(mu=(2.0, 2.0), sigma=(SIGMA_05, 1.0))]
#: Fig. 2(c) / Fig. 3 settings per dimension ``d`` (4 linear layers): the authors' at ``d = 2, 64``,
#: the book's interpolation at ``d = 3, 8``.
FIG2C_SETTINGS = {2: dict(width=4, lr=0.01), 3: dict(width=4, lr=0.01),
                  8: dict(width=8, lr=0.01), 64: dict(width=64, lr=0.1)}
#: ``mu`` of Fig. 2(c) / Fig. 3 in the authors' code (the caption says ``(1, 2)``).
FIG2C_MU = (2.0, 4.0)


def authors_sigma_label(sigma) -> str:
    """Caption text for a standard deviation: ``"0.224 (authors' 0.05)"``; the authors'
    number is the variance ``sigma^2`` (see :func:`~swingby.sim.data.std_from_authors_sigma`)."""
    sig = np.atleast_1d(_checks.array("sigma", sigma, ndim=(0, 1), nonneg=True))
    std = ", ".join(f"{v:.3g}" for v in sig)
    var = ", ".join(f"{v * v:.3g}" for v in sig)
    if sig.size > 1:
        std, var = f"({std})", f"({var})"
    return f"{std} (authors' {var})"


def record_grid(n_steps: int, *, every: int = 20, n_log: int = 100) -> np.ndarray:
    """Steps ``0..n_steps`` to record: every ``every``-th, ~``n_log`` log-spaced, the ends of 40 equal intervals."""
    grid = np.union1d(np.arange(0, n_steps + 1, every), log_steps(n_steps, n_log))  # log_steps ends at n_steps
    return np.union1d(grid, np.linspace(0, n_steps, 41).round()).astype(int)  # 40 equal intervals


def run_seed(seed: int, config_index: int, *, d: int, depth: int, stream: int = 0,
             activation: str = "linear") -> int:
    """The seed in ``[0, 2**31)`` of an independent run: numpy's ``SeedSequence`` of all its arguments."""
    entropy = [int(seed), int(config_index), int(d), int(depth), int(stream), 23]
    if activation != "linear":
        entropy.append(ACTIVATIONS.index(activation) + 1)
    return int(np.random.SeedSequence(entropy).generate_state(1)[0]) & 0x7FFFFFFF


def check_configs_seeds(configs, seeds, d) -> tuple[list, list, int]:
    """The ``configs`` and ``seeds`` of a sweep checked, and the number of concepts, else a ValueError."""
    if isinstance(configs, dict) or not hasattr(configs, "__iter__") or not (configs := list(configs)):
        raise ValueError(f"configs must be a non-empty sequence of dicts with keys 'mu' and 'sigma', got {configs!r}")
    for k, c in enumerate(configs):
        if not isinstance(c, dict) or set(c) != {"mu", "sigma"}:
            got = sorted(c) if isinstance(c, dict) else repr(c)
            raise ValueError(f"each config must have exactly the keys 'mu' and 'sigma', configs[{k}] has {got}")
        try:
            check_mu_sigma_d(c["mu"], c["sigma"], d)
        except ValueError as err:
            raise ValueError(f"configs[{k}]: {err}") from None
    n_concepts = {len(np.atleast_1d(c["mu"])) for c in configs}
    if len(n_concepts) > 1:
        raise ValueError(f"all configs must have the same number of concepts len(mu), got {sorted(n_concepts)}")
    return configs, seed_list("seeds", seeds, distinct=True), n_concepts.pop()


def check_sweep(n: int, models: list, **training) -> int:
    """The steps of ``models`` trained on ``n`` points each, sizes and ``training`` checked before data are drawn."""
    d = models[0].d
    _checks.memory(20.0 * len(models) * n * d, f"a sweep of {len(models)} runs with {n} points each in d = {d}")
    return schedule(n, **training, params=sum(p.numel() for m in models for p in m.parameters())).n_steps


def run_sweep(configs: Sequence[dict], *, d: int = 64, depth: int = 1, width: int | None = None,
              activation: str = "linear", bias: bool = True, seeds: Sequence[int] = (0,), origin_cluster: bool = True,
              rotate: bool = True, truncate: bool = False, n_per_cluster: int = 5000, lr: float = 0.1,
              batch_size: int = 128, epochs: int = 40, full_batch: bool = False, loss: str = "mean",
              record_every: int = 20, progress: bool = False, seeding: str = "shared",
              stream: int = 0) -> list[list[TrainRecord]]:
    """``records[c][k]``: one MLP per configuration and seed trained in one batched program (Figs. 2, 3, 7,
    11-16), each what :func:`swingby.sim.train.train` gives with its model, data and seed.

    Parameters
    ----------
    configs, seeds
        Dicts with keys ``mu`` and ``sigma``, and distinct seeds: one run per configuration and seed.
    seeding, stream
        ``"shared"``: run seed ``seeds[k]`` for every configuration (paired); ``"independent"``: ``run_seed``
        of the seed, configuration, ``d``, ``depth``, ``stream`` and activation.
    d, origin_cluster, rotate, truncate, n_per_cluster, depth, width, activation, bias
        As in :func:`~swingby.sim.data.make_sim` and :class:`~swingby.sim.models.MLP`.
    lr, batch_size, epochs, full_batch, loss, progress, record_every
        As in :func:`~swingby.sim.train.train` (``record_every``: spacing of the linear record grid).
    """
    configs, seeds, n_concepts = check_configs_seeds(configs, seeds, d)
    n_clusters = n_concepts + int(_checks.flag("origin_cluster", origin_cluster))
    n = _checks.positive_int("n_per_cluster", n_per_cluster) * n_clusters
    rotate, truncate = _checks.flag("rotate", rotate), _checks.flag("truncate", truncate)
    progress = _checks.flag("progress", progress)
    record_every = _checks.positive_int("record_every", record_every)
    seeding = _checks.choice("seeding", seeding, ("shared", "independent"))
    stream = _checks.integer("stream", stream, low=0)
    _checks.choice("activation", activation, ACTIVATIONS)
    if seeding == "shared":
        run_seeds = [s for _ in configs for s in seeds]
    else:
        run_seeds = [run_seed(s, c, d=d, depth=depth, stream=stream, activation=activation)
                     for c in range(len(configs)) for s in seeds]
    models = [MLP(d, depth, width, activation=activation, bias=bias, seed=s) for s in run_seeds]
    n_steps = check_sweep(n, models, lr=lr, batch_size=batch_size, epochs=epochs, full_batch=full_batch, loss=loss)
    datas = [make_sim(cfg["mu"], cfg["sigma"], d, n_per_cluster, origin_cluster=origin_cluster, rotate=rotate,
                      truncate=truncate, seed=s) for cfg, s in zip([c for c in configs for _ in seeds], run_seeds)]
    recs = train_batched(models, datas, lr=lr, batch_size=batch_size, epochs=epochs,
                         full_batch=full_batch, loss=loss, seed=run_seeds,
                         record_steps=record_grid(n_steps, every=min(record_every, n_steps)),
                         record_train_loss=False, progress=progress)
    for r, dat, rs in zip(recs, datas, run_seeds):
        if seeding == "independent":
            r.config.update(run_seed=rs, seeding=seeding, stream=stream)
        r.config.update(mu=tuple(float(m) for m in dat.mu), sigma=tuple(float(s) for s in dat.sigma),
                        d=d, depth=depth, width=width or d, activation=activation, bias=bias,
                        origin_cluster=bool(origin_cluster), rotate=rotate, truncate=truncate)
    k = len(seeds)
    return [recs[i * k:(i + 1) * k] for i in range(len(configs))]


def fig2c_runs(d: int, seeds: Sequence[int], *, depth: int = 4, mu=FIG2C_MU,
               sigma=(SIGMA_05, SIGMA_05), origin_cluster: bool = True, bias: bool = True,
               progress: bool = False, seeding: str = "shared", stream: int = 0) -> list[TrainRecord]:
    """Runs of Fig. 2(c) / Fig. 3 at ``d`` (2, 3, 8 or 64), one per seed, with :data:`FIG2C_SETTINGS`.

    Parameters
    ----------
    d, seeds, depth
        The dimension; distinct seeds; layers (1: the one-layer control at the same ``d`` and ``lr``).
    mu, sigma, origin_cluster, bias, progress, seeding, stream
        As in :func:`run_sweep`.
    """
    if not _checks.is_integer(d) or d not in FIG2C_SETTINGS:
        raise ValueError(f"d must be one of {sorted(FIG2C_SETTINGS)}, got {d!r}")
    st = FIG2C_SETTINGS[d]
    return run_sweep([dict(mu=mu, sigma=sigma)], d=d, depth=depth, width=st["width"], lr=st["lr"],
                     seeds=seeds, origin_cluster=origin_cluster, bias=bias, progress=progress,
                     seeding=seeding, stream=stream)[0]
