"""Capability and behaviour of the held-out class (the hidden-capabilities study, Park et al. 2024) on
the diffusion sweep; chapter ``book/capability.md``. *Behaviour*: class 11's joint accuracy under its
plain prompt; *capability*: the best over prompts that ask for blue-small harder (``.measures``).
"""

__all__ = []
