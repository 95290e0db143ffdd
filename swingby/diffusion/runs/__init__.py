"""Running and storing the diffusion sweeps (paper Sec. 5, App. G); the chapters
``book/diffusion.md`` and ``book/capability.md`` read the results these make.

* :mod:`.evaluation`: a run's evaluation at a checkpoint and the concept classifier;
* :mod:`.storage`: the results files (atomic writes, safe loading, lock); it depends on
  nothing in this subpackage;
* :mod:`.driver`: one run (:func:`~.driver.run_one`), the worker pool, resuming, and
  :func:`~.driver.sweep`;
* :mod:`.executors`, :mod:`.job_options`: submitit and SLURM executors of a sweep, and
  :mod:`.collect`, which merges their finished runs into the results file;
* :mod:`.search`, :mod:`.position_search`: the measured searches for a CPU preset;
* :mod:`.identity`: the code identity that stored results are keyed by;
* :mod:`.cli`: the command line (``python -m swingby.diffusion``).
"""
