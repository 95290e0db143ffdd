"""Behaviour and capability of the held-out class and when each is learned (the hidden-capabilities
study, Park et al. 2024, Sec. 3.2, Figs. 2, 3, 7; chapter ``book/capability.md``). ``res`` is a results
dict of :func:`swingby.diffusion.runs.storage.load_results`; arrays are indexed ``(separation, seed[,
checkpoint])``, NaN for unfinished runs. ``by`` is the reading that counts a sample as blue and small:
``"classifier"`` (both probabilities above one half) or ``"pixels"`` (a disc, bluer than red, radius
below the split between the class means)."""
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
    """``a (D, S, K, ...)`` as floats, NaN where the run is not finished."""
    out = np.asarray(a, float).copy()
    out[~np.asarray(res["done"])] = np.nan
    return out


# ---------------------------------------------------------------- accuracies
def behaviour(res: dict, by: str = "classifier") -> np.ndarray:
    """Joint accuracy ``(D, S, K)`` of class 11 under its plain prompt (eq. ``eq-cap-def``).

    Parameters
    ----------
    res : dict
    by : {"classifier", "pixels"}
    """
    check_res(res, "probs", "pixels")
    return masked(res, joint_accuracy(res["probs"][:, :, :, CLASS_11], res["pixels"][:, :, :, CLASS_11], by))


def prompt_accuracies(res: dict, by: str = "classifier") -> np.ndarray:
    """Joint accuracy ``(D, S, K, P)`` of class 11 under each capability prompt.

    Parameters
    ----------
    res : dict
    by : {"classifier", "pixels"}
    """
    check_res(res, "cap_probs", "cap_pixels")
    return masked(res, joint_accuracy(res["cap_probs"], res["cap_pixels"], by))


def capability(res: dict, by: str = "classifier") -> np.ndarray:
    """Best joint accuracy ``(D, S, K)`` over the capability prompts and the plain one (eq. ``eq-cap-def``).

    Parameters
    ----------
    res : dict
    by : {"classifier", "pixels"}
    """
    both = np.concatenate([prompt_accuracies(res, by), behaviour(res, by)[..., None]], axis=-1)
    out = np.full(both.shape[:-1], np.nan)
    ok = np.asarray(res["done"])
    out[ok] = both[ok].max(axis=-1)
    return out


def prompt_labels(res: dict, dc_index: int) -> list[str]:
    """Names of class 11's prompts at separation ``dc_index``: ``"plain"``, then the capability prompts.

    Parameters
    ----------
    res : dict
    dc_index : int
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
    """Step at which each curve first reaches ``level`` and stays there for ``sustain`` checkpoints (or to
    the end), interpolated linearly into the checkpoint that starts the stay (eq. ``eq-cap-time``); ``inf``
    where never, NaN for a curve with a NaN (a missing run).

    Parameters
    ----------
    steps : array (K,)
        Strictly increasing.
    y : array (..., K)
    level : float
    sustain : int
        1: the study's first crossing; more: the chapter's held crossing.
    """
    y, s = check_curves(y, steps)
    level = _checks.number("level", level)
    sustain = _checks.positive_int("sustain", sustain)
    above = y >= level
    stay = above.copy()
    for j in range(1, sustain):
        stay[..., :-j] &= above[..., j:]
    k = stay.argmax(axis=-1)
    prev = np.maximum(k - 1, 0)
    yk, yp = np.take_along_axis(y, k[..., None], -1)[..., 0], np.take_along_axis(y, prev[..., None], -1)[..., 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where((k == 0) | (yp >= level), s[k], s[prev] + (level - yp) / (yk - yp) * (s[k] - s[prev]))
    return np.where(np.isnan(y).any(axis=-1), np.nan, np.where(stay.any(axis=-1), t, np.inf))


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
    """Both timings of every run and the leads of capability over behaviour (study Figs. 2, 7), with the
    yardstick of prompts that change nothing: the median held lead over redraws of ``noise_capability``.

    Parameters
    ----------
    res : dict
        A complete sweep.
    sustain : int
        Checkpoints a held crossing stays at or above the level.
    seed, n_redraws : int
        Seed and number of the yardstick's redraws.
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
    noise = np.stack([lead(CrossingTimes(first_crossing(steps, noise_capability(beh, n_s, n_p, rng), sustain=sustain),
                                         held.behaviour), end)[0] for _ in range(n_redraws)])
    some = ~np.isnan(noise).all(axis=0)  # a median only where some redraw gives a lead
    noise_held = np.full(noise.shape[1:], np.nan)
    noise_held[some] = np.nanmedian(noise[:, some], axis=0)
    return Leads(first, held, steps[sweep_onsets(res)], lead_first, lead(held, end)[0], lead(held_pix, end)[0],
                 noise_held, censored)
