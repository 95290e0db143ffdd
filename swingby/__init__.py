"""swingby: the code behind the book *Swing-by Dynamics in Concept Learning*.

Modules
-------
sim           the SIM task: data, test points, second moments (Sec. 2.1, App. B, C.1, F.3)
models        MLPs and the symmetric model ``U U^T`` (Sec. 3, 4.2)
train         training loops that record output trajectories, one run or many
              batched (Sec. 3, App. F.1)
observations  the sweeps and metrics of the observation chapters (Sec. 3, App. B, F)
theory        closed forms and the symmetric two-layer dynamics (Sec. 4, App. C-E)
diffusion     the conditional diffusion model on coloured circles (Sec. 5, App. G)
plotting      figures shared by the chapters
widgets       ipywidgets explorers
fastmode      the ``SWINGBY_QUICK`` switch
"""
__version__ = "0.1.0"
