"""Capability and behaviour of the held-out class (the hidden-capabilities study, Park et al. 2024)
on the diffusion sweep of :mod:`swingby.diffusion`; chapter ``book/capability.md``. *Behaviour* is
the joint accuracy of class 11 (blue and small) under its plain prompt, *capability* the best over
prompts that ask for blue-small harder (``.measures``); ``.probes``, ``.spread``,
``.confirm`` and ``.checks`` test the study's claims, ``.plots`` and ``.explorer`` show them.
"""

__all__ = []
