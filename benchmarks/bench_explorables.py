"""What the static explorables cost the chapters' execution.

Before them, a chapter executed in static mode drew each explorer's default view once; now it
draws the figure at every point of the explorer's grid (swingby/explorable.py). For each of the
book's seven explorer cells, this times both, interleaved over ``--repeats`` (stored results
are loaded once, outside the timing), and prints the seconds added. With ``--chapters`` it also
executes every chapter as ``make test`` does (``pytest -n 2 --dist loadfile book/*.ipynb``,
static mode) and prints the chapters' time and the share the explorables add to it. Run it on
an otherwise idle machine (``uptime``):

    .venv/bin/python benchmarks/bench_explorables.py --chapters
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

os.environ["SWINGBY_STATIC"] = "1"

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from IPython.core.pylabtools import print_figure  # noqa: E402

from swingby import explorable  # noqa: E402
from swingby.chapter import setup  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def cells() -> dict:
    """The explorer calls of the chapters, by name, each returning what it hands to ``live.explorer``."""
    from swingby.capability.explorer import capability_explorer
    from swingby.diffusion import sweep as SP
    from swingby.diffusion.fig6.explorer import sweep_explorer
    from swingby.diffusion.presets import get_preset
    from swingby.diffusion.runs import driver, storage
    from swingby.observations.explorer import trajectory_explorer
    from swingby.open_questions.figures import cell_explorer
    from swingby.open_questions.store import load
    from swingby.sim.explorer import sim_data_explorer
    from swingby.theory.explorer import symmetric_dynamics_explorer

    res = storage.load_results(SP.results_path(driver.DEFAULT_OUT, get_preset("cpu")))
    stored = {name: load(name) for name in ("init", "batch", "norm", "depth")}
    return {
        "sim_task": lambda: sim_data_explorer(),
        "observations": lambda: trajectory_explorer(),
        "two_layer_theory": lambda: symmetric_dynamics_explorer(seed=0),
        "diffusion": lambda: sweep_explorer(res),
        "capability": lambda: capability_explorer(res, checkpoint=len(res["meta"]["checkpoint_steps"]) // 2, prompt=1),
        "open_questions": lambda: cell_explorer({"init": stored["init"]}, "init", 0),
        "open_questions_training": lambda: cell_explorer({k: stored[k] for k in ("batch", "norm", "depth")},
                                                         "batch", 0),
    }


def captured(call) -> dict:
    """What ``call`` hands to ``swingby.live.explorer`` (draw, values, grid, ...), without drawing."""
    import swingby.live
    seen, original = {}, swingby.live.explorer
    modules = [m for m in list(sys.modules.values()) if getattr(m, "explorer", None) is original]
    for m in modules:  # swingby.live itself and every module that imported its explorer
        m.explorer = lambda draw, values, *a, **k: seen.update(draw=draw, values=values, **k)
    try:
        call()
    finally:
        for m in modules:
            m.explorer = original
    return seen


def plain(spec: dict) -> None:
    """The default view, as a static chapter drew it before: one figure, as the inline backend's PNG."""
    fig = spec["draw"](**spec["values"])
    print_figure(fig, "png", bbox_inches="tight")
    plt.close(fig)


def grid(spec: dict) -> None:
    """The static explorable of today."""
    explorable.render(spec["draw"], spec["values"], spec["grid"], alt=spec.get("alt", ""),
                      prepare=spec.get("prepare"))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--chapters", action="store_true", help="also execute every chapter and print the share")
    args = ap.parse_args(argv)
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    setup()
    warnings.simplefilter("ignore")
    calls = cells()
    totals = {"plain": 0.0, "grid": 0.0}
    for name, call in calls.items():
        times = {"plain": [], "grid": []}
        for _ in range(args.repeats):
            for mode, run in (("plain", plain), ("grid", grid)):  # interleaved
                spec = captured(call)  # a fresh explorer each time (no cached runs)
                t0 = time.perf_counter()
                run(spec)
                times[mode].append(time.perf_counter() - t0)
        best = {m: min(v) for m, v in times.items()}
        totals = {m: totals[m] + best[m] for m in totals}
        print(f"{name:24s} default view {best['plain']:5.2f} s   explorable {best['grid']:6.2f} s   "
              f"added {best['grid'] - best['plain']:6.2f} s", flush=True)
    added = totals["grid"] - totals["plain"]
    print(f"{'all seven':24s} default view {totals['plain']:5.2f} s   explorable {totals['grid']:6.2f} s   "
          f"added {added:6.2f} s (CPU seconds, one process)")
    if args.chapters:
        t0 = time.perf_counter()
        chapters = sorted(str(p) for p in (ROOT / "book").glob("*.ipynb"))
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist", "loadfile", *chapters],
                       cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - t0
        share = added / 2 / (wall - added / 2)  # two workers share the added CPU seconds
        print(f"chapters, executed as make test does: {wall:.0f} s wall; the explorables add about "
              f"{added / 2:.0f} s of it on two workers, {100 * share:.0f} % of the {wall - added / 2:.0f} s "
              f"the chapters took before")


if __name__ == "__main__":
    main()
