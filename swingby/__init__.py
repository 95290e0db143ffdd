"""swingby: the code behind the book *Swing-by Dynamics in Concept Learning*, one subpackage per part:
:mod:`swingby.sim` (the SIM task, models and training; Sec. 2.1, 3), :mod:`swingby.observations` (Sec. 3,
App. B, F), :mod:`swingby.theory` (Sec. 4, App. C-E), :mod:`swingby.diffusion` (Sec. 5, App. G),
:mod:`swingby.capability` (hidden capabilities on the same sweep) and :mod:`swingby.open_questions`; shared:
:mod:`swingby.verdicts`, :mod:`swingby.claims`, :mod:`swingby.status`, :mod:`swingby.results`,
:mod:`swingby.chapter`, :mod:`swingby.style` and :mod:`swingby.live`.
"""
__version__ = "0.1.0"

__all__ = []
