"""Running and storing the diffusion sweeps (paper Sec. 5, App. G): evaluation, results files,
the sweep and its job executors, the measured searches for the ``cpu`` preset, the code
identity stored results are keyed by, and the command line (``python -m swingby.diffusion``).
"""
__all__ = []
