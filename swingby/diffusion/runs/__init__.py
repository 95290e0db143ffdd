"""Running and storing the diffusion sweeps (paper Sec. 5, App. G): evaluation, results files, the sweep and its
executors, the searches for the ``cpu`` preset, the code identity, the command line (``python -m swingby.diffusion``).
"""
__all__ = []
