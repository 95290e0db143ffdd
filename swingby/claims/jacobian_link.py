"""The claim of the jacobian_link chapter (Sec. 4.2.2 on trained networks), registered before the fresh runs
that judge it; its ``design`` renders :data:`LINK` and the stage rules of
:data:`swingby.theory.trained_jacobian.JACOBIAN_RULES`."""
from __future__ import annotations

import dataclasses

from swingby.theory.rules import THEORY_RULES
from swingby.theory.trained_jacobian import FIG13_SETTING, JACOBIAN_RULES
from swingby.verdicts import Claim

__all__ = ["LINK", "CLAIMS"]

#: the judged networks: three linear layers, width 3, at the setting of the paper's Fig. 13
#: (FIG13_SETTING), fresh seeds start .. start + n_seeds - 1 (one run each; the wrong model
#: is the same runs with their minor entries shifted by at least shift_min); the other architectures are shown, not
#: judged (the paper makes no claim about them: it names ReLU networks as future work,
#: App. E.4), architecture k of explore on fresh seeds explore_start + k * explore_seeds ..
LINK = dict(depth=3, activation="linear", n_seeds=300, start=520000,
            explore=((2, "linear"), (2, "relu"), (3, "relu")), explore_seeds=120, explore_start=520300,
            shift_min=THEORY_RULES.shift_min)


def _constants() -> str:
    """The design constants and the stage rules, as registered text."""
    values = dict(LINK, rules=dataclasses.asdict(JACOBIAN_RULES), setting=FIG13_SETTING)
    return "constants: " + ", ".join(f"{k}={v!r}" for k, v in sorted(values.items()))


#: the chapter's registered claims, in the order of the chapter
CLAIMS: tuple[Claim, ...] = (
    Claim(
        key="claim-jac-link",
        section="Sec. 4.2.2 (and Sec. 1), tested on the trained networks of Fig. 13",
        quote=("We show that each stage in the Transient Memorization precisely corresponds to each "
               "stage in the Jacobian evolution."),
        form="typical",
        unit=("a three-layer linear network (fresh seed: its data and initialisation) whose output "
              "at x_hat swings by (its OOD test loss rises by more than rise_min and falls back)"),
        check=("swingby.theory.jacobian_stages.stage_check with the run's own Jacobian at x_hat: the "
               "stronger major entry grown before the output's weak coordinate ends its fall, the "
               "minor entry w_ws peaking within peak_tol (log time) of the turn and suppressed, "
               "w_ws decreasing over shrink_min of the fall, the weaker major entry growing after it"),
        wrong_model=("the same run's Jacobian with its off-diagonal entries circularly shifted in time "
                     "(over the log-spaced records) by one shift per run, drawn from the run's seed, at "
                     "least shift_min of the record from either end (swingby.theory.jacobian_link."
                     "shifted_minor_null): it keeps the output stages, the major entries and the minor "
                     "entry's shape and suppression, and can pass every condition, but lacks what Sec. "
                     "4.2.2 names as the mechanism, the minor entry's peak timed at the output's turn; "
                     "paired, exact McNemar test"),
        design=("judged: the three-layer linear networks (fresh seeds start ..); wrong model from the "
                "same runs; the architectures of explore shown, not judged, architecture k on fresh "
                "seeds explore_start + k * explore_seeds ..; " + _constants()),
    ),
)
