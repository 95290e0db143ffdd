"""Benchmark: a loop of single `swingby.sim.train.train` runs vs one `train_batched` call.

Paper settings (App. F.1): 5000 points per cluster, s = 2, d = 64 (rotated), batch
128, lr 0.1, 40 epochs (3160 SGD steps), one and four linear layers, 16 runs with
different seeds (init, data and shuffling). Prints wall times and their ratio.

    python benchmarks/bench_train.py            # the full benchmark (a few minutes)
    python benchmarks/bench_train.py --epochs 4 # a quick look
    python benchmarks/bench_train.py --layouts  # the batched SGD step, features-first vs
                                                # batch-first activations, by width

``--layouts`` times the two layouts of the batched step (``StackedMLPs``) on the same
weights and batches, interleaved over repeats, and prints the median ms per step, the
range and the ratio; the engine switches to features-first up to
``FEATURES_FIRST_MAX``.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from swingby.sim.batched import FEATURES_FIRST_MAX, StackedMLPs, train_batched
from swingby.sim.data import make_sim
from swingby.sim.models import MLP
from swingby.sim.train import train


def layouts(repeats: int = 7, steps: int = 40) -> None:
    """Median ms per batched SGD step in both layouts, interleaved, per width."""
    print(f"batched SGD step, 4 layers, batch 128, {repeats} interleaved repeats of {steps} steps; "
          f"the engine uses features-first up to width {FEATURES_FIRST_MAX}")
    for d, runs in [(2, 100), (3, 100), (8, 50), (16, 50), (64, 16)]:
        spec = dict(d=d, depth=4, width=d, activation="linear", bias=True)
        nets = {}
        for first in (False, True):
            nets[first] = StackedMLPs([MLP(d, 4, seed=s) for s in range(runs)], spec)
            nets[first].features_first = first
        xs = [torch.randn(runs, 128, d) for _ in range(steps)]
        times = {False: [], True: []}
        with torch.no_grad():
            for _ in range(repeats):
                for first in (False, True):
                    t0 = time.perf_counter()
                    for x in xs:
                        nets[first].sgd_step(x, 0.01, "mean")
                    times[first].append(1e3 * (time.perf_counter() - t0) / steps)
        b, f = np.array(times[False]), np.array(times[True])
        diff = max(float((nets[False].W[k] - nets[True].W[k]).abs().max()) for k in range(4))
        print(f"d = width = {d:3d}, {runs:3d} runs: batch-first {np.median(b):6.2f} ms "
              f"({b.min():.2f}-{b.max():.2f}) | features-first {np.median(f):6.2f} ms "
              f"({f.min():.2f}-{f.max():.2f}) | batch-first / features-first "
              f"{np.median(b / f):4.2f}x | max |weight difference| {diff:.1e}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=16)
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--depths", type=int, nargs="+", default=[1, 4])
    ap.add_argument("--record-every", type=int, default=16,
                    help="record the trajectory every k steps (train loss not recorded)")
    ap.add_argument("--threads", type=int, default=1,
                    help="torch threads for both engines (1 avoids spin-waiting when the cores are shared)")
    ap.add_argument("--layouts", action="store_true",
                    help="time the batched step's two activation layouts instead")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    if args.layouts:
        layouts()
        return
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; "
          f"{args.runs} runs, d = 64, 5000 points per cluster, batch 128, lr 0.1, {args.epochs} epochs")
    datas = [make_sim([1.0, 2.0], 0.05, d=64, rotate=True, seed=s) for s in range(args.runs)]
    kw = dict(lr=0.1, batch_size=128, epochs=args.epochs, record_every=args.record_every,
              record_train_loss=False)
    for depth in args.depths:
        t0 = time.perf_counter()
        singles = [train(MLP(64, depth, seed=s), datas[s], seed=s, **kw) for s in range(args.runs)]
        t_loop = time.perf_counter() - t0
        t0 = time.perf_counter()
        batched = train_batched([MLP(64, depth, seed=s) for s in range(args.runs)], datas,
                                seed=list(range(args.runs)), **kw)
        t_batch = time.perf_counter() - t0
        err = max(float(np.abs(a.outputs - b.outputs).max()) for a, b in zip(singles, batched))
        print(f"depth {depth}: loop of single runs {t_loop:7.1f} s | batched {t_batch:6.1f} s | "
              f"ratio {t_loop / t_batch:5.1f}x | max |output difference| {err:.1e}")


if __name__ == "__main__":
    main()
