"""The thresholds the diffusion sweeps were made under, :data:`RULES`, frozen by the fingerprint every
stored sweep records (``rules_fingerprint``; ``tests/test_rules.py``). The registered checks read theirs
from :mod:`swingby.claims`; of these only ``blue_big_p`` (over-prompting, :mod:`swingby.capability.confirm`)
and ``swing_min`` (the explorer) are still read.
"""
from __future__ import annotations

import dataclasses

from swingby import verdicts

__all__ = ["Rules", "RULES", "fingerprint"]


@dataclasses.dataclass(frozen=True)
class Rules:
    """The thresholds of the diffusion and capability checks (one frozen instance, :data:`RULES`)."""

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
    moving_factor: float = 3.0         #: noise floors the early speed must exceed (a stop does with p = exp(-9))
    stopped_factor: float = 2.0        #: noise floors within which the late speed counts as stopped (p = exp(-4))
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


#: the rules the checks read
RULES = Rules()


def fingerprint(rules=RULES) -> str:
    """The short hash of the rules' values (:func:`swingby.verdicts.fingerprint`)."""
    return verdicts.fingerprint(rules)
