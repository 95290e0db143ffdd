"""The SIM task and the networks trained on it (Sec. 2.1, 3, App. B, C.1, F.1, F.3); used
by ``book/sim_task.md`` and by every observation and theory chapter.

* :mod:`.data`: the SIM data (:func:`~.data.make_sim`), its test points and second moments;
* :mod:`.models`: MLPs and the symmetric model ``U U^T``;
* :mod:`.train`: :func:`~.train.train`, one run that records the output trajectory;
* :mod:`.train_loop`: the record, the schedule and the recording loop both engines share;
* :mod:`.batched`: many MLPs of one architecture trained as one batched program;
* :mod:`.run_checks`: checks of training runs (seeds, compute budget, divergence warning).
"""
