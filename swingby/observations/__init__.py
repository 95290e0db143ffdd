"""Sweeps and metrics of the SIM observations (Sec. 3, App. B, App. F), used by the
chapters ``book/observations.md`` (Figs. 2, 3), ``book/observations_variants.md``
(Figs. 11-14), ``book/ood_checks.md`` (Figs. 15, 16) and ``book/topological_order.md``
(Fig. 7, eq. B.2).

* :mod:`.runs`: the paper's settings and the sweeps of runs (Sec. 3, App. F.1);
* :mod:`.learning`: learning times, the order of learning and the terminal slowing down
  (Sec. 3.1, 3.2);
* :mod:`.swingby`: the rise of the OOD test loss, its seed statistics and the swing-by
  check (Sec. 3.3, App. F.2);
* :mod:`.ood`: distances of the output at ``x_hat`` and the truncation twins (App. F.3);
* :mod:`.hypercube`: the order homomorphism on the hypercube test points (App. B);
* :mod:`.slowing`: the terminal-slowing check of Sec. 3.2 and its wrong model,
  normalised SGD;
* :mod:`.claim_checks`: the units of the chapter's registered claims
  (``swingby.claims.observations``) and the null audit of the equal-signal model;
* :mod:`.rules`: the thresholds of the observation checks, fixed before the data.

Default settings are those of the authors' code (App. F.1; ``book/authors_code.md`` lists
them per figure). ``sigma`` is a standard deviation throughout (the book's convention).
"""
