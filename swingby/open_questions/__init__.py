"""Open questions of the paper answered by experiment (issue 27); chapter:
``book/open_questions.md``.

The modules, one per subject (import from them directly):

* :mod:`swingby.open_questions.rules`: every setting and threshold of the checks,
  frozen (with a fingerprint) before the runs that judge them.
* :mod:`swingby.open_questions.engine`: a batched SGD engine for inputs that differ from
  the targets (a normalisation layer), and the exact full-batch shortcut for linear
  networks (moment-matched points).
* :mod:`swingby.open_questions.experiments`: the sweeps of Q1 (initialisation scale),
  Q3 (full batch or mini-batches), Q4 (input normalisation) and Q5 (depth and width),
  their per-run measures and the stored results under ``results/open_questions/``
  (``python -m swingby.open_questions run [--only NAME]`` regenerates them).
* :mod:`swingby.open_questions.checks`: the claim checks, their nulls and the theory's
  prediction for normalised inputs.
"""
