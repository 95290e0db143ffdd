"""The paper's settings and the sweeps of runs of the SIM observations (Sec. 3, App. F.1).

Chapters: ``book/observations.md``, ``book/ood_checks.md``, ``book/topological_order.md``
(and the settings in ``book/sim_task.md``, ``book/one_layer_theory.md``,
``book/authors_code.md``). Every name is imported from :mod:`swingby.observations`.

* The figure settings: :data:`~swingby.observations.runs.SIGMA_05`, :data:`~swingby.observations.runs.FIG2A`, :data:`~swingby.observations.runs.FIG2B`,
  :data:`~swingby.observations.runs.EQUAL_MU`, :data:`~swingby.observations.runs.FIG2C_SETTINGS`, :data:`~swingby.observations.runs.FIG2C_MU`, and
  :func:`~swingby.observations.runs.authors_sigma_label` for their captions.
* :func:`~swingby.observations.runs.run_sweep` trains one MLP per (configuration, seed) with the batched
  engine :func:`swingby.sim.batched.train_batched`, each on its own sampled data set, on the
  steps of :func:`~swingby.observations.runs.record_grid`; :func:`~swingby.observations.runs.fig2c_runs` are the runs of Fig. 2(c) / Fig. 3.

Default settings are those of the authors' code (App. F.1; the book's appendix
``book/authors_code.md`` lists them per figure): SGD, lr 0.1, batch 128, 40 epochs, data
shuffled once, every Linear layer with a bias, PyTorch's default initialisation, the
loss averaged over batch and dimensions, 5000 points per cluster, ``d = 64`` rotated,
and, in every two-concept run, a third cluster of 5000 points at the origin
(``origin_cluster=True``). ``sigma`` is a standard deviation throughout (the book's
convention); the figure settings hold the authors' numbers converted by
:func:`~swingby.sim.data.std_from_authors_sigma` (their "0.05" is a standard deviation 0.224).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from swingby import _checks
from swingby.sim.batched import train_batched
from swingby.sim.data import _check_mu_sigma_d, make_sim, std_from_authors_sigma
from swingby.sim.models import ACTIVATIONS, MLP
from swingby.sim.run_checks import seed_list, work
from swingby.sim.train_loop import LOSSES, TrainRecord, log_steps, steps_per_epoch

#: The paper's and the authors' "sigma = 0.05", as the standard deviation it was: 0.224.
SIGMA_05 = std_from_authors_sigma(0.05)
#: Fig. 2(a) (and the right panels of Figs. 11, 12): the authors' ``sigma = (.05, .05)``
#: (standard deviation 0.224), varied ``mu``.
FIG2A = [dict(mu=(m1, 2.0), sigma=(SIGMA_05, SIGMA_05)) for m1 in (1.0, 2.0, 3.0)]
#: The authors' ``sigma_1`` values of Fig. 2(b) (variances in their code).
FIG2B_SIGMA1_AUTHORS = (0.05, 0.1, 0.5, 1.0, 2.0)
#: Fig. 2(b) (and the left panels of Figs. 11, 12): ``mu = (1, 2)``, varied ``sigma_1``
#: (standard deviations ``sqrt`` of :data:`FIG2B_SIGMA1_AUTHORS`), ``sigma_2`` = 0.224.
FIG2B = [dict(mu=(1.0, 2.0), sigma=(std_from_authors_sigma(s1), SIGMA_05)) for s1 in FIG2B_SIGMA1_AUTHORS]
#: Two extra runs (not in the paper) that isolate diversity: equal ``mu``, one wide cluster.
EQUAL_MU = [dict(mu=(2.0, 2.0), sigma=(1.0, SIGMA_05)), dict(mu=(2.0, 2.0), sigma=(SIGMA_05, 1.0))]
#: Fig. 2(c) / Fig. 3 settings per dimension ``d`` (4 linear layers). ``d = 64`` and
#: ``d = 2`` are the authors' (hidden 64, lr 0.1; hidden 4, lr 0.01); ``d = 3, 8``
#: are the book's interpolation (hidden ``max(4, d)``, lr 0.01).
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
    """Record steps for both kinds of plot: every ``every`` steps (equal-time markers,
    displacement per interval) joined with about ``n_log`` log-spaced steps (log-time
    test-loss curves). Used by :func:`run_sweep` and the explorers.

    Parameters
    ----------
    n_steps : int
        Number of training steps, ``> 0``.
    every : int
        Spacing of the linear grid, ``> 0``.
    n_log : int
        About how many log-spaced steps to add, ``> 0``.

    Returns
    -------
    numpy.ndarray
        Sorted distinct integer steps from 0 to ``n_steps``, including the ends of 40
        equal intervals.
    """
    n_steps = _checks.positive_int("n_steps", n_steps)
    every = _checks.positive_int("every", every)
    _checks.memory(32.0 * (n_steps // every + _checks.positive_int("n_log", n_log)),
                   f"record_grid with n_steps = {n_steps}, every = {every}")
    grid = np.union1d(np.arange(0, n_steps + 1, every), log_steps(n_steps, n_log))
    grid = np.union1d(grid, np.linspace(0, n_steps, 41).round())  # 40 equal intervals
    return np.union1d(grid, [n_steps]).astype(int)


#: How :func:`run_sweep` seeds its runs: ``"shared"`` (run ``(c, k)`` uses ``seeds[k]``
#: for every configuration ``c``, so configurations of one seed share initial weights,
#: rotation, noise and shuffling: a paired design) or ``"independent"`` (each
#: ``(c, k)`` draws its own streams, :func:`run_seed`).
SEEDINGS = ("shared", "independent")


def run_seed(seed: int, config_index: int, *, d: int, depth: int, stream: int = 0,
             activation: str = "linear") -> int:
    """The seed of run ``(config_index, seed)`` of a sweep with ``seeding="independent"``:
    a hash (numpy's ``SeedSequence``) of the seed, the configuration's index, ``d``,
    ``depth``, the activation and a free ``stream`` number, so that no two
    configurations, dimensions, depths or activations of one seed share their initial
    weights, rotation, noise or shuffling (a linear run's hash is the one it had before
    the activation was mixed in).

    Used by :func:`run_sweep` and :func:`fig2c_runs` (``book/observations.md``).

    Parameters
    ----------
    seed : int
        The user's seed, in ``[0, 2**32)``.
    config_index : int
        Index of the configuration in the sweep, ``>= 0``.
    d, depth : int
        Dimension and number of layers of the run, ``> 0``.
    stream : int
        Any further distinction (e.g. a null's data), ``>= 0``.
    activation : {"linear", "relu"}
        The activation of the run's MLP; a ReLU run of a seed shares no stream with the
        linear run of the same seed.

    Returns
    -------
    int
        A seed in ``[0, 2**31)``.
    """
    seed = _checks.seed("seed", seed)
    config_index = _checks.integer("config_index", config_index, low=0)
    d, depth = _checks.positive_int("d", d), _checks.positive_int("depth", depth)
    stream = _checks.integer("stream", stream, low=0)
    entropy = [seed, config_index, d, depth, stream, 23]
    if _checks.choice("activation", activation, ACTIVATIONS) != "linear":
        entropy.append(ACTIVATIONS.index(activation) + 1)
    state = np.random.SeedSequence(entropy).generate_state(1)[0]
    return int(state) & 0x7FFFFFFF


def _check_configs_seeds(configs, seeds, d) -> tuple[list, list, int]:
    """Check the ``configs`` and ``seeds`` of a sweep; return them and the number of concepts."""
    if isinstance(configs, dict) or not hasattr(configs, "__iter__"):
        raise ValueError(f"configs must be a non-empty sequence of dicts with keys 'mu' and 'sigma', got {configs!r}")
    configs = list(configs)
    if not configs:
        raise ValueError("configs must be a non-empty sequence of dicts with keys 'mu' and 'sigma'")
    for k, c in enumerate(configs):
        if not isinstance(c, dict) or set(c) != {"mu", "sigma"}:
            got = sorted(c) if isinstance(c, dict) else repr(c)
            raise ValueError(f"each config must have exactly the keys 'mu' and 'sigma', configs[{k}] has {got}")
        try:
            _check_mu_sigma_d(c["mu"], c["sigma"], d)
        except ValueError as err:
            raise ValueError(f"configs[{k}]: {err}") from None
    n_concepts = {len(np.atleast_1d(c["mu"])) for c in configs}
    if len(n_concepts) > 1:
        raise ValueError(f"all configs must have the same number of concepts len(mu), got {sorted(n_concepts)}")
    return configs, seed_list("seeds", seeds, distinct=True), n_concepts.pop()


def _check_training(n: int, n_runs: int, d: int, *, depth, width, lr, batch_size, epochs, full_batch,
                    loss) -> int:
    """Check the training settings of a sweep before any data is drawn; return the step count."""
    _checks.positive_float("lr", lr)
    _checks.choice("loss", loss, LOSSES)
    spe = 1 if _checks.flag("full_batch", full_batch) else steps_per_epoch(n, batch_size)
    _checks.memory(20.0 * n_runs * n * d, f"a sweep of {n_runs} runs with {n} points each in d = {d}")
    epochs = _checks.positive_int("epochs", epochs)
    depth = _checks.positive_int("depth", depth)
    width = d if width is None else _checks.positive_int("width", width)
    n_params = (d + 1) * (2 * width if depth > 1 else d) + (depth - 2) * (width + 1) * width * (depth > 2)
    bs = n if full_batch else min(batch_size, n)
    work(6.0 * epochs * spe * bs * n_params * n_runs,
                 f"epochs = {epochs} ({epochs * spe} steps of batch {bs}) for {n_runs} runs of {n_params} parameters")
    return epochs * spe


def run_sweep(
    configs: Sequence[dict],
    *,
    d: int = 64,
    depth: int = 1,
    width: int | None = None,
    activation: str = "linear",
    bias: bool = True,
    seeds: Sequence[int] = (0,),
    origin_cluster: bool = True,
    rotate: bool = True,
    truncate: bool = False,
    n_per_cluster: int = 5000,
    lr: float = 0.1,
    batch_size: int = 128,
    epochs: int = 40,
    full_batch: bool = False,
    loss: str = "mean",
    record_every: int = 20,
    progress: bool = False,
    seeding: str = "shared",
    stream: int = 0,
) -> list[list[TrainRecord]]:
    """Train one MLP per configuration and seed, all in one batched program.

    Run ``(c, k)`` uses ``make_sim(**configs[c], d=d, origin_cluster=origin_cluster,
    rotate=rotate, truncate=truncate, seed=seeds[k])`` as data, ``MLP(d, depth, width,
    activation=activation, bias=bias, seed=seeds[k])`` as initial model and
    ``seeds[k]`` as shuffling seed, so run ``(c, k)`` is exactly what
    :func:`swingby.sim.train.train` gives with those arguments. Used for Figs. 2, 3,
    7, 11-16.

    Parameters
    ----------
    configs : dicts with keys ``mu`` and ``sigma`` (as for :func:`~swingby.sim.data.make_sim`).
    seeds : seeds of data, initialisation and shuffling, one run per seed and config.
    origin_cluster : add a cluster of ``n_per_cluster`` points at the origin. On by default:
        the authors' two-concept data always hold it (the paper: "optionally"); their
        multi-concept task (Fig. 7) does not, so ``book/topological_order.md`` passes False.
    record_every : spacing of the linear record grid (see :func:`record_grid`).
    seeding : ``"shared"`` (default: seed ``k`` gives every configuration the same
        initial weights, rotation, noise and shuffling, a paired design) or
        ``"independent"`` (run ``(c, k)`` uses :func:`run_seed`, with the activation
        mixed in, so that runs of different configurations or activations are
        independent replicates).
    stream : with ``seeding="independent"``, a further number mixed into every run's
        seed (e.g. to give a null its own streams), ``>= 0``.
    other arguments : as in :func:`~swingby.sim.data.make_sim`,
        :class:`~swingby.sim.models.MLP` and :func:`~swingby.sim.train.train`.

    Returns
    -------
    ``records[c][k]``, a :class:`~swingby.sim.train_loop.TrainRecord` per config and seed.
    """
    configs, seeds, n_concepts = _check_configs_seeds(configs, seeds, d)
    n_clusters = n_concepts + int(_checks.flag("origin_cluster", origin_cluster))
    n = _checks.positive_int("n_per_cluster", n_per_cluster) * n_clusters
    rotate, truncate = _checks.flag("rotate", rotate), _checks.flag("truncate", truncate)
    progress = _checks.flag("progress", progress)
    n_steps = _check_training(n, len(configs) * len(seeds), d, depth=depth, width=width, lr=lr,
                              batch_size=batch_size, epochs=epochs, full_batch=full_batch, loss=loss)
    record_every = _checks.positive_int("record_every", record_every)
    seeding = _checks.choice("seeding", seeding, SEEDINGS)
    stream = _checks.integer("stream", stream, low=0)
    if seeding == "shared":
        run_seeds = [s for _ in configs for s in seeds]
    else:
        run_seeds = [run_seed(s, c, d=d, depth=depth, stream=stream, activation=activation)
                     for c in range(len(configs)) for s in seeds]
    models = [MLP(d, depth, width, activation=activation, bias=bias, seed=s) for s in run_seeds]
    datas = [make_sim(c["mu"], c["sigma"], d, n_per_cluster, origin_cluster=origin_cluster, rotate=rotate,
                      truncate=truncate, seed=run_seeds[i * len(seeds) + k])
             for i, c in enumerate(configs) for k in range(len(seeds))]
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
    """Runs of Fig. 2(c) / Fig. 3 (and the seed statistics of Sec. 3.3) at dimension
    ``d`` with the settings :data:`FIG2C_SETTINGS`, one per seed. Used in
    ``book/observations.md`` and ``book/ood_checks.md``.

    Parameters
    ----------
    d : int
        One of the keys of :data:`FIG2C_SETTINGS` (2, 3, 8 or 64).
    seeds : sequence of int
        Distinct seeds, one run each.
    depth : int
        Number of layers; 1 gives the one-layer control at the same ``d`` and ``lr``.
    mu : sequence of float
        Cluster distances (default: the authors' ``(2, 4)``).
    sigma : sequence of float
        Standard deviations (default: the authors' 0.05 as the standard deviation 0.224).
    origin_cluster : bool
        Add the cluster at the origin (the authors' code: yes).
    bias : bool
        Linear layers with bias (the authors' code: yes).
    progress : bool
        Show a progress bar.
    seeding : {"shared", "independent"}
        As in :func:`run_sweep`; ``"independent"`` mixes ``d`` and ``depth`` into every
        run's seed (:func:`run_seed`), so runs at different ``d`` share no streams.
    stream : int
        As in :func:`run_sweep` (e.g. to give a null its own streams), ``>= 0``.

    Returns
    -------
    list of TrainRecord
        One per seed, as :func:`run_sweep` makes them.
    """
    if not _checks.is_integer(d) or d not in FIG2C_SETTINGS:
        raise ValueError(f"d must be one of {sorted(FIG2C_SETTINGS)}, got {d!r}")
    st = FIG2C_SETTINGS[d]
    return run_sweep([dict(mu=mu, sigma=sigma)], d=d, depth=depth, width=st["width"], lr=st["lr"],
                     seeds=seeds, origin_cluster=origin_cluster, bias=bias, progress=progress,
                     seeding=seeding, stream=stream)[0]
