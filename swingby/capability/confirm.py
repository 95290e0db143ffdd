"""The registered checks of the seed-robustness claim of the hidden-capabilities study
(App. C, Figs. 8, 9; chapter ``book/capability.md``), judged on the late phase the
claim is about ("all seeds acquire the capability while some never elicit the
behavior"), on the run as the unit, with every constant from
:data:`swingby.claims.capability.DESIGN` (registered in :mod:`swingby.claims.capability`).

* :func:`acquired`: the run's late capability reaches the level (universal; paired
  comparator: its own behaviour, i.e. capability read from the plain prompt only).
* :func:`never_elicited`: the run acquires the capability and its behaviour never
  reaches the level in a sustained window (possibility; comparator: strong-signal runs).
* :func:`late_spread`: the run's late capability lies closer to its separation's median
  than its behaviour does (comparative, paired sign test).
"""
from __future__ import annotations

import numpy as np

from swingby import verdicts
from swingby.capability import measures as M
from swingby.claims.capability import DESIGN, check_design
from swingby.diffusion.readouts import CheckCount, window_means

__all__ = ["acquired", "never_elicited", "late_spread", "confirm"]


def _curves(cap, beh) -> tuple[np.ndarray, np.ndarray]:
    """``cap`` and ``beh`` as finite ``(R, K)`` arrays of accuracies of the same shape, else a ValueError."""
    c, b = np.asarray(cap, float), np.asarray(beh, float)
    if c.ndim != 2 or c.shape != b.shape or c.shape[1] < 1 or not (np.isfinite(c).all() and np.isfinite(b).all()):
        raise ValueError(f"cap and beh must be finite (runs, checkpoints) arrays of one shape, got {c.shape} and {b.shape}")
    if np.any(c < 0) or np.any(c > 1) or np.any(b < 0) or np.any(b > 1):
        raise ValueError("cap and beh must hold accuracies in [0, 1]")
    return c, b


def _late(y: np.ndarray, design) -> np.ndarray:
    """Mean over the last ``design.late_window`` checkpoints."""
    return y[:, -design.late_window:].mean(axis=1)


def acquired(cap: np.ndarray, beh: np.ndarray, design=DESIGN) -> tuple[np.ndarray, np.ndarray]:
    """Whether each run's late capability reaches ``design.level``, and the same for its
    behaviour (the paired comparator).

    Parameters
    ----------
    cap, beh : array (R, K)
        Capability and behaviour of ``R`` runs at ``K`` checkpoints.
    design : CapabilityDesign
        Supplies ``level`` and ``late_window``.

    Returns
    -------
    capability, behaviour : array (R,) of bool
    """
    design = check_design(design)
    c, b = _curves(cap, beh)
    return _late(c, design) >= design.level, _late(b, design) >= design.level


def never_elicited(cap: np.ndarray, beh: np.ndarray, design=DESIGN) -> np.ndarray:
    """Runs that acquire the capability (:func:`acquired`) while no mean of
    ``design.sustain`` consecutive checkpoints of their behaviour reaches ``design.level``.

    Parameters
    ----------
    cap, beh : array (R, K)
        Capability and behaviour of ``R`` runs, ``K >= design.sustain``.
    design : CapabilityDesign
        The thresholds.

    Returns
    -------
    array (R,) of bool
    """
    design = check_design(design)
    c, b = _curves(cap, beh)
    if b.shape[1] < design.sustain:
        raise ValueError(f"cap and beh need at least sustain = {design.sustain} checkpoints, got {b.shape[1]}")
    peak = window_means(b, 0.0, design.sustain)[0].max(axis=1)
    return acquired(c, b, design)[0] & (peak < design.level)


def late_spread(cap: np.ndarray, beh: np.ndarray, design=DESIGN) -> tuple[np.ndarray, np.ndarray]:
    """The discordant runs of the late spread: runs whose late capability is strictly
    closer to the runs' median capability than their behaviour is to the median
    behaviour, and the reverse (a tie is neither).

    Parameters
    ----------
    cap, beh : array (R, K)
        Capability and behaviour of the ``R`` runs of one separation.
    design : CapabilityDesign
        Supplies ``late_window``.

    Returns
    -------
    capability_closer, behaviour_closer : array (R,) of bool
    """
    design = check_design(design)
    c, b = _curves(cap, beh)
    lc, lb = _late(c, design), _late(b, design)
    dc, db = np.abs(lc - np.median(lc)), np.abs(lb - np.median(lb))
    return dc < db, db < dc


def confirm(res: dict, design=DESIGN) -> dict:
    """Every registered claim of :mod:`swingby.claims.capability` on a sweep, as the
    counts :func:`swingby.verdicts.judge` needs.

    Parameters
    ----------
    res : dict
        A complete sweep (:func:`swingby.diffusion.runs.storage.load_results`).
    design : CapabilityDesign
        The registered design (:data:`~swingby.claims.capability.DESIGN`).

    Returns
    -------
    dict
        ``(claim key, form)`` to :class:`~swingby.diffusion.readouts.CheckCount`.
    """
    design = check_design(design)
    cap, beh = M.capability(res, design.reading), M.behaviour(res, design.reading)
    if not (np.isfinite(cap).all() and np.isfinite(beh).all()):
        raise ValueError("res holds unfinished runs (res['done'] is False somewhere); finish the sweep first")
    dcs = np.asarray(res["meta"]["config"]["separations"], float)
    weak, strong = dcs <= design.weak_max_dc + 1e-9, dcs >= design.strong_min_dc - 1e-9
    K = cap.shape[-1]
    cw, bw = cap[weak].reshape(-1, K), beh[weak].reshape(-1, K)
    got, beh_got = acquired(cw, bw, design)
    pairs = verdicts.discordant_pairs(got, beh_got)
    out = {("claim-cap-robust", "universal"): CheckCount("claim-cap-robust", "universal", int(got.sum()), got.size,
                                          int(beh_got.sum()), beh_got.size, pairs, got,
                                          "weak-signal runs; paired with their own behaviour")}
    never = never_elicited(cw, bw, design)
    never_strong = never_elicited(cap[strong].reshape(-1, K), beh[strong].reshape(-1, K), design)
    out["claim-cap-robust", "possibility"] = CheckCount("claim-cap-robust", "possibility", int(never.sum()), never.size,
                                               int(never_strong.sum()), never_strong.size, None, never,
                                               "weak-signal runs vs strong-signal runs")
    closer = [late_spread(cap[i], beh[i], design) for i in np.flatnonzero(weak)]
    cc, bc = np.concatenate([x[0] for x in closer]), np.concatenate([x[1] for x in closer])
    b, c = int(cc.sum()), int(bc.sum())
    out["claim-cap-robust", "comparative"] = CheckCount("claim-cap-robust", "comparative", b, cc.size, c, cc.size,
                                                (b, c), cc, "weak-signal runs, paired: capability closer to "
                                                "its separation's median (b) vs behaviour closer (c)")
    return out
