"""The link between the Jacobian's and the output's stages in trained MLPs (Sec. 4.2.2): the check on
every swinging run beside its wrong model (minor entries shifted in time), the shares of the output's
fall per Jacobian entry, and the figure of one run. ``record`` is a ``JacobianRecord``, ``rules`` its thresholds."""
from __future__ import annotations

import dataclasses
import math
from typing import NamedTuple, Sequence

import numpy as np

from swingby import _checks
from swingby.style import PALETTE
from swingby.theory.jacobian_stages import run_stages, stage_check
from swingby.theory.rules import THEORY_RULES, shifted_minor
from swingby.theory.trained_jacobian import JACOBIAN_RULES, JacobianRecord, JacobianRules

__all__ = ["FallShares", "LinkUnits", "fall_shares", "link_units", "plot_link_run", "shifted_minor_null"]


def _record(name: str, record) -> JacobianRecord:
    return _checks.instance(name, record, JacobianRecord, "JacobianRecord (from train_with_jacobian)")


class FallShares(NamedTuple):
    """What moves the output's weak coordinate ``y_w`` during its fall (one row per run)."""

    minor: np.ndarray  #: ``mu_s * (change of w_ws)`` over the fall, as a share of the fall of ``y_w``
    major: np.ndarray  #: ``mu_w * (change of w_ww)``, as a share
    rest: np.ndarray  #: everything else (the bias, and for ReLU the offset of the active pattern)


def fall_shares(record: JacobianRecord, runs: Sequence[int],
                rules: JacobianRules = JACOBIAN_RULES, *, phase: str = "fall") -> FallShares:
    """The fall of the output's weak coordinate, ``y_w(t_back) - y_w(t_turn)``, split into the shares
    the minor entry moves (``mu_s * delta w_ws``), the major entry moves (``mu_w * delta w_ww``) and
    the rest; Sec. 4.2.2 says the minor entry's suppression causes it.

    Parameters
    ----------
    record, runs, rules, phase
        See the module docstring; indices of the runs; ``"fall"`` (turn to return) or ``"approach"``
        (step 0 to the turn).
    """
    phase = _checks.choice("phase", phase, ("fall", "approach"))
    rs = run_stages(record, rules)
    runs = [_checks.index("runs[k]", r, len(record.seeds)) for r in runs]
    s, w = record.strong, record.weak
    out = np.zeros((3, len(runs)))
    for n, r in enumerate(runs):
        k0 = int(np.searchsorted(record.steps, rs.output[r].t_turn))
        k1 = int(np.searchsorted(record.steps, rs.output[r].t_back))
        if phase == "approach":
            k0, k1 = 0, k0
        J, y = record.jacobian[r], record.output[r, :, w]
        fall = y[k1] - y[k0]
        if fall == 0:
            out[:, n] = np.nan
            continue
        minor = record.x_hat[s] * (J[k1, w, s] - J[k0, w, s])
        major = record.x_hat[w] * (J[k1, w, w] - J[k0, w, w])
        out[:, n] = minor / fall, major / fall, (fall - minor - major) / fall
    return FallShares(*out)


def plot_link_run(axes, record: JacobianRecord, run: int, rules: JacobianRules = JACOBIAN_RULES) -> None:
    """Draw one run: the major entries, the minor entry ``w_ws`` and ``y_w / mu_w`` over log time with
    the stage times; the output path at ``x_hat`` with its turns; the OOD test loss.

    Parameters
    ----------
    axes, record, run, rules
        Three matplotlib Axes; see the module docstring; the index of the run.
    """
    if not hasattr(axes, "__len__") or len(axes) != 3:
        raise ValueError("axes must be three matplotlib Axes")
    run = _checks.index("run", run, len(_record("record", record).seeds))
    rs = run_stages(record, rules)
    o, j = rs.output[run], rs.jacobian[run]
    s, w = record.strong, record.weak
    t = record.steps + 1
    J, y = record.jacobian[run], record.output[run]
    ax = axes[0]
    ax.semilogx(t, J[:, s, s], color=PALETTE["blue"], label=f"major $w_{{{s + 1}{s + 1}}}$ (stronger)")
    ax.semilogx(t, J[:, w, w], color=PALETTE["orange"], label=f"major $w_{{{w + 1}{w + 1}}}$ (weaker)")
    ax.semilogx(t, J[:, w, s], color=PALETTE["green"], label=f"minor $w_{{{w + 1}{s + 1}}}$")
    ax.semilogx(t, y[:, w] / record.mu[w], "k--", lw=1, label=f"output $y_{w + 1}/\\mu_{w + 1}$")
    for tt, c in ((j.t_strong, PALETTE["blue"]), (j.t_weak, PALETTE["orange"]), (j.t_minor, PALETTE["green"])):
        if math.isfinite(tt):
            ax.axvline(tt + 1, color=c, ls=":", lw=1)
    ax.axvspan(o.t_turn + 1, o.t_back + 1, color="0.85", zorder=0, label="fall of $y_w$")
    ax.set(xlabel="SGD step + 1", ylabel="entry of the Jacobian at $\\hat{x}$")
    ax.legend()
    ax = axes[1]
    ax.plot(y[:, 0], y[:, 1], color=PALETTE["vermillion"])
    for tt, mk in ((o.t_turn, "v"), (o.t_back, "^")):
        k = int(np.searchsorted(record.steps, tt))
        ax.plot(y[k, 0], y[k, 1], mk, color="k", ms=8)
    ax.plot(*record.x_hat[:2], "*", color=PALETTE["vermillion"], ms=14)
    ax.plot([record.mu[0], 0], [0, record.mu[1]], "o", color="0.4")
    ax.set(xlabel="$y_1$", ylabel="$y_2$")
    ax.set_title("output path at $\\hat{x}$ (turns: v, ^)", fontsize=10)
    ax = axes[2]
    ax.semilogx(t, record.test_loss[run], color=PALETTE["vermillion"])
    ax.axvspan(o.t_turn + 1, o.t_back + 1, color="0.85", zorder=0)
    ax.set(xlabel="SGD step + 1", ylabel="OOD test loss")


def shifted_minor_null(record: JacobianRecord, shift_min: float = THEORY_RULES.shift_min) -> JacobianRecord:
    """The wrong model of the link: each run's Jacobian with its off-diagonal entries circularly shifted
    in time by a number of records drawn from the run's seed, at least ``shift_min`` of them from
    either end; the output, the loss and the major entries are the run's own.

    Parameters
    ----------
    record, shift_min
        See the module docstring; the smallest shift, a share of the records in ``(0, 0.5]``.
    """
    _record("record", record)
    shift_min = _checks.number("shift_min", shift_min, low=0, high=0.5, low_open=True)
    J = np.stack([shifted_minor(J, seed, shift_min) for J, seed in zip(record.jacobian, record.seeds)])
    return dataclasses.replace(record, jacobian=J)


class LinkUnits(NamedTuple):
    """Output of :func:`link_units`: the swinging runs are the units."""

    swinging: np.ndarray  #: indices of the runs whose output swings by
    own: np.ndarray  #: ``(n,)`` the check holds with the run's own Jacobian
    null: np.ndarray  #: ``(n,)`` it holds with the wrong model's Jacobian of the same seed


def link_units(record: JacobianRecord, null_record: JacobianRecord,
               rules: JacobianRules = JACOBIAN_RULES) -> LinkUnits:
    """The link check of Sec. 4.2.2 (:func:`~swingby.theory.jacobian_stages.stage_conditions`) on every
    swinging run of ``record`` with its own Jacobian and with ``null_record``'s of the same seed.

    Parameters
    ----------
    record, null_record, rules
        See the module docstring; the wrong model (:func:`shifted_minor_null`), same seeds and steps.
    """
    _record("record", record)
    _record("null_record", null_record)
    if tuple(null_record.seeds) != tuple(record.seeds) or not np.array_equal(null_record.steps, record.steps):
        raise ValueError("null_record must have the seeds and recorded steps of record (run it with the same seeds)")
    rs, rn = run_stages(record, rules), run_stages(null_record, rules)
    swinging = np.flatnonzero([o.swings for o in rs.output])
    own = [stage_check(record.steps, rs.output[i], rs.jacobian[i], record.minor()[i], rules) for i in swinging]
    null = [stage_check(record.steps, rs.output[i], rn.jacobian[i], null_record.minor()[i], rules)
            for i in swinging]
    return LinkUnits(swinging, np.array(own, dtype=bool), np.array(null, dtype=bool))
