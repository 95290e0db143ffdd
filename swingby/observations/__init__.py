"""The SIM observations (Sec. 3, App. B, App. F): sweeps (``.runs``), metrics, claim units (``.claim_checks``)
and thresholds (``.rules``), for ``book/observations*.md``, ``ood_checks.md`` and ``topological_order.md``."""
