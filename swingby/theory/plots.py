"""Figures of the theory chapters (``book/two_layer_theory.md``,
``book/beyond_two_concepts.md``): the major / minor / irrelevant entries of the Jacobian
(Fig. 4), the entries of ``W(t)`` over time with the loss and its ascents shaded
(Figs. 5, 8-10), and the output trajectory of the symmetric model in the concept plane.
They build on :mod:`swingby.style` and on the trajectory helpers of
:mod:`swingby.observations.plots`.
"""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch, Rectangle

from swingby import _checks
from swingby.observations.plots import mark_concept_plane, plot_trajectory
from swingby.style import _axes, _dims, _style
from swingby.theory.simulation import _single_record
from swingby.theory.stages import Stages

#: Largest ``d`` of :func:`plot_entry_types` (it writes one label per entry of a d x d grid).
MAX_ENTRY_GRID = 30


def _symmetric_record(record):
    return _single_record("record", record)


# ---------------------------------------------------------------------------------
# Theory chapters (book/one_layer_theory, book/two_layer_theory, book/beyond_two_concepts)
# ---------------------------------------------------------------------------------
def plot_entry_types(d: int, s: int, ax=None, *, group: int | None = None):
    """Fig. 4: major (first ``s`` diagonal), minor (off-diagonal in the first ``s`` rows
    or columns) and irrelevant entries of the ``d x d`` Jacobian
    (``book/two_layer_theory.md``).

    Parameters
    ----------
    d : int
        Dimension, in ``[1, MAX_ENTRY_GRID]``.
    s : int
        Number of concepts, in ``[1, d]``.
    ax : matplotlib Axes or None
        Where to draw; ``None`` makes a new figure.
    group : int or None
        Outline the minor entries of group ``p`` (row and column ``p``, 0-based, ``< s``).

    Returns
    -------
    matplotlib Axes
        The axes drawn on.
    """
    d = _checks.integer("d", d, low=1, high=MAX_ENTRY_GRID)
    s = _checks.integer("s", s, low=1, high=d)
    group = None if group is None else _checks.index("group", group, s)
    ax = _axes(plt.figure(figsize=(4, 4)).add_subplot() if ax is None else ax)
    kind = np.zeros((d, d))  # 0 irrelevant, 1 minor, 2 major
    kind[:s, :] = 1
    kind[:, :s] = 1
    kind[np.arange(s), np.arange(s)] = 2
    colours = ["#dddddd", "#f4a582", "#2166ac"]
    ax.imshow(kind, cmap=ListedColormap(colours), vmin=0, vmax=2)
    for i in range(d):
        for j in range(d):
            ax.text(j, i, f"$w_{{{i + 1}{j + 1}}}$", ha="center", va="center", fontsize=9,
                    color="white" if kind[i, j] == 2 else "black")
    if group is not None:
        for i in range(d):
            for j in range(d):
                if i != j and (i == group or j == group):
                    ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, lw=2, ec="k"))
    ax.set_xticks(range(d), [str(j + 1) for j in range(d)])
    ax.set_yticks(range(d), [str(i + 1) for i in range(d)])
    ax.set_xlabel("column $j$")
    ax.set_ylabel("row $i$")
    ax.grid(False)
    handles = [Patch(color=c, label=n) for c, n in zip(colours, ["irrelevant", "minor", "major"])]
    if group is not None:
        handles.append(Patch(fill=False, ec="k", lw=2, label=f"minor, group {group + 1}"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1), fontsize=8)
    return ax


def shade_loss_segments(ax, stages, *, color="tab:red", alpha=0.12):
    """Shade the ascents of the test loss found by :func:`swingby.theory.stages.detect_stages`
    and mark the growth times of the major entries with dotted lines (Figs. 5, 8-10).

    Parameters
    ----------
    ax : matplotlib Axes
        Where to draw (time on the x axis).
    stages : swingby.theory.stages.Stages
        From :func:`swingby.theory.stages.detect_stages`.
    color : matplotlib colour
        Colour of the shading.
    alpha : float
        Opacity of the shading, in ``[0, 1]``.
    """
    _axes(ax)
    _checks.instance("stages", stages, Stages, "swingby.theory.stages.Stages (from detect_stages)")
    _style(color=color)
    alpha = _checks.number("alpha", alpha, low=0, high=1)
    for k, (_, t0, t1, _, _) in enumerate(stages.ascents):
        ax.axvspan(t0, t1, color=color, alpha=alpha, lw=0, label="test loss rises" if k == 0 else None)
    for p, t in stages.growth.items():
        ax.axvline(t, color="grey", ls=":", lw=1)
        ax.annotate(f"$w_{{{p + 1}{p + 1}}}$ grows", (t, 1.0), xycoords=("data", "axes fraction"),
                    rotation=90, va="top", ha="right", fontsize=8, color="grey")


def plot_jacobian_entries(ax, record, s: int, *, stages=None, logx: bool = False, max_minor: int = 6,
                          loss_scale: float = 1.0):
    """Figs. 5 (left), 8-10: test loss (thick black, on a right-hand axis of its own) and
    major (solid) / minor (dashed) entries of ``W(t)`` from a :class:`swingby.theory.simulation.SymmetricRecord`
    (``book/two_layer_theory.md``, ``book/beyond_two_concepts.md``).

    Parameters
    ----------
    ax : matplotlib Axes
        Where to draw.
    record : swingby.theory.simulation.SymmetricRecord
        One simulated run (not a batch).
    s : int
        Number of concepts, in ``[1, d]``: the major entries drawn.
    stages : swingby.theory.stages.Stages or None
        Shade its loss ascents (:func:`shade_loss_segments`).
    logx : bool
        Log time axis.
    max_minor : int
        Most minor entries drawn, ``>= 0``.
    loss_scale : float
        Factor on the test loss, ``> 0`` (it is drawn on its own right-hand axis).

    Returns
    -------
    matplotlib Axes
        The axes drawn on.
    """
    _axes(ax)
    record = _symmetric_record(record)
    t = record.time
    d = record.W.shape[-1]
    s = _checks.integer("s", s, low=1, high=d)
    max_minor = _checks.integer("max_minor", max_minor, low=0)
    loss_scale = _checks.positive_float("loss_scale", loss_scale)
    logx = _checks.flag("logx", logx)
    if stages is not None:
            _checks.instance("stages", stages, Stages, "swingby.theory.stages.Stages (from detect_stages) or None")
    for p in range(s):
        ax.plot(t, record.W[:, p, p], lw=1.8, label=f"major $w_{{{p + 1}{p + 1}}}$")
    minors = [(i, j) for i in range(s) for j in range(i + 1, d)][:max_minor]
    for i, j in minors:
        ax.plot(t, record.W[:, i, j], ls="--", lw=1.2, label=f"minor $w_{{{i + 1}{j + 1}}}$")
    # the test loss on its own axis (right), so that each axis holds one quantity
    lax = ax.twinx()
    lax.plot(t, record.test_loss * loss_scale, color="k", lw=2.5,
             label="test loss (right axis)" + ("" if loss_scale == 1 else f" x {loss_scale:g}"))
    lax.set_ylabel("test loss" + ("" if loss_scale == 1 else f" x {loss_scale:g}"))
    lax.set_ylim(bottom=0)
    lax.grid(False)
    if stages is not None:
        shade_loss_segments(ax, stages)
    if logx:
        ax.set_xscale("log")
    ax.set_xlabel(r"time $t = \eta \times$ iterations (eq. 4.3 clock)")
    ax.set_ylabel("entry value")
    handles, labels = ax.get_legend_handles_labels()
    lh, ll = lax.get_legend_handles_labels()
    ax.legend(handles + lh, labels + ll, fontsize=8, ncol=2)
    return ax


def plot_output_trajectory(ax, record, mu, *, dims=(0, 1), centres: bool = False):
    """Fig. 5 (right) / 18: the output ``W(t) x_hat`` in the concept plane
    (``book/two_layer_theory.md``, ``book/beyond_two_concepts.md``).

    Parameters
    ----------
    ax : matplotlib Axes
        Where to draw.
    record : swingby.theory.simulation.SymmetricRecord
        One simulated run (not a batch).
    mu : array_like(float, ndim=1)
        Cluster distances, at most ``d`` of them.
    dims : pair of int
        The two concept axes drawn.
    centres : bool
        Also draw the outputs at the training-cluster centres ``mu_p e_p``.

    Returns
    -------
    matplotlib Axes
        The axes drawn on.
    """
    _axes(ax)
    record = _symmetric_record(record)
    mu = _checks.array("mu", mu, ndim=1)
    if mu.size > record.W.shape[-1]:
        raise ValueError(f"mu has {mu.size} entries but the record has d = {record.W.shape[-1]}")
    dims = _dims(dims, mu.size)
    centres = _checks.flag("centres", centres)
    plot_trajectory(ax, record.output, label=r"output at $\hat{x}$", color="tab:orange", dims=dims,
                    marker_steps=np.unique(np.geomspace(1, len(record.time) - 1, 12).astype(int)))
    if centres:
        for p, c in zip(dims, ["tab:blue", "tab:green"]):
            traj = record.W[:, :, p] * mu[p]
            plot_trajectory(ax, traj, label=f"output at centre {p + 1}", color=c, dims=dims,
                            marker_steps=np.unique(np.geomspace(1, len(record.time) - 1, 12).astype(int)))
    mark_concept_plane(ax, mu, dims=dims)
    ax.legend(fontsize=8)
    return ax


# ---------------------------------------------------------------------------
# Chapters observations, ood_checks, topological_order (Figs. 2, 3, 7, 11-16)
# ---------------------------------------------------------------------------
