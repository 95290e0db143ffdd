"""Figures of the observation chapters: output trajectories in the concept plane (Figs. 2,
11-16), test losses (Figs. 3, 14) and the hypercube of Fig. 7. Used by
``book/observations.md``, ``book/ood_checks.md``, ``book/topological_order.md`` and
``book/one_layer_theory.md``; the theory figures (:mod:`swingby.theory.plots`) draw their
trajectories with :func:`plot_trajectory` and :func:`mark_concept_plane`.

Every function draws on a matplotlib ``Axes`` it is given (or makes one) and refuses a
bad argument with a ``ValueError`` before drawing anything.
"""
from __future__ import annotations

import numpy as np

from swingby import _checks
from swingby.observations.hypercube import _check_test_index
from swingby.observations.learning import marker_indices
from swingby.style import _axes, _dims, _records_labels, _style


def plot_trajectory(ax, trajectory: np.ndarray, *, n_markers: int = 10, label=None, color=None,
                    dims=(0, 1), marker_steps: np.ndarray | None = None):
    """Draw an output trajectory in the concept plane with markers at equal
    training-time intervals (the paper's arrows).

    Parameters
    ----------
    ax : matplotlib Axes
        Where to draw.
    trajectory : array_like(float, ndim=2)
        ``(R, d)`` outputs, recorded at evenly spaced steps unless ``marker_steps`` is given.
    n_markers : int
        Number of equal intervals marked when ``marker_steps`` is None, ``> 0``.
    label : str or None
        Legend label.
    color : matplotlib colour or None
        Line colour (``None``: the next of the cycle).
    dims : pair of int
        The two concept axes drawn, distinct and in ``[0, d)``.
    marker_steps : array_like(int) or None
        Indices of the rows to mark.

    Returns
    -------
    matplotlib.lines.Line2D
        The trajectory's line.
    """
    _axes(ax)
    _style(color=color)
    trajectory = _checks.array("trajectory", trajectory, ndim=2)
    i, j = _dims(dims, trajectory.shape[1])
    n_markers = _checks.positive_int("n_markers", n_markers)
    _checks.memory(16.0 * n_markers, f"n_markers = {n_markers}")
    if marker_steps is None:
        marker_steps = np.linspace(0, len(trajectory) - 1, n_markers + 1).round().astype(int)
    marker_steps = _marker_steps(marker_steps, len(trajectory))
    line, = ax.plot(trajectory[:, i], trajectory[:, j], label=label, color=color, lw=1.5)
    ax.plot(trajectory[marker_steps, i], trajectory[marker_steps, j], ">", ms=4,
            color=line.get_color())
    return line


def _marker_steps(marker_steps, n_rows: int) -> np.ndarray:
    m = _checks.array("marker_steps", marker_steps, ndim=1, min_size=0)
    if np.any(m != np.round(m)) or np.any(m < 0) or np.any(m >= n_rows):
        raise ValueError(f"marker_steps must be integer row indices in [0, {n_rows}), got {_checks.short_repr(marker_steps)}")
    return m.astype(int)


def mark_concept_plane(ax, mu, *, dims=(0, 1)):
    """Mark training-cluster centres (open circles) and ``x_hat`` (star), both black, in
    the concept plane.

    Parameters
    ----------
    ax : matplotlib Axes
        Where to draw.
    mu : array_like(float, ndim=1)
        Cluster distances ``mu_p``.
    dims : pair of int
        The two concept axes drawn, distinct and in ``[0, len(mu))``.
    """
    _axes(ax)
    mu = _checks.array("mu", mu, ndim=1)
    i, j = _dims(dims, mu.size)
    ax.scatter([mu[i], 0], [0, mu[j]], facecolors="none", edgecolors="k", s=60, label="training centres")
    ax.scatter([mu[i]], [mu[j]], marker="*", color="k", s=120, label=r"$\hat{x}$")
    ax.set_xlabel(f"output along concept {i + 1}")
    ax.set_ylabel(f"output along concept {j + 1}")
    ax.set_aspect("equal", adjustable="datalim")


def plot_sweep_trajectories(ax, records, labels, *, n_markers: int = 10, title: str | None = None,
                            legend: bool = True):
    """Fig. 2 style panel: output trajectories at ``x_hat`` of several runs in the plane
    of concepts 1 and 2, with arrow markers at ``n_markers`` equal training-time
    intervals and the training-cluster centres (circles) and ``x_hat`` (star) of every
    run. Used in ``book/observations.md`` and ``book/ood_checks.md``.

    Parameters
    ----------
    ax : matplotlib Axes
        Where to draw.
    records : sequence of TrainRecord
        Finite runs, non-empty.
    labels : sequence of str
        One legend label per record.
    n_markers : int
        Number of equal training-time intervals marked, ``> 0``.
    title : str or None
        Panel title.
    legend : bool
        Draw the legend.

    Returns
    -------
    matplotlib Axes
        The axes drawn on.
    """
    _axes(ax)
    _style(title=title)
    records, labels = _records_labels(records, labels)
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
    """Fig. 3 / Fig. 14 style panel: OOD test loss over training (``book/observations.md``).

    Parameters
    ----------
    ax : matplotlib Axes
        Where to draw.
    records : sequence of TrainRecord
        Finite runs, non-empty.
    labels : sequence of str
        One legend label per record.
    logx : bool
        Log time axis (epoch 0 is left out).
    title : str or None
        Panel title.

    Returns
    -------
    matplotlib Axes
        The axes drawn on.
    """
    _axes(ax)
    _style(title=title)
    records, labels = _records_labels(records, labels)
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
    """Sec. 3.2 panel: the distance the output at ``x_hat`` moves per equal interval,
    divided by its largest, for every run (thin lines, log scale), with the band of
    :func:`~swingby.observations.slowing.terminal_slowing` shaded. Used in
    ``book/observations.md``.

    Parameters
    ----------
    ax : matplotlib Axes
        Where to draw.
    records : sequence of TrainRecord
        Finite runs, non-empty.
    band : pair of float
        ``(low, high)`` edges of the shaded band, ``0 < low < high <= 1``.
    color : matplotlib colour or None
        Colour of the lines.
    title : str or None
        Panel title.
    n_intervals : int
        Number of equal training-time intervals, ``> 0``.

    Returns
    -------
    matplotlib Axes
        The axes drawn on.
    """
    from swingby.observations.learning import _record_list, displacement_per_interval

    _axes(ax)
    _style(title=title)
    records = _record_list("records", records)
    try:
        low, high = (float(v) for v in band)
    except (TypeError, ValueError):
        low = high = None
    if low is None or not 0 < low < high <= 1:
        raise ValueError(f"band must be (low, high) with 0 < low < high <= 1, got {band!r}")
    ax.axhspan(low, high, color="0.85", zorder=0)
    for rec in records:
        mids, dist = displacement_per_interval(rec, n_intervals)
        ax.semilogy(mids, np.maximum(dist / dist.max(), 1e-5), "-", lw=0.8, alpha=0.6, color=color)
    ax.set_xlabel("epoch (middle of the interval)")
    ax.set_ylabel("distance moved per interval / largest")
    if title:
        ax.set_title(title, fontsize=10)
    return ax


def hypercube_layout(test_index: np.ndarray) -> np.ndarray:
    """2-D positions of the nodes ``v in {0,1}^s`` of the hypercube graph of Fig. 7:
    ``x`` = number of ones (the rank in the componentwise order), ``y`` spreads
    the nodes of one rank.

    Parameters
    ----------
    test_index : array_like, shape (2**s, s)
        The 0/1 vectors ``v``.

    Returns
    -------
    numpy.ndarray
        ``(2**s, 2)`` positions.
    """
    V = _check_test_index(test_index).astype(int)
    rank = V.sum(axis=1)
    pos = np.zeros((len(V), 2))
    for r in np.unique(rank):
        idx = np.flatnonzero(rank == r)
        pos[idx, 0] = r
        pos[idx, 1] = np.linspace(-(len(idx) - 1) / 2, (len(idx) - 1) / 2, len(idx))
    return pos


#: Most nodes :func:`plot_hypercube` draws.
MAX_HYPERCUBE_NODES = 2**8


def plot_hypercube(ax, test_index: np.ndarray, losses: np.ndarray, *, vmax: float = 1.0,
                   title: str | None = None, cmap: str = "viridis"):
    """Fig. 7 panel: the test points of eq. (B.1) as a hypercube graph (edges join
    indices at Hamming distance 1), coloured by their loss, truncated at ``vmax``
    (``book/topological_order.md``).

    Parameters
    ----------
    ax : matplotlib Axes
        Where to draw.
    test_index : array_like, shape (2**s, s)
        The ``v in {0,1}^s`` of each test point; at most :data:`MAX_HYPERCUBE_NODES`
        rows (``s <= 8``).
    losses : array_like(float, ndim=1)
        One loss per test point, finite.
    vmax : float
        Top of the colour scale, ``> 0``.
    title : str or None
        Panel title.
    cmap : str
        Name of a matplotlib colormap.

    Returns
    -------
    matplotlib.collections.PathCollection
        The nodes (for a colour bar).
    """
    _axes(ax)
    _style(title=title, cmap=cmap)
    pos = hypercube_layout(test_index)
    V = np.asarray(test_index).astype(int)
    if len(V) > MAX_HYPERCUBE_NODES:
        raise ValueError(f"test_index has {len(V)} rows; the graph draws every edge, so at most "
                         f"{MAX_HYPERCUBE_NODES} nodes (s <= 8) are allowed")
    losses = _checks.array("losses", losses, shape=(len(V),))
    vmax = _checks.positive_float("vmax", vmax)
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
    """Fig. 15 panel: a run's output trajectory at ``x_hat`` drawn over its training
    points in concept coordinates (every ``every``-th point, grey), with the dashed ball of
    radius ``radius`` around ``x_hat`` that truncation empties. Used in
    ``book/ood_checks.md``.

    Parameters
    ----------
    ax : matplotlib Axes
        Where to draw.
    record : TrainRecord
        A finite run on ``data``.
    data : swingby.sim.data.SimData
        Its training set.
    radius : float
        The truncation radius, ``> 0``.
    every : int
        Draw every ``every``-th training point, ``> 0``.
    label, title : str or None
        The trajectory's legend label and the panel title.

    Returns
    -------
    matplotlib Axes
        The axes drawn on.
    """
    import matplotlib.pyplot as plt

    radius = _checks.positive_float("radius", radius)
    every = _checks.positive_int("every", every)
    points = data.to_concept(data.X).numpy()[::every]
    ax.scatter(points[:, 0], points[:, 1], s=2, alpha=0.3, color="grey",
               label=f"training points (every {every}th)")
    centre = tuple(float(v) for v in record.test_points[-1, :2])
    ax.add_patch(plt.Circle(centre, radius, fill=False, ls="--", color="k"))
    return plot_sweep_trajectories(ax, [record], [label or "output at $\\hat{x}$"], title=title)


def plot_order_over_time(ax, summaries: dict):
    """The share of comparable pairs that satisfy eq. (B.2) literally at each recorded
    time, mean over the runs, with all pairs (solid) and without those at the origin
    (dashed), one colour per set of runs. Used in ``book/topological_order.md``.

    Parameters
    ----------
    ax : matplotlib Axes
        Where to draw.
    summaries : dict
        ``{name: OrderSummary}`` from :func:`~swingby.observations.hypercube.order_summary`,
        non-empty, at most four.

    Returns
    -------
    matplotlib Axes
        The axes drawn on.
    """
    _axes(ax)
    if not isinstance(summaries, dict) or not 1 <= len(summaries) <= 4:
        raise ValueError("summaries must be a dict of one to four OrderSummary values, got "
                         f"{type(summaries).__name__} {summaries if not isinstance(summaries, dict) else len(summaries)}")
    for name, st in summaries.items():
        (line,) = ax.plot(st.epochs, st.per_time.mean(axis=0), label=f"{name}: all pairs")
        ax.plot(st.epochs, st.per_time_x0.mean(axis=0), ls="--", color=line.get_color(),
                label=f"{name}: pairs with $u \\neq 0$")
    ax.set_xscale("log")
    ax.set_xlabel("epoch (log scale)")
    ax.set_ylabel("fraction of comparable pairs\nsatisfying eq. (B.2)")
    ax.legend(fontsize=7)
    return ax
