"""Benchmark of the diffusion models of swingby.diffusion (paper Sec. 5).

For each preset (``tiny``, ``cpu``, ``paper``) prints ms per training step and ms per
generated image (a whole sampling chain of the preset's ``sample_steps``), in fp32 and
with bfloat16 autocast, with 1 and 2 torch threads. The four settings are interleaved
over repeats (8 by default), so that a change in the machine's load hits all of them;
it prints the median, the range over repeats, and the paired bf16 / fp32 speed-up of
each repeat. With ``--store`` it writes the numbers to ``<results>/timings.json``, which
the diffusion chapter reads (so that no build has to train a ``paper`` step to know its
cost); ``--store`` is refused on a loaded machine (1-minute load average above
:data:`LOAD_MAX` at the start, or other processes using more than :data:`OTHER_MAX` of
the CPU time while it runs).

    python benchmarks/bench_diffusion.py [--quick] [--store] [--repeats 8] [--presets cpu paper]

With ``--against COMMIT`` it instead compares that commit's code (checked out in a
temporary git worktree) with today's on the confirmatory sweep's model and design
(:data:`swingby.diffusion.runs.long_search.SWEEP`): a fresh process per code and repeat,
the two codes alternating in order over the repeats, each timing training steps, one
checkpoint's evaluation and the final repeated draws. Its last line is the ratio of a
whole run's cost (steps x step + checkpoints x evaluation + final draws, the same steps
and checkpoints for both codes; each code at its own precision: the old one in fp32,
today's as the sweep's preset says). ``--store`` writes ``<results>/bench_against.json``,
which the diffusion chapter quotes.

    python benchmarks/bench_diffusion.py --against 5729ed8 [--repeats 4] [--store]

``--variants`` times what did not make the sweep (channels-last; a batched model of
several seeds, whose convolutions are grouped) and stores ``<results>/bench_variants.json``.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import torch

from swingby.diffusion.presets import get_preset
from swingby.diffusion.runs.storage import atomic_save, results_dir
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


def _busy_jiffies() -> tuple[int, int] | None:
    """(busy, total) CPU jiffies of the whole machine since boot (Linux), else None."""
    try:
        vals = [int(v) for v in open("/proc/stat").readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = vals[3] + (vals[4] if len(vals) > 4 else 0)
    return sum(vals) - idle, sum(vals)


def _own_jiffies() -> int:
    """CPU jiffies used by this process so far (user + system), or 0 off Linux."""
    try:
        f = open("/proc/self/stat").read().rsplit(")", 1)[1].split()
        return int(f[11]) + int(f[12])
    except (OSError, ValueError, IndexError):
        return 0


def _cpu_info() -> tuple[str, list[str]]:
    """The CPU's model name and which bfloat16 instruction sets it has (Linux), since
    whether bf16 autocast helps depends on them: with ``avx512_bf16`` or ``amx_bf16`` it
    can be faster than fp32, without them it is emulated and much slower."""
    try:
        text = open("/proc/cpuinfo").read()
    except OSError:
        return platform.processor() or "unknown", []
    model = next((ln.split(":", 1)[1].strip() for ln in text.splitlines() if ln.startswith("model name")), "unknown")
    flags = next((ln.split(":", 1)[1].split() for ln in text.splitlines() if ln.startswith("flags")), [])
    return model, sorted(f for f in flags if "bf16" in f)


#: --store is refused when the 1-minute load average at the start exceeds this, or when
#: other processes used more than OTHER_MAX of the machine's CPU time during the benchmark
LOAD_MAX = 0.5
OTHER_MAX = 0.10


def bench_preset(name: str, iters: int, repeats: int, bf16: bool = True) -> dict:
    """Timings of one preset in fp32 / bf16 with 1 / 2 threads, interleaved: each repeat
    times every setting once, in an order that alternates between repeats, so that a
    change of the machine's load hits every setting alike. Reports the median over
    repeats, the range, and the paired bf16 / fp32 speed-up of every repeat."""
    p0 = get_preset(name)
    keys = [(t, b) for t in (1, 2) for b in ((False, True) if bf16 else (False,))]
    name_of = {k: f"{'bf16' if k[1] else 'fp32'}, {k[0]} thread{'s' if k[0] > 1 else ''}" for k in keys}
    train = {k: [] for k in keys}
    sample = {k: [] for k in keys}
    for r in range(repeats):
        for k in (keys if r % 2 == 0 else keys[::-1]):
            torch.set_num_threads(k[0])
            p = replace(p0, bf16=k[1])
            train[k].append(time_train(p, iters))
            sample[k].append(time_sample(p, min(64, 4 * p.samples_per_class), max(2, iters // 2)))
    torch.set_num_threads(1)
    out = {"image_size": p0.image_size, "widths": list(p0.widths), "batch": p0.batch, "steps": p0.steps,
           "bf16_in_preset": p0.bf16, "repeats": repeats, "iterations_per_repeat": iters,
           "train_ms": {}, "train_ms_range": {}, "sample_ms_per_image": {}, "sample_ms_per_image_range": {},
           "bf16_speedup_train": {}, "bf16_speedup_sample": {}}
    for k in keys:
        n = name_of[k]
        out["train_ms"][n], out["train_ms_range"][n] = statistics.median(train[k]), [min(train[k]), max(train[k])]
        out["sample_ms_per_image"][n] = statistics.median(sample[k])
        out["sample_ms_per_image_range"][n] = [min(sample[k]), max(sample[k])]
        print(f"  {n:>16}: train {out['train_ms'][n]:8.1f} ms/step ({min(train[k]):.1f}-{max(train[k]):.1f})   "
              f"sample {out['sample_ms_per_image'][n]:8.2f} ms/image ({min(sample[k]):.2f}-{max(sample[k]):.2f})",
              flush=True)
    for t in (1, 2) if bf16 else ():
        for what, d, key in (("train", train, "bf16_speedup_train"), ("sample", sample, "bf16_speedup_sample")):
            ratios = [a / b for a, b in zip(d[(t, False)], d[(t, True)])]
            out[key][f"{t} thread{'s' if t > 1 else ''}"] = {"median": statistics.median(ratios),
                                                              "range": [min(ratios), max(ratios)]}
            print(f"  bf16 speed-up, {what}, {t} thread(s): x{statistics.median(ratios):.2f} "
                  f"(repeats: {min(ratios):.2f}-{max(ratios):.2f})", flush=True)
    return out


#: what a process of one code times (run with that code first on ``sys.path``): training
#: steps, one checkpoint's evaluation and the final draws of the sweep's model; prints JSON
_CHILD = r"""
import json, statistics, sys, time, torch
from swingby.diffusion.classifier import ConceptClassifier
from swingby.diffusion.data import make_dataset
from swingby.diffusion.presets import get_preset
from swingby.diffusion.runs.evaluation import circles_config, evaluate, final_repeats
from swingby.diffusion.training import Run
over, n_steps = json.loads(sys.argv[1]), int(sys.argv[2])
torch.set_num_threads(1)
p = get_preset("cpu", **over)
run = Run(p, 1, torch.device("cpu"))
data = make_dataset(circles_config(p, 0.689), 256, seed=1)
clf = ConceptClassifier(p.classifier_width).eval()
run.train_to(5, data["images"], data["cond"])
t = time.perf_counter(); run.train_to(5 + n_steps, data["images"], data["cond"])
train_ms = (time.perf_counter() - t) / n_steps * 1000
evaluate(run.ema, clf, p, 0.689, 1, 0)
ev = []
for k in (1, 2):
    t = time.perf_counter(); evaluate(run.ema, clf, p, 0.689, 1, k); ev.append(time.perf_counter() - t)
t = time.perf_counter(); final_repeats(run.ema, clf, p, 0.689, 1); final_s = time.perf_counter() - t
print(json.dumps({"train_ms": train_ms, "eval_s": statistics.median(ev), "final_s": final_s}))
"""


def _time_code(tree: Path, over: dict, n_steps: int) -> dict:
    """One timing process of the code in ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree), "SWINGBY_RESULTS": tempfile.gettempdir()}
    out = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(over), str(n_steps)], cwd=tree, env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def against(commit: str, repeats: int, n_steps: int, store: bool) -> dict:
    """Interleaved timings of ``commit``'s code and today's on the sweep's design (see the module)."""
    from swingby.diffusion.runs.long_search import SWEEP, sweep_model
    from swingby.diffusion.sweep import N_REPEATS

    root = Path(__file__).resolve().parents[1]
    model = sweep_model()
    codes = {"old": {k: v for k, v in model.items() if k != "bf16"}, "new": model}
    load0 = os.getloadavg()[0]
    busy0 = _busy_jiffies()
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "old"
        subprocess.run(["git", "worktree", "add", "--detach", str(tree), commit], cwd=root, check=True,
                       capture_output=True)
        trees = {"old": tree, "new": root}
        times = {c: [] for c in codes}
        try:
            for r in range(repeats):
                for c in (("old", "new") if r % 2 == 0 else ("new", "old")):
                    times[c].append(_time_code(trees[c], codes[c], n_steps))
                    t = times[c][-1]
                    print(f"  repeat {r + 1}, {c} code: train {t['train_ms']:.1f} ms/step, evaluation "
                          f"{t['eval_s']:.2f} s, final draws {t['final_s']:.2f} s", flush=True)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=root, capture_output=True)
    steps, ck = SWEEP["steps"], SWEEP["n_checkpoints"]

    def whole(t):
        return steps * t["train_ms"] / 1000 + ck * t["eval_s"] + t["final_s"]
    med = {c: {k: statistics.median(t[k] for t in times[c]) for k in ("train_ms", "eval_s", "final_s")}
           for c in codes}
    ratios = [whole(o) / whole(n) for o, n in zip(times["old"], times["new"])]
    out = {"commit": commit, "cpu_model": _cpu_info()[0], "cpu_bf16_instructions": _cpu_info()[1],
           "torch": torch.__version__, "load_average_at_start": load0, "repeats": repeats,
           "steps_timed": n_steps, "design": {"steps": steps, "n_checkpoints": ck, "final_repeats": N_REPEATS},
           "settings": codes, "median": med, "whole_run_seconds": {c: whole(med[c]) for c in codes},
           "train_ratio": med["old"]["train_ms"] / med["new"]["train_ms"],
           "eval_ratio": med["old"]["eval_s"] / med["new"]["eval_s"],
           "whole_run_ratio": statistics.median(ratios), "whole_run_ratio_range": [min(ratios), max(ratios)],
           "load_average_at_end": os.getloadavg()[0]}
    busy1 = _busy_jiffies()
    if busy0 is not None and busy1 is not None and busy1[1] > busy0[1]:
        # the timing processes are children: count every busy jiffy beyond one core's share as other load
        out["other_processes_cpu_fraction"] = max(0.0, (busy1[0] - busy0[0]) / (busy1[1] - busy0[1])
                                                  - 1 / (os.cpu_count() or 1))
    print(f"training step x{out['train_ratio']:.2f}, one checkpoint's evaluation x{out['eval_ratio']:.2f}")
    if store:
        path = results_dir(for_writing=True) / "bench_against.json"
        atomic_save(lambda f: open(f, "w").write(json.dumps(out, indent=1)), path)
    print(f"whole run at the sweep's design ({steps} steps, {ck} checkpoints): {out['whole_run_seconds']['old']:.0f} s "
          f"with {commit}, {out['whole_run_seconds']['new']:.0f} s today: x{out['whole_run_ratio']:.2f} faster "
          f"(repeats {min(ratios):.2f}-{max(ratios):.2f})")
    return out


def variants(repeats: int, store: bool) -> dict:
    """What did not make the sweep: interleaved over ``repeats``, the training step of the
    sweep's model in fp32 and bf16, each with the default and the channels-last memory
    layout; and, for the convolutions of its three levels, one grouped convolution over
    two or four models (what a batched model of several seeds computes) against separate
    ones, forward and backward. Prints and returns the ratios (above 1: the variant is faster)."""
    import torch.nn.functional as F

    from swingby.diffusion.data import make_dataset
    from swingby.diffusion.presets import get_preset as preset
    from swingby.diffusion.runs.evaluation import circles_config
    from swingby.diffusion.runs.long_search import sweep_model
    from swingby.diffusion.training import Run

    torch.set_num_threads(1)
    model = {k: tuple(v) if isinstance(v, list) else v for k, v in sweep_model().items() if k != "bf16"}
    data = make_dataset(circles_config(preset("cpu", **model), 0.689), 256, seed=1)

    def step_ms(bf16: bool, cl: bool) -> float:
        run = Run(preset("cpu", **model, bf16=bf16), 1, CPU)
        fmt = torch.channels_last if cl else torch.contiguous_format
        run.model.to(memory_format=fmt)
        images = data["images"].contiguous(memory_format=fmt)
        run.train_to(3, images, data["cond"])
        t = time.perf_counter()
        run.train_to(23, images, data["cond"])
        return (time.perf_counter() - t) / 20 * 1000

    def conv_ms(groups: int, c: int, h: int, grouped: bool) -> float:
        dt = torch.bfloat16
        if grouped:
            xs = [torch.randn(48, groups * c, h, h, dtype=dt, requires_grad=True)]
            ws = [torch.randn(groups * c, c, 3, 3, dtype=dt, requires_grad=True)]
        else:
            xs = [torch.randn(48, c, h, h, dtype=dt, requires_grad=True) for _ in range(groups)]
            ws = [torch.randn(c, c, 3, 3, dtype=dt, requires_grad=True) for _ in range(groups)]
        g = groups if grouped else 1

        def f():
            sum(F.conv2d(x, w, padding=1, groups=g).float().sum() for x, w in zip(xs, ws)).backward()
        return _median_ms(f, 10)

    keys = [(b, cl) for b in (False, True) for cl in (False, True)]
    convs = [(g, c, h) for g in (2, 4) for c, h in ((16, 16), (32, 8), (64, 4))]
    steps = {k: [] for k in keys}
    conv = {(k, grouped): [] for k in convs for grouped in (False, True)}
    for r in range(repeats):
        for k in (keys if r % 2 == 0 else keys[::-1]):
            steps[k].append(step_ms(*k))
        for k in convs:
            for grouped in ((False, True) if r % 2 == 0 else (True, False)):
                conv[(k, grouped)].append(conv_ms(*k, grouped))
    med = {k: statistics.median(v) for k, v in steps.items()}
    out = {"cpu_model": _cpu_info()[0], "repeats": repeats, "load_average": os.getloadavg()[0],
           "train_ms": {f"{'bf16' if b else 'fp32'}{', channels-last' if cl else ''}": m for (b, cl), m in med.items()},
           "channels_last_speedup": {"fp32": med[(False, False)] / med[(False, True)],
                                     "bf16": med[(True, False)] / med[(True, True)]},
           "grouped_conv_speedup": {f"{g} models, {c} channels at {h} x {h}":
                                    statistics.median(conv[((g, c, h), False)]) / statistics.median(conv[((g, c, h), True)])
                                    for g, c, h in convs}}
    for k, v in out["train_ms"].items():
        print(f"  training step, {k}: {v:.1f} ms")
    for k, v in {**out["channels_last_speedup"], **out["grouped_conv_speedup"]}.items():
        print(f"  x{v:.2f}  {'channels-last, ' + k if k in ('fp32', 'bf16') else 'grouped over separate, ' + k}")
    if store:
        path = results_dir(for_writing=True) / "bench_variants.json"
        atomic_save(lambda f: open(f, "w").write(json.dumps(out, indent=1)), path)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer iterations and repeats")
    ap.add_argument("--store", action="store_true", help="write <results>/timings.json for the chapter "
                    "(refused on a loaded machine)")
    ap.add_argument("--presets", nargs="+", default=["tiny", "cpu", "paper"])
    ap.add_argument("--repeats", type=int, default=None, help="interleaved repeats (default 8; 4 with --quick)")
    ap.add_argument("--bf16", choices=("auto", "yes", "no"), default="auto",
                    help="time bf16 autocast too: auto (default) only on a CPU with bfloat16 instructions, "
                         "where it may pay; without them it is emulated, and a paper step takes minutes")
    ap.add_argument("--against", default=None, metavar="COMMIT",
                    help="compare COMMIT's code with today's on the confirmatory sweep's design")
    ap.add_argument("--steps", type=int, default=60, help="with --against: training steps timed per process")
    ap.add_argument("--variants", action="store_true",
                    help="time what did not make the sweep: channels-last, grouped convolutions of batched models")
    args = ap.parse_args()
    if args.variants:
        if args.store and os.getloadavg()[0] > LOAD_MAX:
            ap.error(f"--store refused: the 1-minute load average is {os.getloadavg()[0]:.2f} (> {LOAD_MAX})")
        variants(args.repeats if args.repeats is not None else 3, args.store)
        return
    if args.against is not None:
        repeats = args.repeats if args.repeats is not None else 4
        if repeats < 2:
            ap.error(f"--repeats must be >= 2 (a range needs two), got {repeats}")
        if args.store and os.getloadavg()[0] > LOAD_MAX:
            ap.error(f"--store refused: the 1-minute load average is {os.getloadavg()[0]:.2f} (> {LOAD_MAX})")
        against(args.against, repeats, args.steps, args.store)
        return
    model, bf16_isa = _cpu_info()
    print(f"CPU: {model}; bfloat16 instructions: {', '.join(bf16_isa) or 'none (bf16 is emulated: expect it slower)'}")
    time_bf16 = args.bf16 == "yes" or (args.bf16 == "auto" and bool(bf16_isa))
    repeats = args.repeats if args.repeats is not None else (4 if args.quick else 8)
    if repeats < 2:
        ap.error(f"--repeats must be >= 2 (a range needs two), got {repeats}")
    load0 = os.getloadavg()[0]
    if args.store and load0 > LOAD_MAX:
        ap.error(f"--store refused: the 1-minute load average is {load0:.2f} (> {LOAD_MAX}); timings taken "
                 "on a loaded machine would be stored as the book's. Run it when the machine is idle.")
    busy0, own0 = _busy_jiffies(), _own_jiffies()
    timings = {"machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.processor() or 'cpu'}",
               "cpu_model": _cpu_info()[0], "cpu_bf16_instructions": _cpu_info()[1],
               "torch": torch.__version__, "load_average_at_start": load0, "bf16_timed": time_bf16,
               "presets": {}}
    for name in args.presets:
        print(f"{name} preset", flush=True)
        iters = 2 if name == "paper" else (3 if args.quick else 6)
        timings["presets"][name] = bench_preset(name, iters, repeats, bf16=time_bf16)
    timings["load_average_at_end"] = os.getloadavg()[0]
    busy1 = _busy_jiffies()
    if busy0 is not None and busy1 is not None and busy1[1] > busy0[1]:
        other = max(0.0, (busy1[0] - busy0[0]) - (_own_jiffies() - own0)) / (busy1[1] - busy0[1])
        timings["other_processes_cpu_fraction"] = other
        print(f"other processes used {other:.1%} of the machine's CPU time during the benchmark")
        if args.store and other > OTHER_MAX:
            ap.error(f"--store refused: other processes used {other:.1%} of the CPU time (> {OTHER_MAX:.0%})")
    if args.store:
        path = results_dir(for_writing=True) / "timings.json"
        atomic_save(lambda f: open(f, "w").write(json.dumps(timings, indent=1)), path)
        print(f"stored {path}")


if __name__ == "__main__":
    main()
