"""The SIM task and the networks trained on it (Sec. 2.1, 3, App. B, C.1, F.1, F.3): data, models, one run
(``.train``) or many at once (``.batched``), the symmetric two-layer model of Sec. 4.2
(``.symmetric``); used by ``book/sim_task.md`` and the chapters after it.
"""
