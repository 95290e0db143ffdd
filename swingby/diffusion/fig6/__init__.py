"""The analysis of paper Sec. 5 (Fig. 6) on a diffusion sweep, used by ``book/diffusion.md``.

* :mod:`.analysis`: class points in concept space and the shares of samples that show a
  disc or both concepts;
* :mod:`.confirm`: the registered checks of Fig. 6 (:mod:`swingby.claims.diffusion`) and
  their per-run read-outs; :mod:`.confirm_nulls`: their wrong models;
* :mod:`.power`: the positive control of the slowing check (Theorem 4.1's exponential
  approach);
* :mod:`.pixel_signal`: each concept's signal on the pixels;
* :mod:`.plots`, :mod:`.explorer`: the figures and the interactive explorer.
"""
__all__ = []
