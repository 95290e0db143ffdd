"""The stages of a trained MLP's Jacobian and output at ``x_hat``: when the strong, weak and minor
Jacobian entries and the output turn, and the per-seed check that they coincide (Sec. 4.2.2).
``rules`` is a :class:`~swingby.theory.trained_jacobian.JacobianRules`."""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from swingby import _checks
from swingby.theory.trained_jacobian import JACOBIAN_RULES, JacobianRecord, JacobianRules

__all__ = ["JacobianStages", "OutputStages", "RunStages", "StageConditions", "run_stages", "stage_conditions"]


class JacobianStages(NamedTuple):
    """The Jacobian's stages in one run (steps; ``inf`` where a stage never comes)."""

    t_strong: float  #: the stronger concept's major entry first reaches ``growth_level``
    t_weak: float  #: the weaker concept's major entry first reaches ``growth_level``
    t_minor: float  #: the minor entry ``w_ws`` peaks (its largest signed value)
    suppressed: bool  #: ``w_ws`` grew to a positive peak and fell below ``suppression_drop`` times it


class OutputStages(NamedTuple):
    """The output's stages in one run: whether it swings by, and when ``y_w`` turns away and back."""

    rise: float  #: largest rise above the running minimum, in units of ``0.5 ||x_hat||^2``
    swings: bool  #: the loss rises by more than ``rise_min`` and falls back by as much
    t_turn: float  #: step at which ``y_w`` turns away from ``mu_w`` (top before its largest fall)
    t_back: float  #: step at which ``y_w`` turns back toward ``mu_w`` (bottom of that fall)


def jacobian_stages(steps: np.ndarray, w_strong: np.ndarray, w_weak: np.ndarray, w_minor: np.ndarray,
                    rules: JacobianRules = JACOBIAN_RULES) -> JacobianStages:
    """Growth times of the two major entries and the peak and suppression of the minor one (Sec. 4.2.1)."""
    def grown(w):
        hit = np.flatnonzero(w >= rules.growth_level)
        return float(steps[hit[0]]) if hit.size else math.inf

    k = int(np.argmax(w_minor))
    suppressed = bool(0 < k < w_minor.size - 1 and w_minor[k] > max(w_minor[0], 0.0)
                      and w_minor[k:].min() < rules.suppression_drop * w_minor[k])
    return JacobianStages(grown(w_strong), grown(w_weak), float(steps[k]), suppressed)


def output_stages(steps: np.ndarray, test_loss: np.ndarray, y_weak: np.ndarray, scale: float,
                  rules: JacobianRules = JACOBIAN_RULES) -> OutputStages:
    """Whether the output swings by, and the top and bottom of the largest fall of ``y_w`` (see :func:`run_stages`)."""
    climb = test_loss - np.minimum.accumulate(test_loss)
    k_top = int(np.argmax(climb))
    rise = float(climb[k_top] / scale)
    fall = float((test_loss[k_top] - test_loss[k_top:].min()) / scale)
    k_back = int(np.argmax(np.maximum.accumulate(y_weak) - y_weak))
    k_turn = int(np.argmax(y_weak[:k_back + 1]))
    return OutputStages(rise, rise > rules.rise_min and fall > rules.rise_min, float(steps[k_turn]),
                        float(steps[k_back]))


def _log_lag(t_a: float, t_b: float) -> float:
    """``log(1 + t_a) - log(1 + t_b)``; ``inf`` where either time is."""
    return float(math.log1p(t_a) - math.log1p(t_b)) if math.isfinite(t_a) and math.isfinite(t_b) else math.inf


class StageConditions(NamedTuple):
    """The parts of the stage check for one (output run, Jacobian run) pair."""

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
    """The per-seed check of Sec. 4.2.2, condition by condition: the output swings by and (1) the stronger
    concept's major entry has grown when the output's weak coordinate ``y_w`` ends its fall; (2) the minor
    entry ``w_ws`` peaks within ``peak_tol`` (log time) of the turn of ``y_w`` and is later suppressed;
    (3) ``w_ws`` falls over ``shrink_min`` of the fall's records; (4) the weaker major entry grows after it.

    Parameters
    ----------
    steps, w_minor : array_like
        The recorded steps, increasing; the minor entry ``w_ws`` of the run ``jac`` comes from.
    out, jac, rules
        The output's and the Jacobian's stages (:func:`run_stages`; ``jac`` may be a wrong model's).
    """
    st = _checks.array("steps", steps, ndim=1, min_size=2)
    if np.any(np.diff(st) <= 0) or st[0] < 0:
        raise ValueError("steps must be increasing and >= 0")
    _checks.instance("out", out, OutputStages, "OutputStages (from output_stages)")
    _checks.instance("jac", jac, JacobianStages, "JacobianStages (from jacobian_stages)")
    rules = _checks.instance("rules", rules, JacobianRules, "swingby.theory.trained_jacobian.JacobianRules")
    m = _checks.array("w_minor", w_minor, ndim=1, min_size=2)
    if m.size != st.size:
        raise ValueError(f"w_minor must have one value per recorded step ({st.size}), got {m.size}")
    window = m[(st >= out.t_turn) & (st <= out.t_back)]
    shrink = float(np.mean(np.diff(window) < 0)) if window.size >= 2 else 0.0
    return StageConditions(
        bool(out.swings), bool(jac.t_strong <= out.t_back),
        bool(jac.suppressed and abs(_log_lag(jac.t_minor, out.t_turn)) <= rules.peak_tol),
        shrink >= rules.shrink_min, bool(jac.t_weak >= out.t_back))


def stage_check(steps, out: OutputStages, jac: JacobianStages, w_minor, rules: JacobianRules = JACOBIAN_RULES) -> bool:
    """Whether every condition of :func:`stage_conditions` holds (the claim's per-seed check)."""
    return stage_conditions(steps, out, jac, w_minor, rules).holds


class RunStages(NamedTuple):
    """The stages of every run of a :class:`~swingby.theory.trained_jacobian.JacobianRecord`."""

    output: list  #: one :class:`OutputStages` per run
    jacobian: list  #: one :class:`JacobianStages` per run
    lag: np.ndarray  #: ``(R,)`` log-time lag of the minor peak behind the output's turn


def run_stages(record: JacobianRecord, rules: JacobianRules = JACOBIAN_RULES) -> RunStages:
    """The output's and the Jacobian's stages of every run of ``record``, and the lag of the minor
    peak behind the output's turn.

    Parameters
    ----------
    record, rules
        From :func:`~swingby.theory.trained_jacobian.train_with_jacobian`; the thresholds.
    """
    record = _checks.instance("record", record, JacobianRecord, "JacobianRecord (from train_with_jacobian)")
    rules = _checks.instance("rules", rules, JacobianRules, "swingby.theory.trained_jacobian.JacobianRules")
    scale = 0.5 * float(np.sum(record.x_hat ** 2))
    s, w = record.strong, record.weak
    st = np.asarray(record.steps, dtype=float)
    outs = [output_stages(st, L, y[:, w], scale, rules) for L, y in zip(record.test_loss, record.output)]
    jacs = [jacobian_stages(st, J[:, s, s], J[:, w, w], J[:, w, s], rules) for J in record.jacobian]
    lag = np.array([_log_lag(j.t_minor, o.t_turn) for o, j in zip(outs, jacs)])
    return RunStages(outs, jacs, lag)
