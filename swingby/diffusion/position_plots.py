"""The figures and tables of the position search (:mod:`swingby.diffusion.runs.position_search`) and of
the search at 4800 steps (:mod:`swingby.diffusion.runs.long_search`) in ``book/diffusion_cpu.md``: every
run of every candidate against the criterion written before the runs, from the searches' collected
``rows`` (their ``collect()``); ``axes`` are two matplotlib Axes."""
from __future__ import annotations

import textwrap

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from swingby.diffusion.runs import long_search as LS
from swingby.diffusion.runs import position_search as PS
from swingby.style import PALETTE, check_axes

__all__ = ["display_order", "dose_names", "long_search_table", "plot_long_search", "plot_position_search",
           "search_conclusion"]


def dose_names() -> list[str]:
    """Names of the position dose-response's candidates (only ``position`` changed), from the centre outwards."""
    dose = [name for name, _, over in PS.CANDIDATES if set(over) <= {"position"}]
    return sorted(dose, key=lambda n: PS.candidate_preset(n).position)


def display_order() -> list[str]:
    """Names of the candidates in the figure's order: :func:`dose_names`, then the other models."""
    dose = dose_names()
    return dose + [name for name, _, _ in PS.CANDIDATES if name not in dose]


def _rows(rows) -> dict:
    """``rows`` of :func:`~swingby.diffusion.runs.position_search.collect` by name, else a ValueError."""
    if not isinstance(rows, list) or not all(isinstance(r, dict) and "name" in r and "runs" in r for r in rows):
        raise ValueError("rows must be the list that position_search.collect() returns")
    known = {n for n, _, _ in PS.CANDIDATES}
    unknown = sorted({r["name"] for r in rows} - known)
    if unknown:
        names = "candidate" if len(unknown) == 1 else "candidates"
        raise ValueError(f"rows: unknown {names} {unknown}; the candidates are {sorted(known)}")
    return {r["name"]: r for r in rows}


def plot_position_search(rows: list[dict], axes) -> None:
    """Two panels, a column per candidate (:func:`display_order`), a marker per run, the criterion dashed.
    Left: class 11's blue-small share at the last checkpoint by the pixels (filled: the decisive dc, open:
    the weak one) and the classifier (x). Right: the least drawn trained class's disc share.

    Parameters
    ----------
    rows, axes
    """
    by_name = _rows(rows)
    if not hasattr(axes, "__len__") or len(axes) != 2:
        raise ValueError(f"axes must be two matplotlib Axes, got {axes!r}")
    left, right = (check_axes(a) for a in axes)
    order = display_order()
    n_dose = len(dose_names())
    for x, name in enumerate(order):
        runs = by_name.get(name, {}).get("runs", [])
        for r in runs:
            jitter = 0.12 * (r["seed"] - (len(PS.SEEDS) - 1) / 2)
            strong = r["dc"] == PS.DECISIVE_DC
            left.plot(x + jitter, r["blue_small_11"], "o", ms=6, color=PALETTE["purple"],
                      mfc=PALETTE["purple"] if strong else "none")
            if strong:
                left.plot(x + jitter, r["clf_blue_small_11"], "x", ms=6, color="k")
            right.plot(x + jitter, min(r["disc"][:3]), "o", ms=6, color=PALETTE["green"],
                       mfc=PALETTE["green"] if strong else "none")
    labels = [n if n in by_name else f"{n}\n(not run)" for n in order]
    for ax, level, title in ((left, PS.CRITERION["blue_small_11"], "class 11 blue small discs"),
                             (right, PS.CRITERION["disc_trained"], "trained classes drawn as discs (min)")):
        ax.axhline(level, ls="--", color="0.4", lw=1)
        ax.axvline(n_dose - 0.5, color="0.7", lw=1)
        ax.set_xticks(np.arange(len(order)), labels, rotation=60, ha="right", fontsize=8)
        ax.set_ylim(-0.03, 1.03)
        ax.set_xlim(-0.5, len(order) - 0.5)
        ax.set_title(title, fontsize=10)
        ax.set_ylabel("fraction of samples, last checkpoint")
    left.plot([], [], "o", color=PALETTE["purple"], label=f"pixels, dc {PS.DECISIVE_DC}")
    left.plot([], [], "o", color=PALETTE["purple"], mfc="none", label=f"pixels, dc {PS.WEAK_DC}")
    left.plot([], [], "x", color="k", label=f"classifier, dc {PS.DECISIVE_DC}")
    left.legend(loc="lower left")


def search_conclusion(rows: list[dict], choice: dict) -> str:
    """The paragraph that closes the position search: where the dose-response passes and fails, what the
    larger models at the authors' positions did, and what that allows one to say.

    Parameters
    ----------
    rows, choice : list of dict, dict
        The position search's rows and :func:`~swingby.diffusion.runs.position_search.choose` of them.
    """
    by = _rows(rows)
    if not isinstance(choice, dict) or not {"chosen", "pending", "hours"} <= set(choice):
        raise ValueError("choice must be the dict that position_search.choose() returns")

    dose = [n for n in dose_names() if n in by]
    ok = [n for n in dose if by[n]["passes"]]
    bad = [n for n in dose if by[n]["decided"] and not by[n]["passes"]]
    short = sum(not by[n]["trained_discs"] for n in bad)
    parts = []
    if ok or bad:
        parts.append("On the model of the `cpu` preset the held-out class is drawn by the criterion, in "
                     "every seed, by " + (", ".join(ok) or "none of the position candidates") + "; not by "
                     + (", ".join(bad) or "none") + " (disc centres uniform within 0.5 of the middle in the "
                     "authors' code)" + (f"; in {_of_these(short, len(bad))} the trained classes fall short of "
                                         "the criterion too." if bad else "."))
    larger = [n for n in display_order() if n not in dose_names()]
    run = [n for n in larger if n in by and by[n]["decided"]]
    passed = [n for n in run if by[n]["passes"]]
    if run:
        parts.append(f"Of the {len(larger)} larger or differently trained models at the authors' positions, "
                     f"{len(run)} {'has' if len(run) == 1 else 'have'} run and "
                     + (f"{', '.join(passed)} passed" if passed else "none passed") + ".")
    near = [n for n in run if not by[n]["passes"] and by[n]["class_11"]]
    if near:
        parts.append(f"Closest: {', '.join(near)}, whose class 11 meets the criterion in its finished "
                     "runs while a trained class is drawn as a disc in too few samples.")
    for n in passed:
        h = choice["hours"].get(n)
        if h is not None and h > PS.SWEEP_BUDGET_HOURS:
            parts.append(f"{n} would need about {h:.0f} single-process hours for the sweep, over the "
                         f"budget of {PS.SWEEP_BUDGET_HOURS:g}, so the rule could not choose it.")
    if choice["pending"]:
        parts.append(f"Not run yet: {', '.join(choice['pending'])}; until they have, what this search says "
                     "about random positions is a statement about the candidates run so far, not a finding.")
    elif not passed:
        parts.append("So at the authors' random positions no model tried within the CPU budget draws the "
                     "held-out class by the criterion; the dose-response says where positions stop working.")
    parts.append(f"The rule written before the runs chose **{choice['chosen']}**.")
    return " ".join(parts)


# ------------------------------------------------------------ the search at 4800 steps
def _run_bounds(row: dict) -> list[tuple[str, list[float]]]:
    """A candidate's disc bounds at the separations it has finished runs at."""
    have = {float(x["dc"]) for x in row["runs"]}
    return [(dc, bs) for dc, bs in row["disc_bounds"].items() if float(dc) in have]


def long_search_table(rows: list[dict], state: dict) -> str:
    """The 4800-step search as a markdown table: per candidate its runs, the criterion's lower bounds and
    its outcome ("not run" with the reason where the cost rules skipped it).

    Parameters
    ----------
    rows, state : list of dict, dict
        The 4800-step search's rows and :func:`~swingby.diffusion.runs.long_search.choose` of them.
    """
    by = {r["name"]: r for r in rows}
    lines = ["| candidate | change | runs | trained classes drawn as discs (lowest bound, separations run) | "
             "class 11 blue small "
             f"at dc {LS.DECISIVE_DC} (bound: pixels / classifier) | outcome |", "|---|---|---|---|---|---|"]
    best = LS.best_of(rows)
    for name, what, _ in LS.CANDIDATES:
        r = by.get(name)
        if r is None:
            why = ("narrower than a candidate that passed" if name in state["skipped"] else "still to run")
            lines.append(f"| {name} | {what} | 0 | - | - | not run ({why}) |")
            continue
        low = min(b for dc, bs in _run_bounds(r) for b in bs)
        out = ("passes" if r["passes"] else "fails") if r["complete"] else \
            "fails (decided early)" if r["decided"] else "unfinished"
        if name == LS.CANDIDATES[2][0] and best is not None:
            what = f"{what}: {best}"
        lines.append(f"| {name} | {what} | {len(r['runs'])} | {low:.2f} | {r['blue_small_11_pix']:.2f} / "
                     f"{r['blue_small_11_clf']:.2f} | {out} |")
    return "\n".join(lines)


def plot_long_search(rows: list[dict], axes) -> None:
    """Two panels, a column per candidate that ran, the criterion dashed. Left: class 11's blue-small share at
    the decisive dc per run (dots) and its pooled lower bounds (bars). Right: the trained classes' bounds.

    Parameters
    ----------
    rows, axes
    """
    if not isinstance(rows, list) or not all(isinstance(r, dict) and "disc_bounds" in r for r in rows):
        raise ValueError("rows must be the list that long_search.collect() returns")
    if not hasattr(axes, "__len__") or len(axes) != 2:
        raise ValueError(f"axes must be two matplotlib Axes, got {axes!r}")
    left, right = (check_axes(a) for a in axes)
    colour = {"clf": PALETTE["blue"], "pix": PALETTE["orange"], "disc": PALETTE["green"]}
    for x, r in enumerate(rows):
        for run in r["runs"]:
            if run["dc"] == LS.DECISIVE_DC:
                left.plot(x - 0.15, run["blue_small_11_clf"] / run["n"], "o", ms=5, color="0.45")
        left.bar([x - 0.15, x + 0.15], [r["blue_small_11_clf"], r["blue_small_11_pix"]], width=0.28,
                 color=[colour["clf"], colour["pix"]], alpha=0.8)
        for dc, bs in _run_bounds(r):
            decisive = float(dc) == LS.DECISIVE_DC
            shift = -0.08 if decisive else 0.08  # the separations side by side
            right.plot(x + shift + np.array([-0.04, 0.0, 0.04]), bs, "s" if decisive else "^", ms=6,
                       color=colour["disc"], mfc=colour["disc"] if decisive else "none")
    names = [textwrap.fill(r["name"], 12) for r in rows]
    for ax, level, title, lo in ((left, LS.CRITERION["blue_small_11"], "class 11: blue small discs", 0.0),
                                 (right, LS.CRITERION["disc_trained"], "trained classes: discs (lower bound)", 0.5)):
        ax.axhline(level, ls="--", color="0.3", lw=1)
        ax.set_xticks(np.arange(len(rows)), names, fontsize=8)
        ax.set_xlim(-0.6, len(rows) - 0.4)
        ax.set_ylim(lo, 1.01)
        ax.set_title(title, fontsize=10)
    left.set_ylabel("share of samples")
    handles = [Patch(color=colour["clf"], label="bound, classifier"), Patch(color=colour["pix"], label="bound, pixels"),
               Line2D([], [], ls="", marker="o", color="0.45", label="one run (classifier)")]
    left.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=3)
    right.legend(handles=[Line2D([], [], ls="", marker="s", color=colour["disc"], label=f"dc {LS.DECISIVE_DC}"),
                          Line2D([], [], ls="", marker="^", color=colour["disc"], mfc="none",
                                 label=f"dc {LS.WEAK_DC}")],
                 loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=2)


def _of_these(k: int, n: int) -> str:
    """``k`` of ``n`` candidates in words ("both of them", "none of them", "2 of these 3")."""
    if k == n:
        return {1: "it", 2: "both of them"}.get(n, f"all {n} of them")
    return "none of them" if k == 0 else f"{k} of these {n}"
