"""Figures of the theory chapters: the kinds of entries of the Jacobian (Fig. 4), the entries of
``W(t)`` with the test loss (the explorer), the output trajectory in the concept plane, the one-layer
figures and the swing-by schematic of ``book/intro.md``. ``ax`` is the Axes to draw in, and is returned."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle

from swingby import _checks
from swingby.observations.plots import mark_concept_plane, plot_trajectory
from swingby.sim.symmetric import symmetric_record
from swingby.style import PALETTE, check_axes, check_dims
from swingby.theory.settings import THEORY_SETTINGS
from swingby.theory.stages import detect_stages

__all__ = ["plot_entry_types", "plot_growth_noise", "plot_output_trajectory", "plot_swing_by_schematic",
           "plot_trained_vs_theory"]

#: Largest ``d`` of :func:`plot_entry_types` (it writes one label per entry of a d x d grid).
MAX_ENTRY_GRID = 30
#: Colours of the entries of ``W(t)`` (majors, then minors): Okabe-Ito without orange (the
#: output at ``x_hat``) and black (the test loss).
ENTRY_COLOURS = tuple(PALETTE[name] for name in ("blue", "purple", "green", "sky", "vermillion", "yellow"))
#: Grey of the shaded ascents of the test loss (``shade_loss_segments``)
ASCENT_GREY = "0.5"


def plot_entry_types(d: int, s: int, ax=None, *, group: int | None = None):
    """Fig. 4: major (first ``s`` diagonal), minor (off-diagonal in the first ``s`` rows or columns)
    and irrelevant entries of the ``d x d`` Jacobian.

    Parameters
    ----------
    d, s, ax, group
        Dimension, at most ``MAX_ENTRY_GRID``; number of concepts; where to draw (``None``: a new
        figure); outline the minor entries of group ``p`` (0-based).
    """
    d = _checks.integer("d", d, low=1, high=MAX_ENTRY_GRID)
    s = _checks.integer("s", s, low=1, high=d)
    group = None if group is None else _checks.index("group", group, s)
    ax = check_axes(plt.figure(figsize=(4, 4)).add_subplot() if ax is None else ax)
    kind = np.zeros((d, d))  # 0 irrelevant, 1 minor, 2 major
    kind[:s, :] = 1
    kind[:, :s] = 1
    kind[np.arange(s), np.arange(s)] = 2
    colours = ["#dddddd", PALETTE["orange"], PALETTE["blue"]]
    ax.imshow(kind, cmap=ListedColormap(colours), vmin=0, vmax=2)
    for (i, j), k in np.ndenumerate(kind):
        ax.text(j, i, f"$w_{{{i + 1}{j + 1}}}$", ha="center", va="center", fontsize=9,
                color="white" if k == 2 else "black")
        if group is not None and i != j and group in (i, j):
            ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, lw=2, ec="k"))
    ax.set_xticks(range(d), [str(j + 1) for j in range(d)])
    ax.set_yticks(range(d), [str(i + 1) for i in range(d)])
    ax.set(xlabel="column $j$", ylabel="row $i$")
    ax.grid(False)
    handles = [Patch(color=c, label=n) for c, n in zip(colours, ["irrelevant", "minor", "major"])]
    if group is not None:
        handles.append(Patch(fill=False, ec="k", lw=2, label=f"minor, group {group + 1}"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1))
    return ax


def shade_loss_segments(ax, stages, *, color=ASCENT_GREY, alpha=0.25, growth_colours=None):
    """Shade the ascents of the test loss; mark each major entry's growth (in ``growth_colours[p]``, else labelled)."""
    for k, (_, t0, t1, _, _) in enumerate(stages.ascents):
        ax.axvspan(t0, t1, color=color, alpha=alpha, lw=0, label="test loss rises" if k == 0 else None)
    for p, t in stages.growth.items():
        if growth_colours is not None:
            ax.axvline(t, color=growth_colours[p], ls=":", lw=1.5)
            continue
        ax.axvline(t, color="grey", ls=":", lw=1)
        ax.annotate(f"$w_{{{p + 1}{p + 1}}}$ grows", (t, 1.0), xycoords=("data", "axes fraction"),
                    rotation=90, va="top", ha="right", fontsize=8, color="grey")


def entry_lines(ax, record, s: int, max_minor: int = 6) -> list:
    """Draw the major (solid) and minor (dashed) entries of ``W(t)`` (a colour names one concept); the handles."""
    d = record.W.shape[-1]
    minors = [(i, j) for i in range(s) for j in range(i + 1, d)][:max_minor]
    grouped = s + len(minors) > len(ENTRY_COLOURS)
    handles, groups = [], {}
    for p in range(s):
        colour = ENTRY_COLOURS[p % len(ENTRY_COLOURS)]
        ax.plot(record.time, record.W[:, p, p], color=colour, lw=1.8)
        handles.append(Line2D([], [], color=colour, lw=1.8, label=f"major $w_{{{p + 1}{p + 1}}}$"))
    for k, (i, j) in enumerate(minors, start=s):  # a colour per line, or when grouped its concept's
        colour = ENTRY_COLOURS[((j if j < s else i) if grouped else k) % len(ENTRY_COLOURS)]
        ax.plot(record.time, record.W[:, i, j], color=colour, lw=1.2, ls="--")
        groups.setdefault(colour, []).append(f"w_{{{i + 1}{j + 1}}}")
    for colour, names in groups.items():
        handles.append(Line2D([], [], color=colour, lw=1.2, ls="--", label=f"minor ${', '.join(names)}$"))
    return handles


def plot_jacobian_entries(ax, record, s: int, stages):
    """The entries of ``W(t)`` of one run, its test loss on a right-hand axis, and the ascents shaded."""
    handles = entry_lines(ax, record, s)
    lax = ax.twinx()  # the test loss on its own axis, so that each axis holds one quantity
    lax.plot(record.time, record.test_loss, color="k", lw=2.5, label="test loss (right axis)")
    lax.set_ylabel("test loss")
    lax.set_ylim(bottom=0)
    lax.grid(False)
    shade_loss_segments(ax, stages)
    ax.set(xlabel=r"time $t = \eta \times$ iterations (eq. 4.3 clock)", ylabel="entry value")
    handles += ax.get_legend_handles_labels()[0] + lax.get_legend_handles_labels()[0]
    # below the axes, off the data (seven entries would cover the curves)
    ax.legend(handles=handles, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.16))
    return ax


def plot_output_trajectory(ax, record, mu, *, dims=(0, 1), centres: bool = False):
    """Fig. 5 (right) / 18: the output ``W(t) x_hat`` in the concept plane.

    Parameters
    ----------
    ax, record, mu
        Where to draw; one simulated run (not a batch); cluster distances, at most ``d`` of them.
    dims, centres
        The two concept axes drawn; also draw the outputs at the cluster centres ``mu_p e_p``.
    """
    check_axes(ax)
    record = symmetric_record("record", record)
    mu = _checks.array("mu", mu, ndim=1)
    if mu.size > record.W.shape[-1]:
        raise ValueError(f"mu has {mu.size} entries but the record has d = {record.W.shape[-1]}")
    dims = check_dims(dims, mu.size)
    centres = _checks.flag("centres", centres)
    marks = np.unique(np.geomspace(1, len(record.time) - 1, 12).astype(int))
    plot_trajectory(ax, record.output, label=r"output at $\hat{x}$", color=PALETTE["orange"], dims=dims,
                    marker_steps=marks)
    if centres:
        for p, c in zip(dims, [PALETTE["blue"], PALETTE["green"]]):
            plot_trajectory(ax, record.W[:, :, p] * mu[p], label=f"output at centre {p + 1}", color=c, dims=dims,
                            marker_steps=marks)
    mark_concept_plane(ax, mu, dims=dims)
    ax.legend()
    return ax


#: Okabe-Ito colours of the three stages of :func:`plot_swing_by_schematic`
SWING_BY_STAGE_COLOURS = tuple(PALETTE[name] for name in ("blue", "vermillion", "green"))


def _stage_paths(ax, out, bounds, labels=None, *, lw: float = 2.6) -> list[int]:
    """Draw the stages of the path ``out`` between ``bounds``, each with a mid-way arrowhead; the mid-way rows."""
    middles = []
    for k, colour in enumerate(SWING_BY_STAGE_COLOURS):
        path = out[bounds[k]:bounds[k + 1] + 1]
        ax.plot(path[:, 0], path[:, 1], color=colour, lw=lw, solid_capstyle="round", zorder=3,
                label=None if labels is None else labels[k])
        arc = np.r_[0, np.cumsum(np.hypot(*np.diff(path, axis=0).T))]
        m = int(np.clip(np.searchsorted(arc, arc[-1] / 2), 1, len(path) - 2))
        ax.annotate("", path[m + 1], path[m - 1], zorder=4,
                    arrowprops=dict(arrowstyle="-|>", color=colour, lw=0, mutation_scale=4 * lw + 6))
        middles.append(bounds[k] + m)
    return middles


def plot_swing_by_schematic(ax):
    """The swing-by in one picture: the training clusters, ``x_hat`` and the output of the authors' Fig. 5
    run in the concept plane, cut where its test loss turns into the stages of Sec. 4.2.1-4.2.2 (growth,
    suppression with the closest approach to a cluster: the *swing-by*, second growth), the turn magnified."""
    check_axes(ax)
    setting = THEORY_SETTINGS["fig5"]
    record = setting.run("authors")
    segments = detect_stages(record, 2).loss_segments
    mu, sigma = np.asarray(setting.mu, float), float(np.max(setting.sigma))
    strong = int(np.argmax(setting.a("authors")[:2]))
    big, small, p = f"w_{{{strong + 1}{strong + 1}}}", f"w_{{{2 - strong}{2 - strong}}}", strong + 1  # 1-based
    words = [f"growth: the major entry ${big}$\ngrows, the minor $w_{{12}}$ with it;\ntest loss falls",
             f"suppression: ${big}$ pushes $w_{{12}}$\nback to 0, the output turns to\nthe cluster $\\mu_{p} e_{p}$;"
             " test loss rises",
             f"second growth: ${small}$ grows, the\noutput leaves the cluster for $\\hat{{x}}$;\ntest loss falls"]
    out = record.output[:, :2]
    bounds = [0] + [int(np.searchsorted(record.time, seg.t_end)) for seg in segments]
    centres = [(0.0, 0.0), (mu[0], 0.0), (0.0, mu[1])]
    near = centres[1 + strong]
    closest = int(np.argmin(np.hypot(*(out - near).T)))
    inset = ax.inset_axes([0.6, 0.3, 0.38, 0.36])
    for a in (ax, inset):
        for c in centres:
            for r in np.linspace(2.5, 0.5, 6):  # a training cluster as a grey Gaussian blob, to 2.5 sigma
                a.add_patch(plt.Circle(c, r * sigma, color="0.35", alpha=0.3 * np.exp(-r**2 / 2), lw=0, zorder=1))
        a.plot(*zip(near, out[closest]), ls=(0, (1, 2)), color="k", lw=1.2, zorder=2,
               label="closest approach to the cluster\n(the swing-by)" if a is ax else None)
        a.plot(*out[closest], "o", ms=3, color="k", zorder=5)
        middles = _stage_paths(a, out, bounds, words if a is ax else None, lw=2.6 if a is ax else 2.0)
        a.set_aspect("equal", adjustable="box")
        a.grid(False)
    for k, m in enumerate(middles):  # the stage numbers, on the inner side of each stretch
        chord = out[bounds[k + 1]] - out[bounds[k]]
        side = np.array([chord[1], -chord[0]]) / np.hypot(*chord)
        ax.annotate(str(k + 1), out[m], xytext=tuple(12 * side), textcoords="offset points", ha="center",
                    va="center", fontsize=9, color="white", fontweight="bold", zorder=5,
                    bbox=dict(boxstyle="circle,pad=0.2", fc=SWING_BY_STAGE_COLOURS[k], ec="none"))
    turn = out[bounds[1]:bounds[2] + 1]
    half = 0.6 * max(np.ptp(turn, axis=0).max(), 0.1)
    mid = (turn.max(0) + turn.min(0)) / 2
    inset.set(xlim=(mid[0] - half, mid[0] + half), ylim=(mid[1] - half, mid[1] + half), xticks=[], yticks=[])
    ax.indicate_inset_zoom(inset, edgecolor="0.4", alpha=0.8)
    ax.plot(*out[0], "o", ms=5, color="k", mfc="white", zorder=5)
    ax.annotate("start", out[0], xytext=(7, -6), textcoords="offset points", fontsize=8)
    ax.plot(*mu, marker="*", ms=15, color="k", zorder=5, ls="none")
    ax.annotate(r"$\hat{x} = \mu_1 e_1 + \mu_2 e_2$" + "\nnever seen in training", mu,
                xytext=(0, 10), textcoords="offset points", ha="center", va="bottom", fontsize=8)
    names = ["training cluster at 0", r"training cluster $\mu_1 e_1$", r"training cluster $\mu_2 e_2$"]
    names[1 + strong] += "\n(stronger concept)"
    for (x, y), name in zip(centres, names):
        ax.annotate(name, (x, y - 2.5 * sigma), xytext=(0, -2), textcoords="offset points",
                    ha="center", va="top", fontsize=8, color="0.25")
    ax.set(xlim=(-0.45, mu[0] + 0.45), ylim=(-0.4, mu[1] + 0.42), xlabel="output along concept 1",
           ylabel="output along concept 2")
    handles, labels = ax.get_legend_handles_labels()  # the stages first, then the closest approach
    ax.legend(handles[1:] + handles[:1], labels[1:] + labels[:1], loc="upper left", bbox_to_anchor=(1.03, 1.0),
              frameon=False, handlelength=1.6, labelspacing=1.1,
              title=f"output at $\\hat{{x}}$ over training\n(the paper's {setting.name} setting)",
              alignment="left")
    return ax


def plot_growth_noise(ax, t, out, a):
    """Theorem 4.1's output at ``x_hat`` split into its growth and noise terms (eq. 4.2): for the two
    concept coordinates the output (solid), the growth (dashed) and the noise (dotted), and in grey the
    largest noise term of the other coordinates.

    Parameters
    ----------
    ax, t, out, a
        Where to draw; the times; :func:`~swingby.theory.one_layer.one_layer_output` at ``x_hat`` over them;
        the diagonal of ``A`` (for the legend).
    """
    check_axes(ax)
    t = _checks.array("t", t, ndim=1)
    a = _checks.array("a", a, ndim=1)
    s = 2  # the concept coordinates drawn
    if out.output.shape != (len(t), len(a)):
        raise ValueError(f"out must hold ({len(t)}, {len(a)}) outputs (times, d), got {out.output.shape}")
    for k, c in zip(range(s), (PALETTE["blue"], PALETTE["orange"])):
        ax.plot(t, out.output[:, k], color=c, lw=2.2, label=f"output $f_{k + 1}$ ($a_{k + 1}$ = {a[k]:.2f})")
        ax.plot(t, out.growth[:, k], color=c, ls="--", label=rf"growth $\tilde G_{k + 1}$")
        ax.plot(t, out.noise[:, k], color=c, ls=":", label=rf"noise $\tilde N_{k + 1}$")
    ax.plot(t, np.abs(out.noise[:, s:]).max(axis=1), color="grey", ls=":",
            label=rf"max$_{{k>{s}}}|\tilde N_k|$")
    ax.set(xlabel="gradient-flow time $t$", ylabel=r"output at $\hat{x}$ (concept coordinates)")
    ax.legend(fontsize=8, ncol=2, loc="center right")
    return ax


def plot_trained_vs_theory(ax, runs: dict, mu, *, title: str | None = None):
    """Trained one-layer output trajectories at ``x_hat``, without bias (blue) and with it
    (vermillion), each with its closed form (dashed black: eq. 4.2, or the augmented flow).

    Parameters
    ----------
    ax, mu, title
        Where to draw; the cluster distances; the panel's title.
    runs : dict
        ``{False: r, True: r}`` (bias) with ``r["rec"]`` the TrainRecord, ``r["plain"]`` and
        ``r["aug"]`` the closed forms at its records, ``(R, d)``.
    """
    check_axes(ax)
    if set(runs) != {False, True}:
        raise ValueError(f"runs must have the keys False and True (bias), got {sorted(runs)}")
    for bias, c in ((False, PALETTE["blue"]), (True, PALETTE["vermillion"])):
        r = runs[bias]
        plot_trajectory(ax, r["rec"].trajectory, color=c, label=f"trained, bias={bias}")
        ax.plot(*np.asarray(r["aug" if bias else "plain"])[:, :2].T, color="k", ls="--", lw=1)
    ax.plot([], [], "k--", lw=1, label="theory (eq. 4.2 / augmented)")
    mark_concept_plane(ax, mu)
    ax.legend(fontsize=8)
    if title:
        ax.set_title(title, fontsize=9)
    return ax
