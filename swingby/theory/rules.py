"""The thresholds of the theory chapters' claim checks, fixed before the runs that judge them and hashed
into the claim register through ``values``, and the checks they define: how often a phenomenon occurs
(:func:`frequency`) and the suppression timing of an ascent (Sec. 4.2.2, :func:`suppression_timing`)."""
from __future__ import annotations

import dataclasses
from typing import NamedTuple

import numpy as np
from scipy import stats

from swingby import _checks
from swingby.exact_tests import discordant_pairs, sign_test_p
from swingby.sim.symmetric import SymmetricRecord, symmetric_record
from swingby.theory.stages import Stages

__all__ = ["ONE_LAYER_RULES", "THEORY_RULES", "Frequency", "OneLayerRules", "TheoryRules", "frequency", "paired_p",
           "suppression_timing"]


@dataclasses.dataclass(frozen=True)
class TheoryRules:
    """The thresholds of the theory checks. One frozen instance, :data:`THEORY_RULES`."""

    rel_tol: float = 0.01           #: hysteresis of the descents, a fraction of the initial test loss
    growth_level: float = 0.5       #: a major entry counts as grown once it reaches this
    typical_fraction: float = 0.5   #: a setting shows a phenomenon "typically" above this share of runs
    suppression_lag: float = 0.5    #: the minor entries may peak this many ascent-durations before the ascent
    shift_min: float = 0.1          #: circular shifts of the null: at least this share of the record
    n_shifts: int = 5               #: circular shifts per run in the null
    n_seeds: int = 200              #: initialisations per setting (seeds 0..n_seeds-1)
    alpha: float = 0.05             #: level of every test
    ci_level: float = 0.95          #: level of the exact intervals
    fig10_horizon: float = 100.0    #: the authors' Fig. 10 script runs to this time
    fig10_suppression_share: float = 0.5  #: Fig. 10: w_11 falls by suppression if S_11 >= this share of S_11 + N_11
    n_gsn_draws: int = 60           #: eq. (4.3) on this many random draws,
    gsn_eta: float = 0.01           #: at this eta,
    gsn_tol: float = 1e-12          #: to this tolerance; a step on U
    gsn_lrs: tuple = (1e-3, 5e-4)   #: at these learning rates,
    gsn_ratio_band: tuple = (3.6, 4.4)  #: whose error must shrink by a factor in this band
    n_fig5_units: int = 300         #: initialisations at the Fig. 5 setting (frequency, stages, Figs. 17, 18)
    equal_signal_mu: float = 1.5    #: the equal-signal wrong model: both concepts at this mu (Fig. 5's mu_2)
    fig17_eta_wrong: float = 1.0    #: the wrong model of Fig. 17: steps on U with this eta (> 1 / a_max)
    fig18_later_max: float = 0.25   #: Fig. 18: at the peak of the size of w_12 the later major entry is at most this
    phase_d: int = 3                #: App. E.2 at a fixed w_ii(0) = d' tau^2: the dimension,
    phase_d_primes: tuple = (3, 12, 48)  #: the widths d',
    phase_w0: tuple = (0.01, 0.04, 0.16)  #: and the initial scales w_ii(0)


#: the rules every theory check reads
THEORY_RULES = TheoryRules()


@dataclasses.dataclass(frozen=True)
class OneLayerRules:
    """The thresholds of :mod:`swingby.theory.one_layer_checks`. One frozen instance, :data:`ONE_LAYER_RULES`."""

    gd_steps: tuple = (2e-3, 1e-3)     #: Euler step sizes; the error must halve with the step
    gd_horizon: float = 10.0           #: gradient-flow time of the comparison
    gd_error_max: float = 1e-3         #: largest output error at the finer step
    gd_ratio_band: tuple = (1.8, 2.2)  #: error ratio of the two steps (first order: 2)
    n_draws: int = 60                  #: independent random (W(0), mu, sigma) draws, d = 8
    trained_err_max: float = 0.03      #: trained path vs. its closed form, largest coordinate gap
    order_margin: float = 1.2          #: a setting is clear when max a_k > order_margin * min a_k
    n_order_seeds: int = 12            #: independent seeds per clear setting of Figs. 2(a)-(b)
    order_epochs: int = 12             #: epochs of the order runs (of 40; past every development seed's learning time)
    monotone_rel_tol: float = 1e-3     #: a rise above this share of the initial test loss ends a descent
    n_monotone: int = 200              #: initialisations of the monotone check


#: the rules the one-layer chapter's checks read
ONE_LAYER_RULES = OneLayerRules()


def values() -> dict:
    """:data:`THEORY_RULES` as a dict, :data:`ONE_LAYER_RULES` under ``"one_layer"``, as the register hashes them."""
    return {**dataclasses.asdict(THEORY_RULES), "one_layer": dataclasses.asdict(ONE_LAYER_RULES)}


class Frequency(NamedTuple):
    """Output of :func:`frequency`: a share of runs with its exact interval."""

    k: int             #: runs that show it
    n: int             #: runs
    percent: float     #: ``100 k / n``
    low: float         #: lower end of the exact interval, in %
    high: float        #: upper end, in %
    p_typical: float   #: one-sided binomial p that the share exceeds ``typical_fraction``


def frequency(k: int, n: int, rules: TheoryRules = THEORY_RULES) -> Frequency:
    """How often a phenomenon occurred: ``k`` of ``n`` runs, the Clopper-Pearson interval at
    ``ci_level`` and the exact binomial test of a share above ``typical_fraction``.

    Parameters
    ----------
    k, n, rules
        Runs that show it; runs; the thresholds.
    """
    n = _checks.positive_int("n", n)
    k = int(_checks.number("k", k, low=0, high=n))
    test = stats.binomtest(k, n, rules.typical_fraction, alternative="greater")
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=rules.ci_level, method="exact")
    return Frequency(k, n, 100.0 * k / n, 100.0 * ci.low, 100.0 * ci.high, float(test.pvalue))


def paired_p(first, second) -> float:
    """Two-sided exact McNemar p-value for two yes/no outcomes of the *same* units (e.g. the same
    seeds on two data sets); 1.0 when no pair is discordant.

    Parameters
    ----------
    first, second : array_like of bool
        The outcomes, one per unit.
    """
    try:
        n10, n01 = discordant_pairs(first, second)
    except ValueError as err:
        raise ValueError(str(err).replace("passes and null_passes", "first and second")) from None
    return sign_test_p(n10, n01, alternative="two-sided")


def ascent_groups(stages: Stages) -> list[list[tuple]]:
    """Per ascent, the minor entries ``(p, q)`` linking the ``k``-th major entry to grow with the later ones."""
    order = list(stages.growth_order) + list(stages.failed)
    return [[(min(order[k], q), max(order[k], q)) for q in order[k + 1:]] if k < len(stages.growth_order) else []
            for k in range(len(stages.ascents))]


def _timing_ok(t: np.ndarray, m: np.ndarray, t0: float, t1: float, lag: float) -> bool:
    """``m`` peaks at most ``lag`` durations before ``[t0, t1]`` and shrinks throughout it."""
    peak = t[int(np.argmax(m))]
    inside = (t >= t0) & (t <= t1)
    return bool(t0 - lag * (t1 - t0) <= peak <= t0 and inside.sum() >= 2 and np.all(np.diff(m[inside]) < 0))


def _minor_mass(record: SymmetricRecord, group: list) -> np.ndarray:
    return np.sum([np.abs(record.W[:, i, j]) for i, j in group], axis=0)


def suppression_timing(record: SymmetricRecord, stages: Stages,
                       rules: TheoryRules = THEORY_RULES) -> list[bool]:
    """Whether each ascent of the test loss is timed by a suppression (Sec. 4.2.2, App. E.1): the
    summed ``|w_ij|`` of its group (the minor entries linking the major entry that grew last with
    those not yet grown) peaks at most ``suppression_lag`` ascent-durations before the ascent starts,
    and shrinks at every record throughout it.

    Parameters
    ----------
    record, stages, rules
        A single trajectory; its :func:`~swingby.theory.stages.detect_stages`; the thresholds.
    """
    record = symmetric_record("record", record)
    _checks.instance("stages", stages, Stages, "swingby.theory.stages.Stages (from detect_stages)")
    return [bool(group) and _timing_ok(record.time, _minor_mass(record, group), seg.t_start, seg.t_end,
                                       rules.suppression_lag)
            for seg, group in zip(stages.ascents, ascent_groups(stages))]


def circular_shift(rng: np.random.Generator, n: int, shift_min: float) -> int:
    """A random circular shift of ``n`` records, at least ``shift_min`` of them from either end."""
    lo = max(1, int(shift_min * n))
    return int(rng.integers(lo, n - lo + 1)) if n - lo >= lo else 1


def shifted_minor(W: np.ndarray, seed: int, shift_min: float) -> np.ndarray:
    """``W`` ``(T, d, d)`` with its off-diagonal entries circularly shifted in time by one seeded shift."""
    k = circular_shift(np.random.default_rng(seed), W.shape[0], shift_min)
    off = ~np.eye(W.shape[-1], dtype=bool)
    out = W.copy()
    out[:, off] = np.roll(W, k, axis=0)[:, off]
    return out


def shifted_timing(record: SymmetricRecord, stages: Stages, seed: int, rules: TheoryRules = THEORY_RULES) -> float:
    """Share of ``n_shifts`` circular shifts of the minor entries (``>= shift_min``) under which every ascent passes."""
    rng = np.random.default_rng(seed)
    groups = ascent_groups(stages)
    if not stages.ascents or not all(groups):
        return 0.0
    passes = 0
    for _ in range(rules.n_shifts):
        k = circular_shift(rng, record.time.size, rules.shift_min)
        passes += all(_timing_ok(record.time, np.roll(_minor_mass(record, g), k), seg.t_start, seg.t_end,
                                 rules.suppression_lag) for seg, g in zip(stages.ascents, groups))
    return passes / rules.n_shifts
