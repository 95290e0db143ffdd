"""Markdown helpers shared by the reports of the diffusion checks
(:mod:`swingby.diffusion.fig6.report`, :mod:`swingby.capability.report`,
:mod:`swingby.diffusion.rules_report`): table rows, and the note on how far a stored
sweep's verdicts go. Used by ``book/diffusion.md`` and ``book/capability.md``.
"""
from __future__ import annotations

import numpy as np

from swingby.diffusion import rules as R


def _f(x, fmt=".2f") -> str:
    return "[" + ", ".join(format(float(v), fmt) for v in np.ravel(x)) + "]"


def _row(*cells) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def _head(*cols) -> list[str]:
    return [_row(*cols), _row(*["---"] * len(cols))]


def _independent(meta: dict) -> bool:
    """The sweep draws its randomness per (separation, seed): its config says
    ``seeding="per_run"`` (or an older meta says ``independent_runs``)."""
    return bool(meta.get("independent_runs")) or meta.get("config", {}).get("seeding") == "per_run"


def _independence(res: dict) -> str:
    meta = res["meta"]
    seeds = meta["config"]["seeds"]
    if _independent(meta):
        return f"The sweep draws independent randomness per (separation, seed): {len(seeds)} seeds x " \
               f"{len(meta['config']['separations'])} separations independent runs."
    return (f"**This sweep shares one seed across all separations** (initial weights, batch order, data draw "
            f"and sampling noise), so its {len(seeds) * len(meta['config']['separations'])} runs are about "
            f"{len(seeds)} independent replicates. Per-seed statistics and p-values below use the seed as the "
            f"unit and are illustrative; a verdict here is not the verdict of the new sweep.")


def sweep_note(meta: dict, short: bool = False) -> str:
    """One sentence on how far a sweep's verdicts go, from
    :func:`swingby.diffusion.rules.sweep_rules` of its meta: for a sweep made before the
    rules were fixed ("predates"), that it predates them and (if so) shares one seed
    across separations, so the verdicts are illustrative with the seed as the unit; for
    a sweep made under today's rules ("current"), that it was.

    Parameters
    ----------
    meta : dict
        ``res["meta"]`` of a stored sweep.
    short : bool
        A clause for a summary instead of the full sentence.

    Returns
    -------
    str
    """
    state = R.sweep_rules(meta)
    if not isinstance(short, bool):
        raise ValueError(f"short must be True or False, got {short!r}")
    if short:
        if state == "current":
            return "this sweep was made under those rules, so their verdicts stand"
        shared = "" if _independent(meta) else " and shares one seed across separations"
        return f"this sweep predates those rules{shared}, so the new verdicts are illustrative"
    cfg = meta.get("config", {})
    n_seeds, n_dcs = len(cfg.get("seeds", ())), len(cfg.get("separations", ()))
    if state == "current":
        return (f"This sweep was made after the rules of the checks were fixed (fingerprint "
                f"`{R.fingerprint()}`), with independent randomness per run: its verdicts are "
                f"the verdicts of the rule, with the seed as the unit ({n_seeds} seeds).")
    shared = "" if _independent(meta) else (
        f" and shares one seed across all separations (initial weights, batch order, data "
        f"draw and sampling noise), so its {n_seeds * n_dcs} runs are about {n_seeds} "
        "independent replicates")
    return ("This sweep predates the rules of the checks (it was made before their thresholds "
            f"were fixed){shared}: every verdict below is illustrative, with the seed as the "
            "unit, and a new sweep made under the rules will replace it.")


#: the colour separations the paper's text gives (Sec. 5); the authors' plotted sweep
#: (the ``paper`` preset's separations) starts below it
TEXT_RANGE = (0.2, 0.7)


def range_and_resolution(separations, steps, near=(200, 1000)) -> str:
    """Which of a sweep's separations lie inside the paper text's range
    (:data:`TEXT_RANGE`) and which are weaker, and how far apart its checkpoints are
    near the given steps (where the transitions are).

    Parameters
    ----------
    separations : sequence of float
        The sweep's colour separations.
    steps : sequence of int
        Its checkpoint steps, increasing.
    near : tuple of int
        Steps at which to give the spacing.

    Returns
    -------
    str
    """
    dcs = np.asarray(separations, float)
    s = np.asarray(steps, float)
    if dcs.ndim != 1 or dcs.size == 0 or s.ndim != 1 or s.size < 2 or np.any(np.diff(s) <= 0):
        raise ValueError("separations must be a non-empty list and steps an increasing list of at least two")
    from swingby.diffusion.presets import get_preset

    lo, hi = TEXT_RANGE
    authors_low = min(get_preset("paper").separations)
    inside = [f"{d:g}" for d in dcs if lo <= d <= hi]
    below = [f"{d:g}" for d in dcs if d < lo]
    above = [f"{d:g}" for d in dcs if d > hi]
    parts = [f"{len(inside)} of its {dcs.size} separations ({', '.join(inside) or 'none'}) lie inside the "
             f"{lo:g}-{hi:g} that the paper's text gives"]
    if below:
        parts.append(f"{', '.join(below)} {'is' if len(below) == 1 else 'are'} weaker, like the low end of the "
                     f"authors' plotted sweep, which starts at {authors_low:g}")
    if above:
        parts.append(f"{', '.join(above)} {'is' if len(above) == 1 else 'are'} stronger")
    gaps = []
    for t in near:
        k = int(np.clip(np.searchsorted(s, t), 1, s.size - 1))
        gaps.append(f"{s[k] - s[k - 1]:.0f} steps apart near step {t}")
    return ("; ".join(parts) + f". Its {s.size} checkpoints are " + " and ".join(gaps) + ".")
