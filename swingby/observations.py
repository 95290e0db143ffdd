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

The code lives in one module per subject; every name is imported from here
(``from swingby.observations import ...``):

* :mod:`swingby.observations_runs`: the paper's settings and the sweeps of runs
  (Sec. 3, App. F.1).
* :mod:`swingby.observations_learning`: learning times, the order of learning and the
  terminal slowing down (Sec. 3.1, 3.2).
* :mod:`swingby.observations_swingby`: the rise of the OOD test loss, its seed
  statistics and the swing-by check (Sec. 3.3, App. F.2).
* :mod:`swingby.observations_ood`: distances of the output at ``x_hat`` and the
  truncation twins (App. F.3).
* :mod:`swingby.observations_hypercube`: the order homomorphism on the hypercube test
  points (App. B).
"""
from __future__ import annotations

# private helpers that swingby.plotting imports from here
from swingby.observations_hypercube import (
    MAX_PAIR_ROWS,
    _check_test_index,  # noqa: F401
    comparable_pairs,
    hypercube_learning_times,
    order_property,
)
from swingby.observations_learning import (
    ORDER_RULES,
    Displacements,
    OrderAgreement,
    _record,  # noqa: F401
    a_diagonal,
    displacement_per_interval,
    learning_times,
    marker_indices,
    order_agreement,
    order_passes,
    progress_along_concepts,
    slowdown,
)
from swingby.observations_ood import DISTANCE_AT, TruncationTwins, relative_distance, truncation_twins
from swingby.observations_runs import (
    EQUAL_MU,
    FIG2A,
    FIG2B,
    FIG2B_SIGMA1_AUTHORS,
    FIG2C_MU,
    FIG2C_SETTINGS,
    SEEDINGS,
    SIGMA_05,
    authors_sigma_label,
    fig2c_runs,
    record_grid,
    run_seed,
    run_sweep,
)
from swingby.observations_swingby import (
    SeedStatistics,
    fisher_pvalue,
    fisher_seeds_needed,
    loss_rise,
    low_vs_high_pvalue,
    permutation_pvalue,
    record_rise,
    seed_statistics,
    swingby_check,
)

__all__ = [
    # observations_runs
    "SIGMA_05", "FIG2A", "FIG2B_SIGMA1_AUTHORS", "FIG2B", "EQUAL_MU", "FIG2C_SETTINGS", "FIG2C_MU",
    "authors_sigma_label", "record_grid", "run_sweep", "fig2c_runs", "SEEDINGS", "run_seed",
    # observations_learning
    "progress_along_concepts", "learning_times", "Displacements", "displacement_per_interval",
    "marker_indices", "slowdown", "a_diagonal", "ORDER_RULES", "OrderAgreement", "order_agreement", "order_passes",
    # observations_swingby
    "loss_rise", "record_rise", "SeedStatistics", "seed_statistics", "permutation_pvalue",
    "low_vs_high_pvalue", "swingby_check", "fisher_pvalue", "fisher_seeds_needed",
    # observations_ood
    "DISTANCE_AT", "relative_distance", "TruncationTwins", "truncation_twins",
    # observations_hypercube
    "MAX_PAIR_ROWS", "comparable_pairs", "order_property", "hypercube_learning_times",
]
