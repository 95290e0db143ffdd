"""The composite figures of ``book/observations.md``: Figs. 2 and 3, the slowing of Sec. 3.2 and the run
statistics of Sec. 3.3. ``threshold`` is the rise ``rho_0 >= 0`` above which a run is non-monotone."""
from __future__ import annotations

from typing import Mapping

import matplotlib.pyplot as plt
import numpy as np

from swingby import _checks
from swingby.observations.plots import plot_relative_displacements, plot_sweep_trajectories, plot_test_losses
from swingby.observations.runs import FIG2C_MU, FIG2C_SETTINGS, authors_sigma_label
from swingby.observations.swingby import SeedStatistics

__all__ = ["plot_fig2ab", "plot_slowing_panels", "plot_fig2c", "plot_rise_statistics", "rise_table"]


def plot_fig2ab(fig2a, fig2b, equal_mu):
    """Fig. 2(a), 2(b) and the equal-``mu`` runs: one-layer output trajectories in three panels.

    Parameters
    ----------
    fig2a, fig2b, equal_mu : sequence of TrainRecord
        The runs of each panel; their configurations name the curves.
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
    """Sec. 3.2: the distance moved per equal interval over the largest, of SGD and of normalised-SGD runs.

    Parameters
    ----------
    runs, normalised_runs, band
        Finite runs of each, and the ``(low, high)`` edges of the shaded band, ``0 < low < high <= 1``.
    """
    low, high = _checks.array("band", band, shape=(2,))
    if not 0 < low < high <= 1:
        raise ValueError(f"band must be (low, high) with 0 < low < high <= 1, got {band!r}")
    band = (float(low), float(high))
    fig, axes = plt.subplots(1, 2, figsize=(8.5, 3.6), sharey=True)
    plot_relative_displacements(axes[0], runs, band=band, color="C0", title="SGD")
    plot_relative_displacements(axes[1], normalised_runs, band=band, color="C1",
                                title="normalised SGD (wrong model)")
    fig.tight_layout()
    return fig


def plot_fig2c(high, low, first_runs, *, run: int):
    """Figs. 2(c) and 3: trajectories and OOD test losses of a run at high and at low ``d``, and of the first runs.

    Parameters
    ----------
    high, low, first_runs, run
        Finite runs at high and at low ``d``, the first one to four runs at low ``d``, and ``low``'s index.
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


def plot_rise_statistics(stats, comparator, threshold: float):
    """Sec. 3.3: the share of non-monotone runs per dimension (with standard errors), and every run's rise.

    Parameters
    ----------
    stats, comparator, threshold
        :func:`~swingby.observations.swingby.seed_statistics` per dimension ``d`` and of the equal-signal
        model (at ``d = 2``); the threshold.
    """
    threshold = _checks.number("threshold", threshold, low=0)
    if not stats:
        raise ValueError("stats must hold the statistics of at least one dimension")
    groups = {str(d): stats[d] for d in stats} | {"2, equal\nsignal": comparator}
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


def rise_table(stats: Mapping[int, SeedStatistics], comparator: SeedStatistics, threshold: float) -> str:
    """Sec. 3.3 as a Markdown table: per dimension and for equal signal, width, lr, runs, non-monotone runs, top rise.

    Parameters
    ----------
    stats, comparator, threshold
        As in :func:`plot_rise_statistics`; each ``d`` a key of :data:`~swingby.observations.runs.FIG2C_SETTINGS`.
    """
    threshold = _checks.number("threshold", threshold, low=0)
    mu = "(" + ", ".join(f"{m:g}" for m in FIG2C_MU) + ")"
    rows = [(f"$\\mu = {mu}$", d, stats[d]) for d in stats] + [("equal signal", 2, comparator)]
    if any(d not in FIG2C_SETTINGS for _, d, _ in rows):
        raise ValueError(f"every dimension must be one of {tuple(FIG2C_SETTINGS)}, got {[d for _, d, _ in rows]}")
    lines = ["| data | $d$ | width | lr | runs | non-monotone | largest rise $\\rho$ |",
             "|---|---|---|---|---|---|---|"]
    for name, d, st in rows:
        k = int(np.sum(st.rises > threshold))
        lines.append(f"| {name} | {d} | {FIG2C_SETTINGS[d]['width']} | {FIG2C_SETTINGS[d]['lr']} | {st.n} | "
                     f"{k} ({st.fraction:.0%}) | {st.max_rise:.3f} |")
    return "\n".join(lines)
