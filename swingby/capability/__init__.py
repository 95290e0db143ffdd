"""Capability and behaviour of the held-out class (the hidden-capabilities study, Park et
al. 2024) on the diffusion sweep of :mod:`swingby.diffusion`; used by the chapter
``book/capability.md`` (``ch-capability``).

*Behaviour* is the joint accuracy of class 11 (blue and small) under its plain prompt.
*Capability* is the best joint accuracy over prompts that ask for blue-small harder
(:func:`swingby.diffusion.data.capability_prompts`).

* :mod:`.measures`: behaviour, capability, their 50 % crossing times and the sampling
  noise of repeated draws;
* :mod:`.spread`: their seed-to-seed spread, seed permutations and rank correlations;
* :mod:`.probes`: the concept-space turn of class 11, the embedding geometry, the
  training log, the transition step of any probe and the chapter's probe table
  (:func:`~.probes.probe_steps`);
* :mod:`.confirm`: the checks of the seed-robustness claim (study Figs. 8, 9),
  registered in :mod:`swingby.claims.capability` before the confirmatory sweep; the
  chapter's one verdict;
* :mod:`.claims`, :mod:`.probe_claims`: fits and scores the chapter's exploratory
  measurements use (:func:`~.claims.capability_lead`, :func:`~.claims.linear_fit`,
  :func:`~.claims.noise_capability`, :func:`~.probe_claims.probe_score`), beside the
  checks of the earlier rule;
* :mod:`.checks`, :mod:`.time_checks`, :mod:`.report`: the checks and tables of the
  earlier rule (:mod:`swingby.diffusion.rules`), kept for
  :mod:`swingby.diffusion.rules_report` and the audit appendix;
* :mod:`.plots`, :mod:`.explorer`: the figures and the interactive explorer.
"""
