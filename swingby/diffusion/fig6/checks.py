"""The paper's Fig. 6 claims, checked per seed against nulls a plausible wrong model
passes (issue 22), with every threshold from :data:`swingby.diffusion.rules.RULES`.

* :func:`dip_checks` (Fig. 6a, the swing): the held-out class's coordinate of the
  concept learned *second* falls toward the training class that shares the concept
  learned first and then recovers (at weak colour signal: P(blue) of class 11 falls
  toward red small and returns). Null: paths monotone in each concept coordinate
  (every L-shape, i.e. one concept learned after the other without a swing) between
  each run's own end points, with each run's own sampling noise.
* :func:`~swingby.diffusion.fig6.mse_checks.mse_rise_checks` (Fig. 6b, in
  :mod:`swingby.diffusion.fig6.mse_checks`): the concept-space MSE rises and then falls.
  Null: the same monotone-per-coordinate paths (:func:`monotone_per_coordinate`).

The slowing of Fig. 6(c) is checked in :mod:`swingby.diffusion.fig6.slowing`. These
replace :func:`swingby.diffusion.fig6.claims.swing_checks` and ``bend_checks`` (the old
rules) once the chapters move.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from swingby.diffusion.fig6 import analysis as A
from swingby.diffusion.fig6 import claims as OLD
from swingby.diffusion.rules import RULES, Outcome, Rules, binomial_p, seeds_needed, verdict

CLASS_11 = A.CLASS_11


CORNER = {"01": np.array([0.0, 1.0]), "10": np.array([1.0, 0.0])}  #: training classes class 11 swings toward


def _steps(res: dict) -> np.ndarray:
    return np.asarray(res["meta"]["checkpoint_steps"], float)


def _dcs(res: dict) -> np.ndarray:
    return np.asarray(res["meta"]["config"]["separations"], float)


def monotone_per_coordinate(start: np.ndarray, end: np.ndarray, steps: np.ndarray, noise: np.ndarray,
                            n: int, rng: np.random.Generator) -> np.ndarray:
    """Null paths ``(n, K, 2)`` monotone in *each* coordinate from ``start`` to ``end``:
    each coordinate follows its own logistic in ``sqrt(step)`` with its own random onset
    and width, so one concept may be learned long after the other (every L-shape is
    included), plus Gaussian noise of standard deviation ``noise (K, 2)``.

    Parameters
    ----------
    start, end : array (2,)
        End points of the paths.
    steps : array (K,)
        Checkpoint steps.
    noise : array (K, 2)
        Sampling noise per checkpoint and coordinate.
    n : int
        Paths to draw.
    rng : numpy.random.Generator
        Source of onsets, widths and noise.

    Returns
    -------
    array (n, K, 2)
    """
    s = np.asarray(steps, float)
    x = np.sqrt((s - s[0]) / max(s[-1] - s[0], 1.0))
    onset = rng.uniform(0.0, 1.0, (n, 1, 2))
    width = rng.uniform(0.02, 0.3, (n, 1, 2))
    f = 1 / (1 + np.exp(-(x[None, :, None] - onset) / width))
    f = (f - f[:, :1]) / np.maximum(f[:, -1:] - f[:, :1], 1e-12)
    path = np.asarray(start, float) + f * (np.asarray(end, float) - np.asarray(start, float))
    return path + rng.normal(0, 1, path.shape) * np.asarray(noise, float)[None]


# ----------------------------------------------------------------------------- dip (swing)
class Dip(NamedTuple):
    """A fall of one coordinate below its first value and a recovery after it, ``(...)``."""

    passed: np.ndarray
    fall: np.ndarray
    recovery: np.ndarray


def dip(x: np.ndarray, se: np.ndarray, rules: Rules = RULES) -> Dip:
    """Transient dip of curves ``x (..., K)`` (their first point is the reference): the
    fall to the minimum must be at least ``rules.dip_fall`` and the later recovery at
    least ``rules.dip_recovery``, each beyond ``rules.z`` times its sampling error.

    Parameters
    ----------
    x : array (..., K)
        One concept coordinate per checkpoint.
    se : array (..., K)
        Its sampling standard error.
    rules : Rules
        The thresholds.

    Returns
    -------
    Dip
    """
    x, se = np.asarray(x, float), np.broadcast_to(np.asarray(se, float), np.shape(x))
    K = x.shape[-1]
    kmin = np.argmin(x, axis=-1)[..., None]
    xmin = np.take_along_axis(x, kmin, -1)[..., 0]
    after = np.where(np.arange(K) >= kmin, x, -np.inf)
    kmax = np.argmax(after, axis=-1)[..., None]
    fall, rec = x[..., 0] - xmin, np.take_along_axis(x, kmax, -1)[..., 0] - xmin
    se0, semin, semax = se[..., 0], np.take_along_axis(se, kmin, -1)[..., 0], np.take_along_axis(se, kmax, -1)[..., 0]
    ok = (fall >= rules.dip_fall) & (rec >= rules.dip_recovery) \
        & (fall > rules.z * np.hypot(se0, semin)) & (rec > rules.z * np.hypot(semin, semax))
    return Dip(ok, fall, rec)


class DipCheck(NamedTuple):
    """The transient swing of class 11 at one separation (Fig. 6a), per seed."""

    dc: float
    toward: str              #: "01" (size learned first: P(blue) dips) or "10" (colour first: P(small) dips)
    per_seed: np.ndarray     #: (S,) bool: the run of that seed dips and recovers
    fall: np.ndarray         #: (S,)
    recovery: np.ndarray     #: (S,)
    decidable: bool          #: the coordinate starts at least ``dip_fall`` above 0 (in the seed mean)
    null_pass_rate: float    #: monotone-per-coordinate paths, the runs' own noise
    old_null_pass_rate: float  #: the old seed-mean swing check on the same null (L-shapes pass it)
    verdict: str
    needed: str              #: what would decide it


def _first_concepts(res: dict, rules: Rules) -> np.ndarray:
    """``(D, S)`` "colour" / "size" / "tie": which concept each run learns first."""
    t = OLD._learning_times(res, rules.learned_level)
    return np.where(t[..., 0] < t[..., 1], "colour", np.where(t[..., 1] < t[..., 0], "size", "tie"))


def _needed(n_pass: int, n: int, null: float, rules: Rules, decidable: bool = True) -> str:
    """What would decide a check: the seeds needed at the observed pass share, or why none would."""
    if not decidable:
        return "a read-out that can show the effect (this one cannot)"
    if null > rules.alpha:
        return f"a more specific check: its null passes {null:.1%} > {rules.alpha:.0%}"
    if n and binomial_p(n_pass, n, null) <= rules.alpha:
        return f"decided at this size ({n_pass}/{n} against a null of {null:.1%})"
    k = seeds_needed(n_pass / max(n, 1), null, rules)
    return f"{k} seeds at the observed pass share {n_pass}/{n}" if k else "no sample size: it does not beat its null"


def _at_least(rates, m: int) -> float:
    """P(at least ``m`` of independent events with probabilities ``rates`` happen)
    (Poisson binomial, by dynamic programming)."""
    dist = np.array([1.0])
    for r in rates:
        dist = np.concatenate([dist * (1 - r), [0.0]]) + np.concatenate([[0.0], dist * r])
    return float(dist[m:].sum())


def dip_checks(res: dict, rules: Rules = RULES, seed: int = 0) -> list[DipCheck]:
    """:func:`dip` of class 11 at every separation, from the first trained checkpoint on,
    in the coordinate of the concept learned second, toward the training class that
    shares the one learned first (majority over seeds).

    Parameters
    ----------
    res : dict
        A complete sweep.
    rules : Rules
        The thresholds.
    seed : int
        Seeds the null.

    Returns
    -------
    list of DipCheck
        One per separation.
    """
    t = A.trajectories(res)[:, :, 1:, CLASS_11]
    se = OLD.sampling_se(res)[:, :, 1:]
    steps = _steps(res)[1:]
    first = _first_concepts(res, rules)
    rng = np.random.default_rng(seed)
    out = []
    for i, dc in enumerate(_dcs(res)):
        size_first = np.sum(first[i] == "size") > np.sum(first[i] == "colour")
        toward, c = ("01", 0) if size_first else ("10", 1)
        d = dip(t[i, :, :, c], se[i, :, :, c], rules)
        decidable = bool(t[i, :, 0, c].mean() >= rules.dip_fall)
        S = t.shape[1]
        null = old = 0
        for _ in range(rules.n_null):
            paths = np.concatenate([monotone_per_coordinate(t[i, s, 0], t[i, s, -1], steps, se[i, s], 1, rng)
                                    for s in range(S)])
            null += dip(paths[..., c], se[i, ..., c], rules).passed.sum()
            old += OLD.swing_check(paths, toward, OLD.R.z, OLD.R.swing_min).passed
        rate = float(null / (rules.n_null * S))
        n_pass = int(d.passed.sum())
        word = verdict(Outcome(n_pass, S, rate, decidable), rules)
        out.append(DipCheck(float(dc), toward, d.passed, d.fall, d.recovery, decidable, rate,
                            float(old / rules.n_null), word, _needed(n_pass, S, rate, rules, decidable)))
    return out


def weak_signal_dip(checks: list[DipCheck], rules: Rules = RULES) -> tuple[np.ndarray, Outcome, str]:
    """The transient swing toward red small at weak colour signal, per seed: a seed
    passes when at least ``rules.partly_seed_fraction`` of its runs with
    ``dc <= rules.weak_dc`` dip and recover.

    Parameters
    ----------
    checks : list of DipCheck
        From :func:`dip_checks`.
    rules : Rules
        The thresholds.

    Returns
    -------
    per_seed : array (S,) of float
        Share of each seed's weak-signal runs with the dip.
    outcome : Outcome
    word : str
        The verdict.
    """
    weak = [c for c in checks if c.dc <= rules.weak_dc + 1e-9]
    if not weak:
        raise ValueError(f"no separation at or below weak_dc = {rules.weak_dc}")
    share = np.mean([c.per_seed for c in weak], axis=0)
    m = int(np.ceil(rules.partly_seed_fraction * len(weak) - 1e-9))
    null = _at_least([c.null_pass_rate for c in weak], m)       # a seed reaches that share by chance
    oc = Outcome(int(np.sum(share >= rules.partly_seed_fraction)), share.size, float(null),
                 all(c.decidable for c in weak), any(c.toward != "01" for c in weak))
    return share, oc, verdict(oc, rules)
