"""The checks of paper Fig. 6 re-specified for the confirmatory sweep (issue 35, item 4),
each on the run as its unit and beside a wrong model, with every constant from
:data:`swingby.claims.diffusion.DESIGN` (registered in :mod:`swingby.claims.diffusion`).

Every read-out starts at the run's first disc checkpoint
(:func:`swingby.diffusion.readouts.disc_onset`) and works on means of
``DESIGN.sustain`` consecutive checkpoints, so that one noisy checkpoint cannot pass a
check.

* :func:`swing` (Fig. 6a): class 11's P(blue) falls and then recovers, each by at least
  ``swing_min`` and by more than ``z`` standard errors (typical at weak colour signal).
* :func:`first_concept` (Fig. 6a): which of class 11's own coordinates makes a sustained
  crossing of ``learned_level`` first (size first at weak, colour first at strong signal).
* :func:`mse_bump` (Fig. 6b): class 11's concept-space MSE rises and then falls.
* :func:`slowing` (Fig. 6c): the peak speed of the last movement phase against the late
  speed, graded (beats a stop) and seen in the logits too (beats a saturating read-out).

The wrong models (:mod:`swingby.diffusion.fig6.confirm_nulls`) are simulated per run,
``DESIGN.n_null_units`` units each; unit ``u`` mimics run ``u mod n``.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from swingby import _checks
from swingby.claims.diffusion import DESIGN, check_design
from swingby.diffusion.fig6.confirm_nulls import logit_paths, monotone_paths, stop_paths
from swingby.diffusion.readouts import CheckCount, RunPaths, run_paths, window_means


class Valley(NamedTuple):
    """A sustained fall and recovery of a series (:func:`valley`)."""

    passed: bool
    fall: float      #: largest earlier window mean minus the trough's window mean
    recovery: float  #: largest later window mean minus the trough's
    trough: int      #: first checkpoint of the trough's window (-1: none)


def valley(x: np.ndarray, sigma: float, min_change: float, design=DESIGN) -> Valley:
    """The deepest sustained fall and recovery of ``x``: window means (``design.sustain``
    points) before, at and after a trough, the three windows disjoint; passes where the
    fall and the recovery are each at least ``min_change`` and more than ``design.z``
    standard errors of a difference of two window means.

    Parameters
    ----------
    x : array (L,)
        The series from the run's first disc checkpoint on.
    sigma : float
        Noise standard deviation of one point (the run's noise level).
    min_change : float
        Smallest fall and recovery, > 0.
    design : DiffusionDesign
        Supplies ``sustain`` and ``z``.

    Returns
    -------
    Valley
    """
    design = check_design(design)
    x = _checks.array("x", x, ndim=1)
    sigma = _checks.number("sigma", sigma, low=0)
    min_change = _checks.number("min_change", min_change, low=0, low_open=True)
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
    """Fig. 6(a)'s transient bend toward red small: :func:`valley` of class 11's P(blue)
    with ``design.swing_min``.

    Parameters
    ----------
    points : array (L, 2)
        Class 11's ``(P(blue), P(small))`` from the run's first disc checkpoint on.
    noise : array (2,)
        The run's noise level per coordinate.
    design : DiffusionDesign
        The thresholds.

    Returns
    -------
    Valley
    """
    design = check_design(design)
    return valley(_points(points)[:, 0], float(_noise(noise)[0]), design.swing_min, design)


def mse_bump(points: np.ndarray, noise: np.ndarray, design=DESIGN) -> Valley:
    """Fig. 6(b)'s rise then fall of class 11's concept-space MSE to (1, 1): :func:`valley`
    of the negated MSE with ``design.mse_min_change``. A point's MSE noise is bounded by
    ``sqrt(sum noise^2)`` (delta method, ``|1 - p| <= 1``), which is used.

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


def crossing_index(x: np.ndarray, level: float, w: int) -> float:
    """First index from which ``x`` stays at or above ``level`` for ``w`` points (a
    sustained crossing); ``inf`` if none.

    Parameters
    ----------
    x : array (L,)
        A coordinate from the run's first disc checkpoint on.
    level : float
        The learned level.
    w : int
        Points that must stay at or above it.

    Returns
    -------
    float
    """
    x = _checks.array("x", x, ndim=1)
    level = _checks.number("level", level)
    w = _checks.integer("w", w, low=1)
    above = x >= level
    for k in range(x.size - w + 1):
        if above[k:k + w].all():
            return float(k)
    return float("inf")


def first_concept(points: np.ndarray, design=DESIGN) -> str:
    """Which of class 11's own coordinates makes a sustained crossing of
    ``design.learned_level`` first (Fig. 6a's order).

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
    tb, ts = (crossing_index(p[:, c], design.learned_level, design.sustain) for c in (0, 1))
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


def _phase(B: np.ndarray, T: np.ndarray, floor: np.ndarray, design) -> tuple[bool, bool, float]:
    """(drop, graded, peak / late) of block means ``B (nb, 2)`` at times ``T`` with speed floors ``floor (nb-1,)``."""
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
    """Fig. 6(c) on one run: on block means of ``design.sustain`` checkpoints (the last
    block ending at the last checkpoint), an interval is *moving* when its speed exceeds
    ``design.z`` times its noise floor; the last movement phase is the last stretch of
    moving intervals. Passes when its peak speed is at least ``design.slow_drop`` times the
    late speed (the last interval), at least ``design.graded_intervals`` moving intervals
    after the peak are slower than it by ``design.graded_fraction`` (a stop gives at most
    one), and the same drop holds in the classifier's logits (probabilities clipped to
    ``[logit_eps, 1 - logit_eps]``), where a logit drifting at constant speed shows none.

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

    Returns
    -------
    Slowing
    """
    design = check_design(design)
    p, s = _points(points), _noise(noise)
    t = _checks.array("steps", steps, shape=(p.shape[0],))
    if np.any(np.diff(t) <= 0):
        raise ValueError("steps must be strictly increasing")
    w = design.sustain
    nb = t.size // w
    if nb < 4:
        return Slowing(False, False, False, False, float("nan"))
    r = t.size - nb * w
    B, T = p[r:].reshape(nb, w, 2).mean(1), t[r:].reshape(nb, w).mean(1)
    floor = np.sqrt(2 * (s ** 2).sum() / w) / np.diff(T)
    drop, graded, ratio = _phase(B, T, floor, design)
    q = np.clip(B, design.logit_eps, 1 - design.logit_eps)
    g = 1 / (q * (1 - q))                                       # d logit / dp at each block
    lfloor = np.sqrt((((g[1:] ** 2 + g[:-1] ** 2) * s ** 2) / w).sum(1)) / np.diff(T)
    ldrop = _phase(np.log(q / (1 - q)), T, lfloor, design)[0]
    return Slowing(drop and graded and ldrop, drop, graded, ldrop, ratio)


# ----------------------------------------------------------------------------- counts
def _runs(rp: RunPaths, group: str, design) -> list[tuple[int, int]]:
    """The runs ``(i, s)`` of a group: "weak" (dc <= weak_max_dc), "strong" (dc >= strong_min_dc) or "all"."""
    keep = {"weak": rp.dc <= design.weak_max_dc + 1e-9, "strong": rp.dc >= design.strong_min_dc - 1e-9,
            "all": np.ones(rp.dc.size, bool)}[group]
    return [(i, s) for i in np.flatnonzero(keep) for s in range(rp.onset.shape[1])]


def _readable(steps: np.ndarray, design) -> bool:
    """Whether a run has enough checkpoints after its onset for three disjoint windows."""
    return steps.size >= 3 * design.sustain


def _apply(check, rp: RunPaths, runs, design) -> np.ndarray:
    """``check(steps, points, noise)`` of each run (False where it has too few disc checkpoints)."""
    return np.array([_readable(rp.run(i, s)[0], design) and bool(check(*rp.run(i, s))) for i, s in runs], bool)


def _null(maker, check, rp: RunPaths, runs, design, stream: int) -> int:
    """Passing units among ``design.n_null_units`` of a wrong model; unit ``u`` mimics run ``u mod n``."""
    rng = np.random.default_rng([design.null_seed, stream])
    k = 0
    for u in range(design.n_null_units):
        steps, pts, noise = rp.run(*runs[u % len(runs)])
        if _readable(steps, design):
            k += bool(check(steps, maker(steps, pts, noise, 1, rng, design)[0], noise))
    return k


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
    weak, strong, every = (_runs(rp, g, design) for g in ("weak", "strong", "all"))
    M = design.n_null_units
    monotone = "runs at weak colour signal; monotone-per-coordinate paths"

    def count(key, form, ok, null_k, null_n, note):
        return (key, form), CheckCount(key, form, int(ok.sum()), ok.size, int(null_k), null_n, None, ok, note)

    def sw(t, p, s):
        return swing(p, s, design).passed

    def mb(t, p, s):
        return mse_bump(p, s, design).passed

    def sl(t, p, s):
        return slowing(t, p, s, design).passed

    def size_first(runs):
        return np.array([_readable(rp.run(i, s)[0], design) and first_concept(rp.run(i, s)[1], design) == "size"
                         for i, s in runs], bool)
    nulls = {"stop": _null(stop_paths, sl, rp, every, design, 3), "logit": _null(logit_paths, sl, rp, every, design, 4)}
    worst = max(nulls, key=nulls.get)
    strong_first = size_first(strong)
    return dict((
        count("claim-diff-order", "comparative", size_first(weak), strong_first.sum(), strong_first.size,
              "size first: weak-signal runs vs strong-signal runs"),
        count("claim-diff-swing", "typical", _apply(sw, rp, weak, design), _null(monotone_paths, sw, rp, weak, design, 1),
              M, monotone),
        count("claim-diff-bend", "typical", _apply(mb, rp, weak, design), _null(monotone_paths, mb, rp, weak, design, 2),
              M, monotone),
        count("claim-diff-slow", "typical", _apply(sl, rp, every, design), nulls[worst], M,
              f"every run; the wrong model passing more often ({worst}; stop {nulls['stop']}, "
              f"logit {nulls['logit']} of {M})"),
    ))
