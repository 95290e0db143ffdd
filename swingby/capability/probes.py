"""Probes of the held-out class beside its accuracy (App. D of the hidden-capabilities
study; used by the chapter ``book/capability.md``): where class 11 turns in concept space
(``concept_turn``), the geometry of the class-prompt embeddings, the training log
(the bound, its parts, gradient norms), the generic transition step of any probe curve
and the transition steps of every probe of the chapter's table (``probe_steps``).

Like :mod:`swingby.capability.measures`, every function takes a results dict of
:func:`swingby.diffusion.runs.storage.load_results` (or arrays cut from it); runs that are not
finished are NaN. The chapter imports every name through :mod:`swingby.capability`.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from swingby import _checks
from swingby.capability.measures import (
    CLASS_11,
    CORNERS,
    TARGET_11,
    _curves,
    _masked,
    _res,
    _steps,
    first_crossing,
)
from swingby.diffusion.rules import OLD_RULES as R


# -------------------------------------------------------- concept-space turn
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


def first_concept_index(points: np.ndarray, level: float = R.learned_level) -> np.ndarray:
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


# ---------------------------------------------------------------- embeddings
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


# ---------------------------------------------- training log and transitions
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
    y, s = _curves(y, steps)
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

    Returns
    -------
    array (...)
    """
    y, s = _curves(y, steps)
    out = np.atleast_1d(s[np.argmax(np.nan_to_num(y, nan=-np.inf), axis=-1)].astype(float))
    out[np.atleast_1d(np.isnan(y).any(axis=-1))] = np.nan
    return out.reshape(y.shape[:-1])


def checkpoint_gap(steps: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Width of the checkpoint interval that holds each step ``t`` (the resolution at
    which a transition there can be located); NaN where ``t`` is not finite.

    Parameters
    ----------
    steps : array (K,)
        Strictly increasing checkpoint steps.
    t : array (...)
        Steps inside ``[steps[0], steps[-1]]``.

    Returns
    -------
    array (...)
        Same shape as ``t``.
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


#: the probes of the chapter's table (:func:`probe_steps`), each with the study's figure
PROBE_NAMES = (
    "concept space: turn",
    "concept space: leaving step",
    "embedding disentanglement [study Fig. 5]",
    "embedding disentanglement, its maximum",
    "parallelogram cosine [study Fig. 16]",
    "weight norm, colour inputs [study Fig. 10]",
    "weight norm, size input [study Fig. 11]",
    "weight norm, convolutions [study Fig. 14]",
    "gradient norm, colour inputs [study Fig. 12]",
    "gradient norm, size input [study Fig. 13]",
    "gradient norm, convolutions [study Fig. 15]",
    "training loss [study Fig. 4, left]",
)


def probe_steps(res: dict) -> dict[str, np.ndarray]:
    """The transition step of every probe of the hidden-capabilities study's Figs. 4, 5
    and App. D (Figs. 10-16) per run, for the probe table of ``book/capability.md``.

    The concept space gives the turn and the leaving step (:func:`concept_turn`); the
    embedding disentanglement gives its transition step (:func:`transition_step`) and the
    step of its maximum (:func:`peak_step`); every other probe (the parallelogram cosine,
    the weight norms of the conditioning network's colour and size inputs and of all
    convolutions, the gradient norms of the same, and the training loss) its transition
    step.

    Parameters
    ----------
    res : dict
        A results dict (needs ``probs``, ``emb``, ``wnorm``, ``loss``, ``done``, ``meta``).

    Returns
    -------
    dict
        :data:`PROBE_NAMES` to an array ``(D, S)`` of steps (NaN: unfinished run; ``inf``:
        a leaving step never reached).
    """
    _res(res, "probs", "emb", "wnorm", "loss")
    steps = _steps(res["meta"]["checkpoint_steps"])
    turn = concept_turn(res)
    ed = embedding_disentanglement(res)
    wnorm = np.where(np.asarray(res["done"])[..., None], np.asarray(res["wnorm"], float), np.nan)
    curves = (embedding_parallelogram(res), wnorm[..., 0], wnorm[..., 1], wnorm[..., 2])
    logged = [loss_log(res, f) for f in ("grad_colour", "grad_size", "grad_conv", "loss")]
    values = [turn.turn, turn.departure, transition_step(steps, ed), peak_step(steps, ed)]
    values += [transition_step(steps, y) for y in curves]
    values += [transition_step(s, y) for s, y in logged]
    return dict(zip(PROBE_NAMES, values))
