"""Open questions of the paper answered by experiment (issue 27); chapter:
``book/open_questions.md``.

The modules, one per subject (import from them directly):

* :mod:`swingby.open_questions.rules`: every setting and threshold of the checks,
  frozen (with a fingerprint) before the runs that judge them.
* :mod:`swingby.open_questions.engine`: a batched SGD engine for inputs that differ from
  the targets (a normalisation layer), and the exact full-batch shortcut for linear
  networks (moment-matched points).
* :mod:`swingby.open_questions.experiments`: the cells of Q1 (initialisation scale),
  Q3 (full batch or mini-batches), Q4 (input normalisation) and Q5 (depth and width),
  how one cell is trained, and the per-run measures of the observations chapter.
* :mod:`swingby.open_questions.theory`: the one-layer gradient flow under the
  (normalised) second-moment matrix of what the model sees (Q4).
* :mod:`swingby.open_questions.store`: the stored results under
  ``results/open_questions/`` with their code identity;
  ``python -m swingby.open_questions run [--only NAME]`` regenerates them.
* :mod:`swingby.open_questions.checks`: the claim checks, their nulls, the tests of a
  dependence and the status page's answers.
* :mod:`swingby.open_questions.alignment`: Q2 (early alignment of two-layer ReLU
  neurons): its settings, measures, claim, null and thresholds, fixed before its runs;
  :mod:`swingby.open_questions.alignment_stages`: its Jacobian measures and stages.
* :mod:`swingby.open_questions.alignment_runs`: Q2's runs (the weights and Jacobians
  recorded over training, a few seconds, made by the chapter itself) and its answer.
* :mod:`swingby.open_questions.diffusion_init`: Q1 in a diffusion model (default against
  a larger initialisation): its scale, separations, seeds, criterion and answer rule,
  fixed before its runs; :mod:`swingby.open_questions.diffusion_init_runs`: its runs
  (``python -m swingby.open_questions diffusion-init``) and their reader.
* :mod:`swingby.open_questions.figures`: the chapter's figures and explorer.
"""
