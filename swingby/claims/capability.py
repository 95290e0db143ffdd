"""The claims of the capability chapter (the hidden-capabilities study, Park et al. 2024, Figs. 8 and 9),
registered before the confirmatory sweep that judges them, with :data:`DESIGN`, every constant their
checks read (:mod:`swingby.capability.confirm`). The stored ``cpu`` sweep they were developed on is
exploratory for them.
"""
from __future__ import annotations

import dataclasses

from swingby import _checks, verdicts
from swingby.verdicts import Claim

__all__ = ["CapabilityDesign", "DESIGN", "CLAIMS", "fingerprint"]


@dataclasses.dataclass(frozen=True)
class CapabilityDesign:
    """Every threshold, window, level and group of the capability checks."""

    reading: str = "classifier"   #: which reading counts a sample as blue and small (the study's classifier)
    level: float = 0.5            #: accuracy at which a capability is acquired or a behaviour elicited (study Fig. 3)
    late_window: int = 3          #: the late phase: the mean over the last this many checkpoints
    sustain: int = 3              #: a behaviour is elicited when a mean of this many consecutive checkpoints reaches level
    weak_max_dc: float = 0.3      #: separations up to this have weak colour signal (the study's Fig. 9: 0.25)
    strong_min_dc: float = 0.6    #: separations from this have strong colour signal


#: the design every check of :mod:`swingby.capability.confirm` reads
DESIGN = CapabilityDesign()


def check_design(design) -> CapabilityDesign:
    """``design`` if it is a :class:`CapabilityDesign`, else a ValueError naming it."""
    return _checks.instance("design", design, CapabilityDesign,
                            "swingby.claims.capability.CapabilityDesign (e.g. its DESIGN)")

_UNIT = ("the run (one colour separation and seed, its own randomness), at weak colour signal "
         "(dc <= {weak}); 16 on a sweep of 8 seeds at 0.175 and 0.247")
_PAIRED = ("behaviour read as capability: the same runs under the plain prompt only (paired, exact McNemar "
           "test on the discordant runs). A model without a hidden capability has a best prompt no better "
           "than its plain one, so its capability is its behaviour; over-prompting, the study's probe of the "
           "latent capability (App. B), is what it lacks. Not the study's account (which says the two differ) "
           "and not a replicate (other prompts, not other seeds)")

#: the chapter's registered claims, in the order of the chapter; the three parts of the claim box
#: ``claim-cap-robust`` (Figs. 8, 9) share its key and differ in form
CLAIMS: tuple[Claim, ...] = (
    Claim("claim-cap-robust", "study App. C, Fig. 9",
          "We see that all seeds acquire the capability while some never elicit the behavior.",
          "universal", _UNIT.format(weak=DESIGN.weak_max_dc),
          f"the run's capability (best joint accuracy over the plain and the over-prompts, {DESIGN.reading}) "
          f"averaged over its last {DESIGN.late_window} checkpoints is at least {DESIGN.level}: the late phase "
          "the claim is about, not a window that ends when every run reaches 0.9",
          _PAIRED, "design: swingby.claims.capability.DESIGN; check: swingby.capability.confirm.acquired"),
    Claim("claim-cap-robust", "study App. C, Fig. 9",
          "We see that all seeds acquire the capability while some never elicit the behavior.",
          "possibility", _UNIT.format(weak=DESIGN.weak_max_dc),
          f"the run acquires the capability (as in claim-cap-robust) and no mean of {DESIGN.sustain} consecutive "
          f"checkpoints of its behaviour (plain prompt) ever reaches {DESIGN.level}",
          f"the runs at strong colour signal (dc >= {DESIGN.strong_min_dc}), where the study has behaviour "
          "follow capability in every seed (Figs. 3, 7, 8: low seed spread at high colour separation): "
          "the seed dependence of behaviour is a weak-signal phenomenon by the study's own account",
          "design: swingby.claims.capability.DESIGN; check: swingby.capability.confirm.never_elicited"),
    Claim("claim-cap-robust", "study App. C, Fig. 8",
          "We find that for low Δ_{Color} the standard deviation remains high until 15,000 gradient steps.",
          "comparative", _UNIT.format(weak=DESIGN.weak_max_dc),
          f"in the late phase (last {DESIGN.late_window} checkpoints) the run's capability is closer to the "
          "median capability of the runs at its separation than its behaviour is to their median behaviour "
          "(a paired sign test: runs where only the capability is closer against runs where only the "
          "behaviour is)",
          "the capability as spread out over seeds as the behaviour (each run's deviations compared in "
          "pairs); the study's claim is that the capability is 'learned robustly independent of the seed'",
          "design: swingby.claims.capability.DESIGN; check: swingby.capability.confirm.late_spread"),
)


def fingerprint() -> str:
    """The fingerprint of the claims, the design and the verdict rule's constants."""
    return verdicts.fingerprint({"claims": CLAIMS, "design": DESIGN, "rule": verdicts.rule_constants()})
