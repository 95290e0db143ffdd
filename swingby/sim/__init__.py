"""The SIM task and the networks trained on it (Sec. 2.1, 3, App. B, C.1, F.1, F.3): its
:mod:`.data`, :mod:`.models`, one run (:mod:`.train`) or many at once (:mod:`.batched`), what
they share (:mod:`.train_loop`), the checks of the task's identities (:mod:`.identity_checks`),
and its figure and explorer. Used by ``book/sim_task.md`` and every observation and theory chapter.
"""
