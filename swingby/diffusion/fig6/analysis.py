"""Reading a stored sweep (paper Fig. 6): concept-space trajectories, MSE, speed, the
sampling-noise floor of the speed, concept contrasts and learning times, and the
pixel-check fractions. The claim checks built on them, with their nulls, are in
:mod:`swingby.diffusion.fig6.claims`."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from swingby import _checks
from swingby.diffusion.concept_space import concept_mse, concept_speed
from swingby.diffusion.data import CLASSES

CLASS_11 = 3  #: index of the held-out class in ``CLASSES``


# ----------------------------------------------------------------------------- checks
def _bad_res(why: str):
    return ValueError(f"res must be a sweep result from swingby.diffusion.runs.storage.load_results: {why}")


def _check_res(res: dict, key: str = "probs") -> dict:
    """``res`` if it holds a complete, finite ``res[key]`` of shape ``(D, S, K, 4, n, c)``
    that matches ``res["meta"]`` (separations, checkpoint steps), else raise."""
    if not isinstance(res, dict) or key not in res or "meta" not in res:
        raise _bad_res(f"a dict with keys {key!r} and 'meta', got {type(res).__name__}")
    meta = res["meta"]
    try:
        steps = np.asarray(meta["checkpoint_steps"], dtype=float)
        n_dc = len(meta["config"]["separations"])
    except (KeyError, TypeError, ValueError) as err:
        raise _bad_res(f"res['meta'] lacks checkpoint_steps or config.separations ({err!r})") from None
    arr = np.asarray(res[key])
    want = {"probs": 2, "pixels": 4}[key]
    if arr.ndim != 6 or arr.shape[3] != 4 or arr.shape[5] != want or arr.shape[0] != n_dc \
            or arr.shape[2] != steps.size or arr.shape[4] == 0 or arr.shape[1] == 0:
        raise _bad_res(f"res[{key!r}] must have shape (n_dc = {n_dc}, n_seed, n_ckpt = {steps.size}, 4, n, {want}), "
                       f"got {arr.shape}")
    if steps.ndim != 1 or np.any(np.diff(steps) <= 0):
        raise _bad_res("res['meta']['checkpoint_steps'] must be strictly increasing")
    if not np.all(np.isfinite(arr)):
        raise _bad_res(f"res[{key!r}] holds NaN: some runs are unfinished (res['done'] is False there); "
                       "finish the sweep before analysing it")
    return res


def _level(level) -> float:
    return _checks.number("level", level, low=0, high=1)


def _cls(cls) -> int:
    return _checks.index("cls", cls, 4)


def trajectories(res: dict) -> np.ndarray:
    """Concept-space points ``(n_dc, n_seed, n_ckpt, 4, 2)``: per class, mean over samples."""
    return np.asarray(_check_res(res)["probs"], dtype=float).mean(axis=4)


def mean_trajectories(res: dict) -> np.ndarray:
    """``(n_dc, n_ckpt, 4, 2)``: class points averaged over samples *and* seeds (Fig. 6a)."""
    return trajectories(res).mean(axis=1)


def pixel_trajectories(res: dict) -> np.ndarray:
    """Pixel-check points ``(n_dc, n_ckpt, 4, 2)``: fraction of images whose measured
    disc is blue / small, an empty image counting as neither; mean over seeds."""
    px = np.asarray(_check_res(res, "pixels")["pixels"], dtype=float)
    valid = px[..., 0] > 0.5
    blue = (valid & (px[..., 2] > 0)).mean(axis=4)
    small = (valid & (px[..., 1] < 0.45)).mean(axis=4)
    return np.stack([blue, small], axis=-1).mean(axis=1)


def valid_fraction(res: dict) -> np.ndarray:
    """``(n_dc, n_ckpt, 4)``: fraction of samples with a visible disc (pixel check)."""
    return (np.asarray(_check_res(res, "pixels")["pixels"])[..., 0] > 0.5).mean(axis=(1, 4))


def mse_curves(res: dict) -> tuple[np.ndarray, np.ndarray]:
    """Concept-space MSE of class 11 to its target (Fig. 6b).

    Returns the MSE of the seed-mean point ``(n_dc, n_ckpt)`` and the per-seed MSE
    ``(n_dc, n_seed, n_ckpt)``.
    """
    per_seed = concept_mse(trajectories(res)[:, :, :, CLASS_11])
    return concept_mse(mean_trajectories(res)[:, :, CLASS_11]), per_seed


def crossing_step(steps: np.ndarray, y: np.ndarray, level: float = 0.5) -> float:
    """First step (linear interpolation) at which ``y`` reaches ``level``; ``inf`` if never.

    Parameters
    ----------
    steps : array (K,)
        Strictly increasing checkpoint steps.
    y : array (K,)
        Finite values at those steps.
    level : float
        The level to reach.

    Returns
    -------
    float
        The interpolated step, ``steps[0]`` if ``y[0]`` already reaches ``level``,
        ``inf`` if ``y`` never does.
    """
    steps = _checks.array("steps", steps, ndim=1)
    y = _checks.array("y", y, shape=steps.shape)
    level = _checks.number("level", level)
    if np.any(np.diff(steps) <= 0):
        raise ValueError("steps must be strictly increasing")
    above = np.flatnonzero(y >= level)
    if above.size == 0:
        return float("inf")
    k = above[0]
    if k == 0:
        return float(steps[0])
    f = (level - y[k - 1]) / (y[k] - y[k - 1])
    return float(steps[k - 1] + f * (steps[k] - steps[k - 1]))


def concept_contrasts(res: dict) -> np.ndarray:
    """How well each concept can be *manipulated*, from the training classes only:
    colour contrast ``P(blue | 10) - P(blue | 00)`` and size contrast
    ``P(small | 01) - P(small | 00)``; ``(n_dc, n_ckpt, 2)``, seed-mean points.
    (An untrained model already has some ``P(blue)`` for every prompt; a contrast is
    zero until the model distinguishes the prompts.)"""
    t = mean_trajectories(res)
    return np.stack([t[:, :, 2, 0] - t[:, :, 0, 0], t[:, :, 1, 1] - t[:, :, 0, 1]], axis=-1)


class LearningOrder(NamedTuple):
    """When each concept is learned at one colour separation (seed-mean contrasts)."""

    dc: float
    t_colour: float  #: step at which the colour contrast reaches the level (``inf``: never)
    t_size: float    #: the same for the size contrast
    first: str       #: "colour", "size" or "tie"


def learning_order(res: dict, level: float = 0.5) -> list[LearningOrder]:
    """Per colour separation: the step at which the colour and the size contrast
    (:func:`concept_contrasts`) first reach ``level``, and which concept came first.

    Parameters
    ----------
    res : dict
        A complete sweep (:func:`swingby.diffusion.runs.storage.load_results`).
    level : float
        The contrast, in [0, 1], that counts as learned.

    Returns
    -------
    list of LearningOrder
        One per separation.
    """
    level = _level(level)
    con = concept_contrasts(res)
    steps = np.asarray(res["meta"]["checkpoint_steps"], float)
    out = []
    for i, dc in enumerate(res["meta"]["config"]["separations"]):
        tb = crossing_step(steps, con[i, :, 0], level)
        ts = crossing_step(steps, con[i, :, 1], level)
        first = "colour" if tb < ts else "size" if ts < tb else "tie"
        out.append(LearningOrder(float(dc), tb, ts, first))
    return out


def speed(res: dict, cls: int = CLASS_11) -> tuple[np.ndarray, np.ndarray]:
    """``(midpoint steps, |dC/dt| (n_dc, n_ckpt - 1))`` of the seed-mean point (Fig. 6c).

    Parameters
    ----------
    res : dict
        A complete sweep.
    cls : int
        Index of the class in ``CLASSES`` (default: class 11).

    Returns
    -------
    midpoints : array (n_ckpt - 1,)
    speed : array (n_dc, n_ckpt - 1)
    """
    cls = _cls(cls)
    traj = mean_trajectories(res)[:, :, cls]
    steps = np.asarray(res["meta"]["checkpoint_steps"], float)
    sp = [concept_speed(traj[i], steps) for i in range(traj.shape[0])]
    return sp[0][0], np.stack([s[1] for s in sp])


def speed_noise_floor(res: dict, cls: int = CLASS_11) -> np.ndarray:
    """``(n_dc, n_ckpt - 1)``: the speed that sampling noise alone would show.

    A seed-mean class point is the mean over seeds of each seed's mean of
    ``samples_per_class`` classifier outputs. At a checkpoint each seed's model is
    fixed, so only the sampling within each seed is noise: the point's variance per
    coordinate is ``se_k^2 = sum_s var_s / (n S^2)`` (the spread *between* seeds is a
    difference between models, not noise). Between two checkpoints whose true points
    coincide, ``|dC|`` is still about ``sqrt(sum(se_k^2 + se_{k+1}^2))``. Speeds near
    this floor are not measured.

    Parameters
    ----------
    res : dict
        A complete sweep.
    cls : int
        Index of the class in ``CLASSES`` (default: class 11).

    Returns
    -------
    array (n_dc, n_ckpt - 1)
    """
    cls = _cls(cls)
    p = np.asarray(_check_res(res)["probs"])[:, :, :, cls].astype(float)  # (D, S, K, n, 2)
    if p.shape[3] < 2:
        raise _bad_res("the noise floor needs at least 2 samples per class and checkpoint")
    steps = np.asarray(res["meta"]["checkpoint_steps"], float)
    return floor_from_samples(np.moveaxis(p, 1, 2), np.diff(steps))


def floor_from_samples(samples: np.ndarray, gaps: np.ndarray) -> np.ndarray:
    """Sampling-noise floor of the speed (see :func:`speed_noise_floor`) from samples
    ``(..., K, S, n, 2)`` (checkpoints, seeds, samples per seed) and the ``K - 1`` step
    gaps between the checkpoints; returns ``(..., K - 1)``.

    Parameters
    ----------
    samples : array (..., K, S, n, 2)
        Classifier outputs per checkpoint, seed and sample; ``n >= 2``.
    gaps : array (K - 1,)
        Steps between consecutive checkpoints.

    Returns
    -------
    array (..., K - 1)
        The speed that sampling noise alone would show between each pair of checkpoints.
    """
    S, n = samples.shape[-3], samples.shape[-2]
    se2 = samples.var(axis=-2, ddof=1).sum(axis=-2) / (n * S ** 2)  # (..., K, 2)
    return np.sqrt((se2[..., 1:, :] + se2[..., :-1, :]).sum(-1)) / gaps


def joint_accuracy(res: dict, cls: int = CLASS_11) -> tuple[np.ndarray, np.ndarray]:
    """Fraction of a class's samples that show *both* of its concepts, ``(n_dc, n_ckpt)``
    each: read by the classifier (both probabilities on the right side of 1/2) and by
    the pixel check (a visible disc of the right colour and size).

    Parameters
    ----------
    res : dict
        A complete sweep.
    cls : int
        Index of the class in ``CLASSES`` (default: class 11).

    Returns
    -------
    by_classifier, by_pixels : array (n_dc, n_ckpt)
    """
    cls = _cls(cls)
    want = np.array([int(CLASSES[cls][0]), int(CLASSES[cls][1])], bool)
    p = np.asarray(_check_res(res)["probs"])[:, :, :, cls].astype(float)
    by_clf = np.all((p > 0.5) == want, axis=-1).mean(axis=(1, 3))
    px = np.asarray(_check_res(res, "pixels")["pixels"])[:, :, :, cls].astype(float)
    blue, small = px[..., 2] > 0, px[..., 1] < 0.45
    by_pix = ((px[..., 0] > 0.5) & (blue == want[0]) & (small == want[1])).mean(axis=(1, 3))
    return by_clf, by_pix
