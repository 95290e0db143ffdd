"""Figures and the explorer of the open-question chapters (``book/open_questions.md``,
``book/open_questions_training.md``, ``book/open_questions_diffusion.md``), drawn from the stored
runs; ``arrays, meta`` are a stored experiment (:func:`swingby.open_questions.store.load`).
"""
from __future__ import annotations

from typing import Sequence

import matplotlib.pyplot as plt
import numpy as np

from swingby import _checks
from swingby.observations.plots import plot_trajectory
from swingby.open_questions.checks import pass_flags
from swingby.open_questions.rules import OQ_RULES, OpenRules
from swingby.style import PALETTE

__all__ = ["cell_explorer", "plot_alignment", "plot_depth", "plot_init_contrast", "plot_init_rates",
           "plot_norm_rates", "plot_rates"]


def plot_rates(ax, labels: Sequence[str], real: Sequence[np.ndarray], null: Sequence[np.ndarray], *,
               ylabel: str = "share of runs") -> None:
    """Bars of the share of passing runs per cell beside its null, with binomial standard errors.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    labels : sequence of str
        One label per cell.
    real, null : sequence of numpy.ndarray
        Pass flags per cell (:func:`~swingby.open_questions.checks.pass_flags`), real data and null.
    ylabel : str
    """
    if not (len(labels) == len(real) == len(null)) or not labels:
        raise ValueError(f"labels, real and null must have one non-zero length, got {len(labels)}, "
                         f"{len(real)}, {len(null)}")
    x = np.arange(len(labels))
    for off, flags, name, colour in ((-0.2, real, "data, mu = (2, 4)", PALETTE["blue"]),
                                     (0.2, null, "null: equal signal", "0.5")):
        p = np.array([np.mean(f) for f in flags])
        se = np.array([np.sqrt(q * (1 - q) / len(f)) for q, f in zip(p, flags)])
        ax.bar(x + off, p, width=0.4, color=colour, label=name)
        ax.errorbar(x + off, p, yerr=se, fmt="none", color="k", lw=1)
    ax.set_xticks(x, labels, fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_ylim(0, 1.05)


def plot_cell(axes, arrays: dict, meta: dict, cell: int, title: str) -> None:
    """The stored runs of one cell: trajectories at ``x_hat`` (``axes[0]``) and test losses (``axes[1]``)."""
    ep = arrays[f"epochs_{cell}"]
    mu = np.array(meta["rules"]["mu"])
    for j, colours in ((1, ["0.6"] * 3), (0, [PALETTE["blue"], PALETTE["orange"], PALETTE["green"]])):
        for k, c in enumerate(colours[: arrays[f"traj_{cell}_{j}"].shape[0]]):
            tr = arrays[f"traj_{cell}_{j}"][k]
            if j == 0:  # the data's runs with arrowheads along the way (the null's stay plain lines)
                plot_trajectory(axes[0], tr, color=c, lw=1.2, n_markers=5)
            else:
                axes[0].plot(tr[:, 0], tr[:, 1], color=c, lw=0.8)
            if axes[1] is not None:
                axes[1].plot(ep[1:], arrays[f"loss_{cell}_{j}"][k][1:], color=c, lw=1.2 if j == 0 else 0.8)
    axes[0].plot(*mu, "k*", ms=12)
    axes[0].plot(*[meta["rules"]["null_mu"]] * 2, "*", color="0.6", ms=10)  # the null's x_hat
    axes[0].plot([mu[0], 0, 0], [0, 0, mu[1]], "ko", ms=5)
    axes[0].set(xlabel="concept 1", ylabel="concept 2")
    if axes[1] is not None:
        axes[1].set(xscale="log", yscale="log", xlabel="epoch", ylabel="OOD test loss")
    axes[0].set_title(title, fontsize=9)


def cell_explorer(stored: dict, name: str = "batch", cell: int = 0):
    """Explorer of the stored runs of any cell of any experiment (``swingby.live.explorer``).

    Parameters
    ----------
    stored : dict
        ``{name: (arrays, meta)}`` of the loaded experiments.
    name : str
        The experiment shown first.
    cell : int
        The cell shown first.

    Notes
    -----
    The static page's explorable (:mod:`swingby.explorable`) has one menu of every stored cell of
    every experiment given, in the order given, each named by its setting (25 to 27 cells in
    the book, drawn in about 9 s).
    """
    from swingby.explorable import Axis
    from swingby.live import explorer

    if not isinstance(stored, dict) or name not in stored:
        raise ValueError(f"name must be one of the stored experiments {sorted(stored) if isinstance(stored, dict) else stored}, "
                         f"got {name!r}")

    def setting(name, cell):
        """The title of a cell: its network, initialisation, training and data."""
        c = stored[name][1]["cells"][cell]
        layers = "layer" if c["depth"] == 1 else "layers"
        return (f"{c['depth']} {layers} {c['activation']}, width {c['width']}, init x{c['init_scale']:g}, "
                f"{c['mode']}, {c['variant']}, {c['layout']}")

    def draw(name, cell):
        arrays, meta = stored[name]
        cell = min(int(cell), len(meta["cells"]) - 1)
        if f"loss_{cell}_0" not in arrays:
            print(f"cell {cell} of {name} was not run")
            return None
        fig, axes = plt.subplots(1, 2, figsize=(8.5, 3.4))
        plot_cell(axes, arrays, meta, cell, title=f"{name}: {setting(name, cell)}")
        fig.tight_layout()
        return fig

    def controls():
        import ipywidgets as widgets
        return {"name": widgets.Dropdown(options=sorted(stored), value=name, description="question"),
                "cell": widgets.IntSlider(value=cell, min=0, max=max(len(m["cells"]) for _, m in stored.values()) - 1,
                                          description="cell")}
    # the static page: one menu of every stored cell, in the order given, each named by its setting
    every = [(f"{n} {k}: {setting(n, k)}", {"name": n, "cell": k})
             for n, (arrays, meta) in stored.items() for k in range(len(meta["cells"])) if f"loss_{k}_0" in arrays]
    grid = [Axis("question and cell" if len(stored) > 1 else "cell", tuple(every), False)]
    return explorer(draw, {"name": name, "cell": cell}, controls, note="Move a control to redraw.", grid=grid,
                    alt="output trajectories at x_hat and test losses of one cell's stored seeds")


def _cells(arrays, meta) -> list[dict]:
    """The cells of a stored experiment, after checking that it is one."""
    if not isinstance(arrays, dict) or "rise" not in arrays:
        raise ValueError("arrays must be the stored arrays of an experiment (with 'rise')")
    if not isinstance(meta, dict) or "cells" not in meta:
        raise ValueError("meta must be the stored metadata of an experiment (with 'cells')")
    return meta["cells"]


def _layers(depth: int) -> str:
    return f"{depth} layer{'s' * (depth > 1)}"


def _rates(ax, arrays: dict, idx: list, labels: list, what: str, ylabel: str) -> None:
    """:func:`plot_rates` of the stored cells ``idx``."""
    plot_rates(ax, labels, [pass_flags(arrays, i, False, what) for i in idx],
               [pass_flags(arrays, i, True, what) for i in idx], ylabel=ylabel)


def plot_init_rates(arrays: dict, meta: dict):
    """Q1's figure: per model (row) and initialisation scale, the share of runs that reach ``x_hat`` (left)
    and that are non-monotone (right), the data beside the null.

    Parameters
    ----------
    arrays, meta : dict
        The stored experiment ``"init"``.
    """
    cells = _cells(arrays, meta)
    models = list(dict.fromkeys((c["activation"], c["depth"]) for c in cells))
    fig, axes = plt.subplots(len(models), 2, figsize=(8, 2.3 * len(models)), sharey=True,
                             squeeze=False)
    for k, (act, depth) in enumerate(models):
        idx = [i for i, c in enumerate(cells) if (c["activation"], c["depth"]) == (act, depth)]
        for col, what in enumerate(("reach", "nonmonotone")):
            ax = axes[k, col]
            _rates(ax, arrays, idx, [f"{cells[i]['init_scale']:g}" for i in idx], what, f"share: {what}")
            ax.set_title(f"{_layers(depth)}, {act}", fontsize=10)
            ax.set_xlabel("init scale c" if k == len(models) - 1 else "")
    axes[0, 0].legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_norm_rates(arrays: dict, meta: dict):
    """Q4's figure: the share of one-layer runs that learn concept 2 first (top) and of four-layer runs
    that are non-monotone (middle) per variant and layout, beside the null; below, the one-layer
    trajectories with the concept axes as input axes, raw and standardised.

    Parameters
    ----------
    arrays, meta : dict
        The stored experiment ``"norm"``.
    """
    cells = _cells(arrays, meta)
    index = {(c["depth"], c["layout"], c["variant"]): i for i, c in enumerate(cells)}
    fig = plt.figure(figsize=(8, 10))
    grid = fig.add_gridspec(3, 2, height_ratios=[1, 1, 1.3])
    for row, (depth, what) in enumerate(((1, "order"), (4, "nonmonotone"))):
        ax = fig.add_subplot(grid[row, :])
        idx = [i for i, c in enumerate(cells) if c["depth"] == depth]
        _rates(ax, arrays, idx, [f"{cells[i]['variant']}\n{cells[i]['layout']}" for i in idx], what,
               f"{_layers(depth)}: {what}")
        ax.legend(fontsize=8)
    for col, variant in enumerate(("raw", "standardised")):
        plot_cell([fig.add_subplot(grid[2, col]), None], arrays, meta, index[1, "aligned", variant],
                  title=f"1 layer, aligned, {variant}")
    fig.tight_layout()
    return fig


def plot_depth(arrays: dict, meta: dict, rules: OpenRules = OQ_RULES):
    """Q5's figure: the share of non-monotone runs per depth and width, data (solid) beside null (dashed)
    (left), and the rise of every run on the data with the threshold (right).

    Parameters
    ----------
    arrays, meta : dict
        The stored experiment ``"depth"``.
    rules : OpenRules
        Its widths, seeds per cell and rise threshold.
    """
    cells = _cells(arrays, meta)
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
    axes[0].set(xlabel="depth (layers)", ylabel="share of non-monotone runs")
    axes[0].legend(fontsize=8)
    axes[1].axhline(rules.rise, color="r", ls="--")
    axes[1].set(yscale="log", xlabel="depth (layers)", ylabel=r"rise $\rho$ per run")
    fig.tight_layout()
    return fig


def plot_alignment(axes, result, share_min: float, growth: float) -> None:
    """The four panels of Q2: (a) the share of the neurons' turning done against the growth of the weight
    norm, ReLU and linear; (b) the paired turn shares; (c) the median Jacobian at ``x_hat`` over training;
    (d) the neuron directions of the first ReLU run on the two concept axes.

    Parameters
    ----------
    axes : sequence of 4 matplotlib.axes.Axes
    result : AlignmentResult
        :func:`swingby.open_questions.alignment_runs.run_alignment`.
    share_min, growth : float
        The claim's thresholds (drawn as lines).
    """
    from swingby.open_questions.alignment_runs import AlignmentResult

    _checks.instance("result", result, AlignmentResult, "AlignmentResult")
    if len(axes) != 4:
        raise ValueError(f"axes must hold 4 axes, got {len(axes)}")
    ax = axes[0]
    for runs, colour, name in ((result.relu, PALETTE["vermillion"], "ReLU"),
                               (result.linear, PALETTE["blue"], "linear (null)")):
        for nr, tu in zip(runs.norm, runs.turned):
            ax.plot(nr, tu, color=colour, alpha=0.12, lw=0.7)
        ax.plot(np.median(runs.norm, 0), np.median(runs.turned, 0), color=colour, lw=2, label=name)
    ax.axvline(growth, color="k", ls=":")
    ax.axhline(share_min, color="k", ls="--", lw=0.8)
    ax.set(xscale="log", xlabel="weight norm / its start", ylabel="share of the turning done")
    ax.legend()
    ax = axes[1]
    ax.scatter(result.linear.share, result.relu.share, s=14, color=PALETTE["vermillion"])
    lo = float(np.nanmin([result.linear.share.min(), result.relu.share.min(), share_min])) - 0.05
    hi = float(np.nanmax([result.linear.share.max(), result.relu.share.max(), share_min])) + 0.05
    ax.plot([lo, hi], [lo, hi], color="k", lw=0.8)
    ax.axhline(share_min, color="k", ls="--", lw=0.8)
    ax.set(xlabel=f"turn share before {growth:g}x, linear", ylabel=f"turn share before {growth:g}x, ReLU")
    ax = axes[2]
    t = result.steps + 1
    for runs, ls, name in ((result.relu, "-", "ReLU"), (result.linear, "--", "linear")):
        J = np.median(runs.jac_xhat, 0)
        for (i, j), colour, label in (((1, 1), PALETTE["green"], "J_22 (strong)"),
                                      ((0, 0), PALETTE["orange"], "J_11 (weak)"),
                                      ((0, 1), PALETTE["purple"], "J_12 (minor)")):
            ax.plot(t, J[:, i, j], ls=ls, color=colour, label=f"{label}, {name}")
        ax.axvline(np.median(runs.step_growth) + 1, color="k", ls=ls, lw=0.6)
    strong = np.median(result.relu.stages[:, 0]) + 1
    ax.axvline(strong * result.ratio, color=PALETTE["orange"], ls=":", lw=1.2)
    ax.set(xscale="log", xlabel="SGD step + 1", ylabel="Jacobian at x_hat (median)")
    ax.legend(fontsize=6, ncol=2)
    ax = axes[3]
    d = result.relu.directions
    ang = np.degrees(np.arctan2(d[..., 0], d[..., 1]))
    for k in range(ang.shape[1]):
        ax.plot(t, ang[:, k], color=PALETTE["vermillion"], lw=0.8)
    for a, name in ((0, "cluster 2"), (90, "cluster 1"), (-90, "-cluster 1"), (180, "-cluster 2")):
        ax.axhline(a, color="k", lw=0.5, ls=":")
        ax.text(t[0], a, name, fontsize=7, va="bottom")
    ax.axvline(result.relu.step_growth[0] + 1, color="k", ls=":")
    ax.set(xscale="log", xlabel="SGD step + 1", ylabel="neuron direction (degrees from cluster 2)")


def plot_init_contrast(axes, contrast) -> None:
    """Q1 in a diffusion model: class 11's blue-small share (pixel check) over training per separation,
    each seed's default run (solid) beside its larger-initialisation run (dashed).

    Parameters
    ----------
    axes : sequence of matplotlib.axes.Axes
        One per separation of the contrast.
    contrast : Contrast
        :func:`swingby.open_questions.diffusion_init_runs.read_contrast`.
    """
    from swingby.diffusion.runs.position_search import CRITERION, DECISIVE_DC
    from swingby.open_questions.diffusion_init import INIT_SCALE
    from swingby.open_questions.diffusion_init_runs import Contrast

    _checks.instance("contrast", contrast, Contrast, "Contrast (read_contrast)")
    dcs = list(dict.fromkeys(r["dc"] for r in contrast.runs))
    if len(axes) != len(dcs):
        raise ValueError(f"axes must hold one Axes per separation ({len(dcs)}), got {len(axes)}")
    t = contrast.steps + 1
    for ax, dc in zip(axes, dcs):
        for (d, seed), (default, larger) in contrast.curves.items():
            if d != dc:
                continue
            ax.plot(t, default, color=PALETTE["blue"], lw=1.2, label="default init" if seed == 0 else None)
            if larger is not None:
                ax.plot(t, larger, color=PALETTE["vermillion"], ls="--", lw=1.2,
                        label=f"{INIT_SCALE:g} x default" if seed == 0 else None)
        if dc == DECISIVE_DC:
            ax.axhline(CRITERION["blue_small_11"], color="k", ls=":", lw=0.8)
        ax.set(xscale="log", ylim=(-0.03, 1.03), xlabel="training step + 1")
        ax.set_title(f"dc = {dc:g}", fontsize=10)
    axes[0].set_ylabel("class 11: blue small (pixels)")
    axes[0].legend()
