"""Every test process uses one torch thread, as the chapters do (:func:`swingby.chapter.setup`).

``make test`` runs the unit tests (two workers) beside nbval's run of the chapters (two
kernels) on a 2-core machine: with torch's default of one thread per core, four processes
would each spin two threads on two cores, and a small tensor operation can then be many
times slower (the replay calibration measured 86 s on two threads on a busy machine,
2.5 s on one). Tests that need another thread count set it themselves.
"""
import torch

torch.set_num_threads(1)
