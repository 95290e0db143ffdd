"""Capability and behaviour of the held-out class (the hidden-capabilities study,
Park et al. 2024; used by the chapter ``book/capability.md``, ``ch-capability``).

*Behaviour* is the joint accuracy of class 11 (blue and small) under its plain prompt.
*Capability* is the best joint accuracy over prompts that ask for blue-small harder
(:func:`swingby.diffusion.data.capability_prompts`): a model has the capability when
*some* prompt elicits the composition. Both are measured by the classifier and by the
pixel check. The probes of App. D (embeddings, weight and gradient norms, the loss) are
read from what the sweep stores at every checkpoint.

The code lives in one module per subject; the chapter imports every name from here
(``from swingby.diffusion import capability as C``):

* :mod:`swingby.diffusion.capability_measures`: behaviour, capability, their 50 %
  crossing times and their seed-to-seed spread.
* :mod:`swingby.diffusion.capability_probes`: the concept-space turn of class 11, the
  embedding geometry, the training log and the transition step of any probe.
* :mod:`swingby.diffusion.capability_claims`: the claim checks (capability precedes
  behaviour, is more robust over seeds, predicts it linearly, coincides with a probe),
  each with the null it is calibrated against, and the fits and scores they rest on.
"""
from __future__ import annotations

from swingby.diffusion.capability_claims import (
    Lead, LinearFit, ProbeScore, capability_lead, coincidence_check, linear_check, linear_fit,
    noise_capability, permute_seeds, precedes_check, probe_score, rank_correlation,
    repeat_noise_ratio, robustness_check, spread_ratio, swap_curves,
)
from swingby.diffusion.capability_measures import (
    CLASS_11, CORNERS, TARGET_11, CrossingTimes, behaviour, capability, crossing_times,
    first_crossing, joint_accuracy, prompt_accuracies, prompt_labels, seed_std, time_mean,
)
from swingby.diffusion.capability_probes import (
    ConceptTurn, checkpoint_gap, class_points, concept_turn, embedding_disentanglement,
    embedding_parallelogram, final_mse, first_concept_index, loss_log, peak_step, transition_step,
)

__all__ = [
    "CLASS_11", "CORNERS", "ConceptTurn", "CrossingTimes", "Lead", "LinearFit", "ProbeScore",
    "TARGET_11", "behaviour", "capability", "capability_lead", "checkpoint_gap", "class_points",
    "coincidence_check", "concept_turn", "crossing_times", "embedding_disentanglement",
    "embedding_parallelogram", "final_mse", "first_concept_index", "first_crossing",
    "joint_accuracy", "linear_check", "linear_fit", "loss_log", "noise_capability", "peak_step",
    "permute_seeds", "precedes_check", "probe_score", "prompt_accuracies", "prompt_labels",
    "rank_correlation", "repeat_noise_ratio", "robustness_check", "seed_std", "spread_ratio",
    "swap_curves", "time_mean", "transition_step",
]
