"""Concept space (paper Sec. 5, Fig. 6; seed 003).

A generated image is mapped to ``(P(blue), P(small))`` by the classifier; a class's
point is the mean over its images (and seeds). The compositional target of class 11
is ``(1, 1)``. This module also holds the classifier-free *pixel check*: the radius
and colour of the disc measured directly on the pixels, so that an empty or
smeared image is never counted as a generalisation.
"""
from __future__ import annotations

import numpy as np

from swingby import _checks

TARGET_11 = np.array([1.0, 1.0])  #: concept-space target of the held-out class (blue, small)
MIN_CONTRAST = 0.15  #: a disc must differ from the background by this much (max over channels)
RADIUS_SPLIT = 0.45  #: radius (grid units) between the big and small class means


def class_point(probs: np.ndarray) -> np.ndarray:
    """Concept-space point of a class: the mean of ``(P(blue), P(small))`` over images.

    ``probs`` is ``(..., n, 2)`` with entries in [0, 1] and at least one image; the mean
    is over every axis but the last.
    """
    p = _checks.array("probs", probs, finite=True)
    if p.ndim < 1 or p.shape[-1] != 2:
        raise ValueError(f"probs must end in an axis of size 2 (P(blue), P(small)), got {p.shape}")
    if np.any(p < 0) or np.any(p > 1):
        raise ValueError("probs must hold probabilities in [0, 1]")
    return p.reshape(-1, 2).mean(axis=0)


def concept_mse(points: np.ndarray, target: np.ndarray = TARGET_11) -> np.ndarray:
    """Mean squared distance of concept-space points ``(..., 2)`` to ``target`` ``(2,)`` (Fig. 6b).

    Parameters
    ----------
    points : array (..., 2)
        Concept-space points.
    target : array (2,)
        The target point (default: class 11's (1, 1)).

    Returns
    -------
    array (...)
    """
    p = _checks.array("points", points)
    if p.ndim < 1 or p.shape[-1] != 2:
        raise ValueError(f"points must end in an axis of size 2 (P(blue), P(small)), got {p.shape}")
    return ((p - _checks.array("target", target, shape=(2,))) ** 2).mean(axis=-1)


def concept_speed(points: np.ndarray, steps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Speed ``|dC/dt|`` by finite differences between consecutive checkpoints (Fig. 6c).

    Parameters
    ----------
    points : array (K, ..., 2)
        Concept-space points at the checkpoints (axis 0).
    steps : array (K,)
        Their training steps.

    Returns
    -------
    midpoints : array (K - 1,)
        Steps half-way between consecutive checkpoints.
    speed : array (K - 1, ...)
        ``|C_{k+1} - C_k| / (t_{k+1} - t_k)``.
    """
    points = _checks.array("points", points, ndim=(2, 3, 4, 5))
    steps = _checks.array("steps", steps, ndim=1, min_size=2)
    if points.shape[0] != steps.shape[0] or np.any(np.diff(steps) <= 0):
        raise ValueError("steps must be strictly increasing and match points along axis 0, got "
                         f"{steps.size} steps for points of shape {points.shape}")
    dC = np.linalg.norm(np.diff(points, axis=0), axis=-1)
    return (steps[1:] + steps[:-1]) / 2, dC / np.diff(steps)


def fit_exponential(t: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """Least-squares fit ``log y = log A + rate * t``; returns ``(rate, A, R^2)``.

    ``t`` and ``y`` are 1-D of one length; entries with ``y <= 0`` are left out, and at
    least three must remain.

    Parameters
    ----------
    t : array (n,)
        Steps.
    y : array (n,)
        Values; entries with ``y <= 0`` are left out.

    Returns
    -------
    rate : float
    A : float
    r2 : float
        R^2 of the fit of ``log y``.
    """
    t = _checks.array("t", t, ndim=1, min_size=0)
    y = _checks.array("y", y, shape=t.shape, min_size=0)
    ok = y > 0
    if ok.sum() < 3 or np.ptp(t[ok]) == 0:
        raise ValueError(f"y must hold at least three positive values (at distinct t) to fit an "
                         f"exponential, got {int(ok.sum())}")
    ly = np.log(y[ok])
    rate, logA = np.polyfit(t[ok], ly, 1)
    resid = ly - (logA + rate * t[ok])
    r2 = 1 - resid.var() / ly.var() if ly.var() > 0 else 1.0
    return float(rate), float(np.exp(logA)), float(r2)


def pixel_measure(images: np.ndarray) -> np.ndarray:
    """Classifier-free check of generated images ``(n, 3, H, W)`` in [0, 1].

    The background is the median colour of the border pixels; a pixel belongs to the
    disc when its largest channel deviation from the background exceeds half the
    image's peak deviation. Returns ``(n, 4)``: ``valid`` (peak deviation
    >= ``MIN_CONTRAST`` and at least one disc pixel), radius in grid units
    (``sqrt(area / pi)``), ``blueness = B - R`` of the disc's mean colour, and the
    peak deviation.
    """
    x = _checks.array("images", images)
    if x.ndim != 4 or x.shape[1] != 3 or min(x.shape[2:]) < 2:
        raise ValueError(f"images must be (n, 3, H, W) with n >= 1 and H, W >= 2, got {x.shape}")
    if np.any(x < 0) or np.any(x > 1):
        raise ValueError("images must hold pixel values in [0, 1]")
    n, _, H, W = x.shape
    border = np.concatenate([x[:, :, 0], x[:, :, -1], x[:, :, :, 0], x[:, :, :, -1]], axis=2)
    bg = np.median(border, axis=2)
    dev = np.abs(x - bg[:, :, None, None]).max(axis=1)
    peak = dev.reshape(n, -1).max(axis=1)
    mask = dev > 0.5 * peak[:, None, None]
    area = mask.reshape(n, -1).sum(axis=1) * (2 / (H - 1)) * (2 / (W - 1))
    radius = np.sqrt(area / np.pi)
    cnt = np.maximum(mask.reshape(n, -1).sum(axis=1), 1)
    mean_col = (x * mask[:, None]).reshape(n, 3, -1).sum(axis=2) / cnt[:, None]
    blueness = mean_col[:, 2] - mean_col[:, 0]
    valid = (peak >= MIN_CONTRAST) & (mask.reshape(n, -1).sum(axis=1) > 0)
    return np.stack([valid.astype(float), radius, blueness, peak], axis=1)


def pixel_point(measure: np.ndarray) -> np.ndarray:
    """Pixel-check concept point of a class: ``(fraction blue, fraction small)`` among
    *all* images, where an invalid (empty) image counts as neither. ``measure`` is the
    ``(n, 4)`` output of :func:`pixel_measure`, ``n >= 1``."""
    m = _checks.array("measure", measure, shape=(None, 4))
    valid = m[:, 0] > 0.5
    return np.array([np.mean(valid & (m[:, 2] > 0)), np.mean(valid & (m[:, 1] < RADIUS_SPLIT))])
