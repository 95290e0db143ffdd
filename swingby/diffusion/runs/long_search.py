"""The position search at 4800 steps, judged on confidence intervals, and the confirmatory sweep (:data:`SWEEP`, the
diffusion chapter's ``cpu`` sweep) it chooses. Fixed before its runs: the candidates (:data:`CANDIDATES`), the
criterion on each run's last checkpoint and final draws, pooled (``CRITERION``, ``judge_candidate``), the cost rules
(stop once decided, skip a candidate narrower than one that passed) and the choice (``CHOICE``, :func:`choose`).
"""
from __future__ import annotations

import itertools
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
from scipy import stats

from swingby.diffusion.concept_space import RADIUS_SPLIT, joint_accuracy
from swingby.diffusion.presets import Preset
from swingby.diffusion.runs import driver
from swingby.diffusion.runs import position_search as PS
from swingby.diffusion.runs.search import as_json, candidate_names, read_candidate, write_json
from swingby.diffusion.runs.storage import results_dir
from swingby.diffusion.sweep import N_REPEATS, partial_dir

__all__ = ["CANDIDATES", "DECISIVE_DC", "STEPS", "SWEEP", "choose", "collect", "sweep_model", "sweep_preset"]

STEPS = 4800
DECISIVE_DC, WEAK_DC = PS.DECISIVE_DC, PS.WEAK_DC  #: the strongest colour signal, and a weak one
SEEDS = (200, 201)  #: seed labels no earlier search or sweep used (randomness per run)
#: the position search's base at 4800 steps, 16 checkpoints, bf16 (kept by ``.precision_check``)
BASE = {**PS.BASE, "steps": STEPS, "bf16": True, "seeds": SEEDS, "n_checkpoints": 16}

#: (name, what changes, overrides of ``BASE``) in order; the third adds those of ``best_of`` the two
CANDIDATES = (
    ("two blocks per level", "authors' positions, two ResNet blocks per level", dict(n_res=2)),
    ("slower lr and EMA", "authors' positions, lr 1e-3 and EMA 0.999", dict(lr=1e-3, ema=0.999)),
    ("best + 100 sampling steps", "authors' positions, the better of the two above, 100 sampling steps (the paper's)",
     dict(sample_steps=100)),
    ("spread 0.25", "centres uniform in [-0.25, 0.25]", dict(position=0.25)),
    ("spread 0.1", "centres uniform in [-0.1, 0.1] (the first search's choice)", dict(position=0.1)),
)
BEST_OF = ("two blocks per level", "slower lr and EMA")  #: the candidates ``best_of`` compares
FALLBACK = "spread 0.1"  #: the sweep's candidate if none passes

#: the criterion, fixed before the runs
CRITERION = dict(
    confidence=0.95,      #: one-sided Clopper-Pearson lower bounds
    disc_trained=0.90,    #: lower bound of each trained class's disc share, at each separation
    blue_small_11=0.75,   #: lower bound of class 11's blue-small share at the decisive separation
    run_min_11=0.50,      #: every run's own class-11 blue-small share at the decisive separation
)
#: how a candidate is chosen among those that pass
CHOICE = ("among the candidates that pass and whose sweep fits the budget: the widest positions, then the "
          "highest lower bound of class 11's blue-small share (classifier)")

#: the confirmatory sweep: the chosen candidate's model and data with these settings
SWEEP = dict(steps=STEPS, seeds=tuple(range(1000, 1008)), separations=(0.175, 0.247, 0.468, 0.689),
             n_checkpoints=64, samples_per_class=32, seeding="per_run", workers=2)
SWEEP_BUDGET_HOURS = 14.0  #: single-process hours the sweep may take
SWEEP_RUN_PER_SEARCH_RUN = {25: 1.4, 100: 2.1}  #: a sweep run's cost in search runs, by sampling steps


def candidate_overrides(name: str, rows: list[dict] | None = None) -> dict:
    """Candidate ``name``'s preset overrides (the third's with ``best_of`` ``rows``, default :func:`collect`)."""
    over = {n: o for n, _, o in CANDIDATES}
    if not isinstance(name, str) or name not in over:
        raise ValueError(f"name: the candidate must be one of {list(over)}, got {name!r}")
    if name != CANDIDATES[2][0]:
        return dict(over[name])
    best = best_of(rows if rows is not None else collect())
    if best is None:
        raise ValueError(f"{name!r} needs both of {list(BEST_OF)} decided first")
    return {**over[best], **over[name]}


def candidate_preset(name: str, rows: list[dict] | None = None) -> Preset:
    """The preset of candidate ``name``: ``BASE`` with ``candidate_overrides`` ``(name, rows)``."""
    return Preset(name="cpu", **{**BASE, **candidate_overrides(name, rows)})


def sweep_model(name: str | None = None) -> dict:
    """The model and data fields of candidate ``name``'s sweep (default: the chosen one, else ``BASE``)."""
    if name is None:
        name = choose(collect())["chosen"] if search_dir().exists() else None
    d = dict(BASE) if name is None else {**BASE, **candidate_overrides(name)}
    for k in ("separations", "seeds", "n_checkpoints", "workers", "steps"):
        d.pop(k, None)
    return as_json(d)


def sweep_preset(name: str) -> Preset:
    """The confirmatory sweep's preset if candidate ``name`` is chosen."""
    return replace(candidate_preset(name), **SWEEP)


def search_dir() -> Path:
    """``<results>/search-4800``: one results file per candidate."""
    return results_dir() / "search-4800"


def _bound(k: int, n: int) -> float:
    """One-sided lower confidence bound (``CRITERION`` ``confidence``) of a share ``k / n``."""
    if n == 0:
        return 0.0
    return float(stats.binomtest(int(k), int(n), alternative="greater").proportion_ci(
        CRITERION["confidence"], method="exact").low)


def run_counts(res: dict) -> list[dict]:
    """Per finished run, the counts the criterion reads from the last checkpoint and final draws, and paths."""
    cfg, out = res["meta"]["config"], []
    for (i, dc), (j, seed) in itertools.product(enumerate(cfg["separations"]), enumerate(cfg["seeds"])):
        if not res["done"][i, j].all():
            continue
        probs = np.concatenate([res["probs"][i, j, -1][None], res["rep_probs"][i, j]]).astype(float)
        pix = np.concatenate([res["pixels"][i, j, -1][None], res["rep_pixels"][i, j]]).astype(float)
        disc = np.concatenate([res["disc"][i, j, -1][None], res["rep_disc"][i, j]])  # (R + 1, 4, n)
        clf_bs = disc[:, 3] & (probs[:, 3, :, 0] > 0.5) & (probs[:, 3, :, 1] > 0.5)
        pix_bs = disc[:, 3] & (pix[:, 3, :, 2] > 0) & (pix[:, 3, :, 1] < RADIUS_SPLIT)
        last3 = joint_accuracy(res["probs"][i, j, -3:, 3].astype(float), None, "classifier").tolist()
        out.append({"dc": float(dc), "seed": int(seed), "n": int(disc.shape[0] * disc.shape[2]),
                    "disc": [int(disc[:, c].sum()) for c in range(4)],
                    "blue_small_11_clf": int(clf_bs.sum()), "blue_small_11_pix": int(pix_bs.sum()),
                    "last3_11": last3, "minutes": float(res["run_seconds"][i, j] / 60),
                    "disc_11_path": res["disc"][i, j, :, 3].mean(-1).tolist(),
                    "steps": list(res["meta"]["checkpoint_steps"])})
    return out


def judge_candidate(runs: list[dict], n_per_run: int) -> dict:
    """``CRITERION`` on ``run_counts``: ``complete``, ``passes``, ``decided`` (fails even if the rest pass)."""
    need = {(dc, s) for dc in (DECISIVE_DC, WEAK_DC) for s in SEEDS}
    have = {(r["dc"], r["seed"]) for r in runs}
    complete = have >= need

    def bounds(optimistic: bool) -> dict:
        extra = {dc: n_per_run * len({(d, s) for d, s in need - have if d == dc}) if optimistic else 0
                 for dc in (DECISIVE_DC, WEAK_DC)}
        out = {"disc_bounds": {}}
        for dc in (DECISIVE_DC, WEAK_DC):
            rs = [r for r in runs if r["dc"] == dc]
            n = sum(r["n"] for r in rs) + extra[dc]
            out["disc_bounds"][str(dc)] = [_bound(sum(r["disc"][c] for r in rs) + extra[dc], n) for c in range(3)]
        dec = [r for r in runs if r["dc"] == DECISIVE_DC]
        n = sum(r["n"] for r in dec) + extra[DECISIVE_DC]
        for key in ("blue_small_11_clf", "blue_small_11_pix"):
            out[key] = _bound(sum(r[key] for r in dec) + extra[DECISIVE_DC], n)
        out["runs_11"] = all(min(r["blue_small_11_clf"], r["blue_small_11_pix"]) / r["n"] >= CRITERION["run_min_11"]
                             for r in dec)
        out["ok"] = (all(b >= CRITERION["disc_trained"] for bs in out["disc_bounds"].values() for b in bs)
                     and min(out["blue_small_11_clf"], out["blue_small_11_pix"]) >= CRITERION["blue_small_11"]
                     and out["runs_11"])
        return out

    now, best = bounds(False), bounds(True)
    return {"complete": bool(complete), "passes": bool(complete and now["ok"]),
            "decided": bool(complete or not best["ok"]), **{k: v for k, v in now.items() if k != "ok"}}


def best_of(rows: list[dict]) -> str | None:
    """The better of ``BEST_OF`` once both are decided (by class 11's classifier bound, then minutes)."""
    by = {r["name"]: r for r in rows}
    if not all(n in by and by[n]["decided"] for n in BEST_OF):
        return None
    return max(BEST_OF, key=lambda n: (by[n]["blue_small_11_clf"], -_minutes(by[n])))


def _minutes(row: dict) -> float:
    """A candidate's median minutes per run."""
    return float(np.median([x["minutes"] for x in row["runs"]]))


def sweep_hours(row: dict) -> float:
    """Estimated single-process hours of the sweep for a decided candidate ``row``."""
    factor = SWEEP_RUN_PER_SEARCH_RUN[100 if row["overrides"].get("sample_steps") == 100 else 25]
    return len(SWEEP["seeds"]) * len(SWEEP["separations"]) * factor * _minutes(row) / 60


def choose(rows: list[dict]) -> dict:
    """The choice (``CHOICE``) among :func:`collect` ``rows``: ``chosen`` (``FALLBACK`` when none
    passes), ``eligible`` (in the order of the choice), ``hours``, ``pending`` and ``skipped``."""
    if not isinstance(rows, list) or not all(isinstance(r, dict) and "runs" in r and "name" in r for r in rows):
        raise ValueError("rows must be the list that collect() returns")
    hours = {r["name"]: sweep_hours(r) for r in rows if r["complete"]}
    eligible = [r for r in rows if r["passes"] and hours[r["name"]] <= SWEEP_BUDGET_HOURS]
    eligible.sort(key=lambda r: (-r["position"], -r["blue_small_11_clf"]))
    widest = max((r["position"] for r in eligible), default=None)
    done = {r["name"] for r in rows if r["decided"]}
    skipped = [n for n, _, o in CANDIDATES if n not in done and widest is not None
               and o.get("position", BASE["position"]) < widest]
    pending = [n for n, _, _ in CANDIDATES if n not in done and n not in skipped]
    chosen = None if pending else eligible[0]["name"] if eligible else FALLBACK
    return {"chosen": chosen, "eligible": [r["name"] for r in eligible], "hours": hours, "pending": pending,
            "skipped": skipped}


def collect() -> list[dict]:
    """A row per candidate with a results file: ``name``, ``what``, ``overrides``, ``position``, ``runs``,
    ``judge_candidate``'s fields and ``file``."""
    rows = []
    for name, what, _ in CANDIDATES:
        try:
            p = candidate_preset(name, rows)
        except ValueError:  # the 100-step candidate before its model is known
            continue
        res, common = read_candidate(search_dir(), p)
        if res is not None:
            runs = run_counts(res)
            rows.append({"name": name, "what": what, "overrides": as_json(candidate_overrides(name, rows)),
                         "position": p.position, "runs": runs, **judge_candidate(runs, p.samples_per_class * 5),
                         **common})
    return rows


def summarise() -> list[dict]:
    """:func:`collect`, also written to ``<results>/search-4800.json`` with the choice."""
    rows = collect()
    write_json("search-4800.json", {"criterion": CRITERION, "choice": CHOICE, "state": choose(rows),
                                    "candidates": rows})
    return rows


def run_search(only=None, *, sweep: bool = False, progress: bool = True):
    """Run the candidates ``only`` (default: all) under the cost rules; ``sweep``: the chosen one's sweep."""
    names = candidate_names(only, CANDIDATES)
    if sweep:
        if only:
            raise ValueError("--sweep runs the chosen candidate's sweep; leave out --only")
        state = choose(collect())
        if state["chosen"] is None:
            raise ValueError(f"the search has not chosen yet: still to run {state['pending']}")
        return driver.sweep(sweep_preset(state["chosen"]), out_dir=results_dir(), progress=progress)
    assert N_REPEATS == 4  # the criterion's 160 samples per class and run: last checkpoint + 4 draws

    def decided(name: str) -> bool:  # the early stop: its finished runs already decide it
        return any(r["name"] == name and r["decided"] for r in collect())

    for name in names:
        rows = collect()
        if name not in choose(rows)["pending"]:
            continue
        p = candidate_preset(name, rows)
        driver.sweep(p, out_dir=search_dir(), progress=progress, stop=lambda: decided(name))
        if decided(name):  # stopped early or finished: its unfinished runs are never resumed
            shutil.rmtree(partial_dir(search_dir(), p), ignore_errors=True)
            driver.remove_if_empty(partial_dir(search_dir(), p))
        summarise()
    return summarise()
