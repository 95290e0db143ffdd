"""The SIM data in 3-D (Fig. 1c), used by ``book/sim_task.md``."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from swingby import _checks
from swingby.sim.data import SimData
from swingby.style import PALETTE, check_axes

__all__ = ["plot_sim_3d"]


def plot_sim_3d(data: SimData, ax=None, *, max_points: int = 600, seed: int = 0):
    """Fig. 1(c) on a 3-D ``ax``, returned: the first three concept coordinates of the training clusters,
    every test point of eq. (B.1) with the hypercube's edges, and ``x_hat``.

    Parameters
    ----------
    data, ax
        From :func:`swingby.sim.data.make_sim`; a matplotlib 3-D Axes, or ``None`` for a new figure.
    max_points, seed
        Most points drawn per cluster (a random subset), and the subset's seed.
    """
    _checks.instance("data", data, SimData, "swingby.sim.data.SimData (from make_sim)")
    max_points = _checks.positive_int("max_points", max_points)
    rng = np.random.default_rng(_checks.seed("seed", seed))
    if ax is None:
        ax = plt.figure(figsize=(5.5, 5)).add_subplot(projection="3d")
    check_axes(ax, three_d=True)
    Xc = data.to_concept(data.X).numpy()
    pts = data.to_concept(data.test_points).numpy()
    k = min(3, data.d)
    pad = lambda pts: np.pad(pts[:, :k], ((0, 0), (0, 3 - k)))  # noqa: E731
    labels = data.labels.numpy()
    for c in np.unique(labels):
        idx = np.flatnonzero(labels == c)
        idx = rng.choice(idx, size=min(max_points, idx.size), replace=False)
        name = "origin cluster" if c == data.s else f"cluster {c + 1}"
        ax.scatter(*pad(Xc[idx]).T, s=3, alpha=0.35, label=name)
    P = pad(pts)
    idx = data.test_index.numpy()
    for i in range(len(P)):  # hypercube edges between test points
        for j in range(i + 1, len(P)):
            if np.abs(idx[i] - idx[j]).sum() == 1:
                ax.plot(*np.stack([P[i], P[j]]).T, color="grey", lw=0.8, alpha=0.6)
    ax.scatter(*P[:-1].T, color="k", s=18, label="test points (B.1)")
    ax.scatter(*P[-1], color=PALETTE["vermillion"], s=80, marker="*", label=r"OOD test point $\hat{x}$")
    ax.set_xlabel("concept 1")
    ax.set_ylabel("concept 2")
    ax.set_zlabel("concept 3")
    ax.legend(loc="upper left")
    return ax
