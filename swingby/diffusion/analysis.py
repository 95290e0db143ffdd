"""Reading a stored sweep (paper Fig. 6): concept-space trajectories, MSE, speed, and
the three claim statistics of Sec. 5 (which concept is learned first, the transient
bend with a non-monotone MSE, the late exponential slowing)."""
from __future__ import annotations

import numpy as np

from swingby import _checks
from swingby.diffusion.concept_space import concept_mse, concept_speed, fit_exponential

CLASS_11 = 3  #: index of the held-out class in ``CLASSES``


# ----------------------------------------------------------------------------- checks
def _bad_res(why: str):
    return ValueError(f"res must be a sweep result from swingby.diffusion.sweep.load_results: {why}")


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


def pixel_mse(res: dict) -> np.ndarray:
    """``(n_dc, n_ckpt)``: concept-space MSE of class 11 read by the pixel check."""
    return concept_mse(pixel_trajectories(res)[:, :, CLASS_11])


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

    ``steps`` is 1-D and strictly increasing, ``y`` finite of the same length.
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


def learning_order(res: dict, level: float = 0.5) -> list[dict]:
    """Per colour separation: the step at which the colour and the size contrast
    (:func:`concept_contrasts`) first reach ``level``, and which concept came first."""
    level = _level(level)
    con = concept_contrasts(res)
    steps = np.asarray(res["meta"]["checkpoint_steps"], float)
    out = []
    for i, dc in enumerate(res["meta"]["config"]["separations"]):
        tb = crossing_step(steps, con[i, :, 0], level)
        ts = crossing_step(steps, con[i, :, 1], level)
        first = "colour" if tb < ts else "size" if ts < tb else "tie"
        out.append({"dc": dc, "t_colour": tb, "t_size": ts, "first": first})
    return out


def learning_order_per_seed(res: dict, level: float = 0.5) -> np.ndarray:
    """``(n_dc, n_seed)`` array of "colour" / "size" / "tie": the order in each run."""
    level = _level(level)
    t = trajectories(res)
    steps = np.asarray(res["meta"]["checkpoint_steps"], float)
    col = t[:, :, :, 2, 0] - t[:, :, :, 0, 0]
    siz = t[:, :, :, 1, 1] - t[:, :, :, 0, 1]
    out = np.empty(col.shape[:2], dtype=object)
    for i in range(col.shape[0]):
        for j in range(col.shape[1]):
            tb, ts = crossing_step(steps, col[i, j], level), crossing_step(steps, siz[i, j], level)
            out[i, j] = "colour" if tb < ts else "size" if ts < tb else "tie"
    return out


def mse_rise(mse: np.ndarray) -> tuple[float, int, int]:
    """Largest rise of a curve after an earlier point: ``max_{j > k} mse[j] - mse[k]``.

    Returns ``(rise, k, j)``; a monotonically decreasing curve has rise <= 0. ``mse``
    is 1-D, finite, of length >= 2.
    """
    mse = _checks.array("mse", mse, ndim=1, min_size=2)
    best = (-np.inf, 0, 0)
    for k in range(len(mse) - 1):
        j = k + 1 + int(np.argmax(mse[k + 1:]))
        if mse[j] - mse[k] > best[0]:
            best = (float(mse[j] - mse[k]), k, j)
    return best


def bend(res: dict, level: float = 0.5) -> list[dict]:
    """Transient bend of class 11 per separation, after the first concept is learned
    (the first checkpoint where a concept contrast reaches ``level``; before it the
    images are still noise and the classifier's reading says nothing about concepts).

    Reports the largest MSE rise after that checkpoint (seed-mean curve) with the
    standard error of the same difference over seeds, and the training class that the
    class-11 point comes closest to (largest ``|P(blue) - P(small)|``).
    """
    level = _level(level)
    steps = np.asarray(_check_res(res)["meta"]["checkpoint_steps"])
    traj = mean_trajectories(res)[:, :, CLASS_11]
    con = concept_contrasts(res)
    mse, per_seed = mse_curves(res)
    out = []
    for i, dc in enumerate(res["meta"]["config"]["separations"]):
        learned = np.flatnonzero(con[i].max(axis=1) >= level)
        k0 = int(learned[0]) if learned.size else len(steps) - 1
        rise, k, j = mse_rise(mse[i, k0:]) if k0 < len(steps) - 1 else (-np.inf, 0, 0)
        k, j = k + k0, j + k0
        diff = per_seed[i, :, j] - per_seed[i, :, k]
        se = float(diff.std(ddof=1) / np.sqrt(len(diff))) if len(diff) > 1 else float("nan")
        gap = traj[i, k0:, 0] - traj[i, k0:, 1]
        m = int(np.argmax(np.abs(gap)))
        # does the curve come back down after its peak (a *transient* bend)?
        fall = float(mse[i, j] - mse[i, j:].min()) if np.isfinite(rise) else 0.0
        fall_diff = per_seed[i, :, j] - per_seed[i, :, -1]
        out.append({"dc": dc, "first_learned_step": int(steps[k0]), "rise": float(rise), "rise_se": se,
                    "fall_after_peak": fall, "fall_to_end": float(mse[i, j] - mse[i, -1]),
                    "fall_to_end_se": float(fall_diff.std(ddof=1) / np.sqrt(len(fall_diff)))
                    if len(fall_diff) > 1 else float("nan"),
                    "rise_from": int(steps[k]), "rise_to": int(steps[j]), "per_seed_rise": diff.tolist(),
                    "max_gap": float(abs(gap[m])), "toward": "01" if gap[m] < 0 else "10",
                    "gap_step": int(steps[k0 + m]), "gap_index": int(k0 + m),
                    "point_at_gap": traj[i, k0 + m].tolist()})
    return out


def speed(res: dict, cls: int = CLASS_11) -> tuple[np.ndarray, np.ndarray]:
    """``(midpoint steps, |dC/dt| (n_dc, n_ckpt - 1))`` of the seed-mean point (Fig. 6c)."""
    cls = _cls(cls)
    traj = mean_trajectories(res)[:, :, cls]
    steps = np.asarray(res["meta"]["checkpoint_steps"], float)
    sp = [concept_speed(traj[i], steps) for i in range(traj.shape[0])]
    return sp[0][0], np.stack([s[1] for s in sp])


def speed_noise_floor(res: dict, cls: int = CLASS_11) -> np.ndarray:
    """``(n_dc, n_ckpt - 1)``: the speed that sampling noise alone would show.

    A class point is a mean over ``n_seed * samples_per_class`` classifier outputs, so
    it has a standard error ``se_k`` per coordinate at checkpoint ``k``; between two
    checkpoints whose true points coincide, ``|dC|`` is still about
    ``sqrt(sum(se_k^2 + se_{k+1}^2))``. Speeds near this floor are not measured.
    """
    cls = _cls(cls)
    p = np.asarray(_check_res(res)["probs"])[:, :, :, cls].astype(float)  # (D, S, K, n, 2)
    if p.shape[1] * p.shape[3] < 2:
        raise _bad_res("the noise floor needs at least 2 samples per class and checkpoint")
    steps = np.asarray(res["meta"]["checkpoint_steps"], float)
    p = np.moveaxis(p, 1, 2).reshape(p.shape[0], p.shape[2], -1, 2)  # (D, K, S*n, 2)
    se2 = p.var(axis=2, ddof=1) / p.shape[2]
    return np.sqrt((se2[:, 1:] + se2[:, :-1]).sum(-1)) / np.diff(steps)


def late_speed_fit(res: dict, start: str | float = "first_learned", cls: int = CLASS_11,
                   level: float = 0.5) -> list[dict]:
    """Exponential fit ``|dC/dt| ~ A exp(rate * t)`` over the late phase, per separation.

    ``start="first_learned"``: from the first checkpoint at which a concept contrast
    reaches ``level`` (before it the samples are noise); a number: from that fraction
    of the training steps (in [0, 1)). Also counts the late speeds above the
    sampling-noise floor.
    """
    if not (isinstance(start, str) and start == "first_learned") \
            and (_checks.as_real(start) is None or not 0 <= start < 1):
        raise ValueError(f"start must be 'first_learned' or a fraction of the steps in [0, 1), got {start!r}")
    level = _level(level)
    mid, sp = speed(res, cls)
    steps = np.asarray(res["meta"]["checkpoint_steps"], float)
    floor = speed_noise_floor(res, cls)
    con = concept_contrasts(res)
    out = []
    for i, dc in enumerate(res["meta"]["config"]["separations"]):
        if isinstance(start, str):
            learned = np.flatnonzero(con[i].max(axis=1) >= level)
            t0 = steps[learned[0]] if learned.size else steps[-2]
        else:
            t0 = float(start) * res["meta"]["config"]["steps"]
        late = mid >= t0
        rate, A, r2 = fit_exponential(mid[late], sp[i, late])
        out.append({"dc": dc, "start": float(t0), "rate": rate, "A": A, "r2": r2,
                    "n_points": int(late.sum()),
                    "n_above_floor": int((sp[i, late] > floor[i, late]).sum()),
                    "speed_first": float(sp[i, late][0]), "speed_last": float(sp[i, late][-1])})
    return out


def per_seed_rises(res: dict, level: float = 0.5) -> np.ndarray:
    """``(n_dc, n_seed)``: the largest rise of each run's own class-11 MSE curve after
    the run's first concept is learned (:func:`bend` for single seeds)."""
    level = _level(level)
    t = trajectories(res)
    per_seed = concept_mse(t[:, :, :, CLASS_11])
    col = t[:, :, :, 2, 0] - t[:, :, :, 0, 0]
    siz = t[:, :, :, 1, 1] - t[:, :, :, 0, 1]
    out = np.full(per_seed.shape[:2], np.nan)
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            learned = np.flatnonzero(np.maximum(col[i, j], siz[i, j]) >= level)
            if learned.size and learned[0] < per_seed.shape[2] - 1:
                out[i, j] = mse_rise(per_seed[i, j, learned[0]:])[0]
    return out


def joint_accuracy(res: dict, cls: int = CLASS_11) -> tuple[np.ndarray, np.ndarray]:
    """Fraction of a class's samples that show *both* of its concepts, ``(n_dc, n_ckpt)``
    each: read by the classifier (both probabilities on the right side of 1/2) and by
    the pixel check (a visible disc of the right colour and size)."""
    from swingby.diffusion.data import CLASSES
    cls = _cls(cls)
    want = np.array([int(CLASSES[cls][0]), int(CLASSES[cls][1])], bool)
    p = np.asarray(_check_res(res)["probs"])[:, :, :, cls].astype(float)
    by_clf = np.all((p > 0.5) == want, axis=-1).mean(axis=(1, 3))
    px = np.asarray(_check_res(res, "pixels")["pixels"])[:, :, :, cls].astype(float)
    blue, small = px[..., 2] > 0, px[..., 1] < 0.45
    by_pix = ((px[..., 0] > 0.5) & (blue == want[0]) & (small == want[1])).mean(axis=(1, 3))
    return by_clf, by_pix
