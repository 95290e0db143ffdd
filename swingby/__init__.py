"""swingby: the code behind the book *Swing-by Dynamics in Concept Learning*.

* :mod:`swingby.sim.data`: the SIM task: data, test points, second moments (Sec. 2.1,
  App. B, C.1, F.3).
* :mod:`swingby.sim.models`: MLPs and the symmetric model ``U U^T`` (Sec. 3, 4.2).
* :mod:`swingby.sim.train`: training loops that record output trajectories, one run or
  many batched (Sec. 3, App. F.1).
* :mod:`swingby.observations`: the sweeps and metrics of the observation chapters
  (Sec. 3, App. B, F).
* :mod:`swingby.theory`: closed forms and the symmetric two-layer dynamics (Sec. 4,
  App. C-E).
* :mod:`swingby.diffusion`: the conditional diffusion model on coloured circles
  (Sec. 5, App. G) and the capability study built on it.
* :mod:`swingby.plotting`: figures shared by the chapters.
* :mod:`swingby.widgets`: ipywidgets explorers of the SIM and theory chapters.
* :mod:`swingby.chapter`: what every chapter does first (figure style, threads).
* :mod:`swingby.live`: live or static (``SWINGBY_STATIC``): explorers and progress
  bars when a person runs a chapter, plain images when it is executed to make the book.

The book's API page (``book/api.md``) lists every public function.
"""
__version__ = "0.1.0"
