"""Benchmark of the diffusion models of swingby.diffusion (issue 5).

Prints ms per training step and per sampling step (one network evaluation of a
batch of 128, the sweep's 4 classes x 32 samples) for the `cpu` and `paper` presets'
models, and the effect of what was tried to make training faster: torch threads,
channels_last memory format, torch.compile and the batch size. Ratios are relative
to the preset's own setting. Timings depend on the machine and its load: run it on an
otherwise idle machine.

    python benchmarks/bench_diffusion.py [--quick] [--paper-iters N]
"""
from __future__ import annotations

import argparse
import time

import torch

from swingby.diffusion.presets import get_preset
from swingby.diffusion.sweep import build_model


def time_train(p, batch: int, iters: int, *, channels_last=False, compile_=False) -> float:
    model = build_model(p)
    if channels_last:
        model = model.to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(model.parameters(), lr=p.lr)
    x = torch.rand(batch, 3, p.image_size, p.image_size)
    if channels_last:
        x = x.contiguous(memory_format=torch.channels_last)
    c = torch.rand(batch, 4)
    loss_fn = torch.compile(model.loss) if compile_ else model.loss
    for i in range(iters + 2):
        if i == 2:
            t0 = time.perf_counter()
        loss, _ = loss_fn(x, c)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return (time.perf_counter() - t0) / iters * 1000


@torch.no_grad()
def time_sample_step(p, n: int, iters: int) -> float:
    model = build_model(p).eval()
    z = torch.randn(n, 3, p.image_size, p.image_size)
    g = torch.full((n,), 2.0)
    c = torch.rand(n, 4)
    for i in range(iters + 1):
        if i == 1:
            t0 = time.perf_counter()
        model.net(z, g, c)
    return (time.perf_counter() - t0) / iters * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer iterations")
    ap.add_argument("--paper-iters", type=int, default=3)
    ap.add_argument("--paper-threads", type=int, default=1,
                    help="threads for the paper model (2 threads on a loaded 2-core machine can be far slower)")
    ap.add_argument("--try-compile", action="store_true", help="also time torch.compile (slow to build)")
    args = ap.parse_args()
    it = 5 if args.quick else 20
    cpu = get_preset("cpu")
    print(f"cpu preset: {cpu.image_size}x{cpu.image_size}, widths {cpu.widths}, batch {cpu.batch}")
    results = {}
    for threads in (1, 2):
        torch.set_num_threads(threads)
        results[threads] = time_train(cpu, cpu.batch, it)
        print(f"  train step, {threads} thread(s): {results[threads]:.1f} ms")
    torch.set_num_threads(1)
    base = results[1]
    print(f"  2 threads vs 1: x{base / results[2]:.2f} speed-up per run "
          f"(two 1-thread runs in parallel use the same two cores for x2 throughput at best)")
    cl = time_train(cpu, cpu.batch, it, channels_last=True)
    print(f"  channels_last: {cl:.1f} ms (x{base / cl:.2f})")
    for b in (cpu.batch // 2, cpu.batch * 2):
        t = time_train(cpu, b, it)
        print(f"  batch {b}: {t:.1f} ms/step, {t / b * cpu.batch:.1f} ms per {cpu.batch} images "
              f"(x{base / (t / b * cpu.batch):.2f} throughput)")
    if args.try_compile:
        try:
            tc = time_train(cpu, cpu.batch, it, compile_=True)
            print(f"  torch.compile: {tc:.1f} ms (x{base / tc:.2f})")
        except Exception as e:  # noqa: BLE001 - report and go on
            print(f"  torch.compile failed: {type(e).__name__}: {str(e)[:120]}")
    n = 4 * cpu.samples_per_class
    s = time_sample_step(cpu, n, it)
    print(f"  sampling: {s:.1f} ms per step for {n} images; one evaluation "
          f"({cpu.sample_steps + 1} steps) {s * (cpu.sample_steps + 1) / 1000:.1f} s")
    paper = get_preset("paper")
    torch.set_num_threads(args.paper_threads)
    tp = time_train(paper, paper.batch, args.paper_iters)
    sp = time_sample_step(paper, 128, args.paper_iters)
    print(f"paper preset: {paper.image_size}x{paper.image_size}, widths {paper.widths}, batch {paper.batch}")
    print(f"  train step, {args.paper_threads} thread(s): {tp:.0f} ms  (x{tp / base:.0f} the cpu preset's 1-thread step)")
    print(f"  sampling: {sp:.0f} ms per step for 128 images")
    print(f"  the paper sweep ({len(paper.separations)} x {len(paper.seeds)} runs x {paper.steps} steps) "
          f"would take ~{len(paper.separations) * len(paper.seeds) * paper.steps * tp / 3.6e6:.0f} h "
          f"of training alone on this machine")


if __name__ == "__main__":
    main()
