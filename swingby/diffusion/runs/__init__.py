"""Running and storing the diffusion sweeps (paper Sec. 5, App. G): a run's evaluation
(:mod:`.evaluation`), the results files (:mod:`.storage`), the sweep (:mod:`.driver`) and
its job executors (:mod:`.executors`), the measured searches for the ``cpu`` preset
(:mod:`.search`, :mod:`.position_search`, :mod:`.long_search`, :mod:`.precision_check`),
the code identity stored results are keyed by (:mod:`.identity`), and the command line
(:mod:`.cli`, ``python -m swingby.diffusion``).
"""
__all__ = []
