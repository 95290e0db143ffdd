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
  training log and the transition step of any probe;
* :mod:`.claims`, :mod:`.probe_claims`: the older claim checks, each with the null it is
  calibrated against, and the fits and scores they rest on;
* :mod:`.checks`, :mod:`.time_checks`: the checks under the fixed rules
  (:mod:`swingby.diffusion.rules`);
* :mod:`.report`: the checks under the old and the new rules, as markdown tables;
* :mod:`.plots`, :mod:`.explorer`: the figures and the interactive explorer (and the
  answers to its questions);
* :mod:`.prose`: the chapter's sentences, built from the checks' results.

The claim checks of the chapter (it reports how often each passes on its null):

* **precedes** (:func:`~.claims.precedes_check`): capability crosses 50 % well before behaviour.
  Null: prompts that change nothing, i.e. capability as the best of repeated draws at
  the plain prompt's accuracy (:func:`~.claims.noise_capability`).
* **seed-robust** (:func:`~.claims.robustness_check`): the seed-to-seed spread of capability is
  well below that of behaviour. Null: the two curves of each run swapped at random
  (:func:`~.claims.swap_curves`).
* **linear relation** (:func:`~.claims.linear_check`): behaviour time is a line in capability
  time. Null: the behaviour times shuffled among the runs (:func:`~.spread.permute_seeds`).
* **coincide** (:func:`~.probe_claims.coincidence_check`): a probe's transition step tracks the
  capability time run by run. Null: the probe's steps shuffled among the seeds of each
  separation (:func:`~.spread.permute_seeds`).
"""
