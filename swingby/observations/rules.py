"""Every threshold of the SIM observation checks (Sec. 3, App. B, App. F), fixed before the seeds that judge
them, in :data:`OBS_RULES` (its fingerprint is frozen by ``tests/test_observations_rules.py``)."""
from __future__ import annotations

import dataclasses
import math

__all__ = ["ObsRules", "OBS_RULES"]


@dataclasses.dataclass(frozen=True)
class ObsRules:
    """The thresholds of the SIM observation checks; one frozen instance, :data:`OBS_RULES`, is used."""

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
    null_mu: float = math.sqrt(10.0)   #: the null's equal signal mu_1 = mu_2, with the ||mu|| of (2, 4)
    # ------------------------------------------------------- Figs. 13, 14
    seeds_fig13: int = 60              #: independent seeds per mu of the three-layer d = 3 runs
    seeds_fig13_null: int = 60         #: seeds of its equal-signal null (mu = (null_mu13,) * 2)
    null_mu13: float = math.sqrt(2.5)  #: equal signal with the same ||mu|| as (1, 2)
    # ------------------------------------------------ topological order (App. B)
    topo_seeds: int = 5                #: independent seeds of the hypercube sweeps
    topo_min_share: float = 0.9        #: share of comparable pairs the learning-time order must hold in
    topo_level: float = 0.1            #: a test point is learned when its loss falls below this
    topo_null: str = "additive"        #: the null: an additive loss of the run's single-concept losses
    # --------------------------------------------------------- Fig. 16
    #: a linear model sees only the data's first two moments: "no copying of near points" needs a nonlinear one
    fig16_depth: int = 2
    fig16_activation: str = "relu"
    fig16_seeds: int = 5               #: seeds per wide configuration of the truncation twins
    fig16_max_delta: float = 0.1       #: largest trajectory distance / ||x_hat|| of a twin pair
    # ------------------------------- the register's fresh designs (swingby.claims.observations)
    order_units_per_config: int = 12   #: order (Sec. 3.1): fresh one-layer seeds per discriminating configuration
    null_units_per_config: int = 4     #: the same for the one-layer wrong models, which pass rarely
    two_slow_null_units_per_config: int = 2  #: the same per activation for two-layer normalised SGD
    slow_band_low: float = 0.05        #: slowing (Sec. 3.2): low edge of the band of ``terminal_slowing``
    slow_min_gradual: int = 2          #: fewest intervals in the band
    slow_null_lr: float = 0.01         #: step length of the normalised-SGD wrong model
    two_units_per_config: int = 5      #: Figs. 11, 12: fresh two-layer seeds per configuration and activation
    #: Fig. 3 (Sec. 3.3): fresh four-layer runs at low_d, with equal signal, at high_d, at d = 3 and 8 (shown)
    swing_units_low: int = 300
    swing_units_null: int = 300
    swing_units_high: int = 30
    swing_units_mid: int = 30
    #: Figs. 13, 14: fresh three-layer d = 3 runs per mu, and the comparator's two-layer d = 64 runs per mu
    fig13_units_per_mu: int = 150
    fig13_comparator_units_per_mu: int = 15
    #: null audit of the equal-signal model in the symmetric model of Sec. 4 (d = low_d)
    audit_runs: int = 200
    audit_steps: int = 4000
    audit_eta: float = 0.01
    audit_init_scale: float = 0.2


#: the rules every check of the SIM observation chapters reads
OBS_RULES = ObsRules()


def values() -> dict:
    """The values of :data:`OBS_RULES` by name (hashed into the claims register's fingerprint)."""
    return dataclasses.asdict(OBS_RULES)
