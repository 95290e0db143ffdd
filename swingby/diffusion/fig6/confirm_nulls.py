"""The wrong models of the registered Fig. 6 checks (:mod:`swingby.diffusion.fig6.confirm`),
each simulated per run from the run's own start, end and noise level. Each lacks the
mechanism the paper's claim is about, by the paper's own theory.

* :func:`monotone_paths` (swing, MSE rise): each concept coordinate moves once,
  monotonically, from the run's start to its end, on its own logistic in
  ``sqrt(step)`` with a random onset and width (every L-shaped path is included), plus
  Gaussian noise at the run's own noise level. This is the one-layer model of
  Theorem 4.1, whose directions learn independently and monotonically (Sec. 4.1), the
  model the paper says *cannot* show Transient Memorization. Such paths can still raise
  and lower the MSE (one coordinate moving away from the target before the other moves
  toward it), so the MSE check is not passed for free.
* :func:`stop_paths` (slowing): the run's displacement covered at constant speed, then
  a stop where the run has gone ``stop_fraction`` of its way: no deceleration at all.
* :func:`logit_paths` (slowing): each coordinate's logit drifts at a constant rate
  (fitted to the run), read through the sigmoid. The model never slows, but its read-out
  saturates, and ``p (1 - p)`` makes the speed of a saturating read-out decay
  exponentially.
"""
from __future__ import annotations

import numpy as np

from swingby import _checks
from swingby.claims.diffusion import DESIGN, check_design

__all__ = ["logit_paths", "monotone_paths", "stop_paths"]


def _ends(points: np.ndarray, w: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean of the first and of the last ``w`` points of ``points (L, 2)``."""
    return points[:w].mean(0), points[-w:].mean(0)


def _args(steps, points, noise, n, rng):
    """Checked ``(steps, points, noise, n, rng)`` of the path makers."""
    p = _checks.array("points", points, shape=(None, 2))
    t = _checks.array("steps", steps, shape=(p.shape[0],))
    if t.size < 2 or np.any(np.diff(t) <= 0):
        raise ValueError(f"steps must be strictly increasing with at least 2 entries, got {t.size}")
    s = _checks.array("noise", noise, shape=(2,))
    if np.any(s < 0):
        raise ValueError(f"noise must hold two non-negative noise levels, got {s}")
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


def _noisy(path: np.ndarray, noise: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``path (n, L, 2)`` plus Gaussian noise of ``noise (2,)``, clipped to [0, 1]."""
    return np.clip(path + rng.normal(0.0, 1.0, path.shape) * noise, 0.0, 1.0)


def monotone_paths(steps: np.ndarray, points: np.ndarray, noise: np.ndarray, n: int,
                   rng: np.random.Generator, design=DESIGN) -> np.ndarray:
    """``n`` paths ``(n, L, 2)`` monotone in each coordinate between the run's start and
    end (the means of its first and last ``design.sustain`` points), with the run's noise.

    Parameters
    ----------
    steps : array (L,)
        The run's checkpoint steps from its first disc checkpoint on.
    points : array (L, 2)
        The run's path there.
    noise : array (2,)
        The run's noise level per coordinate.
    n : int
        Paths to draw.
    rng : numpy.random.Generator
        Source of onsets, widths and noise.
    design : DiffusionDesign
        Supplies ``sustain`` and ``null_width``.
    """
    design = check_design(design)
    t, p, s, n = _args(steps, points, noise, n, rng)
    start, end = _ends(p, design.sustain)
    x = np.sqrt((t - t[0]) / (t[-1] - t[0]))
    onset = rng.uniform(0.0, 1.0, (n, 1, 2))
    width = rng.uniform(*design.null_width, (n, 1, 2))
    f = 1 / (1 + np.exp(-(x[None, :, None] - onset) / width))
    f = (f - f[:, :1]) / np.maximum(f[:, -1:] - f[:, :1], 1e-12)
    return _noisy(start + f * (end - start), s, rng)


def stop_paths(steps: np.ndarray, points: np.ndarray, noise: np.ndarray, n: int,
               rng: np.random.Generator, design=DESIGN) -> np.ndarray:
    """``n`` paths ``(n, L, 2)`` at constant speed from the run's start to its end, then a
    stop, with the run's noise. The stop is the first checkpoint at which the run's
    projection on its start-to-end line reaches ``design.stop_fraction`` of the way.

    Parameters
    ----------
    steps, points, noise, n, rng, design
        As :func:`monotone_paths`.
    """
    design = check_design(design)
    t, p, s, n = _args(steps, points, noise, n, rng)
    start, end = _ends(p, design.sustain)
    k = _stop_index(p, design)
    f = np.clip((t - t[0]) / (t[k] - t[0]), 0.0, 1.0)
    return _noisy(np.broadcast_to(start + f[:, None] * (end - start), (n,) + p.shape).copy(), s, rng)


def logit_paths(steps: np.ndarray, points: np.ndarray, noise: np.ndarray, n: int,
                rng: np.random.Generator, design=DESIGN) -> np.ndarray:
    """``n`` paths ``(n, L, 2)``: each coordinate's logit drifting linearly, read through
    the sigmoid, with the run's noise. The line goes through the logits (probabilities
    clipped to ``[logit_eps, 1 - logit_eps]``) of the run's start and of its point at the
    stop of :func:`stop_paths`, and goes on at that rate to the end.

    Parameters
    ----------
    steps, points, noise, n, rng, design
        As :func:`monotone_paths`.
    """
    design = check_design(design)
    t, p, s, n = _args(steps, points, noise, n, rng)
    k = _stop_index(p, design)
    q = np.clip(np.stack([_ends(p, design.sustain)[0], p[k]]), design.logit_eps, 1 - design.logit_eps)
    y = np.log(q / (1 - q))
    rate = (y[1] - y[0]) / (t[k] - t[0])
    path = 1 / (1 + np.exp(-(y[0] + rate * (t - t[0])[:, None])))
    return _noisy(np.broadcast_to(path, (n,) + p.shape).copy(), s, rng)
