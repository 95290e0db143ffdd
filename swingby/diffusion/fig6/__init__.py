"""The analysis of paper Sec. 5 (Fig. 6) on a diffusion sweep for ``book/diffusion.md``: read-outs
(``.analysis``), the registered checks (``.confirm``), their wrong models
(``.confirm_nulls``) and positive control (``.power``), figures and explorer (``.plots``, ``.explorer``).
"""
__all__ = []
