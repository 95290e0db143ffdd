"""The theory of Sec. 4 and App. C-E, one module per subject (``from swingby.theory.stages
import ...``); everything is in concept coordinates (``A`` diagonal).

* :mod:`~swingby.theory.one_layer`: Theorem 4.1, the one-layer closed form, with and without bias.
* :mod:`~swingby.theory.symmetric`, :mod:`~swingby.theory.simulation`: the symmetric model
  ``W = U U^T``, eq. (D.2), its split (4.3) and its simulation from many initialisations.
* :mod:`~swingby.theory.stages`, :mod:`~swingby.theory.statistics`: stages and descents of
  a trajectory, and how often they occur over seeds (App. E).
* :mod:`~swingby.theory.settings`, :mod:`~swingby.theory.rules`: Assumptions D.1-D.5, the
  settings of the theory figures, and the thresholds of the claim checks.
* :mod:`~swingby.theory.one_layer_checks`, :mod:`~swingby.theory.two_layer_checks`,
  :mod:`~swingby.theory.beyond_checks`, :mod:`~swingby.theory.beyond_init`: the claim checks.
* :mod:`~swingby.theory.trained_jacobian`, :mod:`~swingby.theory.jacobian_stages`,
  :mod:`~swingby.theory.jacobian_link`: the Jacobian link on trained MLPs.
* :mod:`~swingby.theory.figures`, :mod:`~swingby.theory.plots`,
  :mod:`~swingby.theory.explorer`, :mod:`~swingby.theory.claim_table`: figures and tables.
"""
