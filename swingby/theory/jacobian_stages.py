"""The stages of a trained MLP's Jacobian and output (``book/jacobian_link.md``): when
the strong, weak and minor Jacobian entries and the output at ``x_hat`` turn, the stage
checks and conditions of one run, read from a
:class:`~swingby.theory.trained_jacobian.JacobianRecord`.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from swingby import _checks
from swingby.theory.trained_jacobian import JACOBIAN_RULES, JacobianRecord, JacobianRules


# --------------------------------------------------------------------- stages
class JacobianStages(NamedTuple):
    """The Jacobian's stages in one run (steps; ``inf`` where a stage never comes)."""

    t_strong: float  #: the stronger concept's major entry first reaches ``growth_level``
    t_weak: float  #: the weaker concept's major entry first reaches ``growth_level``
    t_minor: float  #: the minor entry ``w_ws`` peaks (its largest signed value)
    suppressed: bool  #: ``w_ws`` grew to a positive peak and fell below ``suppression_drop`` times it


class OutputStages(NamedTuple):
    """The output path's stages in one run: whether it swings by (from the OOD test
    loss) and when its coordinate along the weaker concept turns back and forth."""

    rise: float  #: largest rise above the running minimum, in units of ``0.5 ||x_hat||^2``
    swings: bool  #: the loss rises by more than ``rise_min`` and falls back by as much
    t_turn: float  #: step at which ``y_w`` turns away from ``mu_w`` (top before its largest fall)
    t_back: float  #: step at which ``y_w`` turns back toward ``mu_w`` (bottom of that fall)


def _curve(name: str, value, n: int | None = None) -> np.ndarray:
    arr = _checks.array(name, value, ndim=1, min_size=2)
    if n is not None and arr.size != n:
        raise ValueError(f"{name} must have one value per recorded step ({n}), got {arr.size}")
    return arr


def _steps(steps) -> np.ndarray:
    st = _curve("steps", steps)
    if np.any(np.diff(st) <= 0) or st[0] < 0:
        raise ValueError("steps must be increasing and >= 0")
    return st


def _rules(rules) -> JacobianRules:
    return _checks.instance("rules", rules, JacobianRules, "swingby.theory.trained_jacobian.JacobianRules")


def jacobian_stages(steps, w_strong, w_weak, w_minor, rules: JacobianRules = JACOBIAN_RULES) -> JacobianStages:
    """Growth times of the two major entries and the peak of the minor entry (Sec.
    4.2.1, with the levels of :data:`~swingby.theory.trained_jacobian.JACOBIAN_RULES`). Used in ``book/jacobian_link.md``.

    Parameters
    ----------
    steps : array_like(float, ndim=1)
        Increasing recorded steps, ``T >= 2``.
    w_strong, w_weak : array_like(float, ndim=1)
        The major entries ``w_ss`` and ``w_ww`` at those steps.
    w_minor : array_like(float, ndim=1)
        The minor entry ``w_ws`` at those steps.
    rules : JacobianRules
        Supplies ``growth_level`` and ``suppression_drop``.

    Returns
    -------
    JacobianStages
    """
    st = _steps(steps)
    ws, ww, wm = (_curve(k, v, st.size) for k, v in
                  (("w_strong", w_strong), ("w_weak", w_weak), ("w_minor", w_minor)))
    rules = _rules(rules)

    def grown(w):
        hit = np.flatnonzero(w >= rules.growth_level)
        return float(st[hit[0]]) if hit.size else math.inf

    if rules.minor_peak == "abs":
        wm = np.abs(wm)
    k = int(np.argmax(wm))
    suppressed = bool(0 < k < wm.size - 1 and wm[k] > max(wm[0], 0.0)
                      and wm[k:].min() < rules.suppression_drop * wm[k])
    return JacobianStages(grown(ws), grown(ww), float(st[k]), suppressed)


def output_stages(steps, test_loss, y_weak, scale: float,
                  rules: JacobianRules = JACOBIAN_RULES) -> OutputStages:
    """Whether the output path at ``x_hat`` swings by, read from the OOD test loss (its
    largest rise above the running minimum, eq. obs-rise of ``book/observations.md``,
    and a fall back by as much), and where the path turns: its coordinate ``y_w``
    along the weaker concept first moves toward ``mu_w``, then falls back (toward the
    stronger concept's training cluster) and finally returns; ``t_turn`` and
    ``t_back`` are the top and the bottom of the largest fall of ``y_w`` below its
    running maximum. Used in ``book/jacobian_link.md``.

    Parameters
    ----------
    steps : array_like(float, ndim=1)
        Increasing recorded steps, ``T >= 2``.
    test_loss : array_like(float, ndim=1)
        The OOD test loss at those steps.
    y_weak : array_like(float, ndim=1)
        The output's coordinate along the weaker concept at those steps.
    scale : float
        The unit of the rise, ``> 0`` (``0.5 ||x_hat||^2``).
    rules : JacobianRules
        Supplies ``rise_min``.

    Returns
    -------
    OutputStages
    """
    st = _steps(steps)
    L = _curve("test_loss", test_loss, st.size)
    y = _curve("y_weak", y_weak, st.size)
    scale = _checks.positive_float("scale", scale)
    rules = _rules(rules)
    climb = L - np.minimum.accumulate(L)
    k_top = int(np.argmax(climb))
    rise = float(climb[k_top] / scale)
    fall = float((L[k_top] - L[k_top:].min()) / scale)
    if rules.turn_from == "loss":
        k_back, k_turn = k_top, int(np.argmin(L[:k_top + 1]))
    else:
        k_back = int(np.argmax(np.maximum.accumulate(y) - y))
        k_turn = int(np.argmax(y[:k_back + 1]))
    return OutputStages(rise, rise > rules.rise_min and fall > rules.rise_min, float(st[k_turn]),
                        float(st[k_back]))


def _log_lag(t_a: float, t_b: float) -> float:
    return float(math.log1p(t_a) - math.log1p(t_b)) if math.isfinite(t_a) and math.isfinite(t_b) else math.inf


def stage_check(steps, out: OutputStages, jac: JacobianStages, w_minor,
                rules: JacobianRules = JACOBIAN_RULES) -> bool:
    """The per-seed claim check of Sec. 4.2.2 on a trained network: the output's
    swing-by stages coincide with the Jacobian's growth and suppression stages.

    It holds when the output swings by (``out.swings``: the test loss rises and falls
    back) and (1) the stronger concept's major entry has grown by the time the output's
    weak coordinate ``y_w`` ends its fall (the first growth comes before the detour
    ends); (2) the minor entry ``w_ws`` peaks within ``peak_tol`` (log time) of the
    turn of ``y_w`` away from ``mu_w`` and is later suppressed; (3) ``w_ws`` decreases
    over at least ``shrink_min`` of the recorded steps of the fall of ``y_w``; (4) the
    weaker concept's major entry grows only after ``y_w`` turns back (the second
    growth ends the detour). Passing the stages and minor entry of *another* run gives
    the shuffled-pairing null (:func:`~swingby.theory.jacobian_link.pass_matrix`).

    Parameters
    ----------
    steps : array_like(float, ndim=1)
        The recorded steps of both runs.
    out : OutputStages
        From :func:`output_stages`.
    jac : JacobianStages
        From :func:`jacobian_stages`.
    w_minor : array_like(float, ndim=1)
        The minor entry ``w_ws`` of the run ``jac`` comes from.
    rules : JacobianRules
        The thresholds.

    Returns
    -------
    bool
    """
    return stage_conditions(steps, out, jac, w_minor, rules).holds


class StageConditions(NamedTuple):
    """The parts of :func:`stage_check` for one (output run, Jacobian run) pair."""

    swings: bool  #: the output swings by
    strong_first: bool  #: (1) the stronger major entry has grown before the detour ends
    minor_at_turn: bool  #: (2) the minor entry peaks at the turn and is suppressed
    minor_falls: bool  #: (3) the minor entry decreases while ``y_w`` falls
    weak_after: bool  #: (4) the weaker major entry grows after ``y_w`` turns back

    @property
    def holds(self) -> bool:
        """All five hold."""
        return all(self)


def stage_conditions(steps, out: OutputStages, jac: JacobianStages, w_minor,
                     rules: JacobianRules = JACOBIAN_RULES) -> StageConditions:
    """The conditions of :func:`stage_check` one by one, to show which of them fail.

    Parameters
    ----------
    steps : array_like(float, ndim=1)
        The recorded steps of both runs.
    out : OutputStages
        From :func:`output_stages`.
    jac : JacobianStages
        From :func:`jacobian_stages`.
    w_minor : array_like(float, ndim=1)
        The minor entry ``w_ws`` of the run ``jac`` comes from.
    rules : JacobianRules
        The thresholds.

    Returns
    -------
    StageConditions
    """
    st = _steps(steps)
    _checks.instance("out", out, OutputStages, "OutputStages (from output_stages)")
    _checks.instance("jac", jac, JacobianStages, "JacobianStages (from jacobian_stages)")
    rules = _rules(rules)
    m = _curve("w_minor", w_minor, st.size)
    m = np.abs(m) if rules.minor_peak == "abs" else m
    window = m[(st >= out.t_turn) & (st <= out.t_back)]
    shrink = float(np.mean(np.diff(window) < 0)) if window.size >= 2 else 0.0
    t_first = out.t_turn if rules.turn_from == "loss" else out.t_back
    return StageConditions(
        bool(out.swings), bool(jac.t_strong <= t_first),
        bool(jac.suppressed and abs(_log_lag(jac.t_minor, out.t_turn)) <= rules.peak_tol),
        shrink >= rules.shrink_min, bool(jac.t_weak >= out.t_back))


class RunStages(NamedTuple):
    """The stages of every run of a :class:`~swingby.theory.trained_jacobian.JacobianRecord`."""

    output: list  #: one :class:`OutputStages` per run
    jacobian: list  #: one :class:`JacobianStages` per run
    lag: np.ndarray  #: ``(R,)`` log-time lag of the minor peak behind the output's turn


def run_stages(record: JacobianRecord, rules: JacobianRules = JACOBIAN_RULES) -> RunStages:
    """:func:`output_stages` and :func:`jacobian_stages` of every run of ``record``.

    Parameters
    ----------
    record : JacobianRecord
        From :func:`~swingby.theory.trained_jacobian.train_with_jacobian`.
    rules : JacobianRules
        The thresholds.

    Returns
    -------
    RunStages
    """
    record = _checks.instance("record", record, JacobianRecord, "JacobianRecord (from train_with_jacobian)")
    rules = _rules(rules)
    scale = 0.5 * float(np.sum(record.x_hat ** 2))
    s, w = record.strong, record.weak
    outs = [output_stages(record.steps, L, y[:, w], scale, rules)
            for L, y in zip(record.test_loss, record.output)]
    jacs = [jacobian_stages(record.steps, J[:, s, s], J[:, w, w], J[:, w, s], rules) for J in record.jacobian]
    lag = np.array([_log_lag(j.t_minor, o.t_turn) for o, j in zip(outs, jacs)])
    return RunStages(outs, jacs, lag)
