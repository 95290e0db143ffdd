"""Every definition and threshold the diffusion and capability checks use, fixed before
the data they judge (issue 21, item 1; issue 22).

The checks of :mod:`swingby.diffusion.fig6.checks` (paper Fig. 6) and
:mod:`swingby.capability.checks` (the hidden-capabilities study) read their
thresholds only from :data:`RULES`; the older checks of :mod:`swingby.diffusion.fig6.claims`
and ``capability_*`` read theirs from :data:`OLD_RULES` (today's values, kept so that a
chapter can show a result under the old and the new rule side by side).

:func:`fingerprint` is a short hash of the values of :data:`RULES`. A sweep made after
these rules were fixed records it in its meta (``rules_fingerprint``); the test
``tests/test_rules.py`` fails if the rules change while a stored sweep carries an older
fingerprint. A later change of a rule therefore has to be made visibly: the chapter
shows the result under the old and the new rule.

The verdict words and the rule that maps a check's outcome to them
(:data:`VERDICT_RULE`, :func:`verdict`) are here too, so the status page can print them.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from typing import NamedTuple

from scipy import stats

#: the five verdict words, strongest first
VERDICTS = ("reproduced", "partly", "inconclusive", "differs", "not reproduced")

#: the rule that maps a check's outcome to a verdict word (printed on the status page)
VERDICT_RULE = (
    "reproduced: the check passes in at least `every_seed_fraction` of the seeds at the paper's settings "
    "(or a stated simplification), its null passes at most `alpha` of the time, and the seeds' pass count "
    "beats the null's pass rate in a binomial test at level `alpha`; "
    "partly: it passes in at least `partly_seed_fraction` of the seeds (or at some but not all settings) "
    "with a null that passes at most `alpha`; "
    "inconclusive: the read-out cannot decide, the null passes more than `alpha` of the time, or the "
    "sample is too small for the test to reach `alpha` (the record says how many seeds would); "
    "differs: the data show a significant effect of another direction or shape than the claim; "
    "not reproduced: the check could have passed at this sample size and fails.")


@dataclasses.dataclass(frozen=True)
class Rules:
    """The thresholds of the checks. One frozen instance, :data:`RULES`, is used."""

    # ------------------------------------------------------------------ general
    alpha: float = 0.05                #: largest null pass rate / p-value that counts as passing
    ci_level: float = 0.95             #: confidence level of every bootstrap interval
    n_null: int = 400                  #: null data sets per null pass rate
    n_resamples: int = 999             #: bootstrap resamples and permutations (scipy.stats)
    z: float = 2.0                     #: standard errors an excursion must exceed its sampling noise by
    every_seed_fraction: float = 1.0   #: share of seeds that makes "in every seed"
    partly_seed_fraction: float = 0.5  #: share of seeds that makes "partly"
    power: float = 0.8                 #: power asked of the "how many seeds would decide it" calculations
    learned_level: float = 0.5         #: concept contrast at which a concept counts as learned
    # ---------------------------------------------------------- swing (Fig. 6a)
    weak_dc: float = 0.3               #: separations up to this are the "weak colour signal" (size first)
    dip_fall: float = 0.15             #: P(blue) of class 11 must fall this far below its first trained checkpoint
    dip_recovery: float = 0.15         #: ... and then recover by this much (transient swing toward red small)
    swing_min: float = 0.5             #: smallest swing P(corner) - P(other) toward a training class
    # ------------------------------------------------------- MSE rise (Fig. 6b)
    disc_min_fraction: float = 0.5     #: a checkpoint is read only when this share of samples shows a disc
    disc_min_samples: int = 8          #: ... and at least this many samples do
    mse_min_rise: float = 0.05         #: smallest rise (and later fall) of the disc-only concept MSE
    # -------------------------------------------------------- slowing (Fig. 6c)
    #: the early speed must exceed this many of its noise floors (a stopped model's displacement over a
    #: window is Rayleigh with mean square floor^2: it exceeds 3 floors with probability exp(-9))
    moving_factor: float = 3.0
    #: the late speed must be within this many noise floors to count as stopped, and above it counts as
    #: moving, in the check and in the prose alike (a stopped model exceeds 2 floors with probability
    #: exp(-4) = 1.8 %)
    stopped_factor: float = 2.0
    min_drop: float = 5.0              #: smallest drop from the early speed to the late speed
    late_window: int = 3               #: intervals over which the early and the late speed are measured
    saturation_eps: float = 0.01       #: a point within this of 0 or 1 in both coordinates reads saturated
    reached_mse: float = 0.01          #: final concept MSE below which class 11 "reached its target"
    min_fit_points: int = 3            #: speeds above the floor a decay fit needs
    # ------------------------------------------------------------- capability
    crossing_level: float = 0.5        #: the accuracy level of capability and behaviour times
    crossing_levels: tuple = (0.5, 0.6, 0.7, 0.8)  #: levels scanned for robustness of the lead
    sustain_k: int = 3                 #: a crossing counts when the curve stays above for this many checkpoints
    min_lead_fraction: float = 0.125   #: "long before": lead of at least this share of the training budget
    min_lead_runs: float = 0.5         #: share of runs that must show that lead
    cap_saturation: float = 0.9        #: capability level that ends the spread-ratio window (every seed above)
    max_spread_ratio: float = 0.5      #: capability's seed spread at most this share of behaviour's
    blue_big_p: float = 0.9            #: pure-blue prompt reads blue big: P(blue) >= this and P(small) <= 1 - this
    loss_bump: float = 0.02            #: relative loss feature the Fig. 4 loss test must be able to see
    loss_window: int = 5               #: loss records either side of the capability time
    min_r: float = 0.5                 #: correlation that makes "closely related" (embedding, probes)


#: the rules every new check reads
RULES = Rules()


@dataclasses.dataclass(frozen=True)
class OldRules:
    """Today's thresholds of :mod:`~swingby.diffusion.fig6.claims`, ``capability_claims`` and
    the chapters, as they were when the rules were fixed (for old-versus-new tables)."""

    z: float = 2.0                     #: seed errors of the seed-mean bend and swing checks
    learned_level: float = 0.5         #: contrast that counts as learned (order, first learned checkpoint)
    swing_min: float = 0.5             #: smallest seed-mean swing
    n_null_order: int = 2000           #: label-swap null data sets of the order check
    n_null: int = 400                  #: null data sets of the other checks
    slowing_factor: float = 2.5        #: "moving" above, "stopped" within, this many noise floors
    min_drop: float = 5.0              #: smallest first-to-last late-speed drop
    reached_mse: float = 0.01          #: the chapter's "class 11 reached its target"
    crossing_level: float = 0.5        #: first (not sustained) crossing of capability and behaviour
    min_lead_fraction: float = 0.125   #: the chapter's MIN_LEAD = END / 8
    min_lead_runs: float = 0.5         #: precedes_check's min_fraction
    max_spread_ratio: float = 0.5      #: robustness_check over the whole of training
    linear_min_r2: float = 0.5         #: linear_check
    linear_min_n: int = 8              #: linear_check
    coincide_min_r: float = 0.5        #: coincidence_check
    coincide_min_fraction: float = 0.5  #: coincidence_check
    loss_max_spread: float = 0.25      #: the chapter's loss check: std(t_loss) / std(t_cap) below this
    n_boot: int = 2000                 #: bootstrap resamples of linear_fit
    n_perm: int = 2000                 #: shuffles of probe_score
    alpha: float = 0.05                #: largest null pass rate the chapters accept


#: today's rules, as the chapters use them before they move to :data:`RULES`
OLD_RULES = OldRules()


def values(rules=RULES) -> dict:
    """The rules as a plain dict of name to value (tuples as lists).

    Parameters
    ----------
    rules : Rules or OldRules
        Which rules.

    Returns
    -------
    dict
    """
    return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(rules).items()}


def fingerprint(rules=RULES) -> str:
    """A short sha256 (16 hex digits) of the rules' values, from the JSON of the sorted
    dict of :func:`values` (not from the file's bytes: a comment may change, a value not).

    Parameters
    ----------
    rules : Rules or OldRules
        Which rules (default: :data:`RULES`).

    Returns
    -------
    str
    """
    text = json.dumps({"class": type(rules).__name__, **values(rules)}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def changed(old=OLD_RULES, new=RULES) -> dict:
    """The rules present in both with different values: name to ``(old, new)``.

    Parameters
    ----------
    old, new : Rules or OldRules
        The two sets of rules.

    Returns
    -------
    dict
    """
    a, b = values(old), values(new)
    return {k: (a[k], b[k]) for k in sorted(set(a) & set(b)) if a[k] != b[k]}


def sweep_rules(meta: dict) -> str:
    """Which rules a stored sweep is judged by: ``"current"`` if its meta records today's
    :func:`fingerprint` (``rules_fingerprint``), ``"predates"`` if it records none (made
    before the rules were fixed: show it under :data:`OLD_RULES` and :data:`RULES`).

    Parameters
    ----------
    meta : dict
        ``res["meta"]`` of a stored sweep.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        If the sweep records another fingerprint: the rules changed after it was made.
    """
    if not isinstance(meta, dict):
        raise ValueError(f"meta must be a sweep's meta dict, got {type(meta).__name__}")
    made = meta.get("rules_fingerprint")
    if made is None:
        return "predates"
    if made != fingerprint():
        raise ValueError(f"the sweep was made under rules {made}, today's are {fingerprint()}: a rule changed "
                         "after the data; show the result under the old and the new rule")
    return "current"


# ----------------------------------------------------------------- verdicts
class Outcome(NamedTuple):
    """What a check found, in the terms the verdict rule reads."""

    n_pass: int              #: seeds (units) in which the check passes
    n_units: int             #: seeds (units) checked
    null_pass_rate: float    #: the share of null data sets (per unit) on which the check passes
    decidable: bool = True   #: False where the read-out cannot show the effect
    opposite: bool = False   #: a significant effect of another direction or shape was found


def binomial_p(n_pass: int, n_units: int, null_rate: float) -> float:
    """P-value of ``n_pass`` passing units out of ``n_units`` when each passes with the
    null's rate (one-sided binomial test, ``scipy.stats.binomtest``).

    Parameters
    ----------
    n_pass, n_units : int
        Passing and checked units.
    null_rate : float
        The null's pass rate per unit.

    Returns
    -------
    float
    """
    if n_units <= 0:
        return 1.0
    rate = min(max(float(null_rate), 1e-6), 1 - 1e-6)
    return float(stats.binomtest(int(n_pass), int(n_units), rate, alternative="greater").pvalue)


def seeds_needed(p_pass: float, null_rate: float, rules: Rules = RULES, max_n: int = 1000) -> int | None:
    """Fewest units at which a check passing in a share ``p_pass`` of them beats a null
    that passes at ``null_rate`` with the rules' ``alpha`` and ``power`` (exact binomial
    power). ``None`` if ``p_pass <= null_rate`` or more than ``max_n`` would be needed.

    Parameters
    ----------
    p_pass : float
        Share of units in which the check passes (as observed).
    null_rate : float
        The null's pass rate per unit.
    rules : Rules
        Supplies ``alpha`` and ``power``.
    max_n : int
        Largest sample size tried.

    Returns
    -------
    int or None
    """
    p0 = min(max(float(null_rate), 1e-6), 1 - 1e-6)
    if not p_pass > p0:
        return None
    for n in range(1, max_n + 1):
        crit = int(stats.binom.isf(rules.alpha, n, p0)) + 1   # smallest count with P(X >= c | p0) <= alpha
        if crit <= n and stats.binom.sf(crit - 1, n, p_pass) >= rules.power:
            return n
    return None


def runs_needed_for_r(r: float, rules: Rules = RULES) -> int | None:
    """Runs at which a correlation ``r`` reaches significance ``alpha`` (one-sided) with
    the rules' ``power`` (Fisher's z): ``((z_a + z_b) / atanh r)^2 + 3``.

    Parameters
    ----------
    r : float
        The observed correlation.
    rules : Rules
        Supplies ``alpha`` and ``power``.

    Returns
    -------
    int or None
        ``None`` for ``r <= 0``.
    """
    if not (r > 0) or r >= 1:
        return None if not r > 0 else 4
    za, zb = stats.norm.isf(rules.alpha), stats.norm.ppf(rules.power)
    return int(math.ceil(((za + zb) / math.atanh(r)) ** 2 + 3))


def verdict_rule_text(rules: Rules = RULES) -> str:
    """:data:`VERDICT_RULE` with the rules' values in place of their names, as the status
    page prints it (``tests/test_rules.py`` checks that the page holds this text).

    Parameters
    ----------
    rules : Rules
        Supplies ``alpha`` and the seed fractions.

    Returns
    -------
    str
    """
    if not isinstance(rules, Rules):
        raise ValueError(f"rules must be a Rules instance, got {type(rules).__name__}")
    text = VERDICT_RULE
    for name, value in (("every_seed_fraction", f"{rules.every_seed_fraction:.0%}"),
                        ("partly_seed_fraction", f"{rules.partly_seed_fraction:.0%}"),
                        ("alpha", f"{rules.alpha:g}")):
        text = text.replace(f"`{name}`", value)
    return text


def verdict(outcome: Outcome, rules: Rules = RULES) -> str:
    """The verdict word of :data:`VERDICT_RULE` for one check's outcome.

    Parameters
    ----------
    outcome : Outcome
        What the check found.
    rules : Rules
        Supplies the levels.

    Returns
    -------
    str
        One of :data:`VERDICTS`.
    """
    if outcome.opposite:
        return "differs"
    if not outcome.decidable or outcome.n_units == 0 or outcome.null_pass_rate > rules.alpha:
        return "inconclusive"
    if binomial_p(outcome.n_units, outcome.n_units, outcome.null_pass_rate) > rules.alpha:
        return "inconclusive"  # even a pass in every unit could not beat the null at this sample size
    share = outcome.n_pass / outcome.n_units
    p = binomial_p(outcome.n_pass, outcome.n_units, outcome.null_pass_rate)
    if share >= rules.every_seed_fraction and p <= rules.alpha:
        return "reproduced"
    if share >= rules.partly_seed_fraction and p <= rules.alpha:
        return "partly"
    if outcome.n_pass > 0 and p > rules.alpha:
        return "inconclusive"
    return "not reproduced"


def _verdict_words(words) -> list[str]:
    """``words`` as a list if it is a non-empty sequence of :data:`VERDICTS`, else a ValueError."""
    words = list(words)
    if not words or any(w not in VERDICTS for w in words):
        raise ValueError(f"words must be a non-empty sequence of {VERDICTS}, got {words!r}")
    return words


def combine(words) -> str:
    """One verdict for a claim checked at several settings (separations, readings), by
    the rule's "(or at some but not all settings)": every setting reproduced gives
    "reproduced"; some reproduced or partly, "partly"; otherwise "differs" if any
    setting differs, "not reproduced" if any setting could have passed and failed, and
    "inconclusive" if none could decide.

    Parameters
    ----------
    words : sequence of str
        The verdicts of the settings, each one of :data:`VERDICTS`.

    Returns
    -------
    str
        One of :data:`VERDICTS`.
    """
    words = _verdict_words(words)
    if all(w == "reproduced" for w in words):
        return "reproduced"
    if any(w in ("reproduced", "partly") for w in words):
        return "partly"
    for w in ("differs", "not reproduced"):
        if w in words:
            return w
    return "inconclusive"


def weakest(words) -> str:
    """One verdict for a row resting on several *different* checks (e.g. the slowing and
    its shape of Fig. 6(c)): the weakest word in the order of :data:`VERDICTS`, as the
    status page states. :func:`combine` (one check at several settings) joined such rows
    until 2026-11-26; the chapters show its word beside this one.

    Parameters
    ----------
    words : sequence of str
        The verdicts of the checks, each one of :data:`VERDICTS`.

    Returns
    -------
    str
        One of :data:`VERDICTS`.
    """
    words = _verdict_words(words)
    return max(words, key=VERDICTS.index)
