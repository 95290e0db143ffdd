"""The theory of Sec. 4 and App. C-E in concept coordinates (``A`` diagonal), one module per
subject: the one-layer closed form (the symmetric model ``U U^T`` and its simulation are
:mod:`swingby.sim.symmetric`, which the observations use too), stages and
statistics (:mod:`~swingby.theory.stages`), the settings and thresholds of the theory figures
(:mod:`~swingby.theory.settings`, :mod:`~swingby.theory.rules`), the claim checks (``*_checks``,
``beyond_init``), the Jacobian of trained MLPs (``*jacobian*``), and figures and tables.
"""
