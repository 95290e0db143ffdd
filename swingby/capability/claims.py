"""The claim checks of the chapter ``book/capability.md``, each with the null it is
calibrated against (the chapter reports how often the check passes on the null), and
the fits, correlations and probe scores they rest on:

* **precedes** (``precedes_check``): capability crosses 50 % well before behaviour.
  Null: prompts that change nothing (``noise_capability``; its binomial noise is checked
  against repeated draws by ``repeat_noise_ratio``).
* **seed-robust** (``robustness_check``): the seed-to-seed spread of capability is well
  below that of behaviour (``spread_ratio``). Null: the two curves of each run swapped
  at random (``swap_curves``).
* **linear relation** (``linear_check``): behaviour time is a line in capability time.
  Null: the behaviour times shuffled among the runs (``permute_seeds``).
* **coincide**: in :mod:`swingby.capability.probe_claims`.

The times and curves they test come from :mod:`swingby.capability.measures`,
:mod:`swingby.capability.spread` and :mod:`swingby.capability.probes`.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from swingby import _checks
from swingby.capability.measures import CrossingTimes, _pair, _times, first_crossing
from swingby.capability.spread import spread_ratio
from swingby.diffusion.rules import OLD_RULES as R


# ---------------------------------------------------------- capability first
class Lead(NamedTuple):
    """How long capability precedes behaviour in each run, ``(D, S)``.

    ``steps`` is ``t_behaviour - t_capability``; where behaviour never crosses it is
    counted at the end of training (``censored`` true), so the lead is a lower bound
    there. NaN where a run is missing or capability never crosses either.
    """

    steps: np.ndarray
    censored: np.ndarray


def capability_lead(times: CrossingTimes, end: float) -> Lead:
    """Lead of capability over behaviour (eq. ``eq-cap-lead``), censored at ``end``.

    Parameters
    ----------
    times : CrossingTimes
        From :func:`~swingby.capability.measures.crossing_times`.
    end : float
        The last training step: a behaviour that never crosses is put there.

    Returns
    -------
    Lead
    """
    _checks.instance("times", times, CrossingTimes)
    end = _checks.positive_float("end", end)
    t_cap = _times("times.capability", times.capability)
    t_beh = _times("times.behaviour", times.behaviour, t_cap.shape)
    censored = np.isinf(t_beh) & np.isfinite(t_cap)
    with np.errstate(invalid="ignore"):  # inf - inf where neither crosses: set to NaN below
        lead = np.where(censored, end, t_beh) - t_cap
    lead[~np.isfinite(t_cap) | np.isnan(t_beh)] = np.nan
    return Lead(lead, censored)


def precedes_check(lead: Lead, min_lead: float, min_fraction: float = R.min_lead_runs) -> bool:
    """Claim check: capability crosses at least ``min_lead`` steps before behaviour in at
    least ``min_fraction`` of the runs (censored leads count with their lower bound).

    Old rule (:data:`~swingby.diffusion.rules.OLD_RULES`), kept until the chapters move to
    :func:`swingby.capability.checks.lead_over_levels` (sustained crossings, levels 0.5-0.8).

    Parameters
    ----------
    lead : Lead
        From :func:`capability_lead`.
    min_lead : float
        Steps by which capability must come first.
    min_fraction : float
        Fraction of the measured runs in which it must.

    Returns
    -------
    bool
    """
    _checks.instance("lead", lead, Lead)
    min_lead = _checks.positive_float("min_lead", min_lead)
    min_fraction = _checks.number("min_fraction", min_fraction, low=0, high=1, low_open=True)
    x = np.asarray(lead.steps, float)
    x = x[np.isfinite(x)]
    if x.size == 0:
        raise ValueError("lead holds no measured run (every entry is NaN)")
    return bool(np.mean(x >= min_lead) >= min_fraction)


def noise_capability(behaviour_curves: np.ndarray, n_samples: int, n_prompts: int,
                     rng: np.random.Generator) -> np.ndarray:
    """Null capability: prompts that change nothing but the sampling noise.

    Each of ``n_prompts`` extra prompts draws ``n_samples`` images that are blue-small
    with the plain prompt's probability (a binomial draw); the null capability is the
    best of them and the plain prompt, as in eq. ``eq-cap-def``.

    Parameters
    ----------
    behaviour_curves : array (..., K)
        Plain-prompt accuracies in [0, 1] (NaN: missing run, kept NaN).
    n_samples : int
        Samples per prompt (the sweep's ``samples_per_class``).
    n_prompts : int
        Number of capability prompts.
    rng : numpy.random.Generator
        Source of the binomial draws.

    Returns
    -------
    array (..., K)
        The null capability curves, NaN where ``behaviour_curves`` is.
    """
    b = np.asarray(behaviour_curves, float)
    if b.ndim < 1 or np.any((b < 0) | (b > 1)):
        raise ValueError("behaviour_curves must hold accuracies in [0, 1] (NaN for missing runs)")
    n_samples = _checks.positive_int("n_samples", n_samples)
    n_prompts = _checks.positive_int("n_prompts", n_prompts)
    _checks.instance("rng", rng, np.random.Generator, "numpy.random.Generator")
    p = np.nan_to_num(b)
    draws = rng.binomial(n_samples, np.broadcast_to(p, (n_prompts,) + p.shape)) / n_samples
    out = np.maximum(b, draws.max(axis=0))
    out[np.isnan(b)] = np.nan
    return out


# ----------------------------------------------------------- seed robustness
def robustness_check(cap: np.ndarray, beh: np.ndarray, steps: np.ndarray, max_ratio: float = R.max_spread_ratio) -> bool:
    """Claim check: capability's seed spread is at most ``max_ratio`` times behaviour's
    (:func:`~swingby.capability.spread.spread_ratio`).

    Old rule (:data:`~swingby.diffusion.rules.OLD_RULES`), kept until the chapters move to
    :func:`swingby.capability.checks.window_spread_ratio` (before capability saturates).

    Parameters
    ----------
    cap, beh : array (D, S, K)
        Capability and behaviour curves.
    steps : array (K,)
        Checkpoint steps.
    max_ratio : float
        The largest ratio that counts as "more robust".

    Returns
    -------
    bool
    """
    max_ratio = _checks.number("max_ratio", max_ratio, low=0, high=1, low_open=True)
    return spread_ratio(cap, beh, steps) <= max_ratio


def swap_curves(cap: np.ndarray, beh: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Null for the robustness check: the capability and behaviour curves of each run
    swapped with probability one half (the labels carry no information).

    Parameters
    ----------
    cap, beh : array (D, S, K)
        Capability and behaviour curves of the same shape.
    rng : numpy.random.Generator
        Source of the coin flips.

    Returns
    -------
    cap, beh : array (D, S, K)
        The curves after the swaps.
    """
    c = _checks.array("cap", cap, ndim=3, finite=False)
    b = _checks.array("beh", beh, ndim=3, finite=False)
    if c.shape != b.shape:
        raise ValueError(f"cap and beh must have the same shape, got {c.shape} and {b.shape}")
    _checks.instance("rng", rng, np.random.Generator, "numpy.random.Generator")
    flip = rng.random(c.shape[:2])[..., None] < 0.5
    return np.where(flip, b, c), np.where(flip, c, b)


# ----------------------------------------------------------- linear relation
class LinearFit(NamedTuple):
    """Least-squares line ``y = slope x + intercept`` with its R^2 and a 95 % bootstrap
    confidence interval of the slope (pairs resampled with replacement)."""

    slope: float
    intercept: float
    r2: float
    slope_ci: tuple
    n: int


def linear_fit(x: np.ndarray, y: np.ndarray, *, n_boot: int = R.n_boot, seed: int = 0) -> LinearFit:
    """Fit ``y`` against ``x`` over the finite pairs (seed 003, Fig. 3; eq. ``eq-cap-fit``).

    Old rule (:data:`~swingby.diffusion.rules.OLD_RULES`), kept until the chapters move to
    a ``scipy.stats.bootstrap`` interval with the seed as the unit.

    Parameters
    ----------
    x, y : array
        Same size; pairs with a NaN or ``inf`` are left out; at least three must remain,
        with two distinct ``x``.
    n_boot : int
        Bootstrap resamples for the slope's interval.
    seed : int
        Seeds the bootstrap.

    Returns
    -------
    LinearFit
    """
    x, y = _pair(x, y)
    n_boot = _checks.positive_int("n_boot", n_boot)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if len(x) < 3 or np.ptp(x) == 0:
        raise ValueError(f"need at least three finite (x, y) pairs with distinct x, got {len(x)}")
    slope, intercept = np.polyfit(x, y, 1)
    resid = y - (slope * x + intercept)
    r2 = 1 - resid.var() / y.var() if y.var() > 0 else 1.0
    rng = np.random.default_rng(_checks.seed("seed", seed))
    i = rng.integers(0, len(x), (n_boot, len(x)))
    xs, ys = x[i], y[i]
    dx = xs - xs.mean(axis=1, keepdims=True)
    sxx = (dx ** 2).sum(axis=1)
    boots = ((dx * (ys - ys.mean(axis=1, keepdims=True))).sum(axis=1) / np.where(sxx > 0, sxx, 1))[sxx > 0]
    lo, hi = np.percentile(boots, [2.5, 97.5])
    return LinearFit(float(slope), float(intercept), float(r2), (float(lo), float(hi)), int(len(x)))


def linear_check(fit: LinearFit, min_r2: float = R.linear_min_r2, min_n: int = R.linear_min_n) -> bool:
    """Claim check of a linear relation: at least ``min_n`` runs, ``R^2 >= min_r2`` and a
    positive slope whose 95 % interval excludes zero.

    Parameters
    ----------
    fit : LinearFit
        From :func:`linear_fit`.
    min_r2 : float
        Smallest share of variance the line must explain.
    min_n : int
        Fewest runs the fit must rest on.

    Returns
    -------
    bool
    """
    _checks.instance("fit", fit, LinearFit)
    min_r2 = _checks.number("min_r2", min_r2, low=0, high=1)
    min_n = _checks.integer("min_n", min_n, low=3)
    return bool(fit.n >= min_n and fit.r2 >= min_r2 and fit.slope_ci[0] > 0)


def lead_null(behaviour_curves: np.ndarray, behaviour_times: np.ndarray, steps: np.ndarray, end: float,
              n_samples: int, n_prompts: int):
    """The null of :func:`precedes_check`, as a maker for :func:`swingby.diffusion.fig6.nulls.pass_rate`.

    Capability is redrawn by :func:`noise_capability` (prompts that change nothing) and
    its crossing times are set against the runs' own behaviour times
    (``book/capability.md``).

    Parameters
    ----------
    behaviour_curves : numpy.ndarray
        Behaviour ``(D, S, K)``.
    behaviour_times : numpy.ndarray
        The runs' behaviour crossing times ``(D, S)``.
    steps : numpy.ndarray
        The ``K`` checkpoint steps.
    end : float
        The last training step (censored runs are put there).
    n_samples, n_prompts : int
        Samples per prompt, and prompts besides the plain one.

    Returns
    -------
    callable
        ``make(rng) -> Lead``.
    """
    def make(rng: np.random.Generator) -> Lead:
        cap0 = noise_capability(behaviour_curves, n_samples, n_prompts, rng)
        return capability_lead(CrossingTimes(first_crossing(steps, cap0), behaviour_times), end)
    return make


# ----------------------------------------------- yardsticks of prompts that change nothing
def noise_lead(behaviour_curves: np.ndarray, steps: np.ndarray, end: float, n_samples: int, n_prompts: int,
               rng: np.random.Generator, n_redraws: int = 20, timing=None) -> np.ndarray:
    """The lead of prompts that change nothing: the median over ``n_redraws`` redraws of
    :func:`noise_capability` of its lead over the runs' own behaviour (eq. ``eq-cap-lead``).

    Used by ``book/capability.md`` as the yardstick beside the measured lead.

    Parameters
    ----------
    behaviour_curves : array (D, S, K)
        Plain-prompt accuracies in [0, 1].
    steps : array (K,)
        Checkpoint steps.
    end : float
        The last training step (a behaviour that never crosses is put there).
    n_samples, n_prompts : int
        Samples per prompt, and prompts besides the plain one.
    rng : numpy.random.Generator
        Source of the redraws.
    n_redraws : int
        Redraws of the null capability.
    timing : callable or None
        ``timing(steps, curves) -> times``; None: :func:`~swingby.capability.measures.first_crossing` at 50 %.

    Returns
    -------
    array (D, S)
        Median lead per run; NaN where no redraw gives a lead (e.g. neither curve crosses).
    """
    n_redraws = _checks.positive_int("n_redraws", n_redraws)
    timing = first_crossing if timing is None else timing
    beh = np.asarray(behaviour_curves, float)
    t_beh = timing(steps, beh)
    leads = np.stack([capability_lead(CrossingTimes(timing(steps, noise_capability(beh, n_samples, n_prompts, rng)),
                                                    t_beh), end).steps for _ in range(n_redraws)])
    some = ~np.isnan(leads).all(axis=0)  # a median only where some redraw gives a lead
    out = np.full(leads.shape[1:], np.nan)
    out[some] = np.nanmedian(leads[:, some], axis=0)
    return out


class SpreadYardstick(NamedTuple):
    """Mean discordant counts of the comparative part of ``claim-cap-robust`` when capability
    is redrawn from prompts that change nothing (:func:`spread_yardstick`)."""

    capability_closer: float  #: runs whose null capability lies closer to its median, mean over redraws
    behaviour_closer: float   #: runs whose behaviour lies closer, mean over redraws
    n_redraws: int


def spread_yardstick(behaviour_curves: np.ndarray, n_samples: int, n_prompts: int, rng: np.random.Generator,
                     n_redraws: int = 20) -> SpreadYardstick:
    """The comparative part of the seed-robustness claim (study Figs. 8, 9) on a capability
    of prompts that change nothing: :func:`swingby.capability.confirm.late_spread` per
    separation on :func:`noise_capability` against the runs' own behaviour, counted over
    the runs and averaged over ``n_redraws`` redraws (``book/capability.md``).

    Parameters
    ----------
    behaviour_curves : array (D, S, K)
        Behaviour of the separations the part judges (the weak-signal ones).
    n_samples, n_prompts : int
        Samples per prompt, and prompts besides the plain one.
    rng : numpy.random.Generator
        Source of the redraws.
    n_redraws : int
        Redraws of the null capability.

    Returns
    -------
    SpreadYardstick
    """
    from swingby.capability.confirm import late_spread  # the registered check itself

    beh = _checks.array("behaviour_curves", behaviour_curves, ndim=3)
    n_redraws = _checks.positive_int("n_redraws", n_redraws)
    counts = np.zeros((n_redraws, 2))
    for r in range(n_redraws):
        cap0 = noise_capability(beh, n_samples, n_prompts, rng)
        for i in range(len(beh)):
            closer = late_spread(cap0[i], beh[i])
            counts[r] += [closer[0].sum(), closer[1].sum()]
    return SpreadYardstick(float(counts[:, 0].mean()), float(counts[:, 1].mean()), n_redraws)


def count_phrase(k: int, noun: str = "run", plural: str | None = None) -> str:
    """``k`` things in words: "no run", "1 run", "3 runs" (the chapter's glued counts).

    Parameters
    ----------
    k : int
        The count, at least 0.
    noun : str
        The singular noun.
    plural : str or None
        The plural (None: ``noun + "s"``).

    Returns
    -------
    str
    """
    k = _checks.integer("k", k, low=0)
    if k == 0:
        return f"no {noun}"
    return f"{k} {noun if k == 1 else (plural or noun + 's')}"
