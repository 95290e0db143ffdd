"""Sweeps and metrics for the SIM observations (Sec. 3, App. B, App. F).

Chapters: ``book/observations.md`` (Figs. 2, 3, 11-14), ``book/ood_checks.md``
(Figs. 15, 16) and ``book/topological_order.md`` (Fig. 7, eq. B.2).

* :func:`run_sweep` trains one MLP per (configuration, seed) with the batched
  engine :func:`swingby.train.train_batched`, each on its own sampled data set.
* Metrics computed on a :class:`~swingby.train.TrainRecord`:
  :func:`learning_times` (which concept is learned first, Sec. 3.1),
  :func:`displacement_per_interval` (terminal slowing down, Sec. 3.2),
  :func:`loss_rise` (non-monotone OOD test loss, Sec. 3.3) and
  :func:`order_property` (the order homomorphism of eq. B.2).

Default settings are those of the authors' code (App. F.1; the book's appendix
``book/authors_code.md`` lists them per figure): SGD, lr 0.1, batch 128, 40 epochs, data
shuffled once, every Linear layer with a bias, PyTorch's default initialisation, the
loss averaged over batch and dimensions, 5000 points per cluster, ``d = 64`` rotated,
and, in every two-concept run, a third cluster of 5000 points at the origin
(``origin_cluster=True``). ``sigma`` is a standard deviation throughout (the book's
convention); the figure settings below hold the authors' numbers converted by
:func:`~swingby.sim.std_from_authors_sigma` (their "0.05" is a standard deviation 0.224).
"""
from __future__ import annotations

from typing import Mapping, NamedTuple, Sequence

import numpy as np

from swingby import _checks
from swingby.models import MLP
from swingby.sim import _check_mu_sigma_d, make_sim, std_from_authors_sigma
from swingby.train import LOSSES, TrainRecord, log_steps, steps_per_epoch, train_batched

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


def authors_sigma_label(sigma) -> str:
    """Caption text for a standard deviation: ``"0.224 (authors' 0.05)"``; the authors'
    number is the variance ``sigma^2`` (see :func:`~swingby.sim.std_from_authors_sigma`)."""
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
    return configs, _checks.seed_list("seeds", seeds, distinct=True), n_concepts.pop()


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
    _checks.work(6.0 * epochs * spe * bs * n_params * n_runs,
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
) -> list[list[TrainRecord]]:
    """Train one MLP per configuration and seed, all in one batched program.

    Run ``(c, k)`` uses ``make_sim(**configs[c], d=d, origin_cluster=origin_cluster,
    rotate=rotate, truncate=truncate, seed=seeds[k])`` as data, ``MLP(d, depth, width,
    activation=activation, bias=bias, seed=seeds[k])`` as initial model and
    ``seeds[k]`` as shuffling seed, so run ``(c, k)`` is exactly what
    :func:`swingby.train.train` gives with those arguments. Used for Figs. 2, 3,
    7, 11-16.

    Parameters
    ----------
    configs : dicts with keys ``mu`` and ``sigma`` (as for :func:`~swingby.sim.make_sim`).
    seeds : seeds of data, initialisation and shuffling, one run per seed and config.
    origin_cluster : add a cluster of ``n_per_cluster`` points at the origin. On by default:
        the authors' two-concept data always hold it (the paper: "optionally"); their
        multi-concept task (Fig. 7) does not, so ``book/topological_order.md`` passes False.
    record_every : spacing of the linear record grid (see :func:`record_grid`).
    other arguments : as in :func:`~swingby.sim.make_sim`,
        :class:`~swingby.models.MLP` and :func:`~swingby.train.train`.

    Returns
    -------
    ``records[c][k]``, a :class:`~swingby.train.TrainRecord` per config and seed.
    """
    configs, seeds, n_concepts = _check_configs_seeds(configs, seeds, d)
    n_clusters = n_concepts + int(_checks.flag("origin_cluster", origin_cluster))
    n = _checks.positive_int("n_per_cluster", n_per_cluster) * n_clusters
    rotate, truncate = _checks.flag("rotate", rotate), _checks.flag("truncate", truncate)
    progress = _checks.flag("progress", progress)
    n_steps = _check_training(n, len(configs) * len(seeds), d, depth=depth, width=width, lr=lr,
                              batch_size=batch_size, epochs=epochs, full_batch=full_batch, loss=loss)
    record_every = _checks.positive_int("record_every", record_every)
    models = [MLP(d, depth, width, activation=activation, bias=bias, seed=s) for _ in configs for s in seeds]
    datas = [make_sim(c["mu"], c["sigma"], d, n_per_cluster, origin_cluster=origin_cluster, rotate=rotate,
                      truncate=truncate, seed=s) for c in configs for s in seeds]
    run_seeds = [s for _ in configs for s in seeds]
    recs = train_batched(models, datas, lr=lr, batch_size=batch_size, epochs=epochs,
                         full_batch=full_batch, loss=loss, seed=run_seeds,
                         record_steps=record_grid(n_steps, every=min(record_every, n_steps)),
                         record_train_loss=False, progress=progress)
    for r, dat in zip(recs, datas):
        r.config.update(mu=tuple(float(m) for m in dat.mu), sigma=tuple(float(s) for s in dat.sigma),
                        d=d, depth=depth, width=width or d, activation=activation, bias=bias,
                        origin_cluster=bool(origin_cluster), rotate=rotate, truncate=truncate)
    k = len(seeds)
    return [recs[i * k:(i + 1) * k] for i in range(len(configs))]


def _record(name: str, rec, *, finite: bool = True) -> TrainRecord:
    """``rec`` if it is a :class:`TrainRecord` (with finite outputs, when ``finite``), else raise."""
    _checks.instance(name, rec, TrainRecord, "swingby.train.TrainRecord")
    if finite and not (np.all(np.isfinite(rec.outputs)) and np.all(np.isfinite(rec.test_loss))):
        at = rec.config.get("diverged_at_step")
        raise ValueError(
            f"{name} holds NaN or infinite outputs: the run diverged"
            f"{'' if at is None else f' after step {at}'} (lr = {rec.config.get('lr', '?')}); "
            "its metrics would be meaningless, so they are refused (train with a smaller lr)")
    return rec


def _x_hat_norm(rec: TrainRecord) -> float:
    norm = float(np.linalg.norm(rec.test_points[-1]))
    if norm == 0:
        raise ValueError("rec has x_hat = 0 (every mu_p = 0); the metric divides by ||x_hat||")
    return norm


def progress_along_concepts(rec: TrainRecord) -> np.ndarray:
    """``(R, s)`` fraction of the way the output at ``x_hat`` has moved along each
    concept: ``(y_p(t) - y_p(0)) / (mu_p - y_p(0))`` (1 = concept ``p`` learned)."""
    rec = _record("rec", rec)
    s = rec.test_index.shape[1]
    mu = rec.test_points[-1, :s]
    y = rec.trajectory[:, :s]
    if np.any(mu == y[0]):
        raise ValueError(f"rec starts at y_p(0) = mu_p for concept(s) {np.flatnonzero(mu == y[0]).tolist()}: "
                         "the progress towards mu_p is undefined there")
    return (y - y[0]) / (mu - y[0])


def learning_times(rec: TrainRecord, frac: float = 0.5) -> np.ndarray:
    """Epoch at which the output at ``x_hat`` first covers ``frac`` of the way to
    ``mu_p e_p`` along each concept ``p`` (``inf`` if never): the generalisation
    order of Sec. 3.1 is the order of these times (eq. obs-learning-time,
    ``book/observations.md``).

    Parameters
    ----------
    rec : TrainRecord
        A finite run whose output does not start at ``mu_p`` along any concept.
    frac : float
        Share of the way, in ``(0, 1]``.

    Returns
    -------
    numpy.ndarray
        ``(s,)`` epochs, one per concept.
    """
    value = _checks.as_real(frac)
    if value is None or not 0 < value <= 1:
        raise ValueError(f"frac must lie in (0, 1], got {frac!r}")
    frac = value
    q = progress_along_concepts(rec)
    times = np.full(q.shape[1], np.inf)
    for p in range(q.shape[1]):
        hit = np.flatnonzero(q[:, p] >= frac)
        if hit.size:
            times[p] = rec.epochs[hit[0]]
    return times


class Displacements(NamedTuple):
    """What :func:`displacement_per_interval` returns (unpacks as ``mids, dist``)."""

    mid_epochs: np.ndarray  #: ``(n_intervals,)`` epoch at the middle of each interval
    distances: np.ndarray  #: ``(n_intervals,)`` distance moved in each interval


def displacement_per_interval(rec: TrainRecord, n_intervals: int = 20) -> Displacements:
    """Distance the output at ``x_hat`` moves in each of ``n_intervals`` equal
    training-time intervals (the spacing of the paper's arrows, Sec. 3.2).

    Used in ``book/observations.md`` (eq. obs-displacement).

    Parameters
    ----------
    rec : TrainRecord
        A finite run recorded near the interval ends (:func:`record_grid` does this).
    n_intervals : int
        Number of equal training-time intervals, ``> 0``.

    Returns
    -------
    Displacements
        ``(mid_epochs, distances)``, one entry per interval.
    """
    rec = _record("rec", rec)
    n_intervals = _checks.positive_int("n_intervals", n_intervals)
    _checks.memory(16.0 * (n_intervals + 1) * len(rec.steps), f"n_intervals = {n_intervals}")
    idx = marker_indices(rec, n_intervals)
    ends = np.linspace(0, rec.steps[-1], n_intervals + 1)
    if np.any(np.abs(rec.steps[idx] - ends) > 0.1 * rec.steps[-1] / n_intervals):
        raise ValueError("the record has no steps near the interval ends; record on a finer grid")
    traj = rec.trajectory[idx]
    dist = np.linalg.norm(np.diff(traj, axis=0), axis=1)
    mids = 0.5 * (rec.epochs[idx][1:] + rec.epochs[idx][:-1])
    return Displacements(mids, dist)


def marker_indices(rec: TrainRecord, n_markers: int = 10) -> np.ndarray:
    """Indices of the records at the ends of ``n_markers`` equal training-time intervals
    (the arrows of Fig. 2; ``book/observations.md``).

    Parameters
    ----------
    rec : TrainRecord
        A run.
    n_markers : int
        Number of intervals, ``> 0``.

    Returns
    -------
    numpy.ndarray
        ``(n_markers + 1,)`` record indices, nearest to the interval ends.
    """
    rec = _record("rec", rec, finite=False)
    n_markers = _checks.positive_int("n_markers", n_markers)
    _checks.memory(16.0 * (n_markers + 1) * len(rec.steps), f"n_markers = {n_markers} with {len(rec.steps)} records")
    ends = np.linspace(0, rec.steps[-1], n_markers + 1)
    return np.abs(rec.steps[None, :] - ends[:, None]).argmin(axis=1)


def loss_rise(test_loss: np.ndarray, scale: float | None = None) -> float:
    """Size of the largest rise of a loss curve above its running minimum:
    ``max_t [L(t) - min_{t' <= t} L(t')] / scale`` (eq. obs-rise).

    The chapters use ``scale = 0.5 * ||x_hat||^2`` (:func:`record_rise`), the loss of the
    zero output, which does not depend on a lucky initialisation. 0 for a monotone
    non-increasing curve. A curve is called *non-monotone* when this exceeds a threshold
    chosen above the SGD noise (see ``book/observations.md``).

    Parameters
    ----------
    test_loss : array_like(float, ndim=1)
        The loss curve, finite, at least 2 values.
    scale : float or None
        The unit of the rise, ``> 0``; ``None`` for ``test_loss[0]``.

    Returns
    -------
    float
        The rise, ``>= 0``.
    """
    L = _checks.array("test_loss", test_loss, min_size=0, finite=False)
    if L.ndim != 1 or L.size < 2:
        raise ValueError(f"test_loss must be a 1-D curve of length >= 2, got shape {L.shape}")
    if not np.all(np.isfinite(L)):
        raise ValueError("test_loss must be finite (no NaN or inf); a NaN loss means the run diverged")
    value = L[0] if scale is None else _checks.as_real(scale)
    if value is None or not 0 < value < np.inf:
        raise ValueError(f"scale must be > 0 and finite (default: test_loss[0]), got {scale!r}")
    scale = value
    return float(np.max(L - np.minimum.accumulate(L)) / scale)


def record_rise(rec: TrainRecord) -> float:
    """:func:`loss_rise` of a record's OOD test loss, relative to ``0.5 * ||x_hat||^2``."""
    rec = _record("rec", rec)
    return loss_rise(rec.test_loss, 0.5 * _x_hat_norm(rec) ** 2)


def _record_list(name: str, records) -> list[TrainRecord]:
    """A non-empty sequence of finite :class:`TrainRecord` s, as a list, else raise."""
    if isinstance(records, (TrainRecord, str, bytes)) or not hasattr(records, "__iter__"):
        raise ValueError(f"{name} must be a non-empty sequence of TrainRecord, got {type(records).__name__}")
    records = [_record(f"{name}[{k}]", r) for k, r in enumerate(records)]
    if not records:
        raise ValueError(f"{name} must be a non-empty sequence of TrainRecord, got an empty one")
    return records


class SeedStatistics(NamedTuple):
    """What :func:`seed_statistics` returns: the rises of a set of runs, one per seed."""

    n: int  #: number of runs
    rises: np.ndarray  #: ``(n,)`` :func:`record_rise` of every run
    fraction: float  #: share of the runs whose rise is above the threshold (non-monotone)
    mean_rise: float  #: mean of ``rises``
    max_rise: float  #: largest of ``rises``


def seed_statistics(records: Sequence[TrainRecord], threshold: float) -> SeedStatistics:
    """Fraction of runs whose test loss is non-monotone (:func:`record_rise` above
    ``threshold``), and the mean and largest rise, over ``records`` (one per seed).

    Used in ``book/observations.md`` (Sec. 3.3, Figs. 13, 14).

    Parameters
    ----------
    records : sequence of TrainRecord
        Finite runs, one per seed, non-empty.
    threshold : float
        The rise ``tau >= 0`` above which a run counts as non-monotone.

    Returns
    -------
    SeedStatistics
        ``n``, ``rises``, ``fraction``, ``mean_rise`` and ``max_rise``.
    """
    records = _record_list("records", records)
    threshold = _checks.number("threshold", threshold, low=0)
    rises = np.array([record_rise(r) for r in records])
    return SeedStatistics(n=len(rises), rises=rises, fraction=float((rises > threshold).mean()),
                          mean_rise=float(rises.mean()), max_rise=float(rises.max()))


def _statistics_by_d(stats, low_d, high_d) -> tuple[list[int], int]:
    """Check a ``{d: SeedStatistics}`` mapping and the dimensions ``low_d``, ``high_d`` read from it."""
    if not isinstance(stats, Mapping) or not all(isinstance(v, SeedStatistics) for v in stats.values()):
        raise ValueError("stats must be a dict {d: SeedStatistics} (from seed_statistics), "
                         f"got {_checks.short_repr(stats)}")
    if isinstance(low_d, (str, bytes)) or not hasattr(low_d, "__iter__") or not list(low_d):
        raise ValueError(f"low_d must be a non-empty sequence of dimensions, got {low_d!r}")
    low_d = list(low_d)
    missing = [d for d in low_d + [high_d] if d not in stats]
    if missing:
        raise ValueError(f"stats has no entry for d = {missing} (low_d = {low_d}, high_d = {high_d!r}); "
                         f"it holds d = {sorted(stats)}")
    return low_d, high_d


def low_vs_high_pvalue(stats: Mapping[int, SeedStatistics], threshold: float, *,
                       low_d: Sequence[int] = (2, 3, 8), high_d: int = 64) -> float:
    """Permutation p-value (:func:`permutation_pvalue`) that runs are non-monotone more
    often at the low dimensions ``low_d`` (pooled) than at ``high_d``.

    Used in ``book/observations.md`` (claim of Sec. 3.3), on the four-layer runs and on
    their one-layer null.

    Parameters
    ----------
    stats : dict of int to SeedStatistics
        :func:`seed_statistics` per dimension ``d``.
    threshold : float
        The rise ``tau >= 0`` above which a run counts as non-monotone.
    low_d : sequence of int
        The low dimensions, pooled.
    high_d : int
        The high dimension.

    Returns
    -------
    float
        The one-sided p-value in ``(0, 1]``.
    """
    low_d, high_d = _statistics_by_d(stats, low_d, high_d)
    threshold = _checks.number("threshold", threshold, low=0)
    flags = [(stats[d].rises > threshold).astype(float) for d in low_d]
    return permutation_pvalue(np.concatenate(flags), (stats[high_d].rises > threshold).astype(float))


def swingby_check(stats: Mapping[int, SeedStatistics], rise_low: float, rise_high: float, pvalue: float, *,
                  threshold: float, low_d: Sequence[int] = (2, 3, 8), high_d: int = 64,
                  min_fraction: float = 0.1, alpha: float = 0.05) -> bool:
    """The claim check of Sec. 3.3 (transient memorization is strongest at low ``d``), as a
    function of the statistics, so that the same check runs on the one-layer null.

    It holds when the shown low-dimensional run rises above ``threshold`` while its
    high-dimensional twin stays below ``threshold / 4``, at least ``min_fraction`` of the
    runs are non-monotone at every ``d`` in ``low_d`` and none at ``high_d``, and the
    p-value of :func:`low_vs_high_pvalue` is below ``alpha``. Used in
    ``book/observations.md``.

    Parameters
    ----------
    stats : dict of int to SeedStatistics
        :func:`seed_statistics` per dimension ``d``.
    rise_low, rise_high : float
        :func:`record_rise` of the shown run at low ``d`` and of its twin at ``high_d``.
    pvalue : float
        From :func:`low_vs_high_pvalue`, in ``[0, 1]``.
    threshold : float
        The rise ``tau >= 0`` above which a run counts as non-monotone.
    low_d : sequence of int
        The low dimensions.
    high_d : int
        The high dimension.
    min_fraction : float
        Least share of non-monotone runs at each low ``d``, in ``[0, 1]``.
    alpha : float
        Significance level, in ``(0, 1]``.

    Returns
    -------
    bool
        Whether the claim holds for these statistics.
    """
    low_d, high_d = _statistics_by_d(stats, low_d, high_d)
    rise_low = _checks.number("rise_low", rise_low, low=0)
    rise_high = _checks.number("rise_high", rise_high, low=0)
    pvalue = _checks.number("pvalue", pvalue, low=0, high=1)
    threshold = _checks.number("threshold", threshold, low=0)
    min_fraction = _checks.number("min_fraction", min_fraction, low=0, high=1)
    alpha = _checks.number("alpha", alpha, low=0, high=1, low_open=True)
    return bool(rise_low > threshold and rise_high < threshold / 4
                and min(stats[d].fraction for d in low_d) >= min_fraction
                and stats[high_d].fraction == 0.0 and pvalue < alpha)


#: Rules :func:`order_agreement` can test: ``"a"`` (the concept with the larger ``a_p`` is
#: learned first, Sec. 4.1) and ``"mu"`` (the larger ``mu_p``: the null that ignores diversity).
ORDER_RULES = ("a", "mu")


class OrderAgreement(NamedTuple):
    """What :func:`order_agreement` returns."""

    clear: int  #: runs whose ``a_p`` differ clearly (largest above ``margin`` times smallest)
    agree: int  #: of those, the runs where the rule's concept is learned first


def order_agreement(records: Sequence[TrainRecord], rule: str = "a", *, margin: float = 1.2) -> OrderAgreement:
    """How often a rule predicts which concept is learned first (Sec. 3.1).

    Among the runs whose ``a_p`` (:func:`a_diagonal`) differ clearly, count those where
    the concept the rule picks has the smallest :func:`learning_times`. Used in
    ``book/observations.md`` (Figs. 2a, 2b, 11, 12).

    Parameters
    ----------
    records : sequence of TrainRecord
        Finite runs from :func:`run_sweep`, non-empty.
    rule : {"a", "mu"}
        ``"a"``: the larger ``a_p`` is learned first; ``"mu"``: the larger ``mu_p`` (the
        null that ignores diversity).
    margin : float
        A run is clear when ``max(a) > margin * min(a)``; ``>= 1``.

    Returns
    -------
    OrderAgreement
        ``(clear, agree)``: the clear runs and how many of them the rule gets right.
    """
    records = _record_list("records", records)
    rule = _checks.choice("rule", rule, ORDER_RULES)
    margin = _checks.number("margin", margin, low=1)
    clear = agree = 0
    for rec in records:
        a, t = a_diagonal(rec), learning_times(rec)
        if max(a) > margin * min(a):
            clear += 1
            predicted = int(np.argmax(a)) if rule == "a" else int(np.argmax(rec.config["mu"]))
            agree += int(predicted == np.argmin(t))
    return OrderAgreement(clear, agree)


def slowdown(rec: TrainRecord, n_intervals: int = 20) -> float:
    """Terminal slowing down (Sec. 3.2): mean distance moved per interval over the last
    quarter of the ``n_intervals`` intervals, divided by the largest distance
    (:func:`displacement_per_interval`). A path walked at constant speed gives 1.

    Used in ``book/observations.md``.

    Parameters
    ----------
    rec : TrainRecord
        A finite run whose output moves.
    n_intervals : int
        Number of equal training-time intervals, ``> 0``.

    Returns
    -------
    float
        The ratio, in ``[0, 1]``.
    """
    n_intervals = _checks.positive_int("n_intervals", n_intervals)
    _, dist = displacement_per_interval(rec, n_intervals)
    if dist.max() == 0:
        raise ValueError("rec has an output at x_hat that never moves: its slowing down is undefined")
    return float(dist[-n_intervals // 4:].mean() / dist.max())


def permutation_pvalue(x: Sequence[float], y: Sequence[float], *, n_resamples: int = 10_000,
                       seed: int = 0) -> float:
    """One-sided permutation test that ``mean(x) > mean(y)`` is not chance.

    Pools ``x`` and ``y``, reassigns the group labels at random ``n_resamples`` times and
    returns the share of reassignments whose mean difference is at least the observed one
    (with the observed assignment counted, so never 0). Used in ``book/observations.md``
    to ask whether swing-by is more frequent at low ``d`` than at ``d = 64``.

    Parameters
    ----------
    x, y : array_like(float, ndim=1)
        The two samples (e.g. indicators "non-monotone" or rises per seed), each non-empty.
    n_resamples : int
        Number of random reassignments, ``> 0``.
    seed : int
        Seed of the reassignments.

    Returns
    -------
    float
        The p-value in ``(0, 1]``.
    """
    x = _checks.array("x", x, min_size=0, finite=False)
    y = _checks.array("y", y, min_size=0, finite=False)
    if x.ndim != 1 or y.ndim != 1 or x.size == 0 or y.size == 0:
        raise ValueError(f"x and y must be non-empty 1-D samples, got shapes {x.shape} and {y.shape}")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("x and y must be finite")
    n_resamples = _checks.positive_int("n_resamples", n_resamples)
    _checks.memory(24.0 * n_resamples * (x.size + y.size), f"n_resamples = {n_resamples} with {x.size + y.size} values")
    pooled = np.concatenate([x, y])
    observed = x.mean() - y.mean()
    rng = np.random.default_rng(_checks.seed("seed", seed))
    perm = rng.permuted(np.broadcast_to(pooled, (n_resamples, pooled.size)), axis=1)
    diffs = perm[:, : x.size].mean(axis=1) - perm[:, x.size:].mean(axis=1)
    return float((1 + np.sum(diffs >= observed - 1e-12)) / (n_resamples + 1))


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


#: Most rows :func:`comparable_pairs` accepts: ``2**12`` (``s = 12`` concepts), because it
#: compares every pair of rows (``4**s`` comparisons) and returns about ``3**s`` pairs.
MAX_PAIR_ROWS = 2**12


def _check_test_index(test_index) -> np.ndarray:
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
    lexicographic order of ``(i, j)``. ``test_index`` has at most :data:`MAX_PAIR_ROWS` rows."""
    V = _check_test_index(test_index)
    le = np.ones((len(V), len(V)), dtype=bool)
    for p in range(V.shape[1]):
        le &= V[:, None, p] <= V[None, :, p]
    np.fill_diagonal(le, False)
    return list(zip(*(idx.tolist() for idx in np.nonzero(le))))


def order_property(rec: TrainRecord, *, skip_initial: bool = True,
                   exclude_origin: bool = False) -> np.ndarray:
    """Per recorded time, the fraction of comparable pairs ``u <= v`` that satisfy
    the order property of eq. (B.2): ``loss(x^(u)) <= loss(x^(v))``. Used in
    ``book/topological_order.md``.

    Parameters
    ----------
    rec : TrainRecord
        A finite run.
    skip_initial : bool
        Drop step 0 (the untrained model, which eq. B.2 is not about).
    exclude_origin : bool
        Drop the pairs with ``u = 0`` (the origin).

    Returns
    -------
    numpy.ndarray
        ``(R,)`` fractions in ``[0, 1]``, one per kept record.
    """
    rec = _record("rec", rec)
    L = rec.test_point_losses()
    if _checks.flag("skip_initial", skip_initial) and rec.steps[0] == 0:
        L = L[1:]
    if len(L) == 0:
        raise ValueError("rec has no records after step 0 (skip_initial=True drops the initial model)")
    exclude_origin = _checks.flag("exclude_origin", exclude_origin)
    pairs = np.array(comparable_pairs(rec.test_index))
    if exclude_origin:
        pairs = pairs[np.asarray(rec.test_index)[pairs[:, 0]].sum(axis=1) > 0]
    ok = L[:, pairs[:, 0]] <= L[:, pairs[:, 1]]
    return ok.mean(axis=1)


def hypercube_learning_times(rec: TrainRecord, level: float = 0.1) -> np.ndarray:
    """Learning time ``T(v)`` of every test point of eq. (B.1): the first recorded epoch
    at which its loss is at most ``level`` (``inf`` if never). Eq. (B.2) read as learning
    times is ``u <= v  =>  T(u) <= T(v)``; used in ``book/topological_order.md``.

    Parameters
    ----------
    rec : TrainRecord
        A finite run.
    level : float
        Loss at which a test point counts as learned, ``> 0`` (the chapter: 0.1, a tenth
        of Fig. 7's colour scale).

    Returns
    -------
    numpy.ndarray
        ``(2**s,)`` epochs, in the order of ``rec.test_index``.
    """
    rec = _record("rec", rec)
    level = _checks.positive_float("level", level)
    below = rec.test_point_losses() <= level
    return np.where(below.any(axis=0), rec.epochs[np.argmax(below, axis=0)], np.inf)


#: Fig. 2(c) / Fig. 3 settings per dimension ``d`` (4 linear layers). ``d = 64`` and
#: ``d = 2`` are the authors' (hidden 64, lr 0.1; hidden 4, lr 0.01); ``d = 3, 8``
#: are the book's interpolation (hidden ``max(4, d)``, lr 0.01).
FIG2C_SETTINGS = {2: dict(width=4, lr=0.01), 3: dict(width=4, lr=0.01),
                  8: dict(width=8, lr=0.01), 64: dict(width=64, lr=0.1)}
#: ``mu`` of Fig. 2(c) / Fig. 3 in the authors' code (the caption says ``(1, 2)``).
FIG2C_MU = (2.0, 4.0)


def fig2c_runs(d: int, seeds: Sequence[int], *, depth: int = 4, mu=FIG2C_MU,
               sigma=(SIGMA_05, SIGMA_05), origin_cluster: bool = True, bias: bool = True,
               progress: bool = False) -> list[TrainRecord]:
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

    Returns
    -------
    list of TrainRecord
        One per seed, as :func:`run_sweep` makes them.
    """
    if not _checks.is_integer(d) or d not in FIG2C_SETTINGS:
        raise ValueError(f"d must be one of {sorted(FIG2C_SETTINGS)}, got {d!r}")
    st = FIG2C_SETTINGS[d]
    return run_sweep([dict(mu=mu, sigma=sigma)], d=d, depth=depth, width=st["width"], lr=st["lr"],
                     seeds=seeds, origin_cluster=origin_cluster, bias=bias, progress=progress)[0]


def a_diagonal(rec: TrainRecord) -> np.ndarray:
    """``a_p = sigma_p^2 + mu_p^2 / n_c`` (eq. C.13) of the run's data, from its config:
    ``n_c = s``, or ``s + 1`` when the data hold the origin cluster."""
    rec = _record("rec", rec, finite=False)
    if "mu" not in rec.config or "sigma" not in rec.config:
        raise ValueError("rec.config has no 'mu' and 'sigma': a_diagonal needs a record from run_sweep")
    mu, sigma = np.asarray(rec.config["mu"]), np.asarray(rec.config["sigma"])
    n_clusters = len(mu) + int(bool(rec.config.get("origin_cluster", False)))
    return sigma**2 + mu**2 / n_clusters


def _rotated(data, rotation):
    """An un-rotated :class:`~swingby.sim.SimData` expressed in the frame ``rotation``."""
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
        Dicts with keys ``mu`` and ``sigma``, as for :func:`run_sweep`.
    seeds : sequence of int
        Distinct seeds, one pair of runs per config and seed.
    d, depth, width, lr, n_per_cluster, origin_cluster
        As in :func:`run_sweep` (SGD, batch 128, 40 epochs).

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
    MLP(d, depth, width)  # check the model settings before drawing any data
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
        models = [MLP(d, depth, width, seed=s) for _ in configs for s in seeds]
        ds_ = [pair[which] for pair in datas]
        n_steps = 40 * steps_per_epoch(ds_[0].X.shape[0], 128)
        recs = train_batched(models, ds_, seed=[s for _ in configs for s in seeds],
                             record_steps=record_grid(n_steps), **kw)
        k = len(seeds)
        out.append([recs[i * k:(i + 1) * k] for i in range(len(configs))])
    return TruncationTwins(out[0], out[1], n_redrawn)
