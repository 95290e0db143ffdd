"""Figures of the theory chapters that draw several runs side by side: Fig. 5, Figs. 8-10 and App. E."""
from __future__ import annotations

from typing import NamedTuple, Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator

from swingby import _checks
from swingby.sim.symmetric import SymmetricRecord, initial_U, symmetric_record
from swingby.theory.plots import ASCENT_GREY, ENTRY_COLOURS, entry_lines, plot_output_trajectory, shade_loss_segments
from swingby.theory.stages import Stages, count_descents

__all__ = ["StagePanel", "descents_text", "plot_descent_counts", "plot_descents_by_tolerance", "plot_initial_entries",
           "plot_percent_grids", "plot_stage_rows", "plot_swing_by_stages"]


class StagePanel(NamedTuple):
    """One row of :func:`plot_stage_rows`."""

    record: SymmetricRecord  #: a single trajectory
    stages: Stages  #: its stages (:func:`swingby.theory.stages.detect_stages`)
    title: str  #: the title of the row's left panel


def _panels(panels) -> list[StagePanel]:
    panels = _checks.sequence("panels", panels)
    for k, panel in enumerate(panels):
        if not isinstance(panel, tuple) or len(panel) != 3 or not isinstance(panel[2], str):
            raise ValueError(f"panels[{k}] must be a (record, stages, title) tuple, got {_checks.short_repr(panel)}")
        symmetric_record(f"panels[{k}].record", panel[0])
    return [StagePanel(*panel) for panel in panels]


def descents_text(n: int) -> str:
    """``"1 descent"``, ``"2 descents"``: a number of descents of a test loss in words."""
    n = _checks.integer("n", n, low=0)
    return f"{n} descent" + ("" if n == 1 else "s")


def plot_swing_by_stages(panels: Sequence[StagePanel], mu, *, figsize: tuple | None = None) -> Figure:
    """The paper's Fig. 5, one row per run: the major (solid) and minor (dashed) entries of ``W(t)``
    above the test loss, ascents shaded and a dotted line where each major entry passes 1/2; beside
    them the output at ``x_hat`` in the plane of concepts 1 and 2.

    Parameters
    ----------
    panels, mu, figsize
        A :class:`StagePanel` per row, top to bottom; the cluster distances (``s = len(mu) >= 2`` major
        entries); default ``(8, 0.9 + 4 * len(panels))``.
    """
    return plot_stage_rows(panels, mu, figsize=figsize, logx=False)


def plot_stage_rows(panels: Sequence[StagePanel], mu, *, dims=(0, 1), title_size: float | None = None,
                    figsize: tuple | None = None, logx: bool = True) -> Figure:
    """One row per run, laid out as :func:`plot_swing_by_stages`, on a log time axis from ``t = 0.1`` (Figs. 8-10).

    Parameters
    ----------
    panels, mu, figsize
        As in :func:`plot_swing_by_stages`.
    dims, title_size, logx
        The two concepts of the output's plane; font size of the rows' titles; log time axis.
    """
    title_kw = {} if title_size is None else {"fontsize": _checks.positive_float("title_size", title_size)}
    dims = tuple(dims)
    panels = _panels(panels)
    mu = _checks.nonneg_vector("mu", mu)
    if mu.size < 2:
        raise ValueError(f"mu must hold at least two cluster distances (the concept plane), got {mu.size}")
    s, n = mu.size, len(panels)
    fig = plt.figure(figsize=figsize or (8, 0.9 + 4 * n), layout="constrained")
    grid = fig.add_gridspec(2 * n, 2, height_ratios=[1.6, 1] * n, width_ratios=[1.45, 1])
    top = fig.add_subplot(grid[0, 0])
    for k, panel in enumerate(panels):
        ax = top if k == 0 else fig.add_subplot(grid[2 * k, 0], sharex=top, sharey=top)
        lax = fig.add_subplot(grid[2 * k + 1, 0], sharex=top)
        plane = fig.add_subplot(grid[2 * k:2 * k + 2, 1])
        handles = entry_lines(ax, panel.record, s)
        lax.plot(panel.record.time, panel.record.test_loss, color="k", lw=2)
        lax.set_ylim(bottom=0)
        for a in (ax, lax):
            shade_loss_segments(a, panel.stages, growth_colours=ENTRY_COLOURS[:s])
        ax.set_title(f"{panel.title}: {descents_text(panel.stages.n_descents)} of the test loss", loc="left",
                     **title_kw)
        ax.set_ylabel("entry of $W$")
        ax.tick_params(labelbottom=False)
        lax.set(ylabel="test loss", xlabel=r"time $t = \eta \times$ iterations" + (" (log scale)" if logx else ""))
        if logx:
            lax.set_xscale("log")
            lax.set_xlim(left=0.1)
        plot_output_trajectory(plane, panel.record, mu, dims=dims)
        plane.get_legend().remove()
        plane.set_title(r"output $W(t)\hat{x}$" + ("" if dims == (0, 1) else f", concepts {dims[0] + 1} and {dims[1] + 1}"))
        for a in (plane.xaxis, plane.yaxis) if logx else (lax.xaxis, plane.xaxis, plane.yaxis):
            a.set_major_locator(MaxNLocator(5))  # few ticks: no label runs into the next
    handles += [Patch(color=ASCENT_GREY, alpha=0.25, lw=0, label="test loss rises"),
                Line2D([], [], color="0.3", ls=":", lw=1.5, label="major entry passes 1/2\n(dotted, in its colour)")]
    fig.legend(handles=handles, loc="outside upper center", ncols=4)
    handles, names = plane.get_legend_handles_labels()
    fig.legend(handles, names, loc="outside lower center", ncols=len(names))
    return fig


def _descent_bars(ax, n_descents: dict, max_descents: int) -> None:
    """Grouped bars of the % of runs with 1 .. ``max_descents`` descents, one per label of ``n_descents``."""
    width = 0.8 / len(n_descents)
    x = np.arange(1, max_descents + 1)
    for k, (label, counts) in enumerate(n_descents.items()):
        counts = np.asarray(counts, dtype=int)
        share = np.bincount(counts, minlength=max_descents + 1)[1:max_descents + 1] / counts.size
        ax.bar(x + (k - (len(n_descents) - 1) / 2) * width, 100 * share, width, label=label)
    ax.set(xticks=x, xlabel="number of descents of the test loss")


def plot_descent_counts(ax, n_descents: dict, labels: dict) -> None:
    """Grouped bars: the share of runs whose test loss descends once, twice or three times, one colour
    per data set (the frequency figure of Fig. 5).

    Parameters
    ----------
    ax, n_descents, labels
        Where to draw; per data set (at most four), the descents of each run and the legend's label.
    """
    if not n_descents or len(n_descents) > 4:
        raise ValueError(f"n_descents must hold one to four data sets, got {len(n_descents)}")
    _descent_bars(ax, {labels[key]: counts for key, counts in n_descents.items()}, 3)
    ax.set_ylabel("% of the initialisations")
    ax.legend(fontsize=8)


def plot_descents_by_tolerance(test_losses: dict, tolerances: Sequence[float]) -> Figure:
    """Bars of how many times (1 to 5) the test loss descends, one colour per setting, one panel per
    tolerance (App. E.1, Figs. 8 and 9).

    Parameters
    ----------
    test_losses : dict of str to array_like
        Per setting (its name, the legend entry), the ``(n, R)`` test losses of its runs.
    tolerances : sequence of float
        One panel per tolerance: a rise counts if it exceeds this share of the initial test loss.
    """
    if not isinstance(test_losses, dict) or not test_losses:
        raise ValueError(f"test_losses must be a non-empty mapping of setting name to test losses, "
                         f"got {_checks.short_repr(test_losses)}")
    tolerances = [_checks.number("tolerances", t, low=0) for t in _checks.sequence("tolerances", tolerances)]
    fig, axes = plt.subplots(1, len(tolerances), figsize=(8, 3.6), sharey=True, layout="constrained",
                             squeeze=False)
    for ax, tol in zip(axes[0], tolerances):
        _descent_bars(ax, {name: count_descents(loss, tol) for name, loss in test_losses.items()}, 5)
        ax.set_title(f"a rise counts if > {tol:.1%} of the initial loss", fontsize=10)
    axes[0, 0].set_ylabel("% of initialisations")
    fig.legend(*axes[0, 0].get_legend_handles_labels(), loc="outside lower center", ncols=len(test_losses))
    return fig


def plot_initial_entries(d: int, d_primes: Sequence[int], tau: float, seeds_per_width: Sequence) -> Figure:
    """Histograms of the initial entries ``w_11`` and ``w_12`` of ``W = UU^T`` for Gaussian ``U``, one
    panel per width ``d'``, with the mean ``d' tau^2`` of ``w_11`` marked (App. E.2, eq. E.1).

    Parameters
    ----------
    d, d_primes, tau, seeds_per_width
        Dimension, ``>= 2``; the widths, one panel each; the scale of ``U``; the seeds of each width.
    """
    d = _checks.integer("d", d, low=2)
    tau = _checks.positive_float("tau", tau)
    d_primes = [_checks.positive_int("d_primes", v) for v in d_primes]
    if not d_primes or len(d_primes) != len(seeds_per_width):
        raise ValueError(f"d_primes and seeds_per_width must have the same non-zero length, got "
                         f"{len(d_primes)} and {len(seeds_per_width)}")
    fig, axes = plt.subplots(1, len(d_primes), figsize=(8, 3.4), sharey=True, layout="constrained",
                             squeeze=False)
    for ax, d_prime, block in zip(axes[0], d_primes, seeds_per_width):
        U = initial_U(d, block, d_prime=d_prime, init="gaussian", init_scale=tau)
        W = U @ np.swapaxes(U, -1, -2)
        ax.hist(W[:, 0, 1], bins=60, alpha=0.6, density=True, label="minor $w_{12}$")
        ax.hist(W[:, 0, 0], bins=60, alpha=0.6, density=True, label="major $w_{11}$")
        ax.axvline(d_prime * tau**2, color="k", ls="--", label=r"$d'\tau^2$")
        ax.set(title=f"$d' = {d_prime}$", xlabel="initial entry value")
    axes[0, 0].set_ylabel("density")
    fig.legend(*axes[0, 0].get_legend_handles_labels(), loc="outside lower center", ncols=3)
    return fig


def plot_percent_grids(grids: dict, x_values: Sequence, y_values: Sequence, *,
                       xlabel: str, ylabel: str, vmax: float = 40.0,
                       figsize: tuple = (8, 3.6)) -> Figure:
    """Heat maps of the percentage of runs that swing by, one panel per grid, each cell written in (the
    phase diagrams of App. E.2).

    Parameters
    ----------
    grids : dict of str to array_like(float)
        Per panel (its title), the ``(len(y_values), len(x_values))`` percentages.
    x_values, y_values, xlabel, ylabel, vmax, figsize
        The tick labels of the columns and rows; the axis labels; the top of the colour scale; inches.
    """
    if not isinstance(grids, dict) or not grids:
        raise ValueError(f"grids must be a non-empty mapping of title to percentages, got "
                         f"{_checks.short_repr(grids)}")
    shape = (len(y_values), len(x_values))
    grids = {t: _checks.array(f"grids[{t!r}]", g, shape=shape, nonneg=True) for t, g in grids.items()}
    vmax = _checks.positive_float("vmax", vmax)
    fig, axes = plt.subplots(1, len(grids), figsize=figsize, layout="constrained", squeeze=False)
    for ax, (title, grid) in zip(axes[0], grids.items()):
        im = ax.imshow(grid, origin="lower", cmap="viridis", aspect="auto", vmin=0, vmax=vmax)
        ax.set_xticks(range(len(x_values)), [str(v) for v in x_values])
        ax.set_yticks(range(len(y_values)), [str(v) for v in y_values])
        for (i, j), v in np.ndenumerate(grid):
            ax.text(j, i, f"{v:.0f}", ha="center", va="center", color="w" if v < vmax / 2 else "k")
        ax.set(xlabel=xlabel, ylabel=ylabel, title=title)
        ax.grid(False)
    fig.colorbar(im, ax=axes[0], label="% of runs that swing by")
    return fig
