"""Open questions of the paper answered by experiment, each against a null, with every setting and
threshold fixed before its runs (``book/open_questions.md``, ``book/open_questions_training.md``,
``book/open_questions_diffusion.md``); ``python -m swingby.open_questions`` makes the stored runs.
"""
__all__ = []
