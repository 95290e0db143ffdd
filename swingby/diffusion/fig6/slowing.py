"""The paper's Fig. 6(c), terminal slowing, checked per seed (issue 22), with every
threshold from :data:`swingby.diffusion.rules.RULES`.

:func:`terminal_slowing`: per seed, class 11 moves well above its sampling-noise floor
at the start of the late phase (from the first learned concept on) and is within its
floor at the end, after a ``min_drop``-fold drop. Null: a model that keeps moving at its
measured late speed (in the direction of its last displacement, with its noise). A
read-out that saturates at a corner of concept space (the classifier reading exactly 0
or 1) stops the measurement there: the drop to a saturated point measures the
classifier, so such seeds are not counted. The decay's shape is decided only when a
bootstrap interval over seeds (``scipy.stats.bootstrap``) of the difference of the
exponential and the power-law fit (``scipy.optimize.curve_fit``) excludes zero, else
it is "undetermined". Replaces :func:`slowing_checks` (the old
rule) once the chapter moves.
"""
from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
from scipy import optimize, stats

from swingby import _checks
from swingby.diffusion.concept_space import concept_mse
from swingby.diffusion.fig6 import analysis as A
from swingby.diffusion.fig6 import claims as OLD
from swingby.diffusion.fig6 import nulls as N
from swingby.diffusion.fig6.checks import CLASS_11, _dcs, _needed, _steps
from swingby.diffusion.fig6.claims import _n, first_learned_index
from swingby.diffusion.rules import OLD_RULES as R
from swingby.diffusion.rules import RULES, Outcome, Rules, verdict


def _log_exp(t, log_a, rate):
    return log_a - rate * t


def _log_power(t, log_a, expo):
    return log_a - expo * np.log(t)


def decay_sse(t: np.ndarray, v: np.ndarray) -> tuple[float, float]:
    """Residual sums of squares of ``log v`` under an exponential ``a exp(-r t)`` and a
    power law ``a t^-p``, each fitted by ``scipy.optimize.curve_fit``; NaN with fewer
    than three positive speeds at positive steps.

    Parameters
    ----------
    t, v : array
        Steps and speeds.

    Returns
    -------
    sse_exp, sse_power : float
    """
    t, v = np.asarray(t, float), np.asarray(v, float)
    ok = (t > 0) & (v > 0) & np.isfinite(v)
    if ok.sum() < 3:
        return float("nan"), float("nan")
    t, lv = t[ok], np.log(v[ok])
    out = []
    for f, p0 in ((_log_exp, (lv[0], 1e-3)), (_log_power, (lv[0], 1.0))):
        with warnings.catch_warnings():   # an exact fit has no covariance; only the residual is used
            warnings.simplefilter("ignore", optimize.OptimizeWarning)
            p, _ = optimize.curve_fit(f, t, lv, p0=p0, maxfev=5000)
        out.append(float(((lv - f(t, *p)) ** 2).sum()))
    return out[0], out[1]


class SlowingResult(NamedTuple):
    """Terminal slowing of class 11 at one separation (Fig. 6c), per seed."""

    dc: float
    start: int              #: first late checkpoint
    per_seed: np.ndarray    #: (S,) bool: moving early, stopped at the end, dropped ``min_drop``-fold
    measurable: np.ndarray  #: (S,) both windows lie before the read-out saturates (else the seed is not counted)
    moving: np.ndarray      #: (S,) early speed (first ``late_window`` intervals) / its noise floor
    stopped: np.ndarray     #: (S,) late speed (last ``late_window`` intervals) / its noise floor
    drop: np.ndarray        #: (S,) early / late speed, the late window ending at the last unsaturated point (NaN: not measurable)
    saturated: bool         #: some seed's read-out saturates at a corner before the end (left out)
    reached: bool           #: seed-mean final MSE below ``reached_mse``
    null_pass_rate: float   #: a model that keeps moving at its measured late speed
    shape: str              #: "exponential", "power law" or "undetermined"
    shape_ci: tuple         #: bootstrap CI over seeds of SSE(power) - SSE(exponential) of log speed
    verdict: str
    needed: str


def _seed_speed(pts: np.ndarray, se: np.ndarray, steps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Speeds ``(..., K - 1)`` of paths ``(..., K, 2)`` and their sampling-noise floors."""
    gaps = np.diff(steps)
    sp = np.linalg.norm(np.diff(pts, axis=-2), axis=-1) / gaps
    return sp, np.sqrt((se[..., 1:, :] ** 2 + se[..., :-1, :] ** 2).sum(-1)) / gaps


def _window_speed(pts, se, steps, a, b):
    """Speed ``|C_b - C_a| / (t_b - t_a)`` of paths ``(S, K, 2)`` between per-seed indices
    ``a, b (S,)``, and its sampling-noise floor."""
    s = np.arange(pts.shape[0])
    gap = steps[b] - steps[a]
    v = np.linalg.norm(pts[s, b] - pts[s, a], axis=-1) / gap
    return v, np.sqrt((se[s, b] ** 2 + se[s, a] ** 2).sum(-1)) / gap


def _slow_verdict(pts, se, steps, k_end, rules: Rules):
    """Per seed: (passed, moving ratio, stopped ratio, drop). Early speed over the first
    ``late_window`` intervals of ``pts (S, L, 2)``, late speed over the last ones before
    ``k_end (S,)`` (the last unsaturated checkpoint)."""
    w = rules.late_window
    zero = np.zeros_like(k_end)
    early, f_early = _window_speed(pts, se, steps, zero, np.minimum(zero + w, k_end))
    late, f_late = _window_speed(pts, se, steps, np.maximum(k_end - w, 0), k_end)
    moving, stopped = early / np.maximum(f_early, 1e-12), late / np.maximum(f_late, 1e-12)
    drop = early / np.maximum(late, 1e-12)
    ok = (moving > rules.moving_factor) & (stopped <= rules.stopped_factor) & (drop >= rules.min_drop)
    return ok, moving, stopped, drop


def _shape(mid, sp_seeds, use, rules: Rules, seed: int):
    """Shape of the seed-mean decay and the bootstrap CI over seeds of the fits' difference."""
    def stat(idx):
        idx = np.asarray(idx, int)
        e, p = decay_sse(mid[use], sp_seeds[idx][:, use].mean(0))
        return p - e
    if sp_seeds.shape[0] < 2 or not np.isfinite(stat(np.arange(sp_seeds.shape[0]))):
        return "undetermined", (float("nan"), float("nan"))
    ci = stats.bootstrap((np.arange(sp_seeds.shape[0]),), stat, vectorized=False, n_resamples=rules.n_resamples,
                         confidence_level=rules.ci_level, method="percentile", rng=np.random.default_rng(seed))
    lo, hi = float(ci.confidence_interval.low), float(ci.confidence_interval.high)
    shape = "exponential" if lo > 0 else "power law" if hi < 0 else "undetermined"
    return shape, (lo, hi)


def terminal_slowing(res: dict, rules: Rules = RULES, seed: int = 0) -> list[SlowingResult]:
    """Fig. 6(c) per seed over the late phase (from the first learned concept on).

    Parameters
    ----------
    res : dict
        A complete sweep.
    rules : Rules
        The thresholds.
    seed : int
        Seeds the null and the bootstrap.

    Returns
    -------
    list of SlowingResult
        One per separation.
    """
    p = np.asarray(A._check_res(res)["probs"], float)[:, :, :, CLASS_11]       # (D, S, K, n, 2)
    pts, se = p.mean(-2), p.std(-2, ddof=1) / np.sqrt(p.shape[-2])
    sat = (np.minimum(pts, 1 - pts) < rules.saturation_eps).all(-1)            # (D, S, K): at a corner
    steps = _steps(res)
    mid = 0.5 * (steps[1:] + steps[:-1])
    mse_end = concept_mse(pts.mean(1)[:, -1])
    rng = np.random.default_rng(seed)
    out = []
    for i, k0 in enumerate(OLD.first_learned_index(res, rules.learned_level)):
        k0 = int(min(k0, len(steps) - 2 * rules.late_window - 1))
        P, E, T = pts[i, :, k0:], se[i, :, k0:], steps[k0:]
        L, S = P.shape[1], P.shape[0]
        unsat = ~sat[i, :, k0:]
        k_end = np.where(unsat.any(1), L - 1 - np.argmax(unsat[:, ::-1], axis=1), L - 1)
        measurable = k_end >= 2 * rules.late_window     # early and late windows before the read-out saturates
        k_end = np.maximum(k_end, 2 * rules.late_window)
        ok, mv, st, dr = _slow_verdict(P, E, T, k_end, rules)
        ok &= measurable
        v_late = _window_speed(P, E, T, k_end - rules.late_window, k_end)[0]
        disp = P[np.arange(S), k_end] - P[np.arange(S), k_end - rules.late_window]
        u = disp / np.maximum(np.linalg.norm(disp, axis=-1, keepdims=True), 1e-12)
        t = (T - T[0])[None, :, None]
        null = 0
        for _ in range(rules.n_null):
            path = P[:, :1] + v_late[:, None, None] * t * u[:, None] + rng.normal(0, 1, P.shape) * E
            null += _slow_verdict(path, E, T, k_end, rules)[0].sum()
        rate = float(null / (rules.n_null * S))
        dr = np.where(measurable, dr, np.nan)
        sp, floor = _seed_speed(P, E, T)
        use = ~(sat[i, :, k0 + 1:] & sat[i, :, k0:-1]).any(0) & (sp.mean(0) > floor.mean(0))
        shape, ci = _shape(mid[k0:], sp, use, rules, seed) if use.sum() >= rules.min_fit_points \
            else ("undetermined", (float("nan"), float("nan")))
        n_meas = int(measurable.sum())
        oc = Outcome(int(ok.sum()), n_meas, rate, n_meas > 0)
        out.append(SlowingResult(float(_dcs(res)[i]), k0, ok, measurable, mv, st, dr, bool((k_end < L - 1).any()),
                                 bool(mse_end[i] < rules.reached_mse), rate, shape, ci, verdict(oc, rules),
                                 _needed(int(ok.sum()), n_meas, rate, rules, n_meas > 0)))
    return out


# ----------------------------------------------------------------------------- the old rule
# ----------------------------------------------------------------------------- slowing
class SlowingCheck(NamedTuple):
    """The late-phase speed of class 11 at one separation (Fig. 6c)."""

    dc: float
    start: int               #: first late interval (index into the speed curve)
    speeds: np.ndarray       #: seed-mean speeds of the late intervals
    floors: np.ndarray       #: their sampling-noise floors (:func:`~swingby.diffusion.fig6.analysis.speed_noise_floor`)
    moving_early: bool       #: the first late speed exceeds ``factor`` times its floor
    still_at_end: bool       #: the last speed is within ``factor`` times its floor
    drop: float              #: first late speed / last late speed
    passed: bool             #: moving early, still at the end, and a drop of at least ``min_drop``
    fits: N.DecayFits | None  #: exponential and power law over the late speeds above their floor
    null_pass_rate: float    #: resampled checkpoints of a model that stopped changing


def _slowing_verdict(sp, floor, factor, min_drop):
    moving = bool(sp[0] > factor * floor[0])
    still = bool(sp[-1] <= factor * floor[-1])
    drop = float(sp[0] / max(sp[-1], 1e-12))
    return moving, still, drop, moving and still and drop >= min_drop


def _stopped_model(res: dict, i: int, n_ckpt: int, rng: np.random.Generator) -> np.ndarray:
    """Null class-11 samples ``(n_ckpt, S, n, 2)`` of a model that stopped changing: each
    checkpoint takes, per seed, one of the repeated draws of the final model at random,
    never the same draw at two consecutive checkpoints (two checkpoints are then two
    independent draws of one unchanged model)."""
    rep = np.asarray(res["rep_probs"])[i, :, :, CLASS_11].astype(float)  # (S, R, n, 2)
    S, R = rep.shape[:2]
    if R < 2:
        raise ValueError("res['rep_probs'] must hold at least two repeated draws per run")
    r = np.empty((n_ckpt, S), int)
    r[0] = rng.integers(0, R, S)
    for k in range(1, n_ckpt):
        r[k] = (r[k - 1] + rng.integers(1, R, S)) % R
    return rep[np.arange(S)[None, :], r]


def _speed_and_floor(samples: np.ndarray, steps: np.ndarray):
    """Seed-mean speed and its noise floor (:func:`~swingby.diffusion.fig6.analysis.floor_from_samples`) from
    samples ``(K, S, n, 2)``."""
    pts = samples.mean(axis=(1, 2))
    gaps = np.diff(steps)
    return np.linalg.norm(np.diff(pts, axis=0), axis=1) / gaps, A.floor_from_samples(samples, gaps)


def slowing_checks(res: dict, factor: float = R.slowing_factor, min_drop: float = R.min_drop, n: int = R.n_null,
                   seed: int = 0) -> list[SlowingCheck]:
    """Fig. 6(c) per separation, over the late phase (from the first learned concept on).

    Old rule (:data:`~swingby.diffusion.rules.OLD_RULES`), kept until the chapters move to
    :func:`swingby.diffusion.fig6.slowing.terminal_slowing` (per seed, a null that keeps moving).

    Parameters
    ----------
    res : dict
        A complete sweep with ``rep_probs`` (repeated draws of the final model).
    factor : float
        A speed counts as moving above ``factor`` times its noise floor (at least 1).
    min_drop : float
        Smallest ratio of the first to the last late speed (at least 1).
    n : int
        Null data sets per separation (at least 10).
    seed : int
        Seeds the null.

    Returns
    -------
    list of SlowingCheck
        One per separation.
    """
    factor = _checks.number("factor", factor, low=1)
    min_drop = _checks.number("min_drop", min_drop, low=1)
    if "rep_probs" not in res:
        raise ValueError("res must hold rep_probs (repeated draws of the final model) for the null")
    mid, sp = A.speed(res)
    floor = A.speed_noise_floor(res)
    steps = np.asarray(res["meta"]["checkpoint_steps"], float)
    rng = np.random.default_rng(seed)
    out = []
    for i, k0 in enumerate(first_learned_index(res)):
        k0 = int(min(k0, len(mid) - 3))
        late_steps = steps[k0:]
        moving, still, drop, passed = _slowing_verdict(sp[i, k0:], floor[i, k0:], factor, min_drop)
        null = 0
        for _ in range(_n(n)):
            nsp, nfl = _speed_and_floor(_stopped_model(res, i, len(late_steps), rng), late_steps)
            null += _slowing_verdict(nsp, nfl, factor, min_drop)[3]
        above = sp[i, k0:] > floor[i, k0:]
        fits = N.compare_decay_fits(mid[k0:][above], sp[i, k0:][above]) if above.sum() >= 3 else None
        out.append(SlowingCheck(float(res["meta"]["config"]["separations"][i]), k0, sp[i, k0:], floor[i, k0:],
                                moving, still, drop, passed, fits, null / n))
    return out
