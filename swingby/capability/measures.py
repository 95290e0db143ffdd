"""Behaviour and capability of the held-out class, and when each is learned (the
hidden-capabilities study, Park et al. 2024; used by the chapter ``book/capability.md``,
``ch-capability``).

*Behaviour* is the joint accuracy of class 11 (blue and small) under its plain prompt.
*Capability* is the best joint accuracy over prompts that ask for blue-small harder
(:func:`swingby.diffusion.data.capability_prompts`): a model has the capability when
*some* prompt elicits the composition. Both are measured by the classifier and by the
pixel check. Here too: the steps at which they cross 50 %, their seed-to-seed spread,
and how the sampling noise of repeated draws compares with binomial noise.

Every function takes a results dict of :func:`swingby.diffusion.runs.storage.load_results`
(or arrays cut from it) and returns arrays indexed ``(separation, seed, checkpoint)``
or ``(separation, seed)``. Runs that are not finished (``res["done"]`` false) are NaN.
The probes of App. D are in :mod:`swingby.capability.probes`, the claim checks
and their nulls in :mod:`swingby.capability.claims`; the chapter imports all
three through :mod:`swingby.capability`.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from swingby import _checks
from swingby.diffusion.concept_space import RADIUS_SPLIT
from swingby.diffusion.data import CirclesConfig, capability_prompts
from swingby.diffusion.rules import OLD_RULES as R

CLASS_11 = 3  #: index of the held-out class in the results arrays


#: concept-space corners of the trained classes a held-out point can be drawn to
#: (01 red small: size learned first; 10 blue big: colour learned first)
CORNERS = {"01": (0.0, 1.0), "10": (1.0, 0.0)}


TARGET_11 = (1.0, 1.0)  #: concept-space target of class 11


# --------------------------------- checks (shared by the capability modules)
def _by(by: str) -> str:
    return _checks.choice("by", by, ("classifier", "pixels"))


def _res(res: dict, *keys: str) -> dict:
    """``res`` if it is a results dict holding ``done`` and ``keys``, else raise."""
    if not isinstance(res, dict) or "done" not in res or any(k not in res for k in keys):
        raise ValueError(f"res must be a results dict of swingby.diffusion.runs.storage.load_results holding "
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


def _curves(y, steps) -> tuple[np.ndarray, np.ndarray]:
    """``(y, steps)`` as arrays if ``y (..., K)`` ends in an axis of the ``K`` checkpoint
    ``steps`` (strictly increasing), else raise."""
    s, y = _steps(steps), np.asarray(y, float)
    if y.ndim < 1 or y.shape[-1] != s.size:
        raise ValueError(f"y must end in an axis of {s.size} checkpoints, got shape {y.shape}")
    return y, s


def _pair(x, y) -> tuple[np.ndarray, np.ndarray]:
    """``x`` and ``y`` flattened to float arrays of the same size, else raise."""
    x, y = np.asarray(x, float).ravel(), np.asarray(y, float).ravel()
    if x.shape != y.shape:
        raise ValueError(f"x and y must have the same size, got {x.shape} and {y.shape}")
    return x, y


def _times(name: str, t, shape: tuple | None = None) -> np.ndarray:
    """A ``(separations, seeds)`` array of steps: finite, ``inf`` (never) or NaN (no run)."""
    arr = _checks.array(name, t, ndim=2, finite=False)
    if np.any(arr == -np.inf) or np.any(arr[np.isfinite(arr)] < 0):
        raise ValueError(f"{name} must hold steps >= 0, inf (never) or NaN (no run)")
    if shape is not None and arr.shape != shape:
        raise ValueError(f"{name} must have shape {shape} (separations, seeds), got {arr.shape}")
    return arr


# ---------------------------------------------------------------- accuracies
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


def prompt_labels(res: dict, dc_index: int) -> list[str]:
    """Names of the prompts of class 11 at one separation: ``"plain"`` then every
    capability prompt with its colour (the order of ``cap_probs``).

    Parameters
    ----------
    res : dict
        A results dict (needs ``meta.config``).
    dc_index : int
        Which separation.

    Returns
    -------
    list of str
    """
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


def repeat_noise_ratio(res: dict, by: str = "classifier") -> float:
    """How the spread of repeated draws from one final model compares with binomial noise.

    The sweep draws the final model's samples again (``rep_probs``/``rep_pixels``, four
    repeats). For every run and class this pools the variance of the joint accuracy
    over the repeats and divides it by the pooled binomial variance ``p (1 - p) / n``.
    Near 1: the binomial null of :func:`~swingby.capability.claims.noise_capability` has the right noise.

    Parameters
    ----------
    res : dict
        A results dict (needs ``rep_probs``, ``rep_pixels``, ``done``).
    by : {"classifier", "pixels"}
        Which reading counts a sample as blue and small.

    Returns
    -------
    float
        Pooled variance over the repeats / pooled binomial variance.
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


# ------------------------------------------------------------ crossing times
def first_crossing(steps: np.ndarray, y: np.ndarray, level: float = R.crossing_level) -> np.ndarray:
    """Step at which each curve first reaches ``level`` (eq. ``eq-cap-time``).

    Old rule (:data:`~swingby.diffusion.rules.OLD_RULES`), kept until the chapters move to
    :func:`swingby.capability.checks.sustained_crossing`.

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
    y, steps = _curves(y, steps)
    level = _checks.number("level", level)
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


def crossing_times(res: dict, by: str = "classifier", level: float = R.crossing_level) -> CrossingTimes:
    """Capability-learning and behaviour-elicitation times of every run (seed 003, Fig. 3).

    Parameters
    ----------
    res : dict
        A results dict.
    by : {"classifier", "pixels"}
        Which reading counts a sample as blue and small.
    level : float
        The accuracy that counts as learned (seed 003: 0.5).

    Returns
    -------
    CrossingTimes
    """
    steps = res["meta"]["checkpoint_steps"] if isinstance(res, dict) and "meta" in res else None
    if steps is None:
        raise ValueError("res must be a results dict with res['meta']['checkpoint_steps']")
    return CrossingTimes(first_crossing(steps, capability(res, by), level),
                         first_crossing(steps, behaviour(res, by), level))
