"""The SIM observations (Sec. 3, App. B, App. F): their sweeps (``.runs``), metrics, claim units
(``.claim_checks``) and thresholds (``.rules``), used by ``book/observations.md``,
``book/observations_variants.md``, ``book/ood_checks.md`` and ``book/topological_order.md``.
"""
