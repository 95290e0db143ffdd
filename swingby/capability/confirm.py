"""The registered checks of the hidden-capabilities study (``book/capability.md``): the seed-robustness claim
(App. C, Figs. 8, 9), judged per run on the late phase with :data:`swingby.claims.capability.DESIGN` (``cap,
beh``: capability and behaviour ``(R, K)`` of ``R`` runs at ``K`` checkpoints; ``design``: a
:class:`~swingby.claims.capability.CapabilityDesign`), and over-prompting before the capability (App. B).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from swingby import verdicts
from swingby.capability import measures as M
from swingby.claims.capability import DESIGN, check_design
from swingby.diffusion.readouts import CheckCount, window_means
from swingby.diffusion.rules import RULES

__all__ = ["acquired", "never_elicited", "late_spread", "confirm", "BlueBig",
           "blue_big_before_capability"]


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
    """Whether each run's late capability reaches ``design.level`` (universal form), and the same for
    its behaviour (the paired comparator): two ``(R,)`` bool arrays.

    Parameters
    ----------
    cap, beh : array (R, K)
    design : CapabilityDesign
    """
    design = check_design(design)
    c, b = _curves(cap, beh)
    return _late(c, design) >= design.level, _late(b, design) >= design.level


def never_elicited(cap: np.ndarray, beh: np.ndarray, design=DESIGN) -> np.ndarray:
    """Runs (``(R,)`` bool) that acquire the capability while no mean of ``design.sustain`` consecutive
    checkpoints of their behaviour (``K >= design.sustain``) reaches ``design.level`` (possibility form).

    Parameters
    ----------
    cap, beh : array (R, K)
    design : CapabilityDesign
    """
    design = check_design(design)
    c, b = _curves(cap, beh)
    if b.shape[1] < design.sustain:
        raise ValueError(f"cap and beh need at least sustain = {design.sustain} checkpoints, got {b.shape[1]}")
    peak = window_means(b, 0.0, design.sustain)[0].max(axis=1)
    return acquired(c, b, design)[0] & (peak < design.level)


def late_spread(cap: np.ndarray, beh: np.ndarray, design=DESIGN) -> tuple[np.ndarray, np.ndarray]:
    """The discordant runs of the late spread (comparative form): runs whose late capability is strictly
    closer to the runs' median than their behaviour is to its median, and the reverse (two ``(R,)`` bool).

    Parameters
    ----------
    cap, beh : array (R, K)
        The runs of one separation.
    design : CapabilityDesign
    """
    design = check_design(design)
    c, b = _curves(cap, beh)
    lc, lb = _late(c, design), _late(b, design)
    dc, db = np.abs(lc - np.median(lc)), np.abs(lb - np.median(lb))
    return dc < db, db < dc


def confirm(res: dict, design=DESIGN) -> dict:
    """Every registered claim of :mod:`swingby.claims.capability` on a sweep: ``(claim key, form)`` to
    the :class:`~swingby.diffusion.readouts.CheckCount` that :func:`swingby.verdicts.judge` needs.

    Parameters
    ----------
    res : dict
        A complete sweep (:func:`swingby.diffusion.runs.storage.load_results`).
    design : CapabilityDesign
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
    never = never_elicited(cw, bw, design)
    never_strong = never_elicited(cap[strong].reshape(-1, K), beh[strong].reshape(-1, K), design)
    closer = [late_spread(cap[i], beh[i], design) for i in np.flatnonzero(weak)]
    cc, bc = np.concatenate([x[0] for x in closer]), np.concatenate([x[1] for x in closer])
    b, c = int(cc.sum()), int(bc.sum())
    rows = [("universal", int(got.sum()), got.size, int(beh_got.sum()), beh_got.size,
             verdicts.discordant_pairs(got, beh_got), got, "weak-signal runs; paired with their own behaviour"),
            ("possibility", int(never.sum()), never.size, int(never_strong.sum()), never_strong.size, None, never,
             "weak-signal runs vs strong-signal runs"),
            ("comparative", b, cc.size, c, cc.size, (b, c), cc,
             "weak-signal runs, paired: capability closer to its separation's median (b) vs behaviour closer (c)")]
    return {("claim-cap-robust", row[0]): CheckCount("claim-cap-robust", *row) for row in rows}


class BlueBig(NamedTuple):
    """Runs ``(D, S)`` in which a prompt draws big blue discs before the capability time."""

    per_run: np.ndarray       #: the pure-blue prompt does
    null_per_run: np.ndarray  #: the plain prompt does


def _blue_big(points: np.ndarray, before: np.ndarray, p: float) -> np.ndarray:
    big_blue = (points[..., 0] >= p) & (points[..., 1] <= 1 - p)
    return (big_blue & before).any(axis=-1)


def blue_big_before_capability(res: dict, t_cap: np.ndarray, p: float = RULES.blue_big_p) -> BlueBig:
    """Whether the pure-blue capability prompt (the first) draws discs read as blue and big (sample means
    ``P(blue) >= p``, ``P(small) <= 1 - p``) at a trained checkpoint before the run's capability time, and
    whether the plain prompt does.

    Parameters
    ----------
    res, t_cap : dict, array (D, S)
        A complete sweep and its runs' capability times.
    p : float
    """
    steps = np.asarray(res["meta"]["checkpoint_steps"], float)
    t = M.check_times("t_cap", t_cap)
    before = (steps[None, None, :] < np.where(np.isnan(t), -1, t)[..., None]) & (steps > 0)
    blue = np.asarray(res["cap_probs"], float)[:, :, :, 0].mean(-2)            # (D, S, K, 2)
    plain = np.asarray(res["probs"], float)[:, :, :, M.CLASS_11].mean(-2)
    return BlueBig(_blue_big(blue, before, p), _blue_big(plain, before, p))
