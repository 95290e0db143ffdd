"""Benchmark of the diffusion models of swingby.diffusion (paper Sec. 5).

For each preset (``tiny``, ``cpu``, ``paper``) prints ms per training step and ms per
generated image (a whole sampling chain of the preset's ``sample_steps``), in fp32 and
with bfloat16 autocast, with 1 and 2 torch threads, and the ratios to the preset's own
setting. With ``--store`` it writes the numbers to ``<results>/timings.json``, which the
diffusion chapter reads (so that no build has to train a ``paper`` step to know its
cost). Timings depend on the machine and its load: run it on an otherwise idle machine.

    python benchmarks/bench_diffusion.py [--quick] [--store] [--presets cpu paper]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from dataclasses import replace

import torch

from swingby.diffusion.presets import get_preset
from swingby.diffusion.storage import atomic_save, results_dir
from swingby.diffusion.training import autocast, build_model

CPU = torch.device("cpu")


WARMUP = 2  #: untimed iterations first (allocations, oneDNN kernel selection)


def _median_ms(step, iters: int) -> float:
    """Median wall time of ``iters`` calls of ``step()`` after :data:`WARMUP` untimed ones, in ms."""
    for _ in range(WARMUP):
        step()
    times = []
    for _ in range(iters):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    return float(statistics.median(times)) * 1000


def time_train(p, iters: int) -> float:
    """ms per training step (forward, backward, AdamW) of preset ``p``."""
    torch.manual_seed(0)
    model = build_model(p)
    opt = torch.optim.AdamW(model.parameters(), lr=p.lr)
    x = torch.rand(p.batch, 3, p.image_size, p.image_size)
    c = torch.rand(p.batch, 4)

    def step():
        with autocast(p, CPU):
            loss, _ = model.loss(x, c)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return _median_ms(step, iters)


@torch.no_grad()
def time_sample(p, n: int, iters: int) -> float:
    """ms per generated image: network evaluations on ``n`` images, scaled to a whole
    chain of ``p.sample_steps + 1`` evaluations."""
    model = build_model(p).eval()
    z = torch.randn(n, 3, p.image_size, p.image_size)
    g = torch.full((n,), 2.0)
    c = torch.rand(n, 4)

    def step():
        with autocast(p, CPU):
            model.net(z, g, c)
    return _median_ms(step, iters) * (p.sample_steps + 1) / n


def bench_preset(name: str, iters: int) -> dict:
    """Timings of one preset in fp32 / bf16 and with 1 / 2 threads."""
    p0 = get_preset(name)
    out = {"image_size": p0.image_size, "widths": list(p0.widths), "batch": p0.batch, "steps": p0.steps,
           "bf16_in_preset": p0.bf16, "train_ms": {}, "sample_ms_per_image": {}}
    for threads in (1, 2):
        torch.set_num_threads(threads)
        for bf16 in (False, True):
            key = f"{'bf16' if bf16 else 'fp32'}, {threads} thread{'s' if threads > 1 else ''}"
            p = replace(p0, bf16=bf16)
            out["train_ms"][key] = time_train(p, iters)
            out["sample_ms_per_image"][key] = time_sample(p, min(64, 4 * p.samples_per_class), max(2, iters // 2))
            print(f"  {key:>16}: train {out['train_ms'][key]:8.1f} ms/step   "
                  f"sample {out['sample_ms_per_image'][key]:8.1f} ms/image", flush=True)
    torch.set_num_threads(1)
    own = f"{'bf16' if p0.bf16 else 'fp32'}, 1 thread"
    for key, v in out["train_ms"].items():
        print(f"  train speed-up of {key} over the preset's own ({own}): x{out['train_ms'][own] / v:.2f}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer iterations")
    ap.add_argument("--store", action="store_true", help="write <results>/timings.json for the chapter")
    ap.add_argument("--presets", nargs="+", default=["tiny", "cpu", "paper"])
    args = ap.parse_args()
    timings = {"machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.processor() or 'cpu'}",
               "torch": torch.__version__, "load_average_at_start": os.getloadavg()[0], "presets": {}}
    for name in args.presets:
        print(f"{name} preset", flush=True)
        iters = 3 if name == "paper" else (5 if args.quick else 15)
        timings["presets"][name] = bench_preset(name, iters)
    timings["load_average_at_end"] = os.getloadavg()[0]
    if args.store:
        path = results_dir(for_writing=True) / "timings.json"
        atomic_save(lambda f: open(f, "w").write(json.dumps(timings, indent=1)), path)
        print(f"stored {path}")


if __name__ == "__main__":
    main()
