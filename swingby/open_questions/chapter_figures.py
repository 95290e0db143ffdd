"""Figures of the open-question chapters drawn from the stored runs, so that each
chapter shows one call (chapters: ``book/open_questions.md``,
``book/open_questions_training.md``).

* :func:`plot_init_rates`: Q1, the shares of runs that reach ``x_hat`` and that are
  non-monotone, per model and initialisation scale.
* :func:`plot_norm_rates`: Q4, the shares of ordered and of non-monotone runs per
  variant and layout, and the trajectories of two one-layer cells.
* :func:`plot_depth`: Q5, the share of non-monotone runs and every run's rise per depth
  and width.
"""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from swingby.open_questions.checks import pass_flags
from swingby.open_questions.figures import plot_cell, plot_rates
from swingby.open_questions.rules import OQ_RULES, OpenRules


def _stored(arrays, meta) -> list[dict]:
    """The cells of a stored experiment, after checking that it is one."""
    if not isinstance(arrays, dict) or "rise" not in arrays:
        raise ValueError("arrays must be the stored arrays of an experiment (with 'rise')")
    if not isinstance(meta, dict) or "cells" not in meta:
        raise ValueError("meta must be the stored metadata of an experiment (with 'cells')")
    return meta["cells"]


def _layers(depth: int) -> str:
    """``"1 layer"``, ``"4 layers"``."""
    return f"{depth} layer{'s' * (depth > 1)}"


def plot_init_rates(arrays: dict, meta: dict):
    """Q1's figure: per model (one row) and initialisation scale, the share of runs that
    reach ``x_hat`` (left) and that are non-monotone (right), the data beside the
    equal-signal null (:func:`~swingby.open_questions.figures.plot_rates`).

    Parameters
    ----------
    arrays, meta : dict
        The stored experiment ``"init"`` (:func:`swingby.open_questions.store.load`).

    Returns
    -------
    matplotlib.figure.Figure
    """
    cells = _stored(arrays, meta)
    models = list(dict.fromkeys((c["activation"], c["depth"]) for c in cells))
    fig, axes = plt.subplots(len(models), 2, figsize=(8, 2.3 * len(models)), sharey=True,
                             squeeze=False)
    for k, (act, depth) in enumerate(models):
        idx = [i for i, c in enumerate(cells) if (c["activation"], c["depth"]) == (act, depth)]
        labels = [f"{cells[i]['init_scale']:g}" for i in idx]
        for col, what in enumerate(("reach", "nonmonotone")):
            ax = axes[k, col]
            plot_rates(ax, labels, [pass_flags(arrays, i, False, what) for i in idx],
                       [pass_flags(arrays, i, True, what) for i in idx], ylabel=f"share: {what}")
            ax.set_title(f"{_layers(depth)}, {act}", fontsize=10)
            ax.set_xlabel("init scale c" if k == len(models) - 1 else "")
    axes[0, 0].legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_norm_rates(arrays: dict, meta: dict):
    """Q4's figure: the share of one-layer runs that learn concept 2 first (top) and of
    four-layer runs that are non-monotone (middle) per variant and layout, the data
    beside the equal-signal null; below, the trajectories of the one-layer cells with
    the concept axes as input axes, raw and standardised
    (:func:`~swingby.open_questions.figures.plot_cell`).

    Parameters
    ----------
    arrays, meta : dict
        The stored experiment ``"norm"`` (:func:`swingby.open_questions.store.load`).

    Returns
    -------
    matplotlib.figure.Figure
    """
    cells = _stored(arrays, meta)
    index = {(c["depth"], c["layout"], c["variant"]): i for i, c in enumerate(cells)}
    fig = plt.figure(figsize=(8, 10))
    grid = fig.add_gridspec(3, 2, height_ratios=[1, 1, 1.3])
    for row, (depth, what) in enumerate(((1, "order"), (4, "nonmonotone"))):
        ax = fig.add_subplot(grid[row, :])
        idx = [i for i, c in enumerate(cells) if c["depth"] == depth]
        labels = [f"{cells[i]['variant']}\n{cells[i]['layout']}" for i in idx]
        plot_rates(ax, labels, [pass_flags(arrays, i, False, what) for i in idx],
                   [pass_flags(arrays, i, True, what) for i in idx],
                   ylabel=f"{_layers(depth)}: {what}")
        ax.legend(fontsize=8)
    for col, variant in enumerate(("raw", "standardised")):
        plot_cell([fig.add_subplot(grid[2, col]), None], arrays, meta, index[1, "aligned", variant],
                  title=f"1 layer, aligned, {variant}")
    fig.tight_layout()
    return fig


def plot_depth(arrays: dict, meta: dict, rules: OpenRules = OQ_RULES):
    """Q5's figure: the share of non-monotone runs per depth for each hidden width, the
    data (solid) beside the equal-signal null (dashed), with binomial standard errors
    (left), and the rise of every run on the data with the threshold (right).

    Parameters
    ----------
    arrays, meta : dict
        The stored experiment ``"depth"`` (:func:`swingby.open_questions.store.load`).
    rules : OpenRules
        Supplies the widths, the seeds per cell and the rise threshold.

    Returns
    -------
    matplotlib.figure.Figure
    """
    cells = _stored(arrays, meta)
    if not isinstance(rules, OpenRules):
        raise ValueError(f"rules must be an OpenRules, got {type(rules).__name__}")
    fig, axes = plt.subplots(1, 2, figsize=(8.5, 3.6))
    for w, colour in zip(rules.depth_widths, ("C0", "C3")):
        idx = [i for i, c in enumerate(cells) if c["width"] == w]
        deps = np.array([cells[i]["depth"] for i in idx])
        for j, ls in ((0, "-"), (1, "--")):
            f = np.array([pass_flags(arrays, i, bool(j), "nonmonotone", rules).mean() for i in idx])
            axes[0].errorbar(deps + 0.05 * j, f, yerr=np.sqrt(f * (1 - f) / rules.depth_seeds),
                             color=colour, ls=ls, marker="o", label=f"width {w}" + (", null" if j else ""))
        for i, dep in zip(idx, deps):
            r = np.maximum(np.nan_to_num(arrays["rise"][i, 0]), 1e-4)
            axes[1].scatter(np.full(r.size, dep + (0.15 if w > 4 else -0.15)), r, s=8, alpha=0.5,
                            color=colour)
    axes[0].set_xlabel("depth (layers)")
    axes[0].set_ylabel("share of non-monotone runs")
    axes[0].legend(fontsize=8)
    axes[1].axhline(rules.rise, color="r", ls="--")
    axes[1].set_yscale("log")
    axes[1].set_xlabel("depth (layers)")
    axes[1].set_ylabel(r"rise $\rho$ per run")
    fig.tight_layout()
    return fig
