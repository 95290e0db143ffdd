"""swingby: the code behind the book *Swing-by Dynamics in Concept Learning*.

One subpackage per part of the book, each with its computations, checks, figures and explorer:
:mod:`swingby.sim` (the SIM task, the models and their training; Sec. 2.1, 3), :mod:`swingby.observations`
(the observation chapters; Sec. 3, App. B, F), :mod:`swingby.theory` (closed forms and the symmetric
two-layer dynamics; Sec. 4, App. C-E), :mod:`swingby.diffusion` (the diffusion model on coloured
circles; Sec. 5, App. G), :mod:`swingby.capability` (the hidden-capabilities study on the same sweep)
and :mod:`swingby.open_questions`.

Shared by every part: :mod:`swingby.verdicts` (the verdict rule), :mod:`swingby.claims` (the register
of claims), :mod:`swingby.status` (the status page's rows), :mod:`swingby.results` (where stored
results live), :mod:`swingby.chapter`, :mod:`swingby.style` and :mod:`swingby.live` (live or static).
"""
__version__ = "0.1.0"

__all__ = []
