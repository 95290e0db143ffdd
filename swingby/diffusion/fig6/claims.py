"""The claim checks of the diffusion chapter (paper Sec. 5, Fig. 6), each with its null.

Every check here reads a complete sweep (:func:`swingby.diffusion.runs.storage.load_results`)
and returns a record that holds the check's verdict *and* the fraction of null data
sets (data made without the effect) on which the same check passes. The chapter asserts
the verdict and reports, and asserts at most 5 % for, the null's pass rate.

* :func:`order_check` (Fig. 6a): in every seed, size is learned before colour at the
  weakest colour signal and colour before size at the strongest. Null: the colour and
  size learning times of each run are exchangeable (their labels swapped at random).
* :func:`bend_checks` (Fig. 6b): the class-11 MSE rises above its seed error *and then*
  falls. Null: monotone trajectories between each run's own start and end points, with
  the runs' sampling noise (:func:`swingby.diffusion.fig6.nulls.monotone_trajectories`).
* :func:`swing_checks` (Fig. 6a): the class-11 path swings toward the training class
  that shares the first-learned concept (blue big when colour comes first, red small
  when size does). Same null as the bend.
* :func:`~swingby.diffusion.fig6.slowing.slowing_checks` (Fig. 6c, in
  :mod:`swingby.diffusion.fig6.slowing` with the new rule's check): the late speed falls from well above the sampling
  noise to the noise. Null: a model that stopped changing, its checkpoints resampled from
  repeated draws of the final model. The late-phase shape (exponential or power law) is
  fitted and reported, not assumed.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from swingby import _checks
from swingby.diffusion.concept_space import concept_mse
from swingby.diffusion.fig6 import analysis as A
from swingby.diffusion.fig6 import nulls as N
from swingby.diffusion.rules import OLD_RULES as R

CLASS_11 = A.CLASS_11


def _z(z) -> float:
    return _checks.number("z", z, low=0)


def _n(n) -> int:
    return _checks.integer("n", n, low=10)


def first_learned_index(res: dict, level: float = R.learned_level) -> np.ndarray:
    """Per separation, the first checkpoint at which a concept contrast of the seed-mean
    points (:func:`swingby.diffusion.fig6.analysis.concept_contrasts`) reaches ``level``;
    the last checkpoint if none does. Before it the samples are still noise.

    Parameters
    ----------
    res : dict
        A complete sweep.
    level : float
        The contrast that counts as learned.

    Returns
    -------
    array (n_dc,) of int
        A checkpoint index per separation.
    """
    con = A.concept_contrasts(res)
    out = []
    for c in con:
        hit = np.flatnonzero(c.max(axis=1) >= level)
        out.append(int(hit[0]) if hit.size else c.shape[0] - 1)
    return np.array(out)


# ----------------------------------------------------------------------------- order
class OrderCheck(NamedTuple):
    """Which concept each run learns first, and whether the order flips in every seed."""

    per_seed: np.ndarray   #: (n_dc, n_seed) "colour" / "size" / "tie"
    flips: np.ndarray      #: (n_seed,) size first at the weakest dc and colour first at the strongest
    passed: bool           #: every seed flips
    null_pass_rate: float  #: fraction of label-swapped data sets on which every seed flips


def _learning_times(res: dict, level: float) -> np.ndarray:
    """``(n_dc, n_seed, 2)`` steps at which each run's colour and size contrast reach ``level``."""
    t = A.trajectories(res)
    steps = np.asarray(res["meta"]["checkpoint_steps"], float)
    col = t[:, :, :, 2, 0] - t[:, :, :, 0, 0]
    siz = t[:, :, :, 1, 1] - t[:, :, :, 0, 1]
    out = np.empty(col.shape[:2] + (2,))
    for i in range(col.shape[0]):
        for j in range(col.shape[1]):
            out[i, j] = A.crossing_step(steps, col[i, j], level), A.crossing_step(steps, siz[i, j], level)
    return out


def _flips(times: np.ndarray) -> np.ndarray:
    return (times[0, :, 1] < times[0, :, 0]) & (times[-1, :, 0] < times[-1, :, 1])


def order_check(res: dict, level: float = R.learned_level, n: int = R.n_null_order, seed: int = 0) -> OrderCheck:
    """The order flip of Fig. 6(a), per seed, with its label-swap null.

    Parameters
    ----------
    res : dict
        A complete sweep.
    level : float
        The contrast, in [0, 1], that counts as learned.
    n : int
        Label-swapped null data sets (at least 10).
    seed : int
        Seeds the null's coin flips.

    Returns
    -------
    OrderCheck
    """
    level = _checks.number("level", level, low=0, high=1)
    times = _learning_times(res, level)
    per_seed = np.where(times[..., 0] < times[..., 1], "colour",
                        np.where(times[..., 1] < times[..., 0], "size", "tie")).astype(object)
    flips = _flips(times)
    rng = np.random.default_rng(seed)
    null = 0
    for _ in range(_n(n)):
        swap = rng.random(times.shape[:2]) < 0.5
        null += bool(_flips(np.where(swap[..., None], times[..., ::-1], times)).all())
    return OrderCheck(per_seed, flips, bool(flips.all()), null / n)


# ----------------------------------------------------------------------------- bend
class BendCheck(NamedTuple):
    """Rise-then-fall of the class-11 MSE at one separation, after the first concept."""

    dc: float
    start: int             #: checkpoint index where the first concept is learned
    result: N.BendResult   #: indices in ``result`` count from ``start``
    null_pass_rate: float  #: monotone-trajectory null, the runs' own sampling noise
    null_pass_rate_2x: float  #: the same null with twice that noise


def sampling_se(res: dict, cls: int = CLASS_11) -> np.ndarray:
    """``(n_dc, n_seed, n_ckpt, 2)``: standard error of each run's class point (the mean
    of its samples' classifier outputs).

    Parameters
    ----------
    res : dict
        A complete sweep.
    cls : int
        Index of the class in ``CLASSES`` (default: class 11).

    Returns
    -------
    array (n_dc, n_seed, n_ckpt, 2)
    """
    p = np.asarray(A._check_res(res)["probs"])[:, :, :, cls].astype(float)
    return p.std(axis=3, ddof=1) / np.sqrt(p.shape[3])


def _monotone_null(t: np.ndarray, se: np.ndarray, steps: np.ndarray, scale: float):
    """A maker of null class-11 paths ``(S, K, 2)``: each seed monotone from its own
    start to its own end, with noise ``scale * se``."""
    def make(rng):
        return np.concatenate([N.monotone_trajectories(t[s, 0], t[s, -1], steps, scale * se[s], 1, rng)
                               for s in range(t.shape[0])])
    return make


def _monotone_null_rates(check, t: np.ndarray, se: np.ndarray, steps: np.ndarray, n: int,
                         seed: int) -> tuple[float, float]:
    """Pass rates of ``check`` on :func:`_monotone_null` paths at the runs' sampling noise
    and at twice it."""
    return tuple(N.pass_rate(check, _monotone_null(t, se, steps, scale), _n(n), seed) for scale in (1.0, 2.0))


def bend_checks(res: dict, z: float = R.z, n: int = R.n_null, seed: int = 0) -> list[BendCheck]:
    """:func:`swingby.diffusion.fig6.nulls.bend_check` at every separation, from the first
    learned concept on, with the null's pass rate at the runs' noise and at twice it.

    Old rule (:data:`~swingby.diffusion.rules.OLD_RULES`), kept until the chapters move to
    :func:`swingby.diffusion.fig6.mse_checks.mse_rise_checks` (per seed, disc-only read-out).

    Parameters
    ----------
    res : dict
        A complete sweep.
    z : float
        Standard errors by which the rise and the fall must exceed the noise.
    n : int
        Null data sets per separation and noise level (at least 10).
    seed : int
        Seeds the null.

    Returns
    -------
    list of BendCheck
        One per separation.
    """
    z = _z(z)
    t = A.trajectories(res)[:, :, :, CLASS_11]
    se = sampling_se(res)
    steps = np.asarray(res["meta"]["checkpoint_steps"], float)
    out = []
    for i, k0 in enumerate(first_learned_index(res)):
        k0 = int(min(k0, len(steps) - 3))
        result = N.bend_check(concept_mse(t[i, :, k0:]), z)
        rates = _monotone_null_rates(lambda p: N.bend_check(concept_mse(p), z).passed,
                                     t[i, :, k0:], se[i, :, k0:], steps[k0:], n, seed)
        out.append(BendCheck(float(res["meta"]["config"]["separations"][i]), k0, result, *rates))
    return out


# ----------------------------------------------------------------------------- swing
class SwingResult(NamedTuple):
    """How far the class-11 path swings toward one training class."""

    passed: bool
    swing: float     #: largest ``P(blue) - P(small)`` (toward 10) or ``P(small) - P(blue)`` (toward 01)
    swing_se: float  #: standard error over seeds of the same quantity at that checkpoint
    toward: str      #: "10" or "01": the training class that shares the first-learned concept
    k: int           #: checkpoint of the largest swing (counted from the path's first point)


def swing_check(paths: np.ndarray, toward: str, z: float = R.z, min_swing: float = R.swing_min) -> SwingResult:
    """Paths ``(S, K, 2)`` of several seeds. Toward 10 (blue big) the swing is
    ``P(blue) - P(small)``, toward 01 (red small) ``P(small) - P(blue)``; the largest
    swing of the seed-mean path must be at least ``min_swing`` (the point is nearer that
    corner than to the target's diagonal by half the side of concept space) and exceed
    ``z`` standard errors over seeds. A path straight from (P(blue), P(small)) near
    (1/3, 0) to (1, 1) stays below 1/3.

    Old rule (:data:`~swingby.diffusion.rules.OLD_RULES`), kept until the chapters move to
    :func:`swingby.diffusion.fig6.checks.dip` (per run).

    Parameters
    ----------
    paths : array (S, K, 2)
        Finite class-11 paths ``(P(blue), P(small))`` of ``S >= 2`` seeds.
    toward : {"10", "01"}
        The training class the swing goes toward.
    z : float
        Standard errors over seeds the swing must exceed.
    min_swing : float
        The smallest swing that counts.

    Returns
    -------
    SwingResult
    """
    z, min_swing = _z(z), _checks.number("min_swing", min_swing, low=0)
    if toward not in ("01", "10"):
        raise ValueError(f"toward must be '01' or '10', got {toward!r}")
    p = np.asarray(paths, float)
    if p.ndim != 3 or p.shape[0] < 2 or p.shape[2] != 2 or not np.isfinite(p).all():
        raise ValueError(f"paths must be finite, of shape (S >= 2, K, 2), got shape {p.shape}")
    g = (p[..., 0] - p[..., 1]) * (1 if toward == "10" else -1)  # (S, K)
    k = int(np.argmax(g.mean(axis=0)))
    swing, se = float(g[:, k].mean()), float(g[:, k].std(ddof=1) / np.sqrt(g.shape[0]))
    return SwingResult(bool(swing >= min_swing and swing > z * max(se, 1e-12)), swing, se, toward, k)


class SwingCheck(NamedTuple):
    dc: float
    first: str              #: the concept learned first in most seeds ("colour" or "size")
    result: SwingResult
    null_pass_rate: float   #: monotone null at the runs' sampling noise
    null_pass_rate_2x: float


def swing_checks(res: dict, order: OrderCheck, z: float = R.z, n: int = R.n_null, seed: int = 0) -> list[SwingCheck]:
    """:func:`swing_check` of the class-11 paths at every separation, toward the training
    class that shares the concept learned first in most seeds, from the first checkpoint
    after the untrained one (step 0's point depends on the initialisation only) to the
    end; null: monotone paths between each run's own end points, with its sampling noise.

    Old rule (:data:`~swingby.diffusion.rules.OLD_RULES`), kept until the chapters move to
    :func:`swingby.diffusion.fig6.checks.dip_checks` (per seed, monotone-per-coordinate null).

    Parameters
    ----------
    res : dict
        A complete sweep.
    order : OrderCheck
        From :func:`order_check`: which concept each seed learns first.
    z : float
        Standard errors over seeds the swing must exceed.
    n : int
        Null data sets per separation and noise level (at least 10).
    seed : int
        Seeds the null.

    Returns
    -------
    list of SwingCheck
        One per separation.
    """
    t = A.trajectories(res)[:, :, 1:, CLASS_11]
    se = sampling_se(res)[:, :, 1:]
    steps = np.asarray(res["meta"]["checkpoint_steps"], float)[1:]
    out = []
    for i, dc in enumerate(res["meta"]["config"]["separations"]):
        votes = list(order.per_seed[i])
        first = "colour" if votes.count("colour") > votes.count("size") else "size"
        toward = "10" if first == "colour" else "01"
        rates = _monotone_null_rates(lambda p: swing_check(p, toward, z).passed, t[i], se[i], steps, n, seed)
        out.append(SwingCheck(float(dc), first, swing_check(t[i], toward, z), *rates))
    return out
