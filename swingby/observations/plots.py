"""Panels of the observation chapters: output trajectories in the concept plane (Figs. 2, 11-16), test
losses (Figs. 3, 14) and the hypercube of Fig. 7. Each draws on the matplotlib Axes ``ax`` it is given
(``title``: the panel's title) and refuses a bad argument before drawing anything.
"""
from __future__ import annotations

import numpy as np
from matplotlib.patches import Circle

from swingby import _checks
from swingby.observations.hypercube import check_test_index
from swingby.observations.learning import check_records, displacement_per_interval, marker_indices
from swingby.style import check_axes, check_style

__all__ = ["plot_sweep_trajectories", "plot_test_losses", "plot_hypercube", "plot_trajectory_over_data",
           "plot_order_over_time"]


def _panel(ax, title, records, labels) -> tuple[list, list]:
    """Check a panel's ``ax`` and ``title``; its finite :class:`~swingby.sim.train_loop.TrainRecord` s, a label each."""
    check_axes(ax)
    check_style(title=title)
    records = check_records("records", records)
    labels = [] if isinstance(labels, (str, bytes)) or not hasattr(labels, "__iter__") else list(labels)
    if len(labels) != len(records):
        raise ValueError(f"labels must hold one label per record, got {len(records)} records and labels {labels!r}")
    return records, labels


def plot_trajectory(ax, trajectory, *, n_markers: int = 10, label=None, color=None, dims=(0, 1),
                    marker_steps=None, lw: float = 1.5):
    """Draw a trajectory ``(R, d)`` in the plane of concepts ``dims``, arrows at rows ``marker_steps`` (or evenly)."""
    trajectory = np.asarray(trajectory, dtype=float)
    i, j = dims
    if marker_steps is None:
        marker_steps = np.linspace(0, len(trajectory) - 1, n_markers + 1).round().astype(int)
    marker_steps = np.asarray(marker_steps).astype(int)
    line, = ax.plot(trajectory[:, i], trajectory[:, j], label=label, color=color, lw=lw)
    for m in marker_steps:  # an arrowhead pointing the way the path goes next (or came, at its end)
        a, b = (m, m + 1) if m + 1 < len(trajectory) else (m - 1, m)
        ends = trajectory[[a, b]][:, [i, j]]
        if a >= 0 and np.all(np.isfinite(ends)) and np.any(ends[1] != ends[0]):
            ax.annotate("", xy=trajectory[b, [i, j]], xytext=trajectory[a, [i, j]], annotation_clip=False,
                        arrowprops=dict(arrowstyle="-|>", color=line.get_color(), lw=0, mutation_scale=12,
                                        shrinkA=0, shrinkB=0))
    return line


def mark_concept_plane(ax, mu, *, dims=(0, 1)):
    """Mark the training-cluster centres (open circles) and ``x_hat`` (star) in the concept plane."""
    i, j = dims
    ax.scatter([mu[i], 0], [0, mu[j]], facecolors="none", edgecolors="k", s=60, label="training centres")
    ax.scatter([mu[i]], [mu[j]], marker="*", color="k", s=120, label=r"$\hat{x}$")
    ax.set_xlabel(f"output along concept {i + 1}")
    ax.set_ylabel(f"output along concept {j + 1}")
    ax.set_aspect("equal", adjustable="datalim")


def plot_sweep_trajectories(ax, records, labels, *, n_markers: int = 10, title: str | None = None,
                            legend: bool = True):
    """Fig. 2 style panel: output trajectories at ``x_hat`` in the plane of concepts 1 and 2, arrows at
    ``n_markers`` equal training-time intervals, each run's cluster centres (circles) and ``x_hat`` (star).

    Parameters
    ----------
    ax, records, labels, n_markers, title, legend
        The axes; finite runs and a legend label each; intervals marked; the panel title; draw the legend.
    """
    records, labels = _panel(ax, title, records, labels)
    n_markers = _checks.positive_int("n_markers", n_markers)
    legend = _checks.flag("legend", legend)
    for rec, lab in zip(records, labels):
        line = plot_trajectory(ax, rec.trajectory, label=lab, marker_steps=marker_indices(rec, n_markers))
        mu = rec.test_points[-1, :2]
        ax.scatter([mu[0], 0], [0, mu[1]], facecolors="none", edgecolors=line.get_color(), s=60)
        ax.scatter([mu[0]], [mu[1]], marker="*", color=line.get_color(), s=110, edgecolors="k", lw=0.5)
    ax.set_xlabel("output along concept 1")
    ax.set_ylabel("output along concept 2")
    ax.set_aspect("equal", adjustable="datalim")
    if title:
        ax.set_title(title, fontsize=10)
    if legend:
        ax.legend(loc="best")
    return ax


def plot_test_losses(ax, records, labels, *, logx: bool = True, title: str | None = None):
    """Fig. 3 / Fig. 14 style panel: the OOD test loss of runs over training.

    Parameters
    ----------
    ax, records, labels, title, logx
        As in :func:`plot_sweep_trajectories`; a logarithmic time axis (leaving out epoch 0).
    """
    records, labels = _panel(ax, title, records, labels)
    logx = _checks.flag("logx", logx)
    for rec, lab in zip(records, labels):
        e = rec.epochs
        keep = e > 0 if logx else slice(None)
        ax.plot(e[keep], rec.test_loss[keep], label=lab)
    if logx:
        ax.set_xscale("log")
    ax.set_xlabel("epoch" + (" (log scale)" if logx else ""))
    ax.set_ylabel(r"OOD test loss $\frac{1}{2}\|f(\hat{x}) - \hat{x}\|^2$")
    if title:
        ax.set_title(title, fontsize=10)
    ax.legend()
    return ax


def plot_relative_displacements(ax, records, *, band=(0.05, 0.5), color=None, title: str | None = None,
                                n_intervals: int = 20):
    """Sec. 3.2 panel: each run's distance moved per interval over its largest, the check's ``band`` shaded."""
    records = check_records("records", records)
    ax.axhspan(*band, color="0.85", zorder=0)
    for rec in records:
        mids, dist = displacement_per_interval(rec, n_intervals)
        ax.semilogy(mids, np.maximum(dist / dist.max(), 1e-5), "-", lw=0.8, alpha=0.6, color=color)
    ax.set_xlabel("epoch (middle of the interval)")
    ax.set_ylabel("distance moved per interval / largest")
    if title:
        ax.set_title(title, fontsize=10)
    return ax


#: Most nodes :func:`plot_hypercube` draws.
MAX_HYPERCUBE_NODES = 2**8


def plot_hypercube(ax, test_index: np.ndarray, losses: np.ndarray, *, vmax: float = 1.0,
                   title: str | None = None, cmap: str = "viridis"):
    """Fig. 7 panel: the test points of eq. (B.1) as a hypercube graph (edges at Hamming distance 1),
    coloured by their loss truncated at ``vmax``; returns the nodes (for a colour bar).

    Parameters
    ----------
    ax, test_index, losses, vmax, title, cmap
        The axes; the ``(2**s, s)`` ``v`` of each test point (``s <= 8``); a loss each; the top of the colour
        scale; the panel title; a matplotlib colormap's name.
    """
    check_axes(ax)
    check_style(title=title, cmap=cmap)
    V = check_test_index(test_index).astype(int)
    if len(V) > MAX_HYPERCUBE_NODES:
        raise ValueError(f"test_index has {len(V)} rows; the graph draws every edge, so at most "
                         f"{MAX_HYPERCUBE_NODES} nodes (s <= 8) are allowed")
    losses = _checks.array("losses", losses, shape=(len(V),))
    vmax = _checks.positive_float("vmax", vmax)
    rank, pos = V.sum(axis=1), np.zeros((len(V), 2))  # x: the number of ones, y: spread within a rank
    for r in np.unique(rank):
        idx = np.flatnonzero(rank == r)
        pos[idx, 0] = r
        pos[idx, 1] = np.linspace(-(len(idx) - 1) / 2, (len(idx) - 1) / 2, len(idx))
    for i in range(len(V)):
        for j in range(i + 1, len(V)):
            if np.abs(V[i] - V[j]).sum() == 1:
                ax.plot(*pos[[i, j]].T, color="grey", lw=0.6, zorder=1)
    sc = ax.scatter(*pos.T, c=np.minimum(losses, vmax), cmap=cmap, vmin=0, vmax=vmax, s=420,
                    edgecolors="k", zorder=2)
    for k, v in enumerate(V):
        ax.text(*pos[k], "".join(str(int(x)) for x in v), ha="center", va="center", fontsize=7,
                color="w" if losses[k] < 0.5 * vmax else "k", zorder=3)
    ax.set_xticks(range(V.shape[1] + 1))
    ax.set_xlabel("number of concepts combined, $\\|v\\|_1$")
    ax.set_yticks([])
    if title:
        ax.set_title(title, fontsize=10)
    return sc


def plot_trajectory_over_data(ax, record, data, *, radius: float, every: int = 10, label: str | None = None,
                              title: str | None = None):
    """Fig. 15 panel: a run's output trajectory over every ``every``-th training point (concept coordinates),
    with the dashed ball of radius ``radius`` around ``x_hat`` that truncation empties.

    Parameters
    ----------
    ax, record, data, radius, every, label, title
        The axes; a finite run and its :class:`~swingby.sim.data.SimData`; the truncation radius; the
        thinning; the trajectory's legend label; the panel title.
    """
    radius = _checks.positive_float("radius", radius)
    every = _checks.positive_int("every", every)
    points = data.to_concept(data.X).numpy()[::every]
    ax.scatter(points[:, 0], points[:, 1], s=2, alpha=0.3, color="grey",
               label=f"training points (every {every}th)")
    centre = tuple(float(v) for v in record.test_points[-1, :2])
    ax.add_patch(Circle(centre, radius, fill=False, ls="--", color="k"))
    return plot_sweep_trajectories(ax, [record], [label or "output at $\\hat{x}$"], title=title)


def plot_order_over_time(ax, summaries: dict):
    """The mean share of comparable pairs keeping eq. (B.2) at each record, all (solid) and ``u != 0`` (dashed).

    Parameters
    ----------
    ax, summaries
        The axes, and one to four ``{name: OrderSummary}`` (:func:`~swingby.observations.hypercube.order_summary`).
    """
    check_axes(ax)
    if not isinstance(summaries, dict) or not 1 <= len(summaries) <= 4:
        got = summaries if not isinstance(summaries, dict) else len(summaries)
        raise ValueError("summaries must be a dict of one to four OrderSummary values, "
                         f"got {type(summaries).__name__} {got}")
    for name, st in summaries.items():
        (line,) = ax.plot(st.epochs, st.per_time.mean(axis=0), label=f"{name}: all pairs")
        ax.plot(st.epochs, st.per_time_x0.mean(axis=0), ls="--", color=line.get_color(),
                label=f"{name}: pairs with $u \\neq 0$")
    ax.set_xscale("log")
    ax.set_xlabel("epoch (log scale)")
    ax.set_ylabel("fraction of comparable pairs\nsatisfying eq. (B.2)")
    ax.legend(fontsize=7)
    return ax
