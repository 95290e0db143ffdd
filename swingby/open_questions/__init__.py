"""Open questions of the paper answered by experiment, each against a null, with every
setting and threshold fixed before its runs (``book/open_questions.md``,
``book/open_questions_training.md``, ``book/open_questions_diffusion.md``).
``python -m swingby.open_questions run [--only NAME]`` regenerates the stored sweeps;
``python -m swingby.open_questions diffusion-init`` trains Q1's diffusion contrast.
"""
__all__ = []
