"""Figures of the diffusion chapter (``book/diffusion.md``): sample grids (paper Fig. 19), concept-space
trajectories, MSE and speed (paper Fig. 6(a)-(c)), and the per-run read-outs of the registered swing and
bend checks. ``res`` is a complete sweep (:func:`swingby.diffusion.runs.storage.load_results`), ``ax`` the
axes to draw on (default: the current axes), ``design`` the registered design."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from swingby import _checks
from swingby.claims.diffusion import DESIGN, check_design
from swingby.diffusion.concept_space import concept_mse
from swingby.diffusion.data import CLASSES
from swingby.diffusion.fig6 import analysis as A
from swingby.diffusion.fig6.confirm import blocks, mse_bump, readable, swing
from swingby.diffusion.readouts import run_paths
from swingby.style import PALETTE, check_axes, check_style

__all__ = ["CLASS_NAMES", "panel_grid", "plot_image_grid", "plot_mse", "plot_run_speeds", "plot_trajectories",
           "plot_weak_runs"]

CLASS_NAMES = {"00": "00 red big", "01": "01 red small", "10": "10 blue big", "11": "11 blue small (held out)"}
#: one Okabe-Ito colour per class: the red classes vermillion and orange, the blue ones blue and purple
CLASS_COLOURS = {"00": PALETTE["vermillion"], "01": PALETTE["orange"], "10": PALETTE["blue"],
                 "11": PALETTE["purple"]}


def axes_for(axes, n: int) -> np.ndarray:
    """``n`` matplotlib axes (one per colour separation)."""
    axes = np.atleast_1d(np.asarray(axes, dtype=object)).ravel()
    if axes.size < n:
        raise ValueError(f"axes must hold one Axes per colour separation ({n}), got {axes.size}")
    for ax in axes[:n]:
        check_axes(ax)
    return axes


def panel_grid(n: int, *, ncols: int = 3, panel: tuple = (3.2, 2.7)):
    """A figure and its ``n`` axes in rows of ``ncols`` (a long strip shrinks until its labels cannot be read),
    the unused cells removed.

    Parameters
    ----------
    n, ncols : int
        Panels (at least 1) and panels per row.
    panel : (float, float)
        Width and height of one panel in inches.
    """
    n = _checks.integer("n", n, low=1, high=64)
    ncols = _checks.integer("ncols", ncols, low=1, high=16)
    if (not isinstance(panel, tuple) or len(panel) != 2
            or not all(isinstance(v, (int, float)) and 0 < v <= 20 for v in panel)):
        raise ValueError(f"panel must be (width, height) in inches, each in (0, 20], got {panel!r}")
    cols = min(ncols, n)
    rows = -(-n // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(panel[0] * cols, panel[1] * rows), sharey=True, squeeze=False)
    flat = axes.ravel()
    for ax in flat[n:]:
        ax.remove()
    return fig, flat[:n]


def label_panels(axes, xlabel: str, ylabel: str) -> None:
    """Put ``xlabel`` under the bottom panel of every column and ``ylabel`` beside the first panel of every row."""
    axes = np.atleast_1d(np.asarray(axes, dtype=object)).ravel()
    specs = [ax.get_subplotspec() for ax in axes]
    for ax, spec in zip(axes, specs):
        if spec is None or not any(o is not None and o.colspan == spec.colspan and o.rowspan.start == spec.rowspan.stop
                                   for o in specs):  # no panel below it
            ax.set_xlabel(xlabel)
        if spec is None or spec.is_first_col():
            ax.set_ylabel(ylabel)


def plot_image_grid(images: np.ndarray, ax=None, *, row_labels=None, title: str | None = None):
    """Draw ``images (rows, cols, 3, H, W)``, ``uint8`` or in [0, 1], as one mosaic with 1-pixel white gaps
    (paper Fig. 19).

    Parameters
    ----------
    images : array
    ax, row_labels, title : optional
        Where to draw, one label per row, the panel's title.
    """
    images = np.asarray(images)
    if images.dtype != np.uint8:
        images = _checks.array("images", images)
    if images.ndim != 5 or images.shape[2] != 3 or 0 in images.shape:
        raise ValueError(f"images must be a non-empty (rows, cols, 3, H, W) array, got shape {images.shape}")
    check_style(title=title)
    R, C, _, H, W = images.shape
    if row_labels is not None and (isinstance(row_labels, str) or not hasattr(row_labels, "__len__")
                                   or len(row_labels) != R):
        raise ValueError(f"row_labels must hold one label per row ({R}), got {row_labels!r}")
    mosaic = np.ones((R, H + 1, C, W + 1, 3))
    scaled = images.astype(float) / 255 if images.dtype == np.uint8 else images
    mosaic[:, :H, :, :W] = np.clip(scaled.transpose(0, 3, 1, 4, 2), 0, 1)  # (R, H, C, W, 3)
    mosaic = mosaic.reshape(R * (H + 1), C * (W + 1), 3)[:-1, :-1]
    ax = check_axes(plt.gca() if ax is None else ax)
    ax.imshow(mosaic, interpolation="nearest")
    ax.set_xticks([])
    if row_labels is not None:
        ax.set_yticks([r * (H + 1) + H / 2 for r in range(R)], row_labels, fontsize=8)
    else:
        ax.set_yticks([])
    ax.grid(False)
    if title:
        ax.set_title(title, fontsize=10)
    return ax


def corners(ax) -> None:
    """Mark the training classes' corners and class 11's target in concept space."""
    for cls, (x, y) in {"00": (0, 0), "01": (0, 1), "10": (1, 0)}.items():
        ax.plot(x, y, "o", mfc="none", mec=CLASS_COLOURS[cls], ms=10)
    ax.plot(1, 1, "*", color="k", ms=13, label="target of 11")
    ax.set_xlim(-0.05, 1.05)
    ax.set_ylim(-0.05, 1.05)
    ax.set_aspect("equal")
    ax.set_xlabel("P(blue)")


def plot_trajectories(res: dict, axes):
    """Fig. 6(a): class points in concept space over training, a panel per colour separation; class 11
    solid (each seed's path thin), the training classes dashed.

    Parameters
    ----------
    res, axes
        A complete sweep; an Axes per separation.
    """
    traj, per_seed = A.mean_trajectories(res), A.trajectories(res)
    dcs = res["meta"]["config"]["separations"]
    axes = axes_for(axes, len(dcs))
    for i, (ax, dc) in enumerate(zip(axes, dcs)):
        for c, cls in enumerate(CLASSES):
            held = cls == "11"
            ax.plot(traj[i, :, c, 0], traj[i, :, c, 1], "-" if held else "--", color=CLASS_COLOURS[cls],
                    lw=2 if held else 1, label=CLASS_NAMES[cls], marker="." if held else None, ms=5)
            ax.plot(traj[i, -1, c, 0], traj[i, -1, c, 1], ">", color=CLASS_COLOURS[cls], ms=6)
        for s in range(per_seed.shape[1]):
            ax.plot(per_seed[i, s, :, 3, 0], per_seed[i, s, :, 3, 1], color=CLASS_COLOURS["11"], lw=0.6, alpha=0.35)
        corners(ax)
        ax.set_title(f"colour separation {dc:.3g}", fontsize=10)
    axes[0].set_ylabel("P(small)")
    return axes


def plot_mse(res: dict, ax=None):
    """Fig. 6(b): class 11's concept-space MSE to (1, 1) over training steps, the mean of the seeds' own
    curves with a band of one standard error over seeds.

    Parameters
    ----------
    res, ax
    """
    per_seed = concept_mse(A.trajectories(res)[:, :, :, A.CLASS_11])   # (dc, seed, checkpoint)
    steps = np.asarray(res["meta"]["checkpoint_steps"])
    dcs = res["meta"]["config"]["separations"]
    ax = check_axes(plt.gca() if ax is None else ax)
    mean = per_seed.mean(axis=1)
    se = per_seed.std(axis=1, ddof=1) / np.sqrt(per_seed.shape[1]) if per_seed.shape[1] > 1 else 0 * mean
    for i, dc in enumerate(dcs):
        col = plt.get_cmap("viridis")(i / max(1, len(dcs) - 1))
        ax.plot(steps, mean[i], "-o", ms=3, color=col, label=f"dc = {dc:.3g}")
        ax.fill_between(steps, mean[i] - se[i], mean[i] + se[i], color=col, alpha=0.2, lw=0)
    ax.set_xlabel("training step")
    ax.set_ylabel("concept-space MSE of class 11")
    ax.legend()
    return ax


def run_speeds(steps: np.ndarray, points: np.ndarray, noise: np.ndarray,
               design=DESIGN) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Interval midpoints, speeds and moving levels (``design.z`` noise floors) of the slowing check's block means."""
    if steps.size // design.sustain < 2:
        return np.empty(0), np.empty(0), np.empty(0)
    T, B, floor = blocks(steps, points, noise, design)
    speed = np.linalg.norm(np.diff(B, axis=0), axis=1) / np.diff(T)
    return 0.5 * (T[1:] + T[:-1]), speed, design.z * floor


def plot_run_speeds(res: dict, ax=None, design=DESIGN):
    """Fig. 6(c) as the slowing check reads it: class 11's speed in every run from its first disc checkpoint,
    on block means, a colour per separation, and in grey the level above which an interval is moving.

    Parameters
    ----------
    res, ax, design
    """
    design = check_design(design)
    rp = run_paths(res, design)
    ax = check_axes(plt.gca() if ax is None else ax)
    floor_label = f"{design.z:g} x noise floor (moving above it)"
    for i, dc in enumerate(rp.dc):
        col = plt.get_cmap("viridis")(i / max(1, rp.dc.size - 1))
        label = f"dc = {dc:.3g}"
        for s in range(rp.onset.shape[1]):
            mid, speed, level = run_speeds(*rp.run(i, s), design)
            if mid.size == 0:
                continue
            ax.loglog(mid, np.maximum(level, 1e-7), "--", color="0.6", lw=0.6, alpha=0.6, label=floor_label)
            ax.loglog(mid, np.maximum(speed, 1e-7), "-", color=col, lw=0.9, alpha=0.8, label=label)
            label = floor_label = None
    ax.set_xlabel("training step")
    ax.set_ylabel("speed |dC/dt| per step")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return ax


def plot_weak_runs(res: dict, axes, design=DESIGN) -> None:
    """The per-run read-outs of the swing (Fig. 6a) and bend (Fig. 6b) checks at weak colour signal: class 11's
    P(blue) (top) and MSE to (1, 1) (bottom) from each run's first disc checkpoint, a column per separation
    ``dc <= design.weak_max_dc``; solid where the run passes, dotted where not, a dot at the turning point.

    Parameters
    ----------
    res, axes, design
        As the module says; ``axes`` a ``(2, W)`` array, ``W`` the sweep's weak separations.
    """
    design = check_design(design)
    rp = run_paths(res, design)
    weak = np.flatnonzero(rp.dc <= design.weak_max_dc + 1e-9)
    grid = np.asarray(axes, dtype=object)
    if weak.size == 0:
        raise ValueError(f"res has no separation at or below weak_max_dc = {design.weak_max_dc}")
    if grid.shape != (2, weak.size):
        raise ValueError(f"axes must be a (2, {weak.size}) array of Axes (rows: P(blue), MSE; one column per "
                         f"weak separation), got shape {grid.shape}")
    for ax in grid.ravel():
        check_axes(ax)
    for col, i in enumerate(weak):
        for s in range(rp.onset.shape[1]):
            steps, pts, noise = rp.run(i, s)
            if not readable(steps, design):
                continue
            curves = (pts[:, 0], ((1.0 - pts) ** 2).mean(axis=1))
            for row, (y, check) in enumerate(zip(curves, (swing, mse_bump))):
                v, ax = check(pts, noise, design), grid[row, col]
                colour = PALETTE["blue"] if v.passed else PALETTE["black"]
                ax.plot(steps, y, "-" if v.passed else ":", lw=1.1, color=colour, alpha=0.8 if v.passed else 0.5)
                if v.passed:
                    k = v.trough + design.sustain // 2
                    ax.plot(steps[k], y[k], "o", ms=3.5, color=PALETTE["vermillion"])
        grid[0, col].set_title(f"dc = {rp.dc[i]:.3g}", fontsize=10)
        grid[1, col].set_xlabel("training step")
        for row in range(2):
            grid[row, col].set_xscale("log")
    grid[0, 0].set_ylabel("P(blue) of class 11")
    grid[1, 0].set_ylabel("MSE of class 11 to (1, 1)")
    grid[0, 0].plot([], [], "-", color=PALETTE["blue"], label="run passes")
    grid[0, 0].plot([], [], ":", color=PALETTE["black"], alpha=0.5, label="run does not")
    grid[0, 0].plot([], [], "o", ms=3.5, color=PALETTE["vermillion"], label="turning point")
    grid[0, 0].legend(loc="lower right")
