"""Capability and behaviour of the held-out class (the hidden-capabilities study:
Park et al. 2024; used by the capability chapter).

*Behaviour* is the joint accuracy of class 11 (blue and small) under its plain prompt.
*Capability* is the best joint accuracy over prompts that ask for blue-small harder
(:func:`swingby.diffusion.data.capability_prompts`): a model has the capability when
*some* prompt elicits the composition. Both are measured by the classifier and by the
pixel check. The embedding probes read the conditioning embeddings of the four class
prompts that the sweep stores at every checkpoint.

Every function takes a results dict of :func:`swingby.diffusion.storage.load_results`
(or its arrays) and returns arrays indexed ``(separation, seed, checkpoint)``.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from swingby.diffusion.concept_space import RADIUS_SPLIT

CLASS_11 = 3  #: index of the held-out class in the results arrays


def joint_accuracy(probs: np.ndarray, pixels: np.ndarray, by: str) -> np.ndarray:
    """Fraction of samples (axis -2 of ``probs (..., n, 2)`` / ``pixels (..., n, 4)``) that
    are blue and small, by the classifier or by the pixel check (a disc must be there)."""
    if by == "classifier":
        return ((probs[..., 0] > 0.5) & (probs[..., 1] > 0.5)).mean(axis=-1)
    if by == "pixels":
        ok = (pixels[..., 0] > 0.5) & (pixels[..., 2] > 0) & (pixels[..., 1] < RADIUS_SPLIT)
        return ok.mean(axis=-1)
    raise ValueError(f"by must be 'classifier' or 'pixels', got {by!r}")


def _masked(res: dict, a: np.ndarray) -> np.ndarray:
    out = np.asarray(a, float).copy()
    out[~res["done"]] = np.nan
    return out


def behaviour(res: dict, by: str = "classifier") -> np.ndarray:
    """Joint accuracy of class 11 under its plain prompt, ``(D, S, K)`` (NaN where not run)."""
    return _masked(res, joint_accuracy(res["probs"][:, :, :, CLASS_11], res["pixels"][:, :, :, CLASS_11], by))


def prompt_accuracies(res: dict, by: str = "classifier") -> np.ndarray:
    """Joint accuracy of class 11 under each capability prompt, ``(D, S, K, P)``."""
    acc = joint_accuracy(res["cap_probs"], res["cap_pixels"], by)
    acc[~res["done"]] = np.nan
    return acc


def capability(res: dict, by: str = "classifier") -> np.ndarray:
    """Best joint accuracy over the capability prompts and the plain prompt, ``(D, S, K)``."""
    both = np.concatenate([prompt_accuracies(res, by), behaviour(res, by)[..., None]], axis=-1)
    out = np.full(both.shape[:-1], np.nan)
    ok = res["done"]
    out[ok] = both[ok].max(axis=-1)
    return out


def first_crossing(steps: np.ndarray, y: np.ndarray, level: float = 0.5) -> np.ndarray:
    """Step at which each curve ``y (..., K)`` first reaches ``level`` (linear interpolation
    between checkpoints); ``inf`` where it never does, ``nan`` where the curve is missing."""
    steps, y = np.asarray(steps, float), np.asarray(y, float)
    if y.shape[-1] != steps.shape[0]:
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


def _cos(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    na, nb = np.linalg.norm(a, axis=-1), np.linalg.norm(b, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((na > 0) & (nb > 0), (a * b).sum(-1) / (na * nb), np.nan)


def embedding_disentanglement(res: dict) -> np.ndarray:
    """``1 - |cos(e01 - e00, e10 - e00)|`` of the class-prompt embeddings, ``(D, S, K)``:
    1 when the size and colour directions are orthogonal (seed 003, Fig. 5)."""
    e = res["emb"].astype(float)
    return _masked(res, 1 - np.abs(_cos(e[..., 1, :] - e[..., 0, :], e[..., 2, :] - e[..., 0, :])))


def embedding_parallelogram(res: dict) -> np.ndarray:
    """``cos(e11 - e10, e11 - e01)`` of the class-prompt embeddings, ``(D, S, K)``
    (seed 003, Fig. 16)."""
    e = res["emb"].astype(float)
    return _masked(res, _cos(e[..., 3, :] - e[..., 2, :], e[..., 3, :] - e[..., 1, :]))


class LinearFit(NamedTuple):
    """Least-squares line ``y = slope x + intercept`` with its R^2 and a 95 % bootstrap
    confidence interval of the slope (pairs resampled with replacement)."""

    slope: float
    intercept: float
    r2: float
    slope_ci: tuple
    n: int


def linear_fit(x: np.ndarray, y: np.ndarray, *, n_boot: int = 2000, seed: int = 0) -> LinearFit:
    """Fit ``y`` against ``x`` over the finite pairs (at least three, with two distinct ``x``)."""
    x, y = np.asarray(x, float).ravel(), np.asarray(y, float).ravel()
    if x.shape != y.shape:
        raise ValueError(f"x and y must have the same size, got {x.shape} and {y.shape}")
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if len(x) < 3 or np.ptp(x) == 0:
        raise ValueError(f"need at least three finite (x, y) pairs with distinct x, got {len(x)}")
    slope, intercept = np.polyfit(x, y, 1)
    resid = y - (slope * x + intercept)
    r2 = 1 - resid.var() / y.var() if y.var() > 0 else 1.0
    rng = np.random.default_rng(seed)
    boots = []
    for _ in range(n_boot):
        i = rng.integers(0, len(x), len(x))
        if np.ptp(x[i]) > 0:
            boots.append(np.polyfit(x[i], y[i], 1)[0])
    lo, hi = np.percentile(boots, [2.5, 97.5])
    return LinearFit(float(slope), float(intercept), float(r2), (float(lo), float(hi)), int(len(x)))
