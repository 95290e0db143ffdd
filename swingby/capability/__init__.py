"""Capability and behaviour of the held-out class (the hidden-capabilities study, Park et
al. 2024) on the diffusion sweep of :mod:`swingby.diffusion`; chapter ``book/capability.md``.

*Behaviour* is the joint accuracy of class 11 (blue and small) under its plain prompt,
*capability* the best joint accuracy over prompts that ask for blue-small harder.

* :mod:`.measures`: behaviour, capability, their crossing times and leads;
* :mod:`.spread`: their seed-to-seed spread and the fit of one time against the other;
* :mod:`.probes`: the concept-space turn, the embedding geometry, the training log and
  how well each probe tracks the capability time;
* :mod:`.confirm`: the registered checks of the seed-robustness claim (study Figs. 8, 9;
  :mod:`swingby.claims.capability`);
* :mod:`.checks`: over-prompting before the capability (study App. B);
* :mod:`.plots`, :mod:`.explorer`: the figures, tables and the interactive explorer.
"""

__all__ = []
