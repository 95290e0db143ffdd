"""The analysis of paper Sec. 5 (Fig. 6) on a diffusion sweep, used by the chapter
``book/diffusion.md``.

* :mod:`.analysis`: concept-space trajectories, speeds and learning times of a sweep;
* :mod:`.claims`, :mod:`.nulls`: the older claim checks and the nulls they are calibrated on;
* :mod:`.checks`, :mod:`.mse_checks`, :mod:`.slowing`: the checks of Fig. 6 under the
  fixed rules (:mod:`swingby.diffusion.rules`); :mod:`.slowing` also holds the old
  rule's slowing check;
* :mod:`.report`: the checks under the old and the new rules, as markdown tables, the
  earlier rule's word on the data of Fig. 19, and counts in words for glued sentences;
* :mod:`.confirm`, :mod:`.confirm_nulls`: the registered checks of Fig. 6
  (:mod:`swingby.claims.diffusion`) and their wrong models, which the chapter judges;
* :mod:`.power`: the positive control of the slowing check (Theorem 4.1's exponential
  approach under the registered check) and the chapter's word it powers;
* :mod:`.plots`, :mod:`.explorer`: the figures and the interactive explorer.
"""
