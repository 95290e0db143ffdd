"""The power of the registered slowing check of Fig. 6(c)
(:func:`swingby.diffusion.fig6.confirm.slowing`): a positive control.

Theorem 4.1 says a nearly learned concept approaches its target exponentially. A check
of that claim should pass paths that do exactly this, sampled like the runs, in most
units (the verdict rule's "typical" presumes :data:`swingby.verdicts.TYPICAL_SHARE`),
and more often than the wrong model. :func:`exponential_paths` draws such paths, one
run at a time, from the run's start window to its end window with the run's noise;
:func:`positive_control` counts how many units of them pass the registered check, unit
``u`` mimicking run ``u mod n`` as the wrong models do; :func:`powered_word` turns the
rule's word "not reproduced" into "inconclusive" where the positive control does not
pass significantly more often than the wrong model, since then the check could not
have seen the effect the claim implies. The diffusion chapter (``book/diffusion.md``,
Fig. 6(c)) uses all three.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from swingby import _checks, verdicts
from swingby.claims.diffusion import DESIGN, check_design
from swingby.diffusion.fig6.confirm import slowing
from swingby.diffusion.fig6.confirm_nulls import stop_paths
from swingby.diffusion.readouts import run_paths

#: the per-unit rate factor is drawn log-uniformly in this range
RATE_RANGE = (0.5, 2.0)
#: the positive control's random stream (the wrong models use 1 to 4, with ``null_seed``)
STREAM = 5


class Control(NamedTuple):
    """Passing units of the positive control (:func:`positive_control`)."""

    k: int               #: units that pass the registered slowing check
    n: int               #: units (``design.n_null_units``)
    passed: np.ndarray   #: (n,) bool, per unit


def _tau(a: float, b: float, frac: float) -> float:
    """Time constant at which ``(1 - e^(-a/tau)) / (1 - e^(-b/tau)) = frac`` (``0 < a <= b``);
    ``100 b`` (a nearly straight path) where even a straight path has gone ``frac`` by ``a``."""
    if a >= frac * b:
        return 100.0 * b
    lo, hi = np.log(b * 1e-4), np.log(b * 1e2)

    def share(log_tau):
        return np.expm1(-a / np.exp(log_tau)) / np.expm1(-b / np.exp(log_tau))

    for _ in range(100):  # share falls as tau grows
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if share(mid) > frac else (lo, mid)
    return float(np.exp(0.5 * (lo + hi)))


def exponential_paths(steps: np.ndarray, points: np.ndarray, noise: np.ndarray, n: int,
                      rng: np.random.Generator, design=DESIGN) -> np.ndarray:
    """Theorem 4.1's exponential approach, sampled at a run's checkpoints with its noise:
    from the mean of the run's first ``design.sustain`` points (``start``, at ``t0``) to
    the mean of its last (``end``, at ``T``),

    ``p(t) = start + (1 - exp(-(t - t0)/tau)) / (1 - exp(-(T - t0)/tau)) (end - start)``,

    with ``tau`` such that the path has gone ``design.stop_fraction`` of its way where
    the run has (the stop of :func:`~swingby.diffusion.fig6.confirm_nulls.stop_paths`),
    divided by a rate factor drawn log-uniformly in :data:`RATE_RANGE` per path, plus
    Gaussian noise at the run's noise level, clipped to [0, 1].

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
        Source of the rate factors and the noise.
    design : DiffusionDesign
        Supplies ``sustain`` and ``stop_fraction``.

    Returns
    -------
    array (n, L, 2)

    Raises
    ------
    ValueError
        For arrays of the wrong shape, steps not strictly increasing, negative noise,
        ``n < 1`` or an ``rng`` that is not a Generator (the argument is named).
    """
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    design = check_design(design)
    # the stopping wrong model without noise (it checks the arguments): the run's
    # start-to-end line, reaching its end where the run has gone stop_fraction of its way
    line = stop_paths(steps, points, np.zeros(2), 1, np.random.default_rng(0), design)[0]
    s = _checks.array("noise", noise, shape=(2,))
    if np.any(s < 0):
        raise ValueError(f"noise must hold two non-negative noise levels, got {s}")
    n = _checks.integer("n", n, low=1)
    t = np.asarray(steps, float)
    start, end = line[0], line[-1]
    stop = int(np.flatnonzero((line == end).all(axis=1))[0])
    if stop == 0:  # start and end coincide: no way to go
        stop = t.size - 1
    tau = _tau(t[stop] - t[0], t[-1] - t[0], design.stop_fraction)
    factor = np.exp(rng.uniform(*np.log(RATE_RANGE), size=(n, 1)))
    x = (t - t[0])[None, :] * factor / tau
    f = np.expm1(-x) / np.expm1(-x[:, -1:])
    path = start + f[:, :, None] * (end - start)
    return np.clip(path + rng.normal(0.0, 1.0, path.shape) * s, 0.0, 1.0)


def positive_control(res: dict, design=DESIGN) -> Control:
    """Passing units of the registered slowing check
    (:func:`~swingby.diffusion.fig6.confirm.slowing`) among ``design.n_null_units``
    units of :func:`exponential_paths`, unit ``u`` mimicking run ``u mod n`` (every run,
    as the claim's units and its wrong models); a unit mimicking a run with too few disc
    checkpoints fails, as the run does.

    Parameters
    ----------
    res : dict
        A complete sweep (:func:`swingby.diffusion.runs.storage.load_results`).
    design : DiffusionDesign
        The registered design.

    Returns
    -------
    Control
    """
    design = check_design(design)
    if not isinstance(res, dict):
        raise ValueError(f"res must be a sweep's results dict, got {type(res).__name__}")
    rp = run_paths(res, design)
    runs = [(i, s) for i in range(rp.dc.size) for s in range(rp.onset.shape[1])]
    rng = np.random.default_rng([design.null_seed, STREAM])
    passed = np.zeros(design.n_null_units, bool)
    for u in range(design.n_null_units):
        steps, pts, noise = rp.run(*runs[u % len(runs)])
        if steps.size >= 3 * design.sustain:  # readable, as the check's units
            path = exponential_paths(steps, pts, noise, 1, rng, design)[0]
            passed[u] = slowing(steps, path, noise, design).passed
    return Control(int(passed.sum()), passed.size, passed)


def powered_word(word: str, control_k: int, control_n: int, null_k: int, null_n: int) -> str:
    """The chapter's word for a claim whose check has a positive control: the verdict
    rule's word, except that "not reproduced" becomes "inconclusive" where the positive
    control does not pass the check significantly more often than the wrong model (one-
    sided Fisher test at :data:`swingby.verdicts.ALPHA`): the check could not have seen
    the effect the claim implies.

    Parameters
    ----------
    word : str
        The rule's word, one of :data:`swingby.verdicts.WORDS`.
    control_k, control_n : int
        Passing units of the positive control, of ``control_n``.
    null_k, null_n : int
        Passing units of the wrong model, of ``null_n``.

    Returns
    -------
    str
    """
    if word not in verdicts.WORDS:
        raise ValueError(f"word must be one of {verdicts.WORDS}, got {word!r}")
    counts = {"control_k": control_k, "control_n": control_n, "null_k": null_k, "null_n": null_n}
    for name, value in counts.items():
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    if control_n == 0 or null_n == 0 or control_k > control_n or null_k > null_n:
        raise ValueError(f"control_k, null_k must lie in [0, control_n], [0, null_n] with both n positive, "
                         f"got {counts}")
    if word != "not reproduced":
        return word
    powered = verdicts.fisher_p(int(control_k), int(control_n), int(null_k), int(null_n)) <= verdicts.ALPHA
    return word if powered else "inconclusive"
