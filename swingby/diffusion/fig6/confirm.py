"""The registered checks of paper Fig. 6 (:mod:`swingby.claims.diffusion`), each on the run
as its unit and beside a wrong model (:mod:`swingby.diffusion.fig6.confirm_nulls`), every
constant from :data:`~swingby.claims.diffusion.DESIGN`; and the per-run read-outs the
diffusion chapter (``book/diffusion.md``) prints.

Every read-out starts at the run's first disc checkpoint
(:func:`swingby.diffusion.readouts.disc_onset`) and works on means of ``DESIGN.sustain``
consecutive checkpoints, so that one noisy checkpoint cannot pass a check.

* :func:`swing` (Fig. 6a): class 11's P(blue) falls and then recovers;
* :func:`first_concept` (Fig. 6a): which of class 11's coordinates makes a sustained
  crossing of ``learned_level`` first;
* :func:`mse_bump` (Fig. 6b): class 11's concept-space MSE rises and then falls;
* :func:`slowing` (Fig. 6c): the peak speed of the last movement phase against the late
  speed, graded (beats a stop) and seen in the logits too (beats a saturating read-out).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from swingby import _checks
from swingby.claims.diffusion import DESIGN, check_design
from swingby.diffusion.fig6.confirm_nulls import logit_paths, monotone_paths, stop_paths
from swingby.diffusion.readouts import CheckCount, RunPaths, run_paths, window_means

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
    """The deepest fall and recovery of window means of ``x`` before, at and after a trough
    (disjoint windows), each at least ``min_change`` and beyond ``design.z`` standard errors."""
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


def _points(points) -> np.ndarray:
    """``points`` as a finite ``(L, 2)`` array of probabilities, else a ValueError."""
    p = _checks.array("points", points, shape=(None, 2))
    if np.any(p < 0) or np.any(p > 1):
        raise ValueError("points must hold probabilities (P(blue), P(small)) in [0, 1]")
    return p


def _noise(noise) -> np.ndarray:
    """``noise`` as a non-negative ``(2,)`` array, else a ValueError."""
    s = _checks.array("noise", noise, shape=(2,))
    if np.any(s < 0):
        raise ValueError(f"noise must hold two non-negative noise levels (P(blue), P(small)), got {s}")
    return s


def swing(points: np.ndarray, noise: np.ndarray, design=DESIGN) -> Valley:
    """Fig. 6(a)'s transient bend toward red small: class 11's P(blue) falls and then
    recovers, each by at least ``design.swing_min`` and by more than ``design.z`` standard
    errors of a difference of two window means.

    Parameters
    ----------
    points : array (L, 2)
        Class 11's ``(P(blue), P(small))`` from the run's first disc checkpoint on.
    noise : array (2,)
        The run's noise level per coordinate.
    design : DiffusionDesign
        The thresholds.
    """
    design = check_design(design)
    return valley(_points(points)[:, 0], float(_noise(noise)[0]), design.swing_min, design)


def mse_bump(points: np.ndarray, noise: np.ndarray, design=DESIGN) -> Valley:
    """Fig. 6(b)'s rise then fall of class 11's concept-space MSE to (1, 1): the valley of
    :func:`swing` on the negated MSE with ``design.mse_min_change``. A point's MSE noise is
    bounded by ``sqrt(sum noise^2)`` (delta method, ``|1 - p| <= 1``), which is used.

    Parameters
    ----------
    points : array (L, 2)
        Class 11's path from the run's first disc checkpoint on.
    noise : array (2,)
        The run's noise level per coordinate.
    design : DiffusionDesign
        The thresholds.

    Returns
    -------
    Valley
        ``fall`` is the MSE's rise, ``recovery`` its later fall.
    """
    design = check_design(design)
    p, s = _points(points), _noise(noise)
    mse = ((1.0 - p) ** 2).mean(axis=1)
    return valley(-mse, float(np.sqrt((s ** 2).sum())), design.mse_min_change, design)


def _crossing(x: np.ndarray, level: float, w: int) -> float:
    """First index from which ``x`` stays at or above ``level`` for ``w`` points; ``inf`` if none."""
    above = x >= level
    for k in range(x.size - w + 1):
        if above[k:k + w].all():
            return float(k)
    return float("inf")


def first_concept(points: np.ndarray, design=DESIGN) -> str:
    """Fig. 6(a)'s order: which of class 11's own coordinates stays at or above
    ``design.learned_level`` for ``design.sustain`` checkpoints first.

    Parameters
    ----------
    points : array (L, 2)
        Class 11's path from the run's first disc checkpoint on.
    design : DiffusionDesign
        Supplies ``learned_level`` and ``sustain``.

    Returns
    -------
    str
        ``"colour"``, ``"size"``, ``"tie"`` or ``"neither"``.
    """
    design = check_design(design)
    p = _points(points)
    tb, ts = (_crossing(p[:, c], design.learned_level, design.sustain) for c in (0, 1))
    if np.isinf(tb) and np.isinf(ts):
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
    """Times ``(nb,)`` and points ``(nb, 2)`` of block means of ``design.sustain`` checkpoints
    (the last block ending at the last checkpoint), and each interval's speed floor ``(nb - 1,)``."""
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
    first = last
    while first > 0 and moving[first - 1]:
        first -= 1
    peak = first + int(np.argmax(sp[first:last + 1]))
    ratio = float(sp[peak] / max(sp[-1], 1e-300))
    drop = peak < sp.size - 1 and ratio >= design.slow_drop
    slower = moving[peak + 1:last + 1] & (sp[peak + 1:last + 1] <= design.graded_fraction * sp[peak])
    return bool(drop), bool(slower.sum() >= design.graded_intervals), ratio


def slowing(steps: np.ndarray, points: np.ndarray, noise: np.ndarray, design=DESIGN) -> Slowing:
    """Fig. 6(c) on one run. On block means of ``design.sustain`` checkpoints an interval is
    *moving* when its speed exceeds ``design.z`` times its noise floor; the last movement
    phase is the last stretch of moving intervals. Passes when its peak speed is at least
    ``design.slow_drop`` times the late speed (the last interval), at least
    ``design.graded_intervals`` moving intervals after the peak are slower than it by
    ``design.graded_fraction`` (a stop gives at most one), and the same drop holds in the
    classifier's logits (probabilities clipped to ``[logit_eps, 1 - logit_eps]``), where a
    logit drifting at constant speed shows none.

    Parameters
    ----------
    steps : array (L,)
        Checkpoint steps from the run's first disc checkpoint on.
    points : array (L, 2)
        Class 11's path at those steps.
    noise : array (2,)
        The run's noise level per coordinate.
    design : DiffusionDesign
        The thresholds.
    """
    design = check_design(design)
    p, s = _points(points), _noise(noise)
    t = _checks.array("steps", steps, shape=(p.shape[0],))
    if np.any(np.diff(t) <= 0):
        raise ValueError("steps must be strictly increasing")
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
    """``(design.n_null_units,)`` bool: the units of path maker ``maker`` that pass ``check``; unit ``u``
    mimics run ``u mod n`` of the separations ``rows`` (a mask; default all), failing where that run is unreadable."""
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


def _first_concepts(rp: RunPaths, design) -> np.ndarray:
    """:func:`first_concept` of every run ``(D, S)``, ``"unread"`` where too short to read."""
    return each_run(rp, lambda t, p, s: first_concept(p, design), "unread", design)


def _nulls(rp: RunPaths, design) -> dict:
    """Passing units of the slowing check's two wrong models."""
    return {name: int(null_units(maker, slows(design), rp, design, STREAMS[name]).sum())
            for name, maker in (("stop", stop_paths), ("logit", logit_paths))}


def confirm(res: dict, design=DESIGN) -> dict:
    """Every registered claim of :mod:`swingby.claims.diffusion` on a sweep, as the counts
    :func:`swingby.verdicts.judge` needs.

    Parameters
    ----------
    res : dict
        A complete sweep (:func:`swingby.diffusion.runs.storage.load_results`).
    design : DiffusionDesign
        The registered design (:data:`~swingby.claims.diffusion.DESIGN`).

    Returns
    -------
    dict
        ``(claim key, form)`` to :class:`~swingby.diffusion.readouts.CheckCount`.
    """
    design = check_design(design)
    rp = run_paths(res, design)
    weak, strong = rp.dc <= design.weak_max_dc + 1e-9, rp.dc >= design.strong_min_dc - 1e-9
    M = design.n_null_units

    def count(key, form, ok, null_k, null_n, note):
        return (key, form), CheckCount(key, form, int(ok.sum()), ok.size, int(null_k), null_n, None, ok, note)

    def at_weak_signal(key, check, name):
        ok = each_run(rp, check, False, design)[weak].ravel()
        null_k = null_units(monotone_paths, check, rp, design, STREAMS[name], weak).sum()
        return count(key, "typical", ok, null_k, M, "runs at weak colour signal; monotone-per-coordinate paths")

    size_first = _first_concepts(rp, design) == "size"
    nulls = _nulls(rp, design)
    worst = max(nulls, key=nulls.get)
    return dict((
        count("claim-diff-order", "comparative", size_first[weak].ravel(), size_first[strong].sum(),
              size_first[strong].size, "size first: weak-signal runs vs strong-signal runs"),
        at_weak_signal("claim-diff-swing", lambda t, p, s: swing(p, s, design).passed, "swing"),
        at_weak_signal("claim-diff-bend", lambda t, p, s: mse_bump(p, s, design).passed, "bend"),
        count("claim-diff-slow", "typical", each_run(rp, slows(design), False, design).ravel(), nulls[worst], M,
              f"every run; the wrong model passing more often ({worst}; stop {nulls['stop']}, "
              f"logit {nulls['logit']} of {M})"),
    ))


# ----------------------------------------------------------------------------- per-run read-outs
class SlowingWrongModels(NamedTuple):
    """Passing units of the slowing check's two wrong models (:func:`slowing_wrong_models`)."""

    stop: int   #: the run's path at constant speed, then a stop
    logit: int  #: each coordinate's logit drifting at a constant rate
    n: int      #: units of each (``design.n_null_units``)

    @property
    def worst(self) -> str:
        """The wrong model that passes more often (``"stop"`` on a tie, as :func:`confirm` picks)."""
        return "stop" if self.stop >= self.logit else "logit"


def first_concepts(res: dict, design=DESIGN) -> np.ndarray:
    """Which of class 11's coordinates each run learns first (:func:`first_concept`).

    Parameters
    ----------
    res : dict
        A complete sweep (:func:`swingby.diffusion.runs.storage.load_results`).
    design : DiffusionDesign
        The registered design.

    Returns
    -------
    array (D, S) of str
        ``"colour"``, ``"size"``, ``"tie"``, ``"neither"``, or ``"unread"`` for a run with
        too few disc checkpoints.
    """
    design = check_design(design)
    return _first_concepts(run_paths(res, design), design)


def slowing_parts(res: dict, design=DESIGN) -> np.ndarray:
    """Each run's parts of the registered slowing check.

    Parameters
    ----------
    res : dict
        A complete sweep (:func:`swingby.diffusion.runs.storage.load_results`).
    design : DiffusionDesign
        The registered design.

    Returns
    -------
    array (D, S, 4) of bool
        Passed, drop, graded, drop in the logits (the first four fields of
        :class:`Slowing`); all False for a run with too few disc checkpoints, which fails.
    """
    design = check_design(design)
    return each_run(run_paths(res, design), lambda t, p, s: slowing(t, p, s, design)[:4], (False,) * 4, design)


def slowing_wrong_models(res: dict, design=DESIGN) -> SlowingWrongModels:
    """Passing units of both wrong models of the slowing check, counted as :func:`confirm`
    counts them (which judges against the one that passes more often).

    Parameters
    ----------
    res : dict
        A complete sweep (:func:`swingby.diffusion.runs.storage.load_results`).
    design : DiffusionDesign
        The registered design.
    """
    design = check_design(design)
    return SlowingWrongModels(**_nulls(run_paths(res, design), design), n=design.n_null_units)
