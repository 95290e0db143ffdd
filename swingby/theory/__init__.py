"""The theory of Sec. 4 and App. C-E in concept coordinates (``A`` diagonal): the one-layer closed
form, stages and statistics of the symmetric model (:mod:`swingby.sim.symmetric`), the settings and
thresholds of the theory figures, the claim checks, the Jacobian of trained MLPs, and the figures."""
