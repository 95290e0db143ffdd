"""Capability and behaviour of the held-out class (the hidden-capabilities study,
Park et al. 2024; used by the chapter ``book/capability.md``, ``ch-capability``).

*Behaviour* is the joint accuracy of class 11 (blue and small) under its plain prompt.
*Capability* is the best joint accuracy over prompts that ask for blue-small harder
(:func:`swingby.diffusion.data.capability_prompts`): a model has the capability when
*some* prompt elicits the composition. Both are measured by the classifier and by the
pixel check. The probes of App. D (embeddings, weight and gradient norms, the loss) are
read from what the sweep stores at every checkpoint.

Every function takes a results dict of :func:`swingby.diffusion.storage.load_results`
(or arrays cut from it) and returns arrays indexed ``(separation, seed, checkpoint)``
or ``(separation, seed)``. Runs that are not finished (``res["done"]`` false) are NaN.

The claim checks of the chapter live here too, each with the null it is calibrated
against (the chapter reports how often the check passes on the null):

* **precedes** (:func:`precedes_check`): capability crosses 50 % well before behaviour.
  Null: prompts that change nothing, i.e. capability as the best of repeated draws at
  the plain prompt's accuracy (:func:`noise_capability`).
* **seed-robust** (:func:`robustness_check`): the seed-to-seed spread of capability is
  well below that of behaviour. Null: the two curves of each run swapped at random
  (:func:`swap_curves`).
* **linear relation** (:func:`linear_check`): behaviour time is a line in capability
  time. Null: the behaviour times shuffled among the runs (:func:`permute_seeds`).
* **coincide** (:func:`coincidence_check`): a probe's transition step tracks the
  capability time run by run. Null: the probe's steps shuffled among the seeds of each
  separation (:func:`permute_seeds`).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from swingby import _checks
from swingby.diffusion.concept_space import RADIUS_SPLIT

CLASS_11 = 3  #: index of the held-out class in the results arrays
#: concept-space corners of the trained classes a held-out point can be drawn to
#: (01 red small: size learned first; 10 blue big: colour learned first)
CORNERS = {"01": (0.0, 1.0), "10": (1.0, 0.0)}
TARGET_11 = (1.0, 1.0)  #: concept-space target of class 11


# ----------------------------------------------------------------------------- checks
def _by(by: str) -> str:
    return _checks.choice("by", by, ("classifier", "pixels"))


def _res(res: dict, *keys: str) -> dict:
    """``res`` if it is a results dict holding ``done`` and ``keys``, else raise."""
    if not isinstance(res, dict) or "done" not in res or any(k not in res for k in keys):
        raise ValueError(f"res must be a results dict of swingby.diffusion.storage.load_results holding "
                         f"'done' and {list(keys)}, got {type(res).__name__}"
                         + (f" with keys {sorted(res)}" if isinstance(res, dict) else ""))
    done = np.asarray(res["done"])
    if done.ndim != 3 or done.dtype != bool:
        raise ValueError(f"res['done'] must be a boolean (separations, seeds, checkpoints) array, got {done.shape}")
    for k in keys:
        if np.shape(res[k])[:2] != done.shape[:2]:
            raise ValueError(f"res[{k!r}] must start with the (separations, seeds) axes {done.shape[:2]} of "
                             f"res['done'], got shape {np.shape(res[k])}")
    return res


def _steps(steps) -> np.ndarray:
    s = _checks.array("steps", steps, ndim=1, min_size=2)
    if np.any(np.diff(s) <= 0):
        raise ValueError(f"steps must be strictly increasing, got {_checks.short_repr(steps)}")
    return s


def _times(name: str, t, shape: tuple | None = None) -> np.ndarray:
    """A ``(separations, seeds)`` array of steps: finite, ``inf`` (never) or NaN (no run)."""
    arr = _checks.array(name, t, ndim=2, finite=False)
    if np.any(arr == -np.inf) or np.any(arr[np.isfinite(arr)] < 0):
        raise ValueError(f"{name} must hold steps >= 0, inf (never) or NaN (no run)")
    if shape is not None and arr.shape != shape:
        raise ValueError(f"{name} must have shape {shape} (separations, seeds), got {arr.shape}")
    return arr


# ------------------------------------------------------------------- accuracies
def joint_accuracy(probs: np.ndarray, pixels: np.ndarray, by: str) -> np.ndarray:
    """Fraction of samples that are blue and small (eq. ``eq-cap-joint``).

    Parameters
    ----------
    probs : array (..., n, 2)
        Classifier outputs ``(P(blue), P(small))`` of ``n`` samples.
    pixels : array (..., n, 4)
        Pixel-check readings (disc present, radius, blue minus red, ...) of the same samples.
    by : {"classifier", "pixels"}
        The classifier (both probabilities above one half) or the pixel check (a disc is
        there, bluer than red, radius below the split between the class means).

    Returns
    -------
    array (...)
        The fraction over the sample axis.
    """
    if _by(by) == "classifier":
        return ((probs[..., 0] > 0.5) & (probs[..., 1] > 0.5)).mean(axis=-1)
    ok = (pixels[..., 0] > 0.5) & (pixels[..., 2] > 0) & (pixels[..., 1] < RADIUS_SPLIT)
    return ok.mean(axis=-1)


def _masked(res: dict, a: np.ndarray) -> np.ndarray:
    out = np.asarray(a, float).copy()
    out[~np.asarray(res["done"])] = np.nan
    return out


def behaviour(res: dict, by: str = "classifier") -> np.ndarray:
    """Joint accuracy of class 11 under its plain prompt (seed 003's behaviour).

    Parameters
    ----------
    res : dict
        A results dict (needs ``probs``, ``pixels``, ``done``).
    by : {"classifier", "pixels"}
        Which reading counts a sample as blue and small.

    Returns
    -------
    array (D, S, K)
        NaN where the run is not finished.
    """
    _res(res, "probs", "pixels")
    return _masked(res, joint_accuracy(res["probs"][:, :, :, CLASS_11], res["pixels"][:, :, :, CLASS_11], by))


def prompt_accuracies(res: dict, by: str = "classifier") -> np.ndarray:
    """Joint accuracy of class 11 under each capability prompt.

    Parameters
    ----------
    res : dict
        A results dict (needs ``cap_probs``, ``cap_pixels``, ``done``).
    by : {"classifier", "pixels"}
        Which reading counts a sample as blue and small.

    Returns
    -------
    array (D, S, K, P)
        NaN where the run is not finished.
    """
    _res(res, "cap_probs", "cap_pixels")
    acc = joint_accuracy(res["cap_probs"], res["cap_pixels"], by)
    acc[~np.asarray(res["done"])] = np.nan
    return acc


def capability(res: dict, by: str = "classifier") -> np.ndarray:
    """Best joint accuracy over the capability prompts and the plain prompt (eq. ``eq-cap-def``).

    Parameters
    ----------
    res : dict
        A results dict (needs the plain and the capability readings and ``done``).
    by : {"classifier", "pixels"}
        Which reading counts a sample as blue and small.

    Returns
    -------
    array (D, S, K)
        NaN where the run is not finished; never below :func:`behaviour`.
    """
    both = np.concatenate([prompt_accuracies(res, by), behaviour(res, by)[..., None]], axis=-1)
    out = np.full(both.shape[:-1], np.nan)
    ok = np.asarray(res["done"])
    out[ok] = both[ok].max(axis=-1)
    return out


def first_crossing(steps: np.ndarray, y: np.ndarray, level: float = 0.5) -> np.ndarray:
    """Step at which each curve first reaches ``level`` (eq. ``eq-cap-time``).

    Parameters
    ----------
    steps : array (K,)
        Strictly increasing steps of the checkpoints.
    y : array (..., K)
        Curves over the checkpoints; a curve with a NaN is a missing run.
    level : float
        The level to reach (seed 003: 50 %).

    Returns
    -------
    array (...)
        Linear interpolation between the checkpoints around the first reach; ``inf``
        where the curve never reaches ``level``, NaN where it is missing.
    """
    steps, y = _steps(steps), np.asarray(y, float)
    level = _checks.number("level", level)
    if y.ndim < 1 or y.shape[-1] != steps.shape[0]:
        raise ValueError(f"y must end in an axis of {steps.shape[0]} checkpoints, got shape {y.shape}")
    flat = y.reshape(-1, y.shape[-1])
    out = np.empty(len(flat))
    for i, c in enumerate(flat):
        if np.isnan(c).any():
            out[i] = np.nan
            continue
        hit = np.nonzero(c >= level)[0]
        if not len(hit):
            out[i] = np.inf
        elif hit[0] == 0:
            out[i] = steps[0]
        else:
            k = hit[0]
            out[i] = steps[k - 1] + (level - c[k - 1]) / (c[k] - c[k - 1]) * (steps[k] - steps[k - 1])
    return out.reshape(y.shape[:-1])


class CrossingTimes(NamedTuple):
    """First 50 % crossings of capability and behaviour, ``(D, S)`` each (``inf``: never)."""

    capability: np.ndarray
    behaviour: np.ndarray


def crossing_times(res: dict, by: str = "classifier", level: float = 0.5) -> CrossingTimes:
    """Capability-learning and behaviour-elicitation times of every run (seed 003, Fig. 3).

    Parameters
    ----------
    res : dict
        A results dict.
    by : {"classifier", "pixels"}
        Which reading counts a sample as blue and small.
    level : float
        The accuracy that counts as learned (seed 003: 0.5).
    """
    steps = res["meta"]["checkpoint_steps"] if isinstance(res, dict) and "meta" in res else None
    if steps is None:
        raise ValueError("res must be a results dict with res['meta']['checkpoint_steps']")
    return CrossingTimes(first_crossing(steps, capability(res, by), level),
                         first_crossing(steps, behaviour(res, by), level))


# ------------------------------------------------------------ capability first
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
        From :func:`crossing_times`.
    end : float
        The last training step: a behaviour that never crosses is put there.
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


def precedes_check(lead: Lead, min_lead: float, min_fraction: float = 0.5) -> bool:
    """Claim check: capability crosses at least ``min_lead`` steps before behaviour in at
    least ``min_fraction`` of the runs (censored leads count with their lower bound).

    Parameters
    ----------
    lead : Lead
        From :func:`capability_lead`.
    min_lead : float
        Steps by which capability must come first.
    min_fraction : float
        Fraction of the measured runs in which it must.
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


def repeat_noise_ratio(res: dict, by: str = "classifier") -> float:
    """How the spread of repeated draws from one final model compares with binomial noise.

    The sweep draws the final model's samples again (``rep_probs``/``rep_pixels``, four
    repeats). For every run and class this pools the variance of the joint accuracy
    over the repeats and divides it by the pooled binomial variance ``p (1 - p) / n``.
    Near 1: the binomial null of :func:`noise_capability` has the right noise.

    Parameters
    ----------
    res : dict
        A results dict (needs ``rep_probs``, ``rep_pixels``, ``done``).
    by : {"classifier", "pixels"}
        Which reading counts a sample as blue and small.
    """
    _res(res, "rep_probs", "rep_pixels")
    acc = joint_accuracy(res["rep_probs"], res["rep_pixels"], by)  # (D, S, R, 4)
    acc = acc[np.asarray(res["done"]).all(axis=2)]                   # (runs, R, 4)
    if acc.shape[0] == 0 or acc.shape[1] < 2:
        raise ValueError("res needs at least one finished run with two repeated draws")
    n = np.shape(res["rep_probs"])[-2]
    p = acc.mean(axis=1)
    binom = (p * (1 - p) / n).sum()
    if binom <= 0:
        raise ValueError("every repeated accuracy is 0 or 1: the ratio is undefined")
    return float(acc.var(axis=1, ddof=1).sum() / binom)


# ------------------------------------------------------------ seed robustness
def seed_std(curves: np.ndarray) -> np.ndarray:
    """Seed-to-seed standard deviation (seed 003, Fig. 8).

    Parameters
    ----------
    curves : array (D, S, K)
        Accuracy curves; NaN runs are left out.

    Returns
    -------
    array (D, K)
        Standard deviation over the finished seeds (``ddof=1``); NaN with fewer than two.
    """
    c = _checks.array("curves", curves, ndim=3, finite=False)
    n = np.isfinite(c).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.nanstd(np.where(np.isfinite(c), c, np.nan), axis=1, ddof=1) if c.shape[1] > 1 else \
            np.full((c.shape[0], c.shape[2]), np.nan)
    out[n < 2] = np.nan
    return out


def time_mean(y: np.ndarray, steps: np.ndarray) -> np.ndarray:
    """Average of ``y (..., K)`` over training time (trapezoids on ``steps``).

    Parameters
    ----------
    y : array (..., K)
        Values at the checkpoints.
    steps : array (K,)
        Strictly increasing checkpoint steps.
    """
    s = _steps(steps)
    y = np.asarray(y, float)
    if y.ndim < 1 or y.shape[-1] != s.size:
        raise ValueError(f"y must end in an axis of {s.size} checkpoints, got shape {y.shape}")
    return np.trapezoid(y, s, axis=-1) / (s[-1] - s[0])


def spread_ratio(cap: np.ndarray, beh: np.ndarray, steps: np.ndarray) -> float:
    """Time-averaged seed spread of capability over that of behaviour (eq. ``eq-cap-spread``),
    pooled over the separations.

    Parameters
    ----------
    cap, beh : array (D, S, K)
        Capability and behaviour curves.
    steps : array (K,)
        Checkpoint steps.
    """
    if np.shape(cap) != np.shape(beh):
        raise ValueError(f"cap and beh must have the same shape, got {np.shape(cap)} and {np.shape(beh)}")
    c, b = time_mean(seed_std(cap), steps), time_mean(seed_std(beh), steps)
    ok = np.isfinite(c) & np.isfinite(b)
    if not ok.any() or b[ok].sum() <= 0:
        raise ValueError("beh must vary between seeds in at least one separation with two finished seeds")
    return float(c[ok].sum() / b[ok].sum())


def robustness_check(cap: np.ndarray, beh: np.ndarray, steps: np.ndarray, max_ratio: float = 0.5) -> bool:
    """Claim check: capability's seed spread is at most ``max_ratio`` times behaviour's
    (:func:`spread_ratio`).

    Parameters
    ----------
    cap, beh : array (D, S, K)
        Capability and behaviour curves.
    steps : array (K,)
        Checkpoint steps.
    max_ratio : float
        The largest ratio that counts as "more robust".
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
    """
    c = _checks.array("cap", cap, ndim=3, finite=False)
    b = _checks.array("beh", beh, ndim=3, finite=False)
    if c.shape != b.shape:
        raise ValueError(f"cap and beh must have the same shape, got {c.shape} and {b.shape}")
    _checks.instance("rng", rng, np.random.Generator, "numpy.random.Generator")
    flip = rng.random(c.shape[:2])[..., None] < 0.5
    return np.where(flip, b, c), np.where(flip, c, b)


# ------------------------------------------------------------ linear relation
def linear_check(fit: "LinearFit", min_r2: float = 0.5, min_n: int = 8) -> bool:
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
    """
    _checks.instance("fit", fit, LinearFit)
    min_r2 = _checks.number("min_r2", min_r2, low=0, high=1)
    min_n = _checks.integer("min_n", min_n, low=3)
    return bool(fit.n >= min_n and fit.r2 >= min_r2 and fit.slope_ci[0] > 0)


def permute_seeds(t: np.ndarray, rng: np.random.Generator, *, within: bool = True) -> np.ndarray:
    """Null pairing: the measured entries of ``t (D, S)`` shuffled among the seeds of each
    separation (``within=True``) or among all runs; NaN and ``inf`` entries stay put.

    Parameters
    ----------
    t : array (D, S)
        Times per run.
    rng : numpy.random.Generator
        Source of the permutations.
    within : bool
        Shuffle within each separation (keeps what the separation explains) or across all.
    """
    arr = _times("t", t).copy()
    _checks.instance("rng", rng, np.random.Generator, "numpy.random.Generator")
    within = _checks.flag("within", within)
    rows = [np.s_[i] for i in range(arr.shape[0])] if within else [np.s_[:]]
    for r in rows:
        sub = arr[r]
        ok = np.isfinite(sub)
        sub[ok] = rng.permutation(sub[ok])
        arr[r] = sub
    return arr


# ----------------------------------------------------------- concept-space turn
def class_points(res: dict) -> np.ndarray:
    """Concept-space points of every class, ``(D, S, K, 4, 2)``: the mean of
    ``(P(blue), P(small))`` over the samples; NaN where the run is not finished.

    Parameters
    ----------
    res : dict
        A results dict (needs ``probs``, ``done``).
    """
    _res(res, "probs")
    p = np.asarray(res["probs"], float).mean(axis=4)
    p[~np.asarray(res["done"])] = np.nan
    return p


def first_concept_index(points: np.ndarray, level: float = 0.5) -> np.ndarray:
    """First checkpoint at which the model manipulates a concept, ``(D, S)``: the colour
    contrast ``P(blue|10) - P(blue|00)`` or the size contrast ``P(small|01) - P(small|00)``
    of the trained classes reaches ``level`` (before, the samples are read noise).

    Parameters
    ----------
    points : array (D, S, K, 4, 2)
        From :func:`class_points`.
    level : float
        Contrast that counts as learned.

    Returns
    -------
    array (D, S) of float
        A checkpoint index; the last one if no concept is learned; NaN for a missing run.
    """
    p = _checks.array("points", points, ndim=5, finite=False)
    if p.shape[3:] != (4, 2):
        raise ValueError(f"points must be (D, S, K, 4 classes, 2), got {p.shape}")
    level = _checks.number("level", level, low=0, high=1, low_open=True)
    contrast = np.maximum(p[..., 2, 0] - p[..., 0, 0], p[..., 1, 1] - p[..., 0, 1])  # (D, S, K)
    reached = contrast >= level
    k = np.where(reached.any(axis=2), reached.argmax(axis=2), p.shape[2] - 1).astype(float)
    k[np.isnan(contrast).any(axis=2)] = np.nan
    return k


class ConceptTurn(NamedTuple):
    """Where the held-out class ends its concept memorization, per run ``(D, S)``.

    ``corner``: the trained class it was drawn to ("01" or "10"); ``turn``: the step of
    its closest approach to that corner (the turning point); ``departure``: the first
    step after the turn at which it is half-way from the corner to its target (``inf``
    if it never gets there). NaN / "" for missing runs.
    """

    corner: np.ndarray
    turn: np.ndarray
    departure: np.ndarray


def concept_turn(res: dict) -> ConceptTurn:
    """End of concept memorization in concept space (seed 003, Figs. 1 and 4; eq. ``eq-cap-turn``).

    From the first checkpoint at which a concept is learned (:func:`first_concept_index`),
    class 11's distance to each trained corner (01 red small, 10 blue big) is followed;
    the corner it comes closest to is the memorised one, the step of that closest
    approach is the turn, and the step at which the distance again exceeds one half
    (half the way to the target (1, 1)) is the departure.

    Parameters
    ----------
    res : dict
        A results dict (needs ``probs``, ``done``, ``meta``).
    """
    pts = class_points(res)
    steps = _steps(res["meta"]["checkpoint_steps"])
    k0 = first_concept_index(pts)
    D, S = pts.shape[:2]
    corner = np.full((D, S), "", dtype=object)
    turn, depart = np.full((D, S), np.nan), np.full((D, S), np.nan)
    for i, j in np.ndindex(D, S):
        if np.isnan(k0[i, j]):
            continue
        k = int(k0[i, j])
        p = pts[i, j, k:, CLASS_11]
        dist = {c: np.hypot(p[:, 0] - x, p[:, 1] - y) for c, (x, y) in CORNERS.items()}
        c = min(dist, key=lambda name: dist[name].min())
        kt = int(np.argmin(dist[c]))
        corner[i, j], turn[i, j] = c, steps[k + kt]
        depart[i, j] = first_crossing(steps[k + kt:], dist[c][kt:], 0.5) if kt < len(p) - 1 else np.inf
    return ConceptTurn(corner, turn, depart)


def final_mse(res: dict) -> np.ndarray:
    """Concept-space MSE of class 11 to its target (1, 1) at the last checkpoint, ``(D, S)``
    (how well a run ends; seed 003, Fig. 1). NaN for unfinished runs.

    Parameters
    ----------
    res : dict
        A results dict (needs ``probs``, ``done``).
    """
    p = class_points(res)[:, :, -1, CLASS_11]
    return ((p - np.asarray(TARGET_11)) ** 2).mean(axis=-1)


def _ranks(v: np.ndarray) -> np.ndarray:
    """Ranks from 1, ties sharing their average rank (``inf`` ranks last)."""
    order = np.argsort(v, kind="stable")
    r = np.empty(len(v))
    r[order] = np.arange(1, len(v) + 1)
    for u in np.unique(v):
        tie = v == u
        r[tie] = r[tie].mean()
    return r


def rank_correlation(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman rank correlation over the pairs without NaN (``inf``, a time that never
    came, ranks after every finite one).

    Parameters
    ----------
    x, y : array
        Same size; at least three pairs without NaN, neither all tied.
    """
    x, y = np.asarray(x, float).ravel(), np.asarray(y, float).ravel()
    if x.shape != y.shape:
        raise ValueError(f"x and y must have the same size, got {x.shape} and {y.shape}")
    ok = ~np.isnan(x) & ~np.isnan(y)
    if ok.sum() < 3 or np.unique(x[ok]).size < 2 or np.unique(y[ok]).size < 2:
        raise ValueError(f"need at least three (x, y) pairs without NaN, not all tied, got {ok.sum()}")
    return float(np.corrcoef(_ranks(x[ok]), _ranks(y[ok]))[0, 1])


# ----------------------------------------------------------------- embeddings
def _cos(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    na, nb = np.linalg.norm(a, axis=-1), np.linalg.norm(b, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((na > 0) & (nb > 0), (a * b).sum(-1) / (na * nb), np.nan)


def embedding_disentanglement(res: dict) -> np.ndarray:
    """``1 - |cos(e01 - e00, e10 - e00)|`` of the class-prompt embeddings (seed 003, Fig. 5;
    eq. ``eq-cap-ed``): 1 when the size and colour directions are orthogonal.

    Parameters
    ----------
    res : dict
        A results dict (needs ``emb (D, S, K, 4, E)``, ``done``).

    Returns
    -------
    array (D, S, K)
    """
    _res(res, "emb")
    e = np.asarray(res["emb"], float)
    return _masked(res, 1 - np.abs(_cos(e[..., 1, :] - e[..., 0, :], e[..., 2, :] - e[..., 0, :])))


def embedding_parallelogram(res: dict) -> np.ndarray:
    """``cos(e11 - e10, e11 - e01)`` of the class-prompt embeddings (seed 003, Fig. 16).

    Parameters
    ----------
    res : dict
        A results dict (needs ``emb (D, S, K, 4, E)``, ``done``).

    Returns
    -------
    array (D, S, K)
    """
    _res(res, "emb")
    e = np.asarray(res["emb"], float)
    return _masked(res, _cos(e[..., 3, :] - e[..., 2, :], e[..., 3, :] - e[..., 1, :]))


def loss_log(res: dict, field: str) -> tuple[np.ndarray, np.ndarray]:
    """One field of the training log (the bound, its parts, gradient norms of App. D).

    Parameters
    ----------
    res : dict
        A results dict (needs ``loss (D, S, R, F)``, ``done`` and ``meta.loss_fields``).
    field : str
        One of ``res["meta"]["loss_fields"]`` other than ``"step"``.

    Returns
    -------
    steps : array (R,)
        Steps of the records (the same in every run).
    values : array (D, S, R)
        NaN for runs that are not finished.
    """
    _res(res, "loss")
    fields = list(res["meta"]["loss_fields"])
    _checks.choice("field", field, [f for f in fields if f != "step"])
    log = np.asarray(res["loss"], float)
    done = np.asarray(res["done"]).all(axis=2)
    steps = log[done][0, :, fields.index("step")] if done.any() else log[0, 0, :, 0]
    vals = log[..., fields.index(field)].copy()
    vals[~done] = np.nan
    return steps, vals


def transition_step(steps: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Generic transition step of a probe (eq. ``eq-cap-transition``): the first step at
    which the curve has moved half of its largest excursion from its starting value.

    Parameters
    ----------
    steps : array (K,)
        Strictly increasing steps.
    y : array (..., K)
        Probe curves (NaN: missing run).

    Returns
    -------
    array (...)
        Interpolated step; ``steps[0]`` for a flat curve; NaN for a missing run.
    """
    s = _steps(steps)
    y = np.asarray(y, float)
    if y.ndim < 1 or y.shape[-1] != s.size:
        raise ValueError(f"y must end in an axis of {s.size} checkpoints, got shape {y.shape}")
    dev = np.abs(y - y[..., :1])
    peak = dev.max(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = np.where(peak > 0, dev / peak, 1.0)
    frac[np.isnan(y).any(axis=-1)] = np.nan
    return first_crossing(s, frac, 0.5)


def peak_step(steps: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Step of each curve's maximum (the first one), NaN for a missing run.

    Parameters
    ----------
    steps : array (K,)
        Strictly increasing steps.
    y : array (..., K)
        Curves.
    """
    s = _steps(steps)
    y = np.asarray(y, float)
    if y.ndim < 1 or y.shape[-1] != s.size:
        raise ValueError(f"y must end in an axis of {s.size} checkpoints, got shape {y.shape}")
    out = np.atleast_1d(s[np.argmax(np.nan_to_num(y, nan=-np.inf), axis=-1)].astype(float))
    out[np.atleast_1d(np.isnan(y).any(axis=-1))] = np.nan
    return out.reshape(y.shape[:-1])


# ------------------------------------------------------------- probe scores
def _corr(x: np.ndarray, y: np.ndarray) -> float:
    if x.size < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    return float(np.corrcoef(x, y)[0, 1])


class ProbeScore(NamedTuple):
    """How well a probe's transition step predicts capability time over the runs.

    ``r_capability``: Pearson correlation with the capability time; ``p_value``: share
    of within-separation shuffles (:func:`permute_seeds`) with a correlation at least as
    large; ``median_gap``: median of ``|t_probe - t_capability|``; ``r_behaviour``: the
    correlation with the behaviour time (runs where behaviour crosses); ``n``: runs used.
    """

    name: str
    r_capability: float
    p_value: float
    median_gap: float
    r_behaviour: float
    n: int


def probe_score(name: str, t_probe: np.ndarray, times: CrossingTimes, *, n_perm: int = 2000,
                seed: int = 0) -> ProbeScore:
    """Score one probe against the capability time (the probe table of the chapter).

    Parameters
    ----------
    name : str
        The probe's name in the table.
    t_probe : array (D, S)
        The probe's transition step per run.
    times : CrossingTimes
        Capability and behaviour times per run.
    n_perm : int
        Within-separation shuffles for the p-value.
    seed : int
        Seeds the shuffles.
    """
    _checks.instance("times", times, CrossingTimes)
    t_cap = _times("times.capability", times.capability)
    t_beh = _times("times.behaviour", times.behaviour, t_cap.shape)
    t = _times("t_probe", t_probe, t_cap.shape)
    n_perm = _checks.positive_int("n_perm", n_perm)
    rng = np.random.default_rng(_checks.seed("seed", seed))
    ok = np.isfinite(t) & np.isfinite(t_cap)
    r = _corr(t[ok], t_cap[ok])
    if np.isfinite(r):
        # shuffle the probe among seeds of a separation, only over the runs used
        masked = np.where(ok, t, np.nan)
        null = [_corr(permute_seeds(masked, rng)[ok], t_cap[ok]) for _ in range(n_perm)]
        p = float((1 + np.sum(np.nan_to_num(null, nan=-np.inf) >= r - 1e-12)) / (1 + n_perm))
    else:
        p = float("nan")
    okb = ok & np.isfinite(t_beh)
    gap = float(np.median(np.abs(t[ok] - t_cap[ok]))) if ok.any() else float("nan")
    return ProbeScore(str(name), r, p, gap, _corr(t[okb], t_beh[okb]), int(ok.sum()))


def checkpoint_gap(steps: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Width of the checkpoint interval that holds each step ``t`` (the resolution at
    which a transition there can be located); NaN where ``t`` is not finite.

    Parameters
    ----------
    steps : array (K,)
        Strictly increasing checkpoint steps.
    t : array (...)
        Steps inside ``[steps[0], steps[-1]]``.
    """
    s = _steps(steps)
    t = np.asarray(t, float)
    fin = np.isfinite(t)
    if np.any((t[fin] < s[0]) | (t[fin] > s[-1])):
        raise ValueError(f"t must lie within the checkpoints [{s[0]:g}, {s[-1]:g}]")
    k = np.clip(np.searchsorted(s, np.where(fin, t, s[0]), side="right"), 1, s.size - 1)
    out = (s[k] - s[k - 1]).astype(float)
    out[~fin] = np.nan
    return out


def coincidence_check(t_probe: np.ndarray, t_cap: np.ndarray, tolerance: np.ndarray, *,
                      min_r: float = 0.5, min_fraction: float = 0.5) -> bool:
    """Claim check: a probe's transition coincides with the capability time.

    Passes when, over the runs where both are measured, the correlation is at least
    ``min_r`` and in at least ``min_fraction`` of the runs ``|t_probe - t_cap|`` is within
    ``tolerance`` (per run, e.g. :func:`checkpoint_gap` at the capability time).

    Parameters
    ----------
    t_probe, t_cap : array (D, S)
        Probe and capability times per run.
    tolerance : array (D, S) or float
        Largest gap that counts as coinciding.
    min_r : float
        Smallest correlation over the runs.
    min_fraction : float
        Share of runs that must coincide.
    """
    t_cap = _times("t_cap", t_cap)
    t = _times("t_probe", t_probe, t_cap.shape)
    tol = np.broadcast_to(np.asarray(tolerance, float), t_cap.shape)
    min_r = _checks.number("min_r", min_r, low=-1, high=1)
    min_fraction = _checks.number("min_fraction", min_fraction, low=0, high=1, low_open=True)
    ok = np.isfinite(t) & np.isfinite(t_cap) & np.isfinite(tol)
    if ok.sum() < 3:
        raise ValueError(f"need at least three runs where t_probe, t_cap and tolerance are finite, got {ok.sum()}")
    r = _corr(t[ok], t_cap[ok])
    close = np.abs(t[ok] - t_cap[ok]) <= tol[ok]
    return bool(np.isfinite(r) and r >= min_r and close.mean() >= min_fraction)


# ----------------------------------------------------------------- line fit
class LinearFit(NamedTuple):
    """Least-squares line ``y = slope x + intercept`` with its R^2 and a 95 % bootstrap
    confidence interval of the slope (pairs resampled with replacement)."""

    slope: float
    intercept: float
    r2: float
    slope_ci: tuple
    n: int


def linear_fit(x: np.ndarray, y: np.ndarray, *, n_boot: int = 2000, seed: int = 0) -> LinearFit:
    """Fit ``y`` against ``x`` over the finite pairs (seed 003, Fig. 3; eq. ``eq-cap-fit``).

    Parameters
    ----------
    x, y : array
        Same size; pairs with a NaN or ``inf`` are left out; at least three must remain,
        with two distinct ``x``.
    n_boot : int
        Bootstrap resamples for the slope's interval.
    seed : int
        Seeds the bootstrap.
    """
    x, y = np.asarray(x, float).ravel(), np.asarray(y, float).ravel()
    if x.shape != y.shape:
        raise ValueError(f"x and y must have the same size, got {x.shape} and {y.shape}")
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


def prompt_labels(res: dict, dc_index: int) -> list[str]:
    """Names of the prompts of class 11 at one separation: ``"plain"`` then every
    capability prompt with its colour (the order of ``cap_probs``).

    Parameters
    ----------
    res : dict
        A results dict (needs ``meta.config``).
    dc_index : int
        Which separation.
    """
    from swingby.diffusion.data import CirclesConfig, capability_prompts

    try:
        cfg = res["meta"]["config"]
        dcs = cfg["separations"]
    except (TypeError, KeyError) as err:
        raise ValueError(f"res must be a results dict with meta.config ({err!r})") from None
    i = _checks.index("dc_index", dc_index, len(dcs))
    prompts, labels = capability_prompts(CirclesConfig(image_size=cfg["image_size"], dc=float(dcs[i]),
                                                       ds=cfg["ds"], position=cfg["position"]))
    return ["plain"] + [f"{lab}: ({p[0]:.2f}, {p[1]:.2f}, {p[2]:.2f})" if "dc" in lab else lab
                        for lab, p in zip(labels, prompts)]
