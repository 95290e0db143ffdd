"""The analysis of paper Sec. 5 (Fig. 6) on a diffusion sweep, used by ``book/diffusion.md``:
``.analysis`` (class points in concept space, shares of samples with a disc or both concepts),
``.confirm`` (the registered checks of Fig. 6 and their per-run read-outs), ``.confirm_nulls``
(their wrong models), ``.power`` (the slowing check's positive control), ``.pixel_signal``
(each concept's signal on the pixels), ``.plots`` and ``.explorer`` (figures and explorer).
"""
__all__ = []
