"""The wrong models of the registered Fig. 6 checks (:mod:`swingby.diffusion.fig6.confirm`): paths simulated
from a run's own start, end and noise level without the mechanism the claim is about. A path maker takes
the run's ``steps (L,)``, ``points (L, 2)`` and ``noise (2,)``, ``n``, a ``numpy.random.Generator`` and the
design, and returns ``n`` paths ``(n, L, 2)`` with Gaussian noise at the run's level, clipped to [0, 1].
"""
from __future__ import annotations

import numpy as np

from swingby import _checks
from swingby.claims.diffusion import DESIGN, check_design

__all__ = ["logit_paths", "monotone_paths", "stop_paths"]


def _ends(points: np.ndarray, w: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean of the first and of the last ``w`` points of ``points (L, 2)``."""
    return points[:w].mean(0), points[-w:].mean(0)


def points_arg(points) -> np.ndarray:
    """``points`` as a finite ``(L, 2)`` array of probabilities, else a ValueError."""
    p = _checks.array("points", points, shape=(None, 2))
    if np.any(p < 0) or np.any(p > 1):
        raise ValueError("points must hold probabilities (P(blue), P(small)) in [0, 1]")
    return p


def noise_arg(noise) -> np.ndarray:
    """``noise`` as a non-negative ``(2,)`` array, else a ValueError."""
    s = _checks.array("noise", noise, shape=(2,))
    if np.any(s < 0):
        raise ValueError(f"noise must hold two non-negative noise levels (P(blue), P(small)), got {s}")
    return s


def run_args(steps, points, noise) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Checked ``(steps, points, noise)`` of one run."""
    p = points_arg(points)
    t = _checks.array("steps", steps, shape=(p.shape[0],))
    if t.size < 2 or np.any(np.diff(t) <= 0):
        raise ValueError(f"steps must be strictly increasing with at least 2 entries, got {t.size}")
    return t, p, noise_arg(noise)


def path_args(steps, points, noise, n, rng):
    """Checked ``(steps, points, noise, n)`` of the path makers."""
    t, p, s = run_args(steps, points, noise)
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    return t, p, s, _checks.integer("n", n, low=1)


def _stop_index(p: np.ndarray, design) -> int:
    """First checkpoint (> 0) at which ``p (L, 2)`` has gone ``design.stop_fraction`` of its way; the last if none."""
    start, end = _ends(p, design.sustain)
    d = end - start
    frac = (p - start) @ d / max(float(d @ d), 1e-12)
    hit = np.flatnonzero(frac[1:] >= design.stop_fraction)
    return int(hit[0]) + 1 if hit.size else p.shape[0] - 1


def stop_line(t: np.ndarray, p: np.ndarray, design) -> np.ndarray:
    """The run's start-to-end line ``(L, 2)`` at constant speed, at its end from the stop of :func:`stop_paths` on."""
    start, end = _ends(p, design.sustain)
    k = _stop_index(p, design)
    f = np.clip((t - t[0]) / (t[k] - t[0]), 0.0, 1.0)
    return start + f[:, None] * (end - start)


def _noisy(path: np.ndarray, noise: np.ndarray, rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """``path`` broadcast to ``shape`` plus Gaussian noise of ``noise (2,)``, clipped to [0, 1]."""
    return np.clip(path + rng.normal(0.0, 1.0, shape) * noise, 0.0, 1.0)


def monotone_paths(steps: np.ndarray, points: np.ndarray, noise: np.ndarray, n: int,
                   rng: np.random.Generator, design=DESIGN) -> np.ndarray:
    """Paths monotone in each coordinate from the run's start to its end (means of its first and last
    ``design.sustain`` points), each coordinate on its own logistic in ``sqrt(step)`` with a random onset and
    a width in ``design.null_width``: Theorem 4.1's one-layer model, whose directions learn independently and
    monotonically, and which cannot show Transient Memorization (Sec. 4.1). Its MSE can still rise and fall.

    Parameters
    ----------
    steps, points, noise, n, rng, design
    """
    design = check_design(design)
    t, p, s, n = path_args(steps, points, noise, n, rng)
    start, end = _ends(p, design.sustain)
    x = np.sqrt((t - t[0]) / (t[-1] - t[0]))
    onset = rng.uniform(0.0, 1.0, (n, 1, 2))
    width = rng.uniform(*design.null_width, (n, 1, 2))
    f = 1 / (1 + np.exp(-(x[None, :, None] - onset) / width))
    f = (f - f[:, :1]) / np.maximum(f[:, -1:] - f[:, :1], 1e-12)
    path = start + f * (end - start)
    return _noisy(path, s, rng, path.shape)


def stop_paths(steps: np.ndarray, points: np.ndarray, noise: np.ndarray, n: int,
               rng: np.random.Generator, design=DESIGN) -> np.ndarray:
    """The run's displacement at constant speed, then a stop (no deceleration): the stop is the first checkpoint
    where the run's projection on its start-to-end line reaches ``design.stop_fraction`` of the way.

    Parameters
    ----------
    steps, points, noise, n, rng, design
    """
    design = check_design(design)
    t, p, s, n = path_args(steps, points, noise, n, rng)
    return _noisy(stop_line(t, p, design), s, rng, (n,) + p.shape)


def logit_paths(steps: np.ndarray, points: np.ndarray, noise: np.ndarray, n: int,
                rng: np.random.Generator, design=DESIGN) -> np.ndarray:
    """Each coordinate's logit drifting linearly: the model never slows, but its saturating read-out's speed
    decays exponentially. The line goes through the clipped logits of the run's start and of its point at
    the stop of :func:`stop_paths`, and on at that rate to the end.

    Parameters
    ----------
    steps, points, noise, n, rng, design
    """
    design = check_design(design)
    t, p, s, n = path_args(steps, points, noise, n, rng)
    k = _stop_index(p, design)
    q = np.clip(np.stack([_ends(p, design.sustain)[0], p[k]]), design.logit_eps, 1 - design.logit_eps)
    y = np.log(q / (1 - q))
    rate = (y[1] - y[0]) / (t[k] - t[0])
    path = 1 / (1 + np.exp(-(y[0] + rate * (t - t[0])[:, None])))
    return _noisy(path, s, rng, (n,) + p.shape)
