"""Concept space without the classifier (paper Sec. 5, Fig. 6): the *pixel check* (:func:`pixel_measure`) measures
the disc's radius and colour on the pixels, so that an empty or smeared image never counts as a generalisation.
"""
from __future__ import annotations

import numpy as np

from swingby import _checks

__all__ = ["pixel_measure"]

MIN_CONTRAST = 0.15  #: a disc must differ from the background by this much (max over channels)
RADIUS_SPLIT = 0.45  #: radius (grid units) between the big and small class means
TARGET_11 = np.array([1.0, 1.0])  #: concept-space target of the held-out class (blue, small)


def concept_mse(points: np.ndarray, target: np.ndarray = TARGET_11) -> np.ndarray:
    """Mean squared distance of concept-space points ``(..., 2)`` to ``target`` (Fig. 6b)."""
    return ((np.asarray(points, float) - target) ** 2).mean(axis=-1)


def pixel_measure(images: np.ndarray) -> np.ndarray:
    """Classifier-free reading ``(n, 4)`` of images ``(n, 3, H, W)`` in [0, 1]: ``valid`` (peak deviation
    >= ``MIN_CONTRAST``), radius in grid units, ``blueness = B - R`` of the disc's mean colour, peak
    deviation; a disc pixel deviates from the border's median colour by over half the peak in some channel.
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


def joint_accuracy(probs: np.ndarray, pixels: np.ndarray, by: str) -> np.ndarray:
    """Share of samples (last axis) read as blue and small by the classifier or by the pixel check."""
    if _checks.choice("by", by, ("classifier", "pixels")) == "classifier":
        return ((probs[..., 0] > 0.5) & (probs[..., 1] > 0.5)).mean(axis=-1)
    ok = (pixels[..., 0] > 0.5) & (pixels[..., 2] > 0) & (pixels[..., 1] < RADIUS_SPLIT)
    return ok.mean(axis=-1)
