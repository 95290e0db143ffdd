"""The claims of the diffusion chapter (paper Sec. 5, Fig. 6), registered before the confirmatory
sweep that judges them, with :data:`DESIGN`, every constant their checks read
(:mod:`swingby.diffusion.fig6.confirm`, :mod:`swingby.diffusion.readouts`). The stored ``cpu``
sweep they were developed on is exploratory for them.
"""
from __future__ import annotations

import dataclasses

from swingby import _checks, verdicts
from swingby.verdicts import Claim

__all__ = ["DiffusionDesign", "DESIGN", "CLAIMS", "fingerprint"]


@dataclasses.dataclass(frozen=True)
class DiffusionDesign:
    """Every threshold, window, level and number of wrong-model units of the checks."""

    # ---------------------------------------------------------------- read-outs
    disc_min_contrast: float = 0.15     #: a disc deviates from the border median by at least this
    disc_background_ratio: float = 3.0  #: ... and by this many times the border's own 90th-percentile deviation
    disc_blob_share: float = 0.9        #: the disc mask's largest 8-connected blob holds this share of it
    disc_max_area: float = 0.6          #: ... and the mask covers at most this share of the image
    onset_share: float = 0.75           #: a checkpoint shows discs when this share of the run's images do
    sustain: int = 3                    #: checkpoints per mean, and of a sustained crossing or onset
    noise_floor: float = 0.01           #: smallest noise level of a run's coordinate (a saturated one reads 0)
    # ------------------------------------------------------------ groups of runs
    weak_max_dc: float = 0.3            #: separations up to this have weak colour signal (size stronger)
    strong_min_dc: float = 0.6          #: separations from this have strong colour signal
    # ------------------------------------------------------------------ Fig. 6(a)
    swing_min: float = 0.15             #: the fall and the recovery of P(blue) are each at least this
    z: float = 3.0                      #: ... and more than this many of their standard errors
    learned_level: float = 0.5          #: a coordinate is learned when it stays at or above this
    # ------------------------------------------------------------------ Fig. 6(b)
    mse_min_change: float = 0.05        #: the MSE's rise and fall are each at least this (and > z errors)
    # ------------------------------------------------------------------ Fig. 6(c)
    slow_drop: float = 5.0              #: peak speed of the last movement phase / late speed, at least
    graded_intervals: int = 2           #: moving intervals after the peak, each slower than the peak ...
    graded_fraction: float = 0.75       #: ... by this factor at least (a stop gives at most one such)
    logit_eps: float = 0.01             #: probabilities are clipped to [eps, 1 - eps] before the logit
    stop_fraction: float = 0.9          #: the constant-speed wrong model stops where the run has gone this far
    # ---------------------------------------------------------- wrong models
    n_null_units: int = 200             #: simulated units of each wrong model (unit u mimics run u mod n)
    null_seed: int = 35                 #: seeds the wrong models' draws
    null_width: tuple = (0.02, 0.3)     #: width range of the monotone paths' logistic, in sqrt(step) of the phase


#: the design every check of :mod:`swingby.diffusion.fig6.confirm` reads
DESIGN = DiffusionDesign()


def check_design(design) -> DiffusionDesign:
    """``design`` if it is a :class:`DiffusionDesign`, else a ValueError naming it."""
    return _checks.instance("design", design, DiffusionDesign,
                            "swingby.claims.diffusion.DiffusionDesign (e.g. its DESIGN)")

_D = DESIGN
_UNIT = ("the run (one colour separation and seed, its own randomness; runs are never grouped by seed label), "
         "read from its first disc checkpoint on")
_WHERE = "design: swingby.claims.diffusion.DESIGN; check: swingby.diffusion.fig6.confirm.{}"
_MONOTONE = (f"paths monotone in each concept coordinate (swingby.diffusion.fig6.confirm_nulls.monotone_paths), "
             f"{_D.n_null_units} simulated units, unit u mimicking run u mod n: from the run's start to its end, "
             "each coordinate on its own logistic in sqrt(step) (every L-shape included), with Gaussian noise at the "
             "run's own noise level. It is Theorem 4.1's one-layer model, whose directions learn independently and "
             "monotonically and which the paper says cannot show Transient Memorization (Sec. 4.1)")

#: the chapter's registered claims, in the order of the chapter
CLAIMS: tuple[Claim, ...] = (
    Claim("claim-diff-order", "Sec. 5, Fig. 6(a)",
          "Specifically, we see that the order of compositional generalization is determined by the color "
          "concept signal, and can be reversed when we tuning the concept signal.",
          "comparative", _UNIT + f"; weak colour signal dc <= {_D.weak_max_dc} against strong dc >= "
          f"{_D.strong_min_dc} (16 and 8 runs on a sweep of 8 seeds at 0.175, 0.247 and 0.689)",
          f"class 11's own P(small) makes a sustained crossing of {_D.learned_level} ({_D.sustain} consecutive "
          "checkpoints at or above it) before its P(blue) does (size first); a one-sided Fisher test that "
          "size comes first more often at weak than at strong colour signal",
          "the comparator is the strong-signal group: an order that does not depend on the colour signal "
          "would put size first equally often in both",
          _WHERE.format("first_concept")),
    Claim("claim-diff-swing", "Sec. 5, Fig. 6(a)",
          "Additionally, Fig. 6 (a) along with the corresponding loss curve plot Fig. 6 (b) also shows Transient "
          "Memorization where the generalization dynamics show a bend towards the concept with stronger signal; "
          "the bend is transient and the generation eventually converges to the correct class (small blue "
          "circle), and the corresponding test loss curve shows a double-descent-like trend.",
          "typical", _UNIT + f"; at weak colour signal (dc <= {_D.weak_max_dc}), where size has the stronger "
          "signal and the bend is toward red small",
          f"class 11's P(blue) falls and then recovers: means of {_D.sustain} consecutive checkpoints before, at "
          f"and after the trough (disjoint), the fall and the recovery each at least {_D.swing_min} and more than "
          f"{_D.z} standard errors at the run's own noise level",
          _MONOTONE, _WHERE.format("swing")),
    Claim("claim-diff-bend", "Sec. 5, Fig. 6(b)",
          "(b) A double-descent-like curve for the concept space MSE caused by Transient Memorization.",
          "typical", _UNIT + f"; at weak colour signal (dc <= {_D.weak_max_dc}), as the swing",
          f"class 11's concept-space MSE to (1, 1) rises and then falls: the valley of the swing on the negated "
          f"MSE, rise and fall each at least {_D.mse_min_change} and more than {_D.z} standard errors",
          _MONOTONE + "; its MSE can still rise and fall (one coordinate moving away before the other moves "
          "toward the target)", _WHERE.format("mse_bump")),
    Claim("claim-diff-slow", "Sec. 5, Fig. 6(c)",
          "Fig. 6 (c) confirms that the speed of compositional generalization, quantified by the concept space "
          "traversal distance per step, decelerates at an exponential rate, as expected from our theoretical "
          "findings (Theorem 4.1).",
          "typical", _UNIT + "; every separation (32 runs on a sweep of 4 x 8)",
          f"on means of {_D.sustain} checkpoints: the peak speed of the last movement phase (intervals faster "
          f"than {_D.z} noise floors) is at least {_D.slow_drop} times the late speed; at least "
          f"{_D.graded_intervals} moving intervals after the peak are slower than it by {_D.graded_fraction} "
          "(graded, not a stop); and the same drop holds in the classifier's logits (not a saturating read-out)",
          f"two, {_D.n_null_units} units each, judged against the one that passes more often: (i) the run's "
          f"displacement at constant speed, stopping where the run has gone {_D.stop_fraction} of its way "
          "(no deceleration); (ii) each coordinate's logit drifting at a constant rate through the run's start and "
          "its point at that stop, read through the sigmoid (never slows; a saturating read-out's speed "
          "p(1 - p) decays exponentially). Neither has Theorem 4.1's exponential convergence of the model",
          _WHERE.format("slowing")),
)


def fingerprint() -> str:
    """The fingerprint of the claims, the design and the verdict rule's constants."""
    return verdicts.fingerprint({"claims": CLAIMS, "design": DESIGN, "rule": verdicts.rule_constants()})
