"""Figures and tables of the capability chapter (``book/capability.md``), after the hidden-capabilities
study's figures. Every plot takes ``res``, a results dict of :func:`swingby.diffusion.runs.storage.load_results`,
draws on the axes it is given (``axes``: one per colour separation unless said) and returns them."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from swingby import _checks
from swingby.capability import measures as CM
from swingby.capability import probes as CP
from swingby.capability.spread import seed_std
from swingby.diffusion.data import CLASSES
from swingby.diffusion.fig6.plots import CLASS_COLOURS, axes_for, corners, label_panels
from swingby.style import PALETTE, check_axes, cycle_colour

__all__ = ["plot_concept_memorization", "plot_capability_behaviour", "plot_seed_std", "plot_seed_panels",
           "plot_crossing_times_pair", "plot_run_overview", "plot_embedding_disentanglement", "leads_table",
           "probe_table_pair", "count_phrase"]

#: the capability study's colours in the Okabe-Ito palette: capability (bluish) green, behaviour vermillion
CAP_COLOUR, BEH_COLOUR = PALETTE["green"], PALETTE["vermillion"]
TURN_COLOUR = PALETTE["purple"]  #: the concept-space turn (:func:`~swingby.capability.probes.concept_turn`)
READINGS = {"classifier": "-", "pixels": ":"}     #: line style of each reading


def _meta(res: dict) -> tuple[list[float], np.ndarray]:
    """The separations and the checkpoint steps of a results dict."""
    try:
        return [float(d) for d in res["meta"]["config"]["separations"]], \
            np.asarray(res["meta"]["checkpoint_steps"], float)
    except (TypeError, KeyError) as err:
        raise ValueError(f"res must be a results dict with meta.config.separations and meta.checkpoint_steps "
                         f"({err!r})") from None


def dc_colour(i: int, n: int):
    """RGBA colour of the ``i``-th of ``n`` colour separations (viridis, weak to strong)."""
    return plt.get_cmap("viridis")(i / max(1, n - 1))


def plot_concept_memorization(res: dict, ax):
    """Study Fig. 1: seed-mean concept-space paths of every class, one colour per separation
    (class 11 solid with dots at the checkpoints, trained classes dashed).

    Parameters
    ----------
    res : dict
    ax : matplotlib.axes.Axes
    """
    ax = check_axes(ax)
    pts = np.nanmean(CP.class_points(res), axis=1)  # (D, K, 4, 2)
    dcs, _ = _meta(res)
    for i, dc in enumerate(dcs):
        col = dc_colour(i, len(dcs))
        for c, cls in enumerate(CLASSES):
            held = cls == "11"
            ax.plot(pts[i, :, c, 0], pts[i, :, c, 1], "-" if held else "--", color=col, lw=2 if held else 0.8,
                    marker="." if held else None, ms=4, alpha=1 if held else 0.6,
                    label=f"dc = {dc:.3g}" if held else None)
        ax.plot(*pts[i, -1, 3], ">", color=col, ms=6)
    corners(ax)
    for cls, (x, y) in {"00": (0, 0), "01": (0, 1), "10": (1, 0)}.items():
        ax.annotate(cls, (x, y), textcoords="offset points", xytext=(6, -10 if y else 6), fontsize=8)
    ax.set_ylabel("P(small)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1), title="class 11")  # off the data
    return ax


def _dc_panels(res: dict, axes) -> tuple[list[float], np.ndarray, np.ndarray]:
    """The separations, the checkpoint steps and ``axes`` (one per separation), each titled by its separation."""
    dcs, steps = _meta(res)
    axes = axes_for(axes, len(dcs))
    for ax, dc in zip(axes, dcs):
        ax.set_title(f"dc = {dc:.3g}", fontsize=10)
    return dcs, steps, axes


def _finish(axes: np.ndarray, n: int, ylabel: str, ncol: int = 4) -> None:
    """Label the first ``n`` panels (training step, ``ylabel``); one legend below them, off the data."""
    label_panels(axes[:n], "training step", ylabel)
    handles, labels = axes[0].get_legend_handles_labels()
    axes[0].figure.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=ncol, frameon=False)


def _accuracy_axis(ax) -> None:
    """The 50 % line and the [0, 1] range of a joint-accuracy panel."""
    ax.axhline(0.5, color="k", lw=0.6)
    ax.set_ylim(-0.02, 1.02)


def _band(ax, steps, curves, colour, style, label):
    ax.plot(steps, np.nanmean(curves, axis=0), style, color=colour, lw=1.8, label=label)
    if style == "-":
        ax.fill_between(steps, np.nanmin(curves, axis=0), np.nanmax(curves, axis=0), color=colour, alpha=0.15,
                        lw=0)


def plot_capability_behaviour(res: dict, axes):
    """Study Figs. 2 and 7: seed-mean capability (green) and behaviour (red) of class 11 over training
    per separation (classifier solid, banded from the lowest to the highest seed; pixel check dotted).

    Parameters
    ----------
    res : dict
    axes : sequence of matplotlib.axes.Axes
    """
    dcs, steps, axes = _dc_panels(res, axes)
    for by, style in READINGS.items():
        cap, beh = CM.capability(res, by), CM.behaviour(res, by)
        for i, ax in enumerate(axes[:len(dcs)]):
            _band(ax, steps, cap[i], CAP_COLOUR, style, f"capability ({by})")
            _band(ax, steps, beh[i], BEH_COLOUR, style, f"behaviour ({by})")
    for ax in axes[:len(dcs)]:
        _accuracy_axis(ax)
    _finish(axes, len(dcs), "joint accuracy of class 11")
    return axes


def plot_seed_std(res: dict, axes):
    """Study Fig. 8: seed-to-seed standard deviation of capability and behaviour per separation.

    Parameters
    ----------
    res : dict
    axes : sequence of matplotlib.axes.Axes
    """
    dcs, steps, axes = _dc_panels(res, axes)
    sc, sb = seed_std(CM.capability(res)), seed_std(CM.behaviour(res))
    for i, ax in enumerate(axes[:len(dcs)]):
        ax.plot(steps, sc[i], "-", color=CAP_COLOUR, label="capability")
        ax.plot(steps, sb[i], "-", color=BEH_COLOUR, label="behaviour")
    _finish(axes, len(dcs), "seed-to-seed std")
    return axes


def plot_seed_panels(res: dict, dc_index: int, axes):
    """Study Fig. 9 as small multiples: capability and behaviour of every seed at separation ``dc_index``.

    Parameters
    ----------
    res : dict
    dc_index : int
    axes : sequence of matplotlib.axes.Axes
        One per seed.
    """
    dcs, steps = _meta(res)
    i = _checks.index("dc_index", dc_index, len(dcs))
    seeds = res["meta"]["config"]["seeds"]
    axes = axes_for(axes, len(seeds))
    cap, beh = CM.capability(res)[i], CM.behaviour(res)[i]
    for j, ax in enumerate(axes[:len(seeds)]):
        ax.plot(steps, cap[j], "-", color=CAP_COLOUR, lw=1.5, label="capability")
        ax.plot(steps, beh[j], "-", color=BEH_COLOUR, lw=1.5, label="behaviour")
        _accuracy_axis(ax)
        ax.set_title(f"seed {seeds[j]}", fontsize=9)
    _finish(axes, len(seeds), "joint accuracy", ncol=2)
    axes[0].figure.suptitle(f"dc = {dcs[i]:.3g}", fontsize=10)
    return axes


def plot_crossing_times_pair(res: dict, lds: CM.Leads, fits: tuple, axes):
    """Study Fig. 3 by first (left) and held crossings (right): behaviour time against capability time,
    one dot per run (open triangles at the end of training: behaviour never crosses 50 %), with the
    least-squares line. Log axes (symlog where a time is 0): the times span more than a decade.

    Parameters
    ----------
    res : dict
    lds : Leads
        From :func:`~swingby.capability.measures.leads`.
    fits : tuple of two LinearFit or None
        :func:`~swingby.capability.spread.linear_fit` of the first and the held times (None: no line).
    axes : two matplotlib.axes.Axes
    """
    dcs, steps = _meta(res)
    end = float(steps[-1])
    for ax, times, fit, name in zip(axes, (lds.first, lds.held), fits, ("first", "held"), strict=True):
        ax = check_axes(ax)
        tc, tb = np.asarray(times.capability, float), np.asarray(times.behaviour, float)
        finite = np.concatenate([tc[np.isfinite(tc)], tb[np.isfinite(tb)]])
        low = max(float(finite[finite > 0].min()) if (finite > 0).any() else 1.0, 1.0) / 1.5
        scale = dict(value="symlog", linthresh=low) if (finite <= 0).any() else dict(value="log")
        for i, dc in enumerate(dcs):
            col = dc_colour(i, len(dcs))
            both = np.isfinite(tc[i]) & np.isfinite(tb[i])
            never = np.isfinite(tc[i]) & np.isinf(tb[i])
            ax.plot(tc[i, both], tb[i, both], "o", color=col, label=f"dc = {dc:.3g}")
            ax.plot(tc[i, never], np.full(never.sum(), end), "^", mfc="none", mec=col, ms=8)
        lim = np.array([low, end * 1.3])
        ax.plot(lim, lim, "k:", lw=0.8, label="behaviour = capability")
        ax.axhline(end, color="grey", lw=0.6, ls="--")
        ax.annotate("end of training: behaviour never reached 50 % (triangles)", (low * 1.05, end),
                    textcoords="offset points", xytext=(0, 4), fontsize=7, color="grey")
        if fit is not None:
            x = np.geomspace(max(np.nanmin(tc), low), np.nanmax(tc[np.isfinite(tc)]), 50)
            y = fit.slope * x + fit.intercept
            ok = y > low
            ax.plot(x[ok], y[ok], "k-", lw=1.2, label=f"fit: slope {fit.slope:.2f} [{fit.slope_ci[0]:.2f}, "
                    f"{fit.slope_ci[1]:.2f}], R² = {fit.r2:.2f}")
        ax.set_xscale(**scale)
        ax.set_yscale(**scale)
        ax.set(xlim=lim, ylim=(low, end * 1.3), xlabel=f"capability time (step, {name} crossing, log scale)",
               ylabel=f"behaviour time (step, {name} crossing, log scale)")
        ax.set_title(f"{name} crossings of 50 %", fontsize=10)
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, frameon=False, fontsize=8)
    return axes


def plot_run_overview(res: dict, dc_index: int, seed_index: int, axes):
    """Study Fig. 4: one run's training loss, capability and behaviour, and class-11 concept-space path,
    with the capability time (dashed, star) and the concept-space turn marked.

    Parameters
    ----------
    res : dict
    dc_index, seed_index : int
        Which run.
    axes : three matplotlib.axes.Axes
    """
    dcs, steps = _meta(res)
    i = _checks.index("dc_index", dc_index, len(dcs))
    j = _checks.index("seed_index", seed_index, len(res["meta"]["config"]["seeds"]))
    axes = np.atleast_1d(np.asarray(axes, dtype=object)).ravel()
    if axes.size != 3:
        raise ValueError(f"axes must hold three Axes (loss, accuracy, concept space), got {axes.size}")
    a0, a1, a2 = (check_axes(a) for a in axes)
    if not np.asarray(res["done"])[i, j].all():
        raise ValueError(f"run (dc_index={i}, seed_index={j}) is not finished")
    t_cap = float(CM.crossing_times(res).capability[i, j])
    turn = CP.concept_turn(res)
    ls, loss = CP.loss_log(res, "loss")
    a0.plot(ls, loss[i, j], color="k", lw=1)
    if np.nanmin(loss[i, j]) > 0:   # a log scale shows a late feature as large as an early one
        a0.set_yscale("log")
    a0.set(xlabel="training step", ylabel="loss: the bound (nats per dimension)")
    a0.set_title("training loss", fontsize=10)
    a1.plot(steps, CM.capability(res)[i, j], "-o", ms=3, color=CAP_COLOUR, label="capability")
    a1.plot(steps, CM.behaviour(res)[i, j], "-o", ms=3, color=BEH_COLOUR, label="behaviour")
    a1.axhline(0.5, color="k", lw=0.6)
    a1.set(xlabel="training step", ylabel="joint accuracy of class 11")
    a1.set_title("accuracy", fontsize=10)
    a1.legend()
    for ax in (a0, a1):
        if np.isfinite(t_cap):
            ax.axvline(t_cap, color=CAP_COLOUR, ls="--", lw=1.2)
        ax.axvline(turn.turn[i, j], color=TURN_COLOUR, ls=":", lw=1.2)
    pts = CP.class_points(res)[i, j]
    for c, cls in enumerate(CLASSES):
        held = cls == "11"
        a2.plot(pts[:, c, 0], pts[:, c, 1], "-" if held else "--", color=CLASS_COLOURS[cls], lw=2 if held else 0.8,
                marker="." if held else None)
    if np.isfinite(t_cap):
        a2.plot(np.interp(t_cap, steps, pts[:, 3, 0]), np.interp(t_cap, steps, pts[:, 3, 1]), "*",
                color=CAP_COLOUR, ms=14, mec="k", label="at capability time", zorder=5)
    k_turn = int(np.searchsorted(steps, turn.turn[i, j]))
    a2.plot(*pts[k_turn, 3], "D", color=TURN_COLOUR, ms=7, mfc="none", mew=2, label="turn", zorder=5)
    corners(a2)
    a2.set_ylabel("P(small)")
    a2.set_title("concept space", fontsize=10)
    a2.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, frameon=False)
    return axes


def plot_embedding_disentanglement(res: dict, axes):
    """Study Fig. 5: embedding disentanglement ``1 - |cos(e01 - e00, e10 - e00)|`` over training per
    separation, one line per seed, its capability time dashed in its colour.

    Parameters
    ----------
    res : dict
    axes : sequence of matplotlib.axes.Axes
    """
    dcs, steps, axes = _dc_panels(res, axes)
    ed = CP.embedding_disentanglement(res)
    t_cap = CM.crossing_times(res).capability
    for i, ax in enumerate(axes[:len(dcs)]):
        for j in range(ed.shape[1]):
            if np.isnan(ed[i, j]).any():
                continue
            ax.plot(steps, ed[i, j], "-", color=cycle_colour(j), lw=1, label=f"seed {res['meta']['config']['seeds'][j]}")
            if np.isfinite(t_cap[i, j]):
                ax.axvline(t_cap[i, j], color=cycle_colour(j), ls="--", lw=0.8)
        ax.set_ylim(0, 1.02)
    _finish(axes, len(dcs), "embedding disentanglement", ncol=min(8, ed.shape[1]))
    return axes


def leads_table(res: dict, lds: CM.Leads) -> str:
    """Markdown table per separation of the capability times and the median leads of ``lds``.

    Parameters
    ----------
    res : dict
    lds : Leads
    """
    dcs = res["meta"]["config"]["separations"]
    tc, th = lds.first.capability, lds.held.capability
    rows = ["| dc | first $t_C$, median (range) | $t_C$ before discs: first, held "
            "| lead: first | held | held, pixels | held, prompts that change nothing |",
            "|---|---|---|---|---|---|---|"]
    for i, dc in enumerate(dcs):
        rows.append(
            f"| {dc:.3g} | {np.median(tc[i]):.0f} ({tc[i].min():.0f} to {tc[i].max():.0f}) "
            f"| {np.sum(tc[i] < lds.onset[i])}, {np.sum(th[i] < lds.onset[i])} of {tc[i].size} "
            f"| {np.nanmedian(lds.lead_first[i]):.0f} | {np.nanmedian(lds.lead_held[i]):.0f} "
            f"| {np.nanmedian(lds.lead_held_pixels[i]):.0f} | {np.nanmedian(lds.noise_held[i]):.0f} |")
    return "\n".join(rows)


def probe_table_pair(first: list, held: list) -> str:
    """Markdown probe table: per probe, the correlations with the capability and behaviour times by
    first and held crossings, and the permutation p of the held correlation with capability.

    Parameters
    ----------
    first, held : list of ProbeScore
        :func:`~swingby.capability.probes.probe_score` against the first and the held times, one order.
    """
    if not first or len(first) != len(held) or \
            not all(isinstance(s, CP.ProbeScore) for s in (*first, *held)):
        raise ValueError("first and held must be equally long non-empty lists of ProbeScore")

    def f(v, fmt):
        return "—" if not np.isfinite(v) else format(v, fmt)
    rows = ["| probe | first: r, capability | r, behaviour | held: r, capability | p "
            "| r, behaviour |", "|---|---|---|---|---|---|"]
    for a, b in zip(first, held):
        cells = (f(a.r_capability, ".2f"), f(a.r_behaviour, ".2f"), f(b.r_capability, ".2f"),
                 f(b.p_value, ".3f"), f(b.r_behaviour, ".2f"))
        rows.append(f"| {a.name} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def count_phrase(k: int, noun: str = "run", plural: str | None = None) -> str:
    """``k`` things in words: "no run", "1 run", "3 runs" (``plural``: default ``noun + "s"``).

    Parameters
    ----------
    k : int
    noun, plural : str
    """
    k = _checks.integer("k", k, low=0)
    if k == 0:
        return f"no {noun}"
    return f"{k} {noun if k == 1 else (plural or noun + 's')}"
