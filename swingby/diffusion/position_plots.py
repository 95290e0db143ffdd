"""The figure of the position search (:mod:`swingby.diffusion.runs.position_search`):
every run of every candidate against the criterion written before the runs, with the
position dose-response at the ``cpu`` model first and the larger models at the authors'
positions after it. Read-only: it draws the rows of
:func:`~swingby.diffusion.runs.position_search.collect`."""
from __future__ import annotations

import numpy as np

from swingby.diffusion.runs import position_search as PS
from swingby.style import _axes


def dose_names() -> list[str]:
    """The candidates of the position dose-response (only ``position`` changed from the
    ``cpu`` model), from the centre outwards.

    Returns
    -------
    list of str
        Names of :data:`~swingby.diffusion.runs.position_search.CANDIDATES`.
    """
    dose = [name for name, _, over in PS.CANDIDATES if set(over) <= {"position"}]
    return sorted(dose, key=lambda n: PS.candidate_preset(n).position)


def display_order() -> list[str]:
    """The candidates in the order the figure shows them: the position dose-response
    (:func:`dose_names`), then the other models at the authors' positions.

    Returns
    -------
    list of str
        Names of :data:`~swingby.diffusion.runs.position_search.CANDIDATES`.
    """
    dose = dose_names()
    return dose + [name for name, _, _ in PS.CANDIDATES if name not in dose]


def _rows(rows) -> dict:
    if not isinstance(rows, list) or not all(isinstance(r, dict) and "name" in r and "runs" in r for r in rows):
        raise ValueError("rows must be the list that position_search.collect() returns")
    known = {n for n, _, _ in PS.CANDIDATES}
    unknown = sorted({r["name"] for r in rows} - known)
    if unknown:
        raise ValueError(f"rows: unknown candidate(s) {unknown}; the candidates are {sorted(known)}")
    return {r["name"]: r for r in rows}


def plot_position_search(rows: list[dict], axes) -> None:
    """Two panels, one column per candidate (:func:`display_order`). Left: class 11's
    blue-small fraction at the last checkpoint, by the pixels (filled: dc 0.689, open: dc
    0.247) and by the classifier (x, dc 0.689), one marker per seed; the criterion's 80 %
    (at dc 0.689) dashed. Right: the smallest disc fraction of the trained classes per
    run (both separations), the criterion's 95 % dashed. A candidate without runs is
    labelled "not run".

    Parameters
    ----------
    rows : list of dict
        :func:`~swingby.diffusion.runs.position_search.collect`.
    axes : sequence of two matplotlib Axes
    """
    by_name = _rows(rows)
    if not hasattr(axes, "__len__") or len(axes) != 2:
        raise ValueError(f"axes must be two matplotlib Axes, got {axes!r}")
    left, right = (_axes(a) for a in axes)
    order = display_order()
    n_dose = len(dose_names())
    for x, name in enumerate(order):
        runs = by_name.get(name, {}).get("runs", [])
        for r in runs:
            jitter = 0.12 * (r["seed"] - (len(PS.SEEDS) - 1) / 2)
            strong = r["dc"] == PS.DECISIVE_DC
            left.plot(x + jitter, r["blue_small_11"], "o", ms=6, color="tab:purple",
                      mfc="tab:purple" if strong else "none")
            if strong:
                left.plot(x + jitter, r["clf_blue_small_11"], "x", ms=6, color="k")
            right.plot(x + jitter, min(r["disc"][:3]), "o", ms=6, color="tab:green",
                       mfc="tab:green" if strong else "none")
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
    left.plot([], [], "o", color="tab:purple", label=f"pixels, dc {PS.DECISIVE_DC}")
    left.plot([], [], "o", color="tab:purple", mfc="none", label=f"pixels, dc {PS.WEAK_DC}")
    left.plot([], [], "x", color="k", label=f"classifier, dc {PS.DECISIVE_DC}")
    left.legend(fontsize=8, loc="lower left")


def search_conclusion(rows: list[dict], choice: dict) -> str:
    """The paragraph that closes the position search, read from its stored candidates:
    where the position dose-response at the ``cpu`` model passes and fails, what the
    larger models at the authors' positions did, and what that allows one to say. Until
    every candidate has run it says the statement is about those run so far.

    Parameters
    ----------
    rows : list of dict
        :func:`~swingby.diffusion.runs.position_search.collect`.
    choice : dict
        :func:`~swingby.diffusion.runs.position_search.choose` of ``rows``.

    Returns
    -------
    str
        Markdown.
    """
    by = _rows(rows)
    if not isinstance(choice, dict) or not {"chosen", "pending", "hours"} <= set(choice):
        raise ValueError("choice must be the dict that position_search.choose() returns")

    def spread(n):
        return f"{PS.candidate_preset(n).position:g}"

    dose = [n for n in dose_names() if n in by]
    ok = [n for n in dose if by[n]["passes"]]
    bad = [n for n in dose if by[n]["decided"] and not by[n]["passes"]]
    short = sum(not by[n]["trained_discs"] for n in bad)
    parts = []
    if ok or bad:
        parts.append("On the model of the `cpu` preset the held-out class is drawn by the criterion, in "
                     "every seed, by " + (", ".join(ok) or "none of the position candidates") + "; not by "
                     + (", ".join(bad) or "none") + " (disc centres uniform within 0.5 of the middle in the "
                     "authors' code)" + (f"; in {short} of these {len(bad)} the trained classes fall short of "
                                         "the criterion too." if bad else "."))
    larger = [n for n in display_order() if n not in dose_names()]
    run = [n for n in larger if n in by and by[n]["decided"]]
    passed = [n for n in run if by[n]["passes"]]
    if run:
        parts.append(f"Of the {len(larger)} larger or differently trained models at the authors' positions, "
                     f"{len(run)} {'has' if len(run) == 1 else 'have'} run and " + (f"{', '.join(passed)} passed" if passed else "none passed")
                     + ".")
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
