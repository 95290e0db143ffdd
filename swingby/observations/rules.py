"""Every definition and threshold of the SIM observation checks (Sec. 3, App. B, App. F),
fixed before the seeds that judge them.

The claim checks of ``book/observations.md``, ``book/topological_order.md`` and
``book/ood_checks.md`` read their thresholds, seed counts and null settings only from
:data:`OBS_RULES`. :data:`OLD_OBS_RULES` keeps the thresholds the chapters used before
(some of them set after the data they judged), so that a chapter can show a result
under the old and the new rule side by side.

:func:`fingerprint` is a short hash of the values of :data:`OBS_RULES`;
``tests/test_observations_rules.py`` fails when a value changes, so a later change has
to be made visibly (the chapter then shows both results).

The verdict words and the rule that maps a check's outcome to them are those of
:mod:`swingby.diffusion.rules` (:data:`~swingby.diffusion.rules.VERDICT_RULE`,
:func:`~swingby.diffusion.rules.verdict`), re-exported here.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import math

from swingby.diffusion.rules import (  # noqa: F401  (re-exported for the chapters)
    RULES,
    VERDICT_RULE,
    VERDICTS,
    Outcome,
    binomial_p,
    seeds_needed,
    verdict,
)


@dataclasses.dataclass(frozen=True)
class ObsRules:
    """The thresholds of the SIM observation checks. One frozen instance,
    :data:`OBS_RULES`, is used."""

    # ------------------------------------------------------------------ general
    alpha: float = 0.05                #: level of every test, and the largest null pass rate that counts
    power: float = 0.8                 #: power asked of "how many seeds would decide it"
    seeding: str = "independent"       #: every (configuration, seed) run draws its own streams
    # ------------------------------------------------------- order (Sec. 3.1)
    order_margin: float = 1.2          #: a run is "clear" when max(a) > this * min(a)
    order_time_ratio: float = 1.2      #: the later learning time must exceed the earlier by this factor
    order_seeds: int = 5               #: independent seeds per configuration of the one-layer sweep
    # ------------------------------------------------------ slowing (Sec. 3.2)
    slowdown_one: float = 0.02         #: late / largest displacement, one layer
    slowdown_two: float = 0.05         #: late / largest displacement, two layers
    # --------------------------------------------------------- reach (Sec. 3)
    reach_one: float = 0.05            #: one layer: mean final distance / ||x_hat|| below this
    reach_deep: float = 0.01           #: four layers: median final distance / ||x_hat|| below this
    stop_short: float = 0.1            #: "stops short": final distance / ||x_hat|| above this
    # ------------------------------------------------ swing-by (Sec. 3.3, Fig. 3)
    rise: float = 0.05                 #: rho_0: a run is non-monotone when its rise exceeds this
    low_d: int = 2                     #: the paper's low dimension (Fig. 3)
    high_d: int = 64                   #: the paper's high dimension (Fig. 3)
    seeds_low: int = 100               #: independent four-layer seeds at low_d
    seeds_high: int = 20               #: independent four-layer seeds at high_d (the costly runs)
    seeds_mid: int = 30                #: seeds at d = 3 and 8 (shown, not judged)
    #: the null: the same four-layer model at low_d on data whose two concepts carry equal
    #: signal (mu_1 = mu_2 with the same ||mu|| as (2, 4)): no strongest cluster to swing to
    null_mu: float = math.sqrt(10.0)
    # ------------------------------------------------------- Figs. 13, 14
    seeds_fig13: int = 60              #: independent seeds per mu of the three-layer d = 3 runs
    seeds_fig13_null: int = 60         #: seeds of its equal-signal null (mu = (null_mu13,) * 2)
    null_mu13: float = math.sqrt(2.5)  #: equal signal with the same ||mu|| as (1, 2)
    # ------------------------------------------------ topological order (App. B)
    topo_seeds: int = 5                #: independent seeds of the hypercube sweeps
    topo_min_share: float = 0.9        #: share of comparable pairs the learning-time order must hold in
    topo_level: float = 0.1            #: a test point is learned when its loss falls below this
    #: the null: an *additive* loss built from the same run's single-concept losses. As
    #: committed first, the comment said l(0) + sum (l(e_p) - l(0)) ("origin"); the
    #: chapter uses sum l(e_p) ("sum", the model of its exercise) and shows both
    topo_null: str = "additive"
    # --------------------------------------------------------- Fig. 16
    #: a linear model of any depth sees only the data's first and second moments, so the
    #: check of "no copying of near points" needs a nonlinear one: two-layer ReLU
    fig16_depth: int = 2
    fig16_activation: str = "relu"
    fig16_seeds: int = 5               #: seeds per wide configuration of the truncation twins
    fig16_max_delta: float = 0.1       #: largest trajectory distance / ||x_hat|| of a twin pair
    # ------------------------------- the register's fresh designs (swingby.claims.observations)
    #: order (Sec. 3.1): fresh one-layer seeds per discriminating configuration
    order_units_per_config: int = 12
    #: seeds per configuration of the one-layer wrong models (diversity removed; normalised
    #: SGD): both pass rarely on the old seeds, so fewer units decide
    null_units_per_config: int = 4
    #: seeds per configuration and activation of the two-layer normalised-SGD wrong model
    two_slow_null_units_per_config: int = 2
    #: slowing (Sec. 3.2): band of :func:`~swingby.observations.slowing.terminal_slowing`
    slow_band_low: float = 0.05
    slow_min_gradual: int = 2          #: fewest intervals in the band
    slow_null_lr: float = 0.01         #: step length of the normalised-SGD wrong model
    #: Figs. 11, 12: fresh two-layer seeds per discriminating configuration and activation
    two_units_per_config: int = 5
    #: Fig. 3 (Sec. 3.3): fresh four-layer runs at low_d, of the equal-signal model at
    #: low_d, at high_d, and at d = 3 and 8 (shown, not judged)
    swing_units_low: int = 300
    swing_units_null: int = 300
    swing_units_high: int = 30
    swing_units_mid: int = 30
    #: Figs. 13, 14: fresh three-layer d = 3 runs per mu, and two-layer linear d = 64 runs
    #: per mu (the paper's comparator, Figs. 11, 12)
    fig13_units_per_mu: int = 150
    fig13_comparator_units_per_mu: int = 15
    #: null audit of the equal-signal model in the symmetric model of Sec. 4 (d = low_d)
    audit_runs: int = 200
    audit_steps: int = 4000
    audit_eta: float = 0.01
    audit_init_scale: float = 0.2


#: the rules every check of the SIM observation chapters reads
OBS_RULES = ObsRules()


@dataclasses.dataclass(frozen=True)
class OldObsRules:
    """The thresholds the chapters used before :data:`OBS_RULES` (for old-versus-new
    tables). Several were set after the data they judged: ``fig13_min_fraction`` went
    from 0.1 to 0.05 in the same change that pooled ``d = 2, 3, 8`` and deleted the
    assertion that swing-by falls with ``d``."""

    rise: float = 0.05                       #: rho_0 (unchanged)
    swingby_min_fraction: float = 0.1        #: least non-monotone share at every pooled low d
    swingby_low_d: tuple = (2, 3, 8)         #: the pooled low dimensions
    swingby_decreasing: bool = True          #: the deleted "falls with d" assertion
    fig13_min_fraction: float = 0.05         #: the last Fig. 13 threshold (0.1 before it)
    fig13_min_fraction_first: float = 0.1    #: the first Fig. 13 threshold
    seeds_shared: bool = True                #: seed k gave every configuration the same streams
    alpha: float = 0.05                      #: permutation-test level


#: the chapters' thresholds before issue 23
OLD_OBS_RULES = OldObsRules()


def values(rules=OBS_RULES) -> dict:
    """The rules as a plain dict of name to value (tuples as lists).

    Parameters
    ----------
    rules : ObsRules or OldObsRules
        Which rules.

    Returns
    -------
    dict
    """
    if not isinstance(rules, (ObsRules, OldObsRules)):
        raise ValueError(f"rules must be an ObsRules or OldObsRules, got {type(rules).__name__}")
    return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(rules).items()}


def fingerprint(rules=OBS_RULES) -> str:
    """A short sha256 (16 hex digits) of the rules' values (the JSON of the sorted
    dict of :func:`values`, so a comment may change, a value not).

    Parameters
    ----------
    rules : ObsRules or OldObsRules
        Which rules (default: :data:`OBS_RULES`).

    Returns
    -------
    str
    """
    text = json.dumps({"class": type(rules).__name__, **values(rules)}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
