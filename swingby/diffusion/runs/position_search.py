"""The search on the authors' random disc positions: can a CPU-sized model draw the held-out class when the discs
are where the authors' code puts them? Every candidate (a position dose-response, then larger or differently trained
models) runs two separations and two seeds for 2400 steps; the criterion (:data:`CRITERION`, ``passes``) and the
choice (:func:`choose`) were fixed before the runs, and a candidate fails as soon as one finished run fails.
"""
from __future__ import annotations

import itertools
from dataclasses import replace
from pathlib import Path

import numpy as np

from swingby.diffusion.concept_space import joint_accuracy
from swingby.diffusion.presets import Preset
from swingby.diffusion.runs.driver import sweep
from swingby.diffusion.runs.search import as_json, candidate_names, read_candidate, write_json
from swingby.diffusion.runs.storage import load_results, results_dir
from swingby.diffusion.sweep import results_path

__all__ = ["CHOSEN", "CRITERION", "DECISIVE_DC", "SEEDS", "SWEEP_BUDGET_HOURS", "candidate_preset", "choose",
           "collect", "run_outcomes", "table"]

DECISIVE_DC, WEAK_DC = 0.689, 0.247  #: the strongest colour signal, and a weak one (inside 0.2-0.3)
SEEDS = (0, 1)
#: the ``cpu`` model and training of the first search's winner, at the authors' positions
BASE = dict(image_size=16, widths=(16, 32, 64), n_res=1, attention=True, steps=2400, batch=48, lr=2e-3,
            ema=0.99, sample_steps=25, samples_per_class=32, n_thumbs=4, classifier_steps=3000,
            position=0.5, seeding="per_run", bf16=False, separations=(DECISIVE_DC, WEAK_DC), seeds=SEEDS,
            n_checkpoints=8, workers=2, threads=1)

#: (name, what changes, preset overrides of ``BASE``), in the order they run
CANDIDATES = (
    ("authors' positions", "centres uniform in [-0.5, 0.5] (the authors' code)", {}),
    ("centred", "discs always at the centre", dict(position=0.0)),
    ("32 x 32", "authors' positions, 32 x 32 images", dict(image_size=32)),
    ("spread 0.25", "centres uniform in [-0.25, 0.25]", dict(position=0.25)),
    ("spread 0.1", "centres uniform in [-0.1, 0.1]", dict(position=0.1)),
    ("wider", "authors' positions, channels (32, 64, 128)", dict(widths=(32, 64, 128))),
    ("two blocks per level", "authors' positions, two ResNet blocks per level", dict(n_res=2)),
    ("paper's batch", "authors' positions, batch 128 (App. G)", dict(batch=128)),
)

#: the criterion, fixed before the runs
CRITERION = dict(
    blue_small_11=0.80,  #: class 11 blue small discs at the decisive dc, by the pixels and by the classifier
    disc_trained=0.95,  #: every trained class (00, 01, 10) drawn as a disc, at both separations
    settle_range=0.20,  #: reported, not judged: class 11's blue-small share over the last 3 checkpoints
)

#: the new sweep, fixed before the search's results
SWEEP = dict(seeds=tuple(range(8)), separations=(0.175, 0.247, 0.468, 0.689), n_checkpoints=48,
             samples_per_class=32, seeding="per_run", workers=2)
SWEEP_BUDGET_HOURS = 10.0  #: single-process hours the new sweep may take
SWEEP_RUN_PER_SEARCH_RUN = 2.0  #: search runs a sweep run costs (the same training, 48 checkpoints, not 8)

CHOSEN = "spread 0.1"  #: the candidate whose model and data make the new sweep, chosen by :func:`choose`


def choose(rows: list[dict]) -> dict:
    """The choice among :func:`collect` ``rows``: of those that pass and fit :data:`SWEEP_BUDGET_HOURS`, the
    widest positions, then the fewest minutes; ``chosen`` (or None), ``eligible`` (in that order), ``hours``
    (each complete candidate's sweep) and ``pending`` (not yet decided)."""
    if not isinstance(rows, list) or not all(isinstance(r, dict) and "runs" in r and "name" in r for r in rows):
        raise ValueError("rows must be the list that collect() returns")
    per_minute = len(SWEEP["separations"]) * len(SWEEP["seeds"]) * SWEEP_RUN_PER_SEARCH_RUN  # sweep's search runs
    hours = {r["name"]: per_minute * float(np.median([x["minutes"] for x in r["runs"]])) / 60
             for r in rows if r["complete"]}
    eligible = [r for r in rows if r["passes"] and hours[r["name"]] <= SWEEP_BUDGET_HOURS]
    eligible.sort(key=lambda r: (-candidate_preset(r["name"]).position, hours[r["name"]]))
    done = {r["name"] for r in rows if r["decided"]}
    return {"chosen": eligible[0]["name"] if eligible else None, "eligible": [r["name"] for r in eligible],
            "hours": hours, "pending": [n for n, _, _ in CANDIDATES if n not in done]}


def sweep_preset(name: str) -> Preset:
    """The new sweep's preset if candidate ``name`` is chosen: its model and data with ``SWEEP``."""
    return replace(candidate_preset(name), **SWEEP)


def candidate_preset(name: str) -> Preset:
    """The preset of candidate ``name`` of ``CANDIDATES``: ``BASE`` with its overrides."""
    over = {n: o for n, _, o in CANDIDATES}
    if not isinstance(name, str) or name not in over:
        raise ValueError(f"name: the candidate must be one of {list(over)}, got {name!r}")
    return Preset(name="cpu", **{**BASE, **over[name]})


def search_dir() -> Path:
    """``<results>/search-positions``: one results file per candidate."""
    return results_dir() / "search-positions"


def run_outcomes(res: dict) -> list[dict]:
    """Each finished run's ``dc``, ``seed``, ``disc`` per class, class 11's blue-small share by pixels
    and classifier, ``last3_11`` (pixels, last three checkpoints) and ``minutes``."""
    cfg, out = res["meta"]["config"], []
    for (i, dc), (j, seed) in itertools.product(enumerate(cfg["separations"]), enumerate(cfg["seeds"])):
        if not res["done"][i, j].all():
            continue
        pix, probs = res["pixels"][i, j].astype(float), res["probs"][i, j].astype(float)
        last3 = [float(joint_accuracy(probs[k, 3], pix[k, 3], "pixels")) for k in range(-3, 0)]
        out.append({"dc": float(dc), "seed": int(seed),
                    "disc": [float((pix[-1, c, :, 0] > 0.5).mean()) for c in range(4)],
                    "blue_small_11": last3[-1],
                    "clf_blue_small_11": float(joint_accuracy(probs[-1, 3], pix[-1, 3], "classifier")),
                    "last3_11": last3, "minutes": float(res["run_seconds"][i, j] / 60)})
    return out


def passes(runs: list[dict]) -> dict:
    """:data:`CRITERION` on :func:`run_outcomes`: ``complete``, ``passes``, ``decided``, each condition."""
    have = {(r["dc"], r["seed"]) for r in runs}
    complete = have >= {(dc, s) for dc in (DECISIVE_DC, WEAK_DC) for s in SEEDS}
    dec = [r for r in runs if r["dc"] == DECISIVE_DC]
    c11 = all(r["blue_small_11"] >= CRITERION["blue_small_11"] and r["clf_blue_small_11"] >= CRITERION["blue_small_11"]
              for r in dec)
    trained = all(min(r["disc"][:3]) >= CRITERION["disc_trained"] for r in runs)
    settled = all(max(r["last3_11"]) - min(r["last3_11"]) <= CRITERION["settle_range"] for r in runs)
    return {"complete": bool(complete), "class_11": bool(c11), "trained_discs": bool(trained),
            "settled": bool(settled), "passes": bool(complete and c11 and trained),
            "decided": bool(complete or not (c11 and trained))}


def run_search(only=None, *, new_sweep: bool = False, progress: bool = True):
    """Train the undecided candidates ``only`` (default: all); ``new_sweep``: :data:`CHOSEN`'s sweep instead."""
    names = candidate_names(only, CANDIDATES)
    if new_sweep:
        if only:
            raise ValueError("the new sweep runs the chosen candidate's sweep; leave out --only")
        return sweep(sweep_preset(CHOSEN), out_dir=results_dir(), progress=progress)
    rows = []
    for name in names:
        p = candidate_preset(name)
        path = results_path(search_dir(), p)
        if not (path.exists() and passes(run_outcomes(load_results(path)))["decided"]):
            path = sweep(p, out_dir=search_dir(), progress=progress)
        print(name, passes(run_outcomes(load_results(path))), flush=True)
        rows = collect()
        write_json("search-positions.json", rows)
    return rows


def collect() -> list[dict]:
    """A row per candidate with a results file: ``name``, ``what``, ``runs``, ``passes``' fields, ``file``."""
    rows = []
    for name, what, over in CANDIDATES:
        res, common = read_candidate(search_dir(), candidate_preset(name))
        if res is not None:
            runs = run_outcomes(res)
            rows.append({"name": name, "what": what, "overrides": as_json(over), "runs": runs, **passes(runs),
                         **common})
    return rows


def table(rows: list[dict]) -> str:
    """:func:`collect` ``rows`` as a markdown table, the worst seed of each quantity."""
    lines = ["| candidate | change | runs | min disc, trained | class 11 blue small at dc 0.689 "
             "(pixels / classifier, worst seed) | class 11 at dc 0.247 (pixels, per seed) | passes |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        runs = r["runs"]
        dec = [x for x in runs if x["dc"] == DECISIVE_DC]
        weak = [x for x in runs if x["dc"] == WEAK_DC]
        disc = min((min(x["disc"][:3]) for x in runs), default=np.nan)
        c11 = (f"{min(x['blue_small_11'] for x in dec):.0%} / {min(x['clf_blue_small_11'] for x in dec):.0%}"
               if dec else "-")
        w11 = ", ".join(f"{x['blue_small_11']:.0%}" for x in weak) or "-"
        verdict = (("yes" if r["passes"] else "no") if r["complete"]
                   else "no (decided early)" if r["decided"] else "unfinished")
        lines.append(f"| {r['name']} | {r['what']} | {len(runs)} | {disc:.0%} | {c11} | {w11} | {verdict} |")
    return "\n".join(lines)
