"""Sweeps and metrics of the SIM observations (Sec. 3, App. B, App. F), used by
``book/observations.md`` (Figs. 2, 3), ``book/observations_variants.md`` (Figs. 11-14),
``book/ood_checks.md`` (Figs. 15, 16) and ``book/topological_order.md`` (Fig. 7, eq. B.2):
the paper's settings and sweeps (:mod:`.runs`), the order of learning and the slowing down
(:mod:`.learning`, :mod:`.slowing`), the rising test loss (:mod:`.swingby`), the OOD checks
(:mod:`.ood`, :mod:`.ood_null`), the order on the hypercube (:mod:`.hypercube`), the claims'
units (:mod:`.claim_checks`) and their thresholds, fixed before the data (:mod:`.rules`).
"""
