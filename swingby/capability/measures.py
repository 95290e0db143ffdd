"""Behaviour and capability of the held-out class and when each is learned (the
hidden-capabilities study, Park et al. 2024, Sec. 3.2, Figs. 2, 3, 7; chapter
``book/capability.md``).

*Behaviour* is the joint accuracy of class 11 (blue and small) under its plain prompt;
*capability* the best joint accuracy over prompts that ask for blue-small harder
(:func:`swingby.diffusion.data.capability_prompts`). Every function takes a results dict
of :func:`swingby.diffusion.runs.storage.load_results` and returns arrays indexed
``(separation, seed, checkpoint)`` or ``(separation, seed)``; unfinished runs are NaN.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from swingby import _checks
from swingby.claims.capability import DESIGN
from swingby.diffusion.concept_space import joint_accuracy
from swingby.diffusion.data import CirclesConfig, capability_prompts
from swingby.diffusion.readouts import CLASS_11, sweep_onsets

__all__ = ["behaviour", "capability", "prompt_accuracies", "prompt_labels", "first_crossing",
           "CrossingTimes", "Leads", "leads"]


# ------------------------------------------------- checks shared by the capability modules
def check_res(res: dict, *keys: str) -> dict:
    """``res`` if it is a results dict holding ``done`` and ``keys``, else a ValueError."""
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


def check_curves(y, steps) -> tuple[np.ndarray, np.ndarray]:
    """``(y, steps)`` as arrays if ``y (..., K)`` ends in an axis of the ``K`` strictly increasing ``steps``."""
    s = _checks.array("steps", steps, ndim=1, min_size=2)
    if np.any(np.diff(s) <= 0):
        raise ValueError(f"steps must be strictly increasing, got {_checks.short_repr(steps)}")
    y = np.asarray(y, float)
    if y.ndim < 1 or y.shape[-1] != s.size:
        raise ValueError(f"y must end in an axis of {s.size} checkpoints, got shape {y.shape}")
    return y, s


def check_times(name: str, t, shape: tuple | None = None) -> np.ndarray:
    """A ``(separations, seeds)`` array of steps: finite, ``inf`` (never) or NaN (no run)."""
    arr = _checks.array(name, t, ndim=2, finite=False)
    if np.any(arr == -np.inf) or np.any(arr[np.isfinite(arr)] < 0):
        raise ValueError(f"{name} must hold steps >= 0, inf (never) or NaN (no run)")
    if shape is not None and arr.shape != shape:
        raise ValueError(f"{name} must have shape {shape} (separations, seeds), got {arr.shape}")
    return arr


def masked(res: dict, a) -> np.ndarray:
    """``a (D, S, K)`` as floats, NaN where the run is not finished."""
    out = np.asarray(a, float).copy()
    out[~np.asarray(res["done"])] = np.nan
    return out


# ---------------------------------------------------------------- accuracies
def behaviour(res: dict, by: str = "classifier") -> np.ndarray:
    """Joint accuracy of class 11 under its plain prompt, ``(D, S, K)`` (eq. ``eq-cap-def``).

    Parameters
    ----------
    res : dict
        A results dict (needs ``probs``, ``pixels``, ``done``).
    by : {"classifier", "pixels"}
        The classifier (both probabilities above one half) or the pixel check (a disc,
        bluer than red, radius below the split between the class means).
    """
    check_res(res, "probs", "pixels")
    return masked(res, joint_accuracy(res["probs"][:, :, :, CLASS_11], res["pixels"][:, :, :, CLASS_11], by))


def prompt_accuracies(res: dict, by: str = "classifier") -> np.ndarray:
    """Joint accuracy of class 11 under each capability prompt, ``(D, S, K, P)``.

    Parameters
    ----------
    res : dict
        A results dict (needs ``cap_probs``, ``cap_pixels``, ``done``).
    by : {"classifier", "pixels"}
        Which reading counts a sample as blue and small.
    """
    check_res(res, "cap_probs", "cap_pixels")
    acc = joint_accuracy(res["cap_probs"], res["cap_pixels"], by)
    acc[~np.asarray(res["done"])] = np.nan
    return acc


def capability(res: dict, by: str = "classifier") -> np.ndarray:
    """Best joint accuracy over the capability prompts and the plain prompt, ``(D, S, K)``
    (eq. ``eq-cap-def``); never below :func:`behaviour`.

    Parameters
    ----------
    res : dict
        A results dict (needs the plain and the capability readings and ``done``).
    by : {"classifier", "pixels"}
        Which reading counts a sample as blue and small.
    """
    both = np.concatenate([prompt_accuracies(res, by), behaviour(res, by)[..., None]], axis=-1)
    out = np.full(both.shape[:-1], np.nan)
    ok = np.asarray(res["done"])
    out[ok] = both[ok].max(axis=-1)
    return out


def prompt_labels(res: dict, dc_index: int) -> list[str]:
    """Names of the prompts of class 11 at one separation: ``"plain"``, then every
    capability prompt with its colour (the order of ``cap_probs``).

    Parameters
    ----------
    res : dict
        A results dict (needs ``meta.config``).
    dc_index : int
        Which separation.
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


# ------------------------------------------------------------ crossing times
def first_crossing(steps: np.ndarray, y: np.ndarray, level: float = DESIGN.level, sustain: int = 1) -> np.ndarray:
    """Step at which each curve first reaches ``level`` and stays there for ``sustain``
    checkpoints, or to the end if fewer remain (eq. ``eq-cap-time``; ``sustain`` 1: the
    study's first crossing, more: the chapter's held crossing).

    Parameters
    ----------
    steps : array (K,)
        Strictly increasing checkpoint steps.
    y : array (..., K)
        Curves over the checkpoints; a curve with a NaN is a missing run.
    level : float
        The level to reach.
    sustain : int
        Checkpoints the curve must stay at or above ``level``.

    Returns
    -------
    array (...)
        Linear interpolation into the checkpoint that starts the stay; ``inf`` where
        never, NaN where the curve is missing.
    """
    y, s = check_curves(y, steps)
    level = _checks.number("level", level)
    sustain = _checks.positive_int("sustain", sustain)
    above = y >= level
    stay = above.copy()
    for j in range(1, sustain):
        stay[..., :-j] &= above[..., j:]
    out = np.empty(stay[..., 0].size)
    for i, (c, st) in enumerate(zip(y.reshape(-1, s.size), stay.reshape(-1, s.size))):
        hit = np.flatnonzero(st)
        if np.isnan(c).any():
            out[i] = np.nan
        elif not hit.size:
            out[i] = np.inf
        elif hit[0] == 0 or c[hit[0] - 1] >= level:
            out[i] = s[hit[0]]
        else:
            k = hit[0]
            out[i] = s[k - 1] + (level - c[k - 1]) / (c[k] - c[k - 1]) * (s[k] - s[k - 1])
    return out.reshape(y.shape[:-1])


class CrossingTimes(NamedTuple):
    """Capability and behaviour times of every run, ``(D, S)`` each (``inf``: never)."""

    capability: np.ndarray
    behaviour: np.ndarray


def crossing_times(res: dict, by: str = "classifier", sustain: int = 1) -> CrossingTimes:
    """:func:`first_crossing` of capability and behaviour at ``DESIGN.level`` in every run (study Fig. 3)."""
    steps = res["meta"]["checkpoint_steps"]
    return CrossingTimes(first_crossing(steps, capability(res, by), sustain=sustain),
                         first_crossing(steps, behaviour(res, by), sustain=sustain))


def lead(times: CrossingTimes, end: float) -> tuple[np.ndarray, np.ndarray]:
    """Lead ``t_B - t_C`` of every run (eq. ``eq-cap-lead``), and which runs' behaviour never crosses (put at ``end``)."""
    t_cap, t_beh = np.asarray(times.capability, float), np.asarray(times.behaviour, float)
    censored = np.isinf(t_beh) & np.isfinite(t_cap)
    with np.errstate(invalid="ignore"):  # inf - inf where neither crosses: set to NaN below
        out = np.where(censored, end, t_beh) - t_cap
    out[~np.isfinite(t_cap) | np.isnan(t_beh)] = np.nan
    return out, censored


def noise_capability(behaviour_curves: np.ndarray, n_samples: int, n_prompts: int,
                     rng: np.random.Generator) -> np.ndarray:
    """Capability of ``n_prompts`` prompts that change nothing (binomial redraws of the plain prompt's accuracy)."""
    b = np.asarray(behaviour_curves, float)
    p = np.nan_to_num(b)
    draws = rng.binomial(n_samples, np.broadcast_to(p, (n_prompts,) + p.shape)) / n_samples
    out = np.maximum(b, draws.max(axis=0))
    out[np.isnan(b)] = np.nan
    return out


class Leads(NamedTuple):
    """Capability and behaviour times of every run by first and by held crossings of
    ``DESIGN.level``, and the leads of capability read from them (:func:`leads`)."""

    first: CrossingTimes           #: first crossings (the study's timing), classifier
    held: CrossingTimes            #: held crossings, classifier
    onset: np.ndarray              #: each run's first checkpoint step that draws discs
    lead_first: np.ndarray         #: lead of capability by first crossings (eq. ``eq-cap-lead``)
    lead_held: np.ndarray          #: lead by held crossings, classifier
    lead_held_pixels: np.ndarray   #: lead by held crossings, pixel check
    noise_held: np.ndarray         #: held lead of prompts that change nothing, median of redraws
    censored: np.ndarray           #: runs whose behaviour never crosses (first crossings)


def leads(res: dict, sustain: int, seed: int = 0, n_redraws: int = 20) -> Leads:
    """Both timings of every run of a sweep and the leads of capability over behaviour
    (study Figs. 2, 7), with the yardstick of prompts that change nothing: the median
    held lead over ``n_redraws`` redraws of :func:`noise_capability`.

    Parameters
    ----------
    res : dict
        A complete sweep (:func:`swingby.diffusion.runs.storage.load_results`).
    sustain : int
        Checkpoints a held crossing stays at or above the level.
    seed : int
        Seeds the redraws of prompts that change nothing.
    n_redraws : int
        Redraws of that yardstick.
    """
    sustain = _checks.positive_int("sustain", sustain)
    n_redraws = _checks.positive_int("n_redraws", n_redraws)
    steps = np.asarray(res["meta"]["checkpoint_steps"], float)
    end = float(steps[-1])
    first = crossing_times(res)
    held, held_pix = crossing_times(res, sustain=sustain), crossing_times(res, "pixels", sustain=sustain)
    lead_first, censored = lead(first, end)
    n_s, n_p = int(res["meta"]["config"]["samples_per_class"]), int(res["cap_probs"].shape[3])
    beh, rng = behaviour(res), np.random.default_rng(seed)
    t_beh = first_crossing(steps, beh, sustain=sustain)
    noise = np.stack([lead(CrossingTimes(first_crossing(steps, noise_capability(beh, n_s, n_p, rng), sustain=sustain),
                                         t_beh), end)[0] for _ in range(n_redraws)])
    some = ~np.isnan(noise).all(axis=0)  # a median only where some redraw gives a lead
    noise_held = np.full(noise.shape[1:], np.nan)
    noise_held[some] = np.nanmedian(noise[:, some], axis=0)
    return Leads(first, held, steps[sweep_onsets(res)], lead_first, lead(held, end)[0], lead(held_pix, end)[0],
                 noise_held, censored)
