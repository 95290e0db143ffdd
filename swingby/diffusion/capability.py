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
  crossing times, their seed-to-seed spread, and the sampling noise of repeated draws.
* :mod:`swingby.diffusion.capability_probes`: the concept-space turn of class 11, the
  embedding geometry, the training log and the transition step of any probe.
* :mod:`swingby.diffusion.capability_claims`: the claim checks, each with the null it
  is calibrated against, and the fits and scores they rest on.

The claim checks of the chapter (it reports how often each passes on its null):

* **precedes** (:func:`precedes_check`): capability crosses 50 % well before behaviour.
  Null: prompts that change nothing, i.e. capability as the best of repeated draws at
  the plain prompt's accuracy (:func:`noise_capability`).
* **seed-robust** (:func:`robustness_check`): the seed-to-seed spread of capability is
  well below that of behaviour. Null: the two curves of each run swapped at random
  (:func:`swap_curves`).
* **linear relation** (:func:`linear_check`): behaviour time is a line in capability
  time. Null: the behaviour times shuffled among the runs (:func:`permute_seeds`).
* **coincide** (:func:`coincidence_check`): a probe's transition step tracks the
  capability time run by run. Null: the probe's steps shuffled among the seeds of each
  separation (:func:`permute_seeds`).
"""
from __future__ import annotations

from swingby.diffusion.capability_claims import (
    Lead,
    LinearFit,
    ProbeScore,
    capability_lead,
    coincidence_check,
    coincidence_with_null,
    lead_null,
    linear_check,
    linear_fit,
    noise_capability,
    precedes_check,
    probe_score,
    robustness_check,
    swap_curves,
)
from swingby.diffusion.capability_measures import (
    CLASS_11,
    CORNERS,
    TARGET_11,
    CrossingTimes,
    behaviour,
    capability,
    crossing_times,
    first_crossing,
    joint_accuracy,
    median_seed,
    permute_seeds,
    prompt_accuracies,
    prompt_labels,
    rank_correlation,
    repeat_noise_ratio,
    seed_std,
    spread_ratio,
    time_mean,
)
from swingby.diffusion.capability_probes import (
    ConceptTurn,
    checkpoint_gap,
    class_points,
    concept_turn,
    embedding_disentanglement,
    embedding_parallelogram,
    final_mse,
    first_concept_index,
    loss_log,
    peak_step,
    transition_step,
)

__all__ = [
    # capability_measures
    "CLASS_11", "CORNERS", "TARGET_11", "joint_accuracy", "behaviour", "prompt_accuracies",
    "capability", "prompt_labels", "first_crossing", "CrossingTimes", "crossing_times",
    "repeat_noise_ratio", "seed_std", "time_mean", "spread_ratio", "median_seed",
    # capability_probes
    "class_points", "first_concept_index", "ConceptTurn", "concept_turn", "final_mse",
    "embedding_disentanglement", "embedding_parallelogram", "loss_log", "transition_step",
    "peak_step", "checkpoint_gap",
    # capability_claims
    "Lead", "capability_lead", "precedes_check", "noise_capability", "robustness_check",
    "swap_curves", "LinearFit", "linear_fit", "linear_check",
    "permute_seeds", "rank_correlation", "ProbeScore", "probe_score", "coincidence_check",
    "lead_null", "coincidence_with_null",
]
