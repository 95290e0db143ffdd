"""Figures shared by the chapters: the SIM data in 3-D (Fig. 1c) and output
trajectories in the concept plane (Fig. 2)."""
from __future__ import annotations

import numpy as np
import matplotlib.pyplot as plt

from swingby.sim import SimData


def plot_sim_3d(data: SimData, ax=None, *, max_points: int = 600, seed: int = 0):
    """Fig. 1(c): training clusters at vertices of a box and the OOD test point.

    Plots the first three concept coordinates of ``data`` (rotated back), the
    box spanned by the cluster centres, every eq. (B.1) test point and ``x_hat``.
    """
    if ax is None:
        ax = plt.figure(figsize=(5.5, 5)).add_subplot(projection="3d")
    Xc = data.to_concept(data.X).numpy()
    pts = data.to_concept(data.test_points).numpy()
    k = min(3, data.d)
    pad = lambda a: np.pad(a[:, :k], ((0, 0), (0, 3 - k)))  # noqa: E731
    rng = np.random.default_rng(seed)
    labels = data.labels.numpy()
    for c in np.unique(labels):
        idx = np.flatnonzero(labels == c)
        idx = rng.choice(idx, size=min(max_points, idx.size), replace=False)
        name = "origin cluster" if c == data.s else f"cluster {c + 1}"
        ax.scatter(*pad(Xc[idx]).T, s=3, alpha=0.35, label=name)
    P = pad(pts)
    idx = data.test_index.numpy()
    for a in range(len(P)):  # hypercube edges between test points
        for b in range(a + 1, len(P)):
            if np.abs(idx[a] - idx[b]).sum() == 1:
                ax.plot(*np.stack([P[a], P[b]]).T, color="grey", lw=0.8, alpha=0.6)
    ax.scatter(*P[:-1].T, color="k", s=18, label="test points (B.1)")
    ax.scatter(*P[-1], color="red", s=80, marker="*", label=r"OOD test point $\hat{x}$")
    ax.set_xlabel("concept 1")
    ax.set_ylabel("concept 2")
    ax.set_zlabel("concept 3")
    ax.legend(loc="upper left", fontsize=8)
    return ax


def plot_trajectory(ax, trajectory: np.ndarray, *, n_markers: int = 10, label=None, color=None,
                    dims=(0, 1), marker_steps: np.ndarray | None = None):
    """Draw an output trajectory in the concept plane with markers at equal
    training-time intervals (the paper's arrows).

    ``trajectory`` is ``(R, d)`` recorded at evenly spaced steps (or give
    ``marker_steps``, indices of the rows to mark).
    """
    i, j = dims
    line, = ax.plot(trajectory[:, i], trajectory[:, j], label=label, color=color, lw=1.5)
    if marker_steps is None:
        marker_steps = np.linspace(0, len(trajectory) - 1, n_markers + 1).round().astype(int)
    ax.plot(trajectory[marker_steps, i], trajectory[marker_steps, j], ">", ms=4,
            color=line.get_color())
    return line


def mark_concept_plane(ax, mu, *, dims=(0, 1)):
    """Mark training-cluster centres (circles) and ``x_hat`` (star) in the concept plane."""
    i, j = dims
    mu = np.asarray(mu, dtype=float)
    ax.scatter([mu[i], 0], [0, mu[j]], facecolors="none", edgecolors="k", s=60, label="training centres")
    ax.scatter([mu[i]], [mu[j]], marker="*", color="red", s=120, label=r"$\hat{x}$")
    ax.set_xlabel(f"output along concept {i + 1}")
    ax.set_ylabel(f"output along concept {j + 1}")
    ax.set_aspect("equal", adjustable="datalim")
