"""Diffusion validation of paper Sec. 5 / App. G on a CPU (``book/diffusion.md``,
``book/capability.md``): the coloured-circles data (:mod:`.data`), the conditional U-Net
and the variational diffusion model (:mod:`.unet`, :mod:`.vdm`), training
(:mod:`.training`), the presets and a sweep's plan (:mod:`.presets`, :mod:`.sweep`), and
the read-out of samples into concept space (:mod:`.classifier`, :mod:`.concept_space`,
:mod:`.readouts`). :mod:`.runs` runs and stores the sweeps (``python -m swingby.diffusion``);
:mod:`.fig6` analyses them.
"""
__all__ = []
