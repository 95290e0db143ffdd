"""The registered checks of paper Fig. 6 (:mod:`swingby.claims.diffusion`), on the run as the unit and
beside the wrong models of ``.confirm_nulls``, and the per-run read-outs of ``book/diffusion.md``. A
check reads class 11's ``points (L, 2)``, (P(blue), P(small)) from the run's first disc checkpoint on, and
the run's ``noise (2,)`` per coordinate, on means of ``design.sustain`` consecutive checkpoints so that one
noisy checkpoint cannot pass it; ``design`` holds the thresholds, ``res`` is a complete sweep.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from swingby.claims.diffusion import DESIGN, check_design
from swingby.diffusion.fig6 import confirm_nulls as N
from swingby.diffusion.readouts import CheckCount, RunPaths, run_paths, sustained, window_means

__all__ = ["Slowing", "SlowingWrongModels", "Valley", "confirm", "first_concept", "first_concepts", "mse_bump",
           "slowing", "slowing_parts", "slowing_wrong_models", "swing"]

#: the random streams of the wrong models (with ``design.null_seed``)
STREAMS = {"swing": 1, "bend": 2, "stop": 3, "logit": 4}


class Valley(NamedTuple):
    """A sustained fall and recovery of a series (:func:`swing`, :func:`mse_bump`)."""

    passed: bool
    fall: float      #: largest earlier window mean minus the trough's window mean
    recovery: float  #: largest later window mean minus the trough's
    trough: int      #: first checkpoint of the trough's window (-1: none)


def valley(x: np.ndarray, sigma: float, min_change: float, design) -> Valley:
    """The deepest fall and recovery of disjoint window means of ``x`` around a trough, each ``>= min_change``."""
    w = design.sustain
    if x.size < 3 * w:
        return Valley(False, 0.0, 0.0, -1)
    m, se = window_means(x, sigma, w)
    e = design.z * np.sqrt(2.0) * float(se)
    best, score = Valley(False, 0.0, 0.0, -1), -np.inf
    for j in range(w, m.size - w):
        fall, rec = float(m[:j - w + 1].max() - m[j]), float(m[j + w:].max() - m[j])
        ok = min(fall, rec) >= min_change and min(fall, rec) > e
        if (ok, min(fall, rec)) > (best.passed, score):
            best, score = Valley(ok, fall, rec, j), min(fall, rec)
    return best


def swing(points: np.ndarray, noise: np.ndarray, design=DESIGN) -> Valley:
    """Fig. 6(a)'s transient bend toward red small: class 11's P(blue) falls and then recovers, each by at least
    ``design.swing_min`` and by more than ``design.z`` standard errors of a difference of two window means.

    Parameters
    ----------
    points, noise, design
    """
    design = check_design(design)
    return valley(N.points_arg(points)[:, 0], float(N.noise_arg(noise)[0]), design.swing_min, design)


def mse_bump(points: np.ndarray, noise: np.ndarray, design=DESIGN) -> Valley:
    """Fig. 6(b)'s rise then fall of class 11's concept-space MSE to (1, 1): the valley of :func:`swing`
    on the negated MSE with ``design.mse_min_change`` and the noise bound ``sqrt(sum noise^2)`` (delta
    method, ``|1 - p| <= 1``); ``fall`` is the MSE's rise, ``recovery`` its later fall.

    Parameters
    ----------
    points, noise, design
    """
    design = check_design(design)
    p, s = N.points_arg(points), N.noise_arg(noise)
    mse = ((1.0 - p) ** 2).mean(axis=1)
    return valley(-mse, float(np.sqrt((s ** 2).sum())), design.mse_min_change, design)


def first_concept(points: np.ndarray, design=DESIGN) -> str:
    """Fig. 6(a)'s order: ``"colour"``, ``"size"``, ``"tie"`` or ``"neither"``, whichever of class 11's
    coordinates first stays at or above ``design.learned_level`` for ``design.sustain`` checkpoints.

    Parameters
    ----------
    points, design
    """
    design = check_design(design)
    p = N.points_arg(points)
    tb, ts = (sustained(p[:, c] >= design.learned_level, design.sustain) for c in (0, 1))
    if tb == ts == len(p):
        return "neither"
    return "colour" if tb < ts else "size" if ts < tb else "tie"


class Slowing(NamedTuple):
    """Fig. 6(c)'s slowing of one run (:func:`slowing`)."""

    passed: bool      #: drop, graded and logit_drop
    drop: bool        #: peak speed of the last movement phase >= slow_drop x late speed
    graded: bool      #: at least graded_intervals moving intervals after the peak, each slower
    logit_drop: bool  #: the same drop in the classifier's logits (not a saturating read-out)
    ratio: float      #: peak speed / late speed in concept space


def blocks(t: np.ndarray, p: np.ndarray, s: np.ndarray, design) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Times and points of block means of ``design.sustain`` checkpoints (ending at the last), and speed floors."""
    w = design.sustain
    nb = t.size // w
    r = t.size - nb * w
    B, T = p[r:].reshape(nb, w, 2).mean(1), t[r:].reshape(nb, w).mean(1)
    return T, B, np.sqrt(2 * (s ** 2).sum() / w) / np.diff(T)


def _phase(B: np.ndarray, T: np.ndarray, floor: np.ndarray, design) -> tuple[bool, bool, float]:
    """(drop, graded, peak / late) of block means ``B (nb, 2)`` at times ``T`` with speed floors ``floor``."""
    sp = np.linalg.norm(np.diff(B, axis=0), axis=1) / np.diff(T)
    moving = sp > design.z * floor
    if not moving.any():
        return False, False, float("nan")
    last = int(np.flatnonzero(moving)[-1])
    still = np.flatnonzero(~moving[:last])
    first = int(still[-1]) + 1 if still.size else 0
    peak = first + int(np.argmax(sp[first:last + 1]))
    ratio = float(sp[peak] / max(sp[-1], 1e-300))
    drop = peak < sp.size - 1 and ratio >= design.slow_drop
    slower = moving[peak + 1:last + 1] & (sp[peak + 1:last + 1] <= design.graded_fraction * sp[peak])
    return bool(drop), bool(slower.sum() >= design.graded_intervals), ratio


def slowing(steps: np.ndarray, points: np.ndarray, noise: np.ndarray, design=DESIGN) -> Slowing:
    """Fig. 6(c) on one run, on block means of ``design.sustain`` checkpoints: an interval *moves* when its
    speed exceeds ``design.z`` noise floors. Passes when the last stretch of moving intervals peaks at
    ``design.slow_drop`` times the late speed (the last interval) or more, ``design.graded_intervals`` moving
    intervals after the peak are slower by ``design.graded_fraction`` (a stop gives at most one), and the same
    drop holds in the logits (clipped at ``design.logit_eps``), where a constant logit drift shows none.

    Parameters
    ----------
    steps : array (L,)
        Checkpoint steps of ``points``.
    points, noise, design
    """
    design = check_design(design)
    t, p, s = N.run_args(steps, points, noise)
    if t.size // design.sustain < 4:
        return Slowing(False, False, False, False, float("nan"))
    T, B, floor = blocks(t, p, s, design)
    drop, graded, ratio = _phase(B, T, floor, design)
    q = np.clip(B, design.logit_eps, 1 - design.logit_eps)
    g = 1 / (q * (1 - q))                                       # d logit / dp at each block
    lfloor = np.sqrt((((g[1:] ** 2 + g[:-1] ** 2) * s ** 2) / design.sustain).sum(1)) / np.diff(T)
    ldrop = _phase(np.log(q / (1 - q)), T, lfloor, design)[0]
    return Slowing(drop and graded and ldrop, drop, graded, ldrop, ratio)


# ----------------------------------------------------------------------------- runs and counts
def readable(steps: np.ndarray, design) -> bool:
    """Whether a run has enough disc checkpoints for three disjoint windows."""
    return steps.size >= 3 * design.sustain


def each_run(rp: RunPaths, f, unread, design) -> np.ndarray:
    """``f(steps, points, noise)`` of every run ``(D, S, ...)``; ``unread`` for a run too short to read."""
    return np.array([[f(*run) if readable(run[0], design) else unread
                      for run in (rp.run(i, s) for s in range(rp.onset.shape[1]))] for i in range(rp.dc.size)])


def null_units(maker, check, rp: RunPaths, design, stream: int, rows=None) -> np.ndarray:
    """Which units of ``maker``'s paths pass ``check``; unit ``u`` mimics run ``u mod n`` of the ``rows`` mask."""
    rows = np.arange(rp.dc.size) if rows is None else np.flatnonzero(rows)
    runs = [(i, s) for i in rows for s in range(rp.onset.shape[1])]
    rng = np.random.default_rng([design.null_seed, stream])
    out = np.zeros(design.n_null_units, bool)
    for u in range(design.n_null_units):
        steps, pts, noise = rp.run(*runs[u % len(runs)])
        if readable(steps, design):
            out[u] = check(steps, maker(steps, pts, noise, 1, rng, design)[0], noise)
    return out


def slows(design):
    """The slowing check of one run as ``f(steps, points, noise) -> bool``."""
    return lambda t, p, s: slowing(t, p, s, design).passed


class SlowingWrongModels(NamedTuple):
    """Passing units of the slowing check's two wrong models (:func:`slowing_wrong_models`)."""

    stop: int   #: the run's path at constant speed, then a stop
    logit: int  #: each coordinate's logit drifting at a constant rate
    n: int      #: units of each (``design.n_null_units``)

    @property
    def worst(self) -> str:
        """The wrong model that passes more often (``"stop"`` on a tie), against which :func:`confirm` judges."""
        return "stop" if self.stop >= self.logit else "logit"


def first_concepts(res: dict, design=DESIGN) -> np.ndarray:
    """:func:`first_concept` of every run ``(D, S)``, ``"unread"`` for a run with too few disc checkpoints.

    Parameters
    ----------
    res, design
    """
    design = check_design(design)
    return each_run(run_paths(res, design), lambda t, p, s: first_concept(p, design), "unread", design)


def slowing_parts(res: dict, design=DESIGN) -> np.ndarray:
    """Each run's first four fields of :class:`Slowing` ``(D, S, 4)`` (all False for an unreadable run).

    Parameters
    ----------
    res, design
    """
    design = check_design(design)
    return each_run(run_paths(res, design), lambda t, p, s: slowing(t, p, s, design)[:4], (False,) * 4, design)


def slowing_wrong_models(res: dict, design=DESIGN) -> SlowingWrongModels:
    """Passing units of both wrong models of the slowing check, as :func:`confirm` counts them.

    Parameters
    ----------
    res, design
    """
    design = check_design(design)
    rp = run_paths(res, design)
    return SlowingWrongModels(*(int(null_units(maker, slows(design), rp, design, STREAMS[name]).sum())
                                for name, maker in (("stop", N.stop_paths), ("logit", N.logit_paths))),
                              n=design.n_null_units)


def confirm(res: dict, design=DESIGN) -> dict:
    """Every claim of :mod:`swingby.claims.diffusion` on a sweep: ``(claim key, form)`` to its counts for
    :func:`swingby.verdicts.judge` (:class:`~swingby.diffusion.readouts.CheckCount`).

    Parameters
    ----------
    res, design
        A complete sweep (:func:`~swingby.diffusion.runs.storage.load_results`) and the registered design.
    """
    design = check_design(design)
    rp = run_paths(res, design)
    weak, strong = rp.dc <= design.weak_max_dc + 1e-9, rp.dc >= design.strong_min_dc - 1e-9
    M = design.n_null_units

    def count(key, form, ok, null_k, null_n, note):
        return (key, form), CheckCount(key, form, int(ok.sum()), ok.size, int(null_k), null_n, None, ok, note)

    def at_weak_signal(key, check, name):
        ok = each_run(rp, check, False, design)[weak].ravel()
        null_k = null_units(N.monotone_paths, check, rp, design, STREAMS[name], weak).sum()
        return count(key, "typical", ok, null_k, M, "runs at weak colour signal; monotone-per-coordinate paths")

    size_first = first_concepts(res, design) == "size"
    wrong = slowing_wrong_models(res, design)
    return dict((
        count("claim-diff-order", "comparative", size_first[weak].ravel(), size_first[strong].sum(),
              size_first[strong].size, "size first: weak-signal runs vs strong-signal runs"),
        at_weak_signal("claim-diff-swing", lambda t, p, s: swing(p, s, design).passed, "swing"),
        at_weak_signal("claim-diff-bend", lambda t, p, s: mse_bump(p, s, design).passed, "bend"),
        count("claim-diff-slow", "typical", slowing_parts(res, design)[..., 0].ravel(), getattr(wrong, wrong.worst),
              M, f"every run; the wrong model passing more often ({wrong.worst}; stop {wrong.stop}, "
              f"logit {wrong.logit} of {M})"),
    ))
