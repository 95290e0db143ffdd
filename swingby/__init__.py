"""swingby: the code behind the book *Swing-by Dynamics in Concept Learning*.

One subpackage per part of the book; each holds its computations, checks, figures and
explorer:

* :mod:`swingby.sim`: the SIM task (data, test points, second moments), the models and
  their training, one run or many batched (Sec. 2.1, 3, App. B, C.1, F.1, F.3).
* :mod:`swingby.observations`: the sweeps, metrics, checks, figures and explorer of the
  observation chapters (Sec. 3, App. B, F).
* :mod:`swingby.theory`: closed forms and the symmetric two-layer dynamics, their checks,
  figures and explorer (Sec. 4, App. C-E).
* :mod:`swingby.diffusion`: the conditional diffusion model on coloured circles and its
  read-out (Sec. 5, App. G); :mod:`swingby.diffusion.runs` runs and stores its sweeps,
  :mod:`swingby.diffusion.fig6` analyses them (Fig. 6).
* :mod:`swingby.capability`: the hidden-capabilities study built on the diffusion sweep.

Shared by every part:

* :mod:`swingby.style`: the figure style and the argument checks of an ``Axes``.
* :mod:`swingby.chapter`: what every chapter does first (figure style, threads).
* :mod:`swingby.live`: live or static (``SWINGBY_STATIC``): explorers and progress
  bars when a person runs a chapter, plain images when it is executed to make the book.

The book's API page (``book/api.md``) lists every public function.
"""
__version__ = "0.1.0"
