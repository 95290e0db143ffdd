"""Diffusion validation of paper Sec. 5 / App. G on a CPU (``book/diffusion.md``, ``book/capability.md``):
the coloured-circles data, the conditional U-Net and variational diffusion model, training, the
presets, the read-out of samples into concept space; ``.runs`` runs and stores the sweeps
(``python -m swingby.diffusion``), ``.fig6`` analyses them.
"""
__all__ = []
