"""Figures and per-cell summaries of the stored open-question runs (chapter:
``book/open_questions.md``).

* :func:`plot_rates`: the share of passing runs per cell, real data beside the null.
* :func:`plot_cell`: the stored trajectories and test losses of one cell.
* :func:`cell_explorer`: the chapter's explorer over the stored cells.
* :func:`plot_alignment`: the four panels of Q2 (early alignment).
* :func:`plot_init_contrast`: Q1 in a diffusion model, default against larger initialisation.
"""
from __future__ import annotations

from typing import Sequence

import matplotlib.pyplot as plt
import numpy as np

from swingby import _checks
from swingby.style import PALETTE


def plot_rates(ax, labels: Sequence[str], real: Sequence[np.ndarray], null: Sequence[np.ndarray], *,
               ylabel: str = "share of runs") -> None:
    """Bars of the share of passing runs per cell (real data) beside its null, with
    binomial standard errors.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    labels : sequence of str
        One label per cell.
    real, null : sequence of numpy.ndarray
        Pass flags per cell (:func:`~swingby.open_questions.checks.pass_flags`), real data and null.
    ylabel : str
        The y-axis label.
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


def plot_cell(axes, arrays: dict, meta: dict, cell: int, *, title: str | None = None) -> None:
    """The stored runs of one cell: output trajectories at ``x_hat`` in concept
    coordinates (left) and OOD test losses on a log time axis (right), real data in
    colour, the equal-signal null in grey.

    Parameters
    ----------
    axes : sequence of two matplotlib.axes.Axes
        Where to draw (the second may be None: no loss panel).
    arrays, meta : dict
        Stored arrays and meta (:func:`swingby.open_questions.store.load`).
    cell : int
        Index of the cell.
    title : str, optional
        Title of the left panel.

    Notes
    -----
    Black star: ``x_hat`` of the data; grey star: ``x_hat`` of the null; dots: the
    data's training clusters.
    """
    if len(axes) != 2:
        raise ValueError(f"axes must be two Axes, got {len(axes)}")
    cell = _checks.integer("cell", cell, low=0, high=len(meta["cells"]) - 1)
    key = f"loss_{cell}_0"
    if key not in arrays:
        raise ValueError(f"cell {cell} has no stored curves (it was not run)")
    ep = arrays[f"epochs_{cell}"]
    mu = np.array(meta["rules"]["mu"])
    for j, colours in ((1, ["0.6"] * 3), (0, [PALETTE["blue"], PALETTE["orange"], PALETTE["green"]])):
        for k, c in enumerate(colours[: arrays[f"traj_{cell}_{j}"].shape[0]]):
            tr = arrays[f"traj_{cell}_{j}"][k]
            axes[0].plot(tr[:, 0], tr[:, 1], color=c, lw=1.2 if j == 0 else 0.8)
            if axes[1] is not None:
                axes[1].plot(ep[1:], arrays[f"loss_{cell}_{j}"][k][1:], color=c, lw=1.2 if j == 0 else 0.8)
    axes[0].plot(*mu, "k*", ms=12)
    axes[0].plot(*[meta["rules"]["null_mu"]] * 2, "*", color="0.6", ms=10)  # the null's x_hat
    axes[0].plot([mu[0], 0, 0], [0, 0, mu[1]], "ko", ms=5)
    axes[0].set_xlabel("concept 1")
    axes[0].set_ylabel("concept 2")
    if axes[1] is not None:
        axes[1].set_xscale("log")
        axes[1].set_yscale("log")
        axes[1].set_xlabel("epoch")
        axes[1].set_ylabel("OOD test loss")
    if title:
        axes[0].set_title(title, fontsize=9)


def _cell_name(c: dict) -> str:
    return (f"{c['depth']} layer(s) {c['activation']}, width {c['width']}, init x{c['init_scale']:g}, "
            f"{c['mode']}, {c['variant']}, {c['layout']}")


def cell_explorer(stored: dict, name: str = "batch", cell: int = 0):
    """The chapter's explorer: the stored runs of any cell of any experiment
    (:func:`plot_cell`); a static figure at the defaults, controls in live mode
    (:func:`swingby.live.explorer`).

    Parameters
    ----------
    stored : dict
        ``{name: (arrays, meta)}`` of the loaded experiments.
    name : str
        The experiment shown first.
    cell : int
        The cell shown first.

    Returns
    -------
    swingby.live.Explorer or None
    """
    from swingby.live import explorer

    if not isinstance(stored, dict) or name not in stored:
        raise ValueError(f"name must be one of the stored experiments {sorted(stored) if isinstance(stored, dict) else stored}, "
                         f"got {name!r}")

    def draw(name, cell):
        arrays, meta = stored[name]
        cell = min(int(cell), len(meta["cells"]) - 1)
        if f"loss_{cell}_0" not in arrays:
            print(f"cell {cell} of {name} was not run")
            return None
        fig, axes = plt.subplots(1, 2, figsize=(8.5, 3.4))
        plot_cell(axes, arrays, meta, cell, title=f"{name}: {_cell_name(meta['cells'][cell])}")
        fig.tight_layout()
        return fig

    def controls():
        import ipywidgets as widgets
        return {"name": widgets.Dropdown(options=sorted(stored), value=name, description="question"),
                "cell": widgets.IntSlider(value=cell, min=0, max=max(len(m["cells"]) for _, m in stored.values()) - 1,
                                          description="cell")}
    return explorer(draw, {"name": name, "cell": cell}, controls, note="Move a control to redraw.")


def plot_alignment(axes, result, share_min: float, growth: float) -> None:
    """The four panels of Q2 (``book/open_questions.md``): (a) the share of the
    neurons' turning done against the growth of the weight norm, every run and the
    median, ReLU and linear; (b) the paired turn shares; (c) the Jacobian's entries at
    ``x_hat`` over training (median over runs); (d) the neuron directions of the first
    ReLU run on the two concept axes.

    Parameters
    ----------
    axes : sequence of 4 matplotlib.axes.Axes
        Where to draw.
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
    for runs, colour, name in ((result.relu, PALETTE["vermillion"], "ReLU"), (result.linear, PALETTE["blue"], "linear (null)")):
        for nr, tu in zip(runs.norm, runs.turned):
            ax.plot(nr, tu, color=colour, alpha=0.12, lw=0.7)
        ax.plot(np.median(runs.norm, 0), np.median(runs.turned, 0), color=colour, lw=2, label=name)
    ax.axvline(growth, color="k", ls=":")
    ax.axhline(share_min, color="k", ls="--", lw=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("weight norm / its start")
    ax.set_ylabel("share of the turning done")
    ax.legend()
    ax = axes[1]
    ax.scatter(result.linear.share, result.relu.share, s=14, color=PALETTE["vermillion"])
    lo = float(np.nanmin([result.linear.share.min(), result.relu.share.min(), share_min])) - 0.05
    hi = float(np.nanmax([result.linear.share.max(), result.relu.share.max(), share_min])) + 0.05
    ax.plot([lo, hi], [lo, hi], color="k", lw=0.8)
    ax.axhline(share_min, color="k", ls="--", lw=0.8)
    ax.set_xlabel(f"turn share before {growth:g}x, linear")
    ax.set_ylabel(f"turn share before {growth:g}x, ReLU")
    ax = axes[2]
    t = result.steps + 1
    for runs, ls, name in ((result.relu, "-", "ReLU"), (result.linear, "--", "linear")):
        J = np.median(runs.jac_xhat, 0)
        for (i, j), colour, label in (((1, 1), PALETTE["green"], "J_22 (strong)"), ((0, 0), PALETTE["orange"], "J_11 (weak)"),
                                      ((0, 1), PALETTE["purple"], "J_12 (minor)")):
            ax.plot(t, J[:, i, j], ls=ls, color=colour, label=f"{label}, {name}")
        ax.axvline(np.median(runs.step_growth) + 1, color="k", ls=ls, lw=0.6)
    strong = np.median(result.relu.stages[:, 0]) + 1
    ax.axvline(strong * result.ratio, color=PALETTE["orange"], ls=":", lw=1.2)
    ax.set_xscale("log")
    ax.set_xlabel("SGD step + 1")
    ax.set_ylabel("Jacobian at x_hat (median)")
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
    ax.set_xscale("log")
    ax.set_xlabel("SGD step + 1")
    ax.set_ylabel("neuron direction (degrees from cluster 2)")


def plot_init_contrast(axes, contrast) -> None:
    """Q1 in a diffusion model: class 11's blue-small fraction (pixel check) over
    training, one panel per colour separation, every seed's default-initialisation run
    (solid, blue) beside its larger-initialisation run (dashed, red), with the
    criterion's 80 % at the decisive separation.

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
        ax.set_xscale("log")
        ax.set_ylim(-0.03, 1.03)
        ax.set_xlabel("training step + 1")
        ax.set_title(f"dc = {dc:g}", fontsize=10)
    axes[0].set_ylabel("class 11: blue small (pixels)")
    axes[0].legend()
