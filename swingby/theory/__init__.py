"""The theory of Sec. 4 and App. C-E: one-layer closed form, symmetric two-layer dynamics.

* :func:`one_layer_output`: Theorem 4.1 (eq. 4.2), gradient flow of a one-layer
  linear model on the loss (4.1) with ``A = diag(a)``, in closed form.
* :func:`symmetric_step`, :func:`gsn_terms`, :func:`simulate_symmetric`: the discrete
  dynamics (D.2) of the Jacobian ``W = U U^T`` of the symmetric two-layer model and its
  entrywise split (4.3) into growth ``G``, suppression ``S`` and noise ``N``.
* :func:`detect_stages`: growth / suppression stages and the descents and ascents of
  the test loss of a simulated trajectory (Sec. 4.2.1-4.2.2, App. E.1).
* :func:`stage_alignment`: whether the stages of the weights line up with the descents
  of the test loss (Sec. 4.2.2, App. E.1).
* :func:`check_assumptions`: which of Assumptions D.1-D.5 hold, and by how much.
* :func:`u_step_to_w_eta`: the time-scale factor between gradient descent on ``U`` and
  eq. (D.2).
* :func:`one_layer_output_with_bias`: Theorem 4.1 for the authors' ``nn.Linear`` with a
  bias (augmented input ``(x, 1)``), with :func:`mean_vector` and :func:`augmented_moment`.
* :func:`population_loss`: the loss (4.1) along a trajectory.
* :func:`initial_U`, :func:`descent_statistics`: many initialisations at once, for the
  seed statistics of App. E (how often multiple descents and failures occur).
* :func:`authors_a`, :func:`dynamics_a`: the diagonal ``a`` that the dynamics run with.
  ``matrix="paper"`` is eq. (C.13) (the paper's (D.2)); ``matrix="authors"`` is what the
  authors' theory scripts iterate (the figures of Sec. 4.2 and App. E): (D.2) with ``A``
  replaced by ``A^2``, ``A = diag(x_hat^2 / s + sigma^2)``. Since (D.2) is linear in
  ``A``, that is the paper's dynamics for other data: :func:`equivalent_mu` gives the
  ``mu`` whose eq. (C.13) has the same ratios.
* :mod:`swingby.theory.rules`: every definition and threshold of the theory chapters'
  claim checks, fixed before the runs that judge them (issue 23).

Everything is in *concept coordinates* (``A`` diagonal); ``a`` is the vector of
:func:`swingby.sim.data.second_moment`. Chapters: ``book/one_layer_theory.md``,
``book/two_layer_theory.md``, ``book/beyond_two_concepts.md``.

The code lives in one module per subject; every name is imported from here
(``from swingby.theory import ...``):

* :mod:`swingby.theory.one_layer`: the one-layer closed form (Sec. 4.1, App. C.2).
* :mod:`swingby.theory.symmetric`: the symmetric model and eq. (D.2), and
  :mod:`swingby.theory.simulation` its simulation,
  the matrix ``a`` and the initial ``U`` (Sec. 4.2, App. D).
* :mod:`swingby.theory.stages`: stage detection, descents, their alignment with the
  growth of the weights, escape times (Sec. 4.2.1-4.2.2, App. E).
* ``swingby.theory.statistics``: descents and failures over many seeds, the phase
  diagram (App. E.1-E.3), and :func:`phase_diagram_scale`, which holds the initial
  scale ``d' tau^2`` fixed while the width ``d'`` varies.
* :mod:`swingby.theory.settings`: Assumptions D.1-D.5 and the settings of the paper's
  theory figures (:data:`THEORY_SETTINGS`).
* :mod:`swingby.theory.figures`: figures that draw several runs side by side (not
  imported here, so that the theory does not need matplotlib).
* ``swingby.theory._args``: the argument checks the modules share.
"""
from __future__ import annotations

from swingby.theory.one_layer import (
    OneLayerOutput,
    augmented_moment,
    mean_vector,
    one_layer_output,
    one_layer_output_with_bias,
)
from swingby.theory.settings import (
    THEORY_SETTINGS,
    AssumptionConstants,
    AssumptionReport,
    Inequality,
    StagedRun,
    TheorySetting,
    check_assumptions,
)
from swingby.theory.simulation import (  # noqa: F401 - _single_record for swingby.theory.plots
    SymmetricRecord,
    _single_record,
    initial_U,
    simulate_symmetric,
)
from swingby.theory.stages import (
    Growth,
    LossSegment,
    StageAlignment,
    Stages,
    count_descents,
    detect_stages,
    escape_time,
    growth_in_descents,
    loss_turning_points,
    shrink_fraction,
    stage_alignment,
)
from swingby.theory.statistics import (
    DescentStats,
    PhaseDiagram,
    ScalePhaseDiagram,
    descent_statistics,
    phase_diagram,
    phase_diagram_scale,
)
from swingby.theory.symmetric import (
    GSN,
    MATRICES,
    EquivalentMu,
    authors_a,
    dynamics_a,
    equivalent_mu,
    gsn_terms,
    population_loss,
    symmetric_step,
    u_step_to_w_eta,
)

__all__ = [
    "AssumptionConstants", "AssumptionReport", "DescentStats", "EquivalentMu", "GSN", "Growth", "Inequality", "LossSegment",
    "MATRICES", "OneLayerOutput", "PhaseDiagram", "StageAlignment", "StagedRun", "Stages", "SymmetricRecord",
    "THEORY_SETTINGS", "TheorySetting", "augmented_moment", "authors_a", "check_assumptions", "count_descents",
    "descent_statistics", "detect_stages", "dynamics_a", "equivalent_mu", "escape_time", "growth_in_descents", "gsn_terms",
    "initial_U", "loss_turning_points", "mean_vector", "one_layer_output", "one_layer_output_with_bias",
    "phase_diagram", "phase_diagram_scale", "population_loss", "ScalePhaseDiagram", "shrink_fraction", "simulate_symmetric", "stage_alignment",
    "symmetric_step", "u_step_to_w_eta",
]
