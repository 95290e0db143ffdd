"""The link test between the Jacobian stages and the output stages of trained MLPs
(``book/jacobian_link.md``): the pass matrix of every run, the link test with its null,
the shares of the loss fall per stage, and the figure of one run.
"""
from __future__ import annotations

import dataclasses
import math
from typing import NamedTuple, Sequence

import numpy as np
from scipy import stats

from swingby import _checks
from swingby.diffusion.rules import RULES, Outcome, binomial_p, seeds_needed, verdict
from swingby.exact_tests import discordant_pairs
from swingby.theory.jacobian_stages import _log_lag, run_stages, stage_check
from swingby.theory.rules import THEORY_RULES
from swingby.theory.trained_jacobian import JACOBIAN_RULES, JacobianRecord, JacobianRules, train_with_jacobian


def pass_matrix(record: JacobianRecord, rules: JacobianRules = JACOBIAN_RULES,
                runs: Sequence[int] | None = None) -> np.ndarray:
    """:func:`~swingby.theory.jacobian_stages.stage_check` of the output stages of run ``i`` against the Jacobian of run
    ``j``, for every pair of runs. The diagonal is the check itself; an off-diagonal
    entry is the shuffled-pairing null (another seed's Jacobian stages, which share
    the setting's timing but not the run's).

    Parameters
    ----------
    record : JacobianRecord
        From :func:`~swingby.theory.trained_jacobian.train_with_jacobian`.
    rules : JacobianRules
        The thresholds.
    runs : sequence of int, optional
        Only these runs (e.g. the swinging ones); default all.

    Returns
    -------
    numpy.ndarray
        ``(n, n)`` booleans for the ``n`` runs, rows the output runs, columns the
        Jacobian runs.
    """
    rs = run_stages(record, rules)
    minor = record.minor()
    R = len(rs.output)
    runs = range(R) if runs is None else [_checks.index("runs[k]", r, R) for r in runs]
    return np.array([[stage_check(record.steps, rs.output[i], rs.jacobian[j], minor[j], rules)
                      for j in runs] for i in runs], dtype=bool).reshape(len(runs), len(runs))


class LinkResult(NamedTuple):
    """What :func:`link_test` found for one architecture."""

    n_runs: int  #: runs (seeds) trained
    swinging: np.ndarray  #: indices of the runs whose output swings by
    n_pass: int  #: swinging runs that pass :func:`~swingby.theory.jacobian_stages.stage_check` with their own Jacobian
    null_rate: float  #: share of (run, other swinging run's Jacobian) pairs that pass
    p_permutation: float  #: exact permutation test over re-pairings of the seeds
    p_binomial: float  #: ``binomial_p(n_pass, n_swing, null_rate)``
    lag: np.ndarray  #: log-time lag of each swinging run's minor peak behind its own turn
    lag_null: np.ndarray  #: the same lag against every other swinging run's turn (flat)
    p_lag: float  #: permutation test that the own-run ``|lag|`` is smaller than re-paired
    outcome: Outcome  #: for :func:`swingby.diffusion.rules.verdict`
    verdict: str  #: the verdict word
    seeds_needed: int | None  #: swinging seeds that would decide it (rules' power)


def link_test(record: JacobianRecord, rules: JacobianRules = JACOBIAN_RULES, *,
              n_resamples: int = RULES.n_resamples, seed: int = 0) -> LinkResult:
    """The chapter's test of the link over seeds: the seeds (swinging runs) are the
    independent units. The null re-pairs each run's output stages with another
    swinging run's Jacobian; its pass rate is the mean off-diagonal of
    :func:`pass_matrix`, the p-value of the pass count comes from
    ``scipy.stats.permutation_test`` over random re-pairings (``permutation_type=
    "pairings"``) and from the binomial test of :func:`~swingby.diffusion.rules.binomial_p`,
    and the verdict from :func:`~swingby.diffusion.rules.verdict`. Used in
    ``book/jacobian_link.md``.

    Parameters
    ----------
    record : JacobianRecord
        From :func:`~swingby.theory.trained_jacobian.train_with_jacobian`.
    rules : JacobianRules
        The thresholds.
    n_resamples : int
        Random re-pairings of the permutation test, ``> 0``.
    seed : int
        Seed of the re-pairings.

    Returns
    -------
    LinkResult
    """
    n_resamples = _checks.positive_int("n_resamples", n_resamples)
    seed = _checks.seed("seed", seed)
    rs = run_stages(record, rules)
    swinging = np.flatnonzero([o.swings for o in rs.output])
    M = pass_matrix(record, rules, swinging)
    n = len(swinging)
    lags = np.array([[_log_lag(rs.jacobian[j].t_minor, rs.output[i].t_turn) for j in swinging]
                     for i in swinging]).reshape(n, n)
    off = ~np.eye(n, dtype=bool)
    n_pass = int(np.trace(M)) if n else 0
    null_rate = float(M[off].mean()) if n >= 2 else 1.0
    if n >= 2:
        res = stats.permutation_test((np.arange(n),), lambda i: M[i, np.arange(n)].sum(),
                                     permutation_type="pairings", n_resamples=n_resamples, vectorized=False,
                                     alternative="greater", random_state=seed)
        p_perm = float(res.pvalue)
        absl = np.minimum(np.abs(lags), 50.0)  # inf (no stage) counts as a very large lag
        res = stats.permutation_test((np.arange(n),), lambda i: -absl[i, np.arange(n)].mean(),
                                     permutation_type="pairings", n_resamples=n_resamples,
                                     vectorized=False, alternative="greater", random_state=seed)
        p_lag = float(res.pvalue)
    else:
        p_perm = p_lag = 1.0
    outcome = Outcome(n_pass, n, null_rate, decidable=n >= 2)
    return LinkResult(len(record.seeds), swinging, n_pass, null_rate, p_perm,
                      binomial_p(n_pass, n, null_rate), np.diag(lags).copy(), lags[off],
                      p_lag, outcome, verdict(outcome),
                      seeds_needed(n_pass / n, null_rate) if n else None)


class FallShares(NamedTuple):
    """What moves the output's weak coordinate ``y_w`` during its fall (one row per run)."""

    minor: np.ndarray  #: ``mu_s * (change of w_ws)`` over the fall, as a share of the fall of ``y_w``
    major: np.ndarray  #: ``mu_w * (change of w_ww)``, as a share
    rest: np.ndarray  #: everything else (the bias, and for ReLU the offset of the active pattern)


def fall_shares(record: JacobianRecord, runs: Sequence[int],
                rules: JacobianRules = JACOBIAN_RULES, *, phase: str = "fall") -> FallShares:
    """Split the fall of the output's weak coordinate, ``y_w(t_back) - y_w(t_turn)``, into
    the part the minor entry moves (``mu_s * delta w_ws``), the part the major entry moves
    (``mu_w * delta w_ww``) and the rest (``f(x_hat) = J x_hat + b`` with ``b`` the bias,
    or for a ReLU net the offset of its activation pattern). Sec. 4.2.2 says the minor
    entry's suppression causes it: a share near 1. With ``phase="approach"`` the same
    split of the move of ``y_w`` from step 0 to the turn (Sec. 4.2.2: the growing minor
    entry makes the "illusion of generalizing"). Used in ``book/jacobian_link.md``.

    Parameters
    ----------
    record : JacobianRecord
        From :func:`~swingby.theory.trained_jacobian.train_with_jacobian`.
    runs : sequence of int
        Indices of the runs (e.g. ``LinkResult.swinging``).
    rules : JacobianRules
        The thresholds of :func:`~swingby.theory.jacobian_stages.output_stages`.
    phase : {"fall", "approach"}
        Split the fall (turn to return) or the approach (step 0 to the turn).

    Returns
    -------
    FallShares
        Each field ``(len(runs),)``; shares sum to 1.
    """
    phase = _checks.choice("phase", phase, ("fall", "approach"))
    rs = run_stages(record, rules)
    R = len(record.seeds)
    runs = [_checks.index("runs[k]", r, R) for r in runs]
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
    """Draw one run of the chapter's figure: (left) the major entries, the minor entry
    ``w_ws`` and the output's weak coordinate ``y_w / mu_w`` over log time, with the
    stage times; (middle) the output path at ``x_hat`` in the plane of the two concepts,
    with its turns; (right) the OOD test loss. Used in ``book/jacobian_link.md``.

    Parameters
    ----------
    axes : sequence of three matplotlib Axes
        Where to draw.
    record : JacobianRecord
        From :func:`~swingby.theory.trained_jacobian.train_with_jacobian`.
    run : int
        Index of the run.
    rules : JacobianRules
        The thresholds of the stages.

    Returns
    -------
    None
    """
    from swingby.style import PALETTE

    if not hasattr(axes, "__len__") or len(axes) != 3:
        raise ValueError("axes must be three matplotlib Axes")
    _checks.instance("record", record, JacobianRecord, "JacobianRecord (from train_with_jacobian)")
    run = _checks.index("run", run, len(record.seeds))
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
    ax.set_xlabel("SGD step + 1")
    ax.set_ylabel("entry of the Jacobian at $\\hat{x}$")
    ax.legend()
    ax = axes[1]
    ax.plot(y[:, 0], y[:, 1], color=PALETTE["vermillion"])
    for tt, mk in ((o.t_turn, "v"), (o.t_back, "^")):
        k = int(np.searchsorted(record.steps, tt))
        ax.plot(y[k, 0], y[k, 1], mk, color="k", ms=8)
    ax.plot(*record.x_hat[:2], "*", color=PALETTE["vermillion"], ms=14)
    ax.plot([record.mu[0], 0], [0, record.mu[1]], "o", color="0.4")
    ax.set_xlabel("$y_1$")
    ax.set_ylabel("$y_2$")
    ax.set_title("output path at $\\hat{x}$ (turns: v, ^)", fontsize=10)
    ax = axes[2]
    ax.semilogx(t, record.test_loss[run], color=PALETTE["vermillion"])
    ax.axvspan(o.t_turn + 1, o.t_back + 1, color="0.85", zorder=0)
    ax.set_xlabel("SGD step + 1")
    ax.set_ylabel("OOD test loss")


def one_layer_null(seeds: Sequence[int], **setting) -> JacobianRecord:
    """The wrong model of the link: the Jacobian of a *one-layer* linear model
    ``f(x) = W x + b`` trained on the same data (same seeds) as the networks it is
    compared with, :func:`~swingby.theory.trained_jacobian.train_with_jacobian` with
    ``depth=1``. Used by ``book/jacobian_link.md``.

    Null audit: by Theorem 4.1 (eq. 4.2) the one-layer model has no stages. Under
    gradient flow on (4.1), ``dW/dt = -(W - I) A`` with ``A`` diagonal, so every entry
    relaxes on its own, ``w_ij(t) = delta_ij + (w_ij(0) - delta_ij) exp(-a_j t)``: the
    minor entry ``w_ws`` moves monotonically to 0, never grows and is never suppressed
    (Sec. 4.1, "the limitation of the one layer model theory"); for every initialisation
    :func:`~swingby.theory.jacobian_stages.jacobian_stages` finds no suppression
    (``tests/test_beyond_claims.py``). With the bias and the origin cluster of the
    trained nets the augmented moment matrix is not diagonal and the trained minor
    entry can bend, but on its own, one-layer clock. It is neither the paper's account
    of the detour nor a replicate of the deep network (another seed of it).

    Parameters
    ----------
    seeds : sequence of int
        One run per seed (the data of the deep network's run with that seed).
    **setting
        Other arguments of :func:`~swingby.theory.trained_jacobian.train_with_jacobian`
        (default: the setting of Figs. 13, 14).

    Returns
    -------
    JacobianRecord
    """
    for key in ("depth", "activation"):
        if key in setting:
            raise ValueError(f"{key} is fixed by the wrong model (one linear layer); leave it out")
    return train_with_jacobian(1, "linear", seeds, **setting)


def shifted_minor_null(record: JacobianRecord, shift_min: float = THEORY_RULES.shift_min) -> JacobianRecord:
    """The wrong model of the link: each run's own Jacobian with its off-diagonal
    entries circularly shifted in time (over the recorded, log-spaced steps) by one
    number of records drawn from the run's seed, at least ``shift_min`` of the record
    from either end; the output, the loss and the major entries are the run's own.
    Used by ``book/jacobian_link.md``.

    Null audit: Sec. 4.2.2 names the minor entry's growth and suppression, timed with the
    output's turn, as the cause of the detour. The shifted run keeps the shape, size and
    suppression of its minor entry and the timing of its major entries (conditions (1)
    and (4) of :func:`~swingby.theory.jacobian_stages.stage_check` are unchanged), and
    loses only that timing; unlike a one-layer model it can pass every condition, when
    the shifted peak lands at the turn. Neither the paper's account nor a replicate
    (it is the same run).

    Parameters
    ----------
    record : JacobianRecord
        From :func:`~swingby.theory.trained_jacobian.train_with_jacobian`, at least two
        recorded steps.
    shift_min : float
        In ``(0, 0.5]``: the smallest shift, a share of the records.

    Returns
    -------
    JacobianRecord
        The same seeds, steps, output and loss; shifted off-diagonal Jacobian entries.
    """
    _checks.instance("record", record, JacobianRecord, "JacobianRecord (from train_with_jacobian)")
    shift_min = _checks.number("shift_min", shift_min, low=0, high=0.5, low_open=True)
    T, d = record.jacobian.shape[1], record.jacobian.shape[-1]
    lo = max(1, int(shift_min * T))
    off = ~np.eye(d, dtype=bool)
    J = record.jacobian.copy()
    for r, seed in enumerate(record.seeds):
        rng = np.random.default_rng(_checks.seed("record.seeds[k]", seed))
        k = int(rng.integers(lo, T - lo + 1)) if T - lo >= lo else 1
        J[r][:, off] = np.roll(record.jacobian[r], k, axis=0)[:, off]
    return dataclasses.replace(record, jacobian=J)


class LinkUnits(NamedTuple):
    """Output of :func:`link_units`: the swinging runs are the units."""

    swinging: np.ndarray  #: indices of the runs whose output swings by
    own: np.ndarray  #: ``(n,)`` the check holds with the run's own Jacobian
    null: np.ndarray  #: ``(n,)`` it holds with the wrong model's Jacobian of the same seed

    @property
    def pairs(self) -> tuple[int, int]:
        """``(b, c)``: units where only the own Jacobian passes, and only the wrong model's."""
        return discordant_pairs(self.own, self.null)


def link_units(record: JacobianRecord, null_record: JacobianRecord,
               rules: JacobianRules = JACOBIAN_RULES) -> LinkUnits:
    """The link check of Sec. 4.2.2 on every swinging run of ``record``
    (:func:`~swingby.theory.jacobian_stages.stage_check` of its output stages against its
    own Jacobian stages) and the same output stages against the Jacobian of
    ``null_record``'s run of the same seed (:func:`shifted_minor_null`): paired units. Used
    by ``book/jacobian_link.md``.

    Parameters
    ----------
    record : JacobianRecord
        The deep networks, from :func:`~swingby.theory.trained_jacobian.train_with_jacobian`.
    null_record : JacobianRecord
        The wrong model, with the same seeds and recorded steps.
    rules : JacobianRules
        The thresholds.

    Returns
    -------
    LinkUnits
    """
    for name, rec in (("record", record), ("null_record", null_record)):
        _checks.instance(name, rec, JacobianRecord, "JacobianRecord (from train_with_jacobian)")
    if tuple(null_record.seeds) != tuple(record.seeds) or not np.array_equal(null_record.steps, record.steps):
        raise ValueError("null_record must have the seeds and recorded steps of record (run it with the same seeds)")
    rs, rn = run_stages(record, rules), run_stages(null_record, rules)
    swinging = np.flatnonzero([o.swings for o in rs.output])
    own = [stage_check(record.steps, rs.output[i], rs.jacobian[i], record.minor()[i], rules) for i in swinging]
    null = [stage_check(record.steps, rs.output[i], rn.jacobian[i], null_record.minor()[i], rules)
            for i in swinging]
    return LinkUnits(swinging, np.array(own, dtype=bool), np.array(null, dtype=bool))
