"""Diffusion validation of paper Sec. 5 / App. G on a CPU: the model and its read-out.

Used by the chapters ``book/diffusion.md`` (Sec. 5, Fig. 6) and ``book/capability.md``
(the capability study built on the same sweep).

Here, the model and what defines a run:

* :mod:`.data`: the coloured-circles data and its prompts;
* :mod:`.unet`, :mod:`.vdm`: the conditional U-Net and the variational diffusion model;
* :mod:`.training`: one run's training loop, weight and gradient norms;
* :mod:`.presets`: the presets (``cpu``, ``paper``, ``tiny`` ...) and their checks;
* :mod:`.sweep`: a sweep's plan (checkpoints, repeats, where its files go), with no I/O;
* :mod:`.classifier`, :mod:`.concept_space`: the read-out of samples into concept space;
* :mod:`.rules`: the thresholds of every diffusion and capability check, fixed before the
  data; :mod:`.tables` holds the markdown helpers of their reports and
  :mod:`.rules_report` writes the report on the stored sweep
  (``python -m swingby.diffusion.rules_report``; it gathers :mod:`.fig6.report` and
  :mod:`swingby.capability.report`).

Subpackages:

* :mod:`.runs`: running and storing sweeps (evaluation, storage, the sweep driver,
  searches, executors, the code identity, the command line ``python -m swingby.diffusion``);
* :mod:`.fig6`: the analysis of Sec. 5 (Fig. 6) and its checks.

The presets, the training loop and the plan stay at this level (not in :mod:`.runs`):
the stored results are keyed by the code identity (:mod:`.runs.identity`), which hashes
the result-making definitions with the imports written inside them, and these name
``swingby.diffusion.presets``, ``.training`` and ``.sweep``.
"""
