"""The SIM task and the networks trained on it (Sec. 2.1, 3, App. F): data, models, one run (``.train``) or
many at once (``.batched``); used by ``book/sim_task.md`` and the chapters after it."""
