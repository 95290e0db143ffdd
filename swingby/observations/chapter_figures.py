"""The composite figures of ``book/observations.md``: Fig. 2(a), 2(b) with the equal-``mu``
runs, the slowing panels of Sec. 3.2, Fig. 2(c) with Fig. 3, the run statistics of Sec. 3.3
and its table of runs, drawn with the panels of :mod:`swingby.observations.plots`.
"""
from __future__ import annotations

from typing import Mapping

import matplotlib.pyplot as plt
import numpy as np

from swingby import _checks
from swingby.observations.plots import (
    plot_relative_displacements,
    plot_sweep_trajectories,
    plot_test_losses,
)
from swingby.observations.runs import FIG2C_MU, FIG2C_SETTINGS, authors_sigma_label
from swingby.observations.swingby import SeedStatistics

__all__ = ["plot_fig2ab", "plot_slowing_panels", "plot_fig2c", "plot_rise_statistics", "rise_table"]


def plot_fig2ab(fig2a, fig2b, equal_mu):
    """Fig. 2(a), 2(b) of the paper and the equal-``mu`` runs: one-layer output trajectories
    in three panels (varied ``mu``; ``mu = (1, 2)``, varied ``sigma_1``; ``mu = (2, 2)``
    with one wide cluster).

    Parameters
    ----------
    fig2a, fig2b, equal_mu : sequence of TrainRecord
        The runs of each panel, non-empty; their configurations name the curves.
    """
    panels = [
        (fig2a, [f"$\\mu$ = {r.config['mu']}" for r in fig2a],
         "(a) one layer, varied $\\mu$\n$\\sigma$ = 0.224 (authors' 0.05)"),
        (fig2b, [f"$\\sigma_1$ = {authors_sigma_label(r.config['sigma'][0])}" for r in fig2b],
         "(b) one layer, $\\mu = (1, 2)$, varied $\\sigma_1$"),
        (equal_mu, [f"$\\sigma$ = {authors_sigma_label(r.config['sigma'])}" for r in equal_mu],
         "extra: $\\mu = (2, 2)$, one wide cluster"),
    ]
    fig, axes = plt.subplots(2, 2, figsize=(8, 6.8))  # three panels in a grid
    axes = axes.ravel()
    axes[3].remove()
    for ax, (records, labels, title) in zip(axes, panels):
        plot_sweep_trajectories(ax, records, labels, title=title)
    fig.tight_layout()
    return fig


def plot_slowing_panels(runs, normalised_runs, *, band=(0.05, 0.5)):
    """Sec. 3.2 figure: the distance the output moves per equal interval over its largest, of
    SGD runs (left) and of the wrong model's normalised-SGD runs (right), on one shared axis.

    Parameters
    ----------
    runs, normalised_runs : sequence of TrainRecord
        Finite runs, non-empty.
    band : pair of float
        ``(low, high)`` edges of the shaded band, ``0 < low < high <= 1``.
    """
    try:
        low, high = (float(v) for v in band)
    except (TypeError, ValueError):
        low = high = None
    if low is None or not 0 < low < high <= 1:
        raise ValueError(f"band must be (low, high) with 0 < low < high <= 1, got {band!r}")
    band = (low, high)
    fig, axes = plt.subplots(1, 2, figsize=(8.5, 3.6), sharey=True)
    plot_relative_displacements(axes[0], runs, band=band, color="C0", title="SGD")
    plot_relative_displacements(axes[1], normalised_runs, band=band, color="C1",
                                title="normalised SGD (wrong model)")
    fig.tight_layout()
    return fig


def plot_fig2c(high, low, first_runs, *, run: int):
    """Fig. 2(c) and Fig. 3 of the paper: trajectories (top left) and OOD test losses (top
    right) of one run at high and one at low ``d``, and the test losses of the first runs
    at low ``d`` (bottom).

    Parameters
    ----------
    high, low : TrainRecord
        Finite runs at high and at low ``d``.
    first_runs : sequence of TrainRecord
        The first runs at low ``d``, non-empty, at most four.
    run : int
        The index of ``low`` among its runs, for the title.
    """
    first_runs = list(first_runs)
    if not 0 < len(first_runs) <= 4:
        raise ValueError(f"first_runs must hold 1 to 4 runs, got {len(first_runs)}")
    run = _checks.integer("run", run, low=0)
    d_high, d_low = high.config["d"], low.config["d"]
    pair = [f"high dim, d = {d_high}", f"low dim, d = {d_low}"]
    fig, axes = plt.subplots(2, 2, figsize=(8, 6.8))  # three panels in a grid
    axes = axes.ravel()
    axes[3].remove()
    mu = tuple(float(m) for m in low.config["mu"])
    plot_sweep_trajectories(axes[0], [high, low], pair,
                            title=f"(c) 4 layers, $\\mu$ = {mu}, run {run}")
    plot_test_losses(axes[1], [high, low], pair, title="Fig. 3: OOD test loss")
    plot_test_losses(axes[2], first_runs, [f"d = {d_low}, run {k}" for k in range(len(first_runs))],
                     title=f"Fig. 3 at d = {d_low}, runs 0-{len(first_runs) - 1}")
    fig.tight_layout()
    return fig


def plot_rise_statistics(stats, comparator, threshold: float, *,
                         comparator_label: str = "2, equal\nsignal"):
    """Run statistics of Sec. 3.3 (not in the paper): the share of non-monotone runs per
    dimension with binomial standard errors (left), and every run's rise on a log scale
    with the mean and the threshold (right).

    Parameters
    ----------
    stats : mapping of int to SeedStatistics
        :func:`~swingby.observations.swingby.seed_statistics` per dimension ``d``.
    comparator : SeedStatistics
        The wrong model's runs, drawn last, in grey.
    threshold : float
        The threshold ``rho_0 > 0`` of a non-monotone run.
    comparator_label : str
        The comparator's tick label.
    """
    threshold = _checks.number("threshold", threshold, low=0)
    if not stats:
        raise ValueError("stats must hold the statistics of at least one dimension")
    groups = {str(d): stats[d] for d in stats} | {comparator_label: comparator}
    labels = list(groups)
    fracs = [g.fraction for g in groups.values()]
    se = [np.sqrt(f * (1 - f) / g.n) for f, g in zip(fracs, groups.values())]
    fig, axes = plt.subplots(1, 2, figsize=(8.5, 3.8))
    axes[0].bar(labels, fracs, color=["C0"] * len(stats) + ["0.6"])
    axes[0].errorbar(labels, fracs, yerr=se, fmt="none", color="k")
    axes[0].set_ylabel(rf"fraction of runs with rise $\rho > {threshold}$")
    for label, g in groups.items():
        axes[1].scatter(np.full(g.n, label), np.maximum(g.rises, 1e-5), s=10, alpha=0.5, color="C1")
    axes[1].plot(labels, [g.mean_rise for g in groups.values()], "k_", ms=30, mew=2, label="mean")
    axes[1].axhline(threshold, color="k", ls="--", label=rf"threshold $\rho_0$ = {threshold}")
    axes[1].set_yscale("log")
    axes[1].set_ylabel(r"rise $\rho$ per run")
    axes[1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1, 1))
    for ax in axes:
        ax.set_xlabel("dimension d")
    fig.tight_layout()
    return fig


def rise_table(stats: Mapping[int, SeedStatistics], comparator: SeedStatistics, threshold: float, *,
               comparator_d: int = 2) -> str:
    """The runs of Fig. 2(c) / Fig. 3 as a Markdown table: per dimension and for the
    equal-signal wrong model, the width, learning rate, runs, non-monotone runs and the
    largest rise (Sec. 3.3).

    Parameters
    ----------
    stats : mapping of int to SeedStatistics
        :func:`~swingby.observations.swingby.seed_statistics` of the four-layer runs at ``mu = FIG2C_MU`` per dimension
        ``d``, each a key of :data:`~swingby.observations.runs.FIG2C_SETTINGS`.
    comparator : SeedStatistics
        The equal-signal network's runs.
    threshold : float
        The rise ``rho_0 >= 0`` above which a run is non-monotone.
    comparator_d : int
        The comparator's dimension.

    Returns
    -------
    str
        A Markdown table.
    """
    threshold = _checks.number("threshold", threshold, low=0)
    mu = "(" + ", ".join(f"{m:g}" for m in FIG2C_MU) + ")"
    rows = [(f"$\\mu = {mu}$", d, stats[d]) for d in stats] + [("equal signal", comparator_d, comparator)]
    if any(d not in FIG2C_SETTINGS for _, d, _ in rows):
        raise ValueError(f"every dimension must be one of {tuple(FIG2C_SETTINGS)}, got {[d for _, d, _ in rows]}")
    lines = ["| data | $d$ | width | lr | runs | non-monotone | largest rise $\\rho$ |",
             "|---|---|---|---|---|---|---|"]
    for name, d, st in rows:
        k = int(np.sum(st.rises > threshold))
        lines.append(f"| {name} | {d} | {FIG2C_SETTINGS[d]['width']} | {FIG2C_SETTINGS[d]['lr']} | {st.n} | "
                     f"{k} ({st.fraction:.0%}) | {st.max_rise:.3f} |")
    return "\n".join(lines)
