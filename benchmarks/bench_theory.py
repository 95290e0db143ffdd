"""Benchmark of swingby.sim.symmetric.simulate_symmetric (issue 4).

The issue asks for 10^5 steps of eq. (D.2) in about a second for d <= 8. Prints, for
d = 3 and d = 8, the wall time of 10^5 steps (one initialisation) and of 10^4 steps
for 200 initialisations at once (the many-seed statistics), and the ratio to a plain
loop of `symmetric_step` calls (argument checks and a fresh array per step). Timings
depend on the machine and its load: run it on an otherwise idle machine.

    python benchmarks/bench_theory.py
"""
from __future__ import annotations

import time

import numpy as np

from swingby.sim.symmetric import initial_U, simulate_symmetric, symmetric_step


def wall(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main() -> None:
    for d in (3, 8):
        a = np.linspace(1.5, 0.2, d)
        x_hat = np.ones(d)
        U1 = initial_U(d, [0], init_scale=0.1)[0]
        U200 = initial_U(d, range(200), init_scale=0.1)
        for it in ("W", "U"):
            t_one = wall(lambda: simulate_symmetric(U1, a, 0.001, 100_000, x_hat, record_every=10, iterate=it))
            t_200 = wall(lambda: simulate_symmetric(U200, a, 0.01, 10_000, x_hat, record_every=10, iterate=it))
            print(f"d = {d}, iterate = {it}: 1e5 steps x 1 init: {t_one:.2f} s;  1e4 steps x 200 inits: {t_200:.2f} s")

        def naive():
            W = U1 @ U1.T
            with np.errstate(all="ignore"):  # (D.2) on W may leave the PSD cone and overflow
                for _ in range(100_000):
                    W = symmetric_step(W, a, 0.001)

        t_naive = wall(naive)
        t_fast = wall(lambda: simulate_symmetric(U1, a, 0.001, 100_000, x_hat, record_every=10))
        print(f"d = {d}: loop of symmetric_step {t_naive:.2f} s; simulate_symmetric {t_fast:.2f} s; "
              f"ratio {t_naive / t_fast:.1f}x")
        t_loop200 = wall(lambda: [simulate_symmetric(U200[b], a, 0.01, 10_000, x_hat, record_every=10)
                                  for b in range(20)]) * 10
        t_batch = wall(lambda: simulate_symmetric(U200, a, 0.01, 10_000, x_hat, record_every=10))
        print(f"d = {d}: 200 inits one by one (estimated from 20) {t_loop200:.1f} s; batched {t_batch:.2f} s; "
              f"ratio {t_loop200 / t_batch:.1f}x")


if __name__ == "__main__":
    main()
